"""Domino Black & White (RULES.md section 2).

Two seats take turns dropping dominoes (0..5 halves, one hidden) into a 63-cell
board under gravity and score lines of three summing to a multiple of five.

Inside the engine a cell is its index ``row * 9 + col`` on the 9x9 grid A..I x R..Z
(``AR`` = 0, ``IR`` = 8, ``DZ`` = 75); grid cells outside the board's shape are walls.
A placement is the tuple ``("place", a, b, cell_a, cell_b, hidden_cell)`` with
``a <= b`` (number ``a`` lies on ``cell_a``) and, for a double, ``cell_a < cell_b``:
one canonical tuple per placement, however it was written.  The DMO's choice is
``("go", "first")`` or ``("go", "second")``.

Geometry (board cells, piece positions, their slide moves, the 3-cell lines through
every cell, the action tuples of every position) is computed once at import, so a
turn only runs one small BFS over at most 108 piece positions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from ..engine.core import (
    Action,
    ClockRule,
    ActionSyntaxError,
    Game,
    IllegalActionError,
    Note,
    State,
)

# --------------------------------------------------------------------------- geometry

COLS = "ABCDEFGHI"
ROWS = "RSTUVWXYZ"
W = 9  # grid width and height
GRID = W * W

#: (first column, last column) of each row R..Z
_ROW_SPAN = [(0, 8)] + [(1, 7)] * 7 + [(2, 6)]

ON: tuple[bool, ...] = tuple(
    _ROW_SPAN[g // W][0] <= g % W <= _ROW_SPAN[g // W][1] for g in range(GRID)
)
#: the 63 board cells, top row first
CELLS: tuple[int, ...] = tuple(g for g in range(GRID) if ON[g])
NAMES: tuple[str, ...] = tuple(COLS[g % W] + ROWS[g // W] for g in range(GRID))
INDEX: dict[str, int] = {name: g for g, name in enumerate(NAMES)}

AR, BR, CR, GR, HR, IR = (INDEX[n] for n in ("AR", "BR", "CR", "GR", "HR", "IR"))
BS, HS = INDEX["BS"], INDEX["HS"]
#: special cells -> the cells one of which must be occupied (rule 3)
SPECIAL: dict[int, tuple[int, int]] = {AR: (BS, CR), IR: (HS, GR)}


def _below(g: int) -> int:
    """The board cell under ``g``, or -1 when ``g`` is the lowest cell of its column."""
    b = g + W
    return b if b < GRID and ON[b] else -1


BELOW: tuple[int, ...] = tuple(_below(g) if ON[g] else -1 for g in range(GRID))

H_BIT, V_BIT, D_BIT, B_BIT = 1, 2, 4, 8
_DIRS = ((0, 1, H_BIT), (1, 0, V_BIT), (1, 1, D_BIT), (1, -1, D_BIT))


def _lines_through(g: int) -> tuple[tuple[int, int, int, int], ...]:
    """Every on-board line of 3 consecutive cells through ``g`` as (bit, x, y, z).

    Why: scoring looks only at these, and a line leaving the board can never be full.
    """
    r0, c0 = divmod(g, W)
    out = []
    for dr, dc, bit in _DIRS:
        for start in (-2, -1, 0):
            cells = []
            for k in range(start, start + 3):
                r, c = r0 + k * dr, c0 + k * dc
                if not (0 <= r < W and 0 <= c < W) or not ON[r * W + c]:
                    break
                cells.append(r * W + c)
            if len(cells) == 3:
                out.append((bit, cells[0], cells[1], cells[2]))
    return tuple(out)


LINES: tuple[tuple[tuple[int, int, int, int], ...], ...] = tuple(
    _lines_through(g) if ON[g] else () for g in range(GRID)
)


class _Pos(NamedTuple):
    a: int  # upper/left cell
    b: int  # lower/right cell
    mask: int  # occupancy bits of both cells
    vertical: bool


def _positions() -> list[_Pos]:
    out = []
    for g in CELLS:
        r, c = divmod(g, W)
        if c + 1 < W and ON[g + 1]:
            out.append(_Pos(g, g + 1, (1 << g) | (1 << (g + 1)), False))
        if r + 1 < W and ON[g + W]:
            out.append(_Pos(g, g + W, (1 << g) | (1 << (g + W)), True))
    return out


POSITIONS: tuple[_Pos, ...] = tuple(_positions())
POS_INDEX: dict[tuple[int, int], int] = {(p.a, p.b): i for i, p in enumerate(POSITIONS)}


def _moves(i: int) -> tuple[int, ...]:
    """Positions one slide step (down, left, right; same orientation) from position ``i``."""
    p = POSITIONS[i]
    out = []
    for step in (W, -1, 1):
        j = POS_INDEX.get((p.a + step, p.b + step))
        if j is not None and (step == W or p.a // W == (p.a + step) // W):
            out.append(j)
    return tuple(out)


MOVES: tuple[tuple[int, ...], ...] = tuple(_moves(i) for i in range(len(POSITIONS)))
#: where a piece enters from above the board: every position whose upper/left cell is
#: in row R (a vertical piece drops straight down its column; sliding sideways above
#: the board is free, so any column it fits is an entry)
ENTRIES: tuple[int, ...] = tuple(i for i, p in enumerate(POSITIONS) if p.a < W)
#: positions covering AR or IR, with the cells one of which must be occupied
SPECIAL_POS: dict[int, tuple[int, int]] = {
    i: SPECIAL[p.a if p.a in SPECIAL else p.b]
    for i, p in enumerate(POSITIONS)
    if p.a in SPECIAL or p.b in SPECIAL
}

#: the 21 dominoes (a, b), a <= b, and their index
DOMINOES: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(6) for b in range(a, 6))
DOMINO_INDEX: dict[tuple[int, int], int] = {d: i for i, d in enumerate(DOMINOES)}
#: ``a * 6 + b`` -> index of the domino with halves a and b, in either order (no tuple to hash)
_DOMINO_OF: tuple[int, ...] = tuple(DOMINO_INDEX[(min(a, b), max(a, b))] for a in range(6) for b in range(6))


def _position_actions(p: _Pos) -> tuple[tuple[Action, ...], ...]:
    """For each domino, every placement tuple on position ``p`` (numbers each way, hide either)."""
    out = []
    for a, b in DOMINOES:
        acts: list[Action] = []
        if a == b:
            acts = [("place", a, a, p.a, p.b, p.a), ("place", a, a, p.a, p.b, p.b)]
        else:
            for ca, cb in ((p.a, p.b), (p.b, p.a)):
                acts.append(("place", a, b, ca, cb, ca))
                acts.append(("place", a, b, ca, cb, cb))
        out.append(tuple(acts))
    return tuple(out)


POS_ACTIONS: tuple[tuple[tuple[Action, ...], ...], ...] = tuple(_position_actions(p) for p in POSITIONS)


def reachable(occ: int) -> list[int]:
    """Positions a piece can slide to from above the board through empty cells (BFS)."""
    seen = [False] * len(POSITIONS)
    stack = []
    for i in ENTRIES:
        if not occ & POSITIONS[i].mask:
            seen[i] = True
            stack.append(i)
    out = []
    while stack:
        i = stack.pop()
        out.append(i)
        for j in MOVES[i]:
            if not seen[j] and not occ & POSITIONS[j].mask:
                seen[j] = True
                stack.append(j)
    return out


def rests(occ: int, i: int) -> bool:
    """Rule 1 (or rule 3 for AR/IR) for position ``i`` on the board before placing."""
    need = SPECIAL_POS.get(i)
    if need is not None:
        return bool(occ >> need[0] & 1 or occ >> need[1] & 1)
    p = POSITIONS[i]
    if p.vertical:
        below = BELOW[p.b]
        return below < 0 or bool(occ >> below & 1)
    ba, bb = BELOW[p.a], BELOW[p.b]
    return ba < 0 or bb < 0 or bool(occ >> ba & 1) or bool(occ >> bb & 1)


def _cell_mask(cells: Iterable[int]) -> int:
    """The bit mask of ``cells``."""
    mask = 0
    for g in cells:
        mask |= 1 << g
    return mask


#: bit g set when a horizontal / vertical position has its upper-left cell on g
_H_POS = _cell_mask(p.a for p in POSITIONS if not p.vertical)
_V_POS = _cell_mask(p.a for p in POSITIONS if p.vertical)
_ON_MASK = _cell_mask(CELLS)
#: board cells with nothing under them (a half there always rests)
_FLOOR = _cell_mask(g for g in CELLS if BELOW[g] < 0)
#: horizontal positions on AR:BR and HR:IR, which rule 3 governs instead of rule 1
_SPECIAL_H = _cell_mask(p.a for i, p in enumerate(POSITIONS) if i in SPECIAL_POS)
_SPECIAL_NEED = tuple((POSITIONS[i].a, _cell_mask(need)) for i, need in SPECIAL_POS.items())
#: cell -> index of the horizontal / vertical position whose upper-left cell it is
_H_INDEX = {p.a: i for i, p in enumerate(POSITIONS) if not p.vertical}
_V_INDEX = {p.a: i for i, p in enumerate(POSITIONS) if p.vertical}
_ROW_R = (1 << W) - 1


#: occupancy -> legal_positions(occ); cleared when full (a pure function of ``occ``)
_SPOTS_CACHE: dict[int, tuple[int, ...]] = {}
_SPOTS_CACHE_SIZE = 1 << 14


def legal_positions(occ: int) -> tuple[int, ...]:
    """Positions where a domino may be placed now (rules 1-3), sorted.

    Memoised by occupancy: search worlds drawn from one position meet the same few
    boards again and again (every sibling of a tree node), and a dict hit is far
    cheaper than the flood fill of :func:`_legal_positions`.
    """
    spots = _SPOTS_CACHE.get(occ)
    if spots is None:
        spots = _legal_positions(occ)
        if len(_SPOTS_CACHE) >= _SPOTS_CACHE_SIZE:
            _SPOTS_CACHE.clear()
        _SPOTS_CACHE[occ] = spots
    return spots


def _legal_positions(occ: int) -> tuple[int, ...]:
    """Positions where a domino may be placed now (rules 1-3), sorted (uncached).

    The same set as filtering :func:`reachable` by :func:`rests`, computed on bit masks
    (a position is the bit of its upper-left cell): every placement and every reply the
    heuristic weighs asks for it, and a flood fill by shifts is several times faster
    than the BFS.  Shifts cannot wrap a row: no position starts in a column from which
    a one-cell slide would leave the board's shape and land on another position.
    """
    free = ~occ
    h_free = _H_POS & free & (free >> 1)
    v_free = _V_POS & free & (free >> W)
    h = h_free & _ROW_R  # entries: upper-left cell in row R
    v = v_free & _ROW_R
    while True:  # slide down, left, right through free positions until nothing new
        h2 = h | (((h << W) | (h << 1) | (h >> 1)) & h_free)
        v2 = v | (((v << W) | (v << 1) | (v >> 1)) & v_free)
        if h2 == h and v2 == v:
            break
        h, v = h2, v2
    support = _FLOOR | ((occ >> W) & _ON_MASK)  # cells where a half rests
    h &= (support | (support >> 1)) & ~_SPECIAL_H | _SPECIAL_H
    for g, need in _SPECIAL_NEED:
        if h >> g & 1 and not occ & need:
            h &= ~(1 << g)
    v &= support >> W  # a vertical piece rests through its lower half
    out = []
    both = h | v
    while both:
        low = both & -both
        g = low.bit_length() - 1
        if h & low:
            out.append(_H_INDEX[g])
        if v & low:
            out.append(_V_INDEX[g])
        both ^= low
    return tuple(out)


def _sum_flags(bit: int) -> tuple[int, ...]:
    """Flags a complete line of direction ``bit`` meets, indexed by its sum (0..15).

    Why: a tuple index replaces the two modulo tests per line in the hot paths.
    """
    return tuple((bit | (B_BIT if s in (0, 15) else 0)) if s % 5 == 0 else 0 for s in range(16))


_SUM_FLAGS: dict[int, tuple[int, ...]] = {bit: _sum_flags(bit) for bit in (H_BIT, V_BIT, D_BIT)}

#: one line of 3 cells as (cell mask, x, y, z, flags by sum, direction bit)
_Line = tuple[int, int, int, int, tuple[int, ...], int]


def _pair_lines(a: int, b: int) -> tuple[_Line, ...]:
    """The distinct lines through cell ``a`` or ``b``, in :data:`LINES` order.

    Why: a line through both halves of a domino is listed under each; the flags are
    OR-ed, so checking it once gives the same answer for less work.
    """
    seen: dict[tuple[int, int, int, int], None] = {}
    for half in (a, b):
        for line in LINES[half]:
            seen.setdefault(line, None)
    return tuple(((1 << x) | (1 << y) | (1 << z), x, y, z, _SUM_FLAGS[bit], bit) for bit, x, y, z in seen)


#: ``a * GRID + b`` -> :func:`_pair_lines` for the two cells of every position, both orders
PAIR_LINES: dict[int, tuple[_Line, ...]] = {}
for _p in POSITIONS:
    PAIR_LINES[_p.a * GRID + _p.b] = PAIR_LINES[_p.b * GRID + _p.a] = _pair_lines(_p.a, _p.b)


def line_flags(num: list[int], a: int, b: int) -> int:
    """H/V/D/B bits met by the domino just laid on cells ``a`` and ``b`` of ``num``.

    ``num`` holds every placed number (hidden ones too) and -1 for an empty cell.
    """
    flags = 0
    lines = PAIR_LINES.get(a * GRID + b)
    if lines is None:  # not a domino's two cells: every line through each
        lines = _pair_lines(a, b)
    for _mask, x, y, z, _tab, bit in lines:
        nx, ny, nz = num[x], num[y], num[z]
        if nx < 0 or ny < 0 or nz < 0:
            continue
        s = nx + ny + nz
        if s % 5 == 0:
            flags |= bit
            if s == 0 or s == 15:
                flags |= B_BIT
    return flags


def flags_text(flags: int) -> str:
    """``"HVDB"`` letters of the conditions met ("" for none)."""
    return "".join(_FLAG_LETTERS[flags & 15])


#: flags -> its letters; joined per call so that, as before, a text of two letters or
#: more is a new string object (``marshal`` writes shared objects as references)
_FLAG_LETTERS: tuple[tuple[str, ...], ...] = tuple(
    tuple(ch for ch, bit in (("H", H_BIT), ("V", V_BIT), ("D", D_BIT), ("B", B_BIT)) if f & bit)
    for f in range(16)
)
_FLAG_POINTS: tuple[int, ...] = tuple(bin(f).count("1") for f in range(16))


def flag_points(flags: int) -> int:
    return bin(flags).count("1")


#: colour by parity: ``_COLOURS[n & 1] == colour(n)`` (the very same string objects)
_COLOURS = ("black", "white")


def colour(n: int) -> str:
    return "black" if n % 2 == 0 else "white"


# --------------------------------------------------------------------------- game

CHOOSE, PLAY, OVER = "choose", "play", "over"

#: builds a Note without the named tuple's Python-level ``__new__`` (same tuple)
_new_note = tuple.__new__

#: announcement pieces: cell g showing n (``"DZ=4"``), cell g hiding a black/white half
_SHOWN_TEXT: tuple[tuple[str, ...], ...] = tuple(tuple(f"{NAMES[g]}={n}" for n in range(6)) for g in range(GRID))
_HIDDEN_TEXT: tuple[tuple[str, str], ...] = tuple((f"{NAMES[g]}=?black", f"{NAMES[g]}=?white") for g in range(GRID))
#: the board cells' names in board order, and each position's two cell names
_CELL_NAMES: tuple[str, ...] = tuple(NAMES[g] for g in CELLS)
_SPOT_NAMES: tuple[tuple[str, str], ...] = tuple((NAMES[p.a], NAMES[p.b]) for p in POSITIONS)


class Placement(NamedTuple):
    """One domino on the board, as the host knows it."""

    seat: int
    cell_a: int
    cell_b: int
    num_a: int
    num_b: int
    hidden: int  # the cell whose number is hidden
    flags: int  # H/V/D/B bits announced


#: builds a Placement without the named tuple's Python-level ``__new__`` (same tuple)
_new_placement = tuple.__new__


class Domino(Game):
    id = "domino"
    title = "Domino Black & White"
    num_seats = 2
    clock = ClockRule({"turn": 120.0}, reserve=600.0, on_timeout="the seat loses (the first-player choice: the DMO goes first)")

    def new_initial_state(self) -> DominoState:
        return DominoState(self)


class DominoState(State):
    game: Domino

    def __init__(self, game: Domino) -> None:
        super().__init__(game)
        self.phase = CHOOSE
        self.first: int | None = None
        self.turn = game.dmo
        self.num = [-1] * GRID  # number on each cell (hidden ones included), -1 empty
        self.owner = [-1] * GRID  # placement index covering each cell, -1 empty
        self.occ = 0  # occupancy bit mask
        self.used = [[False] * len(DOMINOES), [False] * len(DOMINOES)]
        self.placements: list[Placement] = []
        self.points = [0, 0]
        self.last: int | None = None
        self.spots: tuple[int, ...] = legal_positions(0)
        #: the sampler's plan for (seat, the placements it was built from); see _draw_hidden
        self._plan: tuple[int, list[Placement], _SamplePlan] | None = None

    def _copy_state(self, new: State) -> None:
        assert isinstance(new, DominoState)
        new.num = self.num[:]
        new.owner = self.owner[:]
        new.used = [self.used[0][:], self.used[1][:]]
        new.placements = self.placements[:]
        new.points = self.points[:]

    # ------------------------------------------------------------------ steps

    def awaited(self) -> tuple[int, ...]:
        if self.phase == CHOOSE:
            return (self.game.dmo,)
        if self.phase == PLAY:
            return (self.turn,)
        return ()

    def simultaneous(self) -> bool:
        return False

    def legal_actions(self, seat: int) -> list[Action]:
        if not (self.phase == PLAY and seat == self.turn and self.ended_by is None and not self.pending):
            if seat not in self.to_move():
                return []
            if self.phase == CHOOSE:
                return [("go", "first"), ("go", "second")]
        used = self.used[seat]
        free = [d for d in range(len(DOMINOES)) if not used[d]]
        out: list[Action] = []
        extend = out.extend
        for i in self.spots:
            acts = POS_ACTIONS[i]
            for d in free:
                extend(acts[d])
        return out

    def timeout_action(self, seat: int) -> Action | None:
        # The DMO's silence means "go first"; a placement timeout loses.
        return ("go", "first") if self.phase == CHOOSE else None

    def check(self, seat: int, action: Action) -> None:
        text = self._fmt(action)
        tag = action[0] if action else None
        if self.phase == CHOOSE:
            if tag != "go" or len(action) != 2 or action[1] not in ("first", "second"):
                raise IllegalActionError(
                    text, f"the DMO (P{seat + 1}) must first say `go first` or `go second`"
                )
            return
        if tag == "go":
            raise IllegalActionError(text, "the first player is already chosen; place a domino")
        if tag != "place" or len(action) != 6:
            raise IllegalActionError(text, "a turn places a domino, e.g. `(2,5) DZ:EZ hide EZ`")
        _, a, b, ca, cb, hidden = action
        if (a, b) not in DOMINO_INDEX:
            raise IllegalActionError(text, "there is no such domino; halves are 0..5")
        for c in (ca, cb):
            if not (isinstance(c, int) and 0 <= c < GRID and ON[c]):
                where = NAMES[c] if isinstance(c, int) and 0 <= c < GRID else repr(c)
                raise IllegalActionError(
                    text, f"{where} is off the board (a wall cell); see the board shape in the rules"
                )
        pos = POS_INDEX.get((min(ca, cb), max(ca, cb)))
        if pos is None:
            raise IllegalActionError(
                text,
                f"{NAMES[ca]} and {NAMES[cb]} are not adjacent; a domino covers two cells "
                "side by side or one above the other",
            )
        if hidden not in (ca, cb):
            where = NAMES[hidden] if isinstance(hidden, int) and 0 <= hidden < GRID else repr(hidden)
            raise IllegalActionError(
                text, f"the hidden cell {where} is not part of the domino; hide {NAMES[ca]} or {NAMES[cb]}"
            )
        if self.used[seat][DOMINO_INDEX[(a, b)]]:
            left = " ".join(f"({x},{y})" for d, (x, y) in enumerate(DOMINOES) if not self.used[seat][d])
            raise IllegalActionError(
                text, f"P{seat + 1} has already placed ({a},{b}); unused dominoes: {left}"
            )
        taken = [c for c in (ca, cb) if self.occ >> c & 1]
        if taken:
            raise IllegalActionError(text, f"{NAMES[taken[0]]} is occupied")
        if pos in self.spots:
            return
        occ = self.occ
        need = SPECIAL_POS.get(pos)
        if need is not None and not rests(occ, pos):
            special = "AR" if AR in (ca, cb) else "IR"
            raise IllegalActionError(
                text,
                f"a domino on {special} needs {NAMES[need[0]]} or {NAMES[need[1]]} occupied first",
            )
        if need is None and not rests(occ, pos):
            stop = pos
            while True:
                down = [j for j in MOVES[stop] if POSITIONS[j].a == POSITIONS[stop].a + W]
                if not down or occ & POSITIONS[down[0]].mask:
                    break
                stop = down[0]
            p = POSITIONS[stop]
            raise IllegalActionError(
                text,
                f"it would not rest there (nothing under it); it would come to rest at "
                f"{NAMES[p.a]}:{NAMES[p.b]}",
            )
        raise IllegalActionError(
            text,
            "it cannot be reached: no path slides it there from above the board "
            "(down, left, right through empty cells, without rotating)",
        )

    # ------------------------------------------------------------------ applying

    def _do(self, seat: int, action: Action) -> None:
        if action[0] == "go":
            self.first = seat if action[1] == "first" else 1 - seat
            self.turn = self.first
            self.phase = PLAY
            if self.track:
                self.note(None, f"P{seat + 1} (DMO) says {action[1]}: P{self.first + 1} places first.")
            return
        _, a, b, ca, cb, hidden = action
        num = self.num
        num[ca] = a
        num[cb] = b
        placements = self.placements
        k = len(placements)
        owner = self.owner
        owner[ca] = k
        owner[cb] = k
        occ = self.occ | (1 << ca) | (1 << cb)
        self.occ = occ
        self.used[seat][_DOMINO_OF[a * 6 + b]] = True
        # line_flags on the occupancy mask: a line counts once all three cells are filled
        flags = 0
        for mask, x, y, z, tab, _bit in PAIR_LINES[ca * GRID + cb]:
            if occ & mask == mask:
                flags |= tab[num[x] + num[y] + num[z]]
        gained = _FLAG_POINTS[flags]
        placements.append(Placement(seat, ca, cb, a, b, hidden, flags))
        self.points[seat] += gained
        self.last = seat
        if self.track:
            self._announce(seat, k, gained)
        spots = _SPOTS_CACHE.get(occ)
        if spots is None:
            spots = legal_positions(occ)
        self.spots = spots
        turn = self.turn = 1 - seat
        if not spots or all(self.used[turn]):
            self.phase = OVER
            if self.track:
                self._announce_end()

    def _announce(self, seat: int, k: int, gained: int) -> None:
        pl = self.placements[k]
        ca, cb, hidden = pl.cell_a, pl.cell_b, pl.hidden
        # the shown halves' texts come from tables; each note is still a new string
        sa = _HIDDEN_TEXT[ca][pl.num_a & 1] if ca == hidden else _SHOWN_TEXT[ca][pl.num_a]
        sb = _HIDDEN_TEXT[cb][pl.num_b & 1] if cb == hidden else _SHOWN_TEXT[cb][pl.num_b]
        met = flags_text(pl.flags) or "nothing"
        points = self.points
        log = self.log
        log.append(
            _new_note(
                Note,
                (
                    None,
                    f"P{seat + 1} places a domino on {sa} {sb}; met: {met} "
                    f"(+{gained}; P1 {points[0]} - P2 {points[1]}).",
                ),
            )
        )
        you = f"You placed ({pl.num_a},{pl.num_b}) {NAMES[ca]}:{NAMES[cb]} hide {NAMES[hidden]}."
        log.append(_new_note(Note, (seat, you)))

    def _announce_end(self) -> None:
        hidden = ", ".join(f"{NAMES[p.hidden]}={self.num[p.hidden]}" for p in self.placements)
        self.note(None, f"No legal placement remains: the game is over. Hidden numbers: {hidden}.")
        w = self.winner()
        tie = self.points[0] == self.points[1]
        self.note(
            None,
            f"P1 {self.points[0]} - P2 {self.points[1]}: P{(w or 0) + 1} wins"
            + (" (a tie goes to the last placer)." if tie else "."),
        )

    # ------------------------------------------------------------------ results

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def scores(self) -> tuple[int, ...]:
        return (self.points[0], self.points[1])

    def winner(self) -> int | None:
        p0, p1 = self.points
        if p0 != p1:
            return 0 if p0 > p1 else 1
        return self.last

    # ------------------------------------------------------------------ notation

    _GO = re.compile(r"^go(first|second)$")
    _PLACE = re.compile(
        r"^\((\d+),(\d+)\)(?:domino)?,?([a-z]{2})[:\-]([a-z]{2}),?hide\(?([a-z]{2}|\d+)\)?\.?$"
    )

    def parse_action(self, seat: int, text: str) -> Action:
        s = re.sub(r"\s+", "", text.lower())
        m = self._GO.match(s)
        if m:
            return ("go", m.group(1))
        m = self._PLACE.match(s)
        if not m:
            raise ActionSyntaxError(
                text,
                "expected `go first`, `go second` or a placement like `(2,5) DZ:EZ hide EZ` "
                "(or `(2,5) Domino, DZ:EZ, Hide (5)`)",
            )
        x, y = int(m.group(1)), int(m.group(2))
        if x > 5 or y > 5:
            raise ActionSyntaxError(text, "domino halves are numbered 0..5")
        cells = []
        for name in (m.group(3), m.group(4)):
            g = INDEX.get(name.upper())
            if g is None:
                raise ActionSyntaxError(
                    text, f"there is no cell {name.upper()}: columns are A..I, rows R..Z (e.g. DZ)"
                )
            cells.append(g)
        p, q = cells
        what = m.group(5)
        if what.isdigit():
            n = int(what)
            if x == y:
                raise ActionSyntaxError(
                    text, f"({x},{y}) is a double: name the hidden cell, e.g. `hide {NAMES[p]}`"
                )
            if n not in (x, y):
                raise ActionSyntaxError(text, f"hide ({n}): {n} is not a number of ({x},{y})")
            hidden = p if n == x else q
        else:
            g = INDEX.get(what.upper())
            if g is None:
                raise ActionSyntaxError(text, f"there is no cell {what.upper()} to hide")
            hidden = g
        if x > y or (x == y and p > q):
            x, y, p, q = y, x, q, p
        return ("place", x, y, p, q, hidden)

    def format_action(self, action: Action) -> str:
        if action[0] == "go":
            return f"go {action[1]}"
        _, a, b, ca, cb, hidden = action
        return f"({a},{b}) {NAMES[ca]}:{NAMES[cb]} hide {NAMES[hidden]}"

    # ------------------------------------------------------------------ views

    # The views are hashed with ``marshal`` by the search bot, and marshal writes an
    # object met twice, or held elsewhere, as a reference: they are built from the same
    # objects as ever (table strings, fresh lists and dicts), so the bytes do not change.

    def _board(self, seat: int | None) -> dict[str, Any]:
        """Cell name -> what ``seat`` sees there (``None`` = the host: everything)."""
        reveal = seat is None or self.is_over()
        board: dict[str, Any] = dict.fromkeys(_CELL_NAMES)  # board order, every cell empty
        num = self.num
        for k, pl in enumerate(self.placements):
            ca, cb, hidden, owner = pl.cell_a, pl.cell_b, pl.hidden, pl.seat
            knows = reveal or owner == seat
            name_a, name_b = NAMES[ca], NAMES[cb]
            n = num[ca]
            board[name_a] = {
                "seat": owner,
                "number": n if knows or hidden != ca else None,
                "colour": _COLOURS[n & 1],
                "hidden": hidden == ca,
                "placement": k,
                "mate": name_b,
            }
            n = num[cb]
            board[name_b] = {
                "seat": owner,
                "number": n if knows or hidden != cb else None,
                "colour": _COLOURS[n & 1],
                "hidden": hidden == cb,
                "placement": k,
                "mate": name_a,
            }
        return board

    def _placements(self, seat: int | None) -> list[dict[str, Any]]:
        reveal = seat is None or self.is_over()
        return [
            {
                "seat": pl.seat,
                "cells": [NAMES[pl.cell_a], NAMES[pl.cell_b]],
                "numbers": [
                    pl.num_a if pl.hidden != pl.cell_a or reveal or pl.seat == seat else None,
                    pl.num_b if pl.hidden != pl.cell_b or reveal or pl.seat == seat else None,
                ],
                "colours": [_COLOURS[pl.num_a & 1], _COLOURS[pl.num_b & 1]],
                "hidden": NAMES[pl.hidden],
                "met": "".join(_FLAG_LETTERS[pl.flags & 15]),
                "points": _FLAG_POINTS[pl.flags & 15],
            }
            for pl in self.placements
        ]

    def _view(self, seat: int) -> dict[str, Any]:  # type: ignore[override]  # public view (seat None) to come
        opp = 1 - seat
        mine = self.used[seat]
        play = self.phase == PLAY
        return {
            "phase": self.phase,
            "dmo": self.game.dmo,
            "first": self.first,
            "turn": self.turn if play else None,
            "points": self.points[:],
            "last_placer": self.last,
            "board": self._board(seat),
            "placements": self._placements(seat),
            "my_unused": [[a, b] for (a, b), u in zip(DOMINOES, mine) if not u],
            "their_unused_count": self.used[opp].count(False),
            "spots": [[a, b] for a, b in map(_SPOT_NAMES.__getitem__, self.spots)] if play else [],
        }

    def host_view(self) -> dict[str, Any]:
        """The board with every number shown, for the host and the referee (draw_board input)."""
        return {
            "phase": self.phase,
            "points": self.points[:],
            "board": self._board(None),
            "placements": self._placements(None),
        }

    # ------------------------------------------------------------------ sampling

    SAMPLE_NODES = 20000

    def resample(self, seat: int, rng: random.Random) -> State:
        """Redraw the opponent's hidden numbers consistently with what ``seat`` knows.

        Known: every number ``seat`` placed, the opponent's shown halves, the colour of
        each hidden half, that the opponent owns one of each domino (so its placements
        are distinct dominoes), and the H/V/D/B result of every placement.  A randomised
        depth-first search in placement order (candidates sorted, then shuffled with
        ``rng``) finds an assignment meeting all of these; it reads none of the true
        hidden numbers.  Fallbacks if the node budget runs out: drop the H/V/D/B
        constraint, then the distinctness one (colours always hold).
        """
        copy = self.clone(track=False)
        assert isinstance(copy, DominoState)
        copy.pending = {}
        opp = 1 - seat
        if copy.phase == OVER or not any(p.seat == opp for p in copy.placements):
            return copy
        values = None
        for check_flags, distinct in ((True, True), (False, True), (False, False)):
            values = self._draw_hidden(seat, rng, check_flags, distinct)
            if values is not None:
                break
        assert values is not None
        used = [False] * len(DOMINOES)
        placements = copy.placements
        num = copy.num
        for k, n in values.items():
            s, ca, cb, a, b, hidden, flags = placements[k]
            if hidden == ca:
                a = n
            else:
                b = n
            placements[k] = _new_placement(Placement, (s, ca, cb, a, b, hidden, flags))
            num[hidden] = n
            used[_DOMINO_OF[a * 6 + b]] = True
        copy.used[opp] = used
        return copy

    def _draw_hidden(
        self, seat: int, rng: random.Random, check_flags: bool, distinct: bool
    ) -> dict[int, int] | None:
        """Placement index -> hidden number for each opponent placement, or None (budget).

        The search of the docstring above, on a plan built once per position and seat
        (see :class:`_SamplePlan`): the same nodes in the same order, the same ``rng``
        calls and the same node budget as the plain depth-first search over every
        placement, so the same sample; each node costs a few table look-ups instead of
        a full :func:`line_flags`.
        """
        cached = self._plan
        placements = self.placements
        # a copy of the list it was built from: equal lists (the same Placement objects,
        # compared by identity first) however this state or a clone came by them
        if cached is not None and cached[0] == seat and cached[1] == placements:
            plan = cached[2]
        else:
            plan = _SamplePlan(placements, 1 - seat)
            self._plan = (seat, placements[:], plan)
        return plan.draw(rng, check_flags, distinct, self.SAMPLE_NODES)


class _OutOfBudget(Exception):
    """The sampler's node budget ran out (the caller tries a looser search)."""


