"""Grouping Black & White: the Death Match and the Final Match (docs/rules/grouping.md,
docs/rules/grouping-final.md).

Both games share one state machine.  Each set, both seats secretly split their tiles
0..8 into groups A (2), B (3), C (4); a *deal* (a chance event per seat) lays the
seat's tiles out group by group in a random group order, shuffled inside each
group, and rounds take them one at a time.  A round announces both colours, takes
the ante and runs a betting exchange (`raise N` / `call` / `fold`).

The Final differs only in parameters and two overrides: one deal per set, a slower
ante schedule, regrouping limits, chips that are lost but never won (``_settle``),
and the extras (ante proposals during grouping, items ``bonus``/``peek``/``order``).

Tiles are dealt face down: a seat is told the *colour* of its own tile, not its
number (option ``see_own_tile`` shows it).  Who knows which dealt number is kept per
tile slot as a bitmask of seats (``vis``); everything the views show and
``resample`` conditions on is derived from it.  The round log (``RoundEntry``) keeps
only what everyone was told.

*Free* actions (`go first`/`go second`, `propose ante N`, `accept`, `decline`,
`peek`, `order`) do not close a step: they are listed among the legal actions of an
awaited seat and take effect at once; ``apply`` also accepts them from a seat the
game is not awaiting (an idle holder may `order` while the opponent bets).

``resample`` draws the hidden facts in ``grouping_sampler`` (the posterior over an
opponent's groupings and the fitting deals); the bots' exact tile chances live in
``blackwhite.bots.inference.grouping``.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from itertools import combinations, product
from typing import Any, ClassVar, Final, Literal, Mapping, NamedTuple, TypeAlias

from ..engine.core import (
    Action, ActionSyntaxError, ChanceEvent, ClockRule, Game, IllegalActionError, IllegalChanceError,
    OptionError, OptionInfo, State, colour, is_int, seat_items
)
from ..engine.registry import GameEntry, sampler
from ..views import Colour
from ..views.grouping import (
    Entry,
    GroupingCommon,
    GroupingPhase,
    GroupingPublicPart,
    GroupingSeatPart,
    GroupingView,
    RoundHow,
    RoundInfo,
    SeatDeal,
    SeenHow,
)

TILES = 9
SIZES = (2, 3, 4)
NAMES = "ABC"
ALL = (1 << TILES) - 1
BLACK = sum(1 << t for t in range(0, TILES, 2))
WHITE = ALL & ~BLACK
EIGHT = 1 << 8
#: ``vis`` bits: 1 seat 0 knows the number, 2 seat 1 knows it, 4 it was shown to everyone
PUBLIC = 4
SHOWN = 1 | 2 | PUBLIC
ITEMS = ("bonus", "peek", "order")
BONUS_CHIPS = 10
MAX_RAISE = 10
#: the Final's extra cost of folding the 8 (or all the folder has, if less)
EIGHT_PENALTY = 8

GROUP: Final = "group"
DEAL: Final = "deal"
BET: Final = "bet"
OVER: Final = "over"
#: the state's phase (a view names a betting round without a starter "choose")
Phase = Literal["group", "deal", "bet", "over"]

Groups = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
Masks = tuple[int, int, int]
#: what is known of each deal of a set, as ``_cons`` masks
Deals = tuple[tuple[int, ...], ...]


class RoundEntry(NamedTuple):
    """One settled round as the public saw it.  Only public facts: the colours dealt,
    never a tile that was not shown (a folded tile stays its owner's secret)."""

    set_no: int
    deal: int  # 1-based
    round: int  # 1-based
    colours: tuple[Colour, Colour]
    ante: int
    bets: tuple[int, int]
    how: RoundHow
    folder: int | None
    tiles: tuple[int, int] | None  # as shown to everyone (showdowns and sudden death)
    winner: int | None
    penalty: int  # the Final's fold-the-8 penalty
    chips: tuple[int, int]  # after settling
    starter: int | None  # who bet first (None in sudden death: no betting)


#: the settled rounds as a linked list, newest first: appending is O(1) and clones share it
RoundLog: TypeAlias = "tuple[RoundEntry, RoundLog] | None"


class SeenTile(NamedTuple):
    """A tile of the other seat's that a seat saw (it folded it, or the seat peeked)."""

    set_no: int
    deal: int  # 0-based
    pos: int  # 0-based
    tile: int
    how: SeenHow


#: ``colour`` and the colour's tile mask, by tile number (the core's ``colour``)
COLOURS: tuple[Colour, ...] = tuple(colour(t) for t in range(TILES))
COLOUR_MASKS: tuple[int, ...] = tuple(BLACK if t % 2 == 0 else WHITE for t in range(TILES))


def mask_of(tiles: tuple[int, ...] | list[int]) -> int:
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def tiles_of(mask: int) -> tuple[int, ...]:
    return tuple(t for t in range(TILES) if mask >> t & 1)


def _all_groupings() -> tuple[Groups, ...]:
    out: list[Groups] = []
    tiles = tuple(range(TILES))
    for a in combinations(tiles, 2):
        rest = [t for t in tiles if t not in a]
        for b in combinations(rest, 3):
            c = tuple(t for t in rest if t not in b)
            out.append((a, b, c))
    return tuple(out)


#: every way to group the tiles (1260), in a fixed order: sampling depends on it
GROUPINGS: tuple[Groups, ...] = _all_groupings()
GROUPING_MASKS: tuple[Masks, ...] = tuple(
    (mask_of(a), mask_of(b), mask_of(c)) for a, b, c in GROUPINGS
)
GROUP_ACTIONS: tuple[Action, ...] = tuple(("group", a, b, c) for a, b, c in GROUPINGS)
DEFAULT_GROUPS: Groups = ((0, 1), (2, 3, 4), (5, 6, 7, 8))
#: the six orders of the groups in a deal, as group indices (0=A, 1=B, 2=C)
ORDERS: tuple[tuple[int, int, int], ...] = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))

RAISES: tuple[Action, ...] = tuple(("raise", n) for n in range(1, MAX_RAISE + 1))
CALL: Action = ("call",)
FOLD: Action = ("fold",)
GO_FIRST: Action = ("go", "first")
GO_SECOND: Action = ("go", "second")
ACCEPT: Action = ("accept",)
DECLINE: Action = ("decline",)
PEEK: Action = ("peek",)
ORDER: Action = ("order",)
#: actions that do not close a step (see the module docstring)
FREE = frozenset({"go", "propose", "accept", "decline", "peek", "order"})
#: the betting actions by the largest raise allowed (0..MAX_RAISE), in listing order
BET_ACTIONS: tuple[tuple[Action, ...], ...] = tuple(
    RAISES[:top] + (CALL, FOLD) for top in range(MAX_RAISE + 1)
)
#: ``("propose", n)`` for the antes a seat is likely to list (larger ones are built when needed)
PROPOSALS: tuple[Action, ...] = tuple(("propose", n) for n in range(512))


