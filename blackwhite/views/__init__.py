"""What a seat is shown, as types: one ``TypedDict`` per game view.

``State.view(seat)`` builds a plain dict (the server sends it as JSON unchanged); the
types here only tell mypy which keys it has and what they hold, so a misspelt key in
a reader (a heuristic, the terminal, the pages' Python, the Discord bridge) fails the
type check.  One module per game; this package imports nothing of blackwhite, so the
engine that writes views and the readers that may import nothing of the engine (the
Discord bridge, the text drawings) share one statement of every key.

A key present for one audience only (a seat's ``my_row``, the public ``rows``) is
``NotRequired``: the type is the union of what a seat and a spectator see, and the
key's docstring says who gets it.

These modules do without ``from __future__ import annotations``: evaluated at import,
the declarations give the right ``__required_keys__`` and ``__optional_keys__`` at
run time too (Python 3.11 counts a ``NotRequired`` written as a string as required).
"""

from typing import Any, Literal, NotRequired, TypedDict

Colour = Literal["black", "white"]
"""A tile's colour, as every view writes it (even tiles black, odd white)."""


class Seated(TypedDict):
    """The two core fields a policy reads beside a game's own part (``SwappingPart``):
    together they make ``<Game>PolicyView``, what a bot's policy is given (a search
    builds it without the rest of the core's bookkeeping).  A policy plays for a seat,
    so ``seat`` is never ``None`` here."""

    game: str
    seat: int
    #: in the full view a bot is given (the heuristic bot); a search's policies go without
    options: NotRequired[dict[str, Any]]


#: the keys whose values are seats (0 for P1...), as the core's and the games' views name
#: them: the generic drawings write them as seats ("P1 Sally").  A game's own field is
#: read as a seat, or a list of seats, when its key is one of these or ends in ``_seat``
#: or ``_seats`` (e.g. ``leader``, ``first_seat``, ``out_seats``).
SEAT_KEYS = frozenset({"seat", "to_move", "submitted", "winner", "ranking", "leader", "loser", "dealer"})


def is_seat_key(key: str) -> bool:
    """Whether a view's field ``key`` holds a seat or seats (see :data:`SEAT_KEYS`)."""
    return key in SEAT_KEYS or key.endswith("_seat") or key.endswith("_seats")


class TileView(TypedDict):
    """A tile as a view shows it: face up (``tile`` a number) or face down (``tile``
    ``None``, with its ``colour`` when that was shown).  Any object of a view with
    exactly these two keys is a tile: the generic boards draw it as one."""

    tile: int | None
    colour: Colour | None


class CoreView(TypedDict):
    """The part of every view that the core adds (``State.view``), for every game."""

    game: str
    #: the seat the view is for; ``None``: the public view (a spectator)
    seat: int | None
    options: dict[str, Any]
    to_move: list[int]
    submitted: list[int]
    #: the seat's own submission of the open simultaneous step, in notation
    my_pending: str | None
    finished: bool
    winner: int | None
    #: ``None`` while a game's scores are hidden (swapping, mid-game)
    scores: list[int] | None
    log: list[str]
    #: seats best first, in games whose result is a ranking (yellow)
    ranking: NotRequired[list[int]]
