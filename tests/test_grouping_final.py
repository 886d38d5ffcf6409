"""Grouping Black & White, Final Match (RULES.md section 5): hand-worked scenarios and properties.

Same conventions as ``test_grouping``: groups ``A=0,1 B=2,3,4 C=5,6,7,8``, deals
``UP`` (round r shows r-1) and ``DOWN`` (round r shows 9-r).
"""

from __future__ import annotations

import os

import json
import random
from functools import lru_cache
from itertools import combinations, permutations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blackwhite.engine import (
    ActionSyntaxError,
    ChanceEvent,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
    OptionError,
    load,
    make_game,
    outcome_json,
    to_record,
)
from blackwhite.bots.inference.grouping import entry_mask
from blackwhite.games.grouping import GROUPINGS, GroupingState, _regroupings, mask_of
from blackwhite.games.grouping_sampler import chain_posterior_cum, draw, regroupings_of

from .random_play import policy_match
from .test_grouping import DOWN, GA, UP, act, deal, refuse, resample_keeps_the_view, walk

FINAL = "grouping-final"


def run(events: list[dict[str, Any]], **options: Any) -> GroupingState:
    state = load({"game": FINAL, "options": options, "events": events})
    assert isinstance(state, GroupingState)
    return state


def start(d0: list[int], d1: list[int], first: str = "go first", chooser: int = 0) -> list[dict[str, Any]]:
    return [act(0, GA), act(1, GA), deal(0, d0), deal(1, d1), act(chooser, first)]


def calls(starter: int, n: int = 9) -> list[dict[str, Any]]:
    return [act(starter, "call")] * n


def tie_set() -> list[dict[str, Any]]:
    """A whole set of identical deals (the grouping keeps GA): nine ties with P1 starting."""
    return [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP), *calls(0)]


# ----------------------------------------------------------------------------- chips are lost, never won


def test_fold_discards_the_folders_bet_and_the_8_costs_8_more() -> None:
    state = run(start(UP, DOWN) + [act(0, "raise 2"), act(1, "fold")])
    # P1 takes back its 3; P2 loses its ante and, having folded the 8, 8 more; round 2's antes are in
    assert state.scores() == (100, 91)
    last = state.rounds[-1]
    assert last["how"] == "fold" and last["penalty"] == 8 and last["folder"] == 1
    assert state.view(0)["deals"][0]["theirs"][0]["eight"] is True
    assert state.view(1)["deals"][0]["mine"][0]["eight"] is True
    assert any("folded the 8" in line for line in state.view(0)["log"])
    assert state.to_move() == [0]


def test_fold_of_another_tile_has_no_penalty_and_says_so() -> None:
    state = run(start(DOWN, UP) + [act(0, "raise 2"), act(1, "fold")])
    assert state.scores() == (100, 99)
    assert state.rounds[-1]["penalty"] == 0
    assert state.view(0)["deals"][0]["theirs"][0]["eight"] is False  # public: no penalty announced
    assert state.view(1)["seen"][0]["tile"] == 8


def test_call_the_lower_tile_loses_its_bet() -> None:
    state = run(start(DOWN, UP) + [act(0, "raise 3"), act(1, "call")])
    assert state.scores() == (100, 96)
    assert state.to_move() == [0]


def test_equal_tiles_discard_both_bets() -> None:
    state = run(start(UP, UP) + [act(0, "call")])
    assert state.scores() == (99, 99)
    assert state.to_move() == [0]  # no winner: the same seat starts


def test_both_broke_exception_returns_both_bets() -> None:
    state = run(start(UP, UP) + [act(0, "raise 4"), act(1, "call")], chips=5)
    assert state.scores() == (5, 5) and not state.is_over()
    assert state.view(0)["round"] == 2


def test_equal_tiles_leaving_only_one_seat_broke_are_not_excepted() -> None:
    state = run(start(UP, UP) + [act(0, "raise 4"), act(1, "call")], chips=5, items={"0": ["bonus"]})
    # 15 v 5: both bets of 5 are discarded; P2 is left with nothing and loses
    assert state.is_over() and state.winner() == 0 and state.scores() == (10, 0)


