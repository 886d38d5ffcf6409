"""Secrecy twins of ``grouping`` (the Death Match), written by hand.

Each pair replays to states that differ in one hidden fact and must look the same
to ``seat``.  The deals are chosen so that every tile dealt so far has the same
colour in both records, and no tile that differs is ever shown to that seat: the
other seat folds (the folder sees the seat's tile, the seat never sees the
folder's), and a seat's own tile is dealt face down.
"""

from __future__ import annotations

from typing import Any

from . import Twin, record
from . import act as _act
from . import deal as _deal

GA = "group A=0,1 B=2,3,4 C=5,6,7,8"
#: the same colours as GA's ascending deal for its first five tiles: B W B W B
GX = "group A=2,3 B=0,1,4 C=5,6,7,8"


def _record(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    return record("grouping", options, events, ["P1", "P2"])


def _p2_folds(rounds: int) -> list[dict[str, Any]]:
    """P1 (who starts) raises 1 and P2 folds, ``rounds`` times: P1 keeps starting.
    (tests/twins/grouping_final.py plays the same rounds.)"""
    out: list[dict[str, Any]] = []
    for _ in range(rounds):
        out += [_act(0, "raise 1"), _act(1, "fold")]
    return out


def _p2_deal_twin(name: str, seat: int | None, d1a: list[int], d1b: list[int], rounds: int,
                  g1a: str = GA, g1b: str = GA) -> Twin:
    """P1 groups GA and is dealt 0..8 in order; P2's grouping or deal differs; P2 folds
    ``rounds`` rounds, then P1 is to act."""
    head = [_act(0, "go first"), _act(0, GA)]
    up = [0, 1, 2, 3, 4, 5, 6, 7, 8]
    a = head + [_act(1, g1a), _deal(0, up), _deal(1, d1a)] + _p2_folds(rounds)
    b = head + [_act(1, g1b), _deal(0, up), _deal(1, d1b)] + _p2_folds(rounds)
    return Twin(name, seat, _record(a), _record(b))


TWINS: list[Twin] = [
    # P2's folded tiles (2 then 3, or 4 then 3) and the third tile, still face down
    _p2_deal_twin("P2's folded tile in round 1", 0,
                  [2, 3, 4, 0, 1, 5, 6, 7, 8], [4, 3, 2, 0, 1, 5, 6, 7, 8], 2),
    # group B first or group A first: B W B either way for three rounds
    _p2_deal_twin("the order of P2's groups in its deal", 0,
                  [0, 1, 2, 3, 4, 5, 6, 7, 8], [2, 3, 4, 0, 1, 5, 6, 7, 8], 2),
    _p2_deal_twin("P2's grouping", 0,
                  [0, 1, 2, 3, 4, 5, 6, 7, 8], [2, 3, 0, 1, 4, 5, 6, 7, 8], 4, GA, GX),
    # P1's own tiles are face down: P2 folded and saw 0 or 2, P1 was told only "black"
    Twin(
        "P1's own face-down tile, seen by P2 when it folded",
        0,
        _record([_act(0, "go first"), _act(0, GA), _act(1, GA),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [8, 7, 6, 5, 4, 3, 2, 1, 0]),
                 _act(0, "raise 1"), _act(1, "fold")]),
        _record([_act(0, "go first"), _act(0, GA), _act(1, GA),
                 _deal(0, [2, 3, 4, 0, 1, 5, 6, 7, 8]), _deal(1, [8, 7, 6, 5, 4, 3, 2, 1, 0]),
                 _act(0, "raise 1"), _act(1, "fold")]),
    ),
    # the second deal of the set: what was folded in the first deal stays hidden
    Twin(
        "P2's folded tiles in the first deal, seen from the second",
        0,
        _record([_act(0, "go first"), _act(0, GA), _act(1, GA),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [0, 1, 2, 3, 4, 5, 6, 7, 8]),
                 *_p2_folds(9),
                 _deal(0, [5, 6, 7, 8, 2, 3, 4, 0, 1]), _deal(1, [5, 6, 7, 8, 0, 1, 2, 3, 4])]),
        _record([_act(0, "go first"), _act(0, GA), _act(1, GX),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [2, 3, 0, 1, 4, 5, 6, 7, 8]),
                 *_p2_folds(9),
                 _deal(0, [5, 6, 7, 8, 2, 3, 4, 0, 1]), _deal(1, [5, 6, 7, 8, 0, 1, 4, 2, 3])]),
    ),
    # the next set: the rounds of set 1 are history, their folded tiles still secret
    Twin(
        "P2's grouping and folded tiles of the whole of set 1, at set 2's grouping",
        0,
        _record([_act(0, "go first"), _act(0, GA), _act(1, GA),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [0, 1, 2, 3, 4, 5, 6, 7, 8]),
                 *_p2_folds(9),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [2, 3, 4, 0, 1, 5, 6, 7, 8]),
                 *_p2_folds(9)]),
        _record([_act(0, "go first"), _act(0, GA), _act(1, GX),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [2, 3, 0, 1, 4, 5, 6, 7, 8]),
                 *_p2_folds(9),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [0, 1, 4, 2, 3, 5, 6, 7, 8]),
                 *_p2_folds(9)]),
    ),
    # P1 folds at once: P1 sees P2's tile, P2 is never told P1's (0 or 2)
    Twin(
        "P1's folded tile, from P2's side",
        1,
        _record([_act(0, "go first"), _act(0, GA), _act(1, GA),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [8, 7, 6, 5, 4, 3, 2, 1, 0]),
                 _act(0, "fold")]),
        _record([_act(0, "go first"), _act(0, GA), _act(1, GA),
                 _deal(0, [2, 3, 4, 0, 1, 5, 6, 7, 8]), _deal(1, [8, 7, 6, 5, 4, 3, 2, 1, 0]),
                 _act(0, "fold")]),
    ),
    # the public: both seats' groupings and every folded tile differ
    Twin(
        "both groupings and the folded tiles, for a spectator",
        None,
        _record([_act(0, "go first"), _act(0, GA), _act(1, GA),
                 _deal(0, [0, 1, 2, 3, 4, 5, 6, 7, 8]), _deal(1, [2, 3, 4, 0, 1, 5, 6, 7, 8]),
                 *_p2_folds(2)]),
        _record([_act(0, "go first"), _act(0, GX), _act(1, GA),
                 _deal(0, [2, 3, 0, 1, 4, 5, 6, 7, 8]), _deal(1, [4, 3, 2, 0, 1, 5, 6, 7, 8]),
                 *_p2_folds(2)]),
    ),
    # the public: a grouping step half done (P1 has grouped, differently)
    Twin(
        "P1's grouping submitted while P2's is awaited, for a spectator",
        None,
        _record([_act(0, GA)]),
        _record([_act(0, GX)]),
    ),
]