def _positions(order: tuple[int, int, int]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The deal positions each group (A, B, C) occupies when the groups come in ``order``."""
    spans: list[tuple[int, ...]] = [(), (), ()]
    at = 0
    for g in order:
        spans[g] = tuple(range(at, at + SIZES[g]))
        at += SIZES[g]
    return spans[0], spans[1], spans[2]


ORDER_POSITIONS = tuple(_positions(o) for o in ORDERS)


def deal_order(masks: Masks, deal: tuple[int, ...] | list[int]) -> tuple[int, int, int]:
    """The order of the groups in a deal that keeps them together."""
    out: list[int] = []
    at = 0
    while at < TILES:
        t = deal[at]
        g = 0 if masks[0] >> t & 1 else 1 if masks[1] >> t & 1 else 2
        out.append(g)
        at += SIZES[g]
    return out[0], out[1], out[2]


def _round_dict(e: RoundEntry) -> RoundInfo:
    """The public record of one settled round (as ``rounds`` and the views list it)."""
    return {
        "set": e.set_no,
        "deal": e.deal,
        "round": e.round,
        "colours": list(e.colours),
        "ante": e.ante,
        "bets": list(e.bets),
        "how": e.how,
        "folder": e.folder,
        "tiles": list(e.tiles) if e.tiles is not None else None,
        "winner": e.winner,
        "penalty": e.penalty,
        "chips": list(e.chips),
        "starter": e.starter,
    }


#: a number in notation: ASCII digits only (``٣`` and ``３`` are not notation)
_NUMBER = re.compile(r"[0-9]+")

#: builds a RoundEntry without the named tuple's Python-level ``__new__`` (search
#: copies settle thousands of rounds a second)
_new_entry = tuple.__new__


def _shuffle_of(n: int, draws: tuple[int, ...]) -> tuple[int, ...]:
    """The order ``random.shuffle`` leaves ``[0, ..., n - 1]`` in when its draws are
    ``draws`` (below n, then n - 1, ..., then 2)."""
    x = list(range(n))
    for i, j in zip(range(n - 1, 0, -1), draws):
        x[i], x[j] = x[j], x[i]
    return tuple(x)


#: by a list's length (2, 3, 4), the order a shuffle leaves it in, indexed by its draws
#: read as one number (the first draw most significant: ``(j3 * 3 + j2) * 2 + j1``)
_SHUFFLES: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(_shuffle_of(n, draws) for draws in product(*(range(i + 1) for i in range(n - 1, 0, -1))))
    for n in (2, 3, 4)
}


#: ``ALL`` for the positions of a deal not yet dealt, by how many are dealt
_UNDEALT: tuple[tuple[int, ...], ...] = tuple((ALL,) * (TILES - n) for n in range(TILES + 1))
#: what a dealt tile ``t`` whose number was not told may be, indexed by its fold-the-8 fact
#: ``e`` (``eight``: 0 it was not the 8, 1 it was, -1 nothing told, the last entry)
_UNTOLD: tuple[tuple[int, ...], ...] = (
    tuple(COLOUR_MASKS[t] & ~EIGHT for t in range(TILES)),
    (EIGHT,) * TILES,
    COLOUR_MASKS,
)


# ----------------------------------------------------------------- games


#: the most starting chips: every ante proposal up to a seat's chips is an action to
#: list, and no match needs more than this
MAX_CHIPS = 10000

class Grouping(Game):
    """The Death Match: 30 chips, two deals per set, the winner takes the pot."""

    id = "grouping"
    small_options: ClassVar[Mapping[str, Any]] = {"chips": 2, "rounds": 1, "max_raise": 1}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = ({"chips": 3, "rounds": 2, "max_raise": 1},)
    title = "Grouping Black & White (Death Match)"
    num_seats = 2
    #: what each kind of action does (the pages' buttons and prompt)
    action_help: ClassVar[dict[str, str]] = {
        'group': 'put your nine tiles into groups A (2 tiles), B (3) and C (4), then submit them',
        'go': 'choose whether you go first or let the other seat start',
        'propose': 'propose a new ante',
        'accept': 'accept the proposed ante',
        'decline': 'decline the proposed ante',
        'raise': 'raise your bet',
        'call': 'call',
        'fold': 'fold',
    }
    option_defaults = {"chips": 30, "see_own_tile": False, "max_raise": MAX_RAISE, "rounds": TILES}
    variant_options = frozenset({"max_raise", "rounds"})
    option_info = {
        "chips": OptionInfo("Starting chips", "Chips each seat starts the match with.", "number",
                            minimum=1, maximum=MAX_CHIPS),
        "see_own_tile": OptionInfo("See your own tile", "When on, each seat sees its own tile of the round.",
                                   "bool"),
        "max_raise": OptionInfo("Largest raise", "The most one raise may add to a bet.", "number",
                                minimum=1, maximum=MAX_RAISE),
        "rounds": OptionInfo("Rounds per deal", "Rounds played in each deal (a smaller game plays fewer).",
                             "number", minimum=1, maximum=TILES),
    }
    clock = ClockRule(
        {"bet": 60.0, "group": 120.0, "choose": 60.0},
        on_timeout="a bet folds; a grouping keeps the previous set's groups (set 1: A=0,1 B=2,3,4 "
        "C=5,6,7,8); the first-bettor choice goes first",
    )

    def validate_options(self, options: dict[str, Any]) -> None:
        chips = options["chips"]
        if not is_int(chips) or not 1 <= chips <= MAX_CHIPS:
            raise OptionError(f"option chips must be a whole number 1..{MAX_CHIPS}, got {chips!r}")
        if not isinstance(options["see_own_tile"], bool):
            raise OptionError("option see_own_tile must be true or false")
        # the small variants (docs/rules/grouping.md, "Small variants"): same groups
        # and deals, fewer rounds played per deal and smaller raises
        top = options["max_raise"]
        if not is_int(top) or not 1 <= top <= MAX_RAISE:
            raise OptionError(f"option max_raise must be a whole number 1..{MAX_RAISE}, got {top!r}")
        rounds = options["rounds"]
        if not is_int(rounds) or not 1 <= rounds <= TILES:
            raise OptionError(f"option rounds (rounds played per deal) must be a whole number 1..{TILES}, got {rounds!r}")
        self.items: list[frozenset[str]] = [frozenset(), frozenset()]

    def new_initial_state(self) -> GroupingState:
        return GroupingState(self)


class GroupingFinal(Grouping):
    """The Final Match: 100 chips, one deal per set, chips lost never won, items."""

    id = "grouping-final"
    small_options: ClassVar[Mapping[str, Any]] = {"chips": 2, "rounds": 1, "max_raise": 1}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = (
        {"chips": 4, "rounds": 3, "max_raise": 2, "items": {"0": ["peek", "order"]}},
    )
    title = "Grouping Black & White (Final Match, with items)"
    option_defaults = {
        "chips": 100,
        "see_own_tile": False,
        "max_raise": MAX_RAISE,
        "rounds": TILES,
        "items": {},
        "proposal_limit": None,
        "announce_order": False,
    }
    option_info = {
        **Grouping.option_info,
        "items": OptionInfo("Items", "The items each seat holds: bonus, peek (see the other tile of a round), "
                            "order (learn the order of your groups).", "seat_items",
                            choices=tuple((name, name) for name in ITEMS)),
        "proposal_limit": OptionInfo("Ante proposals per seat", "How many ante proposals each seat may make; "
                                     "empty for no limit.", "number", minimum=0, maximum=1000, optional=True),
        "announce_order": OptionInfo("Announce the order of groups", "When on, the order of each seat's groups "
                                     "is announced to both.", "bool"),
    }

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        limit = options["proposal_limit"]
        if limit is not None and (not is_int(limit) or not 0 <= limit <= 1000):
            # the bound its OptionInfo offers (check-game's options check found it unenforced)
            raise OptionError(f"option proposal_limit must be null or a whole number 0..1000, got {limit!r}")
        if not isinstance(options["announce_order"], bool):
            raise OptionError("option announce_order must be true or false")
        self.items = list(seat_items(options["items"], ITEMS))

    def new_initial_state(self) -> GroupingFinalState:
        return GroupingFinalState(self)


# ----------------------------------------------------------------- state


class GroupingState(State[GroupingView]):
    """A position of the Death Match; the Final overrides the class parameters and ``_settle``."""

    game: Grouping
    DEALS_PER_SET = 2
    ANTE_EVERY = 1  # the ante rises at the start of every set after the first
    #: how many tiles may leave A, B, C when regrouping (None: free regrouping)
    REGROUP: tuple[int, int, int] | None = None
    FINAL = False

    def __init__(self, game: Grouping) -> None:
        super().__init__(game)
        items = game.items
        bonus = [1 if "bonus" in items[s] else 0 for s in (0, 1)]
        start = game.options["chips"]
        self.see_own: bool = game.options["see_own_tile"]
        self.max_raise: int = game.options["max_raise"]
        #: rounds played per deal (option ``rounds``): the later positions stay face down, unplayed
        self.deal_rounds: int = game.options["rounds"]
        self.chips = [start + BONUS_CHIPS * bonus[0], start + BONUS_CHIPS * bonus[1]]
        self.bets = [0, 0]
        self.chooser: int = 0 if bonus == [1, 0] else 1 if bonus == [0, 1] else game.dmo
        self.first_choice: Literal["first", "second"] | None = None
        self.starter: int | None = None
        self.to_act = 0
        self.acted = [False, False]
        self.items_left: list[tuple[str, ...]] = [
            tuple(i for i in ITEMS if i in items[s] and i != "bonus") for s in (0, 1)
        ]
        self.items_used: list[tuple[str, ...]] = [(), ()]
        self.order_known: list[tuple[int, tuple[int, int, int]] | None] = [None, None]
        self.proposal: tuple[int, int] | None = None  # (seat, ante)
        self.proposals_made = [0, 0]
        self.set_no = 0
        self.ante = 0
        self.sudden = False
        self.phase: Phase = GROUP
        self.won_by: int | None = None
        self.end_reason = ""
        # groups in force (None before the first grouping) and the set they were made in
        self.groups: list[Groups | None] = [None, None]
        self.masks: list[Masks | None] = [None, None]
        self.gset = 0
        # deals of the groups in force; vis[s][9d+p]: bitmask of seats that know that number;
        # (PUBLIC when shown to all); eight[s][9d+p]: public fold-the-8 fact (-1 none, 1 it was the 8, 0 it was not)
        self.deals: list[list[tuple[int, ...]]] = [[], []]
        self.vis: list[list[int]] = [[], []]
        self.eight: list[list[int]] = [[], []]
        # under regrouping limits: what everyone knows of each seat's deals of every set
        # before the groups in force (``_cons`` masks by set, then deal; oldest first)
        self.past_public: tuple[tuple[Deals, ...], tuple[Deals, ...]] = ((), ())
        self.deal_no = 0
        self.pos = 0
        self.ndealt = 0  # positions of deal ``deal_no`` dealt so far
        self.rounds_played = 0
        self._rlog: RoundLog = None  # settled rounds (see ``rounds``)
        self.seen: list[list[SeenTile]] = [[], []]
        #: a cache for readers of what a seat knows at this position (the grouping
        #: search's heuristic keeps each seat's tile chances here), shared with copies:
        #: every step that can change what a seat knows starts a new one (never cleared
        #: in place); a raise changes no one's knowledge and keeps it
        self.inferred: dict[int, Any] = {}
        self._begin_set()

    def _copy_state(self, new: State) -> None:
        # Lists changed in place are copied.  ``deals``, ``groups``, ``masks``, ``items_left``,
        # ``items_used``, ``order_known``, ``proposals_made``, ``past_public``, ``eight`` and
        # ``seen`` are shared: they are never changed in place, only replaced (copy on
        # write: a search copies a state far more often than a fold changes them), and
        # ``_rlog`` is immutable.  ``inferred`` is shared: it holds only what the
        # knowledge both copies still have implies, and a copy whose knowledge changes
        # replaces it.
        assert isinstance(new, GroupingState)
        new.chips = self.chips[:]
        new.bets = self.bets[:]
        new.acted = self.acted[:]
        new.vis = [self.vis[0][:], self.vis[1][:]]

    @property
    def rounds(self) -> list[RoundInfo]:
        """The public record of the settled rounds, oldest first (fresh dicts each call)."""
        return [_round_dict(e) for e in self._round_entries()]

    def _round_entries(self) -> list[RoundEntry]:
        out = []
        link = self._rlog
        while link is not None:
            out.append(link[0])
            link = link[1]
        out.reverse()
        return out

    # ------------------------------------------------------------------ flow

    def _begin_set(self) -> None:
        self.set_no += 1
        if self.set_no == 1:
            self.ante = 1
        elif (self.set_no - 1) % self.ANTE_EVERY == 0:
            self.ante += 1
        self.phase = GROUP
        self.proposal = None
        self.proposals_made = [0, 0]
        if self.track:
            tail = " (sudden death: no ante)" if self.sudden else f"; the ante is {self.ante}"
            self.note(None, f"Set {self.set_no} begins: both seats group their tiles{tail}.")

    def _open_round(self) -> None:
        """Start rounds until one needs a seat (or a deal, or the match ends)."""
        while True:
            d, p = self.deal_no, self.pos
            self.ndealt = p + 1
            slot = 9 * d + p
            t0, t1 = self.deals[0][d][p], self.deals[1][d][p]
            if self.see_own:
                self.vis[0][slot] |= 1
                self.vis[1][slot] |= 2
            if self.track:
                self.note(
                    None,
                    f"Set {self.set_no}, deal {d + 1}, round {p + 1}: P1 {colour(t0)}, P2 {colour(t1)}.",
                )
                if self.see_own:
                    self.note(0, f"Your tile is {t0}.")
                    self.note(1, f"Your tile is {t1}.")
            chips = self.chips
            ante = self.ante
            if not self.sudden:
                short0 = chips[0] < ante
                short1 = chips[1] < ante
                if short0 and short1:
                    if chips[0] != chips[1]:
                        win = 0 if chips[0] > chips[1] else 1
                        self._end(
                            win,
                            f"neither seat can pay the ante of {self.ante}; P{win + 1} has more chips and wins",
                        )
                        return
                    self.sudden = True
                    if self.track:
                        self.note(
                            None,
                            f"Neither seat can pay the ante of {self.ante} and the chips are equal: "
                            "sudden death (no ante, tiles compared at once until a round is won).",
                        )
                elif short0 or short1:
                    lose = 0 if short0 else 1
                    self._end(1 - lose, f"P{lose + 1} cannot pay the ante of {self.ante} and loses")
                    return
            if self.sudden:
                self.vis[0][slot] = self.vis[1][slot] = SHOWN
                winner = 0 if t0 > t1 else 1 if t1 > t0 else None
                self._log_round("sudden", None, winner, (t0, t1), 0)
                if self.track:
                    self.note(None, f"Sudden death: P1 {t0}, P2 {t1}.")
                if winner is not None:
                    self._end(winner, f"P{winner + 1} wins the sudden-death round {t0 if winner == 0 else t1} "
                              f"to {t1 if winner == 0 else t0}")
                    return
                self.rounds_played += 1
                if not self._next_position():
                    return
                continue
            chips[0] -= ante
            chips[1] -= ante
            self.bets = [ante, ante]
            self.acted = [False, False]
            self.phase = BET
            if self.starter is not None:
                self.to_act = self.starter
            elif self.track:
                self.note(None, f"Round 1's betting waits for P{self.chooser + 1} to say who bets first.")
            return

    def _next_position(self) -> bool:
        """Move to the next position; False when a deal or a grouping must come first."""
        self.pos += 1
        if self.pos < self.deal_rounds:
            return True
        if self.deal_no + 1 < self.DEALS_PER_SET:
            self.deal_no += 1
            self.pos = 0
            self.ndealt = 0
            self.phase = DEAL
            if self.track:
                self.note(None, f"Set {self.set_no}: the second deal (groups kept, both shuffles redone).")
            return False
        self._begin_set()
        return False

    def _after_round(self) -> None:
        self.rounds_played += 1
        self.bets = [0, 0]
        chips = self.chips
        if chips[0] == 0 or chips[1] == 0:
            lose = 0 if chips[0] == 0 else 1
            self._end(1 - lose, f"P{lose + 1} has no chips left and loses")
            return
        if self._next_position():
            self._open_round()

    def _end(self, winner: int, reason: str) -> None:
        self.phase = OVER
        self.won_by = winner
        self.end_reason = reason
        if self.track:
            self.note(None, reason[0].upper() + reason[1:] + ".")

    def _log_round(
        self, how: RoundHow, folder: int | None, winner: int | None, tiles: tuple[int, int] | None, penalty: int
    ) -> None:
        """Log the round just settled, before ``starter`` passes to its winner: only
        what everyone was told (the colours; the tiles only if shown)."""
        d, p = self.deal_no, self.pos
        bets, chips = self.bets, self.chips
        sudden = how == "sudden"
        entry = _new_entry(RoundEntry, (
            self.set_no, d + 1, p + 1, (COLOURS[self.deals[0][d][p]], COLOURS[self.deals[1][d][p]]),
            0 if sudden else self.ante, (bets[0], bets[1]),
            how, folder, tiles, winner, penalty, (chips[0], chips[1]), None if sudden else self.starter,
        ))
        self._rlog = (entry, self._rlog)

    # ------------------------------------------------------------------ steps

    def awaited(self) -> tuple[int, ...]:
        if self.phase == GROUP:
            return (0, 1)
        if self.phase == BET:
            return (self.chooser,) if self.starter is None else (self.to_act,)
        return ()

    def to_move(self) -> list[int]:
        # the core's, with a betting step (nothing pending, one seat awaited) spelled out
        if self.phase == BET and self.ended_by is None and not self.pending:
            return [self.chooser if self.starter is None else self.to_act]
        return super().to_move()

    def simultaneous(self) -> bool:
        return self.phase == GROUP

    def clock_phase(self, seat: int) -> str:
        if self.phase == GROUP:
            return "group"
        return "choose" if self.starter is None else "bet"

    def chance_kind(self) -> str | None:
        return "deal" if self.phase == DEAL else None

    def legal_actions(self, seat: int) -> list[Action]:
        # ``seat not in self.to_move()``, spelled out per phase
        if self.ended_by is not None or seat in self.pending:
            return []
        out: list[Action]
        phase = self.phase
        if phase == BET:
            if self.starter is None:
                if seat != self.chooser:
                    return []
                out = [GO_FIRST, GO_SECOND]
            else:
                if seat != self.to_act:
                    return []
                opp = 1 - seat
                chips, bets = self.chips, self.bets
                top = min(self.max_raise, chips[opp], bets[seat] + chips[seat] - bets[opp])
                out = list(BET_ACTIONS[max(top, 0)])
        elif phase == GROUP:
            if seat != 0 and seat != 1:
                return []
            out = list(self._group_actions(seat))
        else:
            return []
        self._add_free(seat, out)
        return out

    def _group_actions(self, seat: int) -> tuple[Action, ...]:
        prev = self.masks[seat]
        if self.REGROUP is None or prev is None:
            return GROUP_ACTIONS
        return _regroupings(prev, self.REGROUP)

    def _add_free(self, seat: int, out: list[Action]) -> None:
        """Append the free actions open to ``seat`` now (the Final adds its own)."""
        if self.phase == GROUP and seat == self.chooser and self._choice_open():
            out.append(GO_FIRST)
            out.append(GO_SECOND)

    def _choice_open(self) -> bool:
        """Whether the first-bettor choice may still be made: once, and only before
        round 1 has been played (its betting waits for the choice; a sudden-death
        showdown does not, and after it there is nothing left to choose)."""
        return self.first_choice is None and self._rlog is None

    # ------------------------------------------------------------------ checking

    def check(self, seat: int, action: Action) -> None:
        text = self._fmt(action)
        tag = action[0] if isinstance(action, tuple) and action else ""
        if tag in FREE:
            self._check_free(seat, action, text)
            return
        if self.phase == GROUP:
            if tag != "group":
                raise IllegalActionError(text, f"set {self.set_no} is grouping: the action needed is "
                                         "`group A=x,y B=x,y,z C=w,x,y,z`")
            self._check_group(seat, action, text)
            return
        if self.phase != BET:
            raise IllegalActionError(text, f"no seat acts now; the game awaits {self._awaiting_text()}")
        if self.starter is None:
            raise IllegalActionError(
                text, f"round 1's betting waits for P{self.chooser + 1} to say `go first` or `go second`"
            )
        opp = 1 - seat
        if tag == "raise":
            n: Any = action[1] if len(action) == 2 else None
            if not is_int(n) or not 1 <= n <= self.max_raise:
                raise IllegalActionError(
                    text, f"a raise puts in 1 to {self.max_raise} chips more than the opponent's bet"
                    + (" (option max_raise)" if self.max_raise != MAX_RAISE else "")
                )
            new = self.bets[opp] + n
            reach = self.bets[opp] + self.chips[opp]
            if new > reach:
                raise IllegalActionError(
                    text,
                    f"the new bet {new} would exceed what P{opp + 1} could put in ({reach}: bet "
                    f"{self.bets[opp]} + {self.chips[opp]} chips); "
                    + (f"raise at most {self.chips[opp]}" if self.chips[opp] else "call or fold"),
                )
            have = self.bets[seat] + self.chips[seat]
            if new > have:
                most = have - self.bets[opp]
                raise IllegalActionError(
                    text,
                    f"the new bet {new} would exceed what P{seat + 1} has ({have}); "
                    + (f"raise at most {most}" if most > 0 else "call or fold"),
                )
            return
        if tag in ("call", "fold"):
            if len(action) != 1:
                raise IllegalActionError(text, f"`{tag}` takes nothing more")
            return
        raise IllegalActionError(text, "the betting actions are `raise N`, `call` and `fold`")

    def _check_group(self, seat: int, action: Action, text: str) -> None:
        if len(action) != 4:
            raise IllegalActionError(text, "a grouping names groups A, B and C")
        seen: list[int] = []
        for g in range(3):
            tiles = action[1 + g]
            if not isinstance(tiles, tuple) or not all(
                is_int(t) and 0 <= t < TILES for t in tiles
            ):
                raise IllegalActionError(text, f"group {NAMES[g]} must list tiles 0..8")
            if len(tiles) != SIZES[g]:
                raise IllegalActionError(
                    text, f"group {NAMES[g]} holds {SIZES[g]} tiles (A 2, B 3, C 4), not {len(tiles)}"
                )
            seen.extend(tiles)
        twice = sorted({t for t in seen if seen.count(t) > 1})
        if twice:
            raise IllegalActionError(text, f"tile {twice[0]} is in two places; each tile 0..8 goes in one group")
        prev = self.masks[seat]
        if self.REGROUP is not None and prev is not None:
            new = (mask_of(action[1]), mask_of(action[2]), mask_of(action[3]))
            for g in range(3):
                left = tiles_of(prev[g] & ~new[g])
                if len(left) > self.REGROUP[g]:
                    old = ",".join(map(str, tiles_of(prev[g])))
                    raise IllegalActionError(
                        text,
                        f"regrouping moves {len(left)} tiles ({','.join(map(str, left))}) out of group "
                        f"{NAMES[g]} (was {old}); at most {self.REGROUP[0]} may leave A, "
                        f"{self.REGROUP[1]} may leave B and {self.REGROUP[2]} may leave C",
                    )

    def _check_free(self, seat: int, action: Action, text: str) -> None:
        tag = action[0]
        if tag == "go":
            if len(action) != 2 or action[1] not in ("first", "second"):
                raise IllegalActionError(text, "say `go first` or `go second`")
            if seat != self.chooser:
                items = self.game.items
                alone = "bonus" in items[self.chooser] and "bonus" not in items[1 - self.chooser]
                who = "holds bonus" if alone else "is the DMO"
                raise IllegalActionError(
                    text, f"only P{self.chooser + 1} (who {who}) chooses who bets first in round 1"
                )
            if self.first_choice is not None:
                raise IllegalActionError(text, f"P{seat + 1} already chose: go {self.first_choice}")
            if self._rlog is not None:
                raise IllegalActionError(
                    text, "the first-bettor choice comes before round 1, and round 1 has been played "
                    "(a sudden-death showdown, with no betting): there is no first bettor left to choose"
                )
            if self.phase not in (GROUP, DEAL, BET):
                raise IllegalActionError(text, f"no seat acts now; the game awaits {self._awaiting_text()}")
            return
        raise IllegalActionError(
            text,
            "grouping (the Death Match) has no ante proposals and no items; its actions are "
            "`group ...`, `raise N`, `call`, `fold` and the DMO's `go first`/`go second`",
        )

    # ------------------------------------------------------------------ applying

    def is_free(self, action: Action) -> bool:
        """See the module docstring: these never fill a seat's part of a step.  Anything
        but a non-empty tuple is not free (``check`` then refuses it, naming the rule)."""
        return isinstance(action, tuple) and len(action) > 0 and action[0] in FREE

    def _submit(self, seat: int, action: Action) -> None:
        # a bet, the step every round repeats, goes straight to ``_do``: betting is never
        # simultaneous and a betting action is never free (the core's checks, spelled out)
        if self.phase == BET and action[0] not in FREE:
            self._do(seat, action)
        else:
            super()._submit(seat, action)

    def _do_free(self, seat: int, action: Action) -> None:
        self.inferred = {}  # what a seat knows may change (see ``inferred``)
        if action[0] == "go":
            self.first_choice = action[1]
            self.starter = seat if action[1] == "first" else 1 - seat
            self.to_act = self.starter
            if self.track:
                self.note(None, f"P{seat + 1} chooses to go {action[1]}: P{self.starter + 1} bets first in round 1.")

    def _resolve(self, actions: dict[int, Action]) -> None:
        # the grouping step: the only simultaneous one
        self.inferred = {}  # what a seat knows may change (see ``inferred``)
        new_groups = list(self.groups)  # copy on write (see ``_copy_state``)
        new_masks = list(self.masks)
        self.groups, self.masks = new_groups, new_masks
        for s in (0, 1):
            g = actions[s]
            groups: Groups = (tuple(sorted(g[1])), tuple(sorted(g[2])), tuple(sorted(g[3])))
            new_groups[s] = groups
            new_masks[s] = (mask_of(groups[0]), mask_of(groups[1]), mask_of(groups[2]))
            if self.track:
                self.note(s, f"Your groups for set {self.set_no}: {self._groups_text(groups)}.")
        if self.proposal is not None and self.track:
            self.note(None, f"The proposal of ante {self.proposal[1]} lapses unanswered.")
        self.proposal = None
        if self.REGROUP is not None and self.gset:
            self.past_public = (
                self.past_public[0] + (tuple(self._cons(None, 0, d) for d in range(len(self.deals[0]))),),
                self.past_public[1] + (tuple(self._cons(None, 1, d) for d in range(len(self.deals[1]))),),
            )
        self.gset = self.set_no
        self.deals = [[], []]
        self.vis = [[], []]
        self.eight = [[], []]
        self.deal_no = 0
        self.pos = 0
        self.ndealt = 0
        self.phase = DEAL
        if self.track:
            self.note(None, f"Both seats have grouped for set {self.set_no}; the tiles are dealt.")

    def _do(self, seat: int, action: Action) -> None:
        opp = 1 - seat
        tag = action[0]
        self.acted[seat] = True
        if tag == "raise":
            new = self.bets[opp] + action[1]
            self.chips[seat] -= new - self.bets[seat]
            self.bets[seat] = new
            self.to_act = opp
            if self.track:
                self.note(None, f"P{seat + 1} raises {action[1]} (bet {new}).")
            return
        self.inferred = {}  # a call or a fold shows tiles (see ``inferred``)
        d, p = self.deal_no, self.pos
        tiles = (self.deals[0][d][p], self.deals[1][d][p])
        if tag == "call":
            self.chips[seat] -= self.bets[opp] - self.bets[seat]
            self.bets[seat] = self.bets[opp]
            self.vis[0][9 * d + p] = self.vis[1][9 * d + p] = SHOWN
            if self.track:
                self.note(None, f"P{seat + 1} calls at {self.bets[opp]}: P1 shows {tiles[0]}, P2 shows {tiles[1]}.")
            self._settle(None, tiles)
        else:
            self.vis[opp][9 * d + p] |= 1 << seat
            self._saw(seat, SeenTile(self.set_no, d, p, tiles[opp], "fold"))
            if self.track:
                self.note(None, f"P{seat + 1} folds.")
                self.note(seat, f"P{opp + 1}'s tile was {tiles[opp]}.")
            self._settle(seat, tiles)
        self._after_round()

    def _saw(self, seat: int, tile: SeenTile) -> None:
        """Add to what ``seat`` saw of the other's tiles (``seen`` is copy on write)."""
        seen = list(self.seen)
        seen[seat] = seen[seat] + [tile]
        self.seen = seen

    def _eight_fact(self, seat: int, slot: int | None, fact: int) -> None:
        """Set a fold-the-8 fact of ``seat``'s tile ``slot``; ``None``: add a deal's nine
        slots, each with ``fact`` (``eight`` is copy on write)."""
        eight = list(self.eight)
        if slot is None:
            eight[seat] = eight[seat] + [fact] * TILES
        else:
            mine = eight[seat][:]
            mine[slot] = fact
            eight[seat] = mine
        self.eight = eight

    def _settle(self, folder: int | None, tiles: tuple[int, int]) -> None:
        """Death Match: the round's winner takes the pot; a tie gives each its bet back."""
        pot = self.bets[0] + self.bets[1]
        if folder is not None:
            winner: int | None = 1 - folder
        else:
            winner = 0 if tiles[0] > tiles[1] else 1 if tiles[1] > tiles[0] else None
        if winner is None:
            self.chips[0] += self.bets[0]
            self.chips[1] += self.bets[1]
            if self.track:
                self.note(None, "Equal tiles: the pot is split.")
        else:
            self.chips[winner] += pot
            if self.track:
                self.note(None, f"P{winner + 1} takes the pot of {pot}.")
        self._log_round("fold" if folder is not None else "showdown", folder, winner,
                        None if folder is not None else tiles, 0)
        if winner is not None:
            self.starter = winner

    # ------------------------------------------------------------------ chance

    def check_chance(self, event: ChanceEvent) -> None:
        data = dict(event.data)
        extra = sorted(set(data) - {"seat", "tiles"})
        if extra:
            raise IllegalChanceError("deal", f"a deal states only 'seat' and 'tiles', not {extra[0]!r}")
        seat = data.get("seat")
        if not is_int(seat) or seat not in (0, 1):
            raise IllegalChanceError("deal", "a deal names its seat (0 or 1)")
        if len(self.deals[seat]) > self.deal_no:
            raise IllegalChanceError(
                "deal", f"P{seat + 1} has already been dealt deal {self.deal_no + 1} of set {self.set_no}"
            )
        tiles = data.get("tiles")
        if not isinstance(tiles, (list, tuple)) or not all(
            is_int(t) for t in tiles
        ):
            raise IllegalChanceError("deal", "'tiles' must be a list of the seat's 9 tile numbers")
        if sorted(tiles) != list(range(TILES)):
            missing = [t for t in range(TILES) if t not in tiles]
            twice = sorted({t for t in tiles if list(tiles).count(t) > 1})
            why = (
                f"it has {len(tiles)} tiles" if len(tiles) != TILES
                else f"{twice[0]} appears twice" if twice
                else f"{[t for t in tiles if not 0 <= t < TILES][0]} is no tile"
            )
            raise IllegalChanceError(
                "deal", f"P{seat + 1}'s deal is not a permutation of 0..8: {why}"
                + (f" (missing {', '.join(map(str, missing))})" if missing else "")
            )
        masks = self.masks[seat]
        assert masks is not None
        at = 0
        used: list[int] = []
        while at < TILES:
            t = tiles[at]
            g = 0 if masks[0] >> t & 1 else 1 if masks[1] >> t & 1 else 2
            block = tiles[at : at + SIZES[g]]
            if g in used or mask_of(list(block)) != masks[g]:
                groups = self.groups[seat]
                assert groups is not None
                raise IllegalChanceError(
                    "deal",
                    f"P{seat + 1}'s deal splits group {NAMES[g]} ({','.join(map(str, groups[g]))}) at "
                    f"position {at + 1}: a deal keeps each group together",
                )
            used.append(g)
            at += SIZES[g]

    def _do_chance(self, event: ChanceEvent) -> None:
        self.inferred = {}  # what a seat knows may change (see ``inferred``)
        seat = event.data["seat"]
        deals = [self.deals[0], self.deals[1]]  # copy on write (see ``_copy_state``)
        deals[seat] = deals[seat] + [tuple(event.data["tiles"])]
        self.deals = deals
        self.vis[seat].extend([0] * TILES)
        self._eight_fact(seat, None, -1)
        if self.track:
            self.note(None, f"P{seat + 1}'s tiles for deal {self.deal_no + 1} of set {self.set_no} are dealt face down.")
        if len(self.deals[0]) > self.deal_no and len(self.deals[1]) > self.deal_no:
            self.pos = 0
            self._open_round()

    def sample_chance(self, rng: random.Random) -> ChanceEvent:
        """Shuffle the group order, then the tiles inside each group (lowest undealt seat first).

        Each ``rng.shuffle`` is spelled out: the same draws from ``rng._randbelow`` (a
        shuffle of n items draws below n, n - 1, ..., 2), read as the arrangement that
        shuffle makes from them (``_SHUFFLES``): a quarter of the grouping search's
        simulations end on a deal, which cost 6.0-6.5 us by ``rng.shuffle`` and costs
        4.0-4.2 us so."""
        seat = 0 if len(self.deals[0]) <= self.deal_no else 1
        groups = self.groups[seat]
        assert groups is not None
        below = rng._randbelow  # type: ignore[attr-defined]  # what rng.shuffle draws with
        k = below(3)
        tiles: list[int] = []
        for g in _SHUFFLES[3][2 * k + below(2)]:
            inside = groups[g]
            if len(inside) == 2:
                a, b = _SHUFFLES[2][below(2)]
                tiles += (inside[a], inside[b])
            elif len(inside) == 3:
                k = below(3)
                a, b, c = _SHUFFLES[3][2 * k + below(2)]
                tiles += (inside[a], inside[b], inside[c])
            else:
                k = 3 * below(4)
                k = 2 * (k + below(3))
                a, b, c, d = _SHUFFLES[4][k + below(2)]
                tiles += (inside[a], inside[b], inside[c], inside[d])
        return ChanceEvent("deal", {"seat": seat, "tiles": tiles})

    # ------------------------------------------------------------------ results

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def scores(self) -> tuple[int, ...]:
        return (self.chips[0] + self.bets[0], self.chips[1] + self.bets[1])

    def quiet(self) -> bool:
        """Not while a round's betting is under way: the raised bets are not settled."""
        return not (self.phase == BET and (self.acted[0] or self.acted[1]))

    def winner(self) -> int | None:
        return self.won_by

    def timeout_action(self, seat: int) -> Action | None:
        if self.phase == GROUP:
            prev = self.groups[seat] or DEFAULT_GROUPS
            return ("group", prev[0], prev[1], prev[2])
        if self.starter is None:
            return GO_FIRST
        return FOLD

    # ------------------------------------------------------------------ notation

    _GROUP_RE = re.compile(
        r"(?:group\s*)?([abc])\s*=\s*([0-9,\s]*?)\s*([abc])\s*=\s*([0-9,\s]*?)\s*([abc])\s*=\s*([0-9,\s]*)",
        re.ASCII,
    )

    def parse_action(self, seat: int, text: str) -> Action:
        s = " ".join(text.strip().lower().split())
        if not s:
            raise ActionSyntaxError(text, "empty action; expected group/raise/call/fold")
        if "=" in s or s.startswith("group"):
            return self._parse_group(text, s)
        words = s.split()
        verb, args = words[0], words[1:]
        if verb in ("raise", "bet"):
            if len(args) != 1 or not _NUMBER.fullmatch(args[0]):
                raise ActionSyntaxError(text, "`raise N` takes one whole number of chips (digits 0-9)")
            return ("raise", int(args[0]))
        if verb == "propose":
            if args and args[0] == "ante":
                args = args[1:]
            if len(args) != 1 or not _NUMBER.fullmatch(args[0]):
                raise ActionSyntaxError(text, "`propose ante N` takes one whole number (digits 0-9)")
            return ("propose", int(args[0]))
        if verb == "go":
            if args not in (["first"], ["second"]):
                raise ActionSyntaxError(text, "say `go first` or `go second`")
            return ("go", args[0])
        simple = {"call": CALL, "fold": FOLD, "accept": ACCEPT, "decline": DECLINE, "peek": PEEK, "order": ORDER}
        if verb in simple:
            if args:
                raise ActionSyntaxError(text, f"`{verb}` takes nothing more")
            return simple[verb]
        raise ActionSyntaxError(
            text,
            "unknown action; grouping knows `group A=0,1 B=2,3,4 C=5,6,7,8`, `raise N`, `call`, "
            "`fold`, `go first`/`go second` (and in the Final `propose ante N`, `accept`, "
            "`decline`, `peek`, `order`)",
        )

    def _parse_group(self, text: str, s: str) -> Action:
        m = self._GROUP_RE.fullmatch(s)
        if m is None:
            raise ActionSyntaxError(text, "write a grouping as `group A=0,1 B=2,3,4 C=5,6,7,8`")
        parts: dict[str, tuple[int, ...]] = {}
        for i in (0, 2, 4):
            name = m.group(i + 1)
            if name in parts:
                raise ActionSyntaxError(text, f"group {name.upper()} is named twice")
            nums = [w for w in re.split(r"[,\s]+", m.group(i + 2)) if w]
            if not nums:
                raise ActionSyntaxError(text, f"group {name.upper()} lists no tiles")
            values = tuple(int(w) for w in nums)
            bad = [v for v in values if v >= TILES]
            if bad:
                raise ActionSyntaxError(text, f"there is no tile {bad[0]}; tiles are 0..8")
            parts[name] = tuple(sorted(values))
        return ("group", parts["a"], parts["b"], parts["c"])

    def format_action(self, action: Action) -> str:
        tag = action[0]
        if tag == "group":
            return "group " + self._groups_text((action[1], action[2], action[3]))
        if tag == "go":
            return f"go {action[1]}"
        if tag == "propose":
            return f"propose ante {action[1]}"
        return " ".join(str(x) for x in action)

    @staticmethod
    def _groups_text(groups: tuple[tuple[int, ...], ...]) -> str:
        return " ".join(f"{NAMES[g]}={','.join(map(str, groups[g]))}" for g in range(3))

    # ------------------------------------------------------------------ knowledge

    def _dealt(self, d: int) -> int:
        return self.deal_rounds if d < self.deal_no else self.ndealt

    def _cons(self, viewer: int | None, owner: int, d: int) -> tuple[int, ...]:
        """What ``viewer`` (``None``: everyone) knows of each position of ``owner``'s deal
        ``d``, as tile masks."""
        n = self.deal_rounds if d < self.deal_no else self.ndealt  # ``_dealt``
        bit = PUBLIC if viewer is None else 1 << viewer
        deal = self.deals[owner][d]
        vis, eight = self.vis[owner], self.eight[owner]
        i = 9 * d
        # a search asks this for every modelled bet: the untold masks looked up
        out = list(_UNDEALT[0])
        for p in range(n):
            t = deal[p]
            out[p] = 1 << t if vis[i + p] & bit else _UNTOLD[eight[i + p]][t]
        return tuple(out)

    def _past_facts(self, viewer: int) -> tuple[Deals, ...]:
        """What ``viewer`` knows of the opponent's deals of each set before the groups in
        force (oldest first): what everyone was told (``past_public``) and the tiles it
        saw itself (``seen``: its folds and peeks)."""
        owner = 1 - viewer
        past = self.past_public[owner]
        saw = [(s, d, p, t) for s, d, p, t, _how in self.seen[viewer] if s < self.gset]
        if not saw:
            return past
        masks = [[list(deal) for deal in one_set] for one_set in past]
        for s, d, p, t in saw:
            masks[s - 1][d][p] = 1 << t
        return tuple(tuple(tuple(deal) for deal in one_set) for one_set in masks)

    def _entries(self, viewer: int | None, owner: int, d: int) -> list[Entry]:
        """What ``viewer`` (``None``: everyone) knows of each dealt tile of ``owner``'s deal ``d``."""
        deal = self.deals[owner][d]
        vis, eight = self.vis[owner], self.eight[owner]
        bit = PUBLIC if viewer is None else 1 << viewer
        out: list[Entry] = []
        i = 9 * d
        for p in range(self._dealt(d)):
            t = deal[p]
            v = vis[i]
            e = eight[i]
            out.append(
                {
                    "colour": COLOURS[t],
                    "tile": t if v & bit else None,
                    "eight": None if e < 0 else bool(e),
                    "revealed": bool(v & PUBLIC),
                }
            )
            i += 1
        return out

    def _public_used(self, seat: int) -> tuple[str, ...]:
        """Items of ``seat`` whose use the other seat was told of (``order`` is private
        unless the option ``announce_order`` is set)."""
        if self.game.options.get("announce_order", False):
            return self.items_used[seat]
        return tuple(i for i in self.items_used[seat] if i != "order")

    def _view(self, seat: int | None) -> GroupingSeatPart | GroupingPublicPart:
        """What ``seat`` knows; ``None``: what everyone knows (both seats' dealt colours,
        shown tiles, the fold-the-8 facts, bets, chips, announced item uses)."""
        in_round = self.phase == BET
        phase: GroupingPhase
        if self.phase == GROUP:
            phase = "group"
        elif self.phase == BET and self.starter is None:
            phase = "choose"
        else:
            phase = self.phase
        view: GroupingCommon = {
            "variant": "final" if self.FINAL else "death",
            "phase": phase,
            "set": self.set_no,
            "groups_set": self.gset,
            "deal": self.deal_no + 1,
            "round": self.pos + 1 if in_round else None,
            "rounds_played": self.rounds_played,
            "ante": 0 if self.sudden else self.ante,
            "sudden_death": self.sudden,
            "chips": list(self.chips),
            "bets": list(self.bets),
            "chooser": self.chooser,
            "first_choice": self.first_choice,
            "starter": self.starter,
            "to_act": self.to_act if in_round and self.starter is not None else None,
            "acted": list(self.acted) if in_round else [False, False],
            "see_own_tile": self.see_own,
            "proposal": None if self.proposal is None else {"by": self.proposal[0], "ante": self.proposal[1]},
            "rounds": [_round_dict(e) for e in self._round_entries()],
            "end_reason": self.end_reason if self.phase == OVER else None,
        }
        ndeals = max(len(self.deals[0]), len(self.deals[1]))
        if seat is None:
            both = [
                [self._entries(None, s, d) if d < len(self.deals[s]) else [] for s in (0, 1)]
                for d in range(ndeals)
            ]
            public: GroupingPublicPart = {
                **view,
                "deals": [{"seats": seats} for seats in both],
                "tiles": [both[self.deal_no][s][self.pos] for s in (0, 1)] if in_round else None,
                "items": {
                    "held": [
                        [i for i in ITEMS if i in self.game.items[s] and i not in self._public_used(s)]
                        for s in (0, 1)
                    ],
                    "used": [list(self._public_used(s)) for s in (0, 1)],
                },
            }
            return public
        opp = 1 - seat
        groups = self.groups[seat]
        deals: list[SeatDeal] = [
            {
                "mine": self._entries(seat, seat, d) if d < len(self.deals[seat]) else [],
                "theirs": self._entries(seat, opp, d) if d < len(self.deals[opp]) else [],
            }
            for d in range(ndeals)
        ]
        current = deals[self.deal_no] if in_round else None
        known = self.order_known[seat]
        mine: GroupingSeatPart = {
            **view,
            "my_groups": None if groups is None else {NAMES[g]: list(groups[g]) for g in range(3)},
            "deals": deals,
            "my_tile": current["mine"][self.pos] if current else None,
            "their_tile": current["theirs"][self.pos] if current else None,
            "my_order": (
                [NAMES[g] for g in known[1]] if known is not None and known[0] == self.gset else None
            ),
            "items": {
                "mine": list(self.items_left[seat]),
                # in the fixed ITEMS order: the set's own order varies with the hash seed
                "theirs": [
                    i for i in ITEMS if i in self.game.items[opp] and i not in self._public_used(opp)
                ],
                "used": [
                    list(self.items_used[s]) if s == seat else list(self._public_used(s)) for s in (0, 1)
                ],
            },
            "proposals_left": self._proposals_left(seat),
            "seen": [
                {"set": s, "deal": d + 1, "round": p + 1, "tile": t, "how": how}
                for s, d, p, t, how in self.seen[seat]
            ],
        }
        return mine

    def _proposals_left(self, seat: int) -> int:
        return 0

    # ------------------------------------------------------------------ sampling

    def resample(self, seat: int, rng: random.Random) -> State:
        """A world consistent with what ``seat`` knows, and holding nothing else.

        Redrawn: the seat's own numbers it was not told, the opponent's groups (from
        their posterior given everything known of the deals made with them, exact under
        a uniform prior) and the opponent's deals, and what the opponent saw of the
        seat's tiles this set (from the redrawn deals).  Dropped: what the opponent saw
        in earlier sets, the group order an earlier ``order`` told it, and an
        unannounced ``order`` use (the world's opponent still holds the item).  The round
        log holds only public facts.

        Under regrouping limits (the Final) the opponent's groups are drawn from their
        posterior given the facts of every set (``_past_facts``): its groups of each set
        form a chain of legal regroupings, each fitting what the seat saw of that set,
        weighed under a uniform prior over set-1 groupings and over legal regroupings.
        """
        return sampler(self.game.id).resample(self, seat, rng)


@lru_cache(maxsize=2048)
def _regroupings(prev: Masks, limits: tuple[int, int, int]) -> tuple[Action, ...]:
    """Grouping actions within the regrouping limits of ``prev`` (cached per previous grouping)."""
    allowed = [
        frozenset(m for m in set(ms) if (prev[g] & ~m).bit_count() <= limits[g])
        for g, ms in enumerate(zip(*GROUPING_MASKS))
    ]
    ok_a, ok_b, ok_c = allowed
    return tuple(
        action
        for action, (a, b, c) in zip(GROUP_ACTIONS, GROUPING_MASKS)
        if a in ok_a and b in ok_b and c in ok_c
    )


class GroupingFinalState(GroupingState):
    """The Final: chips are lost, never won; regrouping limits, proposals and items."""

    game: GroupingFinal
    DEALS_PER_SET = 1
    ANTE_EVERY = 2
    REGROUP = (1, 1, 2)
    FINAL = True

    def _settle(self, folder: int | None, tiles: tuple[int, int]) -> None:
        """Each seat keeps or loses its own bet; the fold-the-8 penalty; both-broke exception."""
        d, p = self.deal_no, self.pos
        penalty = 0
        if folder is not None:
            winner: int | None = 1 - folder
            self.chips[1 - folder] += self.bets[1 - folder]
            slot = 9 * d + p
            if tiles[folder] == 8:
                penalty = min(EIGHT_PENALTY, self.chips[folder])
                self.chips[folder] -= penalty
                self._eight_fact(folder, slot, 1)
                if self.track:
                    self.note(None, f"P{folder + 1} folded the 8: a penalty of {penalty} chips is discarded.")
            else:
                self._eight_fact(folder, slot, 0)
            if self.track:
                self.note(None, f"P{2 - folder} takes back its bet; P{folder + 1}'s bet of {self.bets[folder]} "
                          "is discarded.")
        else:
            winner = 0 if tiles[0] > tiles[1] else 1 if tiles[1] > tiles[0] else None
            if winner is not None:
                self.chips[winner] += self.bets[winner]
                if self.track:
                    self.note(None, f"P{winner + 1} takes back its bet; P{2 - winner}'s bet of "
                              f"{self.bets[1 - winner]} is discarded.")
            elif self.chips[0] == 0 and self.chips[1] == 0:
                self.chips[0] += self.bets[0]
                self.chips[1] += self.bets[1]
                if self.track:
                    self.note(None, "Equal tiles would leave both seats with no chips: both take their bets back.")
            elif self.track:
                self.note(None, "Equal tiles: both bets are discarded.")
        self._log_round("fold" if folder is not None else "showdown", folder, winner,
                        None if folder is not None else tiles, penalty)
        if winner is not None:
            self.starter = winner

    # --------------------------------------------------------------- free actions

    def _proposals_left(self, seat: int) -> int:
        limit = self.game.options["proposal_limit"]
        if limit is None:  # the rules set no limit
            return 1
        return max(0, limit - self.proposals_made[seat])

    def _max_ante(self) -> int:
        # the largest proposal *listed*: any ante above the larger stack has the same effect
        # (neither seat can pay it), so bots need no more; the rules bound N only from
        # below, and ``_check_free`` accepts any N above the current ante
        return max(self.chips) + 1

    def _add_free(self, seat: int, out: list[Action]) -> None:
        super()._add_free(seat, out)
        if self.phase == GROUP:
            if not self.sudden and self._proposals_left(seat):
                low, high = self.ante + 1, self._max_ante() + 1
                if high <= len(PROPOSALS):
                    out.extend(PROPOSALS[low:high])
                else:
                    out.extend(("propose", n) for n in range(low, high))
            if self.proposal is not None and self.proposal[0] != seat:
                out.append(ACCEPT)
                out.append(DECLINE)
            return
        if self.phase == BET and not self.sudden:
            if "peek" in self.items_left[seat] and not self.acted[seat]:
                out.append(PEEK)
            if "order" in self.items_left[seat] and self._order_window():
                out.append(ORDER)

    def _order_window(self) -> bool:
        return self.phase == BET and self.deal_no == 0 and self.pos == 0 and not (self.acted[0] or self.acted[1])

    def _check_free(self, seat: int, action: Action, text: str) -> None:
        tag = action[0]
        if tag == "go":
            super()._check_free(seat, action, text)
            return
        if len(action) != (2 if tag == "propose" else 1):
            raise IllegalActionError(text, "malformed action")
        if tag in ("propose", "accept", "decline"):
            if self.phase != GROUP:
                raise IllegalActionError(text, "ante proposals are made and answered only while a grouping is open")
            if self.sudden:
                raise IllegalActionError(text, "in sudden death there is no ante to propose")
        if tag == "propose":
            n = action[1]
            if not self._proposals_left(seat):
                raise IllegalActionError(
                    text, f"P{seat + 1} has made its {self.game.options['proposal_limit']} proposal(s) "
                    "for this grouping (option proposal_limit)"
                )
            if not is_int(n) or n <= self.ante:
                raise IllegalActionError(text, f"a proposed ante must be above the current ante {self.ante}")
            return
        if tag in ("accept", "decline"):
            if self.proposal is None:
                raise IllegalActionError(text, "there is no ante proposal to answer")
            if self.proposal[0] == seat:
                raise IllegalActionError(text, f"P{seat + 1} made the proposal; only P{2 - seat} may answer it")
            return
        if tag in ("peek", "order"):
            if tag not in self.items_left[seat]:
                had = tag in self.game.items[seat]
                raise IllegalActionError(
                    text, f"P{seat + 1} has already used {tag}" if had else f"P{seat + 1} does not hold {tag}"
                )
            if self.phase != BET or self.sudden:
                raise IllegalActionError(
                    text, f"{tag} is used during a betting round" + (" (there is no betting in sudden death)"
                                                                     if self.sudden else "")
                )
            if tag == "peek" and self.acted[seat]:
                raise IllegalActionError(text, "peek comes before the holder's first betting action of the round")
            if tag == "order" and not self._order_window():
                raise IllegalActionError(
                    text, "order is used after a set's deal and before any betting in its round 1"
                )
            return
        super()._check_free(seat, action, text)

    def _do_free(self, seat: int, action: Action) -> None:
        self.inferred = {}  # what a seat knows may change (see ``inferred``)
        tag = action[0]
        opp = 1 - seat
        if tag == "go":
            super()._do_free(seat, action)
        elif tag == "propose":
            made = list(self.proposals_made)  # copy on write (see ``_copy_state``)
            made[seat] += 1
            self.proposals_made = made
            self.proposal = (seat, action[1])
            if self.track:
                self.note(None, f"P{seat + 1} proposes an ante of {action[1]}.")
        elif tag == "accept":
            assert self.proposal is not None
            self.ante = self.proposal[1]
            self.proposal = None
            if self.track:
                self.note(None, f"P{seat + 1} accepts: the ante is {self.ante} from now on.")
        elif tag == "decline":
            self.proposal = None
            if self.track:
                self.note(None, f"P{seat + 1} declines; the ante stays {self.ante}.")
        else:
            # copy on write (see ``_copy_state``)
            left, used = list(self.items_left), list(self.items_used)
            left[seat] = tuple(i for i in left[seat] if i != tag)
            used[seat] = used[seat] + (tag,)
            self.items_left, self.items_used = left, used
            d, p = self.deal_no, self.pos
            if tag == "peek":
                tile = self.deals[opp][d][p]
                self.vis[opp][9 * d + p] |= 1 << seat
                self._saw(seat, SeenTile(self.set_no, d, p, tile, "peek"))
                if self.track:
                    self.note(None, f"P{seat + 1} uses peek.")
                    self.note(seat, f"Peek: P{opp + 1}'s tile is {tile}.")
            else:
                masks = self.masks[seat]
                assert masks is not None
                order = deal_order(masks, self.deals[seat][0])
                known = list(self.order_known)  # copy on write (see ``_copy_state``)
                known[seat] = (self.gset, order)
                self.order_known = known
                if self.track:
                    if self.game.options.get("announce_order", False):
                        self.note(None, f"P{seat + 1} uses order.")
                    self.note(seat, f"Order: your groups come {', '.join(NAMES[g] for g in order)} this set.")


# --------------------------------------------------------------------------- registration
# Named by the entry point in blackwhite's pyproject.toml (group ``blackwhite.games``);
# ``tuning`` is the ``ismcts`` bot's, ``analysis`` the analysis's settings for this game
# (docs/bots.md, docs/analysis.md give the figures they were chosen by).

#: a poker-like betting game: one round per simulation (cut once the bets are
#: settled), the other seat betting by the heuristic from its own view of the world
#: and the worlds drawn to fit its raises (``infer``); the searcher's own later bets
#: by the heuristic (``depth`` 1); the champion and a challenger compared on the same
#: world (``paired``).  The search may overrule the heuristic only once the other
#: seat's play says it plays like it (``convinced``): against random play the
#: heuristic's own choice is the better bet.  See docs/bots.md for the figures.
#: Analysis: the seat's share of all the chips, cut after about two rounds (24 moves
#: left the paired noise of 16 worlds at 6-9 points, larger than most single bets)
ENTRY = GameEntry(
    id="grouping",
    rules="blackwhite.games.grouping:Grouping",
    rules_page="blackwhite:_rules/grouping.md",
    sampler="blackwhite.games.grouping_sampler",
    encoding="blackwhite.games.grouping_encoding:GroupingEncoding",
    heuristic="blackwhite.bots.heuristic.grouping",
    tuning=dict(
        horizon=1, scale=25.0, rollout=1.0, model=1.0, adapt=True, trust=1.5,
        depth=1, infer=True, paired=True, convinced=5.0,
        state_policy="blackwhite.bots.heuristic.grouping:choose_in_state",
        state_explain="blackwhite.bots.heuristic.grouping:explain_in_state",
    ),
    analysis=dict(horizon=8, scale=0.0, share=True, worlds=2.0),
    drawer="blackwhite.terminal.draw:draw_grouping",
    twins="tests.twins.grouping",
    page_template="blackwhite.web:templates/games/grouping.html",
    page_script="blackwhite.web:static/games/grouping.js",
    page_style="blackwhite.web:static/games/grouping.css",
    text_drawer="blackwhite.discord_bridge.draw:draw_grouping",
)
#: as grouping, on its larger score scale
FINAL_ENTRY = GameEntry(
    id="grouping-final",
    rules="blackwhite.games.grouping:GroupingFinal",
    rules_page="blackwhite:_rules/grouping-final.md",
    sampler="blackwhite.games.grouping_sampler",
    encoding="blackwhite.games.grouping_encoding:GroupingFinalEncoding",
    heuristic="blackwhite.bots.heuristic.grouping",
    tuning={**ENTRY.tuning, "scale": 50.0},
    analysis=dict(horizon=8, scale=0.0, share=True, worlds=1.5),
    drawer="blackwhite.terminal.draw:draw_grouping",
    twins="tests.twins.grouping_final",
    page_template="blackwhite.web:templates/games/grouping-final.html",
    page_script="blackwhite.web:static/games/grouping.js",
    page_style="blackwhite.web:static/games/grouping.css",
    text_drawer="blackwhite.discord_bridge.draw:draw_grouping",
)
