"""Secrecy twins of ``joust``: pairs of hand-written records that differ in a hidden
fact but must look the same to ``seat`` (``None``: to everyone).

Written from the rules alone (docs/rules/joust.md), not with the engine.  Tiles are
black when even, white when odd; lots are given as groups of three in group order.
"""

from __future__ import annotations

from typing import Any

from . import Twin

Event = dict[str, Any]


def _rec(lots: Event, *events: Event) -> dict[str, Any]:
    return {"format": "blackwhite-record/1", "game": "joust", "options": {}, "events": [lots, *events]}


def _lots(groups: list[list[int]], leftover: int) -> Event:
    return {"chance": "lots", "groups": groups, "leftover": [leftover]}


def _a(seat: int, action: str) -> Event:
    return {"seat": seat, "action": action}


#: P1 opens an auction with 0 and P2 folds: P1 wins the tile free and opens the next
P1_BUYS = [_a(0, "bid 0"), _a(1, "fold")]

# ----------------------------------------------------------------------------- set 1, two sales
#
# Colours by label: group 1 white-black-white, group 2 black-white-black, group 3
# white-black-white, group 4 black-white-black.  P1 buys group 1's Balance (the 2) for
# 3; it picks the Giant next, folds at once and P2 gets it free; P2 opens the Minute.

SHORT = [_a(0, "bid 3"), _a(1, "fold"), _a(0, "next giant"), _a(0, "fold")]

#: the 2 P1 bought; the Giant (3) P2 got; groups 2-4 as dealt
LOTS_A = _lots([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], 13)
#: the Giant P2 got is a 5; groups 2 and 3 dealt otherwise (same colours)
LOTS_B = _lots([[1, 2, 5], [4, 7, 8], [3, 6, 9], [10, 11, 12]], 13)
#: P1's Balance is a 4; the rest dealt otherwise (same colours)
LOTS_C = _lots([[1, 4, 5], [2, 3, 6], [7, 8, 9], [10, 11, 12]], 13)
#: what P2 bought (3) and what P1 bought (2) as in A; groups 2 and 3 dealt otherwise
LOTS_E = _lots([[1, 2, 3], [4, 7, 8], [5, 6, 9], [10, 11, 12]], 13)

# ----------------------------------------------------------------------------- a whole set
#
# Group 1 opens with its Balance; P1 buys it and takes Minute then Giant (last sold: the
# Giant).  Group 2 opens with the tile closest to that Giant, its Minute; P1 buys the
# group, Balance then Giant.  Group 3 likewise opens with its Minute and ends with its
# Giant, the 13.  Group 4 opens with the tile closest to 13, its Giant (12); P1 buys it
# and the Balance (11), then folds the Minute to P2.  P1 has 11 tiles, P2 one: the
# leftover goes, unseen by P1, to P2, and the joust phase starts (P2 holds two).
#
# In the two deals below P2's Minute and the leftover swap values (10 and 8): P1 knows
# every other tile, so it knows P2 holds 8 and 10, but never which is which.

WHOLE_SET = [
    *P1_BUYS,  # group 1 Balance
    _a(0, "next minute"),
    *P1_BUYS,  # group 1 Minute
    *P1_BUYS,  # group 1 Giant
    *P1_BUYS,  # group 2 Minute
    _a(0, "next balance"),
    *P1_BUYS,  # group 2 Balance
    *P1_BUYS,  # group 2 Giant
    *P1_BUYS,  # group 3 Minute
    _a(0, "next balance"),
    *P1_BUYS,  # group 3 Balance
    *P1_BUYS,  # group 3 Giant (13)
    *P1_BUYS,  # group 4 Giant (12)
    _a(0, "next balance"),
    *P1_BUYS,  # group 4 Balance (11)
    _a(0, "fold"),  # group 4 Minute: P2 gets it free; then the leftover goes to P2
]
LEFT_8 = _lots([[1, 2, 3], [4, 5, 6], [7, 9, 13], [10, 11, 12]], 8)
LEFT_10 = _lots([[1, 2, 3], [4, 5, 6], [7, 9, 13], [8, 11, 12]], 10)

TWINS: list[Twin] = [
    Twin("the value of the tile P2 bought (set 1, group 1 Giant)", 0,
         _rec(LOTS_A, *SHORT, _a(1, "bid 1")), _rec(LOTS_B, *SHORT, _a(1, "bid 1"))),
    Twin("the values of the tiles not sold yet", 1, _rec(LOTS_A, *SHORT), _rec(LOTS_E, *SHORT)),
    Twin("the values of the tiles each seat bought", None, _rec(LOTS_A, *SHORT), _rec(LOTS_C, *SHORT)),
    *[
        Twin(
            "the leftover given to P2, its Minute", who, _rec(LEFT_8, *WHOLE_SET), _rec(LEFT_10, *WHOLE_SET)
        )
        for who in (0, None)
    ],
    Twin(
        "P2's secret submission in an open step (its 10 or its 8)",
        0,
        _rec(LEFT_8, *WHOLE_SET, _a(1, "play 10")),
        _rec(LEFT_8, *WHOLE_SET, _a(1, "play 8")),
    ),
    Twin(
        "which of P2's tiles was submitted, once announced (the Minute is the 8 or the 10)",
        0,
        # P2's Minute is announced (black, group 4) in both; its value differs
        _rec(LEFT_8, *WHOLE_SET, _a(1, "play 10"), _a(0, "play 1")),
        _rec(LEFT_10, *WHOLE_SET, _a(1, "play 8"), _a(0, "play 1")),
    ),
    Twin(
        "every value, while P1's timeout note is public in an open step",
        None,
        _rec(LEFT_8, *WHOLE_SET, _a(0, "timeout")),
        # same colours and opening labels: groups 1..4 open Balance, Minute, Minute, Giant
        _rec(_lots([[1, 4, 5], [6, 7, 8], [9, 11, 13], [2, 3, 12]], 10), *WHOLE_SET, _a(0, "timeout")),
    ),
]
