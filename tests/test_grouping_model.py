"""The grouping bots' exact tile chances, their model of the other seat, and the
search settings built for them (paired worlds, quiet cuts, inference from raises)."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from blackwhite.bots import decision_for, make_bot
from blackwhite.bots.heuristic import explain_for
from blackwhite.bots.heuristic import grouping as policy
from blackwhite.bots.ismcts import _Search
from blackwhite.bots.match import play_match
from blackwhite.engine import State, make_game
from blackwhite.bots.inference.grouping import deal_tile_chances, entries_constraints, tile_chances
from blackwhite.games.grouping import ALL, TILES
from blackwhite.games.grouping_sampler import sample_deal, sample_grouping

GROUPS = ((7, 8), (1, 3, 5), (0, 2, 4, 6))
#: colours of the first four positions known (W, W, B, B), one number known (position 2 is 5)
CONS = (1 << 1 | 1 << 3 | 1 << 5 | 1 << 7, 1 << 1 | 1 << 3 | 1 << 5 | 1 << 7, 1 << 5,
        1 << 0 | 1 << 2 | 1 << 4 | 1 << 6 | 1 << 8, 1 << 0 | 1 << 2 | 1 << 4 | 1 << 6 | 1 << 8,
        ALL, ALL, ALL, ALL)


@pytest.mark.parametrize("p", [0, 3, 5, 8])
def test_tile_chances_are_the_sampled_frequencies(p: int) -> None:
    chances = tile_chances(GROUPS, CONS, p)
    assert abs(sum(chances) - 1.0) < 1e-9
    rng = random.Random(p)
    draws = 6000
    counts = Counter(sample_deal(GROUPS, CONS, rng)[p] for _ in range(draws))
    for t in range(TILES):
        assert abs(counts[t] / draws - chances[t]) < 0.025, (t, chances[t], counts[t] / draws)


def test_unknown_groups_chances_are_the_sampled_frequencies() -> None:
    facts = (CONS,)
    chances = deal_tile_chances(facts, 0, 4)
    rng = random.Random(3)
    draws = 6000
    counts = Counter(sample_deal(sample_grouping(facts, rng), facts[0], rng)[4] for _ in range(draws))
    for t in range(TILES):
        assert abs(counts[t] / draws - chances[t]) < 0.025, (t, chances[t], counts[t] / draws)
    assert chances[5] == 0.0  # position 2 holds the 5: no other position can


def walk(state: State, bots: list[Any], rng: random.Random) -> Iterator[int]:
    """Play ``state`` on with ``bots`` (chance by ``rng``), yielding the seat about to
    move before each move; the caller may stop at any point."""
    while not state.is_terminal():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = state.to_move()[0]
        yield seat
        state.apply(seat, bots[seat].choose(decision_for(state, seat, rng)))


def betting_position(seed: int, game: str = "grouping") -> State:
    """A state where seat to act bets, reached by heuristic play."""
    state = make_game(game).new_initial_state()
    bot = make_bot("heuristic")
    for steps, seat in enumerate(walk(state, [bot, bot], random.Random(seed))):
        view = state.view(seat)
        if view["phase"] == "bet" and view["starter"] is not None and steps > 10 + seed:
            return state
    raise AssertionError("the match ended before a betting position")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_outcome_chances_agree_with_sampling(seed: int) -> None:
    state = betting_position(seed)
    seat = state.to_move()[0]
    view = state.view(seat)
    win, tie, lose = policy.outcome_chances(view)
    assert abs(win + tie + lose - 1.0) < 1e-9
    d, p = view["deal"] - 1, view["round"] - 1
    groups = tuple(tuple(view["my_groups"][g]) for g in "ABC")
    mine = entries_constraints(view["deals"][d]["mine"])
    facts = tuple(entries_constraints(both["theirs"]) for both in view["deals"])
    rng = random.Random(seed)
    draws, wins, ties = 4000, 0, 0
    for _ in range(draws):
        a = view["my_tile"]["tile"]
        if a is None:
            a = sample_deal(groups, mine, rng)[p]  # type: ignore[arg-type]
        b = view["their_tile"]["tile"]
        if b is None:
            b = sample_deal(sample_grouping(facts, rng), facts[d], rng)[p]
        wins += a > b
        ties += a == b
    assert abs(wins / draws - win) < 0.03 and abs(ties / draws - tie) < 0.03


def test_explain_weighs_a_raise_by_the_raisers_strength() -> None:
    view = betting_position(4).view(0)
    view["phase"], view["round"] = "bet", view["round"] or 1
    me = view["seat"]
    view["bets"] = [1, 1]
    assert policy.explain(view) == 1.0  # nothing raised: nothing to explain
    view["bets"][me] = 6
    pwin, ptie, _ = policy.outcome_chances(view)
    equity = pwin + ptie / 2
    expected = 1.0 if equity >= 0.72 else policy.BLUFF if equity > policy.BLUFF_FROM else policy.WHIM
    assert policy.explain(view) == pytest.approx(expected)
    assert policy.explain(view, 0.0) == pytest.approx(policy.RANDOM_RAISE)
    assert explain_for("grouping-final") is policy.explain
    assert explain_for("swapping") is None


@pytest.mark.parametrize("seed", [0, 1])
def test_evidence_tells_a_heuristic_seat_from_a_random_one(seed: int) -> None:
    heuristic = play_match(make_game("grouping"), [make_bot("heuristic"), make_bot("heuristic")], seed)
    random_seat = play_match(make_game("grouping"), [make_bot("heuristic"), make_bot("random")], seed)
    assert policy.play_evidence(heuristic.view(0))[1] > 5.0
    assert policy.play_evidence(random_seat.view(0))[1] < policy.play_evidence(heuristic.view(0))[1]
    assert policy.play_evidence(heuristic.view(1))[1] == 0.0  # the viewer itself


@pytest.mark.parametrize("game", ["grouping", "grouping-final"])
def test_each_logged_round_names_who_started_it(game: str) -> None:
    """The evidence reads each round's starter from the view's round log: checked
    against the starter the view shows when each round's betting begins."""
    state = make_game(game).new_initial_state()
    began: dict[tuple[int, int, int], int] = {}
    for seat in walk(state, [make_bot("heuristic"), make_bot("random")], random.Random(7)):
        view = state.view(seat)
        if view["phase"] == "bet" and view["starter"] is not None and not any(view["acted"]):
            began[(view["set"], view["deal"], view["round"])] = view["starter"]
    rounds = state.view(None)["rounds"]
    betting = [r for r in rounds if r["how"] != "sudden"]
    assert len(betting) > 5 and len(began) == len(betting)
    for r in betting:
        assert r["starter"] == began[(r["set"], r["deal"], r["round"])]


