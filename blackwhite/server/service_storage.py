"""The storage part of the match service: the database side of live matches.  Store
statements run in store threads (:meth:`StoragePart.db`'s pool, so a statement waiting on a
lock delays only the requests waiting for it, never the event loop); a match is rebuilt by
replaying its stored events (at start-up, at a takeover, or an ended one read back when
asked for); ended matches leave memory again; replay analysis jobs' states are kept for
other processes; and ``/ready`` asks whether the database answers at the newest schema."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import time
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..engine import RESIGN, ChanceEvent, Pace, make_game
from . import clocks as clk
from .errors import OwnerUnavailable, StoreUnavailable
from .store import STORE_WAIT, AnalysisJobRow, MatchRow, StoredMatch, StoreTimeout, match_status
from .service_live import LiveMatch

if TYPE_CHECKING:
    from .service import MatchService

log = logging.getLogger("blackwhite.server")
T = TypeVar("T")

#: threads that run database statements (each keeps one connection): a statement waiting
#: on a lock delays only the requests waiting for it, never the event loop
STORE_THREADS = 4
#: what a database that cannot be reached or is locked raises (a bug's errors are not among them)
UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeout, StoreTimeout)
#: seconds a finished or cancelled match stays in memory after its last use (then it is
#: read back from the database when asked for)
KEEP_ENDED = 60.0
#: ended matches kept in memory at most, however recently used (the least recently used
#: leave first): what bounds memory when matches end faster than the grace period
MAX_ENDED = 200
#: why a replay analysis job whose server process is gone failed
JOB_GONE = "the server process that ran this analysis stopped before it finished; start it again"


class StoragePart:
    """Matches to and from the database (a part of :class:`~blackwhite.server.service.MatchService`)."""

    def __init__(self, svc: MatchService, keep_ended: float, max_ended: int) -> None:
        self.svc = svc
        self.keep_ended = keep_ended
        self.max_ended = max_ended
        self._store_pool = concurrent.futures.ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="store")
        #: when the store's trouble was last logged (logged at most every 10 s, not per tick)
        self._trouble_logged = float("-inf")
        #: the readiness probe of the database under way (/ready), if any
        self._ready_probe: asyncio.Future[tuple[str | None, str | None]] | None = None

    async def _db(self, work: Callable[..., T], *args: Any) -> T:
        """Run a store method in a store thread; a database that is down or locked beyond
        the store's wait is :class:`StoreUnavailable` (nothing was committed)."""
        loop = asyncio.get_running_loop()
        try:
            deadline = time.monotonic() + STORE_WAIT  # the whole wait, a free store thread included
            return await loop.run_in_executor(self._store_pool,
                                              functools.partial(self.svc.store.bounded, deadline, work, *args))
        except UNAVAILABLE as exc:
            self._trouble(exc)
            raise StoreUnavailable("store_unavailable", "the database cannot be reached or is locked; "
                                   "nothing was changed, try again shortly") from None

    def _trouble(self, exc: BaseException) -> None:
        self.svc.metrics.store_errors.inc()
        if time.monotonic() - self._trouble_logged >= 10.0:
            self._trouble_logged = time.monotonic()
            log.warning("the database is unavailable (%s); requests that write answer 503 until it is back",
                        str(exc).splitlines()[0][:300])

    async def readiness(self) -> dict[str, bool]:
        """Whether this process should be sent traffic (``/ready``): the database answers,
        its schema is the package's newest, and it accepts matches (not stopping, and over
        PostgreSQL its lease holds)."""
        # one probe at a time: with the database hung, a load balancer's checks wait on the
        # probe under way instead of each tying up another thread until the database answers
        if self._ready_probe is None or self._ready_probe.done():
            self._ready_probe = asyncio.ensure_future(asyncio.to_thread(self.svc.store.schema_state))
            self._ready_probe.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            current, newest = await asyncio.wait_for(asyncio.shield(self._ready_probe), STORE_WAIT + 1.0)
            reachable = True
        except Exception:
            current, newest, reachable = None, "?", False
        # the heartbeat renews the lease every second: a lease as short as that is renewed
        # just after it would count as not fresh, so one renewal late is not yet trouble
        fresh = self.svc.cluster is None or (not self.svc.owning._relock_needed and
                                         time.monotonic() - self.svc.cluster.renewed < self.svc.cluster.lease + 1.0)
        return {"database": reachable, "migrations": reachable and current == newest,
                "accepting": not self.svc._closing and fresh}

    def load(self) -> None:
        """Rebuild every running match by replay (an ended one is read back when asked for).  A running clock is charged up to the last
        heartbeat (the server was up) and resumes from now: the time the server was down
        is charged to no one.  The readings so settled are stored at once, so a second
        crash before any event cannot charge the first down time."""
        now = self.svc.now()
        if self.svc.cluster is not None:  # take the running matches no other process holds
            self.svc.cluster.register(now)
            for match_id in self.svc.cluster.orphans():
                live = self.svc.owning._take(match_id)
                if live is not None:
                    self.svc.matches[live.id] = live
            return
        alive = self.svc.store.last_beat()
        settled: list[tuple[str, dict[str, Any]]] = []
        for stored in self.svc.store.load_live():
            try:
                live = self._rebuild(stored, now)
            except Exception as exc:  # a game's code (or its absence) stops its own match only
                log.error("match %s cannot be replayed and is not served: %r", stored.row.id, exc)
                continue
            self.svc.matches[live.id] = live
            if live.status == "running":
                self._settle(live, stored, alive)
                self.svc.clock._arm(live)
                settled.append((live.id, live.clocks.to_json()))
        self.svc.store.settle(settled, now)

    @staticmethod
    def _settle(live: LiveMatch, stored: StoredMatch, alive: float | None) -> None:
        """A reloaded running match's clocks: charged up to ``alive``, the last moment its
        server was known up, and resumed from now: the time it was down is charged to no one."""
        if alive is not None and alive > stored.row.clock_at:
            live.clocks = clk.charge_between(live.clocks, stored.row.clock_at, alive, live.pace)

    async def stored_job(self, job_id: str) -> AnalysisJobRow | None:
        """A replay analysis job as stored by the process that ran it, or None."""
        return await self._db(self.svc.store.load_job, job_id)

    def save_jobs(self, jobs: list[dict[str, Any]]) -> None:
        """Store the states of this process's replay analysis jobs (several processes:
        another one answers for them once this one is gone).  Runs in the caller's thread."""
        assert self.svc.cluster is not None
        self.svc.store.save_jobs(self.svc.cluster.id, jobs, self.svc.now())

    async def job_gone(self, job_id: str) -> None:
        """The process running ``job_id`` is gone: a job it had queued or running has failed."""
        await self._db(self.svc.store.fail_job, job_id, JOB_GONE, self.svc.now())

    def _rebuild(self, stored: StoredMatch, now: float) -> LiveMatch:
        """The live match, by replaying its events commit by commit (an action and the
        chance events drawn after it), so every audience's version comes back as it was."""
        row: MatchRow = stored.row
        if len(stored.events) != row.version:
            raise ValueError(f"the match row says version {row.version} but {len(stored.events)} events are stored")
        live = LiveMatch(
            id=row.id, game_id=row.game, options=dict(row.options), seats=list(row.seats),
            host_hash=row.host_hash, seat_hashes=list(row.seat_hashes), spectator_hash=row.spectator_hash,
            host_sees_all=row.host_sees_all, status=match_status(row.status), seed=row.seed, created=row.created,
            state=make_game(row.game, row.options).new_initial_state(), version=0,
            clocks=clk.Clocks.from_json(row.clocks), clock_at=now,
            start=row.start or "now", start_at=row.start_at, pace=Pace.from_json(row.pace),
            joined=[bool(j) for j in row.joined] if row.joined else [False] * len(row.seats),
            host_id=row.host_id or "", cohosts=list(row.cohosts or []), epoch=int(row.epoch or 0),
        )
        state = live.state
        opened: bool | None = None  # None: still in the creation commit
        for i, ev in enumerate(stored.events):
            if ev.chance is not None:
                data = dict(ev.chance)
                kind = data.pop("chance")
                state.apply_chance(ChanceEvent(kind, data), drawn=True)
                live.version = i + 1
                continue
            self._close_commit(live, opened)
            assert ev.seat is not None and ev.action is not None
            action = state.parse(ev.seat, ev.action)
            state.apply(ev.seat, action)
            live.version = i + 1
            opened = not state.pending and not (state.is_free(action) and action != RESIGN)
        self._close_commit(live, opened)
        return live

    @staticmethod
    def _close_commit(live: LiveMatch, opened: bool | None) -> None:
        """What a commit ends with (see :meth:`_commit_action`), during a replay."""
        if opened is None:
            if not live.seen:
                live.step_version = live.version
                live.look(step_opened=True, start=True)
            return
        if opened:
            live.step_version = live.version
        live.look(opened)

    async def find(self, match_id: str) -> LiveMatch:
        """Any match: from memory, or an ended one read back from the database and rebuilt
        by replay (it stays in memory for ``keep_ended`` seconds after its last use)."""
        match = self.svc.matches.get(match_id)
        if match is None:
            if len(match_id) > 64:
                raise self.svc._unknown(match_id)
            loaded = await self._db(self._read_ended, match_id)
            if loaded is None:
                raise self.svc._unknown(match_id)
            match = self.svc.matches.setdefault(match_id, loaded)  # another request may have read it too
        if match.ended:
            match.touched = self.svc.now()
        return match

    def _read_ended(self, match_id: str) -> LiveMatch | None:
        """An ended match rebuilt from the database (in a store thread), or None.  A running
        match missing from memory could not be replayed at start-up: it is not served."""
        stored = self.svc.store.load_match(match_id)
        if stored is None:
            return None
        if stored.row.status == "running":
            if self.svc.cluster is not None:  # another process owns it (or is about to): not "no such match"
                raise OwnerUnavailable("owner_unavailable", f"match {match_id} is held by another server process that"
                                       " cannot be reached now; try again shortly")
            return None
        try:
            return self._rebuild(stored, self.svc.now())
        except (ValueError, KeyError) as exc:
            log.error("match %s cannot be replayed and is not served: %s", match_id, exc)
            return None

    def sweep(self) -> int:
        """Let ended matches leave memory: those unused for ``keep_ended`` seconds, and the
        least recently used beyond ``max_ended``; never one with a listener or a request
        under way.  Returns how many left."""
        now = self.svc.now()
        ended = sorted((m for m in self.svc.matches.values() if m.ended), key=lambda m: m.touched)
        over = len(ended) - self.max_ended
        gone = 0
        for match in ended:
            if match.subscribers or match.lock.locked() or match.thinking:
                continue
            if gone < over or now - match.touched >= self.keep_ended:
                del self.svc.matches[match.id]
                gone += 1
        if len(self.svc.clock._alarms) > 2 * len(self.svc.matches) + 1000:  # stale alarms of ended matches: start afresh
            self.svc.clock._alarms = []
            for match in self.svc.matches.values():
                match.alarm = None
        for match in self.svc.matches.values():  # every few seconds, not every tick: an alarm missed is set again
            self.svc.clock._arm(match)
        return gone
