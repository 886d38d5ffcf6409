"""The match service: live matches in memory, one lock each, commit then broadcast.

Every live match is a :class:`LiveMatch` holding the engine state rebuilt by replaying
its stored events.  A change (an action, a timeout, a bot's move) is applied to a
copy of the state, its events and clock readings are committed in one transaction,
and only then does the copy become the match and anyone hear of it.  A refused
request raises a :class:`~blackwhite.server.errors.Refused` kind before anything is
written, so it changes nothing; which HTTP status says so is the edge's choice.

Every payload a client receives is built here from ``state.view(seat)`` or
``state.view(None)``: there is no other road from a state to the outside.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import heapq
import json
import logging
import math
import random
import secrets
import collections
import time
from dataclasses import dataclass, field, replace
from typing import Any, AsyncIterator, Awaitable, Callable, Literal, TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..engine import (
    RESIGN,
    ActionSyntaxError,
    ChanceEvent,
    Game,
    GameOverError,
    LIVE,
    ClockRule,
    IllegalActionError,
    NotYourTurnError,
    OptionError,
    Pace,
    State,
    UnknownGameError,
    make_game,
    to_record,
)
from .. import names
from . import bots as botseats
from . import clocks as clk
from .ownership import Cluster, Peer
from .relay import Relay
from .limits import QuotaExceeded, Quotas, client_key, idle_expiry
from .errors import (
    encodable,
    Invalid,
    Malformed,
    NotPermitted,
    OverQuota,
    OwnerUnavailable,
    Refused,
    StoreUnavailable,
    Unauthenticated,
    Unknown,
    WrongState,
)
from .notify_store import seat_email_rows
from .store import (
    LINK_ID,
    STORE_WAIT,
    AnalysisJobRow,
    HostLogin,
    HostRow,
    MatchHosts,
    MatchRow,
    MatchStatus,
    StaleWrite,
    Store,
    StoredMatch,
    StoreTimeout,
    match_status,
    token_hash,
)
from .observe import Metrics
from .players_store import PlayerStore, resolve_seats
from .service_bots import BotsPart
from .service_cluster import SERVE_SLACK, ClusterPart
from .workers import stop_pool

log = logging.getLogger("blackwhite.server")

#: seconds between checks of the rights of open host sockets (a revoked link's socket closes within twice this)
RIGHTS_EVERY = 0.4
#: what a host link may do: ``owner`` everything (links, co-hosts, matches); ``matches``
#: create and run matches only (the link of a bot, the Discord bridge or a co-organiser)
LINK_SCOPES = ("owner", "matches")
T = TypeVar("T")

Kind = Literal["seat", "spectator", "host"]
#: draws a board for the pages: (game id, a view, the seat it is for or None, that seat's
#: legal actions in notation, the seat names, whether the reader is that seat) -> HTML.
#: The service is given one (blackwhite.app gives blackwhite.web.render.board_html); it
#: never imports the web itself.
BoardRenderer = Callable[[str, dict[str, Any], "int | None", list[str], list[str], bool], str]
#: messages a socket may have waiting before it is closed as too slow (a reconnect gets the current view)
MAX_OUTBOX = 256
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
#: running matches one address may have created without a host token
ANONYMOUS_LIVE = 10
#: seconds a refused creator is refused again from memory (unless a match ends here first)
FULL_FOR = 1.0
#: timeouts one look of the clock applies to one match before the next tick goes on
MAX_TIMEOUTS_PER_LOOK = 64
#: when a match's clocks start: once every person's seat has opened its link, at once, or at a set time
START_POLICIES = ("when_joined", "now", "at")


@dataclass(frozen=True)
class NewMatch:
    """A match just created: its id, the tokens of its links (each shown only now), its summary."""

    id: str
    #: the token of the host it is filed under: the one given, or the first link of a new host
    host_token: str
    #: whether no host token was given, so a new host was made (its token is shown once)
    new_host: bool
    spectator_token: str
    #: per seat, its token; None for a bot's seat nobody may watch, or a seat bound to a player
    seat_tokens: list[str | None]
    summary: dict[str, Any]
    #: per seat, the player bound to it (None: none), who plays it with its own login
    players: list[str | None] = field(default_factory=list)


@dataclass(frozen=True)
class Role:
    """Who a token speaks for in one match."""

    kind: Kind
    seat: int | None = None


@dataclass(eq=False)
class Subscriber:
    """One WebSocket: the messages waiting to be sent to it, in order."""

    role: Role
    #: whether its pushes carry the rendered board and legal actions (the web pages' ``?render=1``)
    render: bool = False
    #: JSON texts to send, in order; ``None`` means "close the socket"
    outbox: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    #: set once the client fell too far behind; the socket is then closed (it may reconnect)
    lagging: bool = False
    #: the hash of a host socket's token: its rights are checked again while it is open
    digest: str | None = None
    #: the hash of a player's login that plays a seat bound to it: checked again as a host's is
    player_digest: str | None = None
    #: set once the token lost its rights to the match: the socket is closed (4403), and
    #: nothing still queued for it is sent
    revoked: bool = False
    #: when each queued message was queued (``time.monotonic()``), oldest first: push latency
    queued_at: collections.deque[float] = field(default_factory=collections.deque)

    def put(self, message: dict[str, Any] | str) -> None:
        """Queue a message (or its JSON text); a listener more than ``MAX_OUTBOX`` behind is cut off instead."""
        if self.lagging or self.revoked:
            return
        if self.outbox.qsize() >= MAX_OUTBOX:
            self.lagging = True
            self.outbox.put_nowait(None)
            return
        self.outbox.put_nowait(message if isinstance(message, str) else json.dumps(message))
        self.queued_at.append(time.monotonic())

    def waited(self) -> float | None:
        """How long the message just taken from the outbox waited there (None: not known)."""
        return time.monotonic() - self.queued_at.popleft() if self.queued_at else None

    def revoke(self) -> None:
        """The token lost its rights: drop what is queued (it may hold secrets the token may
        no longer see) and close the socket."""
        if self.revoked:
            return
        self.revoked = True
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.queued_at.clear()
        self.outbox.put_nowait(None)


@dataclass
class LiveMatch:
    """A match in memory: its stored identity, its state and clocks, its listeners."""

    id: str
    game_id: str
    options: dict[str, Any]
    seats: list[dict[str, str]]
    host_hash: str
    seat_hashes: list[str | None]
    spectator_hash: str
    host_sees_all: bool
    status: MatchStatus
    seed: int
    created: float
    state: State
    version: int
    clocks: clk.Clocks
    clock_at: float
    #: the version at which the step now open began: other seats' secret submissions
    #: to a simultaneous step move ``version`` on but leave a seat's choices as they
    #: were, so an action sent against any version since then is not stale
    step_version: int = 0
    #: per audience (a seat, or None for the public): the version it is shown and the
    #: text of what it saw then.  ``version`` counts every event, and a gap in it would
    #: tell a seat that something it was not told happened (a secret item use); an
    #: audience's own version moves only when its view does.
    seen: dict[int | None, tuple[int, str]] = field(default_factory=dict)
    #: per seat: its own version when the step now open began (see ``step_version``)
    seen_step: dict[int, int] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    thinking: set[int] = field(default_factory=set)
    #: when an ended match was last used (it leaves memory ``keep_ended`` seconds later)
    touched: float = 0.0
    #: set when this process stopped owning the match (another took it over): it commits nothing more
    dropped: bool = False
    #: the ownership epoch this process holds the match at (several processes): every write
    #: of the match names it, and a takeover moves the stored one on (Store.take_epoch)
    epoch: int = 0
    #: (clocks, clock_at, deadline) of the last look: readings are replaced, never changed,
    #: so the clock's tick recomputes a deadline only when they were
    _deadline: tuple[Any, float, float | None] | None = None
    #: when the clocks start (one of :data:`START_POLICIES`) and, for ``at``, the moment
    start: str = "now"
    start_at: float | None = None
    #: per seat, whether it has opened its link once (a bot's seat is joined from the start)
    joined: list[bool] = field(default_factory=list)
    #: the host the match belongs to (any login link of it controls the match), and co-hosts
    host_id: str = ""
    cohosts: list[str] = field(default_factory=list)
    #: moves on each time this process changes ``host_id`` or ``cohosts``: who controls
    #: the match as read from the database is kept only if nothing changed it meanwhile
    hosts_changed: int = 0
    #: the earliest moment the clock's alarm heap holds for this match (None: none)
    alarm: float | None = None
    #: what the game's own code raised (its rules' ``apply``, a ``view``, the legal
    #: actions): the match is then paused and this shown to its host; None while the
    #: game behaves (a resume clears it: if the game fails again, it pauses again)
    fault: str | None = None
    #: whether the pause for ``fault`` is under way or done (one pause per fault)
    fault_paused: bool = False
    #: the exception's own message: it may hold the state's secrets (a hidden tile in a
    #: KeyError), so only a host who sees every seat is shown it (and the server's log)
    fault_detail: str = ""
    #: the match's pace (the host's choice at creation): the clock rule and calendar its clocks follow
    pace: Pace = LIVE

    def rule(self) -> ClockRule:
        """The clock rule this match runs: the game's own at the match's pace."""
        return self.pace.rule(self.state.game.clock_rule())

    def fault_for_host(self) -> str | None:
        """What the host is told of the fault: where and what raised; the exception's
        message too when the host sees every seat's secrets anyway."""
        if self.fault is None:
            return None
        if self.host_sees_all and self.fault_detail:
            return f"{self.fault}: {self.fault_detail}"
        return f"{self.fault} (its message is in the server's log: it may name what the seats hide)"

    def faulted(self, where: str, exc: BaseException) -> None:
        """Note that the game's ``where`` raised ``exc`` (logged with its traceback): the
        service pauses the match and tells its host (:meth:`MatchService._after_fault`)."""
        log.error("match %s: the %s game's %s raised %r", self.id, self.game_id, where, exc, exc_info=exc)
        if self.fault is None:
            self.fault = encodable(f"the game's {where} raised {type(exc).__name__}")
            self.fault_detail = encodable(str(exc)[:300])

    def view_of(self, who: int | None) -> dict[str, Any]:
        """``state.view(who)``; if the game's view raises, a view that says so and shows
        nothing of the game (the fault is noted: the match is paused, its host told)."""
        try:
            return dict(self.state.view(who))
        except Exception as exc:  # the game's code, not ours: its match stops, the server goes on
            self.faulted("view of " + ("the public" if who is None else f"P{who + 1}"), exc)
            return {"game": self.game_id, "seat": who, "options": dict(self.options), "log": [], "to_move": [],
                    "submitted": [], "my_pending": None, "finished": False, "winner": None,
                    "fault": "The game failed to show this view; the match is paused and its host told."}

    def audience(self, role: Role) -> int | None | str:
        """Whose view ``role`` is shown: a seat, None (the public), or "all" (a host
        of a host_sees_all match, who is shown every event)."""
        if role.kind == "seat":
            return role.seat
        return "all" if role.kind == "host" and self.host_sees_all else None

    def version_for(self, role: Role) -> int:
        who = self.audience(role)
        if who == "all" or who not in self.seen:
            return self.version
        return self.seen[who][0]

    def look(self, step_opened: bool, start: bool = False) -> set[int | None]:
        """After an event: move on the version of every audience whose view changed
        (``start``: take the present as everyone's version); the audiences changed."""
        changed: set[int | None] = set()
        for who in [*range(self.state.num_seats), None]:
            text = json.dumps([self.view_of(who), self.status], sort_keys=True, default=str)
            old = self.seen.get(who)
            if start or old is None:
                self.seen[who] = (self.version, text)
                changed.add(who)
            elif old[1] != text:
                self.seen[who] = (old[0] + 1, text)
                changed.add(who)
        if step_opened or start:
            self.seen_step = {s: self.seen[s][0] for s in range(self.state.num_seats)}
        return changed

    def public_version_after(self, state: State, status: MatchStatus) -> int:
        """The public audience's version once ``state`` (with ``status``) is committed:
        what :meth:`look` will make it, known before the commit so it can be stored with it."""
        old = self.seen.get(None)
        if old is None:
            return self.version
        return old[0] + (old[1] != _seen_text(state, None, status))

    @property
    def ended(self) -> bool:
        return self.status != "running"

    def deadline(self) -> float | None:
        """When the first awaited seat runs out (None: paused, finished, or no one awaited)."""
        if self.status != "running":
            return None
        seen = self._deadline
        if seen is None or seen[0] is not self.clocks or seen[1] != self.clock_at:
            seen = (self.clocks, self.clock_at, clk.next_deadline(self.clocks, self.clock_at, self.pace))
            self._deadline = seen
        return seen[2]

    def guest_role(self, digest: str) -> Role | None:
        """The role of a token (by its hash) that is this match's own: a seat's or the
        spectators'.  A host's token is a login of a host, looked up in the database
        (:meth:`MatchService.role_for`)."""
        if secrets.compare_digest(digest, self.spectator_hash):
            return Role("spectator")
        for seat, h in enumerate(self.seat_hashes):
            if h is not None and secrets.compare_digest(digest, h):
                return Role("seat", seat)
        return None

    def hosted_by(self, host_id: str) -> bool:
        """Whether ``host_id`` controls this match: its owner or a co-host."""
        return host_id == self.host_id or host_id in self.cohosts

    def stored_hosts(self, stored: MatchHosts, seen: int) -> None:
        """Take who controls the match as the database says (read when ``hosts_changed``
        was ``seen``): a ``blackwhite hosts merge`` or another process may have changed it.
        A change this process made while the read was under way is newer: it stays."""
        if self.hosts_changed == seen and stored.host_id:
            self.host_id, self.cohosts = stored.host_id, list(stored.cohosts)

    @property
    def paused(self) -> bool:
        return self.clocks.paused

    @property
    def started(self) -> bool:
        """Whether the clocks have started (a match waits for its players first)."""
        return self.clocks.started

    def waiting_for(self) -> list[int]:
        """The seats of people who have not opened their link yet."""
        return [i for i, s in enumerate(self.seats) if "bot" not in s and not self.joined_seat(i)]

    def waiting(self) -> bool:
        """Running but not started: who has joined still matters."""
        return self.status == "running" and not self.started

    def joined_seat(self, seat: int) -> bool:
        return "bot" in self.seats[seat] or (seat < len(self.joined) and self.joined[seat])

    def waiting_text(self) -> str | None:
        """What a running match that has not started waits for, in words (None once started)."""
        if self.status != "running" or self.started:
            return None
        if self.start == "at" and self.start_at is not None:
            when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.start_at))
            return f"waiting for the start at {when} (or for the host to start it)"
        names = self.names()
        missing = [names[i] for i in self.waiting_for()]
        if not missing:
            return "waiting for the host to start it"
        who = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
        return f"waiting for {who} to join"

    def start_info(self) -> dict[str, Any]:
        """The start as payloads carry it: policy, moment, started, who has not joined."""
        return {
            "policy": self.start, "at": self.start_at, "started": self.started,
            "waiting_for": [] if self.started else self.waiting_for(),
        }

    def public_status(self) -> str:
        if self.status == "running" and self.paused:
            return "paused"
        if self.status == "running" and not self.started:
            return "waiting"
        return self.status

    def names(self) -> list[str]:
        """The seats as a record names them: a person's name, or ``bot <spec>``."""
        return [s["name"] if "name" in s else f"bot {s['bot']}" for s in self.seats]


