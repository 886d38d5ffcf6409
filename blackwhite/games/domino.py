"""Domino Black & White: the rules (users read them in docs/rules/domino.md).

Two seats take turns dropping dominoes (halves 0..5, one half's number hidden) into
a 63-cell upright board.  A domino must rest and must be able to slide into place
from above; the placer scores for lines of three that sum to 0, 5, 10 or 15.

The module reads top down as the rules do: the board, where a domino may go
(:func:`rests`, :func:`reachable`), how a placement scores (:data:`SCORING_SUMS`,
:func:`line_flags`), then the game itself, then the fast paths that search needs
(each computes exactly what a rule above says, and tests hold them to it).  How bots
redraw hidden numbers lives next door, in ``domino_sampler``; the terminal's drawing
of the board in ``blackwhite/drawing/``.

Inside the engine a cell is its index ``row * 9 + col`` on the 9x9 grid A..I x R..Z
(``AR`` = 0, ``IR`` = 8, ``DZ`` = 75); grid cells outside the board's shape are walls.
A placement is the tuple ``("place", a, b, cell_a, cell_b, hidden_cell)`` with
``a <= b`` (number ``a`` lies on ``cell_a``) and, for a double, ``cell_a < cell_b``:
one tuple per placement, however it was written.  What others see of a placement
lists its cells in board order instead (top row first, left to right), never by
number, so the order tells nothing about a hidden number.  The DMO's choice is
``("go", "first")`` or ``("go", "second")``.

The small variant (options ``board`` = ``"WxH"`` and ``numbers``) plays on a
rectangle at the bottom of the standard board (columns C.., rows ..Z) with the
dominoes whose halves are at most ``numbers``.  Its cells, lines and floors are the
standard board's, so only which spots are legal (:class:`Shape`) and which dominoes
a seat owns change; every other table serves both.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from bisect import insort
from functools import lru_cache
from typing import Any, ClassVar, Final, Mapping, NamedTuple, TypeVar

from ..engine.core import (
    Action, ActionSyntaxError, ClockRule, Game, IllegalActionError, OptionError, OptionInfo, State,
    colour, is_int, more_points
)
from ..engine.registry import GameEntry, sampler
from ..views.domino import (
    Cell,
    DominoBoard,
    DominoPart,
    DominoPhase,
    DominoPublicPart,
    DominoSeatPart,
    DominoView,
    PlacedDomino,
)

#: an entry of the table :meth:`DominoState.spot_offer` writes an offer with
_T = TypeVar("_T")


# --------------------------------------------------------------------------- the board

COLS = "ABCDEFGHI"
ROWS = "RSTUVWXYZ"
W = 9  # grid width and height
GRID = W * W

#: (first column, last column) of each row R..Z: a 7x9 board whose two bottom
#: corners were moved to the ends of the top row
_ROW_SPAN = [(0, 8)] + [(1, 7)] * 7 + [(2, 6)]

ON: tuple[bool, ...] = tuple(
    _ROW_SPAN[g // W][0] <= g % W <= _ROW_SPAN[g // W][1] for g in range(GRID)
)
#: the 63 board cells in board order (top row first, left to right)
CELLS: tuple[int, ...] = tuple(g for g in range(GRID) if ON[g])
NAMES: tuple[str, ...] = tuple(COLS[g % W] + ROWS[g // W] for g in range(GRID))
INDEX: dict[str, int] = {name: g for g, name in enumerate(NAMES)}

AR, BR, CR, GR, HR, IR = (INDEX[n] for n in ("AR", "BR", "CR", "GR", "HR", "IR"))
BS, HS = INDEX["BS"], INDEX["HS"]
#: the corner cells -> the cells one of which must be occupied to cover them (rule 3)
SPECIAL: dict[int, tuple[int, int]] = {AR: (BS, CR), IR: (HS, GR)}


def _below(g: int) -> int:
    """The board cell under ``g``, or -1 when ``g`` is the lowest cell of its column."""
    b = g + W
    return b if b < GRID and ON[b] else -1


BELOW: tuple[int, ...] = tuple(_below(g) if ON[g] else -1 for g in range(GRID))


class _Pos(NamedTuple):
    """Two adjacent board cells a domino can cover."""

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


#: every spot a domino can cover, in board order of its upper/left cell
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
#: the position one step straight down from each position (-1: none on the board)
DOWN: tuple[int, ...] = tuple(POS_INDEX.get((p.a + W, p.b + W), -1) for p in POSITIONS)
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
DOMINO_OF: tuple[int, ...] = tuple(DOMINO_INDEX[(min(a, b), max(a, b))] for a in range(6) for b in range(6))

# --------------------------------------------------------------------------- where a domino may go


def rests(occ: int, i: int) -> bool:
    """Rules 1 and 3 for position ``i`` on the board ``occ`` before placing.

    Rule 1: some half lies on the lowest cell of its column or on an occupied cell.
    Rule 3 replaces it for a domino covering AR (or IR): BS or CR (HS or GR) occupied.
    """
    need = SPECIAL_POS.get(i)
    if need is not None:
        return bool(occ >> need[0] & 1 or occ >> need[1] & 1)
    p = POSITIONS[i]
    if p.vertical:
        below = BELOW[p.b]
        return below < 0 or bool(occ >> below & 1)
    ba, bb = BELOW[p.a], BELOW[p.b]
    return ba < 0 or bb < 0 or bool(occ >> ba & 1) or bool(occ >> bb & 1)


def reachable(occ: int) -> list[int]:
    """Rule 2: positions a piece can slide to from above the board through empty cells
    (down, left and right, never up, never rotating): a search from the entries."""
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


def come_to_rest(occ: int, i: int) -> int:
    """Where a (non-corner) domino dropped straight down from position ``i`` stops.

    Why: a refusal for an unsupported spot names where the piece would rest.  A spot
    that does not rest has both cells under it on the board and empty, so the step
    down is always there.
    """
    while not rests(occ, i):
        i = DOWN[i]
    return i


# --------------------------------------------------------------------------- scoring

#: a full line of three scores when its sum is one of these ...
SCORING_SUMS = frozenset((0, 5, 10, 15))
#: ... and earns the extra B point when it is one of these
BONUS_SUMS = frozenset((0, 15))

H_BIT, V_BIT, D_BIT, B_BIT = 1, 2, 4, 8
_DIRS = ((0, 1, H_BIT), (1, 0, V_BIT), (1, 1, D_BIT), (1, -1, D_BIT))


def line_meets(bit: int, total: int) -> int:
    """The flags a full line of direction ``bit`` summing to ``total`` meets (0: none)."""
    if total not in SCORING_SUMS:
        return 0
    return bit | (B_BIT if total in BONUS_SUMS else 0)


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

#: flags by direction bit and sum 0..15: :func:`line_meets` as a table (the hot paths
#: index it instead of testing the sum)
_SUM_FLAGS: dict[int, tuple[int, ...]] = {
    bit: tuple(line_meets(bit, s) for s in range(16)) for bit in (H_BIT, V_BIT, D_BIT)
}

#: one line of 3 cells as (cell mask, x, y, z, flags by sum, direction bit)
_Line = tuple[int, int, int, int, tuple[int, ...], int]


def pair_lines(a: int, b: int) -> tuple[_Line, ...]:
    """The distinct lines through cell ``a`` or ``b``, in :data:`LINES` order.

    Why: a line through both halves of a domino is listed under each; the flags are
    OR-ed, so checking it once gives the same answer for less work.
    """
    seen: dict[tuple[int, int, int, int], None] = {}
    for half in (a, b):
        for line in LINES[half]:
            seen.setdefault(line, None)
    return tuple(((1 << x) | (1 << y) | (1 << z), x, y, z, _SUM_FLAGS[bit], bit) for bit, x, y, z in seen)


#: ``a * GRID + b`` -> :func:`pair_lines` for the two cells of every position, both orders
PAIR_LINES: dict[int, tuple[_Line, ...]] = {}
for _p in POSITIONS:
    PAIR_LINES[_p.a * GRID + _p.b] = PAIR_LINES[_p.b * GRID + _p.a] = pair_lines(_p.a, _p.b)


def line_flags(num: list[int], a: int, b: int) -> int:
    """H/V/D/B bits met by the domino just laid on cells ``a`` and ``b`` of ``num``.

    ``num`` holds every placed number (hidden ones too) and -1 for an empty cell;
    only full lines count.
    """
    flags = 0
    lines = PAIR_LINES.get(a * GRID + b)
    if lines is None:  # not a domino's two cells: every line through each
        lines = pair_lines(a, b)
    for _mask, x, y, z, table, _bit in lines:
        nx, ny, nz = num[x], num[y], num[z]
        if nx >= 0 and ny >= 0 and nz >= 0:
            flags |= table[nx + ny + nz]
    return flags


def flag_points(flags: int) -> int:
    """Points for the H/V/D/B bits met: one each."""
    return bin(flags & 15).count("1")


#: flags -> its letters (``"HVDB"`` order) and its points
_FLAG_LETTERS: tuple[str, ...] = tuple(
    "".join(ch for ch, bit in (("H", H_BIT), ("V", V_BIT), ("D", D_BIT), ("B", B_BIT)) if f & bit)
    for f in range(16)
)
_FLAG_POINTS: tuple[int, ...] = tuple(flag_points(f) for f in range(16))


def flags_text(flags: int) -> str:
    """``"HVDB"`` letters of the conditions met ("" for none)."""
    return _FLAG_LETTERS[flags & 15]


# --------------------------------------------------------------------------- the game

CHOOSE: Final = "choose"
PLAY: Final = "play"
OVER: Final = "over"

#: colour by parity: ``_COLOURS[n & 1] == colour(n)``
_COLOURS = (colour(0), colour(1))


class Placement(NamedTuple):
    """One domino on the board, as the host knows it.

    The cells are in board order (``cell_a < cell_b``: upper or left first), whatever
    the numbers, and ``num_a`` lies on ``cell_a``: what others see of it is listed in
    this order, which depends on no hidden number.
    """

    seat: int
    cell_a: int
    cell_b: int
    num_a: int
    num_b: int
    hidden: int  # the cell whose number is hidden
    flags: int  # H/V/D/B bits announced


#: builds a Placement without the named tuple's Python-level ``__new__`` (every step makes one)
_new_placement = tuple.__new__

_BOARD_OPTION = re.compile(r"([2-5])x([1-9])")  # used with fullmatch: no "5x1\n"


class Domino(Game):
    id = "domino"
    small_options: ClassVar[Mapping[str, Any]] = {"board": "5x1", "numbers": 3}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = (
        {"dmo": 1}, {"board": "5x1", "numbers": 3}, {"board": "3x2", "numbers": 2}, {"board": "5x4"},
        {"numbers": 2},
    )
    title = "Domino Black & White"
    num_seats = 2
    #: what each kind of action does (the pages' buttons and prompt)
    action_help: ClassVar[dict[str, str]] = {
        '(': 'choose one of your dominoes, two free cells next to each other for it, and the half to hide',
        'go': 'choose whether you go first or let the other seat start',
    }
    option_defaults = {"board": "standard", "numbers": 5}
    #: the small variant's options (listed by the referee only when given or not at default)
    variant_options: ClassVar[frozenset[str]] = frozenset({"board", "numbers"})
    option_info: ClassVar[dict[str, OptionInfo]] = {
        "board": OptionInfo("Board", "The standard board, or a smaller plain rectangle (width x height).", "choice",
                            choices=(("standard", "standard (9 x 9 with walls)"),
                                     *((f"{w}x{h}", f"{w} x {h}") for w in range(2, 6) for h in range(1, 10)))),
        "numbers": OptionInfo("Highest number on a half", "Dominoes use the numbers 0 up to this one.",
                              "number", minimum=1, maximum=5),
    }
    clock = ClockRule(
        {"turn": 120.0}, reserve=600.0, on_timeout="the seat loses (the first-player choice: the DMO goes first)"
    )

    def validate_options(self, options: dict[str, Any]) -> None:
        board = options["board"]
        if not isinstance(board, str) or (board != "standard" and not _BOARD_OPTION.fullmatch(board)):
            raise OptionError(
                f"option board must be \"standard\" or \"WxH\" (a rectangle W = 2..5 wide, "
                f"H = 1..9 high at the bottom of the board), got {board!r}"
            )
        numbers = options["numbers"]
        if not is_int(numbers) or not 1 <= numbers <= 5:
            raise OptionError(f"option numbers (the highest number on a half) must be 1..5, got {numbers!r}")

    @property
    def shape(self) -> Shape:
        """The board this game is played on (the standard one by default)."""
        m = _BOARD_OPTION.fullmatch(self.options["board"])
        return STANDARD if m is None else rectangle(int(m.group(1)), int(m.group(2)))

    @property
    def absent(self) -> tuple[bool, ...]:
        """Per domino: whether it is left out of each seat's set (a half above ``numbers``)."""
        return _absent(self.options["numbers"])

    def new_initial_state(self) -> DominoState:
        return DominoState(self)


