"""One generic test of every game's research encoding (blackwhite/engine/encoding.py).

Whatever the game, the adapters rely on the same promises: the seat they ask (the
lowest awaited seat that has not submitted) is always offered something; every
offered action has a code in range that decodes back to it; the observation has the
declared length for every seat and for a spectator; a match never outlasts
``max_game_length``; utilities stay in the declared range (and sum to the declared
constant when the type says so); chance events built from split draws are accepted
by the engine.  A game whose encoding module is not written yet is skipped.
"""

from __future__ import annotations

import importlib
import math
import random

import pytest

from blackwhite.engine.core import State
from blackwhite.engine.encoding import Encoding, encoding
from blackwhite.engine.registry import entry, game_ids, make_game

GAMES = game_ids()


def _encoding_or_skip(gid: str) -> Encoding:
    module = entry(gid).encoding.partition(":")[0]
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            pytest.skip(f"{module} is not written yet")
        raise
    return encoding(make_game(gid))


def _chance_step(enc: Encoding, state: State, rng: random.Random) -> None:
    """Draw the pending chance event one small draw at a time, as the adapters do."""
    draws: list[int] = []
    while True:
        outcomes = enc.chance_outcomes(state, draws)
        if not outcomes:
            break
        total = sum(p for _, p in outcomes)
        assert math.isclose(total, 1.0, abs_tol=1e-9), (outcomes, total)
        assert all(p > 0 for _, p in outcomes)
        assert len(outcomes) < 1000, "a chance node lists too many outcomes"
        values = [o for o, _ in outcomes]
        assert len(set(values)) == len(values)
        draws.append(rng.choices(values, weights=[p for _, p in outcomes])[0])
    state.apply_chance(enc.chance_event(state, draws))


def _play(enc: Encoding, seed: int, check_every: bool) -> tuple[State, int]:
    """A random match under ``offered``; returns the final state and its decisions."""
    rng = random.Random(seed)
    state = enc.game.new_initial_state()
    size = math.prod(enc.observation_shape)
    decisions = 0
    while not state.is_over():
        if state.is_chance():
            _chance_step(enc, state, rng)
            continue
        waiting = [s for s in state.to_move() if s not in state.pending]
        assert waiting, "a state that is neither over nor chance awaits no seat"
        seat = min(waiting)
        offered = enc.offered(state, seat)
        assert offered, f"seat {seat} is asked but offered nothing"
        if check_every:
            for viewer in [*range(state.num_seats), None]:
                assert len(enc.observation(state.view(viewer))) == size
            codes = [enc.encode(a) for a in offered]
            assert all(0 <= c < enc.num_distinct_actions for c in codes)
            assert len(set(codes)) == len(codes), "two offered actions share a code"
            assert [enc.decode(c) for c in codes] == offered
        action = offered[rng.randrange(len(offered))]
        state.apply(seat, action)
        decisions += 1
        assert decisions <= enc.max_game_length, "the match outlasts max_game_length"
    return state, decisions


@pytest.mark.parametrize("gid", GAMES)
def test_random_play_keeps_every_promise(gid: str) -> None:
    enc = _encoding_or_skip(gid)
    gt = enc.game_type
    assert gt.num_seats == enc.game.num_seats
    assert gt.min_utility <= gt.max_utility
    for seed in range(6):
        state, _ = _play(enc, seed, check_every=seed < 2)
        utilities = enc.utilities(state)
        assert len(utilities) == gt.num_seats
        assert all(gt.min_utility <= u <= gt.max_utility for u in utilities)
        if gt.constant_sum:
            assert math.isclose(sum(utilities), gt.utility_sum, abs_tol=1e-9)


@pytest.mark.parametrize("gid", GAMES)
def test_codes_out_of_range_and_foreign_actions_are_refused(gid: str) -> None:
    enc = _encoding_or_skip(gid)
    n = enc.num_distinct_actions
    for bad in (-1, n, n + 7, True, 1.5, "3"):
        with pytest.raises(ValueError) as err:
            enc.decode(bad)  # type: ignore[arg-type]
        assert str(bad) in str(err.value), "the error names the code"
    for bad_action in [("no-such-action",), ("resign",), ()]:
        with pytest.raises(ValueError):
            enc.encode(bad_action)


@pytest.mark.parametrize("gid", GAMES)
def test_the_spectator_view_encodes_too(gid: str) -> None:
    enc = _encoding_or_skip(gid)
    state = enc.game.new_initial_state()
    size = math.prod(enc.observation_shape)
    assert len(enc.observation(state.view(None))) == size
    observations = [enc.observation(state.view(s)) for s in range(state.num_seats)]
    assert all(len(o) == size for o in observations)
    assert all(isinstance(x, float) for x in observations[0])
