"""The match service: live matches in memory, one lock each, commit then broadcast.

Every live match is a :class:`LiveMatch` holding the engine state rebuilt by replaying
its stored events.  A change (an action, a timeout, a bot's move) is applied to a
copy of the state, its events and clock readings are committed in one transaction,
and only then does the copy become the match and anyone hear of it.  A refused
request raises a :class:`~blackwhite.server.errors.Refused` kind before anything is
written, so it changes nothing; which HTTP status says so is the edge's choice.

Every payload a client receives is built here from ``state.view(seat)`` or
``state.view(None)``: there is no other road from a state to the outside.

:class:`MatchService` is made of parts with one job each, as lichess splits its round
actor (each part is an object holding the service, and reaches the others through it):

- :class:`~blackwhite.server.service_lifecycle.LifecyclePart` (``service.lifecycle``):
  creation, the start, actions, the host's controls, the end, a failing game;
- :class:`~blackwhite.server.service_clocks.ClocksPart` (``service.clock``): readings,
  alarms, timeouts, the clock loop;
- :class:`~blackwhite.server.service_bots.BotsPart` (``service.bots``): bots thinking;
- :class:`~blackwhite.server.service_hosts.HostsPart` (``service.hosts``): tokens, hosts,
  their links, co-hosts and rights;
- :class:`~blackwhite.server.service_storage.StoragePart` (``service.storage``): store
  threads, replay, ended matches read back and swept, analysis jobs' states;
- :class:`~blackwhite.server.service_cluster.ClusterPart` (``service.owning``): owning
  matches among several processes (takeover, fence, lease, rebalancing).

What stays here is what every part shares: the matches in memory, their payloads (views,
summaries, records) and listeners.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from typing import Any, Awaitable, Callable

from ..engine import to_record
from . import bots as botseats
from .ownership import Cluster
from .relay import Relay
from .limits import Quotas
from .errors import Unknown, WrongState
from .store import Store, token_hash
from .observe import Metrics
from .players_store import PlayerStore
from .workers import stop_pool
from .service_bots import BotsPart
from .service_cluster import SERVE_SLACK, ClusterPart
from .service_clocks import MAX_TIMEOUTS_PER_LOOK, RIGHTS_EVERY, ClocksPart
from .service_hosts import LINK_SCOPES, HostsPart
from .service_lifecycle import FULL_FOR, START_POLICIES, LifecyclePart
from .service_live import MAX_OUTBOX, BoardRenderer, Kind, LiveMatch, NewMatch, Role, Subscriber
from .service_storage import JOB_GONE, KEEP_ENDED, MAX_ENDED, STORE_THREADS, UNAVAILABLE, StoragePart

__all__ = [
    "ANONYMOUS_LIVE", "FULL_FOR", "JOB_GONE", "KEEP_ENDED", "LINK_SCOPES", "MAX_ENDED", "MAX_TIMEOUTS_PER_LOOK", "MAX_OUTBOX", "RIGHTS_EVERY",
    "SERVE_SLACK", "START_POLICIES", "STORE_THREADS", "UNAVAILABLE", "BoardRenderer", "Kind", "LiveMatch",
    "MatchService", "NewMatch", "Role", "Subscriber", "fresh_id",
]

log = logging.getLogger("blackwhite.server")

#: running matches one address may have created without a host token
ANONYMOUS_LIVE = 10


def fresh_id() -> str:
    """A new match's or season's id: 12 URL-safe characters that never begin with ``-``,
    so that a command line (``blackwhite season main ID``) never reads one as an option."""
    while True:
        made = secrets.token_urlsafe(9)
        if made[0] != "-":
            return made


class MatchService:
    """Live matches, composed of one part per job (see the module's docstring).  Methods
    run on the event loop; database statements run in store threads
    (:meth:`StoragePart._db`), awaited under the match's lock, so a match's changes are
    committed one at a time, in order, before anyone hears of them, while other matches
    and reads go on.  The parts' public methods are the service's own (``service.submit``
    is ``service.lifecycle.submit``), so the edges need not know which part answers."""

    def __init__(self, store: Store, *, now: Callable[[], float] = time.time, bot_workers: int = 1,
                 keep_ended: float = KEEP_ENDED, max_ended: int = MAX_ENDED,
                 anonymous_live: int = ANONYMOUS_LIVE, cluster: Cluster | None = None, quotas: Quotas | None = None,
                 boards: BoardRenderer | None = None) -> None:
        self.store = store
        #: player identities (players.py): a seat bound to a player is played with its login
        self.players = PlayerStore(store)
        #: draws the boards of ``render`` payloads (the web pages'); None: payloads carry no board
        self.boards = boards
        #: several processes over one PostgreSQL: which running matches this one owns (ownership.py)
        self.cluster = cluster
        #: asks other processes (a host's listing of matches they own)
        self.relay = Relay(cluster.id) if cluster is not None else None
        self.now = now
        #: the running matches, and ended ones used in the last ``keep_ended`` seconds
        self.matches: dict[str, LiveMatch] = {}
        #: the running-match bounds (limits.py), counted in the database as a match is made
        self.quotas = quotas if quotas is not None else Quotas(anonymous=anonymous_live)
        #: tasks under way (bots thinking, pauses after a fault, unlocks): cancelled at close
        self._tasks: set[asyncio.Task[Any]] = set()
        #: set by :meth:`close`: no bot starts thinking, no pool is started again
        self._closing = False
        #: what /metrics reports of this process (blackwhite/server/observe.py)
        self.metrics = Metrics()
        #: told the id of every match that ends here by its rules (a season writes its result)
        self.on_ended: list[Callable[[str], None]] = []
        #: a new match's id (a season's simulation numbers them, so the same seed exports the same season)
        self.new_id: Callable[[], str] = fresh_id
        #: told of a match after each of its commits is broadcast, and when it is created
        #: (the notifier, blackwhite/server/notify.py); called on the event loop, must not block
        self.watchers: list[Callable[[LiveMatch], None]] = []
        #: the seat a token speaks for beyond the match's own seat tokens (the seat keys the
        #: notifier's single-use links give): (match id, token hash) -> seat or None
        self.seat_keys: Callable[[str, str], Awaitable[int | None]] | None = None
        self.storage = StoragePart(self, keep_ended, max_ended)
        self.hosts = HostsPart(self)
        self.lifecycle = LifecyclePart(self)
        self.clock = ClocksPart(self)
        self.bots = BotsPart(self, bot_workers)
        self.owning = ClusterPart(self)
        # the parts' public methods, as the service's own
        # storage
        self.readiness = self.storage.readiness
        self.load = self.storage.load
        self.stored_job = self.storage.stored_job
        self.save_jobs = self.storage.save_jobs
        self.job_gone = self.storage.job_gone
        self.find = self.storage.find
        self.sweep = self.storage.sweep
        # hosts
        self.login = self.hosts.login
        self.role_for = self.hosts.role_for
        self.host_matches = self.hosts.host_matches
        self.owner_login = self.hosts.owner_login
        self.link_entry = self.hosts.link_entry
        self.host_info = self.hosts.host_info
        self.new_link = self.hosts.new_link
        self.revoke_link = self.hosts.revoke_link
        self.set_cohost = self.hosts.set_cohost
        self.recheck_hosts = self.hosts.recheck_hosts
        self.recheck_players = self.hosts.recheck_players
        # lifecycle
        self.create = self.lifecycle.create
        self.default_seats = self.lifecycle.default_seats
        self.submit = self.lifecycle.submit
        self.join = self.lifecycle.join
        self.start_now = self.lifecycle.start_now
        self.cancel = self.lifecycle.cancel
        self.pause = self.lifecycle.pause
        self.add_time = self.lifecycle.add_time
        self.bind_seat = self.lifecycle.bind_seat
        # clock
        self.readings = self.clock.readings
        self.tick = self.clock.tick
        self.run_clock = self.clock.run_clock
        # bots
        self.wake_bots = self.bots.wake_bots
        # owning
        self.owns = self.owning.owns
        self.process = self.owning.process
        self.owner_of = self.owning.owner_of
        self.adopt = self.owning.adopt
        self.renew = self.owning.renew
        self.confirm = self.owning.confirm
        self.take_over = self.owning.take_over
        self.running = self.owning.running
        self.peer_alive = self.owning.peer_alive
        self.heartbeat = self.owning.heartbeat
        # other modules use these two (players.py, notify.py, service_seasons.py)
        self._db = self.storage._db
        self._check_login = self.hosts._check_login
        self.metrics.watch(self)

    def start(self) -> None:
        """Load matches and set every bot that is due thinking (call on the event loop)."""
        self.load()
        self.wake_bots()

    async def close(self) -> None:
        """A clean stop: the server was up until now."""
        try:
            self.heartbeat()
        except Exception:  # the database may be what failed
            log.exception("the last heartbeat could not be written")
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        if self.cluster is not None:  # the locks go now: other processes take the matches at once
            self.cluster.leave()
        if self.relay is not None:
            with contextlib.suppress(Exception):  # its connections go with the process anyway
                await self.relay.close()
        if self.bots._pool is not None:
            pool, self.bots._pool = self.bots._pool, None
            stop_pool(pool)  # the workers are ended and reaped: none outlives the server
        self.storage._store_pool.shutdown(wait=True, cancel_futures=True)

    def get(self, match_id: str) -> LiveMatch:
        """A match in memory (every running one is); see :meth:`find` for any match."""
        match = self.matches.get(match_id)
        if match is None:
            raise self._unknown(match_id)
        return match

    @staticmethod
    def _unknown(match_id: str) -> Unknown:
        shown = match_id if len(match_id) <= 64 else match_id[:64] + "..."
        return Unknown("unknown_match", f"there is no match {shown!r}")

    def summary(self, match: LiveMatch, role: Role | None = None, hosting: bool = False) -> dict[str, Any]:
        """The match in brief; ``hosting`` (a host's own lists and controls) adds its
        owner's host id and its co-hosts."""
        out = {
            "id": match.id,
            "game": match.game_id,
            "options": match.options,
            "seats": match.seats,
            "status": match.public_status(),
            "to_move": match.state.to_move() if match.status == "running" else [],
            "version": match.version_for(role) if role is not None else match.version_for(Role("spectator")),
            "created": match.created,
            "host_sees_all": match.host_sees_all,
            "start": match.start_info(),
            "waiting": match.waiting_text(),
            "pace": match.pace.to_json(),
        }
        if hosting or (role is not None and role.kind == "host"):
            out["host"] = match.host_id
            out["cohosts"] = list(match.cohosts)
            if match.fault is not None:
                out["fault"] = match.fault_for_host()
        return out

    def view_payload(self, match: LiveMatch, role: Role, render: bool = False) -> dict[str, Any]:
        """What ``role`` may see now, built only from ``view(seat)`` / ``view(None)``.

        ``render`` (the web pages) adds ``"board"``, the view drawn as HTML by the
        game's partial, and for a seat ``"legal"``, the notation of what that seat may
        play now: another seat's options are never in it."""
        state = match.state
        out: dict[str, Any] = {"version": match.version_for(role)}
        if role.kind == "seat":
            out["view"] = match.view_of(role.seat)
        elif role.kind == "host" and match.host_sees_all:
            out["full"] = True
            out["view"] = match.view_of(None)
            out["views"] = [match.view_of(s) for s in range(state.num_seats)]
        else:
            out["view"] = match.view_of(None)
        out["clocks"] = self.readings(match).to_json()
        quiet = match.pace.quiet_state(self.now()) if match.status == "running" else None
        if quiet is not None:  # a slow pace's quiet hours: a page stops its clocks at night
            out["clocks"]["quiet"] = {"now": quiet[0], "change_in": round(quiet[1], 3)}
        out["pace"] = match.pace.to_json()
        out["status"] = match.public_status()
        out["start"] = match.start_info()
        out["waiting"] = match.waiting_text()
        out["role"] = role.kind
        out["seat"] = role.seat
        out["host_sees_all"] = match.host_sees_all
        if render:
            self._add_board(match, role, out)
        if role.kind == "host" and match.fault is not None:
            out["fault"] = match.fault_for_host()
        self.lifecycle._after_fault(match)
        return out

    def legal_texts(self, match: LiveMatch, seat: int) -> list[str]:
        """The notation of every action ``seat`` may send now (none for a bot's seat,
        a paused or ended match, or a seat that has already answered this step; free
        actions the engine lists stay open to a seat that has answered)."""
        state = match.state
        if match.status != "running" or not match.clocks.running or "bot" in match.seats[seat]:
            return []
        if seat not in state.to_move() and seat not in state.pending:
            # free actions (item uses, early choices) may be open off-turn
            actions = [a for a in state.legal_actions(seat) if state.is_free(a)]
        else:
            actions = state.legal_actions(seat)
            if seat in state.pending:
                actions = [a for a in actions if state.is_free(a)]
        return [botseats.action_text(state, a) for a in actions]

    def _add_board(self, match: LiveMatch, role: Role, out: dict[str, Any]) -> None:
        """Add the rendered board (and a seat's legal actions) to a payload being built;
        without a board renderer, a seat's legal actions only."""
        names = match.names()
        draw = self.boards
        if role.kind == "seat" and role.seat is not None:
            try:
                legal = self.legal_texts(match, role.seat)
            except Exception as exc:  # the game's legal actions raised: its match pauses
                match.faulted(f"legal actions of P{role.seat + 1}", exc)
                legal = []
            out["legal"] = legal
            if draw is not None:
                out["board"] = draw(match.game_id, out["view"], role.seat, legal, names, True)
            return
        if draw is None:
            return
        out["board"] = draw(match.game_id, out["view"], None, [], names, True)
        if out.get("full"):
            out["boards"] = [draw(match.game_id, v, s, [], names, False) for s, v in enumerate(out["views"])]

    def record(self, match: LiveMatch, role: Role) -> dict[str, Any]:
        """The match record: after the end for anyone of the match, before only for an all-seeing host."""
        if match.status == "running" and not (role.kind == "host" and match.host_sees_all):
            raise WrongState(
                "not_finished",
                f"match {match.id} is still running; its record holds secrets and is exported once it ends"
                " (or, live, to the host of a match created with \"the host sees every seat's tiles\")",
            )
        return to_record(match.state, match.names(), pace=match.pace)

    def subscribe(self, match: LiveMatch, role: Role, render: bool = False, token: str | None = None) -> Subscriber:
        """A listener of ``match`` as ``role``; a host's ``token`` is kept (hashed) so its
        rights are checked again while the socket is open (:meth:`recheck_hosts`)."""
        sub = Subscriber(role, render, digest=token_hash(token) if role.kind == "host" and token else None)
        if role.kind == "seat" and token and match.guest_role(token_hash(token)) is None:
            sub.player_digest = token_hash(token)  # a player's login: checked again like a host's
        match.subscribers.add(sub)
        sub.put({"type": "view", **self.view_payload(match, role, sub.render)})
        return sub

    def unsubscribe(self, match: LiveMatch, sub: Subscriber) -> None:
        match.subscribers.discard(sub)

    def _broadcast(self, match: LiveMatch, changed: set[int | None] | None = None) -> None:
        """Queue the new view for every listener (each its own role's view), in commit
        order; after an event, only for the audiences whose view it ``changed`` (and an
        all-seeing host): a push nobody else gets tells of a secret event."""
        # one view and one JSON text per role (and rendering), however many sockets
        built: dict[tuple[Role, bool], str] = {}
        for sub in list(match.subscribers):
            if changed is not None and match.audience(sub.role) not in changed and match.audience(sub.role) != "all":
                continue
            key = (sub.role, sub.render)
            if key not in built:
                try:
                    built[key] = json.dumps({"type": "view", **self.view_payload(match, sub.role, sub.render)})
                except Exception:  # a game's view failed: the change stands; this listener hears an error
                    log.exception("building the %s view of match %s failed", sub.role, match.id)
                    built[key] = json.dumps({"type": "error", "error": {
                        "code": "view_failed", "message": f"the view of version {match.version} could not be built"}})
            sub.put(built[key])
        self._tell_watchers(match)

    def _tell_watchers(self, match: LiveMatch) -> None:
        for watch in self.watchers:
            try:
                watch(match)
            except Exception:  # a watcher's failure is its own: the match goes on
                log.exception("a watcher of match %s failed", match.id)