def test_a_betting_round_is_not_quiet() -> None:
    state = betting_position(1)
    assert state.quiet()
    seat = state.to_move()[0]
    raises = [a for a in state.legal_actions(seat) if a[0] == "raise"]
    state.apply(seat, raises[0])
    assert not state.quiet()


def test_paired_iterations_share_one_world() -> None:
    state = betting_position(2)
    seat = state.to_move()[0]
    bot = make_bot("ismcts", iterations=10, paired=True)
    search = _Search(bot, decision_for(state, seat, random.Random(5)))  # type: ignore[arg-type]
    opp = 1 - seat
    champion_world, _ = search._world()
    search.root.visits = 1  # the challenger's turn
    challenger_world, _ = search._world()
    assert champion_world._view(opp) == challenger_world._view(opp)
    search.root.visits = 2
    next_world, _ = search._world()
    assert next_world is not champion_world


def test_search_keeps_the_heuristic_until_the_other_seat_looks_like_it() -> None:
    state = betting_position(0)
    seat = state.to_move()[0]
    early = _Search(make_bot("ismcts", iterations=4), decision_for(state, seat, random.Random(1)))  # type: ignore[arg-type]
    llr = policy.play_evidence(state.view(seat))
    assert (early.trust == math.inf) == (llr[1 - seat] < 5.0)
    late_state = play_match(make_game("grouping"), [make_bot("heuristic"), make_bot("heuristic")], 3)
    assert policy.play_evidence(late_state.view(0))[1] > 5.0


def test_inferring_search_plays_legal_and_repeatable_moves() -> None:
    state = betting_position(3, "grouping-final")
    seat = state.to_move()[0]
    legal = state.legal_actions(seat)
    picks = {
        make_bot("ismcts", iterations=60).choose(decision_for(state, seat, random.Random(9))) for _ in range(2)
    }
    assert len(picks) == 1 and picks <= set(legal)
