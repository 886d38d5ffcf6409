"""The views of joust and joust-final (``JoustState._view``).  Sets, groups and
jousts are 1-based, as announced; a tile's ``group`` is 1..4 or ``"leftover"``."""

from typing import Literal, NotRequired, TypedDict

from . import Colour, CoreView, Seated

JoustPhase = Literal["lots", "auction", "next", "keep", "joust-required", "joust-optional", "over"]
#: where a tile is: not dealt to anyone yet, in a hand, submitted to the joust, used
TileStatus = Literal["none", "hand", "submitted", "used"]
#: a set 1..3, or the final joust
SetName = int | Literal["final"]


class TileRange(TypedDict):
    lowest: int
    highest: int


class LotTile(TypedDict):
    """A tile of a group on sale (always a group 1..4 and a label; the tile-name table
    it comes from also names leftovers, hence the wider types)."""

    set: int
    group: int | str
    label: str | None
    colour: Colour
    #: the seat that bought it (``None``: not sold yet)
    owner: int | None
    #: ``None``: not told to the viewer
    value: int | None


class LotGroup(TypedDict):
    group: int
    #: the label sold first (``None``: not opened yet)
    first: str | None
    #: the labels in the order they were sold
    order: list[str]
    tiles: list[LotTile]


class Leftover(TypedDict):
    set: int
    owner: int | None
    value: int | None


class Lot(TypedDict):
    set: int
    groups: list[LotGroup]
    #: in an order that hides the shuffle's
    leftovers: list[Leftover]


class Sold(TypedDict):
    """A tile sold at auction."""

    set: int
    group: int
    label: str
    winner: int
    price: int


#: a tile the seat holds or held (``from`` is a keyword, so the functional form)
MyTile = TypedDict(
    "MyTile",
    {
        "set": int,
        "group": int | str,
        "label": str | None,
        "value": int,
        "original": int,
        "colour": Colour,
        "status": TileStatus,
        "from": str,
    },
)

#: a play as announced; the playing seat also sees its tile's ``value`` and ``from``
PlayView = TypedDict(
    "PlayView",
    {
        "joust": int,
        "phase": SetName,
        "seat": int,
        "set": int,
        #: ``None``: played under conceal
        "group": int | str | None,
        "colour": Colour,
        "value": int | None,
        "from": NotRequired[str],
    },
)


class JoustOutcome(TypedDict):
    joust: int
    phase: SetName
    totals: list[int]
    gains: list[int]


class JoustItems(TypedDict, total=False):
    """Items held are public (options); a seat knows its own uses at once, the others'
    when they are announced.  The public view has ``held`` and ``used`` (per seat), a
    seat's view the four others."""

    held: list[list[str]]
    used: list[list[str]]
    mine: list[str]
    my_used: list[str]
    theirs: list[str]
    their_used: list[str]


class Auction(TypedDict):
    """The auction, or the ``next`` choice, under way."""

    set: int
    group: int
    #: the label on sale (``None``: the ``next`` choice)
    label: str | None
    bid: int | None
    high_bidder: int | None
    turn: int
    remaining: list[str]


class JoustStep(TypedDict):
    """The joust under way: counts of submitted tiles, who is asked."""

    number: int
    step: int
    required: bool
    first_of_phase: bool
    submitted: list[int]
    asked: list[int]


class Keep(TypedDict):
    """joust-final's choice of leftover to keep (the keeper's view only)."""

    leftovers: list[int]


class JoustPart(TypedDict):
    phase: JoustPhase
    set: SetName
    tile_range: TileRange
    chips: list[int]
    points: list[int]
    favoured: int
    lots: list[Lot]
    auctions: list[Sold]
    #: empty in the public view
    my_tiles: list[MyTile]
    #: the values the seat may submit now (empty outside its joust step)
    playable: list[int]
    #: per seat, how many tiles it has in hand
    tiles_in_hand: list[int]
    plays: list[PlayView]
    jousts: list[JoustOutcome]
    concealed: bool
    items: JoustItems
    auction: Auction | None
    joust: JoustStep | None
    keep: Keep | None


class JoustView(CoreView, JoustPart):
    """``JoustState.view(seat)``."""


class JoustPolicyView(Seated, JoustPart):
    """What a policy reads: the game's part with ``game`` and ``seat``."""