def test_fold_the_8_penalty_is_capped_by_the_chips_left() -> None:
    events = start(DOWN, UP) + [act(0, "raise 5"), act(1, "raise 4"), act(0, "fold")]
    state = run(events, chips=10)
    # P1: 10 - 6 bet discarded - min(8, 4) penalty = 0: it loses; P2 takes back its 10
    assert state.rounds[-1]["penalty"] == 4
    assert state.is_over() and state.winner() == 1 and state.scores() == (0, 10)


def test_chips_never_move_from_one_seat_to_the_other() -> None:
    state = run(start(DOWN, UP) + [act(0, "raise 10"), act(1, "fold")])
    assert state.scores()[0] == 100  # the winner of a fold gains nothing


# ----------------------------------------------------------------------------- sets, regrouping, ante


def test_a_set_is_one_deal_then_a_regrouping() -> None:
    state = run(start(UP, UP) + calls(0))
    assert state.view(0)["phase"] == "group" and state.set_no == 2 and state.to_move() == [0, 1]
    assert state.scores() == (91, 91)


def _regroupings_by_hand(a: set[int], b: set[int], c: set[int]) -> int:
    count = 0
    tiles = set(range(9))
    for na in combinations(sorted(tiles), 2):
        for nb in combinations(sorted(tiles - set(na)), 3):
            nc = tiles - set(na) - set(nb)
            if len(a - set(na)) <= 1 and len(b - set(nb)) <= 1 and len(c - nc) <= 2:
                count += 1
    return count


def test_regrouping_limits() -> None:
    state = run(start(UP, UP) + calls(0))
    groups = [a for a in state.legal_actions(0) if a[0] == "group"]
    assert len(groups) == _regroupings_by_hand({0, 1}, {2, 3, 4}, {5, 6, 7, 8}) < 1260
    assert ("group", (0, 1), (2, 3, 4), (5, 6, 7, 8)) in groups  # keeping the groups is allowed
    refuse(state, 0, "group A=2,3 B=0,1,4 C=5,6,7,8", match="2 tiles .* out of group A")
    refuse(state, 0, "group A=0,1 B=2,5,6 C=3,4,7,8", match="out of group B")
    state.apply_text(0, "group A=0,5 B=2,3,6 C=1,4,7,8")  # one out of A, one out of B, two out of C
    state.apply(1, ("timeout",))
    assert state.groups[1] == ((0, 1), (2, 3, 4), (5, 6, 7, 8))  # timeout keeps the previous groups
    assert state.groups[0] == ((0, 5), (2, 3, 6), (1, 4, 7, 8))


def test_ante_rises_at_sets_3_5_7() -> None:
    state = run(start(UP, UP) + calls(0) + tie_set() + [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)])
    assert state.set_no == 3 and state.ante == 2 and state.bets == [2, 2] and state.chips == [80, 80]
    state = run(start(UP, UP) + calls(0) + tie_set() + tie_set() + tie_set()
                + [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)])
    # 18 rounds at 1, 18 at 2, then set 5 at 3
    assert state.set_no == 5 and state.ante == 3 and state.chips == [100 - 18 - 36 - 3] * 2


def test_accepted_proposal_sets_the_ante_and_later_rises_add_to_it() -> None:
    events = [act(0, "propose ante 3"), act(1, "accept"), act(0, GA), act(1, GA),
              deal(0, UP), deal(1, UP), act(0, "go first")]
    state = run(events)
    assert state.ante == 3 and state.bets == [3, 3]
    state = run(events + calls(0) + tie_set() + [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)])
    assert state.set_no == 3 and state.ante == 4 and state.chips == [100 - 54 - 4] * 2


