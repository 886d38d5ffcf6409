"""The ratings on the server: kept up to date while it runs, and read through the API.

:class:`Keeper` brings the ratings tables up to date (:meth:`Ratings.sync
<blackwhite.server.ratings.Ratings.sync>`) when a match finishes (the service calls
:meth:`Keeper.poke`) and every few seconds besides, so a match that finished on another
process, or before a crash, is rated too.  Each process over a database runs one; they
take turns through the ratings' lock.

``GET /api/ratings`` lists the games with rated matches; ``GET /api/ratings/{game}``
is a game's leaderboard, public like the games' rules: what it shows is who played and
how they did, never a move.
"""

from __future__ import annotations

import asyncio
import re
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from ..engine.registry import game_ids
from ..tasks import stop_tasks, wait_event
from .errors import Malformed, StoreUnavailable, Unknown
from .ratings import MAX_LIMIT, Leaderboard, Ratings, standing_json
from .service import MatchService

log = logging.getLogger("blackwhite.ratings")

#: what a game id may look like (an id a game package could register); others are unknown at once
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

#: seconds between the keeper's syncs when no match finished meanwhile
INTERVAL = 5.0
#: names of identities for the pages and the API (players' display names); None: none known
Names = Callable[[list[str]], dict[str, str]]


class Keeper:
    """Runs :meth:`Ratings.sync` in a thread: at once when poked, else every ``interval`` s."""

    def __init__(self, ratings: Ratings, interval: float = INTERVAL) -> None:
        self.ratings = ratings
        self.interval = interval
        self._poked: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: syncs started and syncs done (:meth:`until_synced` waits on them)
        self.started = 0
        self.syncs = 0

    def poke(self) -> None:
        """A match finished: sync soon (callable from any thread)."""
        loop, poked = self._loop, self._poked
        if loop is not None and poked is not None and not loop.is_closed():
            loop.call_soon_threadsafe(poked.set)

    async def run(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._poked = asyncio.Event()
        while True:
            self.started += 1
            try:
                await asyncio.to_thread(self.ratings.sync)
            except Exception:  # the database may be down for a while: the next round tries again
                log.exception("the ratings could not be brought up to date; trying again in %g s", self.interval)
            self.syncs += 1
            await wait_event(self._poked, self.interval)
            self._poked.clear()

    async def until_synced(self) -> None:
        """Return after a whole sync that started after this call (tests, the CLI)."""
        start = self.started  # syncs are one after another: the next to start is number start + 1
        self.poke()
        while self.syncs < start + 1:
            await asyncio.sleep(0.01)


def install(app: FastAPI, ratings: Ratings, interval: float = INTERVAL, names: Names | None = None,
            service: MatchService | None = None) -> Keeper:
    """Add the ratings API to ``app`` and run a :class:`Keeper` while the app runs
    (``app.state.ratings`` and ``app.state.ratings_keeper``), poked when one of
    ``service``'s matches finishes."""
    keeper = Keeper(ratings, interval)
    if service is not None:
        service.watchers.append(lambda match: keeper.poke() if match.status == "finished" else None)
    app.state.ratings = ratings
    app.state.ratings_keeper = keeper
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(lifespan_app: Any) -> AsyncIterator[Any]:
        async with inner(lifespan_app) as state:
            task = asyncio.create_task(keeper.run())
            try:
                yield state
            finally:
                await stop_tasks([task])

    app.router.lifespan_context = lifespan

    async def read(work: Callable[..., Any], *args: Any) -> Any:
        try:
            return await run_in_threadpool(work, *args)
        except SQLAlchemyError as exc:
            raise StoreUnavailable("store_unavailable", f"the ratings cannot be read now ({type(exc).__name__})") from None

    @app.get("/api/ratings", tags=["ratings"])
    async def rating_games() -> dict[str, Any]:
        """Every game with rated matches: its id, rated matches, and identities rated."""
        return {"games": await read(ratings.games)}

    @app.get("/api/ratings/{game}", tags=["ratings"])
    async def leaderboard(game: str, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        """A game's leaderboard, best first: each identity's rating (``mu - 3 sigma``), ``mu``,
        ``sigma`` and record; ``limit`` rows (at most 1000) from place ``offset + 1``."""
        if not 0 <= limit <= MAX_LIMIT or not 0 <= offset <= 10**9:
            raise Malformed("bad_request", f"limit is 0 to {MAX_LIMIT} and offset 0 or more; got {limit}, {offset}")
        if not GAME_ID.fullmatch(game):  # no game is called that: not worth a query (nor a NUL byte sent to one)
            raise Unknown("unknown_game", f"no game {game[:64]!r} is installed or rated here")
        board: Leaderboard = await read(ratings.leaderboard, game, limit, offset)
        if not board.total and game not in game_ids():
            shown = game if len(game) <= 64 else game[:64] + "..."
            raise Unknown("unknown_game", f"no game {shown!r} is installed or rated here")
        known = await read(names or ratings.names, [s.identity for _, s in board.rows])
        return {"game": game, "total": board.total, "offset": offset,
                "rows": [standing_json(place, s, known) for place, s in board.rows]}

    return keeper


def extension(app: FastAPI, service: MatchService, interval: float | None = None) -> Callable[[], None]:
    """:func:`install` over ``service``'s database, as an extension of
    :func:`~blackwhite.server.app.create_api` (the keeper stops with the app's lifespan:
    nothing else to close)."""
    install(app, Ratings(service.store.engine), INTERVAL if interval is None else interval, service=service)
    return lambda: None
