"""The several-processes part of the match service (docs/server.md, "Several
processes"): which matches this process owns and serves from memory, taking a match over
(its lock, the epoch moved on, replay, its clocks settled), the fence of every write by
version and epoch and what a fenced owner does (it drops the match and its lock), the
lease (renewed by the heartbeat, confirmed before serving after a stop), reaping a
process whose lease ran out, and rebalancing.  The PostgreSQL side is
:class:`~blackwhite.server.ownership.Cluster`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any, Callable

from .errors import OwnerUnavailable
from .ownership import Owner, Peer
from .store import StaleWrite

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from .service import MatchService
    from .service_live import LiveMatch

log = logging.getLogger("blackwhite.server")

#: several processes: an owner shows clock readings no later than this many seconds after
#: its last heartbeat that was stored, and a process taking a match over charges its clocks
#: up to that same moment, so a seat's time never rises at a takeover (the heartbeat is
#: written every second: while it is, the cap never binds)
SERVE_SLACK = 1.25


class ClusterPart:
    """Owning matches among several processes (a part of :class:`~blackwhite.server.service.MatchService`)."""

    def __init__(self, svc: MatchService) -> None:
        self.svc = svc
        #: matches whose advisory lock this process holds (a session lock is re-entrant: taken once)
        self._held: set[str] = set()
        #: one takeover at a time (two requests for one orphan must not load it twice)
        self._adopting = asyncio.Lock()
        #: the lock connection was lost (and every lock with it): take them again before anything else
        self._relock_needed = False
        #: the other processes and their leases, as the last heartbeat read them
        self.peers: dict[str, Peer] = {}
        #: one renewal at a time when this process's own lease may have run out
        self._confirming = asyncio.Lock()

    def owns(self, match_id: str) -> bool:
        """Whether this process serves ``match_id`` from its memory: a running match it
        holds the lock of, or an ended one (final: any process may serve it)."""
        return match_id in self.svc.matches

    async def process(self, process_id: str) -> tuple[str | None, float] | None:
        assert self.svc.cluster is not None
        return await self.svc.storage._db(self.svc.cluster.process, process_id)

    async def owner_of(self, match_id: str) -> Owner | None:
        assert self.svc.cluster is not None
        return await self.svc.storage._db(self.svc.cluster.owner, match_id)

    def _take(self, match_id: str) -> LiveMatch | None:
        """Take a running match over (in a store thread): its lock, its events replayed, its
        clocks charged up to its last owner's last heartbeat and stored.  None if another
        process holds it, or it is not running."""
        assert self.svc.cluster is not None
        if match_id not in self._held:
            if self.svc.store.status_of(match_id) != "running":  # ended or unknown: nothing to own
                return None
            if not self.svc.cluster.try_lock(match_id):
                return None
            self._held.add(match_id)
        try:
            # the epoch moves on before anything is read: from here on the previous owner,
            # should it wake up, writes nothing (every write of it names the old epoch)
            if self.svc.store.take_epoch(match_id) is None:
                self._release_now(match_id)
                return None
            stored = self.svc.store.load_match(match_id)
            if stored is None or stored.row.status != "running":
                self._release_now(match_id)
                return None
            now = self.svc.now()
            live = self.svc.storage._rebuild(stored, now)
            alive = self.svc.cluster.last_owner_beat(match_id)
            if alive is not None:  # it showed readings up to SERVE_SLACK after it: so much is charged
                alive = min(now, alive + SERVE_SLACK)
            self.svc.storage._settle(live, stored, alive if alive is not None else self.svc.store.last_beat())
            self.svc.store.settle([(live.id, live.clocks.to_json())], now)
            self.svc.cluster.owned(match_id, now)
        except (ValueError, KeyError) as exc:
            log.error("match %s cannot be replayed and is not served: %s", match_id, exc)
            return None  # the lock stays held: no other process tries it in a loop either
        except BaseException:
            self._release_now(match_id)
            raise
        log.info("took match %s over (version %s)", match_id, live.version, extra={"match_id": match_id})
        self.svc.metrics.takeovers.inc()
        return live

    def _release_now(self, match_id: str) -> None:
        assert self.svc.cluster is not None
        self._held.discard(match_id)
        with contextlib.suppress(Exception):  # a lost lock connection released it already
            self.svc.cluster.unlock(match_id)

    async def adopt(self, match_id: str) -> None:
        """Take ``match_id`` over if it is running and no process holds it (a request for
        it arrived, or the scan found it)."""
        if self.svc.cluster is None or self.svc._closing or len(match_id) > 64:
            return
        async with self._adopting:
            if match_id in self.svc.matches and not self.svc.matches[match_id].ended:
                return
            if self._relock_needed:
                await self._relock()
            try:
                live = await self.svc.storage._db(self._take, match_id)
            except ConnectionError:  # the lock connection was found dead: every lock with it
                self._relock_needed = True
                await self._relock()
                live = await self.svc.storage._db(self._take, match_id)
            if live is None:
                return
            live.touched = self.svc.now()
            self.svc.matches[live.id] = live
        self.svc.bots._schedule_bots(live)

    @staticmethod
    def _moved(match: LiveMatch) -> OwnerUnavailable:
        return OwnerUnavailable("owner_unavailable", f"match {match.id} moved to another server process; nothing "
                                "was changed, try again")

    async def _fenced(self, match: LiveMatch, changes: dict[str, Any],
                      also: Callable[[Connection], object] | None = None) -> None:
        """Store a change of a running match's row that adds no event (pause, resume, extra
        time, a join, the start, co-hosts, cancel), only if the row is still at this
        process's version and ownership epoch (see :meth:`Store.update`): a takeover
        leaves the version as it was, so the epoch is what fences these."""
        if match.dropped:
            raise self._moved(match)
        try:
            await self.svc.storage._db(self.svc.store.update, match.id, changes, match.version, match.epoch, also)
        except StaleWrite:
            self._drop(match, "another process took it over (its epoch moved on)")
            raise self._moved(match) from None

    async def _release(self, match: LiveMatch) -> None:
        """An ended match's lock goes (ended matches are final: any process serves them);
        whoever was refused a new match may try again."""
        self.svc.lifecycle._full.clear()
        if self.svc.cluster is not None and match.id in self._held:
            await self.svc.storage._db(self._release_now, match.id)

    def _drop(self, match: LiveMatch, why: str) -> None:
        """This process no longer owns ``match``: out of memory, and its lock let go at
        once (kept, it would hold the match from whoever could serve it); its sockets are
        closed so their clients reconnect (through the load balancer) to whoever owns it now."""
        log.warning("match %s left this process: %s", match.id, why)
        match.dropped = True
        if self.svc.matches.get(match.id) is match:
            del self.svc.matches[match.id]
        for sub in list(match.subscribers):
            sub.outbox.put_nowait(None)
        if self.svc.cluster is not None and match.id in self._held:
            self._held.discard(match.id)
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            task = loop.create_task(self._unlock_later(match.id))
            self.svc._tasks.add(task)
            task.add_done_callback(self.svc._tasks.discard)

    async def _unlock_later(self, match_id: str) -> None:
        """Let a dropped match's lock go (a lost lock connection let it go already)."""
        assert self.svc.cluster is not None
        with contextlib.suppress(Exception):
            await self.svc.storage._db(self.svc.cluster.unlock, match_id)

    async def _cluster_tick(self) -> None:
        """The heartbeat (on the lock connection: if it failed, every lock went with it),
        then the running matches nobody holds are taken over."""
        assert self.svc.cluster is not None
        await self.renew()
        self.peers = {p.id: p for p in await self.svc.storage._db(self.svc.cluster.peers)}
        reaped = await self.svc.storage._db(self.svc.cluster.reap)
        if reaped:
            log.warning("the lease of server process %s ran out: its sessions were ended, its matches are taken"
                        " over", ", ".join(reaped))
        for match_id in await self.svc.storage._db(self.svc.cluster.orphans):
            await self.adopt(match_id)
        await self._rebalance()

    async def _rebalance(self) -> None:
        """Even out the running matches over the live processes: hand over those others
        asked for, take over those this process asked for once let go, and ask for some
        when this process has fewer than its fair share (a process that just joined).

        Only a process below ``total // live`` asks, and only of one above its ceiling,
        so a balanced cluster moves nothing.  A match is let go between two of its writes
        (under its lock): an action under way is committed (and acknowledged) first, one
        that waited is refused 503 ``owner_unavailable`` having changed nothing; sockets
        close with 1012 and reconnect to the new owner."""
        assert self.svc.cluster is not None
        if self.svc._closing:
            return
        for match_id, to in await self.svc.storage._db(self.svc.cluster.handovers):
            if to != self.svc.cluster.id:
                match = self.svc.matches.get(match_id)
                if match is not None and not match.ended and self.peer_alive(to) and to in self.peers:
                    async with match.lock:
                        if not match.dropped and not match.ended:
                            self._drop(match, f"handed over to server process {to} (rebalancing)")
            elif match_id not in self.svc.matches:
                await self.adopt(match_id)
                if match_id in self.svc.matches:
                    await self.svc.storage._db(self.svc.cluster.handed, match_id)
            else:
                await self.svc.storage._db(self.svc.cluster.handed, match_id)
        owners = await self.svc.storage._db(self.svc.cluster.ownership)
        live = {p for p, peer in self.peers.items() if time.monotonic() < peer.until} | {self.svc.cluster.id}
        counts = {p: 0 for p in live}
        for owner in owners.values():
            if owner in counts:
                counts[owner] += 1
        total = sum(counts.values())
        floor, ceiling = total // len(live), -(-total // len(live))
        want = floor - counts[self.svc.cluster.id]
        if want <= 0:
            return
        asked: list[str] = []
        for donor in sorted(counts, key=lambda p: -counts[p]):
            spare = counts[donor] - ceiling
            if donor == self.svc.cluster.id or spare <= 0:
                continue
            theirs = [m for m, o in owners.items() if o == donor]
            asked += theirs[-min(spare, want - len(asked)):]
            if len(asked) >= want:
                break
        if asked:
            log.info("asking for %d matches to even out the load (%d running over %d processes)",
                     len(asked), total, len(live))
            await self.svc.storage._db(self.svc.cluster.ask, asked)

    async def renew(self) -> None:
        """The heartbeat, which renews this process's lease (on the lock connection: if it
        fails, every lock went with it, and they are taken again; a match another process
        took meanwhile leaves memory)."""
        assert self.svc.cluster is not None
        async with self._confirming:
            if not self._relock_needed:
                try:
                    await self.svc.storage._db(self.svc.cluster.beat, self.svc.now())
                except Exception as exc:  # the lock connection failed: so did every lock on it
                    log.warning("the lock connection failed (%r): taking the locks again", exc)
                    self._relock_needed = True
            if self._relock_needed:
                async with self._adopting:
                    await self._relock()

    async def confirm(self) -> None:
        """Before this process serves or changes a match it holds: if its lease may have
        run out (it was stopped, or its loop blocked, longer than the lease), renew it
        first; a match another process took over meanwhile then leaves memory, and the
        request goes to the new owner.  Free while the lease holds."""
        if self.svc.cluster is not None and not self.svc.cluster.fresh():
            await self.renew()

    async def take_over(self, match_id: str) -> None:
        """A request found ``match_id``'s owner with its lease run out: end the sessions of
        every such process now (not at the next heartbeat) and take the match over."""
        assert self.svc.cluster is not None
        reaped = await self.svc.storage._db(self.svc.cluster.reap)
        if reaped:
            log.warning("the lease of server process %s ran out: its sessions were ended", ", ".join(reaped))
        await self.adopt(match_id)

    async def running(self, match_id: str) -> bool:
        """Whether ``match_id`` is a stored match still running (wherever it is served)."""
        if len(match_id) > 64:
            return False
        return await self.svc.storage._db(self.svc.store.status_of, match_id) == "running"

    def peer_alive(self, process_id: str) -> bool:
        """Whether another process's lease held at the last look (one not seen yet: yes)."""
        peer = self.peers.get(process_id)
        return peer is None or time.monotonic() < peer.until

    async def _relock(self) -> None:
        """A new lock connection, and the locks of the running matches still in memory taken
        again: a match another process took meanwhile, or that moved on in the database,
        leaves memory (one that moved on is reloaded at once).  Until then the matches stay
        in memory and are read as before; their writes are fenced by version anyway.
        Raises StoreUnavailable while the database is down (the next tick tries again)."""
        assert self.svc.cluster is not None
        self._held.clear()
        # the lease counts as renewed (requests served from memory again, readings shown up
        # to now) only once the matches another process took meanwhile have left memory
        registered = self.svc.now()
        sent = await self.svc.storage._db(self.svc.cluster.register, registered, False)
        self._relock_needed = False
        moved = []
        for match in [m for m in self.svc.matches.values() if not m.ended]:
            held = await self.svc.storage._db(self.svc.cluster.try_lock, match.id)
            if held:
                self._held.add(match.id)
                if await self.svc.storage._db(self.svc.store.fence_of, match.id) == (match.version, match.epoch):
                    continue
                moved.append(match.id)
            self._drop(match, "its lock was lost" + (" and taken by another process" if not held else
                                                     " and it moved on in the database"))
        for match_id in moved:
            live = await self.svc.storage._db(self._take, match_id)
            if live is not None:
                live.touched = self.svc.now()
                self.svc.matches[live.id] = live
                self.svc.bots._schedule_bots(live)
        self.svc.cluster.renewed, self.svc.cluster.beaten = sent, registered
        kept = sum(1 for m in self.svc.matches.values() if not m.ended)
        log.warning("rejoined the cluster as process %s after losing its lock connection: %d running match%s kept, "
                    "%d reloaded, the others left to whoever took them", self.svc.cluster.id, kept,
                    "" if kept == 1 else "es", len(moved))

    def heartbeat(self) -> None:
        """Record that the server is up now (the clock loop calls it every second or so)."""
        if self.svc.cluster is not None:
            with contextlib.suppress(Exception):
                self.svc.cluster.beat(self.svc.now())
        self.svc.store.beat(self.svc.now())
