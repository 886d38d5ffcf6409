"""Secrecy twins of ``grouping-final``, written by hand.

As for the Death Match (tests/twins/grouping.py), plus the Final's own secrets: a
tile seen with ``peek``, the group order ``order`` told its holder, whether an
unannounced ``order`` was used at all, and tiles folded in a set long over.
"""

from __future__ import annotations

from typing import Any

from . import Twin, record
from . import act as _act
from . import deal as _deal
from .grouping import GA, GX, _p2_folds

UP = [0, 1, 2, 3, 4, 5, 6, 7, 8]
DOWN = [8, 7, 6, 5, 4, 3, 2, 1, 0]


def _record(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    return record("grouping-final", options, events, ["P1", "P2"])


def _opening(d0: list[int], d1: list[int], g1: str = GA) -> list[dict[str, Any]]:
    return [_act(0, "go first"), _act(0, GA), _act(1, g1), _deal(0, d0), _deal(1, d1)]


PEEK = {"items": {"1": ["peek"]}}
ORDER = {"items": {"1": ["order"]}}
ANNOUNCED = {"items": {"1": ["order"]}, "announce_order": True}

TWINS: list[Twin] = [
    Twin(
        "P2's folded tile (not the 8, said publicly)",
        0,
        _record(_opening(UP, [2, 3, 4, 0, 1, 5, 6, 7, 8]) + _p2_folds(2)),
        _record(_opening(UP, [4, 3, 2, 0, 1, 5, 6, 7, 8]) + _p2_folds(2)),
    ),
    Twin(
        "P1's own tile, peeked at by P2",
        0,
        _record(_opening(UP, DOWN) + [_act(1, "peek")], **PEEK),
        _record(_opening([2, 3, 4, 0, 1, 5, 6, 7, 8], DOWN) + [_act(1, "peek")], **PEEK),
    ),
    Twin(
        "the group order P2's order item told it (A,B,C or B,A,C)",
        0,
        _record(_opening(UP, UP) + [_act(1, "order")], **ORDER),
        _record(_opening(UP, [2, 3, 4, 0, 1, 5, 6, 7, 8]) + [_act(1, "order")], **ORDER),
    ),
    Twin(
        "whether P2 used its unannounced order item",
        0,
        _record(_opening(UP, UP) + [_act(1, "order")], **ORDER),
        _record(_opening(UP, UP), **ORDER),
    ),
    Twin(
        "the group order an announced order told P2",
        0,
        _record(_opening(UP, UP) + [_act(1, "order")], **ANNOUNCED),
        _record(_opening(UP, [2, 3, 4, 0, 1, 5, 6, 7, 8]) + [_act(1, "order")], **ANNOUNCED),
    ),
    # a whole set of folds (the 8 folded last in both: its penalty is public), then
    # set 2's grouping under the regrouping limits of P2's secret set-1 groups
    Twin(
        "P2's set-1 grouping and folded tiles, at set 2's grouping",
        0,
        _record(_opening(UP, UP) + _p2_folds(9)),
        _record(_opening(UP, [2, 3, 0, 1, 4, 5, 6, 7, 8], GX) + _p2_folds(9)),
    ),
    Twin(
        "P1's peeked tile, for a spectator",
        None,
        _record(_opening(UP, DOWN) + [_act(1, "peek")], **PEEK),
        _record(_opening([2, 3, 4, 0, 1, 5, 6, 7, 8], DOWN) + [_act(1, "peek")], **PEEK),
    ),
    Twin(
        "whether P2 used its unannounced order item, for a spectator",
        None,
        _record(_opening(UP, UP) + [_act(1, "order")], **ORDER),
        _record(_opening(UP, UP), **ORDER),
    ),
    Twin(
        "P1's tile, folded at once: P1 saw P2's, P2 never sees P1's",
        1,
        _record(_opening(UP, DOWN) + [_act(0, "fold")]),
        _record(_opening([2, 3, 4, 0, 1, 5, 6, 7, 8], DOWN) + [_act(0, "fold")]),
    ),
]
