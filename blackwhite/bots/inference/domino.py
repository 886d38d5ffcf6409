"""What a domino bot can say about lines through halves it cannot read.

A hidden half of the opponent's is, as far as a seat can tell without search, any
number of its colour (black 0, 2, 4; white 1, 3, 5), each as likely.  These tables
give, for a line of three holding some such halves, the chance that it scores and
the chance that it earns the B point, by the sum of its known numbers.  The
heuristic reads them; the scoring rule itself is the game's (``SCORING_SUMS``,
``BONUS_SUMS``).
"""

from __future__ import annotations

from ...games.domino import BONUS_SUMS, SCORING_SUMS

#: the numbers a hidden half of each colour may be (index: parity)
_OF_COLOUR: tuple[tuple[int, ...], tuple[int, ...]] = (tuple(range(0, 6, 2)), tuple(range(1, 6, 2)))
#: at most this many cells of a line of three can be unknown
MAX_UNKNOWN = 3
#: known sums are tabled up to this (three numbers of at most 5, plus slack)
MAX_KNOWN = 20


def miss_row(even: int, odd: int) -> tuple[tuple[float, float], ...]:
    """For each known sum ``t`` of a line: (1 - P(it scores), 1 - P(it earns B)) when
    ``even``/``odd`` more halves are unknown black/white, uniform over their colour."""
    sums = [0]
    for par in [0] * even + [1] * odd:
        sums = [s + n for s in sums for n in _OF_COLOUR[par]]
    total = len(sums)
    row = []
    for t in range(MAX_KNOWN + 1):
        hit = sum(1 for s in sums if s + t in SCORING_SUMS)
        hit_b = sum(1 for s in sums if s + t in BONUS_SUMS)
        row.append((1.0 - hit / total, 1.0 - hit_b / total))
    return tuple(row)


#: MISS[even][odd][t]: :func:`miss_row`, tabled once at import (shared by threads)
MISS: tuple[tuple[tuple[tuple[float, float], ...], ...], ...] = tuple(
    tuple(miss_row(e, o) for o in range(MAX_UNKNOWN + 1)) for e in range(MAX_UNKNOWN + 1)
)
