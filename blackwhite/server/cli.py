"""``blackwhite serve``: run the server (FastAPI under uvicorn) on a database.

Kept free of heavy imports at module level so ``blackwhite --help`` stays quick.
"""

from __future__ import annotations

import signal
from types import FrameType

import typer

DEFAULT_DB = "sqlite:///blackwhite.db"


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
) -> None:
    """Host live matches: players join by private links; the server keeps secrets and clocks."""
    import time

    import uvicorn

    from .app import create_app
    from .proxy import public_origin, trusted_networks
    from .store import normalise_url

    try:
        public = public_origin(public_url) if public_url else None
        trusted_networks(forwarded_allow_ips)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    shown = f"[{host}]" if ":" in host else host
    listening = f"http://{shown}:{port}"
    held = _one_process(db)
    if held is not None:
        typer.echo(held, err=True)
        raise typer.Exit(2)
    try:
        app = create_app(normalise_url(db), bot_workers=max(bot_workers, 0), rate=max(rate, 0.001), rate_limit=rate > 0,
                         public_url=public, forwarded_allow_ips=forwarded_allow_ips,
                         internal_url=internal_url or listening)
    except Exception as exc:  # a bad URL or an unreachable database: say which, exit 2
        typer.echo(f"error: cannot open the database {db}: {exc}", err=True)
        raise typer.Exit(2) from None
    # a fresh login link of the same host at each start: every earlier match stays listed
    token = app.state.service.owner_login(time.strftime("printed by blackwhite serve, %Y-%m-%d %H:%M UTC", time.gmtime()))
    # the host page takes this link's token without asking in a browser that is no host yet
    # (it asks for any other link's token: see docs/pages.md)
    app.state.printed_host_token = token
    base = public or listening
    typer.echo(f"blackwhite is serving on {listening}/" + (f" as {public}/" if public else "") + f" (database: {db})")
    typer.echo("Open your host page to create matches; it gives each player a private link to send them.")
    typer.echo(f"Your host link (keep it private: it controls your matches): {base}/?token={token}")
    typer.echo(f"API documentation: {base}/docs. Stop with Ctrl-C.")
    # uvicorn stops cleanly on SIGINT/SIGTERM, then raises the signal again for the handler
    # that was there before it: this one, so a requested stop exits 0 instead of dying of it
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stopped)
    # views are small; compressing every push cost more CPU than it saved on a loopback or LAN
    # proxy_headers off: the app's own middleware (blackwhite/server/proxy.py) reads them
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, ws_max_size=MAX_WS_BYTES,
                ws_per_message_deflate=False, proxy_headers=False)


#: the SQLite file a serving process holds its exclusive lock on, kept open for its lifetime
_HELD: list[int] = []


def _one_process(db: str) -> str | None:
    """SQLite serves one process: take an exclusive lock on the database file (``flock``,
    apart from SQLite's own locks) for this process's life; None, or why it cannot."""
    import fcntl
    import os

    from sqlalchemy.engine import make_url

    try:
        url = make_url(db)
    except Exception:
        return None  # create_app says what is wrong with it
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    path = os.path.abspath(url.database)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None  # create_app says why the file cannot be opened
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return (f"error: another blackwhite serve is already serving the SQLite database {path}. "
                "SQLite serves one process; to run several server processes over one database, "
                "use PostgreSQL (--db postgresql://...; see docs/deploy.md).")
    _HELD.append(fd)
    return None


def _stopped(_sig: int, _frame: FrameType | None) -> None:
    """The stop signal uvicorn raises again once it has stopped: nothing left to do."""


#: frames up to this size reach the app, which answers one over 64 KiB with a ``too_large``
#: error; uvicorn closes the socket (1009) only beyond it
MAX_WS_BYTES = 1024 * 1024


def register(app: typer.Typer) -> None:
    """Mount ``serve`` on the ``blackwhite`` command."""
    app.command()(serve)
