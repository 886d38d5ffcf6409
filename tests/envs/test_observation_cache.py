"""The PettingZoo environment remembers each seat's observation until the state
changes: what it hands out must be, at every step of every game, exactly the encoding
of the seat's view computed afresh, and a caller changing the arrays it was given
must not change what the next call returns."""

from __future__ import annotations

import random

import numpy as np
import pytest

from blackwhite.envs import pettingzoo_env
from blackwhite.envs.pettingzoo import BlackWhiteEnv

from .conftest import GAMES, small_options


def _fresh(env: BlackWhiteEnv, seat: int) -> np.ndarray:
    """The seat's observation computed afresh from its view (a game without a tensor
    encoding: the view's JSON text as padded ASCII codes)."""
    view = env.state_.view(seat)
    if not env.encoding.tensor:
        return env._text(view)
    return np.asarray(env.encoding.observation(view), np.float32)


@pytest.mark.parametrize("small", [True, False], ids=["small", "standard"])
@pytest.mark.parametrize("game_id", GAMES)
def test_remembered_observation_is_the_fresh_one_at_every_step(game_id: str, small: bool) -> None:
    env = pettingzoo_env(game_id, **(small_options(game_id) if small else {}))
    seats = range(env.game.num_seats)
    for seed in range(3 if small else 1):
        rng = random.Random(seed)
        env.reset(seed=seed)
        steps = 0
        for agent in env.agent_iter(max_iter=10_000 if small else 150):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            for seat in seats:
                fresh = _fresh(env, seat)
                first = env.observe(f"player_{seat}")
                assert np.array_equal(first["observation"].ravel(), fresh)
                first["observation"][...] = 7  # the caller's arrays are its own
                first["action_mask"][...] = 0
                again = env.observe(f"player_{seat}")
                assert np.array_equal(again["observation"].ravel(), fresh)
                assert again["action_mask"].any() == (f"player_{seat}" == agent)
            assert np.array_equal(obs["observation"].ravel(), _fresh(env, int(agent.split("_")[1])))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        assert steps > 0
