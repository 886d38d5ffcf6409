"""The research encoding of ``domino`` (docs/rules/domino.md, "For researchers").

Action codes, for the game's board and set of dominoes (options ``board``,
``numbers``): ``0`` is ``go first``, ``1`` is ``go second``; then, for every spot of
the board in board order (upper/left cell first, a horizontal spot before the
vertical one on the same cell) and every domino of the set in order ((0,0), (0,1),
..., (5,5)), its placements there in the engine's order: for a double, hiding the
upper/left then the lower/right half; otherwise the smaller number on the upper/left
cell hiding the smaller number, then the larger; then the smaller number on the
lower/right cell hiding the smaller number, then the larger.

No free actions, no chance, no unbounded action: the adapters offer the legal
actions.  The observation is built from the seat's view alone (layout:
:attr:`DominoEncoding.layout`).
"""

from __future__ import annotations

from functools import cached_property
from itertools import combinations
from typing import Any, Mapping

from ..engine.core import Action, Game, State
from ..engine.encoding import TabledEncoding, win_loss_type
from .domino import DOMINOES, NAMES, PLAY, POS_ACTIONS, POSITIONS, Domino, DominoState
from .tensor_layout import colour, one_hot, side, side_values

PHASES = ("choose", "play", "over")
#: points a placement can earn (H, V, D and B)
MAX_GAIN = 4


def _met_slots(met: str) -> tuple[int, ...]:
    """The flags of a placement's "met" letters in its block (H, V, D, B)."""
    return tuple(j for j, letter in enumerate("HVDB") if letter in met)


#: the slots of every "met" the engine writes (its letters in H, V, D, B order),
#: worked out once: a view has many placements
_MET_SLOTS = {"".join(c): _met_slots("".join(c)) for r in range(5) for c in combinations("HVDB", r)}


