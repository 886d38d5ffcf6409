"""The grouping search's fast path: the heuristic read from the state
(``choose_in_state``) chooses exactly as the heuristic reads the view, in real
positions and in the worlds a search draws from them."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from blackwhite.bots import decision_for, make_bot
from blackwhite.bots.heuristic.grouping import choose, choose_in_state, explain, explain_in_state
from blackwhite.bots.ismcts import _Search, tuning_for
from blackwhite.engine import State

from .search_positions import mixed_positions

GAMES = [
    ("grouping", {}),
    ("grouping-final", {}),
    ("grouping-final", {"items": {"0": ["peek", "order"], "1": ["bonus", "peek"]}}),
    ("grouping-final", {"items": {"0": ["order"], "1": ["order", "peek"]}, "announce_order": True}),
    ("grouping", {"see_own_tile": True, "max_raise": 4}),
]


def _positions(gid: str, options: dict[str, Any], matches: int, seed: int) -> list[State]:
    """Positions where a seat is awaited, from matches of the heuristic mixed with random moves."""
    return mixed_positions(gid, options, matches, seed, random_share=0.3)


@pytest.mark.parametrize("gid,options", GAMES)
def test_the_state_heuristic_chooses_as_the_view_heuristic(gid: str, options: dict[str, Any]) -> None:
    checked = bets = 0
    rng = random.Random(7)
    for state in _positions(gid, options, 6, seed=len(options) * 100):
        seat = state.to_move()[0]
        # the real position and a world drawn from each seat's knowledge, as a search plays them
        worlds = [state.clone(track=False), state.resample(seat, rng), state.resample(1 - seat, rng)]
        for world in worlds:
            world.pending = {}
            for who in world.to_move():
                legal = world.legal_actions(who)
                view: Any = dict(world._view(who), game=gid, seat=who)
                for k in range(3):
                    a = choose(view, legal, random.Random(k))
                    b = choose_in_state(world, who, legal, random.Random(k))
                    assert a == b, (gid, world.set_no, who, a, b)
                    checked += 1
                    bets += ("call",) in legal
    assert checked > 500 and bets > 300


@pytest.mark.parametrize("gid,options", GAMES)
def test_the_state_explains_as_the_search_view_does(gid: str, options: dict[str, Any]) -> None:
    """``explain_in_state`` answers as ``explain`` of the view a search gives a policy
    (``ismcts._Search._policy_view``: the game's part, ``game``, ``seat`` and ``options``)."""
    raised = 0
    rng = random.Random(3)
    for state in _positions(gid, options, 5, seed=len(options) * 100 + 50):
        seat = state.to_move()[0]
        for world in (state.clone(track=False), state.resample(seat, rng), state.resample(1 - seat, rng)):
            for who in (0, 1):
                view: Any = dict(world._view(who), game=gid, seat=who, options=world.game.options)
                for share in (1.0, 0.7, 0.02):
                    assert explain(view, share) == explain_in_state(world, who, share)
                raised += explain(view) < 1.0
    assert raised > 20


@pytest.mark.parametrize("gid,options", [("grouping", {"max_raise": 3, "rounds": 4}), ("grouping-final", {"max_raise": 2})])
def test_a_small_variant_is_explained_with_its_own_raise_cap(gid: str, options: dict[str, Any]) -> None:
    """Inside the search a raise is weighed against the match's raise cap, as outside
    it: ``explain`` of the search's policy view and ``explain_in_state`` answer as
    ``explain`` of the seat's full view (a random seat raises with the share of raises
    among its betting actions, fewer under a small cap)."""
    raised = 0
    rng = random.Random(5)
    for state in _positions(gid, options, 4, seed=70)[::3]:
        seat = state.to_move()[0]
        if len(state.legal_actions(seat)) < 2:
            continue
        search = _Search(make_bot("ismcts", iterations=1), decision_for(state, seat, random.Random(1)))  # type: ignore[arg-type]
        for world in (state.clone(track=False), state.resample(seat, rng)):
            for who in (0, 1):
                full: Any = world.view(who)
                light: Any = search._policy_view(world, who)
                for share in (0.7, 0.02):
                    expected = explain(full, share)
                    assert explain(light, share) == expected
                    assert explain_in_state(world, who, share) == expected
                raised += explain(full, 0.02) < 1.0
    assert raised > 5


@pytest.mark.parametrize("gid", ["grouping", "grouping-final"])
def test_the_search_reads_the_heuristic_from_the_state(gid: str) -> None:
    assert tuning_for(gid).state_policy == "blackwhite.bots.heuristic.grouping:choose_in_state"
    assert tuning_for(gid).state_explain == "blackwhite.bots.heuristic.grouping:explain_in_state"


@pytest.mark.parametrize("worlds", [32, 0])
@pytest.mark.parametrize("gid,options", GAMES[:3])
def test_the_root_only_iteration_is_the_full_one(gid: str, options: dict[str, Any], worlds: int) -> None:
    """``_iterate_root`` (the grouping games' search: depth 1, the other seat modelled)
    draws and counts exactly as the general ``iterate``, also where it takes the value
    after the root from what it remembers of a kept world (``after``: 160 iterations go
    round the pool of 32 worlds twice).  With ``worlds=0`` no world is kept: each is
    drawn, played by the champion and its challenger, and let go, so a new world may
    take a freed one's ``id``; nothing remembered of a world let go may be read for the
    next."""
    compared = 0
    remembered = {"played": 0, "value": 0}
    for k, state in enumerate(_positions(gid, options, 2, seed=300)[::7]):
        seat = state.to_move()[0]
        if len(state.legal_actions(seat)) < 2:
            continue
        runs = []
        for general in (False, True):
            bot = make_bot("ismcts", iterations=160, worlds=worlds)
            search = _Search(bot, decision_for(state, seat, random.Random(k)))  # type: ignore[arg-type]
            assert search.step == search._iterate_root
            step = search.iterate if general else search.step
            for _ in range(160):
                step()
            runs.append((search.root.actions, search.root.n, search.root.w, search.pair_sum, search.best()))
            if not general:
                for known in search.after.values():
                    remembered["played" if known == math.inf else "value"] += 1
        assert runs[0] == runs[1]
        compared += 1
    assert compared >= 5
    if worlds:
        assert remembered["played"] > 20 and remembered["value"] > 20
    else:
        assert remembered == {"played": 0, "value": 0}
