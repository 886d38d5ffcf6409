"""Secrecy twins for domino: records that differ only in a hidden domino number.

Written by hand (see the package docstring); every pair was worked out on paper so
that each placement meets the same H/V/D/B in both records, so the only difference
is a number one seat hid, which the other seat and the public must not learn until
the end.

The first two pairs are the canonical-order leak: a placement used to be announced
and listed smallest number first, so "EZ=1 FZ=?black" (hidden 2) and "FZ=?black
EZ=1" (hidden 0) told everyone which side of the shown number the hidden one lay.
Any pair, resampled twice from one state, also catches a world that carries the
real placements along (the sampler's cached plan).
"""

from __future__ import annotations

from typing import Any

from . import Twin


def _record(events: list[tuple[int, str]], dmo: int = 0) -> dict[str, Any]:
    return {
        "format": "blackwhite-record/1",
        "game": "domino",
        "options": {"dmo": dmo},
        "seats": ["Sally", "Maddie"],
        "events": [{"seat": s, "action": a} for s, a in events],
    }


# P2 hides FZ, shows EZ=1: (0,1) in one record, (1,2) in the other; both black.
# Row Z reads CZ=2 DZ=0 EZ=1 FZ=0|2: sums 3 and 1|3, no line scores in either.
_LOW = _record([(0, "go first"), (0, "(2,0) CZ:DZ hide CZ"), (1, "(1,0) EZ:FZ hide FZ")])
_HIGH = _record([(0, "go first"), (0, "(2,0) CZ:DZ hide CZ"), (1, "(1,2) EZ:FZ hide FZ")])

# P1 opens vertically on column D, shows DY=3, hides DZ: 1 or 5 (both white).
# Alone on the board, no line of three is full.
_V_LOW = _record([(0, "go first"), (0, "(3,1) DY:DZ hide DZ")])
_V_HIGH = _record([(0, "go first"), (0, "(3,5) DY:DZ hide DZ")])

# A longer game, P2 the DMO going second, both seats hiding; the pair differs in two
# hidden numbers of P1 (CZ 3|1, EY 0|4) and one of P2 (GZ 2|4 in the other pair).
#   P1 (2,3) DZ:CZ hide CZ     row Z: CZ=3|1 DZ=2
#   P2 (4,1) EZ:FZ hide FZ     CZ DZ EZ = 9|7, DZ EZ FZ = 7: nothing
#   P1 (0,5) EY:DY hide EY     DY=5 EY=0|4 over DZ, EZ; lines through DY/EY:
#                              CZ-DY: (CZ, DY, EX) EX empty; DY-EZ: (CX, DY, EZ) CX
#                              empty; EY-FZ: (DX, EY, FZ) DX empty; (EY, DZ, ..)
#                              leaves the board; columns D, E: DX, EX empty;
#                              row Y: CY, FY empty: nothing
#   P2 (2|4,5) GZ:GY hide GZ  shown GY=5 (P2 hides GZ 2|4 in the last pair only)
#                              row Z: EZ FZ GZ = 4+1+2|4 = 7|9; column G: GX
#                              empty; diagonal (EX, FY, GZ) empty: nothing
_LONG_A = [
    (1, "go second"),
    (0, "(2,3) DZ:CZ hide CZ"),
    (1, "(4,1) EZ:FZ hide FZ"),
    (0, "(0,5) EY:DY hide EY"),
    (1, "(2,5) GZ:GY hide GZ"),
]
_LONG_B = [
    (1, "go second"),
    (0, "(2,1) DZ:CZ hide CZ"),
    (1, "(4,1) EZ:FZ hide FZ"),
    (0, "(4,5) EY:DY hide EY"),
    (1, "(2,5) GZ:GY hide GZ"),
]
_LONG_C = _LONG_A[:4] + [(1, "(4,5) GZ:GY hide GZ")]

# The DMO's silence: a timeout on the first-player choice is public (everyone sees
# the clock run out) and means "go first"; the hidden number still stays hidden.
_T_LOW = _record([(0, "timeout"), (0, "(0,5) DZ:EZ hide DZ")])
_T_HIGH = _record([(0, "timeout"), (0, "(4,5) DZ:EZ hide DZ")])

# A double or not: P2 stands a domino on P1's EZ=2, shows EY=3 and hides EX: 3 (the
# double (3,3)) or 1.  Column E reads EX, EY=3, EZ=2: sums 8 or 6; every other line
# through EX or EY still misses a cell: nothing either way.
_DOUBLE = _record([(0, "go first"), (0, "(2,4) EZ:FZ hide FZ"), (1, "(3,3) EX:EY hide EX")])
_SINGLE = _record([(0, "go first"), (0, "(2,4) EZ:FZ hide FZ"), (1, "(1,3) EX:EY hide EX")])

TWINS: list[Twin] = [
    Twin("P2's hidden FZ below or above its shown EZ=1 (0 or 2)", 0, _LOW, _HIGH),
    Twin("P2's hidden FZ below or above its shown EZ=1 (0 or 2), to the public", None, _LOW, _HIGH),
    Twin("P1's hidden DZ below or above its shown DY=3 (1 or 5)", 1, _V_LOW, _V_HIGH),
    Twin("P1's hidden DZ below or above its shown DY=3 (1 or 5), to the public", None, _V_LOW, _V_HIGH),
    Twin("P1's hidden CZ and EY (3, 0 or 1, 4)", 1, _record(_LONG_A, dmo=1), _record(_LONG_B, dmo=1)),
    Twin("P1's hidden CZ and EY (3, 0 or 1, 4), to the public", None, _record(_LONG_A, dmo=1), _record(_LONG_B, dmo=1)),
    Twin("P2's hidden GZ (2 or 4)", 0, _record(_LONG_A, dmo=1), _record(_LONG_C, dmo=1)),
    Twin("P2's hidden GZ (2 or 4), to the public", None, _record(_LONG_A, dmo=1), _record(_LONG_C, dmo=1)),
    Twin("P1's hidden DZ after a timed-out first-player choice (0 or 4)", 1, _T_LOW, _T_HIGH),
    Twin("P1's hidden DZ after a timed-out first-player choice (0 or 4), to the public", None, _T_LOW, _T_HIGH),
    Twin("P2's hidden EX: a double (3,3) or (1,3)", 0, _DOUBLE, _SINGLE),
    Twin("P2's hidden EX: a double (3,3) or (1,3), to the public", None, _DOUBLE, _SINGLE),
]
