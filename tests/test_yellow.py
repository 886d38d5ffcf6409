"""Hand-worked scenarios for yellow (RULES.md section 3)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blackwhite.engine import (
    ActionSyntaxError,
    IllegalActionError,
    OptionError,
    load,
    make_game,
    to_record,
)
from blackwhite.engine.play import play_random
from blackwhite.games.yellow import YellowState



def new(**options: object) -> YellowState:
    state = make_game("yellow", options).new_initial_state()
    assert isinstance(state, YellowState)
    return state


def rnd(s: YellowState, a: str, b: str, c: str) -> None:
    """One round: three submissions."""
    for seat, text in enumerate((a, b, c)):
        s.apply_text(seat, text)


def test_all_different_high_scores_middle_and_low_gain_yellow() -> None:
    s = new()
    rnd(s, "play 2", "play 7", "play 5")
    assert s.points == [0, 1, 0]
    assert s.yellow == [3, 0, 2]  # low: m-l = 5-2; middle: h-m = 7-5
    assert s.inv[1][7] == 0 and s.inv[0][2] == 0 and s.inv[2][5] == 0  # discarded


def test_tie_for_high_only_low_gains() -> None:
    s = new()
    rnd(s, "play 6", "play 6", "play 1")
    assert s.points == [0, 0, 0] and s.yellow == [0, 0, 5]


def test_tie_for_low_only_high_scores() -> None:
    s = new()
    rnd(s, "play 2", "play 8", "play 2")
    assert s.points == [0, 1, 0] and s.yellow == [0, 0, 0]


def test_all_equal_nothing_happens_and_zero_is_kept() -> None:
    s = new()
    rnd(s, "play 0", "play 0", "play 0")
    assert s.points == [0, 0, 0] and s.yellow == [0, 0, 0]
    assert all(row[0] == 1 for row in s.inv)  # a played 0 is not discarded
    rnd(s, "play 4", "play 4", "play 4")
    assert s.points == [0, 0, 0] and all(row[4] == 0 for row in s.inv)


def test_yellow_wraps_mod_9() -> None:
    s = new()
    rnd(s, "play 0", "play 8", "play 7")  # middle P3: +1, low P1: +7
    assert s.yellow == [7, 0, 1]
    rnd(s, "play 1", "play 6", "play 5")  # low P1: +4 -> 11 mod 9 = 2
    assert s.yellow == [2, 0, 2]


def test_exchange_adds_a_black_of_value_y_and_can_be_played_at_once() -> None:
    s = new()
    rnd(s, "play 0", "play 8", "play 3")  # P1 low: +3
    assert s.yellow[0] == 3
    rnd(s, "exchange play 3", "play 1", "play 2")
    assert s.yellow[0] == 0 and s.points[0] == 1
    assert s.inv[0][3] == 1  # it had 3, gained one, played one
    with pytest.raises(IllegalActionError, match="exchange needs a yellow number above 0"):
        s.apply_text(0, "exchange play 3")


def test_boost_costs_three_garnets_and_wraps() -> None:
    s = new(garnets=[9, 3, 0])
    s.yellow[0] = 8
    s.apply_text(0, "boost boost exchange play 1")  # Y 8 -> 0 -> 1, exchange adds a 1
    with pytest.raises(IllegalActionError, match="boost number 2 needs 3 garnets; P2 has 0"):
        s.apply_text(1, "boost boost play 1")
    with pytest.raises(IllegalActionError, match="boost number 1 needs 3 garnets; P3 has 0"):
        s.apply_text(2, "boost play 1")
    s.apply_text(1, "play 0")
    s.apply_text(2, "play 0")
    assert s.garnets == [3, 3, 0] and s.yellow[0] == 0 and s.inv[0][1] == 1
    assert s.points == [1, 0, 0]


def test_steps_are_checked_in_order() -> None:
    s = new(garnets=[3, 0, 0])
    with pytest.raises(IllegalActionError, match="exchange needs a yellow number above 0"):
        s.apply_text(0, "exchange boost play 1")
    s.apply_text(0, "boost exchange play 1")  # boost to 1, exchange a 1, play it
    assert s.pending[0] == ("sub", "bx", 1)


def test_playing_a_tile_not_held_is_refused() -> None:
    s = new()
    rnd(s, "play 8", "play 1", "play 2")
    with pytest.raises(IllegalActionError, match="black 8 is not in P1's inventory"):
        s.apply_text(0, "play 8")


def test_replenish_when_only_zero_is_left() -> None:
    s = new()
    for v in range(8, 0, -1):
        rnd(s, f"play {v}", "play 0", "play 0")
    assert s.inv[0] == [1] * 9  # refreshed after its last non-zero tile
    assert s.inv[1] == [1] * 9 and s.points[0] == 8


def test_exchanged_extras_are_gone_after_replenish() -> None:
    s = new()
    # P1 gets yellow, exchanges a 3, then empties; the fresh inventory is exactly 0..8
    rnd(s, "play 0", "play 8", "play 3")
    rnd(s, "exchange play 0", "play 0", "play 0")
    assert s.inv[0][3] == 2
    order = [8, 7, 6, 5, 4, 3, 3, 2, 1]
    for v in order:
        rnd(s, f"play {v}", "play 0", "play 0")
        if s.is_over():
            break
    assert s.points[0] == 9 and s.is_over()


def test_nine_points_win_and_ranking_of_the_rest() -> None:
    s = new()
    for v in range(8, 0, -1):
        rnd(s, f"play {v}", "play 0", "play 0")
    assert not s.is_over()
    rnd(s, "play 8", "play 1", "play 0")  # P2 middle gets 7 yellow
    res = s.result()
    assert res.finished and res.winner == 0 and res.scores == (9, 0, 0)
    # P2 and P3 tie on points; inventory sum comes before yellow: P3 kept 0..8 (36),
    # P2 played its 1 (35), so P3 ranks second despite P2's yellow of 7.
    assert s.yellow[1] == 7
    assert res.ranking == (0, 2, 1)
    assert s.view(2)["ranking"] == [0, 2, 1]
    with pytest.raises(IllegalActionError, match="over"):
        s.apply_text(1, "play 0")


def test_round_50_ranking_uses_every_tiebreak() -> None:
    # Everyone plays 0 for 50 rounds: points, inventory, yellow and garnets all tie
    # except garnets, then garnet_priority decides.
    s = new(garnets=[3, 6, 6], garnet_priority=[2, 0, 1])
    for _ in range(50):
        rnd(s, "play 0", "play 0", "play 0")
    res = s.result()
    assert res.finished and s.round == 50
    assert res.ranking == (2, 1, 0)  # P2, P3 have 6 garnets; P3 first by priority; P1 3
    assert res.winner == 2
    # inventory sum beats yellow and garnets
    s = new(garnets=[9, 0, 0])
    s.inv[1][8] += 1
    s.yellow[2] = 5
    for _ in range(50):
        rnd(s, "play 0", "play 0", "play 0")
    assert s.result().ranking == (1, 2, 0)


def test_points_rank_first_at_round_50() -> None:
    s = new()
    rnd(s, "play 1", "play 0", "play 0")  # P1 +1 (tie for low)
    for _ in range(49):
        rnd(s, "play 0", "play 0", "play 0")
    assert s.result().ranking[0] == 0


def test_resign_ranks_the_resigner_last() -> None:
    s = new()
    rnd(s, "play 3", "play 5", "play 1")  # P2 point, P1 +2 yellow, P3 +2 yellow
    s.apply_text(1, "resign")
    res = s.result()
    assert res.finished and res.ranking[-1] == 1 and res.winner == res.ranking[0]
    assert res.winner in (0, 2)


def test_timeout_plays_zero_without_steps() -> None:
    s = new(garnets=[9, 9, 9])
    s.apply_text(0, "boost play 5")
    s.apply_text(1, "timeout")
    s.apply_text(2, "play 4")
    assert s.garnets == [6, 9, 9]
    # high P1 (5) scores; middle P3 (4) gains 5-4; low P2 (0) gains 4-0
    assert s.points == [1, 0, 0] and s.yellow == [1, 4, 1]  # P1 boosted 0 -> 1
    assert s.history[1] == (1, ("timeout",))


def test_notation() -> None:
    s = new()
    assert s.parse(0, " BOOST  boost, Exchange play 2") == ("sub", "bbx", 2)
    assert s.format_action(("sub", "bbx", 2)) == "boost boost exchange play 2"
    for bad in ("play", "play 9", "boost", "play 2 boost", "jump play 1", "play two"):
        with pytest.raises(ActionSyntaxError):
            s.parse(0, bad)


def test_options_are_checked() -> None:
    for bad in ({"garnets": [1, 2]}, {"garnets": [-1, 0, 0]}, {"garnet_priority": [0, 0, 1]},
                {"round_seconds": 0}, {"colour": "blue"}, {"dmo": 3}):
        with pytest.raises(OptionError):
            make_game("yellow", bad)


def test_legal_actions_cover_distinct_outcomes() -> None:
    s = new(garnets=[6, 0, 0])
    s.yellow[0] = 2
    legal = s.legal_actions(0)
    assert ("sub", "", 5) in legal and ("sub", "x", 2) in legal
    assert ("sub", "bbx", 4) in legal  # boost twice to 4, exchange a 4
    assert ("sub", "xbx", 1) in legal  # exchange the 2, boost to 1, exchange a 1
    for action in legal:
        s.check(0, action)
    assert len(set(legal)) == len(legal)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), garnets=st.lists(st.integers(0, 12), min_size=3, max_size=3))
def test_random_play_ends_round_trips_and_hides_pending(seed: int, garnets: list[int]) -> None:
    s = new(garnets=garnets)
    rng = random.Random(seed)
    while not s.is_over():
        for seat in s.to_move():
            s.apply(seat, rng.choice(s.legal_actions(seat)))
            for other in range(3):
                view = s.view(other)
                pending = view["my_pending"]
                assert (pending is not None) == (other in s.pending)
        assert s.round <= 50
    rec = to_record(s)
    assert to_record(load(rec)) == rec
    s2 = new(garnets=garnets)
    play_random(s2, random.Random(seed))
