"""The adaptive opponent model: how likely a seat's announced play is under the
game's heuristic rather than random play (yellow, where all play is announced), and
the search that models each seat accordingly."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from blackwhite.bots import decision_for, make_bot
from blackwhite.bots.heuristic import evidence_for
from blackwhite.bots.heuristic import yellow as policy
from blackwhite.bots.ismcts import _Search
from blackwhite.bots.match import play_match
from blackwhite.engine import State, make_game


def yellow_position(rounds: int, seed: int) -> State:
    state = make_game("yellow").new_initial_state()
    rng = random.Random(seed)
    while state.round < rounds:
        for seat in (0, 1, 2):
            legal = state.legal_actions(seat)
            state.apply(seat, legal[rng.randrange(len(legal))])
    return state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_choice_probabilities_match_the_policys_own_choices(seed: int) -> None:
    """The integrated-out noise gives the frequencies ``choose`` actually shows."""
    state = yellow_position(4 + 3 * seed, seed)
    view = state.view(1)
    legal = state.legal_actions(1)
    probs = policy.choice_probabilities(view, legal)
    assert abs(sum(probs) - 1.0) < 1e-9
    rng = random.Random(seed)
    draws = 6000
    counts = Counter(legal.index(policy.choose(view, legal, rng)) for _ in range(draws))
    for i, p in enumerate(probs):
        assert abs(counts[i] / draws - p) < 0.03, (legal[i], p, counts[i] / draws)


def played_match(seed: int) -> State:
    bots = [make_bot("heuristic"), make_bot("random"), make_bot("heuristic")]
    return play_match(make_game("yellow"), bots, seed)


def before_the_last_round(state: State) -> State:
    """The same history, stopped one round before the end, so seat 0 has a decision."""
    replay = make_game("yellow").new_initial_state()
    for seat, action in state.history[: 3 * (state.round - 1)]:  # type: ignore[attr-defined, misc]
        replay.apply(seat, action)
    return replay


@pytest.mark.parametrize("seed", [0, 1])
def test_evidence_tells_a_heuristic_seat_from_a_random_one(seed: int) -> None:
    state = played_match(seed)
    llr = policy.play_evidence(state.view(0), {})
    assert llr[0] == 0.0  # the viewer itself
    assert llr[1] < -3.0  # random seat: far likelier under random play
    assert llr[2] > 3.0  # heuristic seat


def test_evidence_is_the_same_with_a_warm_or_cold_cache() -> None:
    """The cache resumes replays; it never changes an answer (also across matches)."""
    memo: dict = {}
    a = played_match(3)
    b = played_match(4)
    policy.play_evidence(b.view(0), memo)
    # a cache already holding another match's rounds; later, a short game then its continuation
    cold = policy.play_evidence(a.view(0), {})
    warm = policy.play_evidence(a.view(0), memo)
    assert warm == pytest.approx(cold)
    again = policy.play_evidence(a.view(0), memo)
    assert again == warm
    later = yellow_position(9, seed=5)
    mid = yellow_position(5, seed=5)  # the same random stream: a prefix of ``later``
    mid_first = policy.play_evidence(mid.view(2), memo)
    assert policy.play_evidence(later.view(2), memo) == pytest.approx(policy.play_evidence(later.view(2), {}))
    assert mid_first == pytest.approx(policy.play_evidence(mid.view(2), {}))


UNREADABLE = [{"steps": ["dance"], "play": 3}, {"steps": [], "play": "3"}, {"steps": [], "play": 9}]


@pytest.mark.parametrize("bad", UNREADABLE)
def test_evidence_stops_at_an_unreadable_round(bad: dict[str, object]) -> None:
    """Submissions the replay cannot follow (a view built by hand) give what the rounds
    before them said, not an error."""
    state = played_match(5)
    view = state.view(0)
    rounds = view["submissions"]
    view["submissions"] = rounds[:3] + [[bad, *rounds[3][1:]]] + rounds[4:]
    before = dict(view, submissions=rounds[:3])
    assert policy.play_evidence(view, {}) == pytest.approx(policy.play_evidence(before, {}))
    assert policy.play_evidence(before, {}) != pytest.approx(policy.play_evidence(state.view(0), {}))


def test_evidence_reads_the_views_submissions_not_the_log() -> None:
    state = played_match(5)
    view = state.view(0)
    assert policy.play_evidence(dict(view, log=[]), {}) == pytest.approx(policy.play_evidence(view, {}))


def test_search_models_each_seat_by_its_evidence() -> None:
    replay = before_the_last_round(played_match(0))
    bot = make_bot("ismcts", iterations=4)
    search = _Search(bot, decision_for(replay, 0, random.Random(1)))  # type: ignore[arg-type]
    assert search.share is not None
    assert search.share[1] < 0.1 and search.share[2] > 0.9
    assert evidence_for("swapping") is None  # hidden play: no such evidence


def test_decision_does_not_depend_on_the_cache() -> None:
    state = yellow_position(12, seed=8)
    fresh = make_bot("ismcts", iterations=30).choose(decision_for(state, 0, random.Random(4)))
    warm = make_bot("ismcts", iterations=30)
    warm.choose(decision_for(yellow_position(20, seed=9), 0, random.Random(5)))  # fills its cache
    assert warm.choose(decision_for(state, 0, random.Random(4))) == fresh


def test_submissions_from_the_view_are_the_engines_legal_actions() -> None:
    """``submissions`` is what ``legal_actions`` lists, so a bot can list another seat's
    choices from the public view (boosts included: every seat starts with garnets)."""
    from blackwhite.games.yellow import submissions

    rng = random.Random(3)
    checked = 0
    while checked < 150:
        state = make_game("yellow", {"garnets": [9, 6, 3]}).new_initial_state()
        while not state.is_over():
            view = state.view(0)
            for seat in (0, 1, 2):
                legal = state.legal_actions(seat)
                held = set(view["inventories"][seat])
                assert submissions(held, view["yellow"][seat], view["garnets"][seat]) == legal
                checked += 1
            for seat in (0, 1, 2):
                legal = state.legal_actions(seat)
                state.apply(seat, legal[rng.randrange(len(legal))])


def test_respond_models_a_seat_by_its_share() -> None:
    """Share 1: the policy's own choice chances, per tile played; share 0: even over the
    seat's submissions; always a distribution."""
    state = yellow_position(9, seed=4)
    view = state.view(0)
    legal1 = state.legal_actions(1)
    probs = policy.choice_probabilities({**view, "seat": 1}, legal1)
    by_tile: Counter[int] = Counter()
    for action, p in zip(legal1, probs):
        by_tile[action[2]] += p  # type: ignore[assignment]
    assert dict(policy._modelled(view, 1, 1.0)) == pytest.approx(dict(by_tile))
    even = Counter(a[2] for a in legal1)
    assert dict(policy._modelled(view, 1, 0.0)) == pytest.approx({t: c / len(legal1) for t, c in even.items()})
    mixed = policy._modelled(view, 1, 0.3)
    assert sum(p for _, p in mixed) == pytest.approx(1.0)


def test_search_answers_its_model_by_default() -> None:
    """With the other seats modelled from their play, the search's default answer (the
    champion it keeps unless beaten) is ``respond``'s against those shares."""
    replay = before_the_last_round(played_match(0))
    decision = decision_for(replay, 0, random.Random(1))
    search = _Search(make_bot("ismcts", iterations=4), decision)  # type: ignore[arg-type]
    assert search.share is not None
    first_draw = random.Random(1).random()  # the default draws its own rng first
    expected = policy.respond(decision.view, decision.legal, random.Random(first_draw), search.share)
    assert search.default == expected
