"""The research encoding of ``swapping`` (docs/rules/swapping.md, "For researchers").

Action codes, for ``n`` tiles (option ``tiles``, 9 by default):

- ``0 .. n(n-1)(n-2)-1``: ``place a b c``, the ordered triples of distinct tiles in
  lexicographic order (``place 0 1 2`` is 0, ``place 0 1 3`` is 1, ...);
- then ``swap b w``, black tile ``b`` (even) and white tile ``w`` (odd), ordered by
  ``b`` then ``w``;
- then ``reveal t``, ``t`` in order.

Swapping has no free actions, no chance and no unbounded action: the adapters offer
exactly the engine's legal actions.  The observation is built from the seat's view
alone; its layout is :data:`SwappingEncoding.layout` (documented on the rules page).
"""

from __future__ import annotations

from functools import cached_property
from itertools import permutations
from typing import Any, Mapping

from ..engine.core import Action, Game, State
from ..engine.encoding import TabledEncoding, win_loss_type
from .swapping import MAX_TIES, SwappingState
from .tensor_layout import colour, one_hot, side, side_values

PHASES = ("play", "swap", "reveal", "over")


class SwappingEncoding(TabledEncoding):
    """Codec, type, length bound and observation of ``swapping`` with its options."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.tiles: int = game.options["tiles"]
        self.rounds = self.tiles // 3
        self.max_ties: int = game.options["max_ties"]
        n = self.tiles
        self._places: list[Action] = [("place", *p) for p in permutations(range(n), 3)]
        self._blacks = list(range(0, n, 2))
        self._whites = list(range(1, n, 2))
        self._swaps: list[Action] = [("swap", b, w) for b in self._blacks for w in self._whites]
        self._reveals: list[Action] = [("reveal", t) for t in range(n)]
        self._actions = self._places + self._swaps + self._reveals
        self._codes = {a: i for i, a in enumerate(self._actions)}
        #: the code of each pending choice the observation has met, by its notation
        #: (at most one per action: the view gives it as text, parsed once)
        self._pending_codes: dict[str, int] = {}

    # ------------------------------------------------------------ actions

    def _no_code(self, action: Action) -> str:
        """A swap names its black (even) tile first; the other order is not an engine
        action, so it has no code (``decode(encode(a)) == a`` for every coded action)."""
        hint = ""
        if len(action) == 3 and action[0] == "swap" and ("swap", action[2], action[1]) in self._codes:
            hint = f"; write it black first: {('swap', action[2], action[1])!r}"
        return (
            f"action {action!r} has no code in swapping with {self.tiles} tiles: codes exist for "
            f"place A B C (distinct tiles 0..{self.tiles - 1}), swap BLACK WHITE and reveal T{hint}"
        )

    def awaited_codes(self, state: State, seat: int) -> list[int]:
        """The codes of the legal actions the engine keeps for the seat
        (:meth:`SwappingState.offer`, remembered by identity:
        :meth:`~blackwhite.engine.encoding.Encoding.kept_codes`)."""
        assert isinstance(state, SwappingState)
        return self.kept_codes(state.offer(seat))

    # ------------------------------------------------------------ the game

    #: Two seats, no chance, hidden tiles; every match has a winner (three ties give it
    #: to the DMO), so the utilities are +1/-1 and sum to 0.
    game_type = win_loss_type(2, chance=False, simultaneous=True)

    @property
    def max_game_length(self) -> int:
        """Per game and seat: one placement per play round, at most ``n - 1`` swaps (a
        swap needs two unrevealed tiles) and ``n`` reveals; at most ``max_ties`` games."""
        per_game = 2 * (self.rounds + (self.tiles - 1) + self.tiles)
        return self.max_ties * per_game

    # ------------------------------------------------------------ observations

    @property
    def layout(self) -> list[tuple[str, int]]:
        """The blocks of the observation, in order: (name, size).  Side A is the
        seat itself (P1 for a spectator), side B its opponent (P2 for a spectator)."""
        n, r, g = self.tiles, self.rounds, self.max_ties
        return [
            ("seat: P1, P2, spectator", 3),
            ("phase: play, swap, reveal, over", 4),
            (f"game number 1..{g}", g),
            (f"past tied games: positions won by A, B per game, / {n}", 2 * (g - 1)),
            (f"play rounds done 0..{r}", r + 1),
            (f"swap steps done 0..{n}", n + 1),
            (f"running totals after each play round: A, B, / {n}", 2 * r),
            ("show_colours", 1),
            ("swappers this step: A, B", 2),
            ("awaited: A, B", 2),
            ("submitted this step: A, B", 2),
            ("A's own pending choice, one-hot over action codes", self.num_distinct_actions),
            ("finished", 1),
            ("winner: A, B", 2),
            ("scores known", 1),
            (f"scores: A, B, / {n}", 2),
            (f"row A: per position, empty, tile one-hot {n}, black, white, revealed", n * (n + 4)),
            (f"row B: per position, empty, tile one-hot {n}, black, white, revealed", n * (n + 4)),
            (f"reveals of A in order: per reveal, tile one-hot {n}", n * n),
            (f"reveals of B in order: per reveal, tile one-hot {n}", n * n),
            (f"swaps of A in order (when known): per swap, two positions one-hot {n}", 2 * n * n),
            (f"swaps of B in order (when known): per swap, two positions one-hot {n}", 2 * n * n),
        ]

    @cached_property
    def _at(self) -> dict[str, int]:
        """The offset of each block of :attr:`layout`, by the first word of its name
        (``row``, ``reveals`` and ``swaps`` name the A block; B follows it)."""
        at: dict[str, int] = {}
        i = 0
        for name, size in self.layout:
            key = name.split(":")[0].split(" ")[0] if not name.startswith(("row B", "reveals of B", "swaps of B")) else ""
            if key and key not in at:
                at[key] = i
            i += size
        return at

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        """Written straight at each block's offset (the blocks of :attr:`layout`, in
        order); every index read from the view is checked against its block."""
        n = self.tiles
        rounds = self.rounds
        ties = self.max_ties
        at = self._at
        out: dict[int, float] = {}
        seat = view["seat"]
        a = 0 if seat is None else seat
        b = 1 - a
        out[2 if seat is None else seat] = 1.0
        out[3 + PHASES.index(view["phase"])] = 1.0
        one_hot(out, 7, view["game_no"] - 1, ties, "game number - 1")
        i = at["past"]
        past = view["past_games"]
        for g in range(min(len(past), ties - 1)):
            side_values(out, i + 2 * g, past[g], a, n)
        one_hot(out, at["play"], view["play_round"], rounds + 1, "play round")
        one_hot(out, at["swap"], view["swap_step"], n + 1, "swap step")
        i = at["running"]
        totals = view["totals"]
        for k in range(min(len(totals), rounds)):
            side_values(out, i + 2 * k, totals[k], a, n)
        i = at["show_colours"]
        if view["show_colours"]:
            out[i] = 1.0
        i += 1
        for key in ("swappers", "to_move", "submitted"):
            listed = view[key]
            if a in listed:
                out[i] = 1.0
            if b in listed:
                out[i + 1] = 1.0
            i += 2
        pending = view["my_pending"]
        if pending is not None:
            code = self._pending_codes.get(pending)
            if code is None:
                code = self._pending_codes[pending] = self.encode(_parse(pending))
            out[i + code] = 1.0
        i = at["finished"]
        if view["finished"]:
            out[i] = 1.0
        side(out, i + 1, view["winner"], a)
        scores = view["scores"]
        if scores is not None:
            out[i + 3] = 1.0
            side_values(out, i + 4, scores, a, n)
        if seat is None:
            rows = view["rows"]
            own = False
            reveals = view["reveals"]
            swaps = view["swaps"] or (None, None)
        else:
            rows = (view["my_row"], view["their_row"])
            own = True
            reveals = (view["my_reveals"], view["their_reveals"])
            swaps = (view["my_swaps"], view["their_swaps"])
        i = at["row"]
        width = n + 4
        for row_side, row in enumerate(rows):
            for cell in row:
                if cell is None:  # an empty position: only its "empty" flag is set
                    out[i] = 1.0
                else:
                    tile = cell["tile"]
                    if tile is not None:
                        one_hot(out, i + 1, tile, n, "tile")
                        out[i + 1 + n + (tile & 1)] = 1.0  # black (even), white (odd)
                    elif not (own and row_side == 0):
                        colour(out, i + 1 + n, cell["colour"])
                    if cell["revealed"]:
                        out[i + 3 + n] = 1.0
                i += width
        i = at["reveals"]
        for shown in reveals:
            for entry in shown[:n]:
                one_hot(out, i, entry["tile"], n, "tile")
                i += n
            i += n * (n - len(shown[:n]))
        for made in swaps:
            done = () if made is None else made[:n]
            for pair in done:
                if pair is not None:
                    one_hot(out, i, pair[0] - 1, n, "position - 1")
                    one_hot(out, i + n, pair[1] - 1, n, "position - 1")
                i += 2 * n
            i += 2 * n * (n - len(done))
        if i != self.observation_shape[0]:
            raise ValueError(f"observation has {i} floats, layout says {self.observation_shape[0]}")
        return out


def _parse(text: str) -> Action:
    """An action back from its canonical notation (``my_pending`` is text)."""
    verb, *args = text.split()
    return (verb, *(int(x) for x in args))