def test_proposals_decline_lapse_replace_and_limits() -> None:
    state = make_game(FINAL).new_initial_state()
    assert ("propose", 2) in state.legal_actions(0) and ("propose", 101) in state.legal_actions(0)
    refuse(state, 0, "propose ante 1", match="above the current ante 1")
    refuse(state, 1, "accept", match="no ante proposal")
    state.apply_text(0, "propose ante 3")
    assert state.view(1)["proposal"] == {"by": 0, "ante": 3}
    refuse(state, 0, "accept", match="only P2 may answer")
    state.apply_text(1, "propose ante 5")  # a new proposal replaces the pending one
    assert state.proposal == (1, 5)
    state.apply_text(0, "decline")
    assert state.proposal is None and state.ante == 1
    assert ("accept",) not in state.legal_actions(1)
    # RULES.md sets no limit: P2 may propose again after a decline, and P1 again too
    state.apply_text(1, "propose ante 3")
    state.apply_text(0, "propose ante 4")
    assert state.proposal == (0, 4)
    # a host may cap proposals per seat per grouping with the option proposal_limit
    state = make_game(FINAL, {"proposal_limit": 1}).new_initial_state()
    state.apply_text(0, "propose ante 3")
    refuse(state, 0, "propose ante 4", match="proposal_limit")
    assert not any(a[0] == "propose" for a in state.legal_actions(0))
    state = make_game(FINAL).new_initial_state()
    state.apply_text(0, "propose ante 3")
    state.apply_text(0, GA)
    state.apply_text(1, GA)  # the grouping closes: the proposal lapses unanswered
    assert state.proposal is None and state.ante == 1
    state.apply_chance(ChanceEvent("deal", {"seat": 0, "tiles": UP}))
    state.apply_chance(ChanceEvent("deal", {"seat": 1, "tiles": UP}))
    refuse(state, 1, "accept", match="only while a grouping is open")
    refuse(state, 0, "propose ante 2", match="only while a grouping is open")


def test_an_idle_seat_may_answer_and_the_limit_is_an_option() -> None:
    state = make_game(FINAL, {"proposal_limit": 2}).new_initial_state()
    state.apply_text(0, GA)  # P1 has grouped and is no longer awaited
    state.apply_text(1, "propose ante 2")
    state.apply_text(1, "propose ante 4")
    state.apply_text(0, "accept")
    assert state.ante == 4 and state.to_move() == [1]
    rec = to_record(state)
    assert to_record(load(rec)) == rec


# ----------------------------------------------------------------------------- end of the match


def test_cannot_pay_the_ante_loses() -> None:
    events = [act(0, "propose ante 6"), act(1, "accept"), act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)]
    state = run(events, chips=5, items={"0": ["bonus"]})
    assert state.is_over() and state.winner() == 0 and state.scores() == (15, 5)
    assert "P2 cannot pay the ante of 6" in state.end_reason


def test_neither_can_pay_more_chips_wins() -> None:
    events = [act(0, "propose ante 16"), act(1, "accept"), act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)]
    state = run(events, chips=5, items={"0": ["bonus"]})
    assert state.is_over() and state.winner() == 0 and state.scores() == (15, 5)
    assert "neither seat can pay" in state.end_reason


def test_neither_can_pay_equal_chips_is_sudden_death() -> None:
    events = [act(0, "propose ante 6"), act(1, "accept"), act(0, GA), act(1, GA),
              deal(0, [0, 1, 2, 4, 3, 5, 6, 7, 8]), deal(1, UP)]
    state = run(events, chips=5)
    # 0-0, 1-1, 2-2 tie; round 4: P1 4 v P2 3, compared at once with no ante and no betting
    assert state.is_over() and state.winner() == 0 and state.scores() == (5, 5)
    assert [r["how"] for r in state.rounds] == ["sudden"] * 4
    assert state.rounds[-1]["tiles"] == [4, 3]


def test_sudden_death_nine_ties_start_a_new_set_with_regrouping() -> None:
    events = [act(0, "propose ante 6"), act(1, "accept"), act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)]
    state = run(events, chips=5, items={"0": ["peek", "order"]})
    assert state.sudden and state.set_no == 2 and state.to_move() == [0, 1]
    assert not any(a[0] == "propose" for a in state.legal_actions(0))
    refuse(state, 0, "propose ante 7", match="sudden death")
    refuse(state, 0, "group A=2,3 B=0,1,4 C=5,6,7,8", match="out of group A")
    state.apply_text(0, "group A=0,5 B=2,3,4 C=1,6,7,8")
    state.apply_text(1, GA)
    state.apply_chance(ChanceEvent("deal", {"seat": 0, "tiles": [0, 5, 2, 3, 4, 1, 6, 7, 8]}))
    state.apply_chance(ChanceEvent("deal", {"seat": 1, "tiles": UP}))
    # 0-0, then P1's 5 beats P2's 1
    assert state.is_over() and state.winner() == 0 and state.scores() == (5, 5)


