"""The clocks part of the match service: the server is the only clock.  Readings as of
now, an alarm per match (its first deadline, its start time, the end of its idle wait) in
one heap, the tick that looks only at the matches whose alarm is due (timeouts, starts,
never-started matches cancelled), and the loop that also writes the heartbeat, sweeps ended
matches from memory and checks open host sockets' rights."""

from __future__ import annotations

import asyncio
import heapq
import logging
from typing import TYPE_CHECKING

from . import clocks as clk
from .limits import idle_expiry
from .errors import Refused
from .service_cluster import SERVE_SLACK

if TYPE_CHECKING:
    from .service import MatchService
    from .service_live import LiveMatch

log = logging.getLogger("blackwhite.server")

#: seconds between checks of the rights of open host sockets (a revoked link's socket closes within twice this)
RIGHTS_EVERY = 0.4
#: timeouts one look of the clock applies to one match before the next tick goes on
MAX_TIMEOUTS_PER_LOOK = 64


class ClocksPart:
    """The server's clock (a part of :class:`~blackwhite.server.service.MatchService`)."""

    def __init__(self, svc: MatchService) -> None:
        self.svc = svc
        #: (when, match id): the moments the clock must look at a match (a timeout, a start,
        #: an idle match's end); entries are checked when due, so a stale one costs one look
        self._alarms: list[tuple[float, str]] = []

    def readings(self, match: LiveMatch) -> clk.Clocks:
        """Clock readings as of now (a running match's awaited seats are charged up to now).
        Several processes: never later than ``SERVE_SLACK`` after this process's last stored
        heartbeat, the moment a process taking the match over charges up to."""
        if match.status != "running":
            return match.clocks
        now = self.svc.now()
        if self.svc.cluster is not None and self.svc.cluster.beaten is not None:
            now = min(now, max(match.clock_at, self.svc.cluster.beaten + SERVE_SLACK))
        return clk.charge_between(match.clocks, match.clock_at, now, match.pace)

    def _next_look(self, match: LiveMatch) -> float | None:
        """When the clock must next look at ``match``: its first seat's deadline, its start
        time, or (never started, waiting for its players) the end of its idle wait."""
        if match.ended or match.fault is not None:  # a failed game's match waits for its host's resume
            return None
        times = [t for t in (match.deadline(),) if t is not None]
        if not match.started:
            if match.start_at is not None:
                times.append(match.start_at)
            if match.start == "when_joined":
                idle = idle_expiry(self.svc.quotas, match.created, match.pace.stretch())
                if idle is not None:
                    times.append(idle)
        return min(times) if times else None

    def _arm(self, match: LiveMatch) -> None:
        """Have the clock look at ``match`` when :meth:`_next_look` says (a later moment
        needs no new alarm: the earlier one looks, finds nothing due, and sets the next)."""
        when = self._next_look(match)
        if when is not None and (match.alarm is None or when < match.alarm):
            match.alarm = when
            heapq.heappush(self._alarms, (when, match.id))

    async def tick(self) -> None:
        """Start every match whose start time has come, cancel the never-started ones nobody
        came to, and apply ``timeout`` for every seat whose time is spent (the server is the
        only clock).  Only the matches whose alarm is due are looked at, not every match."""
        now = self.svc.now()
        # the alarms due now, taken first: one a look sets again (a match still due after
        # it) waits for the next tick, so a tick always ends and the event loop runs on
        due = []
        while self._alarms and self._alarms[0][0] <= now:
            due.append(heapq.heappop(self._alarms))
        for when, match_id in due:
            match = self.svc.matches.get(match_id)
            if match is None or match.alarm != when:  # gone, or an alarm set again since
                continue
            match.alarm = None
            try:
                await self._look(match, now)
            finally:
                self._arm(match)

    async def _look(self, match: LiveMatch, now: float) -> None:
        if match.status == "running" and not match.started:
            idle = idle_expiry(self.svc.quotas, match.created, match.pace.stretch()) if match.start == "when_joined" else None
            if idle is not None and idle <= now:
                async with match.lock:
                    if match.status == "running" and not match.started and not match.dropped:
                        try:
                            await self.svc.lifecycle._stop(match)
                        except Refused:  # the database is down or locked (logged): the next sweep tries again
                            return
                        log.info("match %s cancelled: nobody came within %g s of its creation", match.id,
                                 idle - match.created)
                return
            if match.start_at is not None and match.start_at <= now:
                async with match.lock:
                    if not match.started and match.status == "running":
                        try:
                            await self.svc.lifecycle._begin(match)
                        except Refused:  # the database is down or locked (logged): the next tick tries again
                            return
        deadline = match.deadline()
        if deadline is None or deadline > now:
            return
        async with match.lock:
            # a bounded number per look: once a slow match's own hours are spent every seat
            # it awaits is out at once, and a game whose timeouts never end it must not
            # hold the event loop; the next tick goes on
            for _ in range(MAX_TIMEOUTS_PER_LOOK):
                if match.status != "running" or match.paused:
                    break
                spent = clk.expired(clk.charge_between(match.clocks, match.clock_at, self.svc.now(), match.pace))
                if not spent:
                    break
                # readings clamp at zero, so order by the time each had at the last
                # reading: after a stall (or a step nobody answered) the seat that
                # ran out first is the one the clock blames
                spent.sort(key=lambda s: match.clocks.seats[s].left)
                try:
                    await self.svc.lifecycle._commit_action(match, spent[0], "timeout")
                except Refused as exc:  # the engine refused: log it, do not loop on it
                    if exc.code != "store_unavailable":  # (that one is logged; the next tick tries again)
                        log.error("timeout of seat %s in match %s refused: %s", spent[0], match.id, exc.message)
                    break

    async def run_clock(self, interval: float = 0.1, beat_every: float = 1.0) -> None:
        """Fire timeouts every ``interval`` seconds; write the heartbeat every ``beat_every``;
        let unused ended matches leave memory every few seconds."""
        last_beat = last_sweep = last_rights = self.svc.now()
        while True:
            await asyncio.sleep(interval)
            try:
                await self.svc.confirm()  # woken after a stop longer than the lease: find out first
                await self.tick()
                if self.svc.now() - last_rights >= RIGHTS_EVERY:  # a link revoked elsewhere closes its sockets here
                    last_rights = self.svc.now()
                    await self.svc.recheck_hosts()
                    await self.svc.recheck_players()
                if self.svc.now() - last_sweep >= min(5.0, self.svc.storage.keep_ended):
                    last_sweep = self.svc.now()
                    self.svc.sweep()
                if self.svc.now() - last_beat >= beat_every:
                    last_beat = self.svc.now()
                    if self.svc.cluster is not None:
                        await self.svc.owning._cluster_tick()
                    else:
                        await self.svc.storage._db(self.svc.store.beat, last_beat)
            except Refused:  # the database is down or locked: logged by _db; the next beat tries again
                pass
            except Exception:  # keep the clock alive whatever one match does
                log.exception("clock tick failed")
