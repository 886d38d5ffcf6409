"""Secrecy twins of the small variants (options ``tiles``, ``board``/``numbers``,
``rounds``, ``groups``...), checked on what the research adapters see.

Each twin is two match records written by hand (by the encodings' reviewer,
independently of the code under test) that differ in a hidden fact.  Replayed with
the engine's record functions, they must give the named seat (``None``: everyone)
the same view, the same observation tensor and, where the seat is asked, the same
offered actions.  They live here rather than in tests/twins/, whose modules are one
per game id.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from blackwhite.engine import load
from blackwhite.engine.encoding import encoding
from tests.test_secrecy_twins import world_fields
from tests.twins import Twin, act, deal, lots
from tests.twins import record as rec


TWINS: list[Twin] = []

# swapping, 3 tiles: P1 plays 2 1 0 or 1 0 2 against P2's 0 1 2 (one win each either way)
_S3 = {"tiles": 3, "max_ties": 1}
for _tail in ([], [act(0, "swap 0 1"), act(1, "swap 2 1")]):
    for _seat in (1, None):
        TWINS.append(Twin(
            f"swapping tiles=3: P1's placement{' then swaps' if _tail else ''}", _seat,
            rec("swapping", _S3, [act(0, "place 2 1 0"), act(1, "place 0 1 2")] + _tail),
            rec("swapping", _S3, [act(0, "place 1 0 2"), act(1, "place 0 1 2")] + _tail),
        ))
# swapping, 6 tiles: P1's private swap, with and without P2's own
_S6 = {"tiles": 6, "max_ties": 2}
_PLAY6 = [act(0, "place 0 1 2"), act(1, "place 0 1 2"), act(0, "place 3 4 5"), act(1, "place 3 4 5")]
TWINS.append(Twin("swapping tiles=6: P1's private swap", 1,
                  rec("swapping", _S6, _PLAY6 + [act(0, "swap 0 1")]),
                  rec("swapping", _S6, _PLAY6 + [act(0, "swap 4 5")])))
TWINS.append(Twin("swapping tiles=6: P1's private swap, P2 swapped too", 1,
                  rec("swapping", _S6, _PLAY6 + [act(0, "swap 0 1"), act(1, "swap 2 3")]),
                  rec("swapping", _S6, _PLAY6 + [act(0, "swap 4 5"), act(1, "swap 2 3")])))
# domino 5x1 with halves 0..3: a hidden half 1 or 3 (both white)
_D5 = {"board": "5x1", "numbers": 3}
for _seat in (1, None):
    TWINS.append(Twin("domino 5x1: the hidden half 1 or 3", _seat,
                      rec("domino", _D5, [act(0, "go first"), act(0, "(0,1) CZ:DZ hide DZ")]),
                      rec("domino", _D5, [act(0, "go first"), act(0, "(0,3) CZ:DZ hide DZ")])))
_D3 = {"board": "3x2", "numbers": 2}
TWINS.append(Twin("domino 3x2: P1's hidden half 0 or 2", 1,
                  rec("domino", _D3, [act(0, "go second"), act(1, "(0,1) CY:CZ hide CZ"), act(0, "(0,1) DZ:EZ hide DZ")]),
                  rec("domino", _D3, [act(0, "go second"), act(1, "(0,1) CY:CZ hide CZ"), act(0, "(2,1) DZ:EZ hide DZ")])))
# grouping, one round a deal: the positions of P1's deal that were never played
_G1 = {"rounds": 1, "chips": 4, "max_raise": 1}


def _grouping_deals(first: list[int]) -> list[dict[str, Any]]:
    return [act(0, "group A=0,1 B=2,3,4 C=5,6,7,8"), act(1, "group A=0,1 B=2,3,4 C=5,6,7,8"),
            deal(0, first), deal(1, [2, 3, 4, 0, 1, 5, 6, 7, 8])]


for _seat in (0, 1, None):
    TWINS.append(Twin("grouping rounds=1: P1's unplayed positions", _seat,
                      rec("grouping", _G1, _grouping_deals([0, 1, 2, 3, 4, 5, 6, 7, 8])
                          + [act(0, "go first"), act(0, "raise 1"), act(1, "call")]),
                      rec("grouping", _G1, _grouping_deals([0, 1, 4, 3, 2, 8, 7, 6, 5])
                          + [act(0, "go first"), act(0, "raise 1"), act(1, "call")])))
    TWINS.append(Twin("grouping rounds=1: P1's unplayed positions, a second deal, a resignation", _seat,
                      rec("grouping", _G1, _grouping_deals([0, 1, 2, 3, 4, 5, 6, 7, 8])
                          + [act(0, "go first"), act(0, "raise 1"), act(1, "call"),
                             deal(0, [1, 0, 2, 3, 4, 5, 6, 7, 8]), deal(1, [2, 3, 4, 0, 1, 5, 6, 7, 8]),
                             act(1, "fold"), act(0, "resign")]),
                      rec("grouping", _G1, _grouping_deals([0, 1, 4, 3, 2, 8, 7, 6, 5])
                          + [act(0, "go first"), act(0, "raise 1"), act(1, "call"),
                             deal(0, [1, 0, 8, 7, 6, 5, 2, 3, 4]), deal(1, [2, 3, 4, 0, 1, 5, 6, 7, 8]),
                             act(1, "fold"), act(0, "resign")])))
# grouping rounds=1, asked mid-deal: P1's tiles of the positions not played yet
TWINS.append(Twin("grouping rounds=1: P1's later positions, P2 asked to answer", 1,
                  rec("grouping", _G1, _grouping_deals([0, 1, 2, 3, 4, 5, 6, 7, 8])
                      + [act(0, "go first"), act(0, "raise 1")]),
                  rec("grouping", _G1, _grouping_deals([0, 1, 4, 3, 2, 8, 7, 6, 5])
                      + [act(0, "go first"), act(0, "raise 1")])))
# grouping-final, two rounds a deal: P1's tile after P2 folds
_GF = {"rounds": 2, "chips": 5}
_GROUPINGS = [act(0, "group A=0,2 B=1,3,4 C=5,6,7,8"), act(1, "group A=0,1 B=2,3,4 C=5,6,7,8")]
TWINS.append(Twin("grouping-final rounds=2: P1's tile after P2 folds", 1,
                  rec("grouping-final", _GF, _GROUPINGS + [deal(0, [0, 2, 1, 3, 4, 5, 6, 7, 8]),
                      deal(1, [2, 3, 4, 0, 1, 5, 6, 7, 8]), act(0, "go first"), act(0, "fold")]),
                  rec("grouping-final", _GF, _GROUPINGS + [deal(0, [2, 0, 1, 3, 4, 5, 6, 7, 8]),
                      deal(1, [2, 3, 4, 0, 1, 5, 6, 7, 8]), act(0, "go first"), act(0, "fold")])))
# joust-final with one group: lots {0,1,2} and {0,1,4} share their colours
_JF = {"sets": 1, "groups": 1, "chips": 2}
for _seat in (0, 1, None):
    TWINS.append(Twin("joust-final groups=1: two lots of equal colours", _seat,
                      rec("joust-final", _JF, [lots([[0, 1, 2]], [3, 4])]),
                      rec("joust-final", _JF, [lots([[0, 1, 4]], [2, 3])])))
# joust with two groups: lots of equal colours before any sale
_J2 = {"sets": 1, "groups": 2, "chips": 2}
for _seat in (0, 1, None):
    TWINS.append(Twin("joust groups=2: two lots of equal colours", _seat,
                      rec("joust", _J2, [lots([[1, 2, 3], [4, 5, 6]], [7])]),
                      rec("joust", _J2, [lots([[1, 4, 5], [2, 3, 6]], [7])])))


def _strip(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "log"}


@pytest.mark.parametrize("twin", TWINS, ids=[f"{t.name} (seat {t.seat})" for t in TWINS])
def test_variant_twins_look_the_same_to_the_seat(twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    assert a.game.options == b.game.options and a.game.options != {}
    assert _strip(a.view(twin.seat)) == _strip(b.view(twin.seat))
    enc = encoding(a.game)
    assert enc.observation(a.view(twin.seat)) == enc.observation(b.view(twin.seat))
    if twin.seat is not None:
        assert enc.offered(a, twin.seat) == enc.offered(b, twin.seat)
        assert a.info_key(twin.seat) == b.info_key(twin.seat)


@pytest.mark.parametrize("twin", TWINS, ids=[f"{t.name} (seat {t.seat})" for t in TWINS])
def test_variant_twins_really_differ(twin: Twin) -> None:
    """A twin whose two records are the same match would test nothing: the replayed
    states must hold different facts (some twins hide a fact from everyone)."""
    a, b = load(twin.a), load(twin.b)
    assert json.dumps(twin.a) != json.dumps(twin.b)
    assert world_fields(a) != world_fields(b)


def test_some_variant_twins_ask_the_seat() -> None:
    """The offered() comparison must run: some twins stop where the seat is asked."""
    asked = [t for t in TWINS if t.seat is not None and t.seat in load(t.a).to_move()]
    assert {load(t.a).game.id for t in asked} >= {"swapping", "domino", "grouping", "joust", "joust-final"}
