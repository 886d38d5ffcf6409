"""Secrecy twins of ``joust-final``: pairs of hand-written records that differ in a
hidden fact (a kept or given leftover, an inverted tile, another deal) but must look
the same to ``seat`` (``None``: to everyone).

Written from the rules alone (docs/rules/joust-final.md), not with the engine.  Tiles
0..13, black when even; lots are four groups of three and two leftovers.
"""

from __future__ import annotations

from typing import Any

from . import Twin

Event = dict[str, Any]

#: P2 holds inversion
OPTIONS = {"items": {"1": ["inversion"]}}


def _rec(lots: Event, *events: Event) -> dict[str, Any]:
    return {
        "format": "blackwhite-record/1", "game": "joust-final", "options": OPTIONS, "events": [lots, *events]
    }


def _lots(groups: list[list[int]], leftovers: list[int]) -> Event:
    return {"chance": "lots", "groups": groups, "leftover": leftovers}


def _a(seat: int, action: str) -> Event:
    return {"seat": seat, "action": action}


#: P1 opens an auction with 0 and P2 folds: P1 wins the tile free and opens the next
P1_BUYS = [_a(0, "bid 0"), _a(1, "fold")]

# ----------------------------------------------------------------------------- set 1, two sales
# P1 buys group 1's Balance for 3, picks the Giant next and folds it to P2.

SHORT = [_a(0, "bid 3"), _a(1, "fold"), _a(0, "next giant"), _a(0, "fold")]
LOTS_A = _lots([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], [0, 13])
#: groups 2 and 3 dealt otherwise, same colours
LOTS_E = _lots([[1, 2, 3], [4, 7, 8], [5, 6, 9], [10, 11, 12]], [0, 13])

# ----------------------------------------------------------------------------- a whole set
#
# Groups open with Balance, Minute, Minute, Giant (each the tile closest to the last
# one sold before it: 3, then 6, then 13).  P1 buys groups 1-3 and group 4's Giant;
# it folds group 4's Balance (11) to P2, who then opens the Minute with 0 and P1 folds.
# P1 has 10 tiles, P2 two: P2 sees both leftovers and keeps one; P1 is given the other.

WHOLE_SET = [
    *P1_BUYS,  # group 1 Balance
    _a(0, "next minute"),
    *P1_BUYS,
    *P1_BUYS,  # group 1 Giant (3)
    *P1_BUYS,  # group 2 Minute
    _a(0, "next balance"),
    *P1_BUYS,
    *P1_BUYS,  # group 2 Giant (6)
    *P1_BUYS,  # group 3 Minute
    _a(0, "next balance"),
    *P1_BUYS,
    *P1_BUYS,  # group 3 Giant (13)
    *P1_BUYS,  # group 4 Giant (12)
    _a(0, "next balance"),
    _a(0, "fold"),  # group 4 Balance (11) to P2, free
    _a(1, "bid 0"),
    _a(0, "fold"),  # group 4 Minute to P2
]
#: P2's Minute 10, leftovers 0 and 8
MIN_10 = _lots([[1, 2, 3], [4, 5, 6], [7, 9, 13], [10, 11, 12]], [0, 8])
#: P2's Minute 8, leftovers 0 and 10
MIN_8 = _lots([[1, 2, 3], [4, 5, 6], [7, 9, 13], [8, 11, 12]], [10, 0])

TWINS: list[Twin] = [
    Twin("the values of the tiles not sold yet", 1, _rec(LOTS_A, *SHORT), _rec(LOTS_E, *SHORT)),
    Twin(
        "the order the shuffle listed the two leftovers in",
        0,
        _rec(LOTS_A, *SHORT, _a(1, "bid 1")),
        _rec(_lots(LOTS_A["groups"], [13, 0]), *SHORT, _a(1, "bid 1")),
    ),
    Twin(
        "the order the shuffle listed the two leftovers in, for the seat that keeps one",
        1,
        _rec(MIN_10, *WHOLE_SET),
        _rec(_lots([[1, 2, 3], [4, 5, 6], [7, 9, 13], [10, 11, 12]], [8, 0]), *WHOLE_SET),
    ),
    Twin(
        "the leftover P2 kept (8 or 10) and its Minute, P1 given the 0 in both",
        0,
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8")),
        _rec(MIN_8, *WHOLE_SET, _a(1, "keep 10")),
    ),
    Twin(
        "which leftover P2 kept and which it gave",
        None,
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8")),
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 0")),
    ),
    Twin(
        "which tile P2 inverted (its Minute 10 or its Balance 11), announced as used",
        0,
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8"), _a(1, "invert 10"), _a(1, "play 8"), _a(0, "play 1")),
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8"), _a(1, "invert 11"), _a(1, "play 8"), _a(0, "play 1")),
    ),
    Twin(
        "which tile P2 inverted, for a spectator",
        None,
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8"), _a(1, "invert 10"), _a(1, "play 8"), _a(0, "play 1")),
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8"), _a(1, "invert 11"), _a(1, "play 8"), _a(0, "play 1")),
    ),
    Twin(
        "whether P2 used its inversion in the open step (not announced yet)",
        0,
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8"), _a(1, "invert 10"), _a(1, "play 8")),
        _rec(MIN_10, *WHOLE_SET, _a(1, "keep 8"), _a(1, "play 8")),
    ),
]
