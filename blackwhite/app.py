"""The composition root: the match service, the API and the pages assembled into one
app, and ``blackwhite serve``, which runs it (FastAPI under uvicorn) on a database.

The arrows point one way (docs/server.md, "Layers"): :mod:`blackwhite.server` speaks
data and never imports the pages; :mod:`blackwhite.web` renders over the service;
only this module imports both, and hands the service the pages' board renderer.
Kept free of heavy imports at module level so ``blackwhite --help`` stays quick.
"""

from __future__ import annotations

import signal
import time
from types import FrameType
from typing import TYPE_CHECKING, Callable

import typer

from .server.cli import CONTEXT, DEFAULT_DB, load_config, one_process, shown_url, without_password

if TYPE_CHECKING:
    from fastapi import FastAPI

    from .analysis import Settings
    from .server.limits import Quotas, SocketBudget
    from .server.notify import NotifySettings


def create_app(
    db_url: str,
    *,
    bot_workers: int = 1,
    now: Callable[[], float] = time.time,
    rate: float = 50.0,
    burst: int = 200,
    rate_limit: bool = True,
    ws_flood: int | None = None,
    clock_interval: float | None = 0.1,
    analysis_settings: Settings | None = None,
    keep_ended: float | None = None,
    max_ended: int | None = None,
    anonymous_live: int | None = None,
    public_url: str | None = None,
    forwarded_allow_ips: str | list[str] | None = None,
    internal_url: str | None = None,
    lease: float | None = None,
    allowed_hosts: str | list[str] | None = None,
    metrics: bool = True,
    relay_secret: str | None = None,
    quotas: Quotas | None = None,
    sockets: SocketBudget | None = None,
    analysis_per_client: int | None = None,
    analysis_cores: int | None = None,
    notify: NotifySettings | None = None,
    ratings_interval: float | None = None,
) -> FastAPI:
    """The server over the database at ``db_url`` (migrated to the newest schema first):
    the API (:func:`blackwhite.server.app.create_api`) and the pages
    (:func:`blackwhite.web.routes.install`) over one match service, which draws the
    pages' boards with :func:`blackwhite.web.render.board_html`.

    ``now`` is the clock (tests pass a fake one and call ``app.state.service.tick()``);
    ``clock_interval=None`` starts no background clock.  ``bot_workers`` processes
    think for bot seats (0: one thread of this process, for tests with quick bots).
    ``rate``/``burst`` is each token's (or address's) request budget; ``rate_limit=False``
    lifts it (the fuzz test sends hundreds of requests from one client).
    ``analysis_settings``: how hard the replay page's analysis looks (default: the
    ``BLACKWHITE_REPLAY_ANALYSIS_*`` environment, else 8 worlds; see docs/pages.md).
    ``keep_ended``/``max_ended``: how long (seconds since last use) and how many ended
    matches stay in memory; ``anonymous_live``: running matches an address may create
    without a host token (docs/server.md, "Memory").
    ``public_url``: the origin links are built from (``https://bw.example.org``; default:
    the request's own); ``forwarded_allow_ips``: the proxies whose ``X-Forwarded-*``
    headers are believed (see :mod:`blackwhite.server.proxy`; docs/deploy.md).
    Over PostgreSQL the server is one of possibly several processes (docs/server.md,
    "Several processes"): ``internal_url`` is where the others relay requests for the
    matches this one owns (``http://127.0.0.1:8001``; None: they cannot); ``lease``: seconds
    this process's ownership lasts without a heartbeat before another takes its matches over.
    ``allowed_hosts``: the hosts the server answers for (``Host``; others get 400), as
    ``--allowed-hosts`` takes them; None: any (``serve`` always gives a list).
    ``relay_secret``: what a request relayed between processes carries to be believed
    (None: one made once and kept in the database).
    ``metrics``: serve ``/metrics`` on the app (False: ``serve --metrics-port`` serves them apart).
    ``quotas``: the running-match bounds (per host, per address, bot-only, overall, the
    idle wait; ``anonymous_live``, if given, is their ``anonymous``); ``sockets``: the
    WebSocket handshake and open-socket budget (:mod:`blackwhite.server.limits`);
    ``analysis_per_client``/``analysis_cores``: the replay analyses one client address may
    have waiting or running, and the cores they may take together (default: 1, half).
    ``notify``: how players are told of their turns (SMTP URL, digest window; docs/server.md,
    "Notifications"); None: the defaults (Web Push, no email).
    ``ratings_interval``: seconds between the ratings' catch-ups besides the one after
    each finished match (:mod:`blackwhite.server.ratings_api`).
    Options left None take the server's defaults.
    """
    from .server import app as api
    from .server import ratings_api
    from .server import service as svc
    from .server.proxy import LOOPBACK, allowed_hosts as parse_hosts, public_origin, trusted_networks
    from .web import analysis_jobs
    from .web import routes as pages
    from .web import standings
    from .web.render import board_html
    from dataclasses import replace
    from .server.limits import Quotas as Bounds
    from .server.notify import NotifySettings, Notifier

    bounds = quotas or Bounds()
    if anonymous_live is not None:
        bounds = replace(bounds, anonymous=anonymous_live)

    public = public_origin(public_url) if public_url else None
    trusted = trusted_networks(",".join(LOOPBACK) if forwarded_allow_ips is None else forwarded_allow_ips)
    service = api.open_service(
        db_url, bot_workers=bot_workers, now=now,
        keep_ended=svc.KEEP_ENDED if keep_ended is None else keep_ended,
        max_ended=svc.MAX_ENDED if max_ended is None else max_ended,
        quotas=bounds, internal_url=internal_url, boards=board_html, relay_secret=relay_secret or None,
        lease=api.LEASE if lease is None else lease,
    )
    settings = notify or NotifySettings()
    notifier = Notifier(service, base_url=settings.base_url or public or internal_url or "http://127.0.0.1:8000",
                        channels=settings.channels(), digest=settings.digest, gather=settings.gather,
                        process=service.cluster.id if service.cluster is not None else None)
    if settings.push:
        notifier.enable_push(settings.push_services, settings.push_plain)
    return api.create_api(
        service, rate=rate, burst=burst, rate_limit=rate_limit, notifier=notifier,
        ws_flood=api.WS_FLOOD if ws_flood is None else ws_flood, clock_interval=clock_interval,
        public=public, trusted=trusted, hosts=None if allowed_hosts is None else parse_hosts(allowed_hosts),
        metrics=metrics, sockets=sockets,
        extensions=[lambda app: pages.install(
            app, service, analysis_settings,
            analysis_jobs.PER_CLIENT if analysis_per_client is None else analysis_per_client, analysis_cores),
            lambda app: ratings_api.extension(app, service, ratings_interval),
            lambda app: standings.extension(app, service)],
    )


