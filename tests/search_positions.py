"""Positions the search tests check their fast paths on (tests/test_grouping_search.py,
tests/test_swapping_search.py): where a seat is awaited in seeded matches of the
heuristic mixed with random moves, so both the heuristic's usual lines and odd ones
are met."""

from __future__ import annotations

import random
from typing import Any, Callable

from blackwhite.bots import decision_for, make_bot
from blackwhite.engine import State, make_game


def mixed_positions(
    gid: str,
    options: dict[str, Any] | None,
    matches: int,
    seed: int,
    random_share: float,
    keep: Callable[[State], bool] = lambda state: True,
) -> list[State]:
    """A copy of every position of ``matches`` matches where a seat is awaited and
    ``keep`` holds; the first awaited seat plays a uniformly random legal action with
    probability ``random_share``, else the heuristic's.  Match ``m`` draws its chance
    from ``seed + m`` and its moves from ``seed + 1000 + m``."""
    game = make_game(gid, options)
    heuristic = make_bot("heuristic")
    out: list[State] = []
    for m in range(matches):
        state = game.new_initial_state()
        chance = random.Random(seed + m)
        rng = random.Random(seed + 1000 + m)
        while True:
            state.play_chance(chance)
            if state.is_over():
                break
            seat = state.to_move()[0]
            if keep(state):
                out.append(state.clone())
            decision = decision_for(state, seat, rng)
            if rng.random() < random_share:
                action = decision.legal[rng.randrange(len(decision.legal))]
            else:
                action = heuristic.choose(decision)
            state.apply(seat, action)
    return out