def test_the_first_bettor_choice_is_refused_once_a_sudden_death_round_1_is_played() -> None:
    """Round 1 played as a sudden-death showdown: nothing is left to choose.  In set 2
    the choice is neither listed nor accepted (it used to be announced as if round 1
    were still ahead)."""
    events = [act(0, "propose ante 6"), act(1, "accept"), act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)]
    state = run(events, chips=5)
    assert state.sudden and state.set_no == 2 and state.first_choice is None
    assert ("go", "first") not in state.legal_actions(0) and ("go", "second") not in state.legal_actions(0)
    refuse(state, 0, "go first", match="round 1 has been played")
    refuse(state, 0, "go second", match="sudden-death showdown")
    refuse(state, 1, "go first", match="only P1")
    state.apply_text(0, GA)
    refuse(state, 0, "go first", match="round 1 has been played")  # while P2's grouping is awaited
    state.apply_text(1, GA)
    refuse(state, 0, "go second", match="round 1 has been played")  # while the deal is awaited


def test_the_first_bettor_choice_may_come_before_a_sudden_death_round_1() -> None:
    """Before round 1's showdown the choice is still open (it then has no effect)."""
    events = [act(0, "propose ante 6"), act(1, "accept"), act(0, "go second"), act(0, GA), act(1, GA)]
    state = run(events + [deal(0, [0, 1, 2, 4, 3, 5, 6, 7, 8]), deal(1, UP)], chips=5)
    assert state.first_choice == "second" and state.is_over() and state.winner() == 0
    early = run([act(0, "propose ante 6"), act(1, "accept"), act(0, GA), act(1, GA), deal(0, UP)], chips=5)
    early.apply_text(0, "go first")  # the deal is not complete: round 1 is still ahead
    assert early.first_choice == "first"


# ----------------------------------------------------------------------------- items


def test_bonus_gives_ten_chips_and_the_first_bettor_choice() -> None:
    state = make_game(FINAL, {"items": {"1": ["bonus"]}}).new_initial_state()
    assert state.scores() == (100, 110)
    refuse(state, 0, "go first", match="only P2 .*bonus")
    assert ("go", "first") in state.legal_actions(1) and ("go", "first") not in state.legal_actions(0)
    state = run([act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)], items={"1": ["bonus"]})
    assert state.to_move() == [1] and state.view(1)["phase"] == "choose"
    state.apply(1, ("timeout",))  # the holder's choice times out to `go first`
    assert state.to_move() == [1]
    both = make_game(FINAL, {"items": {"0": ["bonus"], "1": ["bonus"]}, "dmo": 1}).new_initial_state()
    assert both.scores() == (110, 110) and both.chooser == 1  # both hold it: the DMO chooses


def test_peek_shows_the_opponents_tile_to_the_peeker_only() -> None:
    state = run(start(UP, DOWN), items={"0": ["peek"]})
    assert ("peek",) in state.legal_actions(0)
    state.apply_text(0, "peek")
    mine, theirs = state.view(0), state.view(1)
    assert mine["their_tile"]["tile"] == 8 and mine["seen"] == [
        {"set": 1, "deal": 1, "round": 1, "tile": 8, "how": "peek"}
    ]
    assert theirs["my_tile"]["tile"] is None and theirs["their_tile"]["tile"] is None
    assert theirs["items"]["used"] == [["peek"], []] and mine["items"]["mine"] == []
    assert any("uses peek" in line for line in theirs["log"])
    assert any(line.startswith("Peek: P2's tile is 8") for line in mine["log"])
    assert not any(line.startswith("Peek:") for line in theirs["log"])
    assert state.to_move() == [0]  # a free action: still P1 to bet
    refuse(state, 0, "peek", match="already used")


