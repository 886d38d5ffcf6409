"""Secrecy twins for ``yellow``, written by hand.

Everything owned is public and every submission is announced when the round
resolves; the only secret is a submission not yet resolved.
"""

from __future__ import annotations

from typing import Any

from . import Twin


def record(events: list[tuple[int, str]], **options: Any) -> dict[str, Any]:
    return {
        "format": "blackwhite-record/1",
        "game": "yellow",
        "options": options,
        "seats": ["Ann", "Bo", "Cy"],
        "events": [{"seat": s, "action": a} for s, a in events],
    }


# round 1: P3's 8 scores, P2 (6) gains 2 yellow, P1 (4) gains 2 yellow
ROUND_1 = [(0, "play 4"), (1, "play 6"), (2, "play 8")]

TWINS = [
    Twin("P1's first submission (3 or 5)", seat=1, a=record([(0, "play 3")]), b=record([(0, "play 5")])),
    Twin("P1's first submission, to a spectator", seat=None, a=record([(0, "play 3")]), b=record([(0, "play 0")])),
    Twin(
        "P1's boosts (garnets to spend), P2 awaited",
        seat=1,
        a=record([(0, "boost boost play 2")], garnets=[6, 3, 0]),
        b=record([(0, "play 8")], garnets=[6, 3, 0]),
    ),
    Twin(
        "P1's exchange in round 2, after a public round 1",
        seat=2,
        a=record(ROUND_1 + [(0, "exchange play 2")]),
        b=record(ROUND_1 + [(0, "play 8")]),
    ),
    Twin(
        "P1's and P2's submissions in round 2, to P3",
        seat=2,
        a=record(ROUND_1 + [(0, "exchange play 2"), (1, "play 1")]),
        b=record(ROUND_1 + [(1, "exchange play 7"), (0, "play 0")]),
    ),
]
