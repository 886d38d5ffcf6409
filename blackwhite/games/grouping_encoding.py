"""The research encoding of the two grouping games (docs/rules/grouping.md and
docs/rules/grouping-final.md, "For researchers: action codes and observation tensor").

Action codes (fixed by the options):

- ``0..1259``: ``group A=.. B=.. C=..``, in the engine's fixed order of the 1260
  groupings (``grouping.GROUPINGS``: A, then B, in lexicographic order);
- then ``raise 1`` .. ``raise R`` (R the option ``max_raise``, 10 by default),
  ``call``, ``fold``, ``go first``, ``go second``;
- the Final adds ``accept``, ``decline``, ``peek``, ``order`` and ``propose ante N``
  for N = 2 .. the cap (the largest starting stack + 1: an ante above every stack has
  the same effect, no seat can pay it, and chips are never won in the Final).

Offered actions (:meth:`GroupingEncoding.offered`), so every match ends within
:attr:`~GroupingEncoding.max_game_length` and the offer depends on the seat's view only:

- ``go first``/``go second`` only when round 1's betting waits for the choice (not
  early, during the grouping or the deal);
- ``propose ante N`` (N up to the cap) only while no proposal is pending and the
  opponent has not yet submitted its grouping (so it can still answer);
- ``accept`` while the opponent's proposal is pending; ``decline`` is never offered:
  grouping without answering lets the proposal lapse, which is the same thing;
- ``peek`` and ``order`` whenever the engine lists them (each is used once).

The observation is computed from the view dict alone; its layout is
:attr:`GroupingEncoding.layout`, documented on the rules pages.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cached_property
from itertools import permutations
from typing import Any, Callable, Mapping, Sequence

from ..engine.core import Action, ChanceEvent, IllegalChanceError, State
from ..engine.encoding import SHORT_OFFER, TabledEncoding, plain_draws, win_loss_type
from .grouping import (
    BET,
    BONUS_CHIPS,
    GROUP,
    GROUP_ACTIONS,
    ITEMS,
    MAX_RAISE,
    NAMES,
    ORDERS,
    SIZES,
    TILES,
    GroupingState,
)
from .tensor_layout import Blocks, colour, one_hot

#: the length bound may be passed only by a match with more sets in which every round
#: ties (sudden death; in the Final also all-in ties handed back) than it allows for;
#: it allows for so many that this has probability below 10**-TIED_EXPONENT
TIED_EXPONENT = 60

PHASES = ("group", "deal", "choose", "bet", "over")
HOWS = ("showdown", "fold", "sudden")
_GROUP_CODE: dict[Action, int] = {a: i for i, a in enumerate(GROUP_ACTIONS)}
_DIGITS = re.compile(r"([ABC])=([0-9,]+)")


#: features of one dealt position in the deals block
POS_FEATURES = 15  # dealt, black, white, tile 0..8 known, eight yes, eight no, revealed
#: features of one settled round in the rounds block
ROUND_FEATURES = 1 + 4 + 3 + 2 + 2 * TILES + 2 + 2 + 1 + 1 + 2 + 2 + TILES


def _deals_of(groups: tuple[tuple[int, ...], ...]) -> list[tuple[int, ...]]:
    """Every deal of ``groups`` (1728, equally likely: the engine's shuffles are uniform)."""
    out: list[tuple[int, ...]] = []
    for order in ORDERS:
        parts = [list(permutations(groups[g])) for g in order]
        for a in parts[0]:
            for b in parts[1]:
                for c in parts[2]:
                    out.append(a + b + c)
    return out


def tied_sets(rounds: int, deals: int) -> int:
    """How many all-tied sets the length bound allows for (see ``TIED_EXPONENT``).

    Every round of a set ties only if each deal's first ``rounds`` tiles are the same
    for both seats; whatever the groupings, that has probability at most the largest
    chance of one prefix of one seat's deal (the seats are dealt independently)."""
    prefixes = Counter(d[:rounds] for d in _deals_of(((0, 1), (2, 3, 4), (5, 6, 7, 8))))
    p_set = (max(prefixes.values()) / sum(prefixes.values())) ** deals
    return math.ceil(TIED_EXPONENT / -math.log10(p_set))


class GroupingEncoding(TabledEncoding):
    """The Death Match's codec, type, length bound, observation and split deal."""

    FINAL = False
    DEALS = 2

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        options = game.options
        self.max_raise: int = options.get("max_raise", MAX_RAISE)
        self.chips: int = options["chips"]
        self.rounds: int = options.get("rounds", TILES)
        self.tied_sets = tied_sets(self.rounds, self.DEALS)
        items = getattr(game, "items", [frozenset(), frozenset()])
        self.start = [self.chips + (BONUS_CHIPS if "bonus" in items[s] else 0) for s in (0, 1)]
        #: the largest ante ``propose`` has a code for (see the module docstring)
        self.ante_cap = max(self.start) + 1
        codes: list[Action] = list(GROUP_ACTIONS)
        codes += [("raise", n) for n in range(1, self.max_raise + 1)]
        codes += [("call",), ("fold",), ("go", "first"), ("go", "second")]
        if self.FINAL:
            codes += [("accept",), ("decline",), ("peek",), ("order",)]
            codes += [("propose", n) for n in range(2, self.ante_cap + 1)]
        self._actions = tuple(codes)
        self._codes = {a: i for i, a in enumerate(codes)}
        self.blocks = Blocks(self.layout)

    # ------------------------------------------------------------ actions

    def _no_code(self, action: Action) -> str:
        hint = ""
        if len(action) == 4 and action[0] == "group" and all(isinstance(g, tuple) for g in action[1:]):
            # the engine writes each group's tiles in increasing order; another order
            # is not an engine action, so it has no code (decode(encode(a)) == a)
            tidy = ("group",) + tuple(tuple(sorted(g)) for g in action[1:])
            if tidy in _GROUP_CODE:
                hint = f"; write each group's tiles in increasing order: {tidy!r}"
        return (
            f"{action!r} has no action code in {self.game.id} (raises 1..{self.max_raise}"
            + (f", proposed antes 2..{self.ante_cap}" if self.FINAL else "")
            + ")" + hint
        )

    def awaited_offer(self, state: State, seat: int) -> list[Action]:
        """The legal actions less the free ones the module docstring's rule holds back."""
        assert isinstance(state, GroupingState)
        actions = state.legal_actions(seat)
        # the groupings come first (the free actions are added after them) and are
        # never held back: only the actions after the last grouping are filtered
        k = len(actions)
        while k and actions[k - 1][0] != "group":
            k -= 1
        return actions[:k] + self._offered_free(actions[k:], *self._rule_facts(state, seat))

    def awaited_codes(self, state: State, seat: int) -> list[int]:
        """In the grouping phase, the codes of the groupings the engine keeps (all
        1260, or a Final seat's regroupings, a tuple remembered per previous grouping:
        :meth:`~blackwhite.engine.encoding.Encoding.kept_codes`), then those of the
        free actions offered, whose codes all come after every grouping's.  A short
        offer (a betting step's) is remembered by the legal actions and the facts the
        rule reads."""
        assert isinstance(state, GroupingState)
        if state.phase == GROUP:
            # the two halves of the engine's ``legal_actions`` in this phase, read apart
            codes = self.kept_codes(state._group_actions(seat))
            free: list[Action] = []
            state._add_free(seat, free)
            offered = self._offered_free(free, *self._rule_facts(state, seat))
            if not offered:
                return codes
            return codes + self._sorted_codes(offered)
        legal = state.legal_actions(seat)
        if len(legal) > SHORT_OFFER:
            return super().awaited_codes(state, seat)
        key = (tuple(legal), *self._rule_facts(state, seat))
        known = self._short.get(key)
        if known is None:
            known = self.short_codes(key, self.awaited_offer(state, seat))
        return known

    def _rule_facts(self, state: GroupingState, seat: int) -> tuple[bool, bool, bool]:
        """The public facts the offering rule of the module docstring reads (the view's
        "phase" is "choose", its "proposal", its "submitted"), read off the state
        without building the view: whether the first-bettor choice is being made, a
        proposal is pending, the opponent has submitted."""
        return (state.phase == BET and state.starter is None, state.proposal is not None, (1 - seat) in state.pending)

    def _offered_free(
        self, free: list[Action], choosing: bool, proposal_pending: bool, opp_submitted: bool
    ) -> list[Action]:
        """The free actions of ``free`` (the engine's, in its order) that the rule of the
        module docstring offers, given :meth:`_rule_facts`."""
        out: list[Action] = []
        for action in free:
            tag = action[0]
            if tag == "go" and not choosing:
                continue
            if tag == "decline":
                continue
            if tag == "propose" and (proposal_pending or opp_submitted or action[1] > self.ante_cap):
                continue
            out.append(action)
        return out

    # ------------------------------------------------------------ the game

    #: two seats; the deals are chance; both seats submit their groupings at once
    game_type = win_loss_type(2, chance=True, simultaneous=True)

    @property
    def max_game_length(self) -> int:
        """Death Match: the chips (2c in all) are conserved and set k's ante is k, so at
        most c sets have betting, of ``2 * rounds`` rounds each.  In a round the larger
        bet rises by 1 or more per raise and never passes c, so a round has at most c
        decisions (raises, then a call or a fold).  Each set has 2 groupings; one
        first-bettor choice.  Sudden death comes after those c sets: all-tied sets
        (``tied_sets`` allowed for), then the set in which a round is won."""
        c = self.chips
        return c * (2 + self.DEALS * self.rounds * c) + 2 * (self.tied_sets + 1) + 1

    # ------------------------------------------------------------ observations

    @cached_property
    def layout(self) -> list[tuple[str, int]]:
        """The blocks of the observation, in order: (name, size)."""
        per_set = self.DEALS * TILES
        return [
            ("seat", 3),
            ("phase", len(PHASES)),
            ("finished", 1),
            ("winner", 2),
            ("numbers", 5),  # set, groups_set, rounds_played, ante, proposals_left
            ("deal", self.DEALS),
            ("round", TILES),
            ("sudden", 1),
            ("chips", 2),
            ("bets", 2),
            ("chooser", 2),
            ("first_choice", 2),
            ("starter", 2),
            ("to_act", 2),
            ("acted", 2),
            ("to_move", 2),
            ("submitted", 2),
            ("see_own_tile", 1),
            ("proposal", 3),  # by P1, by P2, the ante proposed
            ("my_groups", 3 * TILES),
            ("my_pending", 3 * TILES),
            ("my_order", 9),
            ("held", 2 * len(ITEMS)),
            ("used", 2 * len(ITEMS)),
            ("deals", self.DEALS * 2 * TILES * POS_FEATURES),
            ("rounds", 2 * per_set * ROUND_FEATURES),
        ]

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        w = self.blocks.writer()
        put = w.put
        seat = view["seat"]
        put("seat", 2 if seat is None else seat)
        put("phase", PHASES.index(view["phase"]))
        if view["finished"]:
            put("finished", 0)
        if view["winner"] is not None:
            put("winner", view["winner"])
        numbers = (view["set"], view["groups_set"], view["rounds_played"], view["ante"],
                   view.get("proposals_left", 0))
        for i, x in enumerate(numbers):
            put("numbers", i, x)
        put("deal", view["deal"] - 1)
        if view["round"] is not None:
            put("round", view["round"] - 1)
        if view["sudden_death"]:
            put("sudden", 0)
        for s in (0, 1):
            put("chips", s, view["chips"][s])
            put("bets", s, view["bets"][s])
            if view["acted"][s]:
                put("acted", s)
        put("chooser", view["chooser"])
        if view["first_choice"] is not None:
            put("first_choice", 0 if view["first_choice"] == "first" else 1)
        for key in ("starter", "to_act"):
            if view[key] is not None:
                put(key, view[key])
        for s in view["to_move"]:
            put("to_move", s)
        for s in view["submitted"]:
            put("submitted", s)
        if view["see_own_tile"]:
            put("see_own_tile", 0)
        if view["proposal"] is not None:
            put("proposal", view["proposal"]["by"])
            put("proposal", 2, view["proposal"]["ante"])
        if seat is not None:
            self._own(view, put)
        self._items(view, seat, put)
        self._deals(view, seat, w.written)
        self._rounds(view, seat, w.written)
        return w.entries()

    def _own(self, view: Mapping[str, Any], put: Callable[..., None]) -> None:
        """The seat's groups, its submitted grouping and the group order ``order`` told it."""
        groups = view["my_groups"]
        if groups is not None:
            for g, name in enumerate(NAMES):
                for t in groups[name]:
                    put("my_groups", 3 * t + g)
        pending = view["my_pending"]
        if pending is not None:
            for name, tiles in _DIGITS.findall(pending):
                for t in tiles.split(","):
                    put("my_pending", 3 * int(t) + NAMES.index(name))
        order = view["my_order"]
        if order is not None:
            for k, name in enumerate(order):
                put("my_order", 3 * k + NAMES.index(name))

    def _items(self, view: Mapping[str, Any], seat: int | None, put: Callable[..., None]) -> None:
        items = view["items"]
        if seat is None:
            held = items["held"]
        else:
            held = [[], []]
            held[seat] = items["mine"]
            held[1 - seat] = items["theirs"]
        for s in (0, 1):
            for name in held[s]:
                put("held", len(ITEMS) * s + ITEMS.index(name))
            for name in items["used"][s]:
                put("used", len(ITEMS) * s + ITEMS.index(name))

    def _deals(self, view: Mapping[str, Any], seat: int | None, out: dict[int, float]) -> None:
        """What the view says of every dealt position of the groups in force (written
        at the ``deals`` block's offset: they are many)."""
        start, size = self.blocks["deals"]
        last = start + size - POS_FEATURES  # where the block's last position starts
        for d, deal in enumerate(view["deals"]):
            if seat is None:
                by_seat = deal["seats"]
            else:
                by_seat = [deal["theirs"], deal["theirs"]]
                by_seat[seat] = deal["mine"]
            for s in (0, 1):
                base = start + (d * 2 + s) * TILES * POS_FEATURES
                for entry in by_seat[s]:
                    if base > last:
                        raise ValueError(f"deal {d + 1} of the view does not fit the observation's {self.DEALS} deals")
                    out[base] = 1.0
                    colour(out, base + 1, entry["colour"])
                    tile = entry["tile"]
                    if tile is not None:
                        one_hot(out, base + 3, tile, TILES, "tile")
                    if entry["eight"] is not None:
                        out[base + 3 + TILES + (0 if entry["eight"] else 1)] = 1.0
                    if entry["revealed"]:
                        out[base + 5 + TILES] = 1.0
                    base += POS_FEATURES

    def _rounds(self, view: Mapping[str, Any], seat: int | None, out: dict[int, float]) -> None:
        """The settled rounds of the set whose groups are in force and of the set before
        it (what everyone was told, and the tiles this seat saw by folding or peeking),
        written at the ``rounds`` block's offset."""
        gset = view["groups_set"]
        seen = {(e["set"], e["deal"], e["round"]): e["tile"] for e in view["seen"]} if seat is not None else {}
        per_set = self.DEALS * TILES
        start = self.blocks["rounds"].start
        for r in view["rounds"]:
            back = gset - r["set"]
            if not 0 <= back <= 1:
                continue
            deal, number = r["deal"], r["round"]
            if not (1 <= deal <= self.DEALS and 1 <= number <= TILES):
                raise ValueError(f"round {number} of deal {deal} is outside the observation's deals and rounds")
            base = start + (back * per_set + (deal - 1) * TILES + (number - 1)) * ROUND_FEATURES
            out[base] = 1.0
            at = base + 1
            colours = r["colours"]
            colour(out, at, colours[0])
            colour(out, at + 2, colours[1])
            at += 4
            out[at + HOWS.index(r["how"])] = 1.0
            at += 3
            if r["folder"] is not None:
                one_hot(out, at, r["folder"], 2, "seat")
            at += 2
            tiles = r["tiles"]
            if tiles is not None:
                one_hot(out, at, tiles[0], TILES, "tile")
                one_hot(out, at + TILES, tiles[1], TILES, "tile")
            at += 2 * TILES
            if r["winner"] is not None:
                one_hot(out, at, r["winner"], 2, "seat")
            at += 2
            bets = r["bets"]
            if bets[0]:
                out[at] = float(bets[0])
            if bets[1]:
                out[at + 1] = float(bets[1])
            at += 2
            if r["ante"]:
                out[at] = float(r["ante"])
            if r["penalty"]:
                out[at + 1] = float(r["penalty"])
            at += 2
            chips = r["chips"]
            if chips[0]:
                out[at] = float(chips[0])
            if chips[1]:
                out[at + 1] = float(chips[1])
            at += 2
            if r["starter"] is not None:
                one_hot(out, at, r["starter"], 2, "seat")
            at += 2
            tile = seen.get((r["set"], deal, number))
            if tile is not None:
                one_hot(out, at, tile, TILES, "tile")


    # ------------------------------------------------------------ chance

    @property
    def max_chance_outcomes(self) -> int:
        """Every chance draw's code is below this: a group order 0..5, a tile 0..8."""
        return max(len(ORDERS), TILES)

    def chance_outcomes(self, state: State, draws: Sequence[int]) -> list[tuple[int, float]]:
        """A deal drawn as the engine shuffles it: first the order of the three groups
        (code 0..5, an index into ``grouping.ORDERS``, each 1/6), then the tile at each
        of the 9 positions, uniform among the tiles of that position's group not yet
        drawn (so a deal is 10 small draws, not one node of 1728 outcomes)."""
        groups, _seat = self._dealt_groups(state)
        draws = plain_draws(draws, self.game.id)
        self._check_draws(groups, draws)
        return _outcomes_after(groups, draws)

    def next_chance_outcomes(self, state: State, draws: list[int]) -> list[tuple[int, float]]:
        """The next draw's outcomes without checking the draws again (see the base)."""
        assert isinstance(state, GroupingState)
        groups = state.groups[_dealt_seat(state)]
        assert groups is not None  # a deal follows a grouping
        return _outcomes_after(groups, draws)

    def chance_event(self, state: State, draws: Sequence[int]) -> ChanceEvent:
        groups, seat = self._dealt_groups(state)
        draws = plain_draws(draws, self.game.id)
        self._check_draws(groups, draws)
        if len(draws) != 1 + TILES:
            raise ValueError(f"draws {list(draws)!r} do not yet describe a whole deal (1 order + {TILES} tiles)")
        return ChanceEvent("deal", {"seat": seat, "tiles": list(draws[1:])})

    def _dealt_groups(self, state: State) -> tuple[tuple[tuple[int, ...], ...], int]:
        if not isinstance(state, GroupingState) or state.chance_kind() != "deal":
            if not isinstance(state, State):
                raise ValueError(f"{type(state).__name__} is not a {self.game.id} state")
            kind = state.chance_kind()
            if kind is not None:
                awaits = f"the chance step {kind!r}"
            elif state.is_terminal():
                awaits = "nothing (the match is over)"
            else:
                awaits = "seat(s) " + ", ".join(f"P{s + 1}" for s in state.to_move())
            raise ValueError(f"this {self.game.id} state is not at a deal: it awaits {awaits}")
        seat = _dealt_seat(state)
        groups = state.groups[seat]
        assert groups is not None  # a deal follows a grouping
        return groups, seat

    @staticmethod
    def _group_at(order_code: int, position: int) -> int:
        at = 0
        for g in ORDERS[order_code]:
            if position < at + SIZES[g]:
                return g
            at += SIZES[g]
        raise ValueError(f"position {position} is past the deal")

    def _check_draws(self, groups: tuple[tuple[int, ...], ...], draws: Sequence[int]) -> None:
        if len(draws) > 1 + TILES:
            raise ValueError(f"draws {list(draws)!r}: a deal is 1 order and {TILES} tiles")
        if draws and not (isinstance(draws[0], int) and 0 <= draws[0] < len(ORDERS)):
            raise IllegalChanceError("deal", f"group order code {draws[0]!r} is not in 0..{len(ORDERS) - 1}")
        at = _GROUP_AT[draws[0]] if draws else ()
        drawn: set[int] = set()
        for k, t in enumerate(draws[1:]):
            group = at[k]
            if t not in groups[group] or t in drawn:
                raise IllegalChanceError(
                    "deal", f"draw {t!r} at position {k + 1} is not an undrawn tile of group {NAMES[group]}"
                )
            drawn.add(t)


def _dealt_seat(state: GroupingState) -> int:
    """The seat a deal due now is for: the first, until it has this set's deal."""
    return 0 if len(state.deals[0]) <= state.deal_no else 1


#: the first draw of a deal: the order of the three groups, each 1/6
_ORDER_OUTCOMES = [(i, 1.0 / len(ORDERS)) for i in range(len(ORDERS))]


def _outcomes_after(groups: tuple[tuple[int, ...], ...], draws: list[int]) -> list[tuple[int, float]]:
    """The outcomes of the next draw of a deal of ``groups`` after ``draws`` (checked):
    the group order, then the tiles of each position's group not yet drawn."""
    if not draws:
        return list(_ORDER_OUTCOMES)
    if len(draws) == 1 + TILES:
        return []
    group = _GROUP_AT[draws[0]][len(draws) - 1]
    left = sorted(set(groups[group]) - set(draws[1:]))
    p = 1.0 / len(left)
    return [(t, p) for t in left]


#: per group order code, the group of each of the deal's positions
#: (:meth:`GroupingEncoding._group_at` of every position, worked out once)
_GROUP_AT: tuple[tuple[int, ...], ...] = tuple(
    tuple(GroupingEncoding._group_at(order, k) for k in range(TILES)) for order in range(len(ORDERS))
)


class GroupingFinalEncoding(GroupingEncoding):
    """The Final: one deal per set, proposals, items; chips are only lost."""

    FINAL = True
    DEALS = 1

    @property
    def max_game_length(self) -> int:
        """The Final: chips are never won, and a round with betting loses at least 1
        chip in all unless it is an all-in tie handed back.  So every set but the
        all-tied ones (``tied_sets`` allowed for), the sudden-death set that is won and
        the set whose ante cannot be paid loses a chip: at most T + tied_sets + 2 sets
        (T the starting chips of both), of ``rounds`` rounds.  A round has at most C
        decisions (C the larger starting stack: the larger bet rises by 1 or more per
        raise).  A set adds 2 groupings and one unanswered proposal; an accepted
        proposal raises the ante, at most ``ante_cap`` times, a proposal and an answer
        each; each seat peeks and orders once; one first-bettor choice."""
        # + 2: the set whose ante cannot be paid, and the sudden-death set that is won
        sets = sum(self.start) + self.tied_sets + 2
        return sets * self.rounds * max(self.start) + 3 * sets + 2 * self.ante_cap + 4 + 1