def test_peek_comes_before_the_holders_first_betting_action() -> None:
    state = run(start(UP, DOWN, "go second") + [act(1, "raise 1")], items={"0": ["peek"]})
    assert ("peek",) in state.legal_actions(0)
    state.apply_text(0, "raise 1")
    state.apply_text(1, "raise 1")
    assert ("peek",) not in state.legal_actions(0)
    refuse(state, 0, "peek", match="before the holder's first betting action")
    state.apply_text(0, "call")  # P2's 8 beats P1's 0: P2 starts round 2
    state.apply_text(1, "raise 1")
    assert ("peek",) in state.legal_actions(0)  # a new round: open again (still unused)


def test_peek_by_an_idle_holder() -> None:
    state = run(start(UP, DOWN), items={"1": ["peek"]})
    assert state.to_move() == [0] and state.legal_actions(1) == []  # not listed: P2 is not awaited
    state.apply_text(1, "peek")  # ... but accepted
    assert state.view(1)["their_tile"]["tile"] == 0 and state.to_move() == [0]


def test_order_tells_the_holder_its_group_order() -> None:
    state = run(start(UP, DOWN), items={"1": ["order"]})
    state.apply_text(1, "order")  # idle: P1 is to bet, nobody has bet yet
    assert state.view(1)["my_order"] == ["C", "B", "A"]
    # RULES.md tells only the holder: the opponent is not told order was used
    assert state.view(0)["my_order"] is None and state.view(0)["items"]["used"] == [[], []]
    assert state.view(0)["items"]["theirs"] == ["order"]
    assert state.view(1)["items"]["used"] == [[], ["order"]] and state.view(1)["items"]["mine"] == []
    assert not any("order" in n.text for n in state.log if n.to is None)
    refuse(state, 1, "order", match="already used")
    # the holder's sampled worlds keep that order
    for s in range(10):
        world = state.resample(1, random.Random(s))
        assert isinstance(world, GroupingState)
        assert set(world.deals[1][0][:4]) == {5, 6, 7, 8}
        assert set(world.deals[1][0][4:7]) == {2, 3, 4}


def test_a_host_may_announce_order_uses() -> None:
    state = run(start(UP, DOWN), items={"1": ["order"]}, announce_order=True)
    state.apply_text(1, "order")
    assert "P2 uses order." in [n.text for n in state.log if n.to is None]
    assert state.view(0)["items"]["used"] == [[], ["order"]] and state.view(0)["items"]["theirs"] == []


def test_order_window_closes_with_the_first_bet_of_the_set() -> None:
    state = run(start(UP, DOWN, "go second"), items={"1": ["order"]})
    assert ("order",) in state.legal_actions(1)
    state.apply_text(1, "raise 1")
    refuse(state, 1, "order", match="before any betting in its round 1")
    state = run(start(UP, DOWN) + [act(0, "call")], items={"1": ["order"]})
    refuse(state, 1, "order", match="before any betting in its round 1")  # round 2


def test_items_not_held_and_bad_item_options() -> None:
    state = run(start(UP, DOWN))
    refuse(state, 0, "peek", match="does not hold peek")
    refuse(state, 0, "order", match="does not hold order")
    for bad in ({"items": {"2": ["peek"]}}, {"items": {"0": ["potion"]}}, {"items": {"0": ["peek", "peek"]}},
                {"items": ["peek"]}, {"items": {"0": "peek"}}, {"proposal_limit": -1}, {"chips": 0}):
        with pytest.raises(OptionError):
            make_game(FINAL, bad)


# ----------------------------------------------------------------------------- clock and refusals


def test_timeouts() -> None:
    state = run(start(DOWN, UP))
    state.apply(0, ("timeout",))  # P1 folds its 8: the penalty applies
    assert state.rounds[-1]["how"] == "fold" and state.rounds[-1]["penalty"] == 8
    assert state.scores() == (91, 100)
    refuse(state, 0, "timeout", NotYourTurnError)


def test_refusals_have_their_types() -> None:
    state = run(start(DOWN, UP))
    refuse(state, 1, "call", NotYourTurnError)
    refuse(state, 0, "raise 11", IllegalActionError, match="1 to 10")
    refuse(state, 0, "accept", IllegalActionError, match="grouping is open")
    refuse(state, 0, GA, IllegalActionError, match="betting actions")
    with pytest.raises(ActionSyntaxError):
        state.parse(0, "check")
    state.apply_text(0, "resign")
    refuse(state, 1, "call", GameOverError)
    refuse(state, 1, "peek", GameOverError)