#: one H/V/D/B test: (flags the placement announced, flags of its lines that involve no
#: hidden number, its lines that do as (x, y, z, flags by sum))
_Check = tuple[int, int, tuple[tuple[int, int, int, tuple[int, ...]], ...]]


class _SamplePlan:
    """What :meth:`DominoState._draw_hidden` needs of one position, for one seat.

    The search visits the placements in order.  A placement of the seat itself has no
    choice: the plain search only tests its H/V/D/B result, so that test is folded into
    the preceding opponent node (failing it sends that node to its next candidate, as
    returning False from the seat's node did).  A line counts at placement ``k`` when
    its three cells belong to placements up to ``k``; the part of it that no hidden
    number touches is summed once here.  Only the parity (public colour) of each hidden
    number is read, never the number.
    """

    def __init__(self, placements: list[Placement], opp: int) -> None:
        val = [-1] * GRID  # every number the seat knows; its opponent's hidden cells stay -1
        order = [-1] * GRID  # placement index on each cell
        hidden_cells = 0
        for k, pl in enumerate(placements):
            order[pl.cell_a] = order[pl.cell_b] = k
            if pl.seat == opp:
                shown = pl.cell_b if pl.hidden == pl.cell_a else pl.cell_a
                val[shown] = pl.num_b if pl.hidden == pl.cell_a else pl.num_a
                hidden_cells |= 1 << pl.hidden
            else:
                val[pl.cell_a], val[pl.cell_b] = pl.num_a, pl.num_b

        def check(k: int, pl: Placement) -> _Check:
            const = 0
            lines = []
            for _mask, x, y, z, tab, _bit in _pair_lines(pl.cell_a, pl.cell_b):
                if not (0 <= order[x] <= k and 0 <= order[y] <= k and 0 <= order[z] <= k):
                    continue  # a cell still empty at placement k: the line is not full
                if hidden_cells >> x & 1 or hidden_cells >> y & 1 or hidden_cells >> z & 1:
                    lines.append((x, y, z, tab))
                else:
                    const |= tab[val[x] + val[y] + val[z]]
            return (pl.flags, const, tuple(lines))

        #: checks of the seat's placements before the first opponent one (no choice yet)
        self.head: list[_Check] = []
        #: per opponent placement: (index, hidden cell, its candidates, domino index by
        #: candidate, its own check followed by those of the seat's placements after it)
        #: and, when those checks read no other hidden number, their verdict by candidate
        self.steps: list[tuple[int, int, tuple[int, ...], tuple[int, ...], list[_Check], tuple[bool, ...] | None]] = []
        for k, pl in enumerate(placements):
            if pl.seat != opp:
                (self.steps[-1][4] if self.steps else self.head).append(check(k, pl))
                continue
            v = pl.num_b if pl.hidden == pl.cell_a else pl.num_a
            parity = (pl.num_a if pl.hidden == pl.cell_a else pl.num_b) % 2
            doms = tuple(_DOMINO_OF[v * 6 + n] for n in range(6))
            self.steps.append((k, pl.hidden, tuple(range(parity, 6, 2)), doms, [check(k, pl)], None))
        # a step whose tests read no hidden number but its own: decide each candidate now
        for j, (k, cell, base, doms, checks, _ok) in enumerate(self.steps):
            reads = _cell_mask(c for _t, _f, lines in checks for line in lines for c in line[:3])
            if not reads & hidden_cells & ~(1 << cell):
                verdicts = []
                for n in range(6):
                    val[cell] = n
                    verdicts.append(_passes(checks, val))
                val[cell] = -1
                self.steps[j] = (k, cell, base, doms, checks, tuple(verdicts))
        self.val = val

    def draw(self, rng: random.Random, check_flags: bool, distinct: bool, nodes: int) -> dict[int, int] | None:
        """One randomised depth-first search (see :meth:`DominoState.resample`)."""
        if check_flags and not _passes(self.head, self.val):
            return None
        val = self.val[:]
        used = [False] * len(DOMINOES)
        out: dict[int, int] = {}
        steps = self.steps
        last = len(steps)
        budget = nodes
        shuffle = rng.shuffle

        def go(j: int) -> bool:
            nonlocal budget
            if j == last:
                return True
            k, cell, base, doms, checks, ok = steps[j]
            cands = list(base)
            shuffle(cands)
            for n in cands:
                budget -= 1
                if budget < 0:
                    raise _OutOfBudget
                d = doms[n]
                if distinct and used[d]:
                    continue
                if check_flags:
                    if ok is not None:
                        if not ok[n]:
                            continue
                    else:
                        val[cell] = n
                        if not _passes(checks, val):
                            continue
                    val[cell] = n
                used[d] = True
                out[k] = n
                if go(j + 1):
                    return True
                used[d] = False
            return False

        try:
            return out if go(0) else None
        except _OutOfBudget:
            return None


