"""Joust Black & White: ``joust`` and ``joust-final`` (docs/rules/joust.md, joust-final.md).

Three sets of (auction of secret-valued tiles, joust phase), then a final joust with
every kept tile.  The Final Match differs only where its rules say so -- tiles 0..13
with two leftovers that the short seat shares out (``keep N``), the ``equaliser``
opener/tiebreak, and the ``inversion`` and ``conceal`` items -- and those differences
are overrides of a few hooks (:class:`JoustFinal`, :class:`JoustFinalState`), so the
shared rules live in one place.

Inside the engine a tile is an id ``set * slots + slot``: slots 0..11 are the four
groups' Minute/Balance/Giant (``slot = 3 * group + rank``, so a group's slots are in
value order) and slots 12.. the leftovers.  ``know[t]`` is the bitmask of seats told
tile ``t``'s original value.  Views (``view(seat)``, and ``view(None)`` for
spectators) are built only from that, the seat's own tiles and the public
announcements; so is :meth:`JoustState.resample`, whose sampler lives in
:mod:`.joust_sampler`.

Small variants (options ``sets`` 1..3 and ``groups`` 1..4, tiles ``low..3*groups+1``)
keep the slot layout: the slots of groups past ``groups`` are simply never dealt.

Item uses (``invert N``, ``conceal``) are *side actions* of the first joust's required
step: they do not fill the seat's slot in the simultaneous step, take effect for the
holder at once (so it can play the inverted tile), and are announced to everyone when
the step resolves (so the other seat cannot wait to see them).
"""

from __future__ import annotations

import random
import re
from bisect import bisect_left, insort
from dataclasses import replace
from typing import Any, ClassVar, Final, Mapping, NamedTuple

from ..engine.core import (
    Action, ClockRule, ActionSyntaxError, ChanceEvent, Game, IllegalActionError, IllegalChanceError,
    OptionError, OptionInfo, State, colour, is_int, more_points, seat_items
)
from ..engine.registry import GameEntry, sampler
from ..views.joust import (
    Auction,
    JoustItems,
    JoustPart,
    JoustPhase,
    JoustStep,
    JoustView,
    Leftover,
    Lot,
    LotGroup,
    LotTile,
    MyTile,
    PlayView,
    SetName,
    TileStatus,
)

MINUTE, BALANCE, GIANT = 0, 1, 2
LABELS = ("minute", "balance", "giant")
SETS = 3
GROUPS = 4
TOP = 13  # the highest tile in both games; inversion maps X to TOP - X
MAX_SUB = 5  # tiles one seat may submit in one joust
LEFT = 0  # the "group" of a leftover in `from S.leftover`
CONCEALED = -1  # announced group of a tile played under conceal
FINAL = 3  # ``set_no`` during the final joust (the sets are 0..2)
ITEM_NAMES = ("inversion", "equaliser", "conceal")

# phases
LOTS: Final = "lots"
AUCTION: Final = "auction"
NEXT: Final = "next"
KEEP: Final = "keep"
REQUIRED: Final = "joust-required"
OPTIONAL: Final = "joust-optional"
OVER: Final = "over"
# tile status
NONE, HAND, SUB, USED = 0, 1, 2, 3
STATUS: tuple[TileStatus, ...] = ("none", "hand", "submitted", "used")


def closest_rank(triple: list[int] | tuple[int, ...], last: int) -> int:
    """The label that opens a group: nearest to ``last``, a tie going to Balance.

    (With distinct values a tie at the smallest distance always involves Balance, so
    "ties to Balance" is always well defined.)
    """
    best, key = BALANCE, (99, 1)
    for rank in (MINUTE, BALANCE, GIANT):
        k = (abs(triple[rank] - last), 0 if rank == BALANCE else 1)
        if k < key:
            best, key = rank, k
    return best


# --------------------------------------------------------------------------- records


class Sale(NamedTuple):
    """One auction's result (public)."""

    set: int  # 0..2
    group: int  # 0..3
    rank: int  # MINUTE, BALANCE or GIANT
    winner: int
    price: int


class Play(NamedTuple):
    """One submitted tile.  ``tile`` is known to its seat only; the rest is announced."""

    joust: int  # joust number, from 1
    phase: int  # set 0..2 being played, or FINAL
    seat: int
    tile: int  # tile id (private to ``seat``)
    set: int  # the set the tile was bought in, 0..2
    group: int  # announced group 1..4, LEFT, or CONCEALED
    colour: int  # announced colour: value & 1 when played
    value: int  # revealed value, -1 until the reveal


class JoustResult(NamedTuple):
    """One revealed joust (public)."""

    joust: int
    phase: int  # set 0..2, or FINAL
    totals: tuple[int, int]
    gains: tuple[int, int]


class TileName(NamedTuple):
    """How a tile id is named: built once per slots-per-set, shared read-only."""

    set: int  # 1..3
    group: int | str  # 1..4 or "leftover"
    label: str | None  # minute/balance/giant, None for a leftover
    origin: str  # what `from` says: "2.3", "2.leftover"


# --------------------------------------------------------------------------- shared tables
#
# Built at import and never changed afterwards, so matches running in several threads
# share them safely (a lazily grown table was corrupted under threads).


def _tile_names(ns: int) -> tuple[TileName, ...]:
    rows: list[TileName] = []
    for t in range(SETS * ns):
        k, slot = t // ns + 1, t % ns
        if slot < 12:
            g = slot // 3 + 1
            rows.append(TileName(k, g, LABELS[slot % 3], f"{k}.{g}"))
        else:
            rows.append(TileName(k, "leftover", None, f"{k}.leftover"))
    return tuple(rows)


