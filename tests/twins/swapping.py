"""Secrecy twins for ``swapping``, written by hand.

The opponent's tiles are known to a seat only through the running totals of the
play phase, colours (``show_colours``), public swaps (``show_colours``) and reveals.
Each pair below differs in something else: which tiles were placed, or a private swap.
"""

from __future__ import annotations

from typing import Any

from . import Twin


def record(events: list[tuple[int, str]], **options: Any) -> dict[str, Any]:
    return {
        "format": "blackwhite-record/1",
        "game": "swapping",
        "options": options,
        "seats": ["Sally", "Maddie"],
        "events": [{"seat": s, "action": a} for s, a in events],
    }


# P2 places 1 2 3.  Against it, P1's 8 0 3 and 4 1 3 both give "P1 1 - P2 1"
# (8>1, 0<2, 3=3 and 4>1, 1<2, 3=3).
ROUND_A = [(0, "place 8 0 3"), (1, "place 1 2 3")]
ROUND_B = [(0, "place 4 1 3"), (1, "place 1 2 3")]
# the same totals and colours (black black white): 4>1, 2=2, 1<3
ROUND_C = [(0, "place 4 2 1"), (1, "place 1 2 3")]

# a whole play phase, the same in both records of a pair: round 1 as ROUND_A, then
# 4 1 6 | 0 5 4 (P1, P2, P1) and 2 7 5 | 8 6 7 (P2, P1, P2): totals 1-1, 3-2, 4-4
PLAY = [
    (0, "place 8 0 3"), (1, "place 1 2 3"),
    (0, "place 4 1 6"), (1, "place 0 5 4"),
    (0, "place 2 7 5"), (1, "place 8 6 7"),
]

TWINS = [
    Twin(
        "which three tiles P1 placed in round 1 (same totals)",
        seat=1,
        a=record(ROUND_A),
        b=record(ROUND_B),
    ),
    Twin(
        "which three tiles P1 placed in round 1 (same totals and colours shown)",
        seat=1,
        a=record(ROUND_A, show_colours=True),
        b=record(ROUND_C, show_colours=True),
    ),
    Twin(
        "which three tiles P1 placed, to a spectator",
        seat=None,
        a=record(ROUND_A),
        b=record(ROUND_B),
    ),
    Twin(
        "which tiles P1 placed, two rounds in (same totals, other colours: not shown)",
        seat=1,
        a=record(ROUND_A + [(0, "place 5 6 7"), (1, "place 8 0 4")]),
        # 5 6 7 vs 8 0 4: P2, P1, P1 ; 2 6 7 vs 8 0 4: P2, P1, P1; colours differ (not shown)
        b=record(ROUND_B + [(0, "place 2 6 7"), (1, "place 8 0 4")]),
    ),
    Twin(
        "P1's private swap at step 1 (8 with 1, or 0 with 3)",
        seat=1,
        a=record(PLAY + [(0, "swap 8 1"), (1, "swap 2 1")]),
        b=record(PLAY + [(0, "swap 0 3"), (1, "swap 2 1")]),
    ),
    Twin(
        "P1's private swap at step 1, after both reveals (tiles not swapped)",
        seat=1,
        a=record(PLAY + [(0, "swap 8 1"), (1, "swap 2 1"), (0, "reveal 5"), (1, "reveal 4")]),
        b=record(PLAY + [(0, "swap 0 3"), (1, "swap 2 1"), (0, "reveal 5"), (1, "reveal 4")]),
    ),
    Twin(
        "P2's private swap (2 with 1, or 6 with 5), to P1 at the reveal",
        seat=0,
        a=record(PLAY + [(0, "swap 8 1"), (1, "swap 2 1")]),
        b=record(PLAY + [(0, "swap 8 1"), (1, "swap 6 5")]),
    ),
]