def _passes(checks: list[_Check], val: list[int]) -> bool:
    """Whether every placement of ``checks`` meets the flags it announced under ``val``."""
    for target, flags, lines in checks:
        for x, y, z, tab in lines:
            flags |= tab[val[x] + val[y] + val[z]]
        if flags != target:
            return False
    return True


# --------------------------------------------------------------------------- drawing


def draw_board(view: dict[str, Any]) -> str:
    """The board as text, from a seat's view or :meth:`DominoState.host_view`.

    ``5`` a shown number, ``(5)`` a hidden number the viewer knows, ``?b``/``?w`` a
    hidden black/white half it does not; ``=`` and ``|`` join the halves of a domino.
    """
    board: dict[str, Any] = view["board"]

    def token(name: str) -> str:
        cell = board.get(name)
        if cell is None:
            return " . "
        n = cell["number"]
        if n is None:
            return " ?" + cell["colour"][0]
        return f"({n})" if cell["hidden"] else f" {n} "

    lines = ["    " + "   ".join(COLS)]
    for r in range(W):
        row = [f" {ROWS[r]} "]
        link = ["   "]
        for c in range(W):
            g = r * W + c
            name = NAMES[g]
            right = c + 1 < W and ON[g + 1] and _joined(board, name, NAMES[g + 1])
            row.append((token(name) if ON[g] else "   ") + ("=" if right else " "))
            down = r + 1 < W and ON[g] and ON[g + W] and _joined(board, name, NAMES[g + W])
            link.append(" | " if down else "   ")
            link.append(" ")
        lines.append("".join(row).rstrip())
        if r + 1 < W:
            lines.append("".join(link).rstrip())
    pts = view.get("points")
    if pts is not None:
        lines.append(f"Points: P1 {pts[0]} - P2 {pts[1]}")
    return "\n".join(lines)


def _joined(board: dict[str, Any], a: str, b: str) -> bool:
    cell = board.get(a)
    return cell is not None and cell["mate"] == b