def serve(
    db: str = typer.Option(DEFAULT_DB, "--db", help="SQLAlchemy database URL (default: a SQLite file in this directory)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
    bot_workers: int = typer.Option(1, "--bot-workers", help="Worker processes that think for bot seats."),
    rate: float = typer.Option(50.0, "--rate", help="Requests per second each token (or address) may make; 0: no limit."),
    public_url: str = typer.Option("", "--public-url", help=(
        "The address people reach the server at, behind a reverse proxy (https://bw.example.org): "
        "links and printed URLs use it instead of the request's host.")),
    forwarded_allow_ips: str = typer.Option("127.0.0.1,::1", "--forwarded-allow-ips", help=(
        "Proxies (addresses or networks, comma-separated) whose X-Forwarded-For/-Proto/-Host are believed; "
        "'' trusts none, '*' every client.")),
    internal_url: str = typer.Option("", "--internal-url", help=(
        "Over PostgreSQL, where the other server processes reach this one to relay requests for the matches "
        "it holds (default: http://HOST:PORT; give a routable address when HOST is 0.0.0.0).")),
    lease: float = typer.Option(5.0, "--lease", min=1.0, max=600.0, help=(
        "Over PostgreSQL, seconds this process keeps its matches without a heartbeat (written every second); "
        "once its lease has run out (stopped, hung, cut off) another process takes them over.")),
    allowed_hosts: str = typer.Option("", "--allowed-hosts", help=(
        "Host names or addresses this server answers for (comma-separated; '.example.org' takes its "
        "subdomains; '*' any); a request for another Host gets 400, so no link names a host a client chose. "
        "Always added: the --public-url and --internal-url hosts, the --host address unless it is 0.0.0.0 or ::, "
        "and localhost, 127.0.0.1, ::1.")),
    log_json: bool = typer.Option(False, "--log-json", help=(
        "Log one JSON object a line (time, level, logger, message, request_id, match_id) instead of text lines.")),
    log_level: str = typer.Option("info", "--log-level", help="The least level logged: debug, info, warning, error."),
    metrics_port: int = typer.Option(0, "--metrics-port", min=0, max=65535, help=(
        "Serve the Prometheus metrics on this port (on --metrics-host) instead of at /metrics of the main port; "
        "0: at /metrics.")),
    metrics_host: str = typer.Option("127.0.0.1", "--metrics-host", help=(
        "The address --metrics-port listens on: this machine only unless you name another (0.0.0.0: every "
        "interface, for a Prometheus elsewhere; the metrics hold no secret, but they are nobody else's business).")),
    relay_secret: str = typer.Option("", "--relay-secret", help=(
        "Over PostgreSQL, the secret a request relayed between server processes carries so the owner believes "
        "the client address it names (at least 16 characters, the same for every process; default: one made "
        "by the first process and kept in the database). Best set in the environment or the file, not here.")),
    config: str = typer.Option("", "--config", is_eager=True, callback=load_config, help=(
        "A TOML file of these options (keys: the option names in lower case with underscores, "
        "db = \"postgresql://...\"); the environment (BLACKWHITE_DB, BLACKWHITE_PUBLIC_URL...) and flags win over it.")),
    max_anonymous_matches: int = typer.Option(10, "--max-anonymous-matches", min=0, help=(
        "Running matches a host made with its first match (no link from the operator) may have, whichever of its "
        "links creates them; and all such hosts of one client address together (IPv6 counted by /64). 0: no bound.")),
    max_host_matches: int = typer.Option(200, "--max-host-matches", min=0, help=(
        "Running matches a host the operator made (this server's own, blackwhite hosts new) may have; 0: no bound.")),
    max_matches: int = typer.Option(5000, "--max-matches", min=0, help=(
        "Running matches on the whole server (every process over one database); 0: no bound.")),
    max_bot_matches: int = typer.Option(2, "--max-bot-matches", min=0, help=(
        "Running matches of bots only a host may have (each keeps a bot worker busy); 0: no bound.")),
    max_anonymous_players: int = typer.Option(20, "--max-anonymous-players", min=0, help=(
        "Players a host made with its first match may make; and all such hosts of one client address together "
        "(IPv6 counted by /64). 0: no bound.")),
    max_host_players: int = typer.Option(1000, "--max-host-players", min=0, help=(
        "Players a host the operator made (this server's own, blackwhite hosts new-link) may make; 0: no bound.")),
    max_idle_wait: float = typer.Option(3600.0, "--max-idle-wait", min=0.0, help=(
        "Seconds a match waiting for its players (start when_joined) waits before it is cancelled; 0: for ever.")),
    max_bot_budget: float = typer.Option(5.0, "--max-bot-budget", min=0.01, max=30.0, help=(
        "Seconds a bot seat may think per decision (a spec asking more is cut to this; half the seat's time left "
        "when it starts thinking applies as well).")),
    max_handshakes: float = typer.Option(10.0, "--max-handshakes", min=0.0, help=(
        "WebSocket handshakes per second one client address may make (bursts of 3 times that); 0: no bound.")),
    max_sockets: int = typer.Option(64, "--max-sockets", min=0, help=(
        "Open WebSockets one client address may hold (IPv6 counted by /64); 0: no bound.")),
    max_spectators: int = typer.Option(200, "--max-spectators", min=0, help=(
        "Open spectators' WebSockets one match may have; 0: no bound.")),
    max_analysis_jobs: int = typer.Option(1, "--max-analysis-jobs", min=0, help=(
        "Replay analyses one client address may have waiting or running at once (429 beyond); 0: no bound "
        "but the server's queue of 4.")),
    max_analysis_cores: int = typer.Option(0, "--max-analysis-cores", min=0, help=(
        "Cores the replay analyses may take together (their workers run niced below the bots); "
        "0: half of this machine's.")),
    smtp_url: str = typer.Option("", "--smtp-url", help=(
        "Where the server's mail goes out, to tell players of their turns, low time and the end: "
        "smtp://[USER[:PASSWORD]@]HOST[:PORT][?from=ADDRESS&starttls=1] or smtps://... (TLS from the start). "
        "Best in BLACKWHITE_SMTP_URL or the file (it may hold a password). Default: no email.")),
    notify_digest: float = typer.Option(120.0, "--notify-digest", min=0.0, max=86400.0, help=(
        "Seconds a player's mailbox (or browser, or DM) waits after one notification before the next: "
        "whatever comes meanwhile goes as one message.")),
    start_link_ttl: float = typer.Option(86400.0, "--start-link-ttl", min=0.0, help=(
        "Seconds the host link printed at this start logs in if nobody uses it (once used, it stays; "
        "a browser that logged in with it stays logged in); 0: it never expires. Restarts then do not "
        "pile up live links in the log.")),
) -> None:
    """Host live matches: players join by private links; the server keeps secrets and clocks."""
    import uvicorn

    from dataclasses import replace

    from .server.limits import Quotas, SocketBudget
    from .server.notify import NotifySettings
    from .server.proxy import public_origin, trusted_networks
    from .server.store import normalise_url

    import logging

    from .server.observe import configure_logging

    if log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        typer.echo(f"error: --log-level is debug, info, warning or error; got {log_level!r}", err=True)
        raise typer.Exit(2)
    from .server.cli import password_forms

    # never in a log line: the database password, the relay secret
    configure_logging(log_json, log_level, hidden=[*password_forms(db), relay_secret, *password_forms(smtp_url)])
    try:
        notify = NotifySettings(smtp_url=smtp_url or None, digest=notify_digest)
        notify.channels()  # a bad SMTP URL stops the start here, with what is wrong
        public = public_origin(public_url) if public_url else None
        trusted_networks(forwarded_allow_ips)
        hosts = answered_hosts(allowed_hosts, host, public, internal_url)
        if relay_secret and len(relay_secret) < 16:
            raise ValueError("--relay-secret must be at least 16 characters (or left out: one is kept in the database)")
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    shown = f"[{host}]" if ":" in host else host
    listening = f"http://{shown}:{port}"
    held = one_process(db)
    if held is not None:
        typer.echo(held, err=True)
        raise typer.Exit(2)
    try:
        app = create_app(normalise_url(db), bot_workers=max(bot_workers, 0), rate=max(rate, 0.001), rate_limit=rate > 0,
                         public_url=public, forwarded_allow_ips=forwarded_allow_ips,
                         internal_url=internal_url or listening, lease=lease, allowed_hosts=hosts,
                         metrics=not metrics_port, relay_secret=relay_secret or None,
                         quotas=Quotas(anonymous=max_anonymous_matches, host=max_host_matches, total=max_matches,
                                       bot_matches=max_bot_matches, idle=max_idle_wait, bot_budget=max_bot_budget,
                                       anonymous_players=max_anonymous_players, host_players=max_host_players),
                         analysis_per_client=max_analysis_jobs, analysis_cores=max_analysis_cores or None,
                         notify=replace(notify, base_url=public or listening),
                         sockets=SocketBudget(max_handshakes, max(1, int(max_handshakes * 3)), max_sockets,
                                              max_spectators))
    except Exception as exc:  # a bad URL or an unreachable database: say which (never its password), exit 2
        typer.echo(without_password(f"error: cannot open the database {shown_url(db)}: {exc}", db), err=True)
        raise typer.Exit(2) from None
    # a fresh login link of the same host at each start: every earlier match stays listed
    token = app.state.service.owner_login(time.strftime("printed by blackwhite serve, %Y-%m-%d %H:%M UTC", time.gmtime()),
                                          start_link_ttl or None)
    # the host page takes this link's token without asking in a browser that is no host yet
    # (it asks for any other link's token: see docs/pages.md)
    app.state.printed_host_token = token
    if metrics_port:
        from prometheus_client import start_http_server

        try:
            start_http_server(metrics_port, addr=metrics_host, registry=app.state.service.metrics.registry)
        except OSError as exc:
            typer.echo(f"error: cannot serve the metrics on {metrics_host} port {metrics_port}: {exc.strerror or exc}",
                       err=True)
            raise typer.Exit(2) from None
    logging.getLogger("blackwhite.server").info(
        "serving on %s%s, database %s", listening, f" as {public}" if public else "", shown_url(db))
    base = public or listening
    typer.echo(f"blackwhite is serving on {listening}/" + (f" as {public}/" if public else "") + f" (database: {shown_url(db)})")
    typer.echo("Open your host page to create matches; it gives each player a private link to send them.")
    unused = (f"; unless opened within {start_link_ttl / 3600:g} h it expires (blackwhite hosts new-link makes another)"
              if start_link_ttl else "")
    typer.echo(f"Your host link (keep it private: it controls your matches{unused}): {base}/?token={token}")
    typer.echo(f"API documentation: {base}/docs. Stop with Ctrl-C.")
    if hosts != "*" and host in ("0.0.0.0", "::") and not public and not allowed_hosts.strip():
        typer.echo("note: listening on every address, but answering only for localhost: give the names or "
                   "addresses people use with --allowed-hosts (or --public-url behind a proxy)", err=True)
    # uvicorn stops cleanly on SIGINT/SIGTERM, then raises the signal again for the handler
    # that was there before it: this one, so a requested stop exits 0 instead of dying of it
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stopped)
    # views are small; compressing every push cost more CPU than it saved on a loopback or LAN
    # proxy_headers off: the app's own middleware (blackwhite/server/proxy.py) reads them
    # log_config=None: uvicorn's own errors go through the handler configure_logging set
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, ws_max_size=MAX_WS_BYTES,
                ws_per_message_deflate=False, proxy_headers=False, log_config=None)


