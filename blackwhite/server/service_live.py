"""What the match service holds of one match: :class:`LiveMatch` (its stored identity,
state, clocks, audiences' versions and listeners), a listener (:class:`Subscriber`, one
WebSocket's queue), who a token speaks for (:class:`Role`), and a match just created
(:class:`NewMatch`).  Every part of the service (service_*.py) works on these."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import collections
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from ..engine import LIVE, ClockRule, Pace, State
from . import clocks as clk
from .errors import encodable
from .store import MatchHosts, MatchStatus

log = logging.getLogger("blackwhite.server")

Kind = Literal["seat", "spectator", "host"]
#: draws a board for the pages: (game id, a view, the seat it is for or None, that seat's
#: legal actions in notation, the seat names, whether the reader is that seat) -> HTML.
#: The service is given one (blackwhite.app gives blackwhite.web.render.board_html); it
#: never imports the web itself.
BoardRenderer = Callable[[str, dict[str, Any], "int | None", list[str], list[str], bool], str]
#: messages a socket may have waiting before it is closed as too slow (a reconnect gets the current view)
MAX_OUTBOX = 256


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
    #: the hash of a player's login that plays a seat bound to it, or of a message's seat
    #: key: checked again as a host's is (``HostsPart.recheck_players``)
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
