"""The views of grouping and grouping-final (``GroupingState._view``).

A seat's view and the public view differ in the shape of ``deals`` and ``items``, so
they are two types: ``GroupingSeatView`` and ``GroupingPublicView``; ``view(seat)``
gives the first for a seat and the second for ``None``.  Deals, rounds and positions
in them are 1-based, as announced.
"""

from typing import Literal, TypedDict

from . import Colour, CoreView, Seated

GroupingPhase = Literal["group", "choose", "bet", "deal", "over"]
#: how a round was settled
RoundHow = Literal["showdown", "fold", "sudden"]
#: how a seat saw a tile of the other's: the other folded it, or the seat used ``peek``
SeenHow = Literal["fold", "peek"]


class Entry(TypedDict):
    """What the viewer knows of one dealt tile."""

    colour: Colour
    #: ``None``: not shown to the viewer
    tile: int | None
    #: whether the tile is the 8 (told by the Final's fold-the-8 rule); ``None``: not told
    eight: bool | None
    revealed: bool


class Proposal(TypedDict):
    by: int
    ante: int


class RoundInfo(TypedDict):
    """The public record of one settled round."""

    set: int
    deal: int
    round: int
    colours: list[Colour]
    ante: int
    bets: list[int]
    how: RoundHow
    folder: int | None
    #: as shown to everyone (showdowns and sudden death)
    tiles: list[int] | None
    winner: int | None
    #: the Final's fold-the-8 penalty
    penalty: int
    #: after settling
    chips: list[int]
    #: who bet first (``None`` in sudden death: no betting)
    starter: int | None


class Seen(TypedDict):
    """A tile of the other seat that this seat saw."""

    set: int
    deal: int
    round: int
    tile: int
    how: SeenHow


class PublicDeal(TypedDict):
    #: per seat, its dealt tiles as everyone knows them
    seats: list[list[Entry]]


class SeatDeal(TypedDict):
    mine: list[Entry]
    theirs: list[Entry]


class PublicItems(TypedDict):
    #: per seat, the items everyone knows it still holds
    held: list[list[str]]
    used: list[list[str]]


class SeatItems(TypedDict):
    mine: list[str]
    theirs: list[str]
    used: list[list[str]]


class GroupingCommon(TypedDict):
    """The keys every audience gets."""

    variant: Literal["death", "final"]
    phase: GroupingPhase
    set: int
    groups_set: int
    deal: int
    #: the round of the deal being bet (``None`` outside a betting round)
    round: int | None
    rounds_played: int
    ante: int
    sudden_death: bool
    chips: list[int]
    bets: list[int]
    chooser: int
    first_choice: Literal["first", "second"] | None
    starter: int | None
    to_act: int | None
    acted: list[bool]
    see_own_tile: bool
    proposal: Proposal | None
    rounds: list[RoundInfo]
    end_reason: str | None


class GroupingPublicPart(GroupingCommon):
    deals: list[PublicDeal]
    #: both seats' tiles of the round being bet
    tiles: list[Entry] | None
    items: PublicItems


class GroupingSeatPart(GroupingCommon):
    #: group name ("A", "B", "C") -> its tiles, once the seat has grouped this set
    my_groups: dict[str, list[int]] | None
    deals: list[SeatDeal]
    my_tile: Entry | None
    their_tile: Entry | None
    #: the order of the seat's groups, when an ``order`` told it this set
    my_order: list[str] | None
    items: SeatItems
    proposals_left: int
    seen: list[Seen]


class GroupingSeatView(CoreView, GroupingSeatPart):
    """``GroupingState.view(seat)`` for a seat."""


class GroupingPublicView(CoreView, GroupingPublicPart):
    """``GroupingState.view(None)``: what everyone knows."""


GroupingView = GroupingSeatView | GroupingPublicView
"""``GroupingState.view(seat)``: a seat's view or the public one."""


class GroupingPolicyView(Seated, GroupingSeatPart):
    """What a policy reads: a seat's part with ``game`` and ``seat``."""
