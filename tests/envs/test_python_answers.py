"""The OpenSpiel state answers some questions in Python (legal actions, the kind of
node, the strings) so that a Python caller does not cross into C++ and back; here
each answer is checked against OpenSpiel's own C++ path (``pyspiel.State``'s method
called directly, which goes through ``current_player``, ``_legal_actions`` and the
observers) at every step of random matches, chance nodes and the end included.
And a solver's second walk of a tree, with new states, finds the strings of the
first (remembered per path of codes) equal to strings worked out afresh."""

from __future__ import annotations

import random

import pyspiel
import pytest

from blackwhite.envs import openspiel
from blackwhite.envs.openspiel import load

from .conftest import GAMES, small_options


def _same_answers(state: pyspiel.State, players: int) -> None:
    base = pyspiel.State
    assert state.legal_actions() == base.legal_actions(state)
    assert state.is_chance_node() == base.is_chance_node(state)
    assert state.is_player_node() == base.is_player_node(state)
    assert state.is_simultaneous_node() == base.is_simultaneous_node(state)
    for p in range(players):
        assert state.legal_actions(p) == base.legal_actions(state, p)
        assert state.information_state_string(p) == base.information_state_string(state, p)
        assert state.observation_string(p) == base.observation_string(state, p)
    if state.is_player_node():
        assert state.information_state_string() == base.information_state_string(state)
        assert state.observation_string() == base.observation_string(state)
    for bad in (-1, players):
        for name in ("information_state_string", "observation_string"):
            with pytest.raises(pyspiel.SpielError):
                getattr(state, name)(bad)
    if state.is_player_node():
        with pytest.raises(pyspiel.SpielError):
            state.legal_actions(-1)


@pytest.mark.parametrize("game_id", GAMES)
def test_python_answers_are_openspiels(game_id: str) -> None:
    game = load(game_id, **small_options(game_id))
    rng = random.Random(5)
    for _ in range(2):
        state = game.new_initial_state()
        while True:
            _same_answers(state, game.num_players())
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


def test_a_second_walk_finds_the_strings_of_the_first() -> None:
    game = load("swapping", tiles=3, max_ties=1)
    setup = game.setup

    def walk() -> list[str]:
        out = []
        stack = [game.new_initial_state()]
        while stack:
            state = stack.pop()
            if state.is_terminal():
                continue
            if state.is_player_node():
                p = state.current_player()
                out.append(state.information_state_string(p))
                out.append(state.information_state_string(1 - p))
            stack.extend(state.child(a) for a in state.legal_actions()[:3])
        return out

    setup.points.clear()
    first = walk()
    assert setup.points, "the walk's points are remembered"
    second = walk()
    setup.points.clear()
    limit = openspiel.POINTS_KEPT
    try:
        openspiel.POINTS_KEPT = 0  # every point forgotten at once: worked out afresh
        fresh = walk()
    finally:
        openspiel.POINTS_KEPT = limit
    assert first == second == fresh
    assert len(first) > 100
