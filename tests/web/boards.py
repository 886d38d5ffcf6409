"""Shared walk for the board tests: every step of a random match drawn for every audience."""

from __future__ import annotations

import random
from typing import Any, Callable

from blackwhite.engine import State, make_game

Render = Callable[..., str]


def render_every_step(game_id: str, options: dict[str, Any], ending: str, render: Render) -> None:
    """Play a random match of ``game_id``, drawing each step for each seat and the public,
    live and as a replay; ``ending`` ("played out", "resign", "timeout") ends it part way."""
    rng = random.Random(len(ending) + len(options))
    state: State = make_game(game_id, options).new_initial_state()
    audiences = [*range(state.num_seats), None]
    stop = rng.randrange(5, 30) if ending != "played out" else -1
    step = 0
    while not state.is_over():
        for seat in audiences:
            html = render(state, seat)
            assert html.count("<section") == 1 and html.count("</section>") == 1
            if seat is not None:
                render(state, seat, replay=True)
        if step == stop:
            awaited = [s for s in state.to_move() if s not in state.pending]
            state.apply_text(awaited[0], ending)  # a timeout may also just play for the seat
            step += 1
            continue
        seat = [s for s in state.to_move() if s not in state.pending][0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        step += 1
    assert state.is_over()
    for seat in audiences:
        assert "wins" in render(state, seat) or "Game over" in render(state, seat)