def _seen_text(state: State, who: int | None, status: MatchStatus) -> str:
    """What an audience is shown, as text: its version moves on when this changes."""
    return json.dumps([state.view(who), status], sort_keys=True, default=str)


def _chance_rng(seed: int, index: int) -> random.Random:
    """The rng of the chance event at ``index``: a function of the stored seed and position,
    so a restarted server draws what the first would have (there is no rng state to keep)."""
    return random.Random(f"{seed}/{index}")


def _event_row(seat: int | None, action: str | None, chance: dict[str, Any] | None, index: int, now: float,
               readings: dict[str, Any]) -> dict[str, Any]:
    return {"idx": index, "seat": seat, "action": action, "chance": chance, "arrived_at": now, "clocks": readings}


class MatchService(ClusterPart, BotsPart):
    """Live matches, their storage, clocks and bots (several processes' ownership is
    :class:`~blackwhite.server.service_cluster.ClusterPart`, bots' thinking
    :class:`~blackwhite.server.service_bots.BotsPart`).  Methods run on the event loop;
    database statements run in store threads (:meth:`_db`), awaited under the match's
    lock, so a match's changes are committed one at a time, in order, before anyone
    hears of them, while other matches and reads go on."""

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
        #: matches whose advisory lock this process holds (a session lock is re-entrant: taken once)
        self._held: set[str] = set()
        #: one takeover at a time (two requests for one orphan must not load it twice)
        self._adopting = asyncio.Lock()
        #: the lock connection was lost (and every lock with it): take them again before anything else
        self._relock_needed = False
        #: asks other processes (a host's listing of matches they own)
        self.relay = Relay(cluster.id) if cluster is not None else None
        #: the other processes and their leases, as the last heartbeat read them
        self.peers: dict[str, Peer] = {}
        #: one renewal at a time when this process's own lease may have run out
        self._confirming = asyncio.Lock()
        self.now = now
        #: the running matches, and ended ones used in the last ``keep_ended`` seconds
        self.matches: dict[str, LiveMatch] = {}
        self.bot_workers = bot_workers
        self.keep_ended = keep_ended
        self.max_ended = max_ended
        #: the running-match bounds (limits.py), counted in the database as a match is made
        self.quotas = quotas if quotas is not None else Quotas(anonymous=anonymous_live)
        #: (when, match id): the moments the clock must look at a match (a timeout, a start,
        #: an idle match's end); entries are checked when due, so a stale one costs one look
        self._alarms: list[tuple[float, str]] = []
        #: who was refused a new match (a token's hash, an address key, "*": everyone), until when, and how
        self._full: dict[str, tuple[float, OverQuota]] = {}
        self._pool: concurrent.futures.Executor | None = None
        self._store_pool = concurrent.futures.ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="store")
        self._tasks: set[asyncio.Task[Any]] = set()
        #: when the store's trouble was last logged (logged at most every 10 s, not per tick)
        self._trouble_logged = float("-inf")
        #: what /metrics reports of this process (blackwhite/server/observe.py)
        self.metrics = Metrics()
        #: told the id of every match that ends here by its rules (a season writes its result)
        self.on_ended: list[Callable[[str], None]] = []
        #: a new match's id (a season's simulation numbers them, so the same seed exports the same season)
        self.new_id: Callable[[], str] = lambda: secrets.token_urlsafe(9)
        self.metrics.watch(self)
        #: set by :meth:`close`: no bot starts thinking, no pool is started again
        self._closing = False
        #: the readiness probe of the database under way (/ready), if any
        self._ready_probe: asyncio.Future[tuple[str | None, str | None]] | None = None
        #: told of a match after each of its commits is broadcast, and when it is created
        #: (the notifier, blackwhite/server/notify.py); called on the event loop, must not block
        self.watchers: list[Callable[[LiveMatch], None]] = []
        #: the seat a token speaks for beyond the match's own seat tokens (the seat keys the
        #: notifier's single-use links give): (match id, token hash) -> seat or None
        self.seat_keys: Callable[[str, str], Awaitable[int | None]] | None = None

    async def _db(self, work: Callable[..., T], *args: Any) -> T:
        """Run a store method in a store thread; a database that is down or locked beyond
        the store's wait is :class:`StoreUnavailable` (nothing was committed)."""
        loop = asyncio.get_running_loop()
        try:
            deadline = time.monotonic() + STORE_WAIT  # the whole wait, a free store thread included
            return await loop.run_in_executor(self._store_pool,
                                              functools.partial(self.store.bounded, deadline, work, *args))
        except UNAVAILABLE as exc:
            self._trouble(exc)
            raise StoreUnavailable("store_unavailable", "the database cannot be reached or is locked; "
                                   "nothing was changed, try again shortly") from None

    async def readiness(self) -> dict[str, bool]:
        """Whether this process should be sent traffic (``/ready``): the database answers,
        its schema is the package's newest, and it accepts matches (not stopping, and over
        PostgreSQL its lease holds)."""
        # one probe at a time: with the database hung, a load balancer's checks wait on the
        # probe under way instead of each tying up another thread until the database answers
        if self._ready_probe is None or self._ready_probe.done():
            self._ready_probe = asyncio.ensure_future(asyncio.to_thread(self.store.schema_state))
            self._ready_probe.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            current, newest = await asyncio.wait_for(asyncio.shield(self._ready_probe), STORE_WAIT + 1.0)
            reachable = True
        except Exception:
            current, newest, reachable = None, "?", False
        # the heartbeat renews the lease every second: a lease as short as that is renewed
        # just after it would count as not fresh, so one renewal late is not yet trouble
        fresh = self.cluster is None or (not self._relock_needed and
                                         time.monotonic() - self.cluster.renewed < self.cluster.lease + 1.0)
        return {"database": reachable, "migrations": reachable and current == newest,
                "accepting": not self._closing and fresh}

    def _trouble(self, exc: BaseException) -> None:
        self.metrics.store_errors.inc()
        if time.monotonic() - self._trouble_logged >= 10.0:
            self._trouble_logged = time.monotonic()
            log.warning("the database is unavailable (%s); requests that write answer 503 until it is back",
                        str(exc).splitlines()[0][:300])

    # ------------------------------------------------------------- start-up and shutdown

    def load(self) -> None:
        """Rebuild every running match by replay (an ended one is read back when asked for).  A running clock is charged up to the last
        heartbeat (the server was up) and resumes from now: the time the server was down
        is charged to no one.  The readings so settled are stored at once, so a second
        crash before any event cannot charge the first down time."""
        now = self.now()
        if self.cluster is not None:  # take the running matches no other process holds
            self.cluster.register(now)
            for match_id in self.cluster.orphans():
                live = self._take(match_id)
                if live is not None:
                    self.matches[live.id] = live
            return
        alive = self.store.last_beat()
        settled: list[tuple[str, dict[str, Any]]] = []
        for stored in self.store.load_live():
            try:
                live = self._rebuild(stored, now)
            except Exception as exc:  # a game's code (or its absence) stops its own match only
                log.error("match %s cannot be replayed and is not served: %r", stored.row.id, exc)
                continue
            self.matches[live.id] = live
            if live.status == "running":
                self._settle(live, stored, alive)
                self._arm(live)
                settled.append((live.id, live.clocks.to_json()))
        self.store.settle(settled, now)

    @staticmethod
    def _settle(live: LiveMatch, stored: StoredMatch, alive: float | None) -> None:
        """A reloaded running match's clocks: charged up to ``alive``, the last moment its
        server was known up, and resumed from now: the time it was down is charged to no one."""
        if alive is not None and alive > stored.row.clock_at:
            live.clocks = clk.charge_between(live.clocks, stored.row.clock_at, alive, live.pace)

    # ------------------------------------------------------------- analysis jobs (several processes)

    async def stored_job(self, job_id: str) -> AnalysisJobRow | None:
        """A replay analysis job as stored by the process that ran it, or None."""
        return await self._db(self.store.load_job, job_id)

    def save_jobs(self, jobs: list[dict[str, Any]]) -> None:
        """Store the states of this process's replay analysis jobs (several processes:
        another one answers for them once this one is gone).  Runs in the caller's thread."""
        assert self.cluster is not None
        self.store.save_jobs(self.cluster.id, jobs, self.now())

    async def job_gone(self, job_id: str) -> None:
        """The process running ``job_id`` is gone: a job it had queued or running has failed."""
        await self._db(self.store.fail_job, job_id, JOB_GONE, self.now())

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
        if self._pool is not None:
            pool, self._pool = self._pool, None
            stop_pool(pool)  # the workers are ended and reaped: none outlives the server
        self._store_pool.shutdown(wait=True, cancel_futures=True)

    # ------------------------------------------------------------- lookups

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

    async def find(self, match_id: str) -> LiveMatch:
        """Any match: from memory, or an ended one read back from the database and rebuilt
        by replay (it stays in memory for ``keep_ended`` seconds after its last use)."""
        match = self.matches.get(match_id)
        if match is None:
            if len(match_id) > 64:
                raise self._unknown(match_id)
            loaded = await self._db(self._read_ended, match_id)
            if loaded is None:
                raise self._unknown(match_id)
            match = self.matches.setdefault(match_id, loaded)  # another request may have read it too
        if match.ended:
            match.touched = self.now()
        return match

    def _read_ended(self, match_id: str) -> LiveMatch | None:
        """An ended match rebuilt from the database (in a store thread), or None.  A running
        match missing from memory could not be replayed at start-up: it is not served."""
        stored = self.store.load_match(match_id)
        if stored is None:
            return None
        if stored.row.status == "running":
            if self.cluster is not None:  # another process owns it (or is about to): not "no such match"
                raise OwnerUnavailable("owner_unavailable", f"match {match_id} is held by another server process that"
                                       " cannot be reached now; try again shortly")
            return None
        try:
            return self._rebuild(stored, self.now())
        except (ValueError, KeyError) as exc:
            log.error("match %s cannot be replayed and is not served: %s", match_id, exc)
            return None

    def sweep(self) -> int:
        """Let ended matches leave memory: those unused for ``keep_ended`` seconds, and the
        least recently used beyond ``max_ended``; never one with a listener or a request
        under way.  Returns how many left."""
        now = self.now()
        ended = sorted((m for m in self.matches.values() if m.ended), key=lambda m: m.touched)
        over = len(ended) - self.max_ended
        gone = 0
        for match in ended:
            if match.subscribers or match.lock.locked() or match.thinking:
                continue
            if gone < over or now - match.touched >= self.keep_ended:
                del self.matches[match.id]
                gone += 1
        if len(self._alarms) > 2 * len(self.matches) + 1000:  # stale alarms of ended matches: start afresh
            self._alarms = []
            for match in self.matches.values():
                match.alarm = None
        for match in self.matches.values():  # every few seconds, not every tick: an alarm missed is set again
            self._arm(match)
        return gone

    async def login(self, token: str | None, what: str = "this request") -> HostLogin:
        """The host ``token`` logs in as: Unauthenticated without a token, NotPermitted
        ``wrong_token`` if it is no host's, ``revoked`` if its link was revoked."""
        if not token:
            raise Unauthenticated("missing_token", f"{what} needs a host token (Authorization: Bearer <token> or ?token=)")
        digest = token_hash(token)
        login = await self._db(self.store.host_of, digest)
        if login is None:
            raise NotPermitted("wrong_token", "the token is not a host token of this server")
        self._check_login(login)
        if login.until_used:  # the link a start printed: used now, so it stays (and this browser logged in)
            await self._db(self.store.mark_used, digest)
        return login

    def _check_login(self, login: HostLogin) -> None:
        if login.revoked:
            raise NotPermitted("revoked", "this host link was revoked; log in with another link of the host")
        if login.expired(self.now()):
            raise NotPermitted("expired", "this host link has expired; ask the host for a new one "
                               "(or, on the server, run: blackwhite hosts new-link)")

    @staticmethod
    def _owner_scope(login: HostLogin, what: str) -> None:
        """Only a link of scope ``owner`` manages links and co-hosts."""
        if login.scope != "owner":
            raise NotPermitted("scope", f"this host link may create and run matches only; {what} needs an owner link")

    async def role_for(self, match: LiveMatch, token: str | None) -> Role:
        """The role ``token`` has in ``match``: a seat, the spectators, or a host (its
        owner's or a co-host's login link, not revoked); Unauthenticated or NotPermitted if none."""
        if not token:
            raise Unauthenticated("missing_token", "this request needs a token (Authorization: Bearer <token> or ?token=)")
        digest = token_hash(token)
        role = match.guest_role(digest)
        if role is not None:
            return role
        login = await self._host_login(match, digest)
        if login is not None:
            self._check_login(login)
        if login is not None and match.hosted_by(login.host_id):
            if login.until_used:  # the link a start printed, opened on a match page: used
                await self._db(self.store.mark_used, digest)
            return Role("host")
        if login is None:  # a player's login plays the seat bound to it (players.py), read from the database
            player, seat = await self._db(self.players.seat_rights, digest, match.id)
            if player is not None:
                if player.revoked:
                    raise NotPermitted("revoked", "this player link was revoked; log in with another link of yours")
                if player.expired(self.now()):
                    raise NotPermitted("expired", "this player link has expired; ask your host for a new one")
                if seat is not None:
                    if player.until_used or player.claimed is None:
                        await self._db(self.players.mark_used, digest, self.now())
                    return Role("seat", seat)
        if self.seat_keys is not None:
            seat = await self.seat_keys(match.id, digest)
            if seat is not None:
                return Role("seat", seat)
        raise NotPermitted("wrong_token", f"the token is not valid for match {match.id}")

    async def _host_login(self, match: LiveMatch, digest: str) -> HostLogin | None:
        """What a token logs in as, with who controls ``match`` read afresh beside it (one
        round trip): rights are decided on what is stored, whichever process or command
        changed them (a merge, a co-host dropped on another process)."""
        seen = match.hosts_changed
        login, stored = await self._db(self.store.host_rights, digest, match.id)
        if stored is not None:
            match.stored_hosts(stored, seen)
        return login

    async def host_matches(self, token: str | None) -> list[dict[str, Any]]:
        """The summaries of the matches the token's host owns or co-hosts, oldest first:
        those in memory as they are, ended ones from their stored rows (no replay)."""
        login = await self.login(token, "listing matches")
        rows = await self._db(self.store.host_rows, login.host_id)
        out = []
        remote = await self._remote_summaries([r.id for r in rows if r.status == "running" and r.id not in self.matches],
                                              token or "")
        for row in rows:
            if row.id in remote:
                out.append(remote[row.id])
                continue
            live = self.matches.get(row.id)
            if live is None and row.status != "running" and row.public_version is None:
                try:  # ended before public versions were stored: replayed once, here
                    live = await self.find(row.id)
                except Refused:
                    continue
            if live is not None:
                out.append(self.summary(live, hosting=True))
            elif row.status != "running":
                out.append(self._row_summary(row))
        return out

    # ------------------------------------------------------------- hosts and their links

    def owner_login(self, label: str, expires_in: float | None = None) -> str:
        """A fresh login link (its token) of the server's own host, made at the first
        start: every start prints one, and every earlier match stays that host's.
        ``expires_in``: the link stops logging in after that many seconds unless it is
        used first (so restarts do not pile up live links); None: it never expires."""
        token = secrets.token_urlsafe(24)
        now = self.now()
        self.store.owner_link(secrets.token_hex(8), token_hash(token), now, label,
                              None if expires_in is None else now + expires_in)
        return token

    @staticmethod
    def link_entry(row: HostRow, digest: str | None = None) -> dict[str, Any]:
        """How the API shows a login link (never its token)."""
        return {"id": row.link_id, "label": row.label, "created": row.created, "revoked": row.revoked,
                "scope": row.scope or "owner", "expires": row.expires, "until_used": bool(row.until_used),
                "this": row.token_hash == digest}

    async def host_info(self, token: str | None) -> dict[str, Any]:
        """The token's host: its id (what a co-host is named by), what this link may do, and
        the host's login links (a link of scope ``matches`` sees only itself)."""
        login = await self.login(token)
        digest = token_hash(token or "")
        links = await self._db(self.store.links, login.host_id)
        if login.scope != "owner":
            links = [r for r in links if r.token_hash == digest]
        return {"id": login.host_id, "scope": login.scope, "links": [self.link_entry(r, digest) for r in links]}

    async def new_link(self, token: str | None, label: str | None, scope: str = "owner",
                       expires_in: float | None = None) -> dict[str, Any]:
        """Another login link of the token's host (its token is shown only now): only an
        owner link makes links; ``scope`` ``matches`` limits the new one to creating and
        running matches; ``expires_in`` seconds from now it stops logging in."""
        login = await self.login(token)
        self._owner_scope(login, "making a link")
        if scope not in LINK_SCOPES:
            raise Invalid("bad_scope", f"a link's scope is one of {', '.join(LINK_SCOPES)}; got {scope[:20]!r}")
        fresh = secrets.token_urlsafe(24)
        digest = token_hash(fresh)
        now = self.now()
        expires = None if expires_in is None else now + expires_in
        await self._db(self.store.add_link, login.host_id, digest, now, label, scope, expires)
        return {"id": digest[:LINK_ID], "label": label, "token": fresh, "scope": scope, "expires": expires}

    async def revoke_link(self, token: str | None, link_id: str) -> dict[str, Any]:
        """Revoke one of the host's links (the one in use too: the request after is refused,
        and every socket opened with it is closed within a second, on every process)."""
        login = await self.login(token)
        self._owner_scope(login, "revoking a link")
        row = await self._db(self.store.revoke, login.host_id, link_id, self.now())
        if row is None:
            shown = link_id if len(link_id) <= 40 else link_id[:40] + "..."
            raise Unknown("unknown_link", f"host {login.host_id} has no link {shown!r}")
        await self.recheck_hosts()
        return self.link_entry(row)

    async def set_cohost(self, match_id: str, token: str | None, host_id: str, add: bool) -> dict[str, Any]:
        """Name (or drop) a co-host of a match: only its owner may."""
        match = await self.find(match_id)
        login = await self.login(token)
        self._owner_scope(login, "naming co-hosts")
        await self._host_login(match, token_hash(token or ""))  # who owns it now, as stored
        if login.host_id != match.host_id:
            raise NotPermitted("wrong_token", f"only the owner of match {match.id} may name its co-hosts")
        if add and host_id == match.host_id:
            raise Invalid("bad_cohost", f"host {host_id} owns match {match.id} already")
        if add and not await self._db(self.store.host_known, host_id):
            shown = host_id if len(host_id) <= 40 else host_id[:40] + "..."
            raise Unknown("unknown_host", f"there is no host {shown!r} on this server")
        async with match.lock:
            if match.dropped:
                raise self._moved(match)
            cohosts = [h for h in match.cohosts if h != host_id] + ([host_id] if add else [])
            if cohosts != match.cohosts:
                if match.status == "running":  # fenced like every write of a running match
                    await self._fenced(match, {"cohosts": cohosts})
                else:  # an ended match is final: no process moves it on, nothing to fence
                    await self._db(self.store.update, match.id, {"cohosts": cohosts})
                match.cohosts = cohosts
                match.hosts_changed += 1
        if not add:  # a dropped co-host's sockets close now
            await self.recheck_hosts(match.id)
        return self.summary(match, hosting=True)

    async def _remote_summaries(self, match_ids: list[str], token: str) -> dict[str, dict[str, Any]]:
        """The summaries of running matches other processes own, asked of each owner with
        the same token (one that nobody holds is taken over here and summarised)."""
        if self.cluster is None or not match_ids:
            return {}

        async def one(match_id: str) -> tuple[str, dict[str, Any] | None]:
            owner = await self.owner_of(match_id)
            if owner is None:
                await self.adopt(match_id)
                live = self.matches.get(match_id)
                return match_id, None if live is None else self.summary(live, hosting=True)
            if owner.url is None or self.relay is None:
                return match_id, None
            try:
                status, _headers, body = await self.relay.request(
                    owner.url, "GET", f"/api/matches/{match_id}", [(b"authorization", f"Bearer {token}".encode())], b"")
            except (ConnectionError, OSError) as exc:  # OwnerGone is one
                log.warning("the summary of match %s could not be asked of its owner: %r", match_id, exc)
                return match_id, None
            return match_id, json.loads(body) if status == 200 else None

        found = await asyncio.gather(*(one(m) for m in match_ids))
        return {m: summary for m, summary in found if summary is not None}

    @staticmethod
    def _row_summary(row: MatchRow) -> dict[str, Any]:
        """The summary of an ended match from its row: what :meth:`summary` says of it."""
        return {
            "id": row.id, "game": row.game, "options": row.options, "seats": row.seats, "status": row.status,
            "to_move": [], "version": row.public_version, "created": row.created, "host_sees_all": row.host_sees_all,
            "start": MatchService._row_start(row), "waiting": None,
            "pace": Pace.from_json(row.pace).to_json(),
            "host": row.host_id, "cohosts": list(row.cohosts or []),
        }

    @staticmethod
    def _row_start(row: MatchRow) -> dict[str, Any]:
        """:meth:`LiveMatch.start_info` of an ended match, from its row."""
        started = bool((row.clocks or {}).get("started", True))
        joined = list(row.joined or [])
        waiting = [i for i, s in enumerate(row.seats) if "bot" not in s and not (i < len(joined) and joined[i])]
        return {"policy": row.start or "now", "at": row.start_at, "started": started,
                "waiting_for": [] if started else waiting}

    # ------------------------------------------------------------- payloads

    def readings(self, match: LiveMatch) -> clk.Clocks:
        """Clock readings as of now (a running match's awaited seats are charged up to now).
        Several processes: never later than ``SERVE_SLACK`` after this process's last stored
        heartbeat, the moment a process taking the match over charges up to."""
        if match.status != "running":
            return match.clocks
        now = self.now()
        if self.cluster is not None and self.cluster.beaten is not None:
            now = min(now, max(match.clock_at, self.cluster.beaten + SERVE_SLACK))
        return clk.charge_between(match.clocks, match.clock_at, now, match.pace)

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
        self._after_fault(match)
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

    # ------------------------------------------------------------- creating

    async def create(self, host_token: str | None, game_id: str, options: dict[str, Any], seats: list[dict[str, Any]],
                     host_sees_all: bool, paused: bool = False, start: str = "when_joined",
                     start_at: float | None = None, address: str | None = None,
                     emails: dict[int, str] | None = None, pace: Pace = LIVE, seed: int | None = None) -> NewMatch:
        """Make and store a match (its clocks start as ``start`` says): its id, links' tokens, summary.
        ``seed`` draws its chance events and seeds its bots (a season's simulation: the same
        seed, the same match); None: a fresh random one.
        The running matches are counted in the database as it is stored (:attr:`quotas`):
        per host (an anonymous host's few, whichever of its links is used), per client
        ``address`` of anonymous hosts (an IPv6 one by its /64), bot-only ones per host,
        and overall; over a bound, OverQuota ``too_many_matches`` and nothing is stored."""
        self._check_start(start, start_at)
        key = client_key(address)
        # who was just refused is refused again without building a match or a transaction,
        # until a match ends here or a second has passed (one ending on another process)
        asker = token_hash(host_token) if host_token else key
        if seats and all(isinstance(seat, dict) and "bot" in seat for seat in seats):
            asker += "/bots"  # bot-only matches have a bound of their own
        for who in (asker, "*"):
            refusal = self._full.get(who)
            if refusal is not None and self.now() < refusal[0]:
                raise refusal[1]
        try:
            return await self._create(self.new_id(), host_token, game_id, options, seats, host_sees_all,
                                      paused, start, start_at, key, emails or {}, pace, seed)
        except OverQuota as exc:
            if len(self._full) > 10_000:
                self._full.clear()
            self._full["*" if "the server has" in exc.message else asker] = (self.now() + FULL_FOR, exc)
            raise

    async def _create(self, match_id: str, host_token: str | None, game_id: str, options: dict[str, Any],
                      seats: list[dict[str, Any]], host_sees_all: bool, paused: bool, start: str,
                      start_at: float | None, address: str, emails: dict[int, str] | None = None,
                      pace: Pace = LIVE, seed: int | None = None) -> NewMatch:
        new_host = None
        if host_token:
            host_id = (await self.login(host_token)).host_id
            host_hash = token_hash(host_token)
        else:  # a new host, whose first link is this token
            host_token = secrets.token_urlsafe(24)
            host_hash = token_hash(host_token)
            host_id = secrets.token_hex(8)
            new_host = self.now()
        bound: dict[int, str] = {}
        if any(isinstance(s, dict) and s.get("player") is not None for s in seats):
            if new_host is not None:
                raise Unknown("unknown_player", "a match made without a host token seats no players "
                                                "(a host seats the players it made)")
            seats, bound = await self._db(resolve_seats, self.players, host_id, seats)
        game, state = self._make(game_id, options)
        clean_seats = self._check_seats(game_id, game.num_seats, seats)
        now = self.now()
        if seed is None:
            seed = secrets.randbits(62)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
            raise Invalid("bad_seed", f"a match's seed is a whole number 0..2**62-1, got {seed!r}")
        rows: list[dict[str, Any]] = []
        self._draw_chance(state, seed, rows, now)
        joined = ["bot" in s for s in clean_seats]
        ready = (start == "now" or (start == "when_joined" and all(joined))
                 or (start == "at" and start_at is not None and start_at <= now))
        clocks = clk.set_started(clk.set_paused(clk.initial(pace.rule(game.clock_rule()), state, pace.match_seconds), paused), ready)
        for row in rows:
            row["clocks"] = clocks.to_json()
        # A bot's seat gets a watch token (that seat's view; it may not act) only where
        # that tells nobody playing anything new: when every seat is a bot, or when the
        # host sees everything anyway.  Otherwise a host who also plays could read the
        # bot's hand.
        watchable = host_sees_all or all("bot" in s for s in clean_seats)
        seat_tokens: list[str | None] = [
            None if i in bound else secrets.token_urlsafe(24) if watchable or "bot" not in s else None
            for i, s in enumerate(clean_seats)
        ]
        spectator_token = secrets.token_urlsafe(24)
        live = LiveMatch(
            id=match_id, game_id=game.id, options=game.given_options(), seats=clean_seats, host_hash=host_hash,
            seat_hashes=[token_hash(t) if t else None for t in seat_tokens],
            spectator_hash=token_hash(spectator_token), host_sees_all=host_sees_all, status="running",
            seed=seed, created=now, state=state, version=len(rows), clocks=clocks, clock_at=now,
            step_version=len(rows), host_id=host_id, start=start, start_at=start_at if start == "at" else None, joined=joined,
            pace=pace,
        )
        if state.is_over():
            live.status = "finished"
        live.look(step_opened=True, start=True)
        if self.cluster is not None:  # this process owns what it creates (the lock before the row: no one scans it first)
            if self._relock_needed:
                async with self._adopting:
                    await self._relock()
            try:
                try:
                    locked = await self._db(self.cluster.try_lock, match_id)
                except ConnectionError:  # found dead now (its lease was taken, say): the locks again, once
                    self._relock_needed = True
                    async with self._adopting:
                        await self._relock()
                    locked = await self._db(self.cluster.try_lock, match_id)
            except ConnectionError:
                self._relock_needed = True
                raise StoreUnavailable("store_unavailable", "the server lost its database connection; try again") from None
            if not locked:
                raise StoreUnavailable("store_unavailable", "the new match's id is locked by another process; try again")
            self._held.add(match_id)
        try:
            await self._db(self.store.create_match, {
                "id": live.id, "game": live.game_id, "options": live.options, "seats": live.seats,
                "host_hash": host_hash, "seat_hashes": live.seat_hashes, "spectator_hash": live.spectator_hash,
                "host_sees_all": host_sees_all, "status": live.status, "paused": paused, "seed": seed,
                "created": now, "version": live.version, "clocks": clocks.to_json(), "clock_at": now,
                "public_version": live.seen[None][0] if live.ended else None,
                "start": live.start, "start_at": live.start_at, "joined": joined,
                "host_id": host_id, "cohosts": [], "bot_only": all("bot" in s for s in clean_seats),
                "pace": pace.to_json(),
            }, rows, new_host, self.quotas, address, PlayerStore.binding(match_id, bound, now) if bound else None,
                  seat_email_rows(match_id, emails or {}))
        except QuotaExceeded as exc:
            if self.cluster is not None:
                await self._db(self._release_now, match_id)
            raise self._over_quota(exc) from None
        except BaseException:
            if self.cluster is not None:
                with contextlib.suppress(Exception):
                    await self._db(self._release_now, match_id)
            raise
        live.touched = now
        self.matches[live.id] = live
        if self.cluster is not None:
            await self._db(self.cluster.owned, live.id, now)
            if live.ended:
                await self._release(live)
        self._schedule_bots(live)
        self._tell_watchers(live)
        return NewMatch(live.id, host_token, new_host is not None, spectator_token, seat_tokens, self.summary(live),
                        [bound.get(i) for i in range(len(clean_seats))])

    @staticmethod
    def _over_quota(exc: QuotaExceeded) -> OverQuota:
        what = {
            "total": "the server has {n} running matches, the most it takes; try again later",
            "host": "this host has {n} running matches, the most it may; end one first",
            "address": "this address has {n} running matches made by hosts without a link from the operator, "
                       "the most it may; end one, or ask the operator for a host link",
            "bots": "this host has {n} running matches of bots only, the most it may; end one first",
        }[exc.kind]
        return OverQuota("too_many_matches", what.format(n=exc.count))

    @staticmethod
    def _check_start(start: str, start_at: float | None) -> None:
        """Invalid ``bad_start`` unless ``start`` is a policy and ``start_at`` is given exactly for ``at``."""
        if start not in START_POLICIES:
            raise Invalid("bad_start", f"start is one of {', '.join(START_POLICIES)}; got {start[:40]!r}")
        if start == "at":
            if start_at is None or not math.isfinite(start_at) or start_at <= 0:
                raise Invalid("bad_start", "start 'at' needs start_at, a moment in Unix seconds")
        elif start_at is not None:
            raise Invalid("bad_start", f"start_at is given only with start 'at' (start is {start!r})")

    @classmethod
    def default_seats(cls, game_id: str, options: dict[str, Any]) -> list[dict[str, Any]]:
        """A person per seat of the game, named P1, P2...: the seats of a match created
        without any; Invalid ``bad_game`` / ``bad_options`` as :meth:`create` would say."""
        return [{"name": f"P{i + 1}"} for i in range(cls._make(game_id, options)[0].num_seats)]

    @staticmethod
    def _make(game_id: str, options: dict[str, Any]) -> tuple[Game, State]:
        """The game and its first state, or Invalid ``bad_game`` / ``bad_options`` naming the problem."""
        try:
            game = make_game(game_id, options)
            return game, game.new_initial_state()
        except UnknownGameError as exc:
            raise Invalid("bad_game", str(exc)) from None
        except OptionError as exc:
            raise Invalid("bad_options", f"options {options!r} for {game_id}: {exc}") from None
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            # a value of a type the game's own check did not expect: still the caller's options
            raise Invalid("bad_options", f"options {options!r} for {game_id} are not valid: {exc!r}") from None
        except Exception as exc:  # the game's own code failed to set up a match: nothing is made
            log.error("game %s failed to start a match with options %r", game_id, options, exc_info=exc)
            raise Invalid("bad_game", f"the game {game_id} failed to start a match "
                                      f"({type(exc).__name__}: {str(exc)[:200]}); its package needs fixing") from None

    @staticmethod
    def _check_seats(game_id: str, n: int, seats: list[dict[str, Any]]) -> list[dict[str, str]]:
        if len(seats) != n:
            raise Invalid("bad_seats", f"{game_id} is played by {n} seats; {len(seats)} were given")
        out: list[dict[str, str]] = []
        for i, seat in enumerate(seats):
            name, bot = seat.get("name"), seat.get("bot")
            if (name is None) == (bot is None):
                raise Invalid("bad_seats", f"P{i + 1} must have exactly one of 'name' (a person) or 'bot' (a bot spec)")
            if name is not None:
                wrong = names.problem(name)
                if wrong is not None:
                    raise Invalid("bad_seats", f"P{i + 1}'s name: {wrong}")
                out.append({"name": names.clean(name)})
            else:
                if not isinstance(bot, str) or len(bot) > 200:
                    raise Invalid("bad_seats", f"P{i + 1}: a bot is a spec such as 'ismcts:budget=2', got {bot!r}")
                try:
                    botseats.check_spec(bot)
                except ValueError as exc:
                    raise Invalid("bad_seats", f"P{i + 1}: {exc}") from None
                out.append({"bot": bot.strip()})
        return out

    # ------------------------------------------------------------- playing

    def _draw_chance(self, state: State, seed: int, rows: list[dict[str, Any]], now: float) -> None:
        """Draw every chance event now due, each written as an explicit event row."""
        while state.is_chance():
            index = len(state.history)
            event = state.sample_chance(_chance_rng(seed, index))
            state.apply_chance(event, drawn=True)
            rows.append(_event_row(None, None, event.to_json(), index, now, {}))  # readings: once the step is known

    async def _commit_action(self, match: LiveMatch, seat: int, text: str) -> None:
        """The one checked path for persons, bots and timeouts: apply to a copy, commit, swap, tell.
        Called under ``match.lock``: nothing else changes the match while the commit is awaited."""
        now = self.now()
        state = match.state.clone()
        before = clk.awaited_seats(state)
        charged = clk.charge_between(match.clocks, match.clock_at, now, match.pace)
        try:
            action = state.parse(seat, text)
        except ActionSyntaxError as exc:
            raise Invalid("notation", str(exc)) from None
        except Exception as exc:  # a game's parser tripping on odd text: still unreadable notation
            log.warning("parsing %r for %s raised %r", text, match.game_id, exc)
            raise Invalid("notation", f"{text!r} is not notation of {match.game_id}") from None
        try:
            state.apply(seat, action)  # on a copy: whatever it raises, the match is untouched
        except GameOverError as exc:
            raise WrongState("match_over", str(exc)) from None
        except NotYourTurnError as exc:
            raise WrongState("not_your_turn", str(exc)) from None
        except IllegalActionError as exc:
            raise Invalid("illegal", str(exc)) from None
        except Exception as exc:  # not a refusal of the rules: the game's code failed
            raise self._game_failed(match, "apply", exc) from None
        try:  # still the game's code (chance, clock phases, the end, the public view)
            free = state.is_free(action) and action != RESIGN
            index = len(match.state.history)
            rows = [_event_row(seat, botseats.action_text(state, action), None, index, now, {})]
            self._draw_chance(state, match.seed, rows, now)
            clocks = clk.after_event(charged, match.rule(), state, before, set() if free else {seat})
            readings = clocks.to_json()
            for row in rows:
                row["clocks"] = readings
            status = "finished" if state.is_over() else match.status
            version = match.version + len(rows)
            public = match.public_version_after(state, status) if status != "running" else None
        except Exception as exc:
            raise self._game_failed(match, "rules after the action", exc) from None
        if match.dropped:
            raise self._moved(match)
        try:
            await self._db(self.store.append, match.id, rows, {"version": version, "status": status, "clocks": readings,
                                                               "clock_at": now, "public_version": public}, match.version,
                           match.epoch if self.cluster is not None else None)
        except StaleWrite:
            self._drop(match, "another process took it over (its version or epoch moved on)")
            raise self._moved(match) from None
        match.state, match.version, match.clocks, match.clock_at, match.status = state, version, clocks, now, status
        match.touched = now
        opened = not state.pending and not free
        if opened:
            # a side action (an item use, a proposal) opens no new step: answers to the
            # step under way stay valid, and a flood of proposals cannot stall the other seat
            match.step_version = version
        self.metrics.actions.inc()
        self._broadcast(match, match.look(opened))
        self._after_fault(match)
        self._schedule_bots(match)
        if match.ended:
            await self._release(match)
            for hook in self.on_ended:
                hook(match.id)

    async def submit(self, match_id: str, token: str | None, text: str, version: int, *,
                     answer_view: bool = True) -> dict[str, Any]:
        """A seat's action; the answer comes only after it is committed.  A socket's ack
        needs only the version (its view is pushed anyway): ``answer_view=False``."""
        match = self.get(match_id)
        role = await self.role_for(match, token)
        if role.kind != "seat" or role.seat is None:
            raise NotPermitted("wrong_token", f"only a seat's token may act in match {match.id}; this is the {role.kind}'s")
        bot = match.seats[role.seat].get("bot")
        if bot is not None:
            raise NotPermitted("wrong_token", f"P{role.seat + 1} of match {match.id} is played by bot {bot!r}; its link only watches")
        await self.join(match, role)
        async with match.lock:
            if match.dropped:  # let go while this waited: what memory says of it is no longer the match
                raise self._moved(match)
            self._check_open(match)
            mine, began = match.version_for(role), match.seen_step.get(role.seat, match.step_version)
            if not began <= version <= mine:
                raise WrongState("stale_version", f"version {version} is stale: you are at version {mine} of match {match.id} (the step now open began at your version {began}); reload the view")
            if text.strip().lower() == "timeout":
                raise Invalid("illegal", "timeout: only the server's clock applies a timeout; send an action or resign")
            await self._commit_action(match, role.seat, text)
            if not answer_view:
                return {"version": match.version_for(role)}
            payload = self.view_payload(match, role)
        return {"version": payload["version"], "view": payload["view"], "clocks": payload["clocks"]}

    @staticmethod
    def _check_open(match: LiveMatch) -> None:
        if match.status != "running":
            raise WrongState("match_over", f"match {match.id} is {match.status}; no further action is taken")
        if match.paused:
            raise WrongState("paused", f"match {match.id} is paused by its host; actions wait for resume")
        if not match.started:
            raise WrongState("not_started", f"match {match.id} has not started: {match.waiting_text()}")

    # ------------------------------------------------------------- the start

    async def join(self, match: LiveMatch, role: Role) -> None:
        """A seat opened its link (a page, a view, a socket, an action): note it once,
        and start the clocks of a ``when_joined`` match once every person has.  Once a
        match has started or ended nothing waits on who joined, so nothing is written: a
        seat's first look at it is a pure read, answered at once even while another
        process holds the database's lock."""
        seat = role.seat
        if role.kind != "seat" or seat is None or match.joined_seat(seat) or not match.waiting():
            return
        async with match.lock:
            if match.dropped:
                raise self._moved(match)
            if match.joined_seat(seat) or not match.waiting():
                return
            joined = [match.joined_seat(i) for i in range(len(match.seats))]
            joined[seat] = True
            changes: dict[str, Any] = {"joined": joined}
            now = self.now()
            begin = (match.status == "running" and not match.started and match.start == "when_joined"
                     and all(joined))
            clocks = clk.set_started(match.clocks, True) if begin else match.clocks
            if begin:
                changes.update(clocks=clocks.to_json(), clock_at=now)
            if match.status == "running":
                await self._fenced(match, changes)
            else:  # an ended match is final: no process moves it on, nothing to fence
                await self._db(self.store.update, match.id, changes)
            match.joined = joined
            if begin:
                match.clocks, match.clock_at = clocks, now
            self._broadcast(match)
            if begin:
                self._schedule_bots(match)

    async def _begin(self, match: LiveMatch) -> None:
        """Start the clocks now (the caller holds the match's lock): store, then tell."""
        now = self.now()
        clocks = clk.set_started(match.clocks, True)
        await self._fenced(match, {"clocks": clocks.to_json(), "clock_at": now})
        match.clocks, match.clock_at = clocks, now
        self._broadcast(match)
        self._schedule_bots(match)

    async def start_now(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The host starts a waiting match by hand (whoever has not joined is charged from now)."""
        async with self._controlling(match_id, token, "start it") as match:
            if match.started:
                raise WrongState("already_started", f"the clocks of match {match.id} have already started")
            await self._begin(match)
        return self.summary(match, hosting=True)

    # ------------------------------------------------------------- the host's controls

    async def _host(self, match: LiveMatch, token: str | None, what: str) -> None:
        if (await self.role_for(match, token)).kind != "host":
            raise NotPermitted("wrong_token", f"only the host of match {match.id} may {what}")

    @contextlib.asynccontextmanager
    async def _controlling(self, match_id: str, token: str | None, what: str,
                           over: str = "is") -> AsyncIterator[LiveMatch]:
        """A host's control of a running match: the token is a host's of it, the match's
        lock is held, and an ended match is refused (``match_over``: "match M {over} S")."""
        match = self.get(match_id)
        await self._host(match, token, what)
        async with match.lock:
            if match.dropped:  # let go while this waited (another process owns it now)
                raise self._moved(match)
            if match.status != "running":
                raise WrongState("match_over", f"match {match.id} {over} {match.status}")
            yield match

    async def cancel(self, match_id: str, token: str | None) -> dict[str, Any]:
        async with self._controlling(match_id, token, "cancel it", over="is already") as match:
            await self._stop(match)
        return self.summary(match, hosting=True)

    async def _stop(self, match: LiveMatch) -> None:
        """Cancel a running match (under its lock): clocks stopped, stored, told, let go."""
        now = self.now()
        charged = clk.charge_between(match.clocks, match.clock_at, now, match.pace)
        stopped = replace(charged, seats=tuple(clk.SeatClock(False, 0.0, s.reserve_left) for s in charged.seats),
                          phase_seconds=0.0)
        await self._fenced(match, {"status": "cancelled", "clocks": stopped.to_json(), "clock_at": now,
                                   "public_version": match.version_for(Role("spectator"))})
        match.status, match.clocks, match.clock_at, match.touched = "cancelled", stopped, now, now
        self._broadcast(match)
        await self._release(match)

    def _game_failed(self, match: LiveMatch, where: str, exc: BaseException) -> WrongState:
        """The game's own code raised on an action (nothing of it was played): the
        match is paused and its host told; the refusal the sender gets."""
        match.faulted(where, exc)
        self._after_fault(match)
        return WrongState("game_fault", f"the game {match.game_id} failed on this action (nothing was played); "
                                        f"match {match.id} is paused and its host told")

    def _after_fault(self, match: LiveMatch) -> None:
        """Pause a match whose game has just failed (once per fault), in a task of its
        own: the caller may hold the match's lock."""
        if match.fault is None or match.fault_paused or match.status != "running":
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        match.fault_paused = True
        task = loop.create_task(self._pause_for_fault(match))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _pause_for_fault(self, match: LiveMatch) -> None:
        """Pause the match (stored, like a host's pause) and push it: its host sees the fault."""
        try:
            async with match.lock:
                if match.dropped or match.status != "running":
                    return
                if not match.paused:
                    now = self.now()
                    clocks = clk.set_paused(clk.charge_between(match.clocks, match.clock_at, now, match.pace), True)
                    await self._fenced(match, {"paused": True, "clocks": clocks.to_json(), "clock_at": now})
                    match.clocks, match.clock_at = clocks, now
                self._broadcast(match)
        except Exception:  # the store is down, or the match moved: its host may pause it by hand
            log.exception("pausing match %s after its game failed did not succeed", match.id)

    async def pause(self, match_id: str, token: str | None, paused: bool) -> dict[str, Any]:
        async with self._controlling(match_id, token, "pause or resume it") as match:
            if not paused:  # the host resumes: a new failure of the game pauses it again
                match.fault, match.fault_paused = None, False
            if match.paused != paused:
                now = self.now()
                clocks = clk.set_paused(clk.charge_between(match.clocks, match.clock_at, now, match.pace), paused)
                await self._fenced(match, {"paused": paused, "clocks": clocks.to_json(), "clock_at": now})
                match.clocks, match.clock_at = clocks, now
                self._broadcast(match)
                if not paused:
                    self._schedule_bots(match)
        return self.summary(match, hosting=True)

    async def add_time(self, match_id: str, token: str | None, seat: int | None, seconds: float) -> dict[str, Any]:
        async with self._controlling(match_id, token, "give time") as match:
            now = self.now()
            try:
                clocks = clk.add_time(clk.charge_between(match.clocks, match.clock_at, now, match.pace), seat, seconds, match.pace.extra_time_cap())
            except ValueError as exc:
                raise Malformed("bad_request", str(exc)) from None
            await self._fenced(match, {"clocks": clocks.to_json(), "clock_at": now})
            match.clocks, match.clock_at = clocks, now
            self._broadcast(match)
            return clocks.to_json()

    # ------------------------------------------------------------- clocks

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
                idle = idle_expiry(self.quotas, match.created, match.pace.stretch())
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
        now = self.now()
        # the alarms due now, taken first: one a look sets again (a match still due after
        # it) waits for the next tick, so a tick always ends and the event loop runs on
        due = []
        while self._alarms and self._alarms[0][0] <= now:
            due.append(heapq.heappop(self._alarms))
        for when, match_id in due:
            match = self.matches.get(match_id)
            if match is None or match.alarm != when:  # gone, or an alarm set again since
                continue
            match.alarm = None
            try:
                await self._look(match, now)
            finally:
                self._arm(match)

    async def _look(self, match: LiveMatch, now: float) -> None:
        if match.status == "running" and not match.started:
            idle = idle_expiry(self.quotas, match.created, match.pace.stretch()) if match.start == "when_joined" else None
            if idle is not None and idle <= now:
                async with match.lock:
                    if match.status == "running" and not match.started and not match.dropped:
                        try:
                            await self._stop(match)
                        except Refused:  # the database is down or locked (logged): the next sweep tries again
                            return
                        log.info("match %s cancelled: nobody came within %g s of its creation", match.id,
                                 idle - match.created)
                return
            if match.start_at is not None and match.start_at <= now:
                async with match.lock:
                    if not match.started and match.status == "running":
                        try:
                            await self._begin(match)
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
                spent = clk.expired(clk.charge_between(match.clocks, match.clock_at, self.now(), match.pace))
                if not spent:
                    break
                # readings clamp at zero, so order by the time each had at the last
                # reading: after a stall (or a step nobody answered) the seat that
                # ran out first is the one the clock blames
                spent.sort(key=lambda s: match.clocks.seats[s].left)
                try:
                    await self._commit_action(match, spent[0], "timeout")
                except Refused as exc:  # the engine refused: log it, do not loop on it
                    if exc.code != "store_unavailable":  # (that one is logged; the next tick tries again)
                        log.error("timeout of seat %s in match %s refused: %s", spent[0], match.id, exc.message)
                    break

    async def run_clock(self, interval: float = 0.1, beat_every: float = 1.0) -> None:
        """Fire timeouts every ``interval`` seconds; write the heartbeat every ``beat_every``;
        let unused ended matches leave memory every few seconds."""
        last_beat = last_sweep = last_rights = self.now()
        while True:
            await asyncio.sleep(interval)
            try:
                await self.confirm()  # woken after a stop longer than the lease: find out first
                await self.tick()
                if self.now() - last_rights >= RIGHTS_EVERY:  # a link revoked elsewhere closes its sockets here
                    last_rights = self.now()
                    await self.recheck_hosts()
                    await self.recheck_players()
                if self.now() - last_sweep >= min(5.0, self.keep_ended):
                    last_sweep = self.now()
                    self.sweep()
                if self.now() - last_beat >= beat_every:
                    last_beat = self.now()
                    if self.cluster is not None:
                        await self._cluster_tick()
                    else:
                        await self._db(self.store.beat, last_beat)
            except Refused:  # the database is down or locked: logged by _db; the next beat tries again
                pass
            except Exception:  # keep the clock alive whatever one match does
                log.exception("clock tick failed")

    # ------------------------------------------------------------- listeners

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

    async def recheck_hosts(self, match_id: str | None = None) -> int:
        """Close every host socket whose token no longer gives it its match (the link was
        revoked or expired, the co-host dropped, the host merged away): the rights a socket
        was opened with are checked again, here on the process that pushes to it, whichever
        process or command changed them.  ``match_id``: that match's sockets only.  How many
        were closed."""
        if match_id is None:
            scope = list(self.matches.values())
        else:
            scope = [self.matches[match_id]] if match_id in self.matches else []
        held = [(m, sub) for m in scope for sub in list(m.subscribers) if sub.digest is not None and not sub.revoked]
        if not held:
            return 0
        seen = {m.id: m.hosts_changed for m, _sub in held}
        logins = await self._db(self.store.logins_of, sorted({sub.digest for _m, sub in held if sub.digest}))
        # who controls each match as the database says now (`blackwhite hosts merge` moves
        # matches between hosts and drops co-hosts, straight on the database)
        stored = await self._db(self.store.match_hosts, sorted(seen))
        for match, _sub in held:
            if match.id in stored:
                match.stored_hosts(stored[match.id], seen[match.id])
        now = self.now()
        closed = 0
        for match, sub in held:
            login = logins.get(sub.digest or "")
            if login is None or not login.valid(now) or not match.hosted_by(login.host_id):
                sub.revoke()
                closed += 1
                log.info("a host socket of match %s closed: its link no longer gives it the match", match.id)
        return closed

    async def recheck_players(self) -> int:
        """Close every socket opened with a player's login whose link was revoked or has
        expired, or whose seat is no longer bound to that player; how many were closed."""
        held = [(m, sub) for m in self.matches.values() for sub in list(m.subscribers)
                if sub.player_digest is not None and not sub.revoked]
        if not held:
            return 0
        logins = await self._db(self.players.logins_of, sorted({sub.player_digest for _m, sub in held
                                                                 if sub.player_digest}))
        bound = await self._db(self.players.seats_of_matches, sorted({m.id for m, _sub in held}))
        now = self.now()
        closed = 0
        for match, sub in held:
            login = logins.get(sub.player_digest or "")
            if (login is None or not login.valid(now) or sub.role.seat is None
                    or bound.get(match.id, {}).get(sub.role.seat) != login.player_id):
                sub.revoke()
                closed += 1
                log.info("a player socket of match %s closed: its link no longer gives it the seat", match.id)
        return closed

    async def bind_seat(self, match: LiveMatch, seat: int, player_id: str) -> None:
        """Bind a person's seat to a player (players.py checked who asks): only while the
        match waits for its players and that seat has not been opened.  Its seat link opens
        it no more; the row and the binding change in one transaction."""
        async with match.lock:
            if match.dropped:
                raise self._moved(match)
            if not match.waiting() or match.joined_seat(seat):
                raise WrongState("seat_taken", f"P{seat + 1} of match {match.id} can be bound to a player only "
                                               "before it is opened and before the match starts")
            hashes = list(match.seat_hashes)
            hashes[seat] = None
            await self._fenced(match, {"seat_hashes": hashes},
                               PlayerStore.binding(match.id, {seat: player_id}, self.now()))
            match.seat_hashes = hashes
            for sub in list(match.subscribers):  # whoever watched through the seat link watches no more
                if sub.role == Role("seat", seat) and sub.player_digest is None:
                    sub.revoke()

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
