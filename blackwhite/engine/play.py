"""Driving a game with random legal moves: for tests, benchmarks and rollouts."""

from __future__ import annotations

import random

from .core import State


def random_step(state: State, rng: random.Random, fast: bool = True) -> None:
    """Advance one event: a chance draw, or one random legal action of an awaited seat."""
    if state.is_chance():
        event = state.sample_chance(rng)
        if fast:
            state.apply_chance_fast(event)
        else:
            state.apply_chance(event, drawn=True)
        return
    if state.pending or state.ended_by is not None:
        seat = state.to_move()[0]
    else:  # what to_move() would list first, without building the list
        seat = state.awaited()[0]
    action = state.random_action(seat, rng)
    if fast:
        state.apply_fast(seat, action)
    else:
        state.apply(seat, action)


def play_random(state: State, rng: random.Random, max_steps: int = 100_000, fast: bool = True) -> int:
    """Play random legal moves until the game ends; return the number of events applied.

    Raises RuntimeError if the game has not ended after ``max_steps`` events.
    """
    steps = 0
    while not state.is_over():
        if steps >= max_steps:
            raise RuntimeError(f"{state.game.id}: no end after {max_steps} events")
        random_step(state, rng, fast)
        steps += 1
    return steps
