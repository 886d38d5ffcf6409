"""The view of yellow (``YellowState._view``): the same for every seat and for
spectators, since all that is owned is public and the one secret (a submission not
yet resolved) is never in it."""

from typing import Literal, TypedDict

from . import CoreView, Seated

StepWord = Literal["boost", "exchange"]


class Submission(TypedDict):
    """One seat's resolved submission: its steps in order, then the black tile played."""

    steps: list[StepWord]
    play: int


class YellowPart(TypedDict):
    round: int
    max_rounds: int
    #: points that win at once
    target: int
    #: each seat's black tiles, sorted
    inventories: list[list[int]]
    yellow: list[int]
    points: list[int]
    garnets: list[int]
    garnet_priority: list[int]
    last_plays: list[int] | None
    #: per resolved round, per seat
    submissions: list[list[Submission]]


class YellowView(CoreView, YellowPart):
    """``YellowState.view(seat)``."""


class YellowPolicyView(Seated, YellowPart):
    """What a policy reads: the game's part with ``game`` and ``seat``; a seat's
    full view holds it all, but is a different type (its ``seat`` may be ``None``)."""
