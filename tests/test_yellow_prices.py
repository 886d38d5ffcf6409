"""The yellow heuristic's prices are the plain double loop over the other two seats'
plays, to the last bit: ``prices`` sums the scoring rule by what it gives (a point,
a gap) rather than cell by cell, and every choice of the bot and every draw of its
rng must stay what it was (the analysis' reports and the seeded matches depend on it)."""

from __future__ import annotations

import random

import pytest

from blackwhite.bots.heuristic import yellow as policy
from blackwhite.engine import State, make_game
from blackwhite.engine.core import Action
from blackwhite.games.yellow import VALUES, WIN_POINTS, outcome


def plain_worth(view: dict, me: int, action: Action, models: list[policy.Model]) -> float:
    """The price as the policy first wrote it: every pair of the others' plays in turn."""
    _, steps, n = action
    y = view["yellow"][me]
    banked = 0
    for step in steps:
        if step == "b":
            y = (y + 1) % VALUES
        else:
            banked += y
            y = 0
    points = view["points"][me]
    target = view.get("target", WIN_POINTS)
    point_worth = 1.0 + (2.0 if points + 1 >= target else 0.0)
    now = 0.0
    yellow_gain = 0.0
    for a, pa in models[0]:
        for b, pb in models[1]:
            won, gain = outcome(n, a, b)
            p = pa * pb
            now += p * won
            yellow_gain += p * (((y + gain) % VALUES) - y)
    value = now * point_worth - policy._usual(n) + policy.YELLOW * yellow_gain
    if n == 0:
        value -= policy.TEMPO
    value -= policy.EXTRA * steps.count("x")
    if banked:
        value += 0.05 if (banked >= policy.BANK_AT or (n == banked and now > 0.5)) else -0.05
    value -= 0.02 * steps.count("b")
    return value


def plain_model(view: dict, seat: int) -> policy.Model:
    """An opponent's model as the policy first wrote it, one seat at a time."""
    mine = policy._reachable(view, seat)
    rival_top = max(max(policy._reachable(view, s)) for s in range(3) if s != seat)
    sure = sorted(t for t in mine if t > rival_top)
    if sure:
        return [(sure[0], 1.0)]
    nonzero = sorted(t for t in mine if t > 0)
    if not nonzero:
        return [(0, 1.0)]
    share = (1 - policy.ZERO_SHARE) / len(nonzero)
    return [(0, policy.ZERO_SHARE)] + [(t, share) for t in nonzero]


def positions(count: int, seed: int, options: dict | None = None) -> list[State]:
    """States met in matches of random and heuristic seats (each seat one or the other
    per match), every round of them."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        state = make_game("yellow", options or {}).new_initial_state()
        heuristic = [rng.random() < 0.5 for _ in range(3)]
        while not state.is_over() and len(out) < count:
            out.append(state.clone(track=False))
            for seat in (0, 1, 2):
                legal = state.legal_actions(seat)
                if heuristic[seat] and len(legal) > 1:
                    action = policy.choose(state.view(seat), legal, rng)
                else:
                    action = legal[rng.randrange(len(legal))]
                state.apply_fast(seat, action)
    return out


@pytest.mark.parametrize("options", [{}, {"garnets": [9, 6, 3]}, {"garnets": [12, 0, 6], "target": 3}])
def test_prices_and_models_are_the_plain_loops(options: dict) -> None:
    checked = 0
    for state in positions(400, seed=len(options), options=options):
        for seat in (0, 1, 2):
            view = state.view(seat)
            legal = state.legal_actions(seat)
            models = [plain_model(view, s) for s in range(3) if s != seat]
            assert policy._models(view) == models
            plain = [plain_worth(view, seat, a, models) for a in legal]
            assert policy.prices(view, legal, models) == plain
            # the policy's own (shared) models: answers remembered, asked twice
            assert policy.prices(view, legal, policy._models(view)) == plain
            assert policy.prices(view, legal, policy._models(view)) == plain
            checked += len(legal)
    assert checked > 4000


def test_prices_against_any_models() -> None:
    """Models as a search builds them (``respond``: any chances, zero ones too, any
    tiles, in any order), against the plain loop, bit for bit."""
    rng = random.Random(3)
    states = positions(60, seed=9, options={"garnets": [9, 9, 9]})
    for trial in range(2000):
        state = states[trial % len(states)]
        seat = trial % 3
        view = state.view(seat)
        legal = state.legal_actions(seat)
        models = []
        for _ in range(2):
            tiles = rng.sample(range(VALUES), rng.randint(1, VALUES))
            weights = [rng.choice([0.0, rng.random(), 1 / 3]) for _ in tiles]
            models.append(list(zip(tiles, weights)))
        assert policy.prices(view, legal, models) == [plain_worth(view, seat, a, models) for a in legal]


def test_choose_draws_as_before() -> None:
    """One draw of the rng per submission, in order, added to the plain price."""
    for k, state in enumerate(positions(200, seed=4)):
        seat = k % 3
        view = state.view(seat)
        legal = state.legal_actions(seat)
        models = [plain_model(view, s) for s in range(3) if s != seat]
        rng = random.Random(k)
        values = [plain_worth(view, seat, a, models) + policy.NOISE * rng.random() for a in legal]
        expected = legal[max(range(len(legal)), key=lambda i: (values[i], -i))]
        mine = random.Random(k)
        assert policy.choose(view, legal, mine) == expected
        assert mine.getstate() == rng.getstate()