#: by slots per set (13 in joust, 14 in joust-final)
_TILE_NAMES: dict[int, tuple[TileName, ...]] = {ns: _tile_names(ns) for ns in (13, 14)}
#: :meth:`JoustState.origin` of every tile id, by slots per set
_ORIGINS: dict[int, tuple[tuple[int, int], ...]] = {
    ns: tuple((t // ns + 1, t % ns // 3 + 1 if t % ns < 12 else LEFT) for t in range(SETS * ns)) for ns in (13, 14)
}
#: :meth:`JoustState._pool_range` by slots per set and ``set_no`` (FINAL: every tile)
_POOLS: dict[int, tuple[range, ...]] = {
    ns: (*(range(k * ns, (k + 1) * ns) for k in range(SETS)), range(SETS * ns)) for ns in (13, 14)
}
#: builds a Sale, a Play or a JoustResult without the named tuple's Python-level ``__new__``
_new_record = tuple.__new__
#: how :meth:`JoustState._play_actions` names a tile without building tuples: the key
#: ``value * 32 + 5 * set + group`` sorts as (value, set, group) does, and two tiles
#: share a key only when a play cannot tell them apart
_PLAY_KEY: dict[int, tuple[int, ...]] = {ns: tuple(5 * k + g for k, g in _ORIGINS[ns]) for ns in (13, 14)}
#: by tag: ``(tag, value)`` by value, and ``(tag, value, set, group)`` by key
_BARE: dict[str, tuple[Action, ...]] = {tag: tuple((tag, v) for v in range(TOP + 1)) for tag in ("play", "invert")}
_NAMED: dict[str, tuple[Action, ...]] = {
    tag: tuple((tag, x >> 5, (x & 31) // 5, (x & 31) % 5) for x in range((TOP + 1) * 32)) for tag in ("play", "invert")
}
#: ``("bid", n)`` for the bids legal_actions lists most (it stays cheap); larger
#: ones are built per call
_BIDS: tuple[Action, ...] = tuple(("bid", n) for n in range(1001))


def _bid_actions(lo: int, hi: int) -> list[Action]:
    """``("bid", n)`` for lo <= n <= hi (a fresh list: callers may append)."""
    out = list(_BIDS[lo : hi + 1])
    if hi >= len(_BIDS):
        out.extend(("bid", n) for n in range(max(lo, len(_BIDS)), hi + 1))
    return out


_OWNER = (0, 1, None)  # by own[t]: seat 0, seat 1, -1 -> None
#: ``colour()`` by ``value & 1``, for the views' hot loops
_COLOURS = (colour(0), colour(1))


def _leftover_key(entry: Leftover) -> tuple[int, int]:
    """An order of leftovers that hides which slot the shuffle put each one in."""
    owner, value = entry["owner"], entry["value"]
    return (2 if owner is None else owner, -1 if value is None else value)


def _phase_name(phase: int) -> SetName:
    """A phase as views give it: the set 1..3, or "final"."""
    return "final" if phase == FINAL else phase + 1


# --------------------------------------------------------------------------- games


class Joust(Game):
    """The Death Match: tiles 1..13, one leftover, no items, the DMO breaks ties."""

    id = "joust"
    small_options: ClassVar[Mapping[str, Any]] = {"sets": 1, "groups": 1, "chips": 2}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = ({"sets": 2, "groups": 2, "chips": 5},)
    title = "Joust Black & White (Death Match)"
    num_seats = 2
    #: what each kind of action does (the pages' buttons and prompt)
    action_help: ClassVar[dict[str, str]] = {
        'bid': 'bid for the tile on sale',
        'next': 'choose which tile of the group is sold next',
        'keep': 'choose which leftover tile you keep',
        'play': 'choose a tile to play',
        'pass': 'pass (play no more tiles in this joust)',
        'fold': 'fold',
    }
    option_defaults: ClassVar[dict[str, Any]] = {
        "chips": 90,
        "leftover_count": "set",
        "sets": SETS,
        "groups": GROUPS,
    }
    variant_options: ClassVar[frozenset[str]] = frozenset({"sets", "groups"})
    option_info: ClassVar[dict[str, OptionInfo]] = {
        "chips": OptionInfo("Starting chips", "Chips each seat starts the match with.", "number",
                            minimum=0, maximum=100_000),
        "leftover_count": OptionInfo("Who gets the leftover", "The leftover tile goes to the seat with fewer "
                                     "tiles, counted as chosen here.", "choice",
                                     choices=(("set", "fewer tiles bought in this set"),
                                              ("held", "fewer tiles held in all"))),
        "sets": OptionInfo("Sets", "Sets played before the final joust (a smaller game plays fewer).", "number",
                           minimum=1, maximum=SETS),
        "groups": OptionInfo("Groups per set", "Groups of three tiles in each set (a smaller game has fewer).",
                             "number", minimum=1, maximum=GROUPS),
    }
    clock = ClockRule(
        {"action": 30.0},
        on_timeout="fold in an auction; pass, or the smallest tile when one is required, in a joust; "
        "the smaller label for `next`",
    )
    low: ClassVar[int] = 1
    leftovers: ClassVar[int] = 1
    #: sets before the final joust and groups per set (options ``sets``, ``groups``);
    #: the highest tile is ``3 * groups + 1`` (13 in the standard game)
    sets: int = SETS
    groups: int = GROUPS
    top: int = TOP

    def validate_options(self, options: dict[str, Any]) -> None:
        chips = options["chips"]
        if not is_int(chips) or not 0 <= chips <= 100_000:
            raise OptionError(f"option chips must be a whole number 0..100000, got {chips!r}")
        sets, groups = options["sets"], options["groups"]
        if not is_int(sets) or not 1 <= sets <= SETS:
            raise OptionError(
                f"option sets must be a whole number 1..{SETS} (sets before the final joust), got {sets!r}"
            )
        if not is_int(groups) or not 1 <= groups <= GROUPS:
            raise OptionError(
                f"option groups must be a whole number 1..{GROUPS} (groups of three per set), got {groups!r}"
            )
        # a smaller variant keeps the structure: fewer sets, fewer groups, tiles low..3*groups+1
        self.sets, self.groups, self.top = sets, groups, 3 * groups + 1
        if options["leftover_count"] not in ("set", "held"):
            raise OptionError(
                "option leftover_count must be 'set' (tiles bought in this set) or 'held' "
                f"(all tiles held), got {options['leftover_count']!r}"
            )

    def new_initial_state(self) -> JoustState:
        return JoustState(self)

    def items_of(self, seat: int) -> frozenset[str]:
        return frozenset()

    def favoured(self) -> int:
        """The seat that opens each set's first auction and wins on equal points."""
        return self.dmo


class JoustFinal(Joust):
    """The Final Match: tiles 0..13, two leftovers shared by ``keep``, items."""

    id = "joust-final"
    small_options: ClassVar[Mapping[str, Any]] = {"sets": 1, "groups": 1, "chips": 2}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = (
        {"sets": 1, "groups": 2, "chips": 3, "items": {"0": ["conceal"], "1": ["inversion"]}},
    )
    title = "Joust Black & White (Final Match, with items)"
    option_defaults: ClassVar[dict[str, Any]] = {
        **Joust.option_defaults,
        "items": {},
        "invert_scope": "held",
    }
    option_info: ClassVar[dict[str, OptionInfo]] = {
        **Joust.option_info,
        "items": OptionInfo("Items", "The items each seat holds: inversion (a tile's value becomes 13 minus "
                            "it), equaliser, conceal (hide the groups of the tiles played).", "seat_items",
                            choices=tuple((name, name) for name in ITEM_NAMES)),
        "invert_scope": OptionInfo("What inversion may turn", "Which tiles the inversion item may turn.",
                                   "choice", choices=(("held", "any tile held"),
                                                      ("phase", "a tile playable in that phase"))),
    }
    low = 0
    leftovers = 2
    clock = ClockRule(
        {"action": 30.0},
        on_timeout="fold in an auction; pass, or the smallest tile when one is required (no item use), "
        "in a joust; the smaller label for `next`; the smaller value for `keep`",
    )

    def validate_options(self, options: dict[str, Any]) -> None:
        super().validate_options(options)
        sets = self.item_sets = seat_items(options["items"], ITEM_NAMES, merge_repeated=True)
        # fixed with the options (``dmo`` is set before they are validated); every view asks
        holders = [s for s in (0, 1) if "equaliser" in sets[s]]
        self._favoured = holders[0] if len(holders) == 1 else self.dmo
        if options["invert_scope"] not in ("held", "phase"):
            raise OptionError(
                "option invert_scope must be 'held' (any tile held) or 'phase' "
                f"(a tile playable in that phase), got {options['invert_scope']!r}"
            )

    def new_initial_state(self) -> JoustState:
        return JoustFinalState(self)

    def items_of(self, seat: int) -> frozenset[str]:
        return self.item_sets[seat]

    def favoured(self) -> int:
        return self._favoured


# --------------------------------------------------------------------------- state


class JoustState(State[JoustView]):
    """A position of ``joust``; :class:`JoustFinalState` overrides the final's rules."""

    game: Joust

    def __init__(self, game: Joust) -> None:
        super().__init__(game)
        self.ns = 12 + game.leftovers  # slots per set
        n = SETS * self.ns
        self.val = [-1] * n  # current value (after an inversion)
        self.orig = [-1] * n  # value as dealt
        self.own = [-1] * n
        self.stat = [NONE] * n
        #: each seat's tiles in hand (``stat`` HAND), in id order: what ``own`` and
        #: ``stat`` say, kept beside them so a step need not scan every tile
        self.held: list[list[int]] = [[], []]
        self.know = [0] * n  # bit s: seat s was told the original value
        self.chips = [game.options["chips"]] * 2
        self.points = [0, 0]
        self.first = [-1] * (SETS * GROUPS)  # label announced to open each group
        self.order: list[tuple[int, ...]] = [()] * (SETS * GROUPS)  # labels sold, in order
        self.auctions: list[Sale] = []
        self.plays: list[Play] = []
        self.jousts: list[JoustResult] = []
        self.sub: list[list[int]] = [[], []]  # tiles submitted in the current joust
        self.leftover_to = [-1] * SETS  # seat given (joust) / keeping (final) the leftover
        self.set_no = 0
        self.group = 0
        self.rank = BALANCE
        self.turn = 0
        self.bid = -1
        self.high = -1  # seat holding the current bid
        self.last_winner = -1
        self.chooser = -1
        self.keeper = -1
        self.step = 0
        self.joust_no = 0
        self.phase_first = False  # the current joust is its phase's first
        self.concealed = False
        self.opt_seats: tuple[int, ...] = ()
        self.items = (game.items_of(0), game.items_of(1))
        self.used: list[frozenset[str]] = [frozenset(), frozenset()]  # incl. not yet announced
        self.used_pub: list[frozenset[str]] = [frozenset(), frozenset()]
        self.hold: list[tuple[Action, ...]] = [(), ()]  # item uses awaiting announcement
        self.inv_tile = [-1, -1]  # the tile each seat inverted (private to it)
        self.inv_phase = [-1, -1]  # phase in which a seat's inversion was announced
        self.phase: JoustPhase = LOTS

    def _copy_state(self, new: State) -> None:
        assert isinstance(new, JoustState)
        new.val = self.val[:]
        new.orig = self.orig[:]
        new.own = self.own[:]
        new.stat = self.stat[:]
        new.held = [self.held[0][:], self.held[1][:]]
        new.know = self.know[:]
        new.chips = self.chips[:]
        new.points = self.points[:]
        new.first = self.first[:]
        new.order = self.order[:]
        new.auctions = self.auctions[:]
        new.plays = self.plays[:]
        new.jousts = self.jousts[:]
        new.sub = [self.sub[0][:], self.sub[1][:]]
        new.leftover_to = self.leftover_to[:]
        new.used = self.used[:]
        new.used_pub = self.used_pub[:]
        new.hold = self.hold[:]
        new.inv_tile = self.inv_tile[:]
        new.inv_phase = self.inv_phase[:]

    # ------------------------------------------------------------------ tiles

    def _tid(self, k: int, g: int, rank: int) -> int:
        return k * self.ns + 3 * g + rank

    def origin(self, t: int) -> tuple[int, int]:
        """(set 1..3, group 1..4 or LEFT) -- what `from S.G` names."""
        slot = t % self.ns
        return (t // self.ns + 1, slot // 3 + 1 if slot < 12 else LEFT)

    def _origin_text(self, t: int) -> str:
        """What `from` says for tile ``t``: "2.3", "2.leftover"."""
        return _TILE_NAMES[self.ns][t].origin

    def _pool_range(self) -> range:
        """The tiles of the current set, or every tile in the final joust."""
        return _POOLS[self.ns][self.set_no]

    def playable(self, seat: int) -> list[int]:
        """Tiles ``seat`` may play now: this set's in a set phase, all kept in the final."""
        held, pool = self.held[seat], self._pool_range()
        return held[bisect_left(held, pool.start) : bisect_left(held, pool.stop)]

    def _count_playable(self, seat: int) -> int:
        return len(self.playable(seat))

    def _has_playable(self, seat: int) -> bool:
        """``playable(seat)`` is not empty (every step asks)."""
        held, pool = self.held[seat], self._pool_range()
        return bisect_left(held, pool.stop) > bisect_left(held, pool.start)

    def _to_hand(self, seat: int, t: int) -> None:
        """``seat`` now holds tile ``t`` (bought, given or kept)."""
        self.own[t] = seat
        self.stat[t] = HAND
        insort(self.held[seat], t)

    def _recount_held(self) -> None:
        """``held`` again from ``own`` and ``stat``, after a resample rewrote them."""
        own, stat = self.own, self.stat
        self.held = [[t for t in range(len(own)) if own[t] == s and stat[t] == HAND] for s in (0, 1)]

    def _dealt(self) -> int:
        """Number of sets whose lots are out."""
        return sum(1 for k in range(SETS) if self.orig[k * self.ns] >= 0)

    # ------------------------------------------------------------------ steps

    def simultaneous(self) -> bool:
        # what the core's len(awaited()) > 1 says, without building the tuple
        phase = self.phase
        return phase == REQUIRED or (phase == OPTIONAL and len(self.opt_seats) > 1)

    def awaited(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == AUCTION:
            return (self.turn,)
        if phase == REQUIRED:
            return (0, 1)
        if phase == OPTIONAL:
            return self.opt_seats
        if phase == NEXT:
            return (self.chooser,)
        if phase == KEEP:
            return (self.keeper,)
        return ()

    def chance_kind(self) -> str | None:
        return "lots" if self.phase == LOTS else None

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def scores(self) -> tuple[int, ...]:
        return (self.points[0], self.points[1])

    def winner(self) -> int | None:
        return more_points(self.points, self.game.favoured())

    # ------------------------------------------------------------------ chance

    def sample_chance(self, rng: random.Random) -> ChanceEvent:
        ng = self.game.groups
        tiles = list(range(self.game.low, self.game.top + 1))
        rng.shuffle(tiles)
        groups = [sorted(tiles[3 * g : 3 * g + 3]) for g in range(ng)]
        return ChanceEvent("lots", {"groups": groups, "leftover": sorted(tiles[3 * ng :])})

    def check_chance(self, event: ChanceEvent) -> None:
        self._read_lots(event)

    def _read_lots(self, event: ChanceEvent) -> tuple[list[list[int]], list[int]]:
        """The lots of an event, or IllegalChanceError saying why they are not a partition."""
        data = event.data
        low, nleft, top, ng = self.game.low, self.game.leftovers, self.game.top, self.game.groups
        want = (
            f"tiles {low}..{top} in {ng} group{'s' if ng > 1 else ''} of 3 "
            f"and {nleft} leftover{'s' if nleft > 1 else ''}"
        )
        extra = sorted(set(data) - {"groups", "leftover"})
        if extra:
            raise IllegalChanceError("lots", f"unknown field(s) {', '.join(extra)}; lots give 'groups' and 'leftover'")
        groups, left = data.get("groups"), data.get("leftover")
        if not isinstance(groups, (list, tuple)) or len(groups) != ng:
            raise IllegalChanceError("lots", f"'groups' must list {ng} group(s); the lots are {want}")
        for g, grp in enumerate(groups):
            if not isinstance(grp, (list, tuple)) or len(grp) != 3:
                raise IllegalChanceError("lots", f"group {g + 1} must have exactly 3 tiles; the lots are {want}")
        if not isinstance(left, (list, tuple)) or len(left) != nleft:
            raise IllegalChanceError("lots", f"'leftover' must list exactly {nleft} tile(s); the lots are {want}")
        values = [v for grp in groups for v in grp] + list(left)
        for v in values:
            if not is_int(v) or not low <= v <= top:
                raise IllegalChanceError("lots", f"{v!r} is not a tile; tiles are {low}..{top}")
        seen: set[int] = set()
        for v in values:
            if v in seen:
                raise IllegalChanceError("lots", f"tile {v} appears twice; the lots must use each of {low}..{top} once")
            seen.add(v)
        return [sorted(grp) for grp in groups], sorted(left)  # the order within means nothing

    def _do_chance(self, event: ChanceEvent) -> None:
        # trusted, like every _do: the checked path has read the lots (check_chance)
        data = event.data
        groups = [sorted(grp) for grp in data["groups"]]  # the order within means nothing
        left = sorted(data["leftover"])
        k, ns = self.set_no, self.ns
        for g, grp in enumerate(groups):
            for r, v in enumerate(grp):
                t = k * ns + 3 * g + r
                self.orig[t] = self.val[t] = v
        for i, v in enumerate(left):
            t = k * ns + 12 + i
            self.orig[t] = self.val[t] = v
        if self.track:
            cols = "; ".join(
                f"group {g + 1}: " + ", ".join(f"{LABELS[r]} {colour(grp[r])}" for r in range(3))
                for g, grp in enumerate(groups)
            )
            self.note(None, f"Set {k + 1} lots ({cols}).")
        self.group = 0
        self.first[k * GROUPS] = BALANCE
        self.rank = BALANCE
        if self.track:
            self.note(None, f"Group 1 starts with its Balance; P{self.game.favoured() + 1} opens.")
        self._open_auction(self.game.favoured())

    # ------------------------------------------------------------------ auctions

    def _open_auction(self, opener: int) -> None:
        self.phase = AUCTION
        self.turn = opener
        self.bid = -1
        self.high = -1

    def _bid_floor(self) -> int:
        return 0 if self.bid < 0 else self.bid + 1

    def _do_auction(self, seat: int, action: Action) -> None:
        if action[0] == "bid":
            self.bid = action[1]
            self.high = seat
            self.turn = 1 - seat
            if self.track:
                self.note(None, f"P{seat + 1} bids {action[1]}.")
            return
        winner = 1 - seat
        price = self.bid if self.high == winner else 0
        if self.track:
            self.note(None, f"P{seat + 1} folds.")
        self._award(winner, price)

    def _award(self, winner: int, price: int) -> None:
        k, g, rank = self.set_no, self.group, self.rank
        t = k * self.ns + 3 * g + rank  # _tid
        self.chips[winner] -= price
        self._to_hand(winner, t)
        self.know[t] |= 1 << winner
        self.auctions.append(_new_record(Sale, (k, g, rank, winner, price)))
        idx = k * GROUPS + g
        done = self.order[idx] + (rank,)
        self.order[idx] = done
        self.last_winner = winner
        if self.track:
            self.note(None, f"P{winner + 1} wins the group-{g + 1} {LABELS[rank]} for {price} chips.")
            self.note(winner, f"The group-{g + 1} {LABELS[rank]} you won is {self.orig[t]}.")
        if len(done) == 1:
            self.phase = NEXT
            self.chooser = winner
        elif len(done) == 2:
            self.rank = 3 - done[0] - done[1]
            if self.track:
                self.note(None, f"The group-{g + 1} {LABELS[self.rank]} follows.")
            self._open_auction(winner)
        elif g + 1 < self.game.groups:
            last = self.orig[t]
            nxt = [self.orig[self._tid(k, g + 1, r)] for r in range(3)]
            self.group = g + 1
            self.rank = closest_rank(nxt, last)
            self.first[idx + 1] = self.rank
            if self.track:
                self.note(None, f"Group {g + 2} starts with its {LABELS[self.rank]}.")
            self._open_auction(winner)
        else:
            self._after_auctions()

    def _tiles_for_leftover(self, seat: int) -> int:
        """The count that decides who gets the leftover (option leftover_count)."""
        if self.game.options["leftover_count"] == "held":
            return len(self.held[seat])
        base = self.set_no * self.ns
        return sum(1 for t in range(base, base + 12) if self.own[t] == seat)

    def _after_auctions(self) -> None:
        """Death Match: the leftover goes, told only to it, to the seat with fewer tiles."""
        k = self.set_no
        c0, c1 = self._tiles_for_leftover(0), self._tiles_for_leftover(1)
        if c0 != c1:
            to = 0 if c0 < c1 else 1
            t = k * self.ns + 12
            self._to_hand(to, t)
            self.know[t] |= 1 << to
            self.leftover_to[k] = to
            if self.track:
                self.note(None, f"P{to + 1} has fewer tiles and gets the leftover (unseen by P{2 - to}).")
                self.note(to, f"The leftover you got is {self.orig[t]}.")
        elif self.track:
            self.note(None, "Equal tile counts: nobody gets the leftover; it stays secret.")
        self._start_phase()

    def _do_next(self, seat: int, action: Action) -> None:
        self.rank = action[1]
        if self.track:
            self.note(None, f"P{seat + 1} chooses the group-{self.group + 1} {LABELS[self.rank]} next.")
        self._open_auction(seat)

    def _remaining_ranks(self) -> list[int]:
        done = self.order[self.set_no * GROUPS + self.group]
        return [r for r in (MINUTE, BALANCE, GIANT) if r not in done]

    # ------------------------------------------------------------------ jousts

    def _start_phase(self) -> None:
        self.phase_first = True
        self.concealed = False
        if self._count_playable(0) >= 2 and self._count_playable(1) >= 2:
            self._begin_joust()
            return
        if self.track:
            self.note(None, f"Set {self.set_no + 1}: a seat holds fewer than 2 tiles; no joust this set.")
        self._end_phase()

    def _end_phase(self) -> None:
        if self.track:
            self.note(None, f"Set {self.set_no + 1}'s joust phase ends; tiles left are kept for the final joust.")
        if self.set_no + 1 < self.game.sets:
            self.set_no += 1
            self.group = 0
            self.phase = LOTS
            return
        self.set_no = FINAL
        self.phase_first = True
        self.concealed = False
        a, b = self._count_playable(0), self._count_playable(1)
        if a and b:
            if self.track:
                self.note(None, f"The final joust: P1 has {a} tiles, P2 has {b}.")
            self._begin_joust()
        else:
            self._finish(a, b)

    def _finish(self, a: int, b: int) -> None:
        """A seat is out of tiles in the final joust: the other scores 1 per tile."""
        if a and not b:
            self.points[0] += a
        elif b and not a:
            self.points[1] += b
        self.phase = OVER
        if self.track:
            if a or b:
                s = 0 if a else 1
                self.note(None, f"P{2 - s} has no tiles left: P{s + 1} scores {a or b} for its remaining tiles.")
            else:
                self.note(None, "Both seats ran out together: nobody scores remaining tiles.")
            w = self.winner()
            self.note(None, f"Final score P1 {self.points[0]} - P2 {self.points[1]}; P{(w or 0) + 1} wins.")

    def _begin_joust(self) -> None:
        self.joust_no += 1
        self.sub = [[], []]
        self.step = 0
        self.phase = REQUIRED

    def _submit(self, seat: int, action: Action) -> None:
        # The core's order (a free action, a simultaneous step, a turn) with joust's
        # steps spelled out: every action of a match passes here.
        tag = action[0]
        if tag == "invert" or tag == "conceal":
            self._do_free(seat, action)
            return
        phase = self.phase
        if phase == AUCTION:
            self._do_auction(seat, action)
        elif phase == REQUIRED or (phase == OPTIONAL and len(self.opt_seats) > 1):
            pending = self.pending
            pending[seat] = action
            if len(pending) == 2:  # both seats are in
                self.pending = {}
                self._resolve(pending)
        else:
            self._do(seat, action)

    def _do(self, seat: int, action: Action) -> None:
        phase = self.phase
        if phase == AUCTION:
            self._do_auction(seat, action)
        elif phase == NEXT:
            self._do_next(seat, action)
        elif phase == KEEP:
            self._do_keep(seat, action)
        else:  # a lone seat in an optional step
            self._resolve({seat: action})

    def _resolve(self, actions: dict[int, Action]) -> None:
        if self.phase == REQUIRED:
            self._announce_items()
            for seat in (0, 1):
                self._put(seat, self._named_tile(actions[seat], self.playable(seat)))
            self._announce_step([0, 1])
            self._next_step()
            return
        played = [s for s in sorted(actions) if actions[s][0] == "play"]
        for seat in played:
            self._put(seat, self._named_tile(actions[seat], self.playable(seat)))
        if self.track:
            for s in sorted(actions):
                if s not in played:
                    self.note(None, f"P{s + 1} passes.")
        if played:
            self._announce_step(played)
            self._next_step()
        else:
            self._reveal()

    def _announce_items(self) -> None:
        """Hook: item uses become public when the step they were made in resolves."""

    def _named_tile(self, action: Action, tiles: list[int]) -> int:
        """The tile a trusted ``play``/``invert`` names among ``tiles`` (``play
        smallest``: the lowest value), the first of equal ones: tiles are listed in
        id order, so between equal values the earliest set, then group, leftover last."""
        val = self.val
        if action[0] == "smallest":
            best = min(val[t] for t in tiles)
            return next(t for t in tiles if val[t] == best)
        v = action[1]
        if len(action) == 4:
            want, origin = (action[2], action[3]), _ORIGINS[self.ns]
            return next(t for t in tiles if val[t] == v and origin[t] == want)
        return next(t for t in tiles if val[t] == v)

    def _put(self, seat: int, t: int) -> None:
        self.stat[t] = SUB
        self.held[seat].remove(t)
        self.sub[seat].append(t)
        slot = t % self.ns
        group = CONCEALED if self.concealed else (slot // 3 + 1 if slot < 12 else LEFT)
        self.plays.append(
            _new_record(Play, (self.joust_no, self.set_no, seat, t, t // self.ns, group, self.val[t] & 1, -1))
        )

    def _announce_step(self, seats: list[int]) -> None:
        if not self.track:
            return
        n = len(seats)
        for rec in self.plays[-n:]:
            where = (
                "group hidden"
                if rec.group == CONCEALED
                else ("leftover" if rec.group == LEFT else f"group {rec.group}")
            )
            if self.set_no == FINAL:
                where = f"set {rec.set + 1}, {where}"
            self.note(None, f"P{rec.seat + 1} submits a {colour(rec.colour)} tile ({where}).")
        for s in seats:
            self.note(s, f"You submitted {self.val[self.sub[s][-1]]}.")

    def _next_step(self) -> None:
        self.step += 1
        sub = self.sub
        seats = tuple([s for s in (0, 1) if len(sub[s]) < MAX_SUB and self._has_playable(s)])
        if seats:
            self.opt_seats = seats
            self.phase = OPTIONAL
        else:
            self._reveal()

    def _reveal(self) -> None:
        val = self.val
        s0, s1 = self.sub
        tot0, tot1 = sum(val[t] for t in s0), sum(val[t] for t in s1)
        min0, min1 = min(val[t] for t in s0), min(val[t] for t in s1)
        gain0 = min1 if tot0 >= tot1 else 0
        gain1 = min0 if tot1 >= tot0 else 0
        self.points[0] += gain0
        self.points[1] += gain1
        for t in s0 + s1:
            self.stat[t] = USED
        plays = self.plays
        i = len(plays) - 1
        while i >= 0 and plays[i].joust == self.joust_no:
            rec = plays[i]
            plays[i] = _new_record(Play, (*rec[:7], val[rec.tile]))  # rec._replace(value=...)
            i -= 1
        self.jousts.append(_new_record(JoustResult, (self.joust_no, self.set_no, (tot0, tot1), (gain0, gain1))))
        self.sub = [[], []]
        self.phase_first = False
        if self.track:
            a = " + ".join(str(val[t]) for t in s0)
            b = " + ".join(str(val[t]) for t in s1)
            if tot0 == tot1:
                how = f"a tie: P1 scores {gain0}, P2 scores {gain1}"
            else:
                w = 0 if tot0 > tot1 else 1
                how = f"P{w + 1} wins and scores {gain0 or gain1}"
            self.note(None, f"Joust {self.joust_no}: P1 {a} = {tot0}, P2 {b} = {tot1}; {how}.")
        a0, a1 = self._count_playable(0), self._count_playable(1)
        if self.set_no < FINAL:
            if a0 >= 2 and a1 >= 2:
                self._begin_joust()
            else:
                self._end_phase()
        elif a0 and a1:
            self._begin_joust()
        else:
            self._finish(a0, a1)

    # ------------------------------------------------------------------ final-match hooks

    def _do_keep(self, seat: int, action: Action) -> None:
        raise AssertionError("joust has no keep step")

    def _item_actions(self, seat: int) -> list[Action]:
        return []

    def _check_item(self, seat: int, action: Action, text: str) -> None:
        raise IllegalActionError(text, "joust has no items (they belong to joust-final)")

    def _check_keep(self, seat: int, action: Action, text: str) -> None:
        raise IllegalActionError(text, "in joust the leftover is given out automatically; there is no keep")

    def is_free(self, action: Action) -> bool:
        # Item uses do not fill the seat's slot in the simultaneous step (see the
        # module docstring); ``check`` opens them only to an awaited holder.
        return bool(action) and (action[0] == "invert" or action[0] == "conceal")

    def _do_free(self, seat: int, action: Action) -> None:
        self._use_item(seat, action)

    def _use_item(self, seat: int, action: Action) -> None:
        raise AssertionError("joust has no items")

    def _invertible_set(self, phase: int, k: int) -> bool:
        """Whether an inversion announced in ``phase`` may have named a tile of set ``k``."""
        return False

    # ------------------------------------------------------------------ legality

    def legal_actions(self, seat: int) -> list[Action]:
        # ``seat not in self.to_move()`` without building the list
        if self.ended_by is not None or seat in self.pending or seat not in self.awaited():
            return []
        phase = self.phase
        if phase == AUCTION:
            lo, hi = self._bid_floor(), self.chips[seat]
            out = _bid_actions(lo, hi) if lo <= hi else []
            out.append(("fold",))
            return out
        if phase == REQUIRED:
            return self._play_actions(self.playable(seat)) + self._item_actions(seat)
        if phase == OPTIONAL:
            out = self._play_actions(self.playable(seat))
            out.append(("pass",))
            return out
        if phase == NEXT:
            return [("next", r) for r in self._remaining_ranks()]
        if phase == KEEP:
            left = self.set_no * self.ns + 12
            return [("keep", self.orig[left]), ("keep", self.orig[left + 1])]
        return []

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """The action ``rng`` picks from :meth:`legal_actions`, with the same draw.  Half
        of a match's steps are auction steps, whose list is every bid from the floor to
        the seat's chips and then ``fold``: the drawn index names the bid directly."""
        if self.phase == AUCTION and seat == self.turn and self.ended_by is None and seat not in self.pending:
            lo, hi = self._bid_floor(), self.chips[seat]
            bids = hi - lo + 1 if lo <= hi else 0
            i = rng.randrange(bids + 1)
            if i == bids:
                return ("fold",)
            n = lo + i
            return _BIDS[n] if n < len(_BIDS) else ("bid", n)
        actions = self.legal_actions(seat)
        return actions[rng.randrange(len(actions))]

    def _play_actions(self, tiles: list[int], tag: str = "play") -> list[Action]:
        """Every way to name each tile: ``from`` always, bare only when unambiguous.
        By value, then origin; the bare form first, for a value at one origin only."""
        val, key = self.val, _PLAY_KEY[self.ns]
        named = sorted({val[t] << 5 | key[t] for t in tiles})  # see _PLAY_KEY
        bare, full = _BARE[tag], _NAMED[tag]
        out: list[Action] = []
        last = len(named) - 1
        for i, x in enumerate(named):
            v = x >> 5
            if (i == 0 or named[i - 1] >> 5 != v) and (i == last or named[i + 1] >> 5 != v):
                out.append(bare[v])
            out.append(full[x])
        return out

    def _notation(self, action: Action) -> str:
        """The notation of ``action``, or ActionSyntaxError when the tuple is not one
        that this game's notation reads (a hand-made ``("bid", 2.5)``, ``()``...)."""
        try:
            text = self.format_action(action)
            same = self.parse_action(0, text) == action
        except (ActionSyntaxError, IndexError, TypeError, ValueError):
            same = False
        if not same:
            raise ActionSyntaxError(repr(action), "not an action of this game (see its notation)")
        return text

    def check(self, seat: int, action: Action) -> None:
        text = self._notation(action)
        tag = action[0]
        phase = self.phase
        if tag == "invert" or tag == "conceal":
            self._check_item(seat, action, text)
            return
        if phase == AUCTION:
            if tag == "bid":
                n, floor = action[1], self._bid_floor()
                if n < floor:
                    raise IllegalActionError(
                        text, f"a bid must be more than the current bid of {self.bid}; bid {floor} or more, or fold"
                    )
                if n > self.chips[seat]:
                    raise IllegalActionError(text, f"a bid may not exceed your chips ({self.chips[seat]})")
                return
            if tag == "fold":
                return
        elif phase == NEXT:
            if tag == "next":
                left = self._remaining_ranks()
                if action[1] not in left:
                    raise IllegalActionError(
                        text,
                        f"the {LABELS[action[1]]} of this group is already sold; choose "
                        + " or ".join(f"`next {LABELS[r]}`" for r in left),
                    )
                return
        elif phase == KEEP:
            if tag == "keep" or tag == "keepsmaller":
                self._check_keep(seat, action, text)
                return
        elif phase == REQUIRED or phase == OPTIONAL:
            if tag == "play":
                self._check_play(seat, action, text)
                return
            if tag == "pass":
                if phase == REQUIRED:
                    raise IllegalActionError(text, "the first tile of a joust is required: `play N`")
                return
            if tag == "smallest":
                raise IllegalActionError(
                    text, "`play smallest` is what a timeout does for you; name the tile: `play N`"
                )
        elif phase == OVER:  # unreachable through apply (the core refuses first)
            raise IllegalActionError(text, "the match is over")
        if (tag == "keep" or tag == "keepsmaller") and self.game.leftovers == 1:
            self._check_keep(seat, action, text)
        raise IllegalActionError(text, self._phase_hint())

    def _phase_hint(self) -> str:
        need = {
            AUCTION: "`bid N` or `fold`",
            NEXT: "`next minute|balance|giant` (the label auctioned next)",
            KEEP: "`keep N` (the leftover you keep)",
            REQUIRED: "`play N` (the joust's required first tile)",
            OPTIONAL: "`play N` or `pass`",
        }.get(self.phase, "nothing")
        where = {
            AUCTION: f"an auction (set {self.set_no + 1}, group {self.group + 1})",
            NEXT: "the choice of the next label",
            KEEP: "the sharing of the leftovers",
            REQUIRED: "a joust's first tile",
            OPTIONAL: "an optional step of a joust",
        }.get(self.phase, self.phase)
        return f"the game is at {where}: the action needed is {need}"

    def _find(self, seat: int, action: Action, tiles: list[int], text: str, what: str) -> int:
        """The tile a play/invert names among ``tiles``, or a refusal saying why."""
        v = action[1]
        same = [t for t in tiles if self.val[t] == v]
        if len(action) == 2 and len(same) == 1:
            return same[0]
        listing = " ".join(
            f"{self.val[t]}({self._origin_text(t)})" for t in sorted(tiles, key=lambda t: (self.val[t], t))
        )
        if len(action) == 4:
            want = (action[2], action[3])
            hit = [t for t in same if self.origin(t) == want]
            if hit:
                return hit[0]
            elsewhere = [
                t
                for t in range(SETS * self.ns)
                if self.own[t] == seat and self.stat[t] == HAND and self.val[t] == v and self.origin(t) == want
            ]
            if elsewhere and self.set_no < FINAL:
                raise IllegalActionError(
                    text,
                    f"only tiles bought in set {self.set_no + 1} can be {what} in its joust phase; "
                    f"yours: {listing or 'none'}",
                )
            where = f"{want[0]}.{want[1] if want[1] else 'leftover'}"
            raise IllegalActionError(text, f"you hold no tile {v} from {where} that can be {what} now; yours: {listing}")
        if not same:
            raise IllegalActionError(text, f"you hold no tile {v} that can be {what} now; yours: {listing}")
        places = sorted({self.origin(t) for t in same})
        if len(places) > 1:
            named = " and ".join(f"{k}.{g if g else 'leftover'}" for k, g in places)
            raise IllegalActionError(
                text, f"ambiguous: you hold {v} from {named}; say which, e.g. `{action[0]} {v} from {named.split()[0]}`"
            )
        return same[0]

    def _check_play(self, seat: int, action: Action, text: str) -> None:
        self._find(seat, action, self.playable(seat), text, "played")
        if len(self.sub[seat]) >= MAX_SUB:  # unreachable: such a seat is not asked
            raise IllegalActionError(text, f"a seat may submit at most {MAX_SUB} tiles in one joust")

    def timeout_action(self, seat: int) -> Action | None:
        """The clock rule.  Value-free stand-ins (``play smallest``, ``keep smaller``)
        keep the core's public timeout note from naming a hidden value."""
        phase = self.phase
        if phase == AUCTION:
            return ("fold",)
        if phase == NEXT:
            return ("next", self._remaining_ranks()[0])
        if phase == KEEP:
            return ("keepsmaller",)
        if phase == REQUIRED:
            return ("smallest",)
        if phase == OPTIONAL:
            return ("pass",)
        return None

    # ------------------------------------------------------------------ notation

    _PLAY = re.compile(r"^(play|invert) ([0-9]+)(?: from ([0-9]+)\.([0-9]+|leftover))?$")

    def parse_action(self, seat: int, text: str) -> Action:
        s = " ".join(text.strip().lower().split())
        s = re.sub(r" ?\. ?", ".", s)
        low, top = self.game.low, self.game.top
        if not s:
            raise ActionSyntaxError(text, "empty action; expected bid/fold/next/play/pass")
        if any(c.isdigit() and not "0" <= c <= "9" for c in s):
            raise ActionSyntaxError(text, "numbers in notation are written with the ASCII digits 0-9")
        words = s.split(" ")
        verb = words[0]
        if verb in ("fold", "pass", "conceal") and len(words) == 1:
            return (verb,)
        if s == "play smallest":
            return ("smallest",)
        if s == "keep smaller":
            return ("keepsmaller",)
        if verb == "bid":
            if len(words) != 2 or not words[1].isdigit():
                raise ActionSyntaxError(text, "`bid` takes one whole number of chips: `bid 12`")
            return ("bid", int(words[1]))
        if verb == "next":
            if len(words) != 2 or words[1] not in LABELS:
                raise ActionSyntaxError(text, "say `next minute`, `next balance` or `next giant`")
            return ("next", LABELS.index(words[1]))
        if verb == "keep":
            if len(words) != 2 or not words[1].isdigit():
                raise ActionSyntaxError(text, "`keep` takes the value of the leftover you keep: `keep 5`")
            v = int(words[1])
            if not low <= v <= top:
                raise ActionSyntaxError(text, f"there is no tile {v}; tiles are {low}..{top}")
            return ("keep", v)
        m = self._PLAY.match(s)
        if m is None:
            if verb in ("play", "invert"):
                raise ActionSyntaxError(text, f"say `{verb} 7`, `{verb} 7 from 2.3` or `{verb} 7 from 2.leftover`")
            if verb in ("fold", "pass", "conceal"):
                raise ActionSyntaxError(text, f"`{verb}` takes nothing after it")
            raise ActionSyntaxError(
                text,
                "unknown action; this game knows `bid N`, `fold`, `next minute|balance|giant`, "
                "`play N [from S.G]`, `pass`, `keep N`, `invert N [from S.G]`, `conceal`",
            )
        v = int(m.group(2))
        if not low <= v <= top:
            raise ActionSyntaxError(text, f"there is no tile {v}; tiles are {low}..{top}")
        if m.group(3) is None:
            return (m.group(1), v)
        k = int(m.group(3))
        g = LEFT if m.group(4) == "leftover" else int(m.group(4))
        sets, groups = self.game.sets, self.game.groups
        if not 1 <= k <= sets:
            raise ActionSyntaxError(text, f"there is no set {k}; sets are 1..{sets}")
        if m.group(4) != "leftover" and not 1 <= g <= groups:
            raise ActionSyntaxError(text, f"there is no group {g}; groups are 1..{groups} or `leftover`")
        return (m.group(1), v, k, g)

    def format_action(self, action: Action) -> str:
        tag = action[0]
        if tag == "next":
            return f"next {LABELS[action[1]]}"
        if tag == "smallest":
            return "play smallest"
        if tag == "keepsmaller":
            return "keep smaller"
        if (tag == "play" or tag == "invert") and len(action) == 4:
            return f"{tag} {action[1]} from {action[2]}.{action[3] if action[3] else 'leftover'}"
        return " ".join(str(x) for x in action)

    # ------------------------------------------------------------------ views

    def _view(self, seat: int | None) -> JoustPart:
        """What ``seat`` knows; ``None``: what everyone knows (no tile's value until
        it is revealed, no seat's own tiles, pending choices or kept leftover).

        Search rollouts ask for a view at every heuristic step: the dicts and lists
        are fresh on every call (callers may keep or change them), built from the
        import-time tables of tile names without a per-tile method call."""
        joust_step = self.phase == REQUIRED or self.phase == OPTIONAL
        data: JoustPart = {
            "phase": self.phase,
            "set": "final" if self.set_no == FINAL else self.set_no + 1,
            "tile_range": {"lowest": self.game.low, "highest": self.game.top},
            "chips": self.chips[:],
            "points": self.points[:],
            "favoured": self.game.favoured(),
            "lots": [self._lot_view(k, seat) for k in range(self._dealt())],
            "auctions": [
                {"set": k + 1, "group": g + 1, "label": LABELS[r], "winner": w, "price": p}
                for k, g, r, w, p in self.auctions
            ],
            "my_tiles": [] if seat is None else self._my_tiles_view(seat),
            "playable": [self.val[t] for t in self.playable(seat)] if joust_step and seat is not None else [],
            "tiles_in_hand": [len(self.held[0]), len(self.held[1])],
            "plays": self._plays_view(seat),
            "jousts": [
                {"joust": j, "phase": _phase_name(ph), "totals": list(totals), "gains": list(gains)}
                for j, ph, totals, gains in self.jousts
            ],
            "concealed": self.concealed,
            "items": self._items_view(seat),
            "auction": self._auction_view(),
            "joust": self._joust_view() if joust_step else None,
            "keep": None,
        }
        if self.phase == KEEP and seat is not None and seat == self.keeper:
            lt = self.set_no * self.ns + 12
            data["keep"] = {"leftovers": sorted([self.orig[lt], self.orig[lt + 1]])}
        return data

    def _lot_view(self, k: int, seat: int | None) -> Lot:
        """Set ``k``'s lots: every tile's label, colour and owner; a value only when
        ``seat`` was told it.  Leftovers in an order that hides the shuffle's."""
        orig, own, know = self.orig, self.own, self.know
        bit = 0 if seat is None else 1 << seat
        k1, base, end = k + 1, k * self.ns, (k + 1) * self.ns
        names = _TILE_NAMES[self.ns]
        tiles: list[LotTile] = [
            {
                "set": k1,
                "group": names[t].group,
                "label": names[t].label,
                "colour": _COLOURS[orig[t] & 1],
                "owner": _OWNER[own[t]],
                "value": orig[t] if know[t] & bit else None,
            }
            for t in range(base, base + 3 * self.game.groups)
        ]
        groups: list[LotGroup] = [
            {
                "group": g + 1,
                "first": LABELS[self.first[k * GROUPS + g]] if self.first[k * GROUPS + g] >= 0 else None,
                "order": [LABELS[r] for r in self.order[k * GROUPS + g]],
                "tiles": tiles[3 * g : 3 * g + 3],
            }
            for g in range(self.game.groups)
        ]
        leftovers: list[Leftover] = [
            {"set": k1, "owner": _OWNER[own[t]], "value": orig[t] if know[t] & bit else None}
            for t in range(base + 12, end)
        ]
        leftovers.sort(key=_leftover_key)
        return {"set": k1, "groups": groups, "leftovers": leftovers}

    def _my_tiles_view(self, seat: int) -> list[MyTile]:
        """Every tile ``seat`` holds or held: current and dealt value, status, origin."""
        names = _TILE_NAMES[self.ns]
        out: list[MyTile] = []
        for t, owner in enumerate(self.own):
            if owner != seat:
                continue
            k1, g1, label, origin = names[t]
            v = self.val[t]
            out.append(
                {
                    "set": k1,
                    "group": g1,
                    "label": label,
                    "value": v,
                    "original": self.orig[t],
                    "colour": _COLOURS[v & 1],
                    "status": STATUS[self.stat[t]],
                    "from": origin,
                }
            )
        return out

    def _plays_view(self, seat: int | None) -> list[PlayView]:
        """Every play as announced; for its own seat also the tile's value and origin."""
        names = _TILE_NAMES[self.ns]
        out: list[PlayView] = []
        for joust, phase, by, tile, k, group, parity, value in self.plays:
            entry: PlayView = {
                "joust": joust,
                "phase": "final" if phase == FINAL else phase + 1,
                "seat": by,
                "set": k + 1,
                "group": None if group == CONCEALED else (group if group else "leftover"),
                "colour": _COLOURS[parity],
                "value": value if value >= 0 else None,
            }
            if by == seat:
                entry["value"] = self.val[tile]
                entry["from"] = names[tile].origin
            out.append(entry)
        return out

    def _items_view(self, seat: int | None) -> JoustItems:
        """Items held are public (options); a seat knows its own uses at once, the
        others' when they are announced."""
        if seat is None:
            return {
                "held": [sorted(self.items[0]), sorted(self.items[1])],
                "used": [sorted(self.used_pub[0]), sorted(self.used_pub[1])],
            }
        opp = 1 - seat
        return {
            "mine": sorted(self.items[seat]),
            "my_used": sorted(self.used[seat]),
            "theirs": sorted(self.items[opp]),
            "their_used": sorted(self.used_pub[opp]),
        }

    def _auction_view(self) -> Auction | None:
        """The auction or ``next`` choice under way (public), else None."""
        if self.phase != AUCTION and self.phase != NEXT:
            return None
        bidding = self.phase == AUCTION
        return {
            "set": self.set_no + 1,
            "group": self.group + 1,
            "label": LABELS[self.rank] if bidding else None,
            "bid": self.bid if self.bid >= 0 else None,
            "high_bidder": self.high if self.high >= 0 else None,
            "turn": self.turn if bidding else self.chooser,
            "remaining": [LABELS[r] for r in self._remaining_ranks()],
        }

    def _joust_view(self) -> JoustStep:
        """The joust under way (public: counts of submitted tiles, who is asked)."""
        return {
            "number": self.joust_no,
            "step": self.step,
            "required": self.phase == REQUIRED,
            "first_of_phase": self.phase_first,
            "submitted": [len(self.sub[0]), len(self.sub[1])],
            "asked": list(self.awaited()),
        }

    # ------------------------------------------------------------------ sampling

    def resample(self, seat: int, rng: random.Random) -> State:
        """A copy in which every value ``seat`` was not told is redrawn.

        Every field of the copy is public, the seat's own, or redrawn:

        - public, kept: chips, points, phase and step counters, lots' colours,
          first labels and orders of sale, sales, who owns each tile, who was told
          which tile (``know``), the announcements of every play (set, group,
          colour, revealed value), joust results, items held and announced uses;
        - the seat's own, kept: its tiles' values and statuses, its submissions,
          its inversion, its unresolved item uses and pending choice;
        - redrawn (:mod:`.joust_sampler`, where ``resample`` is): every value the seat was not told, which
          of the other seat's tiles each of its plays was (and so their statuses and
          its current submission), and which tile it inverted;
        - dropped: the other seat's pending choice and its item uses that were not
          announced yet (``used`` falls back to the announced ones).

        The draw reads only public facts and the seat's own knowledge, with unknown
        values sorted before shuffling.  If ``RESAMPLE_TRIES`` strict draws all
        fail, a fallback keeps the values consistent with colours, order and first
        labels but places the other seat's past plays on its tiles in slot order
        (its history may then disagree with the revealed values; what is still in
        play is valid).
        """
        return sampler(self.game.id).resample(self, seat, rng)


# --------------------------------------------------------------------------- the final


class JoustFinalState(JoustState):
    """``joust-final``: two leftovers shared by ``keep``, and the three items."""

    game: JoustFinal

    def _after_auctions(self) -> None:
        """The short seat sees both leftovers and keeps one; equal counts: nobody."""
        k = self.set_no
        c0, c1 = self._tiles_for_leftover(0), self._tiles_for_leftover(1)
        if c0 == c1:
            if self.track:
                self.note(None, "Equal tile counts: nobody gets the leftovers; they stay secret.")
            self._start_phase()
            return
        keeper = 0 if c0 < c1 else 1
        left = k * self.ns + 12
        self.know[left] |= 1 << keeper
        self.know[left + 1] |= 1 << keeper
        self.keeper = keeper
        self.leftover_to[k] = keeper
        self.phase = KEEP
        if self.track:
            self.note(None, f"P{keeper + 1} has fewer tiles: it sees both leftovers and keeps one.")
            a, b = sorted((self.orig[left], self.orig[left + 1]))
            self.note(keeper, f"The leftovers are {a} and {b}: you keep one (keep {a} or keep {b}) and your opponent gets the other.")

    def _check_keep(self, seat: int, action: Action, text: str) -> None:
        if action[0] == "keepsmaller":
            raise IllegalActionError(text, "`keep smaller` is what a timeout does for you; name the tile: `keep N`")
        left = self.set_no * self.ns + 12
        pair = (self.orig[left], self.orig[left + 1])
        if action[1] not in pair:
            a, b = sorted(pair)
            raise IllegalActionError(text, f"keep one of the two leftovers you were shown: {a} or {b}")

    def _do_keep(self, seat: int, action: Action) -> None:
        left = self.set_no * self.ns + 12
        if action[0] == "keepsmaller":
            v = min(self.orig[left], self.orig[left + 1])
        else:
            v = action[1]
        # canonical slots: the keeper's leftover in the first slot, the given one in
        # the second, so the shuffle's order of the two leaks nowhere
        if self.orig[left] != v:
            self.orig[left], self.orig[left + 1] = self.orig[left + 1], self.orig[left]
            self.val[left], self.val[left + 1] = self.val[left + 1], self.val[left]
        other = 1 - seat
        self._to_hand(seat, left)
        self._to_hand(other, left + 1)
        self.know[left + 1] |= 1 << other
        if self.track:
            self.note(None, f"P{seat + 1} keeps one leftover and gives the other to P{other + 1}.")
            self.note(seat, f"You keep {v} and give {self.orig[left + 1]}.")
            self.note(other, f"You receive the leftover {self.orig[left + 1]}.")
        self._start_phase()

    # ------------------------------------------------------------------ items

    def _window(self, seat: int) -> bool:
        """Items act at the start of a phase: its first joust, before the seat's tile."""
        return self.phase == REQUIRED and self.phase_first and seat not in self.pending

    def _invert_targets(self, seat: int) -> list[int]:
        if self.game.options["invert_scope"] == "phase":
            return self.playable(seat)
        return self.held[seat][:]

    def _invertible_set(self, phase: int, k: int) -> bool:
        if phase == FINAL:
            return True
        if self.game.options["invert_scope"] == "phase":
            return k == phase
        return k <= phase

    def _item_actions(self, seat: int) -> list[Action]:
        if not self._window(seat):
            return []
        left = self.items[seat] - self.used[seat]
        out: list[Action] = []
        if "inversion" in left:
            out.extend(self._play_actions(self._invert_targets(seat), "invert"))
        if "conceal" in left and self.set_no < FINAL:
            out.append(("conceal",))
        return out

    def _check_item(self, seat: int, action: Action, text: str) -> None:
        name = "inversion" if action[0] == "invert" else "conceal"
        if name not in self.items[seat]:
            raise IllegalActionError(text, f"P{seat + 1} does not hold the {name} item")
        if name in self.used[seat]:
            raise IllegalActionError(text, f"the {name} item is used once only, and P{seat + 1} has used it")
        if name == "conceal" and self.set_no >= FINAL:
            raise IllegalActionError(text, "conceal works in a set's joust phase, not in the final joust")
        if not self._window(seat):
            when = "a joust phase" if name == "conceal" else "a joust phase or of the final joust"
            raise IllegalActionError(
                text, f"{name} can be used only at the start of {when}: in its first joust, before your first tile"
            )
        if name == "inversion":
            self._find(seat, action, self._invert_targets(seat), text, "inverted")

    def _use_item(self, seat: int, action: Action) -> None:
        if action[0] == "invert":
            t = self._named_tile(action, self._invert_targets(seat))
            self.val[t] = self.game.top - self.val[t]
            self.inv_tile[seat] = t
            self.used[seat] = self.used[seat] | {"inversion"}
            if self.track:
                self.note(seat, f"You invert your {self.orig[t]} ({self._origin_text(t)}): it is now {self.val[t]}.")
        else:
            self.used[seat] = self.used[seat] | {"conceal"}
            if self.track:
                self.note(seat, "You use conceal: this phase's announcements will not say groups.")
        self.hold[seat] = self.hold[seat] + (action,)

    def _announce_items(self) -> None:
        for seat in (0, 1):
            for action in self.hold[seat]:
                if action[0] == "invert":
                    self.used_pub[seat] = self.used_pub[seat] | {"inversion"}
                    self.inv_phase[seat] = self.set_no
                    if self.track:
                        self.note(None, f"P{seat + 1} used inversion on one of its tiles.")
                else:
                    self.used_pub[seat] = self.used_pub[seat] | {"conceal"}
                    self.concealed = True
                    if self.track:
                        self.note(None, f"P{seat + 1} used conceal: no group is announced for the rest of this phase.")
        self.hold = [(), ()]


# --------------------------------------------------------------------------- registration
# Named by the entry point in blackwhite's pyproject.toml (group ``blackwhite.games``);
# ``tuning`` is the ``ismcts`` bot's, ``analysis`` the analysis's settings for this game
# (docs/bots.md, docs/analysis.md give the figures they were chosen by).

#: joust and joust-final: random bids waste chips absurdly; the cheap heuristic plays
#: the rollouts.  Its view per move makes a step dear: 10 steps rather than 20 doubled
#: the samples (about 50 a decision at 0.025 s) and won 57.5% (joust) and 62%
#: (joust-final) of 200 matches against the heuristic, against 54.5% and 54.5% at 20.
#: The other seat bidding and jousting by the heuristic from its own view of each
#: sampled world, with the search trusted at 1.0 standard error, won 73% and 69.5% of
#: 200 (and still 100 of 100 against random)
_TUNING: dict[str, Any] = dict(horizon=10, scale=8.0, rollout=1.0, model=1.0, trust=1.0)
ENTRY = GameEntry(
    id="joust",
    rules="blackwhite.games.joust:Joust",
    rules_page="blackwhite:_rules/joust.md",
    sampler="blackwhite.games.joust_sampler",
    encoding="blackwhite.games.joust_encoding:JoustEncoding",
    heuristic="blackwhite.bots.heuristic.joust",
    tuning=_TUNING,
    analysis=dict(horizon=None, scale=8.0),
    drawer="blackwhite.terminal.draw:draw_joust",
    twins="tests.twins.joust",
    page_template="blackwhite.web:templates/games/joust.html",
    page_script="blackwhite.web:static/games/joust.js",
    page_style="blackwhite.web:static/games/joust.css",
    text_drawer="blackwhite.discord_bridge.draw:draw_joust",
)
#: joust-final: the same parts but its rules, rules page, encoding, twins and board
FINAL_ENTRY = replace(
    ENTRY,
    id="joust-final",
    rules="blackwhite.games.joust:JoustFinal",
    rules_page="blackwhite:_rules/joust-final.md",
    encoding="blackwhite.games.joust_encoding:JoustFinalEncoding",
    twins="tests.twins.joust_final",
    page_template="blackwhite.web:templates/games/joust-final.html",
)


__all__ = ["Joust", "JoustFinal", "JoustState", "JoustFinalState", "closest_rank", "colour"]
