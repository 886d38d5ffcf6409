"""The browser pages' routes: host, play, watch, replay and rules, over the match service.

Pages are rendered on the server (Jinja2) and kept live by ``static/bw.js`` over the
match's WebSocket with ``?render=1``; every board they show is drawn from a payload
the service built from ``State.view`` (see :mod:`blackwhite.web.render`).  A token
that is not valid for the page gets an HTML error page with the API's status.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import urllib.parse
from typing import Any, Callable

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from ..analysis import Settings
from ..engine import Pace, PaceError, make_game
from ..engine.record import RecordError, parse_record, replay
from ..engine.registry import game_ids
from ..server.app import game_entry
from ..server.errors import Refused, error_body
from ..server.http import status_of
from ..server.players import PlayerService
from ..server.service import MatchService
from . import replay as steps
from ..server.limits import client_key
from .analysis_jobs import ENV_WORLDS, PER_CLIENT, AnalysisJobs, Busy, Job, TooMany, settings_from_env
from .render import STATIC, display_names, game_asset, game_asset_text, render_page, rules_html, seat_label

log = logging.getLogger("blackwhite.web")

#: the largest record file the replay page takes (records of whole matches are a few KiB)
MAX_RECORD = 1024 * 1024


#: the cookie in which a browser that holds a host token sends it with page loads, so
#: ``/host/ID`` (and ``/``) open without ``?token=``; set by host.js, read only by pages
HOST_COOKIE = "bw_host"
#: the same for a player's login: ``/me`` and the ``/play/ID`` pages of its seats open
#: without ``?token=``; set by player.js once the player chose to log in in this browser
PLAYER_COOKIE = "bw_player"


def _token(request: Request, cookie: str = HOST_COOKIE) -> str | None:
    """A page's token: ``Authorization: Bearer``, else ``?token=``, else this browser's
    host token (the ``bw_host`` cookie; SameSite=Strict, so no other site's link sends
    it), or for a player's pages its player token (``bw_player``)."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return request.query_params.get("token") or request.cookies.get(cookie) or None


#: the pages run only the server's own scripts (a partial cannot add one, even by mistake),
#: talk only to the server, and are framed by nobody; tokens in their URLs go to no other site
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def _html(text: str, status: int = 200) -> HTMLResponse:
    """A page with :data:`PAGE_HEADERS`."""
    return HTMLResponse(text, status, headers=PAGE_HEADERS)


def _error_page(status: int, message: str) -> HTMLResponse:
    page = _html(render_page("error.html", status=status, message=message, title="blackwhite"), status)
    if status == 503:  # nothing is wrong with the link: the match's owner or the database is back shortly
        page.headers["Retry-After"] = "1"
        page.headers["Refresh"] = "2"
    return page


def games_info() -> list[dict[str, Any]]:
    """Every game with its options' defaults and clock, as the host page's form needs."""
    out = []
    for gid in game_ids():
        try:  # a game's own code: one that fails is left out of the form (logged), not the page
            game, entry = game_entry(gid)
            out.append({
                **entry, "clock": game.clock_rule().describe(),
                "option_info": {name: info.to_json() for name, info in type(game).options_info().items()},
            })
        except Exception:
            log.exception("game %s cannot describe itself; the host form leaves it out", gid)
    return out


def bot_choices() -> list[dict[str, Any]]:
    """The bots a host may seat, with whether they take a thinking budget (seconds)."""
    from ..bots import BOTS
    from ..server.bots import MAX_BUDGET

    return [{"name": name, "budget": name == "ismcts", "max_budget": MAX_BUDGET} for name in BOTS]