# ----------------------------------------------------------------------------- properties

ITEM_SETS = st.fixed_dictionaries(
    {"0": st.lists(st.sampled_from(["bonus", "peek", "order"]), unique=True),
     "1": st.lists(st.sampled_from(["bonus", "peek", "order"]), unique=True)}
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), items=ITEM_SETS, chips=st.sampled_from([6, 20, 100]),
       see_own=st.booleans())
def test_random_play_never_gains_chips_hides_secrets_and_ends(
    seed: int, items: dict[str, list[str]], chips: int, see_own: bool
) -> None:
    state = walk(FINAL, seed, {"items": items, "chips": chips, "see_own_tile": see_own})
    assert state.result().finished


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), items=ITEM_SETS)
def test_records_round_trip(seed: int, items: dict[str, list[str]]) -> None:
    state = walk(FINAL, seed, {"items": items, "proposal_limit": 2}, check=False)
    record = to_record(state)
    again = load(json.loads(json.dumps(record)))
    assert to_record(again) == record
    assert outcome_json(again) == outcome_json(state)


def test_resample_respects_peeks_eights_and_only_the_seats_knowledge() -> None:
    # P2 folds its 8 in round 1 (public), P1 peeks in round 2 and sees P2's 7
    state = run(start(UP, DOWN) + [act(0, "raise 1"), act(1, "fold")], items={"0": ["peek"]})
    state.apply_text(0, "peek")
    for s in range(40):
        world = state.resample(0, random.Random(s))
        assert isinstance(world, GroupingState)
        assert world.deals[1][0][:2] == (8, 7)
        assert world.view(0)["deals"] == state.view(0)["deals"]
        other = state.resample(1, random.Random(s))
        assert isinstance(other, GroupingState)
        # P2 does not know its own numbers, only that round 1's was the 8
        assert other.deals[1][0][0] == 8 and other.deals[1][0][1] % 2 == 1
        # what P1 saw of P2's tile follows P2's redrawn deal
        assert other.seen[0] == [(1, 0, 1, other.deals[1][0][1], "peek")]


@pytest.mark.parametrize("see_own", [False, True])
def test_resample_keeps_what_the_seat_knows_with_items(see_own: bool) -> None:
    items = {"0": ["bonus", "peek", "order"], "1": ["peek", "order"]}
    resample_keeps_the_view(FINAL, {"items": items, "see_own_tile": see_own, "chips": 20}, range(30))


# ----------------------------------------------------------------------------- the heuristic bot


def test_heuristic_policy_returns_legal_actions_with_items() -> None:
    items = {"0": ["bonus", "peek"], "1": ["order", "peek"]}
    used: set[str] = set()
    for seed in range(12):
        used |= policy_match(FINAL, {"items": items, "chips": 30}, seed)[1]
    assert {"group", "call", "fold", "raise", "go"} <= used


def test_the_first_bettor_choice_may_come_while_the_deal_is_awaited() -> None:
    """RULES.md: the choice may come any time before round 1's betting, so a record may
    write it between the groupings and the deal events, with stated deals or a seed."""
    state = run([act(0, GA), act(1, GA), act(0, "go second"), deal(0, UP), deal(1, DOWN)])
    assert state.starter == 1 and state.to_move() == [1]
    seeded = load({"game": FINAL, "seed": 5, "events": [act(0, GA), act(1, GA), act(0, "go second")]})
    assert isinstance(seeded, GroupingState) and seeded.starter == 1 and seeded.to_move() == [1]
    # other free actions are still refused while the deal is due
    state = run([act(0, GA), act(1, GA)], items={"0": ["peek"]})
    refuse(state, 0, "peek", match="betting round")
    refuse(state, 0, "propose ante 3", match="only while a grouping is open")


