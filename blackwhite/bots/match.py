"""Playing whole matches between bots: the one loop the arena, benchmarks and tests share."""

from __future__ import annotations

import random
from typing import Sequence

from ..engine.core import Game, State
from .base import Bot, decision_for


def chance_rng(seed: int) -> random.Random:
    """The rng that draws a match's chance events (deals, lots) from its seed."""
    return random.Random(seed)


def bot_rng(seed: int, seat: int) -> random.Random:
    """A seat's own rng, independent of the chance rng and of the other seats'."""
    return random.Random(f"bot/{seed}/{seat}")


def play_match(
    game: Game,
    bots: Sequence[Bot],
    seed: int,
    budget: float | Sequence[float] = 0.0,
    max_actions: int = 100_000,
) -> State:
    """Play one match to its end and return the (tracked) final state.

    Seats are asked one at a time even at a simultaneous step; that is sound because a
    decision is built from the seat's view and ``resample``, neither of which shows
    another seat's pending choice.  Actions go through the checked ``apply``, so a bot
    that returns an illegal action fails loudly here instead of corrupting a result.
    A match still running after ``max_actions`` actions is returned unfinished.
    ``budget``: seconds a decision, for every seat or seat by seat.
    """
    if len(bots) != game.num_seats:
        raise ValueError(f"{game.id} needs {game.num_seats} bots, got {len(bots)}")
    state = game.new_initial_state()
    chance = chance_rng(seed)
    rngs = [bot_rng(seed, seat) for seat in range(game.num_seats)]
    budgets = [float(budget)] * game.num_seats if isinstance(budget, (int, float)) else list(budget)
    actions = 0
    while True:
        state.play_chance(chance)
        if state.is_over() or actions >= max_actions:
            return state
        seat = state.to_move()[0]
        decision = decision_for(state, seat, rngs[seat], budgets[seat])
        state.apply(seat, bots[seat].choose(decision))
        actions += 1
