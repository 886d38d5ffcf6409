"""Secrecy twins, one module per game (``tests/twins/<game id with _>.py``).

Each module defines ``TWINS``: a list of :class:`Twin`.  A twin is two match records
written by hand, independently of the code under test, that differ in a hidden fact
(a folded tile, another grouping, another hidden domino number, another lot...) but
must look identical to ``seat`` (``None``: to everyone, the public view).  The
generic test (tests/test_secrecy_twins.py) replays both and demands the same view,
the same resampled worlds and the same bot decisions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Twin:
    name: str  # what differs, e.g. "the folded tile in round 3"
    seat: int | None  # who must not tell them apart (None: the public view)
    a: dict[str, Any]  # a match record (the public record format)
    b: dict[str, Any]