def test_the_opponents_items_are_listed_in_a_fixed_order_whatever_the_hash_seed() -> None:
    """The view lists them in the game's item order, not a set's (which varies per run)."""
    import subprocess
    import sys

    code = (
        "from blackwhite.engine import make_game;"
        "s = make_game('grouping-final', {'items': {'0': ['order', 'bonus', 'peek'], '1': ['peek', 'order', 'bonus']}})"
        ".new_initial_state();"
        "print(s.view(0)['items']['theirs'], s.view(1)['items']['theirs'])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in range(6)
    }
    assert outputs == {"['bonus', 'peek', 'order'] ['bonus', 'peek', 'order']\n"}


# ----------------------------------------------------------------------------- regrouping chains in worlds
#
# From set 2 on a seat regroups under limits, so the opponent's groups of every set form
# a chain of legal regroupings.  A sampled world's groups must be the end of such a chain
# in which each set's groups fit what the seat saw of that set.  The checks below work
# from the seat's view alone and by brute force, independently of the sampler.


@lru_cache(maxsize=None)
def _group_fits(tiles: tuple[int, ...], span: tuple[int, ...]) -> bool:
    """Some arrangement of ``tiles`` fits positions allowing the masks ``span``."""
    return any(all(m >> t & 1 for m, t in zip(span, p)) for p in permutations(tiles))


def _fits(groups: tuple[tuple[int, ...], ...], masks: tuple[int, ...]) -> bool:
    """Some deal of ``groups`` (groups kept together, any group order) fits ``masks``."""
    for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        at, ok = 0, True
        for g in order:
            span = masks[at:at + len(groups[g])]
            at += len(groups[g])
            if not _group_fits(groups[g], span):
                ok = False
                break
        if ok:
            return True
    return False


def _legal_regrouping(old: tuple[tuple[int, ...], ...], new: tuple[tuple[int, ...], ...]) -> bool:
    return all(len(set(old[g]) - set(new[g])) <= (1, 1, 2)[g] for g in range(3))


def _sets_seen(view: dict[str, Any]) -> tuple[tuple[int, ...], ...]:
    """What the seat knows of the opponent's deal of each set 1..groups_set, as tile
    masks, read from its view: the round log, its own folds and peeks, and this set's deal."""
    me, current = view["seat"], view["groups_set"]
    them = 1 - me
    colour = {"black": 0b101010101, "white": 0b010101010}
    sets = [[0b111111111] * 9 for _ in range(current)]
    for r in view["rounds"]:
        if r["set"] >= current:
            continue
        m = colour[r["colours"][them]]
        if r["tiles"] is not None:
            m = 1 << r["tiles"][them]
        elif r["folder"] == them:
            m = 1 << 8 if r["penalty"] > 0 else m & ~(1 << 8)
        sets[r["set"] - 1][r["round"] - 1] = m
    for s in view["seen"]:
        if s["set"] < current:
            sets[s["set"] - 1][s["round"] - 1] = 1 << s["tile"]
    for p, entry in enumerate(view["deals"][0]["theirs"]):
        sets[current - 1][p] = entry_mask(entry)
    return tuple(tuple(one) for one in sets)


@lru_cache(maxsize=None)
def _chain_ends(sets: tuple[tuple[int, ...], ...]) -> frozenset[tuple[tuple[int, ...], ...]]:
    """Every grouping that ends a chain of legal regroupings fitting each set's facts."""
    if len(sets) == 1:
        candidates = set(GROUPINGS)
    else:
        index = {g: i for i, g in enumerate(GROUPINGS)}
        candidates = {
            GROUPINGS[j] for g in _chain_ends(sets[:-1]) for j in regroupings_of(index[g], (1, 1, 2))
        }
    return frozenset(g for g in candidates if _fits(g, sets[-1]))


def test_the_regroupings_the_sampler_walks_are_the_referees() -> None:
    rng = random.Random(5)
    for i in rng.sample(range(len(GROUPINGS)), 12):
        a, b, c = GROUPINGS[i]
        prev = (mask_of(a), mask_of(b), mask_of(c))
        legal = {GROUPINGS.index((x[1], x[2], x[3])) for x in _regroupings(prev, (1, 1, 2))}
        assert set(regroupings_of(i, (1, 1, 2))) == legal
        assert all(_legal_regrouping(GROUPINGS[i], GROUPINGS[j]) for j in legal)
        assert len(legal) == _regroupings_by_hand(set(a), set(b), set(c))


