"""``State.random_action`` picks exactly what a uniform draw from ``legal_actions`` picks.

Random play and seeded matches depend on it: a game that finds the drawn action
without listing them (domino) must consume the same randomness and land on the same
action as indexing the list, at every step and for every awaited seat.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from blackwhite.engine import make_game
from blackwhite.engine.play import random_step
from blackwhite.engine.registry import game_ids

CASES: list[tuple[str, dict[str, Any]]] = [(gid, {}) for gid in game_ids()] + [
    ("domino", {"board": "3x2", "numbers": 3}),
    ("domino", {"board": "5x4", "numbers": 1}),
    ("domino", {"numbers": 2}),
    ("joust", {"chips": 1500}),  # bids past joust's table of shared bid tuples
]


@pytest.mark.parametrize(("gid", "options"), CASES, ids=[f"{g}{o or ''}" for g, o in CASES])
def test_random_action_is_the_uniform_pick_from_the_list(gid: str, options: dict[str, Any]) -> None:
    rng = random.Random(11)
    checked = 0
    for _game in range(6):
        state = make_game(gid, options).new_initial_state()
        if _game % 2:
            state.track = False  # the fast path's untracked copies too
        while not state.is_over():
            if not state.is_chance():
                for seat in state.to_move():
                    legal = state.legal_actions(seat)
                    seed = rng.random()
                    by_list, direct = random.Random(seed), random.Random(seed)
                    expected = legal[by_list.randrange(len(legal))]
                    assert state.random_action(seat, direct) == expected
                    assert direct.getstate() == by_list.getstate()
                    checked += 1
            random_step(state, rng)
    assert checked > 12
