"""The views of swapping (``SwappingState._view``).  Positions in ``*reveals`` and
``*swaps`` are 1-based, as announced; rows are lists indexed from 0."""

from typing import Literal, NotRequired, TypedDict

from . import Colour, CoreView, Seated

SwappingPhase = Literal["play", "swap", "reveal", "over"]


class ShownCell(TypedDict):
    """A tile of a row that the other seat (and a spectator) sees: it was revealed, or
    the game is over."""

    tile: int
    colour: Colour
    revealed: Literal[True]


class HiddenCell(TypedDict):
    """A placed tile not shown: its colour when ``show_colours``, else nothing."""

    tile: None
    colour: Colour | None
    revealed: Literal[False]


PublicCell = ShownCell | HiddenCell
"""A placed tile as the other seat (or a spectator) knows it."""


class OwnCell(TypedDict):
    """A placed tile of the seat's own row."""

    tile: int
    revealed: bool


class Reveal(TypedDict):
    tile: int
    position: int


class SwappingPart(TypedDict):
    phase: SwappingPhase
    game_no: int
    ties: int
    #: the scores (P1, P2) of the tied games replayed so far
    past_games: list[list[int]]
    play_round: int
    swap_step: int
    #: the running totals announced in the play phase, (P1, P2) per round
    totals: list[list[int]]
    show_colours: bool
    swappers: list[int]
    # the public view only: both rows as the seats see each other's
    rows: NotRequired[list[list[PublicCell | None]]]
    revealed: NotRequired[list[list[int]]]
    reveals: NotRequired[list[list[Reveal]]]
    #: both seats' swaps (position pairs), when ``show_colours``
    swaps: NotRequired[list[list[list[int]]] | None]
    # a seat's view only
    my_row: NotRequired[list[OwnCell | None]]
    their_row: NotRequired[list[PublicCell | None]]
    my_unplaced: NotRequired[list[int]]
    their_revealed: NotRequired[list[int]]
    my_reveals: NotRequired[list[Reveal]]
    their_reveals: NotRequired[list[Reveal]]
    my_swaps: NotRequired[list[list[int]]]
    #: the other seat's swaps, when ``show_colours``
    their_swaps: NotRequired[list[list[int]] | None]


class SwappingView(CoreView, SwappingPart):
    """``SwappingState.view(seat)``."""


class SwappingPolicyView(Seated, SwappingPart):
    """What a policy reads: the game's part with ``game`` and ``seat``; a seat's
    full view holds it all, but is a different type (its ``seat`` may be ``None``)."""
