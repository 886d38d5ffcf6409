"""Shared helpers of the board tests: the render contract's ``legal``, a board drawn for one
audience, the notation-label check, a seeded random match, and the every-step walk."""

from __future__ import annotations

import random
import re
from typing import Any, Callable

from blackwhite.engine import State, make_game
from blackwhite.web.render import legal_entries, render_board

Render = Callable[..., str]


def legal_for(state: State, seat: int | None) -> list[dict[str, Any]]:
    """The contract's ``legal``: the seat's actions while the step awaits its part."""
    if seat is None or seat not in state.to_move() or seat in state.pending:
        return []
    return legal_entries(state.format_action(a) for a in state.legal_actions(seat))


def render_as(game_id: str, state: State, seat: int | None, names: list[str], replay: bool = False) -> str:
    """``state`` drawn for ``seat`` (None: the public), live or as a replay (no actions)."""
    legal = [] if replay else legal_for(state, seat)
    return render_board(game_id, state.view(seat), seat=seat, legal=legal, names=names, you=not replay)


def labelled_by_notation(html: str) -> None:
    """Every notation button is labelled starting with the notation it shows (the visible
    text is in the accessible name, so voice control can say what it reads)."""
    buttons = re.findall(r'<button[^>]*data-action="([^"]+)"[^>]*aria-label="([^"]*)"[^>]*>([^<]*)</button>', html)
    assert buttons
    for action, label, text in buttons:
        assert text == action and label.startswith(action + ":"), (action, label, text)


def random_play(game_id: str, seed: int, steps: int, **options: Any) -> State:
    """A match of ``game_id`` after ``steps`` seeded random actions (the lowest seat not yet
    submitted acts first; chance drawn from the same seed), or its end if that comes sooner."""
    state = make_game(game_id, options).new_initial_state()
    rng = random.Random(seed)
    for _ in range(steps):
        state.play_chance(rng)
        if state.is_over():
            break
        seat = [s for s in state.to_move() if s not in state.pending][0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state


def started(game_id: str, seed: int = 1) -> State:
    """A new match of ``game_id`` with its opening chance (deals, lots) drawn from ``seed``."""
    state = make_game(game_id).new_initial_state()
    state.play_chance(random.Random(seed))
    return state


def render_every_step(game_id: str, options: dict[str, Any], ending: str, render: Render) -> None:
    """Play a random match of ``game_id``, drawing each step for each seat and the public,
    live and as a replay; ``ending`` ("played out", "resign", "timeout") ends it part way."""
    rng = random.Random(len(ending) + len(options))
    state: State = make_game(game_id, options).new_initial_state()
    audiences = [*range(state.num_seats), None]
    stop = rng.randrange(5, 30) if ending != "played out" else -1
    step = 0
    while True:
        state.play_chance(rng)  # deals and lots: drawn, not shown step by step
        if state.is_over():
            break
        for seat in audiences:
            html = render(state, seat)
            assert html.count("<section") == html.count("</section>") >= 1
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
        # a game's own board words the outcome; the generic board shows the view's fields
        html = render(state, seat)
        assert re.search(r"\b(wins?|game over|match over|winner)\b", html, re.IGNORECASE), seat