class DominoEncoding(TabledEncoding):
    """Codec, type, length bound and observation of ``domino`` with its options."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        assert isinstance(game, Domino)
        shape = game.shape
        self.cells: tuple[int, ...] = shape.cells
        self.cell_slot = {g: k for k, g in enumerate(self.cells)}
        self.numbers: int = game.options["numbers"]
        self.dominoes = [d for d, gone in enumerate(game.absent) if not gone]
        spots = [i for i, p in enumerate(POSITIONS) if shape.on[p.a] and shape.on[p.b]]
        actions: list[Action] = [("go", "first"), ("go", "second")]
        for i in spots:
            for d in self.dominoes:
                actions.extend(POS_ACTIONS[i][d])
        self._actions = actions
        self._codes = {a: c for c, a in enumerate(actions)}
        #: per position, per domino, the codes of its placements there (empty for a
        #: position off the board or a domino outside the set): the table
        #: :meth:`DominoState.spot_offer` writes a turn's codes with
        on_board = set(spots)
        self._spot_codes: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
            tuple(
                tuple(self._codes[a] for a in POS_ACTIONS[i][d]) if i in on_board and not gone else ()
                for d, gone in enumerate(game.absent)
            )
            for i in range(len(POSITIONS))
        )
        #: at most one placement per two cells
        self.max_placements = min(len(self.cells) // 2, 2 * len(self.dominoes))

    # ------------------------------------------------------------ actions

    def _no_code(self, action: Action) -> str:
        return (
            f"action {action!r} has no code in domino on board {self.game.options['board']!r} "
            f"with halves 0..{self.numbers}: codes exist for go first/second and the canonical "
            "placement tuples (a <= b, a on cell_a, a double's cells in board order) on the board"
        )

    def awaited_codes(self, state: State, seat: int) -> list[int]:
        """The codes of a turn's placements without making them: the engine's own
        listing of the offer (:meth:`DominoState.spot_offer`) written with the codes,
        which follow the same order (spot by spot in board order, then domino by
        domino).  Other steps code the offered actions."""
        if (
            isinstance(state, DominoState)
            and state.phase == PLAY
            and seat == state.turn
            and state.ended_by is None
            and not state.pending
        ):
            return state.spot_offer(seat, self._spot_codes)
        return super().awaited_codes(state, seat)

    # ------------------------------------------------------------ the game

    #: Two seats taking turns, no chance, hidden halves; a tie on points goes to the last
    #: placer, so every match has a winner: +1/-1, summing to 0.
    game_type = win_loss_type(2, chance=False, simultaneous=False)

    @property
    def max_game_length(self) -> int:
        """The DMO's choice, then at most one placement per two cells of the board
        (and no more than both seats' dominoes)."""
        return 1 + self.max_placements

    # ------------------------------------------------------------ observations

    @property
    def layout(self) -> list[tuple[str, int]]:
        """Blocks of the observation: (name, size).  Side A is the seat itself (P1 for
        a spectator), side B its opponent (P2 for a spectator)."""
        c, n, k, d = len(self.cells), self.numbers + 1, self.max_placements, len(self.dominoes)
        return [
            ("seat: P1, P2, spectator", 3),
            ("phase: choose, play, over", 3),
            ("DMO: A, B", 2),
            ("first placer (once chosen): A, B", 2),
            ("to place now: A, B", 2),
            ("last placer: A, B", 2),
            ("finished, winner A, winner B", 3),
            (f"points: A, B, / {MAX_GAIN * k}", 2),
            (f"unused dominoes: A, B, / {d}", 2),
            (f"A's unused dominoes ({d} flags in domino order; 0 for a spectator)", d),
            (
                f"per cell in board order ({c}): empty, placed by A, placed by B, number one-hot "
                f"0..{n - 1} (when known), black, white, the hidden half, placement number / {k}",
                c * (n + 7),
            ),
            (
                f"per placement in order ({k}): made, by A, by B, met H, V, D, B, points / {MAX_GAIN}",
                k * 8,
            ),
        ]

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        """Written straight at each block's offset (the blocks of :attr:`layout`, in
        order); every index read from the view is checked against its block."""
        seat = view["seat"]
        a = 0 if seat is None else seat
        k = self.max_placements
        d = len(self.dominoes)
        n = self.numbers + 1
        out: dict[int, float] = {2 if seat is None else seat: 1.0}
        out[3 + PHASES.index(view["phase"])] = 1.0
        i = 6
        for key in ("dmo", "first", "turn", "last_placer"):
            side(out, i, view[key], a)
            i += 2
        if view["finished"]:
            out[14] = 1.0
        side(out, 15, view["winner"], a)
        side_values(out, 17, view["points"], a, MAX_GAIN * k)
        if seat is None:
            side_values(out, 19, view["unused_counts"], 0, d)
        else:
            mine = view["my_unused"]
            if mine:
                out[19] = len(mine) / d
            if view["their_unused_count"]:
                out[20] = view["their_unused_count"] / d
            slot = self._domino_slot
            for x, y in mine:
                out[21 + slot[(x, y)]] = 1.0
        i = 21 + d
        width = n + 7
        board = view["board"]
        for name in self._cell_names:
            cell = board[name]
            if cell is None:  # an empty cell: only its "empty" flag is set
                out[i] = 1.0
            else:
                side(out, i + 1, cell["seat"], a)
                number = cell["number"]
                if number is not None:
                    one_hot(out, i + 3, number, n, "number")
                colour(out, i + 3 + n, cell["colour"])
                if cell["hidden"]:
                    out[i + 5 + n] = 1.0
                placed = cell["placement"] + 1
                if placed:
                    out[i + 6 + n] = placed / k
            i += width
        for pl in view["placements"][:k]:
            out[i] = 1.0
            side(out, i + 1, pl["seat"], a)
            met = pl["met"]
            slots = _MET_SLOTS.get(met)
            if slots is None:
                slots = _met_slots(met)
            for j in slots:
                out[i + 3 + j] = 1.0
            if pl["points"]:
                out[i + 7] = pl["points"] / MAX_GAIN
            i += 8
        return out

    @cached_property
    def _cell_names(self) -> list[str]:
        """The names of the board's cells, in board order (the cells' blocks)."""
        return [NAMES[g] for g in self.cells]

    @cached_property
    def _domino_slot(self) -> dict[tuple[int, int], int]:
        """A domino of the set -> its flag in the seat's unused block."""
        return {DOMINOES[i]: j for j, i in enumerate(self.dominoes)}
