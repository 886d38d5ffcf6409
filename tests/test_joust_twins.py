"""The joust secrecy twins (tests/twins/joust.py, joust_final.py), replayed.

Two records that differ only in a hidden fact must give ``seat`` the same view, the
same information key, the same resampled worlds (byte for byte) and the same bot
decisions; for ``seat`` None, the same public view.  (A generic test over every
game's twins is written elsewhere; this one keeps the joust twins honest meanwhile.)
"""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

from blackwhite.bots import make_bot
from blackwhite.bots.base import decision_for
from blackwhite.bots.heuristic import joust as policy
from blackwhite.engine import State, replay

from .twins import Twin
from .twins import joust as joust_twins
from .twins import joust_final as final_twins

TWINS = joust_twins.TWINS + final_twins.TWINS


def _state(record: dict[str, Any]) -> State:
    result = replay(record)
    assert result.error is None, result.error
    return result.state


def _world(state: State, seat: int, k: int) -> bytes:
    world = state.resample(seat, random.Random(k))
    assert world.log == [] and world.history == []  # search copies keep neither
    return pickle.dumps(world)


@pytest.mark.parametrize("twin", TWINS, ids=[f"{t.a['game']}: {t.name} (seat {t.seat})" for t in TWINS])
def test_twins_look_the_same(twin: Twin) -> None:
    a, b = _state(twin.a), _state(twin.b)
    assert a.to_record() != b.to_record()  # they really differ
    seat = twin.seat
    assert a.view(seat) == b.view(seat)
    if seat is None:
        return
    assert a.info_key(seat) == b.info_key(seat)
    for k in range(4):
        assert _world(a, seat, k) == _world(b, seat, k)


@pytest.mark.parametrize(
    "twin", [t for t in TWINS if t.seat is not None], ids=lambda t: f"{t.a['game']}: {t.name}"
)
def test_twins_get_the_same_decisions(twin: Twin) -> None:
    a, b = _state(twin.a), _state(twin.b)
    seat = twin.seat
    assert seat is not None
    assert seat in a.to_move() and a.to_move() == b.to_move()  # each twin ends on a decision
    legal = a.legal_actions(seat)
    assert legal == b.legal_actions(seat)
    for k in range(3):
        assert policy.choose(a.view(seat), legal, random.Random(k)) == policy.choose(
            b.view(seat), legal, random.Random(k)
        )
    for k in range(2):
        picks = [
            make_bot("ismcts", iterations=40).choose(decision_for(s, seat, random.Random(k))) for s in (a, b)
        ]
        assert picks[0] == picks[1]