class DominoState(State[DominoView]):
    game: Domino

    #: node budget of one search for hidden numbers (see :meth:`resample`)
    SAMPLE_NODES = 20000

    def __init__(self, game: Domino) -> None:
        super().__init__(game)
        self.phase: DominoPhase = CHOOSE
        self.first: int | None = None
        self.turn = game.dmo
        self.num = [-1] * GRID  # number on each cell (hidden ones included), -1 empty
        self.occ = 0  # occupancy bit mask
        self.shape = game.shape
        absent = list(game.absent)  # dominoes outside the set count as used from the start
        self.used = [absent, absent[:]]
        self.placements: list[Placement] = []
        self.points = [0, 0]
        self.last: int | None = None
        self.spots: tuple[int, ...] = shape_positions(self.shape, 0)
        #: the reachable positions behind ``spots`` (:func:`_slide`) and ``spots`` as
        #: bits (:func:`_resting`): a placement works on from these
        self._reach = self.shape.empty_reach
        self._spot_bits = self._reach & _REST_FLOOR
        #: the positions that rest (:func:`_rest_tables`) and the filled cells of each
        #: line (:func:`_line_tables`): what a placement adds to, never recomputes
        self._rest = _REST_FLOOR
        self._filled = 0
        #: per seat, the placements one spot offers it (:func:`_offer_of`), with the used
        #: list they were read from (see :meth:`_set_offer`)
        offer = _first_offer(game.absent)
        self._offers: tuple[tuple[list[bool], bytes], tuple[list[bool], bytes]] = (
            (self.used[0], offer), (self.used[1], offer)
        )
        #: the sampler's plan: (seat, placements it covers, plan); never copied by clone
        self._plan: tuple[int, int, Any] | None = None

    def _copy_state(self, new: State) -> None:
        assert isinstance(new, DominoState)
        new.num = self.num[:]
        new.used = [self.used[0][:], self.used[1][:]]
        new.placements = self.placements[:]
        new.points = self.points[:]
        new._plan = None  # a cache of this state's; a copy (a search world) builds its own
        # The offers are read from the used dominoes, which a search world redraws for the
        # opponent: a copy reads its own at its first draw rather than carry the truth along.
        new._offers = (_NO_OFFER, _NO_OFFER)

    # ------------------------------------------------------------------ steps

    def awaited(self) -> tuple[int, ...]:
        if self.phase == PLAY:
            return (self.turn,)
        if self.phase == CHOOSE:
            return (self.game.dmo,)
        return ()

    def simultaneous(self) -> bool:
        return False

    # What the engine asks at every step, answered from the phase: domino has no chance
    # events and never holds a pending action (no simultaneous steps), so these say what
    # State's general versions say with fewer calls (random play and rollouts ask them
    # once a step).

    def is_chance(self) -> bool:
        return False

    def is_over(self) -> bool:
        return self.phase == OVER or self.ended_by is not None

    def to_move(self) -> list[int]:
        if self.phase == PLAY and self.ended_by is None and not self.pending:
            return [self.turn]
        return super().to_move()

    def legal_actions(self, seat: int) -> list[Action]:
        if not (self.phase == PLAY and seat == self.turn and self.ended_by is None and not self.pending):
            if seat not in self.to_move():
                return []
            if self.phase == CHOOSE:
                return [("go", "first"), ("go", "second")]
        return self.spot_offer(seat, POS_ACTIONS)

    def spot_offer(self, seat: int, table: Sequence[Sequence[tuple[_T, ...]]]) -> list[_T]:
        """What the placing ``seat`` is offered, written with ``table``: for each spot
        in board order, ``table[spot][d]`` for each domino ``d`` it has not used, in
        domino order.  With :data:`POS_ACTIONS` these are its legal placements; the
        research encoding passes its codes, so the rule (every unused domino on every
        spot, in this order) is written once."""
        used = self.used[seat]
        free = [d for d in _DOMINO_IDS if not used[d]]
        out: list[_T] = []
        extend = out.extend
        for i in self.spots:
            row = table[i]
            for d in free:
                extend(row[d])
        return out

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """The action ``rng`` picks from :meth:`legal_actions`, found without listing
        them: every spot offers the same placements of the unused dominoes, so the
        draw's index splits into a spot and a placement there."""
        if not (self.phase == PLAY and seat == self.turn and self.ended_by is None and not self.pending):
            return super().random_action(seat, rng)
        used = self.used[seat]
        offer = self._offers[seat]
        if offer[0] is not used:  # a copy's first draw (see _copy_state)
            offer = self._set_offer(seat, used, _offer_of(used))
        slots = offer[1]
        per_spot = len(slots)
        spot, k = divmod(rng.randrange(len(self.spots) * per_spot), per_spot)
        return _POS_OFFERS[self.spots[spot]][slots[k]]

    def _set_offer(self, seat: int, used: list[bool], slots: bytes) -> tuple[list[bool], bytes]:
        """Keep ``slots`` (:func:`_offer_of`) as what a spot offers ``seat``, with the
        ``used`` list they were read from: :meth:`random_action` trusts them only while
        the seat's list is that very list, which only :meth:`_do` changes in place (and
        keeps the offer in step); a copy starts without (see :meth:`_copy_state`)."""
        offer = (used, slots)
        self._offers = (offer, self._offers[1]) if seat == 0 else (self._offers[0], offer)
        return offer

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
        top = self.game.options["numbers"]
        if not (is_int(a) and is_int(b) and (a, b) in DOMINO_INDEX and b <= top):
            raise IllegalActionError(text, f"there is no such domino; halves are 0..{top}, the smaller first")
        on = self.shape.on
        for c in (ca, cb):
            if not (is_int(c) and 0 <= c < GRID and on[c]):
                where = NAMES[c] if is_int(c) and 0 <= c < GRID else repr(c)
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
        if a == b and ca > cb:
            raise IllegalActionError(
                text, "a double names its cells in board order (the upper or left cell first)"
            )
        if not (is_int(hidden) and hidden in (ca, cb)):
            where = NAMES[hidden] if is_int(hidden) and 0 <= hidden < GRID else repr(hidden)
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
        if not rests(occ, pos):
            if need is not None:
                special = "AR" if AR in (ca, cb) else "IR"
                raise IllegalActionError(
                    text,
                    f"a domino on {special} needs {NAMES[need[0]]} or {NAMES[need[1]]} occupied first",
                )
            p = POSITIONS[come_to_rest(occ, pos)]
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
        if cb < ca:  # kept in board order, never by number (see Placement)
            ca, cb, a, b = cb, ca, b, a
        num = self.num
        num[ca] = a
        num[cb] = b
        cells, line_add, line_low, covering, rest_gain = _FOOTPRINTS[ca * GRID + cb]
        self.occ |= cells
        domino = DOMINO_OF[a * 6 + b]
        used = self.used[seat]
        used[domino] = True
        offers = self._offers
        if offers[seat][0] is used:  # keep the seat's offer in step (see _set_offer)
            offer = (used, offers[seat][1].replace(_DOMINO_OFFER[domino], b"", 1))
            self._offers = (offer, offers[1]) if seat == 0 else (offers[0], offer)
        filled = self._filled = self._filled + line_add
        flags = completed_lines_flags(num, filled & filled >> 1 & line_low)  # count 3: both bits set
        gained = _FLAG_POINTS[flags]
        self.placements.append(_new_placement(Placement, (seat, ca, cb, a, b, hidden, flags)))
        self.points[seat] += gained
        self.last = seat
        track = self.track
        if track:
            self._announce(seat, action, gained)
        # Rule 2 from the last reach: cells only fill, so nothing unreachable then is
        # reachable now, and the positions the piece covers are lost.  A position whose
        # cells, and so every path to it (paths never climb), lie above the piece's row
        # stays reachable: the slide starts from those and the entries.
        free = self._reach & ~covering
        reach = self._reach = _spread(free & self.shape.starts[ca // W], free)
        rest = self._rest = self._rest | rest_gain
        bits = reach & rest  # rules 1 and 3 on the reachable positions
        spots = _respot(self.spots, self._spot_bits, bits)
        self._spot_bits = bits
        self.spots = spots
        turn = self.turn = 1 - seat
        if not spots or False not in self.used[turn]:
            self.phase = OVER
            if track:
                self._announce_end()

    #: Domino has no free actions and no simultaneous steps: every action is a turn
    _submit = _do

    def _announce(self, seat: int, action: Action, gained: int) -> None:
        """The public note (cells in board order, the hidden half as its colour) and the
        placer's own (its move as written in records)."""
        pl = self.placements[-1]
        points = self.points
        self.note(
            None,
            f"P{seat + 1} places a domino on {self._half_text(pl.cell_a, pl)} "
            f"{self._half_text(pl.cell_b, pl)}; met: {flags_text(pl.flags) or 'nothing'} "
            f"(+{gained}; P1 {points[0]} - P2 {points[1]}).",
        )
        self.note(seat, f"You placed {self.format_action(action)}.")

    def _half_text(self, g: int, pl: Placement) -> str:
        """``DZ=4`` for a shown half, ``DZ=?black`` for the hidden one."""
        n = self.num[g]
        return f"{NAMES[g]}=?{_COLOURS[n & 1]}" if g == pl.hidden else f"{NAMES[g]}={n}"

    def _announce_end(self) -> None:
        hidden = ", ".join(f"{NAMES[p.hidden]}={self.num[p.hidden]}" for p in self.placements)
        # A variant's smaller set can run out before the board fills; say which ended it.
        reason = (
            "No legal placement remains"
            if not self.spots
            else f"P{self.turn + 1} has no domino left to place"
        )
        self.note(None, f"{reason}: the game is over. Hidden numbers: {hidden}.")
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
        return more_points(self.points, self.last)

    # ------------------------------------------------------------------ notation

    _GO = re.compile(r"^go(first|second)$")
    # ASCII digits only: other digit characters are a notation error
    _PLACE = re.compile(
        r"^\(([0-9]+),([0-9]+)\)(?:domino)?,?([a-z]{2})[:\-]([a-z]{2}),?hide\(?([a-z]{2}|[0-9]+)\)?\.?$"
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
                "(or `(2,5) Domino, DZ:EZ, Hide (5)`); numbers are ASCII digits",
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
        if what[0] in "0123456789":
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

    def _knows(self, owner: int, seat: int | None) -> bool:
        """Whether ``seat`` (None: the public) may see a hidden number of ``owner``'s:
        its own, and everyone's once the match is over (a resignation too)."""
        return owner == seat or self.is_over()

    def _board(self, seat: int | None, host: bool = False) -> dict[str, Cell | None]:
        """Cell name -> what ``seat`` sees there (``host``: every number)."""
        board: dict[str, Cell | None] = dict.fromkeys(self.shape.names)  # board order, every cell empty
        num = self.num
        every = host or self.is_over()  # see _knows
        for k, pl in enumerate(self.placements):
            knows = every or pl.seat == seat
            ga, gb, hidden = pl.cell_a, pl.cell_b, pl.hidden
            name_a, name_b = NAMES[ga], NAMES[gb]
            # two literals, not a loop over (cell, mate): the loop costs 8% of a view (measured)
            n = num[ga]
            board[name_a] = {
                "seat": pl.seat,
                "number": n if knows or hidden != ga else None,
                "colour": _COLOURS[n & 1],
                "hidden": hidden == ga,
                "placement": k,
                "mate": name_b,
            }
            n = num[gb]
            board[name_b] = {
                "seat": pl.seat,
                "number": n if knows or hidden != gb else None,
                "colour": _COLOURS[n & 1],
                "hidden": hidden == gb,
                "placement": k,
                "mate": name_a,
            }
        return board

    def _placements(self, seat: int | None, host: bool = False) -> list[PlacedDomino]:
        """Every placement in order, its cells in board order (see :class:`Placement`)."""
        every = host or self.is_over()  # see _knows
        return [
            {
                "seat": pl.seat,
                "cells": [NAMES[pl.cell_a], NAMES[pl.cell_b]],
                "numbers": [
                    pl.num_a if every or pl.seat == seat or pl.hidden != pl.cell_a else None,
                    pl.num_b if every or pl.seat == seat or pl.hidden != pl.cell_b else None,
                ],
                "colours": [_COLOURS[pl.num_a & 1], _COLOURS[pl.num_b & 1]],
                "hidden": NAMES[pl.hidden],
                "met": _FLAG_LETTERS[pl.flags & 15],
                "points": _FLAG_POINTS[pl.flags & 15],
            }
            for pl in self.placements
        ]

    def _view(self, seat: int | None) -> DominoPart:
        """What ``seat`` knows; for ``None`` (a spectator) every hidden number is only
        its colour until the end, and only how many dominoes each seat has left."""
        play = self.phase == PLAY
        audience: DominoPublicPart | DominoSeatPart
        if seat is None:
            audience = {"unused_counts": [self.used[0].count(False), self.used[1].count(False)]}
        else:
            audience = {
                "my_unused": [[a, b] for (a, b), u in zip(DOMINOES, self.used[seat]) if not u],
                "their_unused_count": self.used[1 - seat].count(False),
            }
        return {
            "phase": self.phase,
            "dmo": self.game.dmo,
            "first": self.first,
            "turn": self.turn if play else None,
            "points": self.points[:],
            "last_placer": self.last,
            "board": self._board(seat),
            "placements": self._placements(seat),
            **audience,
            "spots": [list(_SPOT_NAMES[i]) for i in self.spots] if play else [],
        }

    def info_key(self, seat: int) -> str:
        """The view's facts without the parts derived from them: the board and the
        spots follow from the placements, and a search asks for keys often (the
        view's JSON cost three times a resample).  A hidden half the seat does not
        know shows as its colour, as in the view."""
        parts: list[Any] = [self.phase, self.first, self.turn if self.phase == PLAY else None, self.last,
                            self.points, self.used[seat], self.used[1 - seat].count(False)]
        for pl in self.placements:
            if self._knows(pl.seat, seat):
                parts.append((pl.seat, pl.cell_a, pl.cell_b, pl.hidden, pl.num_a, pl.num_b, pl.flags))
            else:
                shown, secret = (pl.num_b, pl.num_a) if pl.hidden == pl.cell_a else (pl.num_a, pl.num_b)
                parts.append((pl.seat, pl.cell_a, pl.cell_b, pl.hidden, shown, secret & 1, pl.flags))
        return repr(parts)

    def host_view(self) -> DominoBoard:
        """The board with every number shown, for the host and the referee to draw."""
        return {
            "phase": self.phase,
            "points": self.points[:],
            "board": self._board(None, host=True),
            "placements": self._placements(None, host=True),
        }

    # ------------------------------------------------------------------ sampling

    def resample(self, seat: int, rng: random.Random) -> State:
        """A world in which the opponent's hidden numbers are redrawn from what ``seat`` knows.

        Known: every number ``seat`` placed, the opponent's shown halves, the colour of
        each hidden half, that the opponent owns one of each domino (so its placements
        are distinct dominoes), and the H/V/D/B result of every placement.  The search
        (:mod:`.domino_sampler`) reads none of the true hidden numbers; the world's
        numbers, placements and the opponent's used dominoes are rewritten from its
        answer, and no cache of this state is carried along.
        """
        return sampler(self.game.id).resample(self, seat, rng)


# --------------------------------------------------------------------------- fast paths
#
# Search plays hundreds of thousands of placements a second: these tables and the
# bit-mask flood fill compute exactly what the rules above say (tests compare them
# with :func:`reachable` and :func:`rests` on random boards), only faster.


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
#: per domino, how many placement tuples it has on one spot: 4, or 2 for a double
#: (its halves do not swap)
_PLACEMENTS_PER_SPOT: tuple[int, ...] = tuple(len(acts) for acts in POS_ACTIONS[0])
_DOMINO_IDS = range(len(DOMINOES))
#: per position, the placement tuples of every domino in one tuple (legal_actions order)
_POS_OFFERS: tuple[tuple[Action, ...], ...] = tuple(sum(acts, ()) for acts in POS_ACTIONS)
#: an offer read from no list: :meth:`DominoState.random_action` reads the seat's own
_NO_OFFER: tuple[list[bool], bytes] = ([], b"")
#: per domino, the indices of its placements in a :data:`_POS_OFFERS` entry, as bytes
_DOMINO_OFFER: tuple[bytes, ...] = tuple(
    bytes(range(sum(_PLACEMENTS_PER_SPOT[:d]), sum(_PLACEMENTS_PER_SPOT[: d + 1]))) for d in _DOMINO_IDS
)


def _offer_of(used: Sequence[bool]) -> bytes:
    """The placements one spot offers a seat with ``used`` dominoes, as indices in a
    :data:`_POS_OFFERS` entry in legal order (bytes: a placement drops its domino's
    run, which occurs once, with one ``replace``)."""
    return b"".join(_DOMINO_OFFER[d] for d in _DOMINO_IDS if not used[d])


@lru_cache(maxsize=None)
def _first_offer(absent: tuple[bool, ...]) -> bytes:
    """:func:`_offer_of` at the start of a match (every match of a game starts alike)."""
    return _offer_of(absent)


def cell_mask(cells: Iterable[int]) -> int:
    """The bit mask of ``cells``."""
    mask = 0
    for g in cells:
        mask |= 1 << g
    return mask


#: bit g set when a horizontal / vertical position has its upper-left cell on g
_H_POS = cell_mask(p.a for p in POSITIONS if not p.vertical)
_V_POS = cell_mask(p.a for p in POSITIONS if p.vertical)
_ON_MASK = cell_mask(CELLS)
_GRID_MASK = (1 << GRID) - 1
#: where vertical positions sit in the one integer that slides both kinds: a whole
#: empty row above the grid, so no shift by a row or a cell reaches the other kind
_V_SHIFT = GRID + W
#: by row: the positions whose cells are all above it (as :func:`_slide` holds them)
_ABOVE: tuple[int, ...] = tuple(
    cell_mask(range(r * W)) & _H_POS
    | (cell_mask(g for g in range(max(r - 1, 0) * W)) & _V_POS) << _V_SHIFT
    for r in range(W + 1)
)
#: board cells with nothing under them (a half there always rests)
_FLOOR = cell_mask(g for g in CELLS if BELOW[g] < 0)
#: horizontal positions on AR:BR and HR:IR, which rule 3 governs instead of rule 1
_SPECIAL_H = cell_mask(p.a for i, p in enumerate(POSITIONS) if i in SPECIAL_POS)
_SPECIAL_NEED = tuple((POSITIONS[i].a, cell_mask(need)) for i, need in SPECIAL_POS.items())
#: cell -> index of the horizontal / vertical position whose upper-left cell it is
_H_INDEX = {p.a: i for i, p in enumerate(POSITIONS) if not p.vertical}
_V_INDEX = {p.a: i for i, p in enumerate(POSITIONS) if p.vertical}
#: position index by ``bit.bit_length()`` of its bit where :func:`_slide` holds it
#: (-1: no position there)
_POS_AT: tuple[int, ...] = (
    -1,
    *(_H_INDEX.get(g, -1) for g in range(GRID)),
    *(-1 for _ in range(GRID, _V_SHIFT)),
    *(_V_INDEX.get(g, -1) for g in range(GRID)),
)


def _slide_bit(p: _Pos) -> int:
    """Position ``p``'s bit where :func:`_slide` holds it."""
    return 1 << (p.a + _V_SHIFT if p.vertical else p.a)


def _covering() -> tuple[int, ...]:
    """Per cell, the positions (as :func:`_slide` holds them) that cover it."""
    out = [0] * GRID
    for p in POSITIONS:
        out[p.a] |= _slide_bit(p)
        out[p.b] |= _slide_bit(p)
    return tuple(out)


#: per cell, the positions a piece on it covers (a placement takes them out of reach)
_COVERING: tuple[int, ...] = _covering()


def _rest_tables() -> tuple[int, tuple[int, ...]]:
    """Rules 1 and 3 as bits (as :func:`_slide` holds positions): the positions that
    rest on the empty board, and per cell the positions that rest once it is filled.

    Why: a position, once resting, rests for good (cells only fill), so a state keeps
    the resting positions and adds a placement's two cells' share, where
    :func:`_resting` works them out from the whole board.
    """
    floor = 0
    gain = [0] * GRID
    for i, p in enumerate(POSITIONS):
        # the cells one of which must be filled: rule 3's for AR and IR, else those under the piece
        need = SPECIAL_POS.get(i) or ((BELOW[p.b],) if p.vertical else (BELOW[p.a], BELOW[p.b]))
        if -1 in need:  # a half lies on the lowest cell of its column
            floor |= _slide_bit(p)
            continue
        for g in need:
            gain[g] |= _slide_bit(p)
    return floor, tuple(gain)


_REST_FLOOR, _REST_GAIN = _rest_tables()

#: every line of three on the board once, as (direction bit, x, y, z)
_ALL_LINES: tuple[tuple[int, int, int, int], ...] = tuple(sorted({ln for lines in LINES for ln in lines}))


#: a line as :func:`completed_lines_flags` reads it: its cells, flags by sum, its low bit
_LineAt = tuple[int, int, int, tuple[int, ...], int]


def _line_tables() -> tuple[tuple[int, ...], tuple[int, ...], tuple[_LineAt, ...]]:
    """A state counts the filled cells of every line in one integer, two bits a line
    (line ``k`` at bits ``2k``, ``2k + 1``; a line has three cells, so the count never
    carries into the next): per cell, what filling it adds and the low bits of its
    lines; and by ``bit_length`` of a line's low bit, its cells, flags by sum and that bit.

    Why: a placement then finds the lines it completes with a few integer operations
    instead of testing each line through its cells (:func:`line_flags` does that).
    """
    add = [0] * GRID
    low = [0] * GRID
    at: list[_LineAt] = [(0, 0, 0, (), 0)] * (2 * len(_ALL_LINES))
    for k, (bit, x, y, z) in enumerate(_ALL_LINES):
        for g in (x, y, z):
            add[g] += 1 << 2 * k
            low[g] |= 1 << 2 * k
        at[2 * k + 1] = (x, y, z, _SUM_FLAGS[bit], 1 << 2 * k)
    return tuple(add), tuple(low), tuple(at)


_LINE_ADD, _LINE_LOW, _LINE_AT = _line_tables()


def completed_lines_flags(num: list[int], full: int) -> int:
    """:func:`line_flags` of the lines a placement completes, given as their low bits
    (:func:`_line_tables`; ``num`` with the placement's numbers)."""
    flags = 0
    while full:
        x, y, z, table, bit = _LINE_AT[full.bit_length()]  # the highest line left
        flags |= table[num[x] + num[y] + num[z]]
        full ^= bit
    return flags


class _Footprint(NamedTuple):
    """What a piece on two adjacent cells adds to the tables a state keeps."""

    cells: int  # to the occupancy
    line_add: int  # to the line counts (:func:`_line_tables`)
    line_low: int  # the low bits of the lines through either cell
    covering: int  # the positions it covers (:data:`_COVERING`)
    rest_gain: int  # the positions that rest once it is down (:func:`_rest_tables`)


#: ``a * GRID + b`` (the cells of a position, ``a < b``) -> its :class:`_Footprint`
_FOOTPRINTS: dict[int, _Footprint] = {
    p.a * GRID + p.b: _Footprint(
        p.mask,
        _LINE_ADD[p.a] + _LINE_ADD[p.b],
        _LINE_LOW[p.a] | _LINE_LOW[p.b],
        _COVERING[p.a] | _COVERING[p.b],
        _REST_GAIN[p.a] | _REST_GAIN[p.b],
    )
    for p in POSITIONS
}

#: occupancy -> legal_positions(occ); cleared when full (a pure function of ``occ``,
#: which is public, so sharing it between states tells no secret)
_SPOTS_CACHE: dict[int, tuple[int, ...]] = {}
_SPOTS_CACHE_SIZE = 1 << 14


class Shape:
    """A board to play on, as bit masks over the 9x9 grid for :func:`_legal_positions`.

    The standard board, or a W x H rectangle at the bottom of it, columns C.. and rows
    ..Z (inside the standard shape, so its floors, lines and positions are the
    standard ones); a piece enters a rectangle through its top row."""

    def __init__(self, cells: Iterable[int], special: bool) -> None:
        on_cells = sorted(cells)
        self.on: tuple[bool, ...] = tuple(g in on_cells for g in range(GRID))
        self.cells = tuple(on_cells)
        self.names: tuple[str, ...] = tuple(NAMES[g] for g in on_cells)
        inside = [i for i, p in enumerate(POSITIONS) if self.on[p.a] and self.on[p.b]]
        self.h_pos = cell_mask(POSITIONS[i].a for i in inside if not POSITIONS[i].vertical)
        self.v_pos = cell_mask(POSITIONS[i].a for i in inside if POSITIONS[i].vertical)
        self.on_mask = cell_mask(on_cells)
        self.floor = _FLOOR & self.on_mask
        top = min(g // W for g in on_cells)
        self.entry = cell_mask(g for g in on_cells if g // W == top)
        self.special_h = _SPECIAL_H if special else 0
        self.special_need = _SPECIAL_NEED if special else ()
        #: the entries of both kinds in one mask (vertical ones shifted by :data:`_V_SHIFT`)
        self.entries = (self.h_pos | self.v_pos << _V_SHIFT) & (self.entry | self.entry << _V_SHIFT)
        #: by row: where the slide after a placement whose upper cell is in it starts
        #: (the entries and every position above the row; see :meth:`DominoState._do`)
        self.starts: tuple[int, ...] = tuple(self.entries | above for above in _ABOVE)
        #: every position a piece can reach on the empty board (:func:`_slide`)
        self.empty_reach = _slide(0, self)
        #: occupancy -> legal spots, like :data:`_SPOTS_CACHE` (public facts only)
        self.cache: dict[int, tuple[int, ...]] = {}


def shape_positions(shape: Shape, occ: int) -> tuple[int, ...]:
    """:func:`legal_positions` on ``shape`` (memoised per shape)."""
    spots = shape.cache.get(occ)
    if spots is None:
        spots = _remember(shape, occ, _legal_positions(occ, shape))
    return spots


def _remember(shape: Shape, occ: int, spots: tuple[int, ...]) -> tuple[int, ...]:
    """Keep ``spots`` in the shape's cache (emptied when full); return them."""
    if len(shape.cache) >= _SPOTS_CACHE_SIZE:
        shape.cache.clear()
    shape.cache[occ] = spots
    return spots


@lru_cache(maxsize=None)
def rectangle(width: int, height: int) -> Shape:
    """The ``width`` x ``height`` board at the bottom of the standard one (C.., ..Z)."""
    return Shape((r * W + c for r in range(W - height, W) for c in range(2, 2 + width)), special=False)


@lru_cache(maxsize=None)
def _absent(numbers: int) -> tuple[bool, ...]:
    return tuple(b > numbers for _a, b in DOMINOES)


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


def _legal_positions(occ: int, shape: Shape | None = None) -> tuple[int, ...]:
    """Positions where a domino may be placed now (rules 1-3), sorted (uncached).

    The same set as filtering :func:`reachable` by :func:`rests`, computed on bit masks
    (a position is the bit of its upper-left cell): a flood fill by shifts is several
    times faster than the search.  Shifts cannot wrap a row: no position starts in a
    column from which a one-cell slide would leave the board's shape and land on
    another position.
    """
    sh = STANDARD if shape is None else shape
    return _spot_list(_resting(occ, sh, _slide(occ, sh)))


def _slide(occ: int, sh: Shape) -> int:
    """Rule 2: every position a piece can slide to, both kinds in one integer (the
    vertical ones :data:`_V_SHIFT` bits up: the empty row between them keeps a slide
    from crossing over, and one loop moves both)."""
    free = ~occ
    h_free = sh.h_pos & free & (free >> 1)
    v_free = sh.v_pos & free & (free >> W)
    both_free = h_free | v_free << _V_SHIFT
    return _spread(both_free & sh.entries, both_free)  # entries: upper-left cell in the top row


def _spread(reach: int, free: int) -> int:
    """The positions of ``free`` a piece slides to from ``reach`` (down, left, right)."""
    while True:  # slide down, left, right through free positions until nothing new
        grown = reach | (((reach << W) | (reach << 1) | (reach >> 1)) & free)
        if grown == reach:
            return reach
        reach = grown


def _resting(occ: int, sh: Shape, reach: int) -> int:
    """Rules 1 and 3 on the reachable positions from :func:`_slide`: the spots, as
    bits laid out as there (:func:`_spot_list` lists them)."""
    h = reach & _GRID_MASK
    v = reach >> _V_SHIFT
    support = sh.floor | ((occ >> W) & sh.on_mask)  # cells where a half rests
    h &= (support | (support >> 1)) & ~sh.special_h | sh.special_h
    for g, need in sh.special_need:
        if h >> g & 1 and not occ & need:
            h &= ~(1 << g)
    v &= support >> W  # a vertical piece rests through its lower half
    return h | v << _V_SHIFT


def _spot_list(bits: int) -> tuple[int, ...]:
    """The position indices of spot ``bits`` (see :func:`_resting`), sorted."""
    out = []
    while bits:
        low = bits & -bits
        out.append(_POS_AT[low.bit_length()])
        bits ^= low
    out.sort()  # position indices run in board order
    return tuple(out)


def _respot(spots: tuple[int, ...], before: int, bits: int) -> tuple[int, ...]:
    """:func:`_spot_list` of ``bits``, from ``spots`` listing ``before``: a placement
    changes only a few spots, so only those are looked up."""
    out = list(spots)
    gone = before & ~bits
    if gone:
        for i in _SPOTS_OF.get(gone) or _spots_of(gone):
            out.remove(i)
    came = bits & ~before
    if came:
        for i in _SPOTS_OF.get(came) or _spots_of(came):
            insort(out, i)
    return tuple(out)


#: spot bits -> :func:`_spot_list` for the few spots one placement takes or gives
#: (they lie around the piece, so the same sets come back); emptied when full
_SPOTS_OF: dict[int, tuple[int, ...]] = {}


def _spots_of(bits: int) -> tuple[int, ...]:
    """:func:`_spot_list` of ``bits``, kept in :data:`_SPOTS_OF`."""
    if len(_SPOTS_OF) >= _SPOTS_CACHE_SIZE:
        _SPOTS_OF.clear()
    spots = _SPOTS_OF[bits] = _spot_list(bits)
    return spots


#: the board cells' names in board order, and each position's two cell names
_CELL_NAMES: tuple[str, ...] = tuple(NAMES[g] for g in CELLS)
#: the standard board (its spots share the cache of :func:`legal_positions`)
STANDARD = Shape(CELLS, special=True)
STANDARD.cache = _SPOTS_CACHE
_SPOT_NAMES: tuple[tuple[str, str], ...] = tuple((NAMES[p.a], NAMES[p.b]) for p in POSITIONS)


# --------------------------------------------------------------------------- registration
# Named by the entry point in blackwhite's pyproject.toml (group ``blackwhite.games``);
# ``tuning`` is the ``ismcts`` bot's, ``analysis`` the analysis's settings for this game
# (docs/bots.md, docs/analysis.md give the figures they were chosen by).

#: points are scored as pieces land: four placements ahead, then the point lead.
#: The champion weighs the heuristic's values over 32 sampled worlds (the numbers the
#: opponent hid, drawn to fit what its placements announced): 86.5% of 200 against the
#: heuristic, where the plain champion won 55-59% (docs/bots.md).  Analysis: a
#: placement hides one number, so the others' play is weighed in worlds drawn from
#: what the seat knew when it saw it (``adapt``)
ENTRY = GameEntry(
    id="domino",
    rules="blackwhite.games.domino:Domino",
    rules_page="blackwhite:_rules/domino.md",
    sampler="blackwhite.games.domino_sampler",
    encoding="blackwhite.games.domino_encoding:DominoEncoding",
    heuristic="blackwhite.bots.heuristic.domino",
    tuning=dict(horizon=4, scale=3.0, champion_worlds=32),
    analysis=dict(horizon=16, scale=6.0, adapt=True),
    drawer="blackwhite.terminal.draw:draw_domino",
    board="blackwhite.drawing.text:domino_board",
    twins="tests.twins.domino",
    page_template="blackwhite.web:templates/games/domino.html",
    page_script="blackwhite.web:static/games/domino.js",
    page_style="blackwhite.web:static/games/domino.css",
    text_drawer="blackwhite.discord_bridge.draw:draw_domino",
)