def answered_hosts(given: str, listen: str, public: str | None, internal: str) -> str:
    """``--allowed-hosts`` with what a server always answers for: its public and internal
    URLs' hosts, the address it listens on (unless every address), and this machine's
    loopback names; ``*`` stays ``*``.  ``ValueError`` on a bad entry."""
    import urllib.parse

    from .server.proxy import allowed_hosts as parse_hosts

    if parse_hosts(given) is None:
        return "*"
    names = [h for h in given.split(",") if h.strip()]
    names += [urllib.parse.urlsplit(u).hostname or "" for u in (public or "", internal) if u]
    if listen not in ("0.0.0.0", "::", ""):
        names.append(listen)
    names += ["localhost", "127.0.0.1", "::1"]
    parse_hosts(names)
    return ",".join(n for n in names if n)


def _stopped(_sig: int, _frame: FrameType | None) -> None:
    """The stop signal uvicorn raises again once it has stopped: nothing left to do."""


#: frames up to this size reach the app, which answers one over 64 KiB with a ``too_large``
#: error; uvicorn closes the socket (1009) only beyond it
MAX_WS_BYTES = 1024 * 1024


def register(app: typer.Typer) -> None:
    """Mount ``serve`` on the ``blackwhite`` command."""
    app.command(context_settings=CONTEXT)(serve)
