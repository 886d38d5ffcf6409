"""How the analysis models the other seats from their play (domino and yellow).

A seat that has watched the others play at random should be judged against random
players, not against the heuristic; a seat facing heuristic players against the
heuristic.  The shares come from the analysed seat's information only (the secrecy
twins check that in tests/test_analysis_twins.py).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from blackwhite.analysis.core import (
    Point,
    Settings,
    _replayed_evidence,
    decision_points,
    eval_for,
    opponent_shares,
    rollout,
)
from blackwhite.bots import make_bot
from blackwhite.bots.heuristic import policy_for, seen_for
from blackwhite.bots.heuristic.domino import seen as domino_seen
from blackwhite.bots.heuristic.domino import seen_in_view
from blackwhite.bots.match import play_match
from blackwhite.engine import make_game, to_record

SETTINGS = Settings(worlds=2, candidates=3, search=0, seed=3)


def played(game: str, bots: list[str], seed: int, options: dict[str, Any] | None = None) -> list[Point]:
    final = play_match(make_game(game, options or {}), [make_bot(b) for b in bots], seed=seed)
    points, _, _ = decision_points(to_record(final))
    return points


@pytest.mark.parametrize("game,bots", [("domino", ["heuristic", "random"]), ("yellow", ["heuristic", "random", "random"])])
def test_random_players_are_read_as_random_and_heuristic_ones_as_heuristic(game: str, bots: list[str]) -> None:
    points = played(game, bots, seed=7)
    mine = [p for p in points if p.seat == 0]
    shares = opponent_shares(points, mine, SETTINGS)
    assert len(shares) == len(mine)
    first = shares[0]
    assert first is not None and first[0] == 1.0
    assert all(x == 0.5 for x in first[1:]), "before any play is seen the odds are even"
    late = shares[len(mine) // 2]
    assert late is not None and all(x < 0.1 for x in late[1:]), late
    # the random seat reads the heuristic as the heuristic
    theirs = [p for p in points if p.seat == 1]
    late = opponent_shares(points, theirs, SETTINGS)[len(theirs) // 2]
    assert late is not None and late[0] > 0.9 and late[1] == 1.0, late


def test_mirror_play_is_read_as_heuristic() -> None:
    points = played("domino", ["heuristic", "heuristic"], seed=2)
    mine = [p for p in points if p.seat == 1]
    late = opponent_shares(points, mine, SETTINGS)[-1]
    assert late is not None and late[0] > 0.9


def test_games_without_a_model_get_none() -> None:
    points = played("swapping", ["random", "random"], seed=1)
    assert not eval_for("swapping").adapt
    assert opponent_shares(points, points[:3], SETTINGS) == [None, None, None]
    assert opponent_shares(points, [], SETTINGS) == []


def test_a_placement_is_seen_as_cells_shown_number_and_hidden_colour() -> None:
    # a 2 on cell 5 hidden, a 3 shown on cell 9: the other seat sees cells, the 3 and "black"
    assert domino_seen(("place", 2, 3, 5, 9, 5)) == (5, 9, 5, 3, 0)
    # the same domino the other way round looks the same
    assert domino_seen(("place", 3, 2, 9, 5, 5)) == (5, 9, 5, 3, 0)
    # another hidden number of the same colour looks the same, another colour does not
    assert domino_seen(("place", 4, 3, 5, 9, 5)) == domino_seen(("place", 2, 3, 5, 9, 5))
    assert domino_seen(("place", 1, 3, 5, 9, 5)) != domino_seen(("place", 2, 3, 5, 9, 5))
    assert domino_seen(("go", "second")) == ("go", "second")


def test_an_action_looks_as_the_other_seats_view_shows_it() -> None:
    """The model reads the action actually played from the watching seat's view
    (``seen_in_view``) and weighs it against how other actions would look (``seen``):
    the two agree on every action of seeded matches, the last ones (whose hidden
    numbers the end of the match shows) included."""
    for seed in range(3):
        state = make_game("domino", {"dmo": seed % 2}).new_initial_state()
        rng = random.Random(seed)
        while not state.is_over():
            seat = state.to_move()[0]
            action = rng.choice(state.legal_actions(seat))
            state.apply(seat, action)
            assert seen_in_view(state.view(1 - seat)) == domino_seen(action), (seed, action)
        assert len(state.view(0)["placements"]) > 10


def test_a_seat_played_at_random_in_the_rollouts_changes_the_value() -> None:
    """The model is used: from the same position and seeds, the analysed seat does
    clearly better when the other seat is played at random than by the heuristic."""
    state = make_game("domino", {}).new_initial_state()
    state.apply(0, state.parse_action(0, "go first"))
    rule = eval_for("domino")
    runs = 20
    heuristic = sum(rollout(state.clone(track=False), 0, random.Random(k), rule) for k in range(runs)) / runs
    at_random = sum(rollout(state.clone(track=False), 0, random.Random(k), rule, {1}) for k in range(runs)) / runs
    assert at_random > heuristic + 0.2, (heuristic, at_random)


def test_domino_evidence_is_the_same_in_any_world_the_seat_cannot_tell_apart() -> None:
    """Twins of each earlier position: the real state before the other seat's placement,
    and a state with that seat's hidden numbers redrawn (by the engine's ``resample``,
    which keeps everything the analysed seat knows).  The evidence read from the
    placement must not change: it may reach the hidden numbers only by drawing worlds."""
    points = played("domino", ["random", "heuristic"], seed=4)
    policy = policy_for("domino")
    seen = seen_for("domino")
    assert policy is not None and seen is not None
    theirs = [p for p in points if p.seat == 1]
    assert len(theirs) >= 8
    for i, point in enumerate(theirs):
        twin = point.before.resample(0, random.Random(f"twin/{i}"))
        other = Point(point.event, point.seat, point.action, twin, point.ordinal)
        assert _replayed_evidence(point, 0, SETTINGS, policy, seen) == _replayed_evidence(
            other, 0, SETTINGS, policy, seen
        ), point.event