def test_worlds_after_a_fully_shown_set_regroup_legally_from_it() -> None:
    # set 1 is nine showdowns: P2's deal 0..8 is known, so only six set-1 groupings fit
    # it, and P2's set-2 groups in every world must be a legal regrouping of one of them
    state = run(start(UP, UP) + calls(0) + [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)])
    assert state.set_no == 2 and state.to_move() == [0]
    set_one = [g for g in GROUPINGS if _fits(g, tuple(1 << t for t in UP))]
    assert len(set_one) == 6
    for k in range(40):
        world = state.resample(0, random.Random(k))
        assert isinstance(world, GroupingState)
        theirs = world.groups[1]
        assert theirs is not None
        assert any(_legal_regrouping(g, theirs) for g in set_one), (k, theirs)
        assert world.view(0)["deals"] == state.view(0)["deals"]
    # the posterior leaves out no grouping such a chain reaches: its support is exactly theirs
    cum = chain_posterior_cum(state._past_facts(0), (state._cons(0, 1, 0),), (1, 1, 2))
    support = {GROUPINGS[i] for i, c in enumerate(cum) if c > (cum[i - 1] if i else 0)}
    assert support == _chain_ends(_sets_seen(state.view(0)))
    assert all(any(_legal_regrouping(g, h) for g in set_one) for h in support)


def test_worlds_end_a_chain_fitting_every_set_in_random_matches() -> None:
    """Seeded random Final matches (items, folds, peeks, own tiles shown or not): every
    world drawn in sets 2..5 ends a chain of legal regroupings fitting every set, and the
    posterior it is drawn from leaves out no grouping that ends such a chain."""
    checked = 0
    for seed in range(8):
        rng = random.Random(seed)
        options: dict[str, Any] = {
            "items": {"0": ["peek", "order"], "1": ["bonus", "peek"]} if seed % 2 else {},
            "see_own_tile": seed % 3 == 0,
        }
        state = make_game(FINAL, options).new_initial_state()
        assert isinstance(state, GroupingState)
        steps = 0
        while not state.is_over() and state.set_no <= 5 and steps < 400:
            steps += 1
            if state.is_chance():
                state.play_chance(rng)
                continue
            movers = state.to_move()
            for seat in movers:
                if state.gset >= 2 and rng.random() < 0.15:
                    ends = _chain_ends(_sets_seen(state.view(seat)))
                    opp = 1 - seat
                    facts = tuple(state._cons(seat, opp, d) for d in range(len(state.deals[opp])))
                    cum = chain_posterior_cum(state._past_facts(seat), facts, (1, 1, 2))
                    assert {GROUPINGS[i] for i, c in enumerate(cum) if c > (cum[i - 1] if i else 0)} == ends
                    for k in range(3):
                        world = state.resample(seat, random.Random(k))
                        assert isinstance(world, GroupingState)
                        assert world.groups[1 - seat] in ends, (seed, steps, seat, k)
                        checked += 1
            seat = movers[0]
            legal = state.legal_actions(seat)
            # mostly calls and folds (with a few raises and items) so that matches last sets
            quiet = [a for a in legal if a[0] in ("group", "call", "fold", "go", "peek", "order")]
            state.apply(seat, rng.choice(quiet if quiet and rng.random() < 0.9 else legal))
    assert checked >= 100, checked


def test_a_long_chain_of_sets_is_weighed_without_recursion_or_overflow() -> None:
    # 1500 fully shown sets of the same ascending deal: the groups may have stayed put,
    # so the six groupings that fit it remain, and only they
    shown: tuple[tuple[int, ...], ...] = (tuple(1 << t for t in UP),)
    past = (shown,) * 1500
    cum = chain_posterior_cum(past, shown, (1, 1, 2))
    support = {GROUPINGS[i] for i, c in enumerate(cum) if c > (cum[i - 1] if i else 0)}
    assert support == {g for g in GROUPINGS if _fits(g, shown[0])} and len(support) == 6
    rng = random.Random(1)
    assert all(GROUPINGS[draw(cum, rng)] in support for _ in range(20))
