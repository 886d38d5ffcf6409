"""Yellow's fast paths against the plain rules, at every step of random matches.

The engine remembers each offer (``_offer``), draws a random action from it without a
copy, looks a round's scoring up in a table and spells out the core's simultaneous
step; the view keeps past rounds' submissions as it goes.  Here every one of those is
compared with the rules written out plainly, as the engine first did them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from blackwhite.engine import make_game
from blackwhite.engine.core import Action
from blackwhite.games.yellow import BOOST_COST, VALUES, YellowState, outcome, submissions

OPTIONS: list[dict[str, Any]] = [
    {},
    {"garnets": [9, 6, 3]},
    {"garnets": [45, 0, 12], "target": 3},
    {"rounds": 4},
]


def plain_legal(state: YellowState, seat: int) -> list[Action]:
    if seat not in state.to_move():
        return []
    inv = state.inv[seat]
    return submissions({n for n in range(VALUES) if inv[n]}, state.yellow[seat], state.garnets[seat])


def plain_round(before: YellowState, actions: dict[int, Action]) -> dict[str, Any]:
    """Points, yellow, garnets, inventories and champion after one round, by the rules."""
    inv = [row[:] for row in before.inv]
    yellow, garnets, points = before.yellow[:], before.garnets[:], before.points[:]
    plays = [actions[s][2] for s in range(3)]
    for seat in range(3):
        for step in actions[seat][1]:
            if step == "b":
                garnets[seat] -= BOOST_COST
                yellow[seat] = (yellow[seat] + 1) % VALUES
            else:
                inv[seat][yellow[seat]] += 1
                yellow[seat] = 0
    won = [outcome(plays[s], plays[(s + 1) % 3], plays[(s + 2) % 3]) for s in range(3)]
    for seat in range(3):
        points[seat] += won[seat][0]
    for seat in sorted(range(3), key=lambda s: -plays[s]):
        yellow[seat] = (yellow[seat] + won[seat][1]) % VALUES
    for seat in range(3):
        if plays[seat]:
            inv[seat][plays[seat]] -= 1
        if not any(inv[seat][1:]):
            inv[seat] = [1] * VALUES
    champion = next((s for s in range(3) if points[s] >= before.target), None)
    return {"inv": inv, "yellow": yellow, "garnets": garnets, "points": points, "champion": champion}


def announced(before: YellowState, actions: dict[int, Action]) -> list[str]:
    """The round's announcements of points and yellow, in the rules' order: points by
    seat, then yellow from the higher play down."""
    plays = [actions[s][2] for s in range(3)]
    won = [outcome(plays[s], plays[(s + 1) % 3], plays[(s + 2) % 3]) for s in range(3)]
    points = before.points[:]
    out = []
    for seat in range(3):
        if won[seat][0]:
            points[seat] += 1
            out.append(f"P{seat + 1} scores a point ({points[seat]}).")
    return out + [f"P{seat + 1}'s yellow goes up by {won[seat][1]}"
                  for seat in sorted(range(3), key=lambda s: -plays[s]) if won[seat][1]]


def plain_submissions(state: YellowState) -> list[list[dict[str, Any]]]:
    words = {"b": "boost", "x": "exchange"}
    return [[{"steps": [words[c] for c in steps], "play": play} for _, steps, play in subs]
            for subs in state.submissions]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("fast", [True, False])
def test_fast_paths_follow_the_plain_rules(options: dict[str, Any], fast: bool) -> None:
    game = make_game("yellow", options)
    rounds = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_initial_state()
        assert isinstance(state, YellowState)
        state.track = not fast
        while not state.is_over():
            before = state.clone()
            assert isinstance(before, YellowState)
            actions: dict[int, Action] = {}
            for seat in rng.sample(range(3), 3):  # submissions come in any order
                for other in (-1, 0, 1, 2, 3):
                    assert state.legal_actions(other) == plain_legal(state, other)
                legal = state.legal_actions(seat)
                mine, theirs = random.Random(rng.random()), random.Random()
                theirs.setstate(mine.getstate())
                action = state.random_action(seat, mine)
                assert action == legal[theirs.randrange(len(legal))]
                assert mine.getstate() == theirs.getstate()
                actions[seat] = action
                if fast:
                    state.apply_fast(seat, action)
                else:
                    state.apply(seat, action)
            after = plain_round(before, actions)
            assert {k: getattr(state, k) for k in after} == after
            assert state.round == before.round + 1 and not state.pending
            if not fast:
                said = [n.text for n in state.log[len(before.log):]
                        if "scores a point" in n.text or "yellow goes up" in n.text]
                expected = announced(before, actions)
                assert len(said) == len(expected) and all(t.startswith(e) for t, e in zip(said, expected))
            assert state._view(None)["submissions"] == plain_submissions(state)
            rounds += 1
        for seat in (0, 1, 2):
            assert state.legal_actions(seat) == []
            with pytest.raises(ValueError):
                state.random_action(seat, rng)
    assert rounds > 40


def test_views_of_a_state_and_its_clones_are_independent() -> None:
    """The submissions a view lists are its own: changing one view, or playing on a
    clone, leaves the state's next view as it was."""
    rng = random.Random(5)
    state = make_game("yellow").new_initial_state()
    for _ in range(3 * 6):
        seat = state.to_move()[0]
        state.apply(seat, state.random_action(seat, rng))
    first = state.view(0)
    expected = plain_submissions(state)
    first["submissions"][0][0]["steps"].append("boost")
    first["submissions"][1][2]["play"] = 99
    first["submissions"][2].clear()
    clone = state.clone()
    for _ in range(3 * 4):
        seat = clone.to_move()[0]
        clone.apply(seat, clone.random_action(seat, rng))
    assert state.view(0)["submissions"] == expected
    assert clone.view(1)["submissions"][:6] == expected
