"""Secrecy twins of both grouping games beyond the hand-written ones, which the
generic suite (tests/test_secrecy_twins.py) replays: worlds a seat draws are twins
of the real state, and twins in set 2, built from records that differ in set-1
tiles the seat never saw, give the same worlds."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

from blackwhite.engine import load, make_game
from blackwhite.engine.core import State
from blackwhite.engine.play import random_step

from .twins import Twin


def _world(state: State, seat: int, k: int) -> State:
    world = state.resample(seat, random.Random(k))
    assert not world.log and not world.history  # search copies keep neither
    return world


def _differing_fields(x: State, y: State) -> list[str]:
    return sorted(
        name for name in x.__dict__.keys() | y.__dict__.keys()
        if pickle.dumps(x.__dict__.get(name)) != pickle.dumps(y.__dict__.get(name))
    )


@pytest.mark.parametrize(
    "gid, options",
    [
        ("grouping", {}),
        ("grouping", {"see_own_tile": True, "chips": 8}),
        ("grouping-final", {"items": {"0": ["peek", "order"], "1": ["bonus", "peek", "order"]}}),
        ("grouping-final", {"items": {"0": ["order"], "1": ["order"]}, "announce_order": True, "chips": 20}),
    ],
)
def test_a_sampled_world_is_a_twin_of_the_real_state(gid: str, options: dict[str, Any]) -> None:
    """Machine-made twins beside the hand-written ones: a world drawn for a seat is a
    state the seat cannot tell from the real one, so resampling either must give the
    very same worlds.  (Built with the code under test, this cannot see a fact copied
    from the real state into both; the hand-written twins in tests/twins/ can.)"""
    checked = 0
    for seed in range(16):
        rng = random.Random(seed)
        state = make_game(gid, options).new_initial_state()
        for step in range(400):
            if state.is_over():
                break
            random_step(state, rng, fast=False)
            if step % 9 != 5:
                continue
            for seat in (0, 1):
                world = state.resample(seat, random.Random(seed * 1000 + step))
                assert world.view(seat)["log"] == []  # search copies keep no log
                assert world.info_key(seat) == state.info_key(seat)
                for k in range(2):
                    x, y = _world(state, seat, k), _world(world, seat, k)
                    assert _differing_fields(x, y) == [], (seed, step, seat, k)
                    assert pickle.dumps(x) == pickle.dumps(y)
                checked += 1
    assert checked > 40


def _calls_to_set_two(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with set 1 finished by calls (whoever is to bet calls), then set 2
    grouped (groups kept) and dealt ascending for both seats."""
    from .twins.grouping_final import GA, UP, _act, _deal

    state = load(record)
    events = list(record["events"])
    while state.set_no == 1:
        seat = state.to_move()[0]
        state.apply_text(seat, "call")
        events.append(_act(seat, "call"))
    events += [_act(0, GA), _act(1, GA), _deal(0, UP), _deal(1, UP)]
    return {**record, "events": events}


def _set_two_twins() -> list[Twin]:
    """Twins in set 2's betting, where worlds weigh the chain of the opponent's groupings
    by what set 1 showed: the records differ only in set-1 tiles the seat never saw."""
    from .twins.grouping_final import UP, _act, _opening, _p2_folds, _record

    p2_deals = ([2, 3, 4, 0, 1, 5, 6, 7, 8], [4, 3, 2, 0, 1, 5, 6, 7, 8])
    p1_folds = [_act(0, "fold")] + [_act(1, "raise 1"), _act(0, "fold")] * 2
    return [
        # P2 folds rounds 1-3 (not the 8, said publicly): P1 never sees those tiles
        Twin(
            "P2's set-1 folded tiles, in set 2",
            0,
            *(_calls_to_set_two(_record(_opening(UP, d) + _p2_folds(3))) for d in p2_deals),
        ),
        # P1 folds rounds 1-3 and sees P2's tiles; P2 never sees them (own tiles face down)
        Twin(
            "P2's own set-1 tiles that P1 saw by folding, in set 2",
            1,
            *(_calls_to_set_two(_record(_opening(UP, d) + p1_folds)) for d in p2_deals),
        ),
    ]


@pytest.mark.parametrize("twin", _set_two_twins(), ids=lambda t: t.name)
def test_set_two_twins_give_the_same_worlds_and_their_worlds_keep_no_secret(twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    seat = twin.seat
    assert seat is not None and a.set_no == b.set_no == 2 and a.phase == "bet"
    assert pickle.dumps(a) != pickle.dumps(b) and a.view(seat) == b.view(seat)
    for k in range(6):
        x, y = _world(a, seat, k), _world(b, seat, k)
        assert _differing_fields(x, y) == [], f"resample({seat}, Random({k}))"
        # a world's opponent knows of earlier sets only what everyone was told
        for j in range(3):
            assert pickle.dumps(x.resample(1 - seat, random.Random(j))) == pickle.dumps(
                y.resample(1 - seat, random.Random(j))
            )
