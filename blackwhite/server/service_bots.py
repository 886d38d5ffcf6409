"""The bots' part of the match service: a bot seat that is due thinks in a worker
process (``bots.decide``, spawned workers, so the server keeps answering), within its
clock, and its action comes back through the same checked path and clock as a person's
(:meth:`~blackwhite.server.service_lifecycle.LifecyclePart._commit_action`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import time
from typing import TYPE_CHECKING

from . import bots as botseats
from .errors import Refused
from .workers import detach, signals_blocked

if TYPE_CHECKING:
    from .service import MatchService
    from .service_live import LiveMatch

log = logging.getLogger("blackwhite.server")


class BotsPart:
    """Bots thinking for their seats (a part of :class:`~blackwhite.server.service.MatchService`)."""

    def __init__(self, svc: MatchService, bot_workers: int) -> None:
        self.svc = svc
        #: worker processes the bots think in (0: a thread of this process, for tests)
        self.bot_workers = bot_workers
        self._pool: concurrent.futures.Executor | None = None

    def wake_bots(self) -> None:
        """Set every bot that is due in a match in memory thinking (on the event loop:
        after :meth:`load`, once the server's loop runs)."""
        for match in self.svc.matches.values():
            self._schedule_bots(match)

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            if self.bot_workers > 0:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.bot_workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=detach, initargs=(os.getpid(),),
                )
            else:  # tests: think in a thread of this process
                self._pool = concurrent.futures.ThreadPoolExecutor(1)
        return self._pool

    def _schedule_bots(self, match: LiveMatch) -> None:
        self.svc.clock._arm(match)  # called wherever the clocks moved: the clock's alarm follows them
        if match.status != "running" or not match.clocks.running or self.svc._closing:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        for seat in match.state.to_move():
            spec = match.seats[seat].get("bot")
            if spec is None or seat in match.thinking:
                continue
            match.thinking.add(seat)
            task = loop.create_task(self._bot_move(match, seat, spec))
            self.svc._tasks.add(task)
            task.add_done_callback(self.svc._tasks.discard)

    async def _bot_move(self, match: LiveMatch, seat: int, spec: str) -> None:
        loop = asyncio.get_running_loop()
        version = match.version
        # think within the seat's clock: half of what it has left, so a spec's budget
        # longer than a step's allowance (30 s in joust) does not lose on time
        # (half of what it has left when the worker *starts*: a wait in the queue behind
        # other matches' bots is not thought away as well), and within the server's cap
        out_of_time = time.monotonic() + self.svc.readings(match).seats[seat].left
        try:
            with signals_blocked():  # a worker this starts ignores the stop signals from its start
                thinking = loop.run_in_executor(
                    self._executor(), botseats.decide, match.state.clone(), seat, spec,
                    f"bot/{match.seed}/{seat}/{version}", out_of_time, self.svc.quotas.bot_budget,
                )
            text = await thinking
        except concurrent.futures.BrokenExecutor:
            if self.svc._closing:  # the server is stopping and ended its workers
                return
            log.error("the bot workers died; starting new ones for bot %s of match %s", spec, match.id)
            self._pool = None
            match.thinking.discard(seat)
            self._schedule_bots(match)
            return
        except Exception:
            log.exception("bot %s of match %s failed to decide; its clock keeps running", spec, match.id)
            match.thinking.discard(seat)
            return
        while True:
            async with match.lock:
                match.thinking.discard(seat)
                if match.dropped:  # another process owns it now: its bots think there
                    return
                if match.status != "running" or not match.clocks.running or seat not in match.state.to_move():
                    return
                try:
                    await self.svc.lifecycle._commit_action(match, seat, text)
                    return
                except Refused as exc:
                    if exc.code == "store_unavailable" and match.version == version:
                        match.thinking.add(seat)  # the database is down or locked: the same move, shortly
                    elif match.version != version:
                        self._schedule_bots(match)  # the position moved on while it thought
                        return
                    else:
                        log.error("bot %s of match %s chose a refused action %r: %s", spec, match.id, text, exc.message)
                        return
            await asyncio.sleep(1.0)
