"""The fixed numeric description of ``joust`` and ``joust-final`` for research libraries.

Everything is laid out on the rules pages (docs/rules/joust.md and joust-final.md,
"For researchers: action codes and observation tensor").  Sizes depend only on the
options: ``sets`` (S), ``groups`` (G), ``chips`` (C) and the game's leftovers (L: 1
in joust, 2 in joust-final); V = the number of tile values (``low..3G+1``).

- **Actions.** Every legal action has a code, including the two names of a tile
  (``play 7`` and ``play 7 from 1.3``); the adapters offer only the ``from`` name, so
  one tile is one choice.  A bid is bounded by the seat's chips, so bids need no cap
  beyond the ``chips`` option.
- **Observations** are computed from ``State.view(seat)`` alone; the public view
  (``seat`` null) encodes with the same layout and a "no seat" flag.
- **Chance.** Each set's lots are drawn one tile at a time: the 3G group tiles in
  group order, uniformly among the tiles not drawn yet; the leftovers are what
  remains.  That is exactly the engine's shuffle (groups and leftovers are sets).
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, Mapping, Sequence

from ..engine.core import Action, ChanceEvent, State, is_int
from ..engine.encoding import Encoding, plain_draws, win_loss_type
from .joust import ITEM_NAMES, LABELS, Joust
from .tensor_layout import BlockWriter, Blocks

PHASES = ("lots", "auction", "next", "keep", "joust-required", "joust-optional", "over")
COLOURS = ("black", "white")
STATUSES = ("hand", "submitted", "used")
#: the kinds of a pending choice (``my_pending``): ``play smallest`` is a timeout's
PENDING_KINDS = ("play", "pass", "smallest")
_PENDING = re.compile(r"^play (\d+)(?: from (\d+)\.(\d+|leftover))?$")


class JoustEncoding(Encoding):
    """Codec, type, length bound, observation and chance draws of ``joust``."""

    game: Joust

    def __init__(self, game: Joust) -> None:
        super().__init__(game)
        self.S, self.G = game.sets, game.groups
        self.L = game.leftovers
        self.low, self.top = game.low, game.top
        self.V = self.top - self.low + 1
        self.C = game.options["chips"]
        self.final = game.leftovers == 2
        #: codes of the actions offered so far (``offered`` orders by code at every step)
        self._offered_codes: dict[Action, int] = {}
        #: legal action -> its code, or :data:`_NOT_OFFERED` (:meth:`awaited_codes`)
        self._offer_memo: dict[Action, int] = {}
        # ---- action code offsets
        # every `from k.g` a play may name; g == 0 (LEFT) is the leftover
        self._origins = [(k, g) for k in range(1, self.S + 1) for g in range(self.G + 1)]
        self._origin_index = {o: i for i, o in enumerate(self._origins)}
        n = 5  # fold, pass, next minute/balance/giant
        self._bid0 = n
        n += self.C + 1
        self._play0 = n
        n += self.V
        self._playfrom0 = n
        n += self.V * len(self._origins)
        if self.final:
            self._keep0 = n
            n += self.V
            self._invert0 = n
            n += self.V
            self._invertfrom0 = n
            n += self.V * len(self._origins)
            self._conceal = n
            n += 1
        self._n = n
        self._rows()
        self.blocks = Blocks(self.layout)

    # ------------------------------------------------------------ actions

    @property
    def num_distinct_actions(self) -> int:
        return self._n

    def _value_index(self, v: Any, action: Action) -> int:
        if not is_int(v) or not self.low <= v <= self.top:
            raise ValueError(f"{action!r} has no action code: tiles are {self.low}..{self.top}")
        return v - self.low

    def _encode(self, action: Action) -> int:
        """Codes: fold 0, pass 1, next minute/balance/giant 2-4, ``bid n`` 5+n, then
        ``play v``, ``play v from k.g``, and in joust-final ``keep v``, ``invert v``,
        ``invert v from k.g``, ``conceal`` (offsets on the rules page)."""
        if not isinstance(action, tuple) or not action:
            raise ValueError(f"{action!r} has no action code: not an action of {self.game.id}")
        tag, rest = action[0], action[1:]
        if tag == "fold" and not rest:
            return 0
        if tag == "pass" and not rest:
            return 1
        if tag == "next" and len(rest) == 1 and is_int(rest[0]) and 0 <= rest[0] <= 2:
            return 2 + int(rest[0])
        if tag == "bid" and len(rest) == 1:
            n = rest[0]
            if not is_int(n) or not 0 <= n <= self.C:
                raise ValueError(f"{action!r} has no action code: bids are 0..{self.C} (the chips option)")
            return self._bid0 + n
        items = self.final and tag in ("keep", "invert", "conceal")
        if tag == "play" or (items and tag == "invert"):
            if tag == "play":
                bare, fromed = self._play0, self._playfrom0
            else:
                bare, fromed = self._invert0, self._invertfrom0
            if len(rest) == 1:
                return bare + self._value_index(rest[0], action)
            if len(rest) == 3:
                vi = self._value_index(rest[0], action)
                typed = is_int(rest[1]) and is_int(rest[2])
                oi = self._origin_index.get((rest[1], rest[2])) if typed else None
                if oi is None:
                    raise ValueError(
                        f"{action!r} has no action code: `from` names set 1..{self.S}, "
                        f"group 1..{self.G} or leftover"
                    )
                return fromed + oi * self.V + vi
        if items and tag == "keep" and len(rest) == 1:
            return self._keep0 + self._value_index(rest[0], action)
        if items and tag == "conceal" and not rest:
            return self._conceal
        raise ValueError(f"{action!r} has no action code in {self.game.id} (timeout stand-ins have none)")

    def _decode(self, code: int) -> Action:
        if code == 0:
            return ("fold",)
        if code == 1:
            return ("pass",)
        if code < 5:
            return ("next", code - 2)
        if code < self._play0:
            return ("bid", code - self._bid0)
        if code < self._playfrom0:
            return ("play", code - self._play0 + self.low)
        span = self.V * len(self._origins)
        if code < self._playfrom0 + span:
            return self._from_action("play", code - self._playfrom0)
        if code < self._invert0:
            return ("keep", code - self._keep0 + self.low)
        if code < self._invertfrom0:
            return ("invert", code - self._invert0 + self.low)
        if code < self._invertfrom0 + span:
            return self._from_action("invert", code - self._invertfrom0)
        return ("conceal",)

    def _from_action(self, tag: str, i: int) -> Action:
        k, g = self._origins[i // self.V]
        return (tag, i % self.V + self.low, k, g)

    def awaited_offer(self, state: State, seat: int) -> list[Action]:
        """The seat's legal actions, each tile named once: the ``from`` form of
        ``play``/``invert`` (the bare form names the same tile).  Item uses are
        offered exactly when the engine allows them (the first joust of a phase,
        before the seat's tile); each acts once, so they add at most two decisions."""
        named = [a for a in state.legal_actions(seat) if not _bare(a)]
        # in code order: the engine's order of the two leftovers a keeper is shown, or of
        # tiles in a drawn world, is not the seat's to know
        return sorted(named, key=self._offered_code)

    def awaited_codes(self, state: State, seat: int) -> list[int]:
        """The codes of :meth:`offered` straight from the legal actions, without
        sorting the actions: each legal action's code is remembered, the bare
        ``play``/``invert`` forms' as :data:`_NOT_OFFERED`, which is dropped."""
        actions = state.legal_actions(seat)
        memo = self._offer_memo
        try:
            codes = set(map(memo.__getitem__, actions))
        except KeyError:
            for a in actions:
                if a not in memo:
                    memo[a] = _NOT_OFFERED if _bare(a) else self._offered_code(a)
            codes = set(map(memo.__getitem__, actions))
        codes.discard(_NOT_OFFERED)
        return sorted(codes)

    def _offered_code(self, action: Action) -> int:
        """``encode``, remembered: an action's code never changes."""
        code = self._offered_codes.get(action)
        if code is None:
            code = self._offered_codes[action] = self.encode(action)
        return code

    # ------------------------------------------------------------ the game

    #: the favoured seat wins on equal points, so every match has a winner
    game_type = win_loss_type(2, chance=True, simultaneous=True)

    @property
    def max_game_length(self) -> int:
        """Per set: 3G auctions of at most C+2 decisions (bids strictly rise from 0 to
        at most C, then a fold), G ``next`` choices, one ``keep``; every joust step is
        at most two decisions and every step but a joust's last adds a tile, so the
        jousts take at most two decisions per tile played (S(3G+L) tiles); plus the
        two items of each seat."""
        per_set = 3 * self.G * (self.C + 2) + self.G + (1 if self.final else 0)
        return self.S * per_set + 2 * self.S * (3 * self.G + self.L) + (4 if self.final else 0)

    # ------------------------------------------------------------ observations

    def _rows(self) -> None:
        """The sizes of the rows the observation repeats (per set, play, joust...)."""
        S, G, L, V = self.S, self.G, self.L, self.V
        self.max_plays = S * (3 * G + L)
        self.max_jousts = self.max_plays // 2
        self.play_row = 1 + 1 + (S + 1) + 2 + S + (G + 2) + 2 + V + (G + 1)
        self.joust_row = 1 + (S + 1) + 2 + 2
        self.tile_row = 2 + 2 + V + 1  # colour, owner, value, price
        self.group_row = 3 + 9  # first label, position of each label in the order of sale
        self.left_row = 2 + V  # owner, value
        self.set_row = 1 + G * self.group_row + 3 * G * self.tile_row + L * self.left_row
        self.mine_row = V + 3  # current value, status

    @cached_property
    def layout(self) -> list[tuple[str, int]]:
        """The blocks of the observation, in order: (name, size)."""
        S, G, V = self.S, self.G, self.V
        return [
            ("seat", 3),  # P1, P2, no seat (the public view)
            ("phase", len(PHASES)),
            ("set", S + 1),  # sets 1..S, the final joust
            ("favoured", 2),
            ("chips", 2),
            ("points", 2),
            ("tiles_in_hand", 2),
            ("to_move", 2),
            ("submitted", 2),
            ("finished", 1),
            ("winner", 2),
            ("concealed", 1),
            ("items_held", 2 * len(ITEM_NAMES)),  # by seat, then item
            ("items_used", 2 * len(ITEM_NAMES)),
            ("auction", 1 + G + 3 + 2 + 2 + 2 + 3),
            ("joust", 1 + 1 + 1 + 1 + 1 + 2 + 2),
            ("keep", V),
            ("pending", 1 + len(PENDING_KINDS) + V + S + (G + 1)),
            ("lots", S * self.set_row),
            ("my_tiles", S * (3 * G + 1) * self.mine_row),
            ("plays", self.max_plays * self.play_row),
            ("jousts", self.max_jousts * self.joust_row),
        ]

    def _vi(self, v: int) -> int:
        if not self.low <= v <= self.top:
            raise ValueError(f"tile value {v!r} outside {self.low}..{self.top}")
        return v - self.low

    def _set_index(self, s: Any) -> int:
        """A set as views give it (1..S or "final") -> 0..S."""
        return self.S if s == "final" else int(s) - 1

    def _group_index(self, g: Any) -> int:
        """A tile's origin group as views give it (1..G or "leftover") -> 0..G."""
        return self.G if g == "leftover" else int(g) - 1

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        """The flat tensor of ``view`` (layout on the rules page)."""
        w = self.blocks.writer()
        seat = view["seat"]
        w.put("seat", 2 if seat is None else seat)
        w.put("phase", PHASES.index(view["phase"]))
        w.put("set", self._set_index(view["set"]))
        w.put("favoured", view["favoured"])
        for s in (0, 1):
            w.put("chips", s, float(view["chips"][s]))
            w.put("points", s, float(view["points"][s]))
            w.put("tiles_in_hand", s, float(view["tiles_in_hand"][s]))
        for s in view["to_move"]:
            w.put("to_move", s)
        for s in view["submitted"]:
            w.put("submitted", s)
        if view["finished"]:
            w.put("finished", 0)
        if view["winner"] is not None:
            w.put("winner", view["winner"])
        if view["concealed"]:
            w.put("concealed", 0)
        self._items(w, view["items"], seat)
        self._auction(w, view["auction"])
        self._joust(w, view["joust"])
        if view["keep"] is not None:
            for v in view["keep"]["leftovers"]:
                w.put("keep", self._vi(v))
        self._pending(w, view["my_pending"])
        out = w.written  # the rows below are many: written at their block's offset
        prices = {(a["set"], a["group"], a["label"]): a["price"] for a in view["auctions"]}
        at = self.blocks["lots"].start
        for lot in view["lots"]:
            self._lot(out, at, lot, prices)
        at = self.blocks["my_tiles"].start
        G, V, S, row = self.G, self.V, self.S, self.mine_row
        for tile in view["my_tiles"]:
            k = tile["set"] - 1
            if not 0 <= k < S:
                raise ValueError(f"tile {tile!r} of my_tiles names a set outside 1..{S}")
            if tile["group"] == "leftover":
                slot = 3 * G
            else:
                slot = 3 * (self._group_number(tile["group"]) - 1) + LABELS.index(tile["label"])
            base = at + (k * (3 * G + 1) + slot) * row
            out[base + self._vi(tile["value"])] = 1.0
            out[base + V + STATUSES.index(tile["status"])] = 1.0
        plays = view["plays"]
        if len(plays) > self.max_plays:
            raise ValueError(f"{len(plays)} plays in a view; at most {self.max_plays} fit these options")
        at = self.blocks["plays"].start
        for p in plays:
            self._play(out, at, p)
            at += self.play_row
        at = self.blocks["jousts"].start
        for j in view["jousts"][: self.max_jousts]:
            out[at] = 1.0
            out[at + 1 + self._set_index(j["phase"])] = 1.0
            totals, gains = j["totals"], j["gains"]
            for s in (0, 1):
                if totals[s]:
                    out[at + 2 + S + s] = float(totals[s])
                if gains[s]:
                    out[at + 4 + S + s] = float(gains[s])
            at += self.joust_row
        return w.entries()

    def _items(self, w: BlockWriter, items: Mapping[str, Any], seat: int | None) -> None:
        if seat is None:
            held, used = items["held"], items["used"]
        else:
            opp = 1 - seat
            held = [[], []]
            used = [[], []]
            held[seat], used[seat] = items["mine"], items["my_used"]
            held[opp], used[opp] = items["theirs"], items["their_used"]
        n = len(ITEM_NAMES)
        for s in (0, 1):
            for name in held[s]:
                w.put("items_held", s * n + ITEM_NAMES.index(name))
            for name in used[s]:
                w.put("items_used", s * n + ITEM_NAMES.index(name))

    def _auction(self, w: BlockWriter, auction: Mapping[str, Any] | None) -> None:
        """active, group (G), label (3), has a bid, the bid, high bidder (2), turn (2),
        remaining labels (3)."""
        if auction is None:
            return
        G = self.G
        w.put("auction", 0)
        w.put("auction", 1 + auction["group"] - 1)
        if auction["label"] is not None:
            w.put("auction", 1 + G + LABELS.index(auction["label"]))
        if auction["bid"] is not None:
            w.put("auction", 4 + G)
            w.put("auction", 5 + G, float(auction["bid"]))
        if auction["high_bidder"] is not None:
            w.put("auction", 6 + G + auction["high_bidder"])
        w.put("auction", 8 + G + auction["turn"])
        for label in auction["remaining"]:
            w.put("auction", 10 + G + LABELS.index(label))

    def _joust(self, w: BlockWriter, joust: Mapping[str, Any] | None) -> None:
        """active, number, step, required, first of phase, submitted counts (2), asked (2)."""
        if joust is None:
            return
        w.put("joust", 0)
        w.put("joust", 1, float(joust["number"]))
        w.put("joust", 2, float(joust["step"]))
        w.put("joust", 3, 1.0 if joust["required"] else 0.0)
        w.put("joust", 4, 1.0 if joust["first_of_phase"] else 0.0)
        for s in (0, 1):
            w.put("joust", 5 + s, float(joust["submitted"][s]))
        for s in joust["asked"]:
            w.put("joust", 7 + s)

    def _pending(self, w: BlockWriter, text: str | None) -> None:
        """present, kind (play/pass/smallest), value (V), set (S), group (G + leftover)."""
        if text is None:
            return
        w.put("pending", 0)
        if text in ("pass", "play smallest"):
            w.put("pending", 1 + PENDING_KINDS.index("pass" if text == "pass" else "smallest"))
            return
        m = _PENDING.match(text)
        if m is None:
            raise ValueError(f"my_pending {text!r} is not a joust step's choice")
        n = len(PENDING_KINDS)
        w.put("pending", 1)
        w.put("pending", 1 + n + self._vi(int(m.group(1))))
        if m.group(2) is not None:
            w.put("pending", 1 + n + self.V + int(m.group(2)) - 1)
            w.put("pending", 1 + n + self.V + self.S + self._group_index(m.group(3)))

    def _group_number(self, g: Any) -> int:
        """A group as views number it (1..G), checked."""
        if not is_int(g) or not 1 <= g <= self.G:
            raise ValueError(f"group {g!r} outside 1..{self.G}")
        return int(g)

    def _lot(self, out: dict[int, float], start: int, lot: Mapping[str, Any],
             prices: Mapping[tuple[int, int, str], int]) -> None:
        """A set's lot into the ``lots`` block (at ``start``)."""
        k = lot["set"]
        if not is_int(k) or not 1 <= k <= self.S:
            raise ValueError(f"lot of set {k!r}: sets are 1..{self.S}")
        base = start + (k - 1) * self.set_row
        out[base] = 1.0
        groups_at = base + 1
        tiles_at = groups_at + self.G * self.group_row
        left_at = tiles_at + 3 * self.G * self.tile_row
        tile_row, V = self.tile_row, self.V
        vi = self._vi
        for grp in lot["groups"]:
            g = self._group_number(grp["group"]) - 1
            at = groups_at + g * self.group_row
            if grp["first"] is not None:
                out[at + LABELS.index(grp["first"])] = 1.0
            for pos, label in enumerate(grp["order"]):
                out[at + 3 + 3 * LABELS.index(label) + pos] = 1.0
            t_at = tiles_at + 3 * g * tile_row
            for tile in grp["tiles"]:
                out[t_at + COLOURS.index(tile["colour"])] = 1.0
                owner = tile["owner"]
                if owner is not None:
                    out[t_at + 2 + _seat_index(owner)] = 1.0
                if tile["value"] is not None:
                    out[t_at + 4 + vi(tile["value"])] = 1.0
                price = prices.get((k, g + 1, tile["label"]))
                if price:
                    out[t_at + 4 + V] = float(price)
                t_at += tile_row
        at = left_at
        for left in lot["leftovers"]:
            if left["owner"] is not None:
                out[at + _seat_index(left["owner"])] = 1.0
            if left["value"] is not None:
                out[at + 2 + vi(left["value"])] = 1.0
            at += self.left_row

    def _play(self, out: dict[int, float], base: int, p: Mapping[str, Any]) -> None:
        """present, joust number, phase (S+1), seat (2), set (S), announced group (G,
        leftover, hidden), colour (2), value (V), own tile's origin group (G+1)."""
        S, G, V = self.S, self.G, self.V
        out[base] = 1.0
        if p["joust"]:
            out[base + 1] = float(p["joust"])
        at = base + 2
        out[at + self._set_index(p["phase"])] = 1.0
        at += S + 1
        out[at + _seat_index(p["seat"])] = 1.0
        at += 2
        k = p["set"]
        if not is_int(k) or not 1 <= k <= S:
            raise ValueError(f"play of set {k!r}: sets are 1..{S}")
        out[at + k - 1] = 1.0
        at += S
        group = p["group"]
        out[at + (G + 1 if group is None else self._group_index(group))] = 1.0
        at += G + 2
        out[at + COLOURS.index(p["colour"])] = 1.0
        at += 2
        if p["value"] is not None:
            out[at + self._vi(p["value"])] = 1.0
        at += V
        origin = p.get("from")
        if origin is not None:
            out[at + self._group_index(origin.split(".")[1])] = 1.0

    # ------------------------------------------------------------ chance

    def _tiles(self) -> list[int]:
        return list(range(self.low, self.top + 1))

    @cached_property
    def _tile_list(self) -> list[int]:
        return self._tiles()

    @cached_property
    def _tile_set(self) -> frozenset[int]:
        return frozenset(self._tiles())

    def _check_draws(self, draws: Sequence[int]) -> None:
        if len(draws) > 3 * self.G or len(set(draws)) != len(draws) or not self._tile_set.issuperset(draws):
            raise ValueError(
                f"draws {list(draws)!r} are not distinct tiles {self.low}..{self.top}, "
                f"at most {3 * self.G} of them"
            )

    @property
    def max_chance_outcomes(self) -> int:
        """Chance outcomes are tile values, so every one is below ``top + 1`` (14)."""
        return self.top + 1

    def chance_outcomes(self, state: State, draws: Sequence[int]) -> list[tuple[int, float]]:
        """The next group tile (groups in order, three each), uniform among the tiles
        not drawn yet; none once the 3G group tiles are drawn (the rest are leftovers)."""
        if state.chance_kind() != "lots":
            raise ValueError(f"no chance step now in {self.game.id} (the lots come at the start of a set)")
        draws = plain_draws(draws, self.game.id)
        self._check_draws(draws)
        return self.next_chance_outcomes(state, draws)

    def next_chance_outcomes(self, state: State, draws: list[int]) -> list[tuple[int, float]]:
        """The next draw's outcomes without checking the draws again (see the base)."""
        if len(draws) == 3 * self.G:
            return []
        left = [v for v in self._tile_list if v not in draws]
        p = 1.0 / len(left)
        return [(v, p) for v in left]

    def chance_event(self, state: State, draws: Sequence[int]) -> ChanceEvent:
        if state.chance_kind() != "lots":
            raise ValueError(f"no chance step now in {self.game.id} (the lots come at the start of a set)")
        draws = plain_draws(draws, self.game.id)
        self._check_draws(draws)
        if len(draws) != 3 * self.G:
            raise ValueError(f"draws {list(draws)!r} are incomplete: the lots need {3 * self.G} group tiles")
        groups = [sorted(draws[3 * g : 3 * g + 3]) for g in range(self.G)]
        leftover = [v for v in self._tiles() if v not in draws]
        return ChanceEvent("lots", {"groups": groups, "leftover": leftover})


class JoustFinalEncoding(JoustEncoding):
    """``joust-final``: the same layout with ``keep``, ``invert`` and ``conceal`` codes."""


def _seat_index(seat: Any) -> int:
    """A seat as views give it (0 or 1), checked."""
    if seat != 0 and seat != 1:
        raise ValueError(f"seat {seat!r} is not 0 or 1")
    return int(seat)


__all__ = ["JoustEncoding", "JoustFinalEncoding"]


#: what :meth:`JoustEncoding.awaited_codes` remembers for an action it does not offer
_NOT_OFFERED = -1


def _bare(action: Action) -> bool:
    """Whether ``action`` is the bare ``play v``/``invert v`` form (not offered: the
    ``from`` form names the same tile)."""
    return action[0] in ("play", "invert") and len(action) == 2
