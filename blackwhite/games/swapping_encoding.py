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

from itertools import permutations
from typing import Any, Mapping

from ..engine.core import Action, Game
from ..engine.encoding import Encoding, win_loss_type
from .swapping import MAX_TIES
from .tensor_layout import Tensor

PHASES = ("play", "swap", "reveal", "over")


class SwappingEncoding(Encoding):
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

    # ------------------------------------------------------------ actions

    @property
    def num_distinct_actions(self) -> int:
        return len(self._actions)

    def _encode(self, action: Action) -> int:
        """The code of ``action`` as the engine writes it: a swap names its black
        (even) tile first; the other order is not an engine action, so it has no code
        (``decode(encode(a)) == a`` for every coded action)."""
        code = self._codes.get(action)
        if code is not None:
            return code
        hint = ""
        if len(action) == 3 and action[0] == "swap" and ("swap", action[2], action[1]) in self._codes:
            hint = f"; write it black first: {('swap', action[2], action[1])!r}"
        raise ValueError(
            f"action {action!r} has no code in swapping with {self.tiles} tiles: codes exist for "
            f"place A B C (distinct tiles 0..{self.tiles - 1}), swap BLACK WHITE and reveal T{hint}"
        )

    def _decode(self, code: int) -> Action:
        return self._actions[code]

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

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        n = self.tiles
        seat = view["seat"]
        a = 0 if seat is None else seat
        sides = (a, 1 - a)
        out = Tensor(self.observation_shape[0])
        out.flags((seat == 0, seat == 1, seat is None))
        out.one_hot(PHASES.index(view["phase"]), 4)
        out.one_hot(view["game_no"] - 1, self.max_ties)
        past = view["past_games"]
        for g in range(self.max_ties - 1):
            for s in sides:
                out.value(past[g][s] / n if g < len(past) else 0.0)
        out.one_hot(view["play_round"], self.rounds + 1)
        out.one_hot(view["swap_step"], n + 1)
        totals = view["totals"]
        for k in range(self.rounds):
            for s in sides:
                out.value(totals[k][s] / n if k < len(totals) else 0.0)
        out.flag(view["show_colours"])
        for key in ("swappers", "to_move", "submitted"):
            out.flags(s in view[key] for s in sides)
        pending = view["my_pending"]
        if pending is None:
            out.one_hot(None, self.num_distinct_actions)
        else:
            out.one_hot(self.encode(_parse(pending)), self.num_distinct_actions)
        out.flag(view["finished"])
        out.flags(view["winner"] == s for s in sides)
        scores = view["scores"]
        out.flag(scores is not None)
        for s in sides:
            out.value(scores[s] / n if scores is not None else 0.0)
        if seat is None:
            rows = [view["rows"][0], view["rows"][1]]
            reveals = [view["reveals"][0], view["reveals"][1]]
            swaps = view["swaps"] or [None, None]
        else:
            own = [
                None if c is None else {"tile": c["tile"], "colour": None, "revealed": c["revealed"]}
                for c in view["my_row"]
            ]
            rows = [own, view["their_row"]]
            reveals = [view["my_reveals"], view["their_reveals"]]
            theirs = view["their_swaps"]
            swaps = [view["my_swaps"], theirs]
        for row in rows:
            for cell in row:
                if cell is None:  # an empty position: only its "empty" flag is set
                    out.flag(True)
                    out.skip(n + 3)
                    continue
                tile, col = cell["tile"], cell["colour"]
                if tile is not None:
                    col = "black" if tile % 2 == 0 else "white"
                out.flag(False)
                out.one_hot(tile, n)
                out.flags((col == "black", col == "white"))
                out.flag(cell["revealed"])
        for shown in reveals:
            for entry in shown[:n]:
                out.one_hot(entry["tile"], n)
            out.skip(n * (n - len(shown[:n])))
        for made in swaps:
            done = [] if made is None else made[:n]
            for pair in done:
                out.one_hot(None if pair is None else pair[0] - 1, n)
                out.one_hot(None if pair is None else pair[1] - 1, n)
            out.skip(2 * n * (n - len(done)))
        return out.entries()


def _parse(text: str) -> Action:
    """An action back from its canonical notation (``my_pending`` is text)."""
    verb, *args = text.split()
    return (verb, *(int(x) for x in args))