def install(app: FastAPI, service: MatchService, analysis_settings: Settings | None = None,
            analysis_per_client: int = PER_CLIENT, analysis_cores: int | None = None) -> Callable[[], None]:
    """Add the pages and their static files to ``app``; the replay page's analysis jobs
    (``app.state.replay_analysis``) run with ``analysis_settings`` (by default those of
    :func:`settings_from_env`, whose worlds are scaled by game unless :data:`ENV_WORLDS`
    fixes them), ``analysis_per_client`` at once per client address, on at most
    ``analysis_cores`` cores (default: half).  Returns what closes the jobs, to be called when the app stops."""
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    public_url: str | None = getattr(app.state, "public_url", None)

    def page(name: str, **context: Any) -> str:
        """A page that knows the server's public origin (``--public-url``): the scripts
        build the links a host hands out on it, not on the address the page was opened at."""
        return render_page(name, public_url=public_url, **context)
    per_game = analysis_settings is None and not os.environ.get(ENV_WORLDS, "").strip()
    cluster = service.cluster
    # several processes: jobs' states in the database (docs/server.md)
    publish = service.save_jobs if cluster is not None else None
    app.state.replay_analysis = AnalysisJobs(analysis_settings or settings_from_env(), per_game=per_game,
                                             prefix=f"{cluster.id}." if cluster is not None else "",
                                             publish=publish, per_client=analysis_per_client,
                                             max_cores=analysis_cores)

    async def match_page(request: Request, match_id: str, want: str) -> HTMLResponse:
        # a play page without ?token= is opened by a player's login (its seat is bound to it)
        token = _token(request, PLAYER_COOKIE if want == "play" else HOST_COOKIE)
        try:
            match = await service.find(match_id)
            role = await service.role_for(match, token)
        except Refused as exc:
            return _error_page(status_of(exc), exc.message)
        if want == "host" and role.kind != "host":
            return _error_page(403, f"this link's token is not the host's of match {match.id}")
        if want == "play" and role.kind != "seat":
            return _error_page(403, f"this link's token is not a seat's of match {match.id}; "
                                    "players open the private link of their seat")
        if want == "play":
            await service.join(match, role)
        payload = service.view_payload(match, role, render=True)
        names = display_names(match.names())
        seat = role.seat
        title = {
            "host": f"Host · {match.game_id}",
            "play": f"{seat_label(seat, names)} · {match.game_id}",
            "watch": f"Watching · {match.game_id}",
        }[want]
        live_rule = match.state.game.clock_rule()
        rule = match.pace.rule(live_rule)  # the clock this match runs: the game's at the host's pace
        config = {
            "match": match.id, "game": match.game_id, "mode": want, "role": role.kind, "seat": seat,
            "names": names, "seats": match.seats, "num_seats": match.state.num_seats,
            "clock": rule.describe(), "pace": match.pace.describe(), "pace_kind": match.pace.kind,
            "extra_time_cap": match.pace.extra_time_cap(),
            # a slow match's hours for the whole match can be given time too
            "pace_match": match.pace.match_hours is not None,
            # the game's words for each kind of action (its buttons and the prompt)
            "actions": dict(match.state.game.action_help),
        }
        # a game without a reserve shows no "Reserve 0:00" column (it would read as time run
        # out); time the host gives later makes one, and bw.js shows the column then
        has_reserve = rule.reserve > 0 or any(
            (c.get("reserve_left") or 0) > 0 for c in (payload.get("clocks") or {}).get("seats", []))
        return _html(page(
            "match.html", title=title, mode=want, match=match, names=names, seat=seat, payload=payload,
            config=config, game_title=match.state.game.title, seat_label=seat_label, has_reserve=has_reserve,
            rules_link=f"/rules/{match.game_id}" + (
                "" if match.pace.kind == "live" else "?pace=" + urllib.parse.quote(json.dumps(match.pace.to_json()))),
            bot=match.seats[seat].get("bot") if seat is not None else None,
            game_script=game_asset(match.game_id, "js"), game_css=game_asset(match.game_id, "css"),
        ))

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index(request: Request) -> HTMLResponse:
        token = _token(request)
        mine: list[dict[str, Any]] | None = None
        if token:
            try:
                mine = await service.host_matches(token)
            except Refused:
                mine = None
        # the link `blackwhite serve` printed is the server operator's own: a browser that
        # is no host yet takes it without asking (a stranger's link cannot be this one)
        printed = getattr(request.app.state, "printed_host_token", None)
        served_link = bool(token and printed and hmac.compare_digest(token.encode(), str(printed).encode()))
        return _html(page("index.html", title="blackwhite", games=games_info(), mine=mine,
                                        bots=bot_choices(), served_link=served_link))

    @app.get("/host/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    async def host_page(match_id: str, request: Request) -> HTMLResponse:
        return await match_page(request, match_id, "host")

    @app.get("/play/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    async def play_page(match_id: str, request: Request) -> HTMLResponse:
        return await match_page(request, match_id, "play")

    @app.get("/watch/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    async def watch_page(match_id: str, request: Request) -> HTMLResponse:
        return await match_page(request, match_id, "watch")

    @app.get("/me", response_class=HTMLResponse, include_in_schema=False)
    async def player_page(request: Request) -> HTMLResponse:
        """The player's page: every match it is in ("your move" first), its invitations,
        the waiting list, and its name, email and login links (docs/pages.md)."""
        token = _token(request, PLAYER_COOKIE)
        from_link = bool(request.query_params.get("token"))
        players: PlayerService = request.app.state.players
        data: dict[str, Any] | None = None
        me: dict[str, Any] | None = None
        problem: str | None = None
        if token:
            try:
                data = await players.matches_of(token)
                me = await players.me(token)
            except Refused as exc:
                if not from_link and request.cookies.get(PLAYER_COOKIE):
                    problem = exc.message  # this browser's login no longer logs in: said, not hidden
                else:
                    return _error_page(status_of(exc), exc.message)
        return _html(page("me.html", title=f"{me['name']} · blackwhite" if me else "Your matches · blackwhite",
                          me=me, data=data, problem=problem, from_link=from_link,
                          now=service.now(), display_names=display_names,
                          # the season pages, where installed, are linked from the player's seasons
                          season_page=any(getattr(r, "path", "") == "/seasons/{season_id}"
                                          for r in request.app.routes)))

    @app.get("/games/{game_id}/{name}", include_in_schema=False)
    async def game_file(game_id: str, name: str) -> Response:
        """A game's board script or style sheet, as its package ships it (docs/pages.md)."""
        text = game_asset_text(game_id, name)
        if text is None:
            return Response(f"game {game_id[:64]!r} ships no {name[:32]!r}", status_code=404, media_type="text/plain")
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return Response(text, media_type=f"{kind}; charset=utf-8", headers={"Cache-Control": "no-cache"})

    @app.get("/rules/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def rules_page(game_id: str, pace: str | None = None) -> HTMLResponse:
        """A game's rules; with ``?pace=`` (a match page's link: the pace as JSON) they say
        at what pace that match runs and the clock it gives."""
        body = rules_html(game_id) if game_id in game_ids() else None
        if body is None:
            return _error_page(404, f"there is no game {game_id[:64]!r}; the games are {', '.join(game_ids())}")
        pace_text = pace_clock = pace_error = None
        if pace is not None:
            try:
                chosen = Pace.from_json(json.loads(pace[:2000]))
                live = make_game(game_id).clock_rule()
                pace_text, pace_clock = chosen.describe(), chosen.rule(live).describe()
            except (ValueError, RecursionError) as exc:  # a hand-edited link (PaceError is a ValueError): the rules still show
                reason = str(exc) if isinstance(exc, PaceError) else "it is not a pace"
                pace_error = f"The link's pace cannot be read ({reason}); the rules below give the game's own clock."
        return _html(page("rules.html", title=f"Rules · {game_id}", body=body, game_id=game_id,
                          pace_text=pace_text, pace_clock=pace_clock, pace_error=pace_error))

    @app.get("/replay", response_class=HTMLResponse, include_in_schema=False)
    async def replay_upload() -> HTMLResponse:
        return _html(page("replay.html", title="Replay", record=None, match_id=None, game_css=None,
                                 analysable=True))

    @app.get("/replay/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    async def replay_stored(match_id: str, request: Request) -> HTMLResponse:
        try:
            match = await service.find(match_id)
            record = service.record(match, await service.role_for(match, _token(request)))
        except Refused as exc:
            return _error_page(status_of(exc), exc.message)
        # a match still running (its record reaches only a host who sees everything) is not
        # offered for analysis: the marks would name every seat's secret choices mid-match
        return _html(page("replay.html", title=f"Replay · {match.game_id}", record=record,
                                 match_id=match.id, game_css=game_asset(match.game_id, "css"),
                                 analysable=match.status != "running"))

    @app.post("/replay/outline", include_in_schema=False)
    async def replay_outline(request: Request) -> Response:
        """A record file's game, seats and number of steps.

        The body is the file's bytes as uploaded: it is read as ``blackwhite referee``
        reads a file, and a bad one is refused (422 ``bad_record``, naming the event)
        with nothing kept."""
        record = await _read_record(request)
        if isinstance(record, Response):
            return record
        return await run_in_threadpool(_replayed, _outline, record)

    @app.post("/replay/step", include_in_schema=False)
    async def replay_step(request: Request, n: int = 0, audience: str = "full") -> Response:
        """Step ``n`` of the record in the body, seen as ``audience`` (a seat, public, full)."""
        record = await _read_record(request)
        if isinstance(record, Response):
            return record
        return await run_in_threadpool(_replayed, lambda r: steps.step(_checked(r), n, audience), record)

    @app.post("/replay/analysis", include_in_schema=False)
    async def replay_analysis(request: Request) -> Response:
        """Start (or find) the analysis of the record in the body: ``{"job", "state",
        "done", "total"}``.  The record is checked as for the other replay routes (422
        ``bad_record`` and nothing started); 503 ``busy`` when too many analyses wait."""
        record = await _read_record(request)
        if isinstance(record, Response):
            return record
        jobs: AnalysisJobs = request.app.state.replay_analysis
        checked = await run_in_threadpool(_replayed, lambda r: {"record": _checked(r)}, record, False)
        if isinstance(checked, Response):
            return checked
        try:  # hashing a large record (and starting the worker, the first time) is off the event loop too
            job = await run_in_threadpool(jobs.submit, checked["record"],
                                          client_key(request.client.host if request.client else None))
        except TooMany as exc:
            return JSONResponse(error_body("too_many_requests", str(exc)), 429, headers={"Retry-After": "30"})
        except Busy as exc:
            return JSONResponse(error_body("busy", str(exc)), 503, headers={"Retry-After": "30"})
        body = job.to_json(full=False)
        body.pop("chart", None)
        return JSONResponse(body, 202 if job.state in ("queued", "running") else 200)

    @app.get("/replay/analysis/{job_id}", include_in_schema=False)
    async def replay_analysis_job(job_id: str, request: Request, audience: str = "full") -> Response:
        """A job's state and progress; once done, its ``chart`` (``chart_data`` with replay
        steps) as ``audience`` (a seat, public, full) may read it: another seat's marks
        lose their action text (see docs/pages.md)."""
        jobs: AnalysisJobs = request.app.state.replay_analysis
        job = await run_in_threadpool(jobs.get, job_id)  # it may first store the jobs' states
        if job is None and service.cluster is not None and len(job_id) <= 100:
            row = await service.stored_job(job_id)  # run by another process, now gone
            job = None if row is None else Job.stored(row)
        if job is None:
            shown = job_id if len(job_id) <= 64 else job_id[:64] + "..."
            return JSONResponse(error_body("unknown_job", f"there is no analysis job {shown!r} "
                                           "(finished jobs are kept for a while, then forgotten)"), 404)
        seat: int | None = None
        if audience not in steps.AUDIENCES:
            # the seat count is known from the submit on, so a seat is checked while queued too
            if not steps.SEAT_TEXT.fullmatch(audience) or int(audience) >= job.seats:
                return JSONResponse(error_body("bad_audience", f"an analysis is seen as a seat (0, 1, ...), "
                                               f"'public' or 'full'; got {audience[:20]!r}"), 422)
            seat = int(audience)
        return JSONResponse(job.to_json(seat, full=audience == "full"))

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        """The API documentation: Swagger UI from the vendored copy (static/vendor/swagger-ui),
        never a CDN, under the pages' Content-Security-Policy."""
        return _html(page("docs.html", title="blackwhite API"))

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return RedirectResponse("/static/favicon.svg")

    def close() -> None:
        jobs: AnalysisJobs | None = getattr(app.state, "replay_analysis", None)
        if jobs is not None:
            jobs.close()

    return close


def _checked(record: Any) -> dict[str, Any]:
    """``record`` itself once it replays to its end as ``blackwhite referee`` replays it
    (else the referee's RecordError): both replay routes answer only about a whole,
    legal record, never about a step computed from a list that is not one."""
    result = replay(record)
    if result.error is not None:
        raise result.error
    if not isinstance(record, dict):  # replay refuses these; this keeps the type honest
        raise RecordError("a match record is a JSON object")
    return record


def _outline(record: Any) -> dict[str, Any]:
    """The outline of a record that replays to its end without error (else RecordError)."""
    return steps.outline(_checked(record))


def _replayed(work: Callable[[Any], dict[str, Any]], record: Any, respond: bool = True) -> Any:
    """Run a replay (in a worker thread: a long record must not stall the live matches'
    event loop); a record the engine refuses is a 422 naming why, never a 500.  Any other
    exception is a record the checks missed or a bug: it is logged and still answered 422,
    since an upload is the caller's own file and nothing is kept.  ``respond=False``:
    the work's result itself on success (a refusal is still a response)."""
    try:
        result = work(record)
        return JSONResponse(result) if respond else result
    except RecordError as exc:
        return JSONResponse(error_body("bad_record", str(exc)), 422)
    except Exception as exc:  # noqa: BLE001 - hostile uploads must never become a 500
        log.warning("replaying an uploaded record raised %r", exc, exc_info=not isinstance(exc, (ValueError, RecursionError)))
        return JSONResponse(error_body("bad_record", f"the record cannot be replayed: {str(exc)[:200]}"), 422)


async def _read_record(request: Request) -> Any:
    """The record in a request's body, or the error response refusing it."""
    raw = await request.body()
    if len(raw) > MAX_RECORD:
        return JSONResponse(error_body("too_large", f"a record file is at most {MAX_RECORD} bytes"), 413)
    if not raw.strip():
        return JSONResponse(error_body("bad_record", "the file is empty; a record is a JSON object"), 422)
    try:
        return parse_record(raw, "the file")
    except RecordError as exc:
        return JSONResponse(error_body("bad_record", exc.message), 422)
