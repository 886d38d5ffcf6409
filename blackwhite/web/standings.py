"""The pages of what lasts beyond a match: a game's leaderboard, a player's profile and
a season (#40; docs/seasons.md, "The pages").

Each page shows what the API gives the same reader and nothing more: the leaderboard is
:meth:`Ratings.leaderboard <blackwhite.server.ratings.Ratings.leaderboard>`, public like
the rules; a season page is :meth:`SeasonService.view
<blackwhite.server.service_seasons.SeasonService.view>` for the page's token, so a
cast-only season is the cast's and hosts' only and host-only garnets stay hidden; a
profile lists a player's ratings and, of their seasons, those the reader may read.

A page's token is ``?token=`` or ``Authorization: Bearer``, else this browser's host
login (``bw_host``), else its player login (``bw_player``), else none: a cookie that
does not open the season is passed over for the next, as if the browser had not sent it.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from ..engine.registry import game_ids, make_game
from ..server.errors import NotPermitted, Refused, Unauthenticated
from ..server.http import status_of
from ..server.ratings import MAX_LIMIT, Ratings, standing_json
from ..server.ratings_api import GAME_ID
from ..server.service import MatchService, Role
from .render import game_asset, render_page
from .routes import HOST_COOKIE, PLAYER_COOKIE, _error_page, _html

log = logging.getLogger("blackwhite.web")

#: rows of a leaderboard page
PAGE_ROWS = 50
#: what a season's stage is called on its page
STAGES = {"main": "Main match", "death": "Death match", "final": "Final"}
#: what a season's phase is called on its page
PHASES = {"main": "main match next", "choose": "the candidate chooses an opponent",
          "death": "death match next", "draft": "the finalists draft their items", "final": "the final",
          "over": "over"}


def _explicit(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return request.query_params.get("token") or None


def _title(game_id: str) -> str:
    try:
        return str(make_game(game_id).title)
    except Exception:  # an uninstalled game's ratings still show, under its id
        return game_id


def install(app: FastAPI, service: MatchService) -> None:
    """Add ``/ratings``, ``/ratings/{game}``, ``/players/{id}`` and ``/seasons/{id}``
    (and a season match's replay) to ``app``; the ratings and seasons are the app's
    (``app.state.ratings``, ``app.state.seasons``), read when a page is asked for."""
    public_url: str | None = getattr(app.state, "public_url", None)

    def page(name: str, **context: Any) -> HTMLResponse:
        return _html(render_page(name, public_url=public_url, **context))

    def ratings_of(request: Request) -> Ratings | None:
        return getattr(request.app.state, "ratings", None)

    async def read(work: Any, *args: Any) -> Any:
        try:
            return await run_in_threadpool(work, *args)
        except SQLAlchemyError as exc:
            raise _Unavailable(type(exc).__name__) from None

    async def season_for(request: Request, season_id: str) -> dict[str, Any]:
        """The season as this page's reader may see it (see the module's docstring)."""
        seasons = getattr(request.app.state, "seasons", None)
        if seasons is None:
            raise _Missing("this server has no seasons")
        explicit = _explicit(request)
        if explicit is not None:
            view: dict[str, Any] = await seasons.view(season_id, explicit)
            return view
        last: Refused | None = None
        for token in [t for t in (request.cookies.get(HOST_COOKIE), request.cookies.get(PLAYER_COOKIE)) if t] + [None]:
            try:
                view = await seasons.view(season_id, token)
                return view
            except (NotPermitted, Unauthenticated) as exc:  # this login does not open it: the next one may
                last = exc
        assert last is not None
        raise last

    async def season_or_error(request: Request, season_id: str) -> dict[str, Any] | HTMLResponse:
        """The season a page shows (:func:`season_for`), or the error page that says why not."""
        try:
            return await season_for(request, season_id[:64])
        except Refused as exc:
            return _error_page(status_of(exc), exc.message)
        except _Missing as exc:
            return _error_page(404, str(exc))

    # ----------------------------------------------------------- ratings

    @app.get("/ratings", response_class=HTMLResponse, include_in_schema=False)
    async def ratings_index(request: Request) -> HTMLResponse:
        """Every game with rated matches, each a link to its leaderboard."""
        ratings = ratings_of(request)
        try:
            games = await read(ratings.games) if ratings is not None else []
        except _Unavailable as exc:
            return _error_page(503, str(exc))
        rated = {g["game"] for g in games}
        return page("ratings.html", title="Ratings · blackwhite", game=None, games=games,
                    unrated=[(g, _title(g)) for g in game_ids() if g not in rated], titles={g: _title(g) for g in rated})

    @app.get("/ratings/{game_id}", response_class=HTMLResponse, include_in_schema=False)
    async def leaderboard_page(request: Request, game_id: str, offset: int = 0) -> HTMLResponse:
        """A game's leaderboard, best first, :data:`PAGE_ROWS` rows a page."""
        ratings = ratings_of(request)
        if ratings is None:
            return _error_page(404, "this server keeps no ratings")
        offset = max(0, min(offset, 10**9))
        if not GAME_ID.fullmatch(game_id):
            return _error_page(404, f"there is no game {game_id[:64]!r} here; the games are {', '.join(game_ids())}")
        try:
            board = await read(ratings.leaderboard, game_id, PAGE_ROWS, offset)
            games = await read(ratings.games)
            names = await read(ratings.names, [s.identity for _, s in board.rows])
        except _Unavailable as exc:
            return _error_page(503, str(exc))
        if not board.total and game_id not in game_ids():
            return _error_page(404, f"there is no game {game_id[:64]!r} here; the games are {', '.join(game_ids())}")
        rows = [standing_json(place, s, names) for place, s in board.rows]
        return page("ratings.html", title=f"Ratings · {game_id}", game=game_id, game_title=_title(game_id),
                    games=games, rows=rows, total=board.total, offset=offset, page_rows=PAGE_ROWS,
                    titles={g["game"]: _title(g["game"]) for g in games}, max_limit=MAX_LIMIT)

    # ----------------------------------------------------------- players

    @app.get("/players/{player_id}", response_class=HTMLResponse, include_in_schema=False)
    async def profile_page(request: Request, player_id: str) -> HTMLResponse:
        """A player's profile: their rating in each game, and their record in the
        seasons this page's reader may read (the others are not named)."""
        store = service.players
        row = await read(store.get, player_id) if GAME_ID.fullmatch(player_id) else None  # ids are short and plain
        if row is None:
            return _error_page(404, f"there is no player {player_id[:64]!r} here")
        ratings = ratings_of(request)
        identity = "player:" + row.id
        games: list[dict[str, Any]] = []
        if ratings is not None:
            standings = await read(ratings.of_identity, identity)
            for game_id, standing in sorted(standings.items()):
                place = await read(ratings.place_of, game_id, identity)
                games.append({**standing_json(place, standing), "game": game_id, "title": _title(game_id)})
        seasons: list[dict[str, Any]] = []
        for entry in await read(store.seasons_of_player, row.id):
            try:
                view = await season_for(request, str(entry["id"]))
            except Refused:
                continue  # a season this reader may not read is not named
            mine = next((r for r in view["standings"] if r["player"] == row.id), None)
            if mine is None:
                continue
            seasons.append({"id": view["id"], "name": view["name"], "phase": view["phase"], "place": mine["place"],
                            "cast": len(view["cast"]), "garnets": mine["garnets"], "tokens": mine["tokens"],
                            "eliminated_round": mine["eliminated_round"], "champion": view["champion"] == row.id,
                            "matches": sum(1 for m in view["matches"] if row.id in m["seats"])})
        return page("profile.html", title=f"{row.name} · blackwhite", player={"id": row.id, "name": row.name},
                    games=games, seasons=seasons)

    # ----------------------------------------------------------- seasons

    @app.get("/seasons/{season_id}", response_class=HTMLResponse, include_in_schema=False)
    async def season_page(request: Request, season_id: str) -> HTMLResponse:
        """A season: standings, the next death match, and every round with its matches."""
        view = await season_or_error(request, season_id)
        if isinstance(view, HTMLResponse):
            return view
        names = {c["player"]: c["name"] for c in view["cast"]}
        rounds: dict[int, list[dict[str, Any]]] = {}
        for m in view["matches"]:
            rounds.setdefault(int(m["round"]), []).append(m)
        eliminated: dict[int, list[str]] = {}
        for r in view["standings"]:
            if r["eliminated_round"] is not None:
                eliminated.setdefault(int(r["eliminated_round"]), []).append(r["player"])
        token = _explicit(request)
        return page("season.html", title=f"{view['name']} · blackwhite", season=view, names=names,
                    rounds=sorted(rounds.items(), reverse=True), eliminated=eliminated, stages=STAGES,
                    phase=PHASES.get(view["phase"], view["phase"]), token=token,
                    hidden_garnets=any(r["garnets"] is None for r in view["standings"]))

    @app.get("/seasons/{season_id}/replay/{match_id}", response_class=HTMLResponse, include_in_schema=False)
    async def season_replay(request: Request, season_id: str, match_id: str) -> HTMLResponse:
        """A finished server match of a season, replayed for whoever may read the season
        (a record holds no secret once its match is over; a running one is not shown)."""
        view = await season_or_error(request, season_id)
        if isinstance(view, HTMLResponse):
            return view
        found = next((m for m in view["matches"] if m["match"] == match_id and not m["external"]), None)
        if found is None:
            return _error_page(404, f"season {view['id']} has no match {match_id[:64]!r} played on this server")
        try:
            match = await service.find(match_id)
        except Refused as exc:
            return _error_page(status_of(exc), exc.message)
        if match.status == "running":
            return _error_page(409, f"match {match.id} is still being played: its replay opens when it ends")
        record = service.record(match, Role("spectator"))
        return page("replay.html", title=f"Replay · {match.game_id}", record=record, match_id=match.id,
                    game_css=game_asset(match.game_id, "css"), analysable=False,
                    back=(f"/seasons/{view['id']}", view["name"]))


class _Unavailable(Exception):
    def __str__(self) -> str:
        return f"the database cannot be read now ({self.args[0]}); try again shortly"


class _Missing(Exception):
    pass


def extension(app: FastAPI, service: MatchService) -> Any:
    """:func:`install` as an extension of :func:`~blackwhite.server.app.create_api`."""
    install(app, service)
    return lambda: None

