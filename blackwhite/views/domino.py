"""The views of domino (``DominoState._view``) and the host's board
(``DominoState.host_view``).  Cells are named by column and row (``"A" .. "I"`` then
``"R" .. "Z"``: ``"AR"``)."""

from typing import Literal, NotRequired, TypedDict

from . import Colour, CoreView, Seated

DominoPhase = Literal["choose", "play", "over"]


class Cell(TypedDict):
    """A covered cell: one half of a placed domino."""

    seat: int
    #: ``None``: the hidden half of another seat's domino, before the end
    number: int | None
    colour: Colour
    hidden: bool
    #: the index of the placement in ``placements``
    placement: int
    #: the cell the domino's other half covers
    mate: str


class PlacedDomino(TypedDict):
    """One placement, its cells in board order."""

    seat: int
    cells: list[str]
    numbers: list[int | None]
    colours: list[Colour]
    #: the cell whose number is hidden
    hidden: str
    #: the letters of the lines it met (H, V, D, B) and the points they gave
    met: str
    points: int


class DominoBoard(TypedDict):
    """What the drawing of the board reads: in every view and in ``host_view``."""

    phase: DominoPhase
    points: list[int]
    #: every cell name, in board order; ``None``: empty
    board: dict[str, Cell | None]
    placements: list[PlacedDomino]


class DominoPart(DominoBoard):
    dmo: int
    first: int | None
    #: the seat to place, in the play phase
    turn: int | None
    last_placer: int | None
    #: the pairs of cells a domino may cover now (play phase; else empty)
    spots: list[list[str]]
    # the public view only: how many dominoes each seat has left
    unused_counts: NotRequired[list[int]]
    # a seat's view only
    my_unused: NotRequired[list[list[int]]]
    their_unused_count: NotRequired[int]


class DominoPublicPart(TypedDict):
    unused_counts: list[int]


class DominoSeatPart(TypedDict):
    my_unused: list[list[int]]
    their_unused_count: int


class DominoView(CoreView, DominoPart):
    """``DominoState.view(seat)``."""


class DominoPolicyView(Seated, DominoPart):
    """What a policy reads: the game's part with ``game`` and ``seat``."""
