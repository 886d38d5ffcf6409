"""``joust-final`` (RULES.md section 7): what differs from ``joust`` -- tiles 0..13
with two leftovers shared by ``keep``, the equaliser, inversion and conceal -- by
hand-worked scenarios, plus the properties of the variant (its example records are
replayed with every game's by test_record.py).

The rules the two games share are tested once, in ``test_joust.py``; its helpers are
reused here.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blackwhite.engine import (
    ActionSyntaxError,
    IllegalChanceError,
    NotYourTurnError,
    OptionError,
    load,
    make_game,
    outcome_json,
    to_record,
)
from blackwhite.games.joust import KEEP, LOTS, OPTIONAL, OVER, REQUIRED, JoustState

from .test_joust import (
    act,
    auction,
    check_places,
    dump,
    hand,
    joust,
    knowledge_only,
    lots,
    new,
    play_checking_invariants,
    random_game,
    refused,
)

F = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]  # leftovers 0 and 13
LOW = {v: 0 if v <= 6 else 1 for v in range(1, 13)}  # P1 buys 1..6, P2 7..12
ITEMS = ["inversion", "equaliser", "conceal"]


def final(**options: Any) -> JoustState:
    return new("joust-final", **options)


def play_set(state: JoustState, owner: dict[int, int] | int, jousts: list[tuple[list[Any], list[Any]]] = (),
             groups: list[list[int]] = F, leftover: list[int] = [0, 13]) -> None:  # noqa: B006
    """Lots, auction, the short seat keeps its smaller leftover, then the jousts."""
    lots(state, groups, leftover)
    auction(state, owner)
    if state.phase == KEEP:
        act(state, state.keeper, f"keep {min(leftover)}")
    for mine, theirs in jousts:
        joust(state, mine, theirs)


# --------------------------------------------------------------------------- options and lots


@pytest.mark.parametrize(
    "items",
    [["inversion"], {"2": ["inversion"]}, {"0": "inversion"}, {"0": ["mirror"]}, {"0": ["conceal", "conceal"]}],
)
def test_items_option_is_checked(items: Any) -> None:
    with pytest.raises(OptionError):
        make_game("joust-final", {"items": items})


def test_other_options_are_checked() -> None:
    with pytest.raises(OptionError):
        make_game("joust-final", {"invert_scope": "any"})
    game = make_game("joust-final", {"items": {"0": ["inversion"], "1": ["equaliser", "conceal"]}})
    assert game.given_options() == {"items": {"0": ["inversion"], "1": ["equaliser", "conceal"]}}


def test_lots_have_tiles_0_to_13_and_two_leftovers() -> None:
    state = final()
    with pytest.raises(IllegalChanceError) as info:
        lots(state, F, [13])
    assert "exactly 2" in str(info.value)
    with pytest.raises(IllegalChanceError):
        lots(state, F, [13, 14])
    lots(state, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]], [12, 13])
    assert state.phase == "auction"
    assert state.parse(0, "play 0") == ("play", 0)
    with pytest.raises(ActionSyntaxError):
        state.parse(0, "play 14")
    event = final().sample_chance(random.Random(2))
    assert sorted([v for g in event.data["groups"] for v in g] + list(event.data["leftover"])) == list(range(14))
    assert len(event.data["leftover"]) == 2


# --------------------------------------------------------------------------- leftovers: keep


def test_the_short_seat_sees_both_leftovers_and_keeps_one() -> None:
    state = final()
    lots(state, F, [13, 0])  # the shuffle's order of the two: any
    auction(state, {v: 0 if v <= 5 else 1 for v in range(1, 13)})  # 5 against 7
    assert state.phase == KEEP and state.to_move() == [0]
    assert state.view(0)["keep"] == {"leftovers": [0, 13]}
    assert state.view(1)["keep"] is None
    assert sorted(e["value"] for e in state.view(0)["lots"][0]["leftovers"]) == [0, 13]
    assert [e["value"] for e in state.view(1)["lots"][0]["leftovers"]] == [None, None]
    assert state.legal_actions(0) == [("keep", 0), ("keep", 13)]  # in value order, whatever the shuffle listed
    assert refused(state, 1, "keep 0", NotYourTurnError)
    assert "0 or 13" in refused(state, 0, "keep 7")
    assert "timeout" in refused(state, 0, "keep smaller")
    assert "keep N" in refused(state, 0, "play 1")
    act(state, 0, "keep 13")
    assert hand(state, 0) == [1, 2, 3, 4, 5, 13] and hand(state, 1) == [0, 6, 7, 8, 9, 10, 11, 12]
    # the receiver is told only the value it receives
    assert state.view(1)["lots"][0]["leftovers"] == [
        {"set": 1, "owner": 0, "value": None},
        {"set": 1, "owner": 1, "value": 0},
    ]
    assert [e["value"] for e in state.view(0)["lots"][0]["leftovers"]] == [13, 0]
    public = [n.text for n in state.log if n.to is None][-1]
    assert public == "P1 keeps one leftover and gives the other to P2." and state.phase == REQUIRED
    assert [n.text for n in state.log if n.to == 1][-1] == "You receive the leftover 0."


def test_keep_times_out_to_the_smaller_value_and_says_no_value() -> None:
    state = final()
    lots(state, F, [13, 0])
    auction(state, {v: 1 if v <= 5 else 0 for v in range(1, 13)})  # P2 is short
    act(state, 1, "timeout")
    assert 0 in hand(state, 1) and 13 in hand(state, 0)
    public = [n.text for n in state.log if n.to is None]
    assert "P2 timed out." in public and not any(n.startswith("P2 timed out:") for n in public)
    # canonical slots: the keeper's leftover first, whatever the shuffle's order was
    assert (state.orig[12], state.own[12], state.orig[13], state.own[13]) == (0, 1, 13, 0)


def test_equal_counts_nobody_gets_the_leftovers() -> None:
    state = final()
    play_set(state, LOW)
    assert state.phase == REQUIRED and state.own[12] == state.own[13] == -1
    for seat in (0, 1):
        assert [e["value"] for e in state.view(seat)["lots"][0]["leftovers"]] == [None, None]


def test_a_zero_tile_scores_nothing() -> None:
    state = final()
    lots(state, F, [0, 13])
    auction(state, {v: 1 if v <= 5 else 0 for v in range(1, 13)})
    act(state, 1, "keep 0")  # P2 keeps the 0, P1 gets 13
    act(state, 1, "play 0")
    act(state, 0, "play 6")
    act(state, 0, "pass")
    act(state, 1, "pass")
    assert state.jousts[-1] == (1, 0, (6, 0), (0, 0))  # P1 wins and scores P2's smallest: 0


# --------------------------------------------------------------------------- equaliser


@pytest.mark.parametrize(
    "items,dmo,favoured",
    [({"1": ["equaliser"]}, 0, 1), ({"0": ["equaliser"]}, 1, 0), ({}, 1, 1),
     ({"0": ["equaliser"], "1": ["equaliser"]}, 1, 1), ({"0": ["equaliser"], "1": ["equaliser"]}, 0, 0)],
)
def test_equaliser_opens_each_set_and_wins_equal_points(items: dict[str, list[str]], dmo: int, favoured: int) -> None:
    state = final(items=items, dmo=dmo)
    for _ in range(3):
        lots(state, F, [0, 13])
        assert state.turn == favoured  # opens the first auction of every set
        auction(state, LOW)
        # 6 against 9+10+11+12 (P2 +6), then 1+2+3+4+5 against 7+8 (a tie: P1 +7, P2 +1)
        joust(state, [6], [9, 10, 11, 12])
        joust(state, [1, 2, 3, 4, 5], [7, 8])
    assert state.phase == OVER and state.points == [21, 21]
    assert state.result().winner == favoured


# --------------------------------------------------------------------------- inversion


def test_inversion_changes_a_tile_secretly_and_is_announced_when_the_step_resolves() -> None:
    state = final(items={"0": ["inversion"], "1": ["conceal"]})
    play_set(state, LOW)
    assert ("invert", 1) in state.legal_actions(0) and ("invert", 1, 1, 1) in state.legal_actions(0)
    act(state, 0, "invert 1")
    mine = [t for t in state.view(0)["my_tiles"] if t["from"] == "1.1"][0]
    assert (mine["value"], mine["original"], mine["colour"]) == (12, 1, "black")
    assert state.to_move() == [0, 1]  # the item use does not fill P1's slot in the step
    # P2 learns nothing until the step resolves
    assert state.view(1)["items"]["their_used"] == [] and "inversion" not in json.dumps(state.view(1)["log"])
    assert "used once" in refused(state, 0, "invert 2")
    assert all(a[0] != "invert" for a in state.legal_actions(0))
    act(state, 1, "play 7")
    act(state, 0, "play 12 from 1.1")  # the inverted tile
    assert state.view(1)["items"]["their_used"] == ["inversion"]
    assert "P1 used inversion on one of its tiles." in [n.text for n in state.log if n.to is None]
    theirs = [p for p in state.view(1)["plays"] if p["seat"] == 0][0]
    assert (theirs["colour"], theirs["group"], theirs["value"]) == ("black", 1, None)  # its colour now
    assert state.phase == OPTIONAL
    assert "start of" in refused(state, 1, "conceal")  # the window has closed for P2 too
    act(state, 0, "pass")
    act(state, 1, "pass")
    assert state.jousts[-1] == (1, 0, (12, 7), (7, 0))


def test_inversion_only_before_the_holders_first_tile_of_the_phase() -> None:
    state = final(items={"1": ["inversion"]})
    play_set(state, LOW)
    act(state, 1, "play 7")
    assert "before your first tile" in refused(state, 1, "invert 8")  # P2 has submitted its tile
    act(state, 0, "play 1")
    act(state, 0, "pass")
    act(state, 1, "pass")
    assert state.phase == REQUIRED  # the phase's second joust: too late
    assert "start of" in refused(state, 1, "invert 8")
    assert all(a[0] != "invert" for a in state.legal_actions(1))


def test_inversion_at_the_start_of_the_final_joust_names_the_tile() -> None:
    state = final(items={"0": ["inversion"]})
    for _ in range(3):
        play_set(state, 0)  # P1 buys everything; P2, short, keeps 0 and is given 13
    assert state.set_no == 3 and state.phase == REQUIRED
    assert hand(state, 1) == [0, 0, 0]
    assert "ambiguous" in refused(state, 0, "invert 1")
    assert "ambiguous" in refused(state, 0, "invert 13")  # the three given leftovers
    act(state, 0, "invert 1 from 2.1")
    assert hand(state, 0).count(12) == 4 and hand(state, 0).count(1) == 2
    act(state, 0, "play 12 from 2.1")
    act(state, 1, "play 0 from 3.leftover")
    assert "inversion" in state.view(1)["items"]["their_used"]


@pytest.mark.parametrize("scope,allowed", [("held", True), ("phase", False)])
def test_invert_scope_option(scope: str, allowed: bool) -> None:
    state = final(items={"0": ["inversion"]}, invert_scope=scope)
    play_set(state, LOW, [([1], [7, 8, 9, 10, 11])])  # P2 is left with one tile; P1 keeps 2..6
    assert state.phase == LOTS
    play_set(state, LOW)
    if allowed:
        act(state, 0, "invert 2 from 1.1")  # a tile kept from set 1
        assert 11 in [t["value"] for t in state.view(0)["my_tiles"] if t["set"] == 1]
    else:
        assert "only tiles bought in set 2" in refused(state, 0, "invert 2 from 1.1")
        act(state, 0, "invert 2")  # set 2's own 2 is fine
        assert 11 in [t["value"] for t in state.view(0)["my_tiles"] if t["set"] == 2]


@pytest.mark.parametrize("scope", ["held", "phase"])
def test_a_bare_invert_is_ambiguous_among_every_tile_it_may_name(scope: str) -> None:
    """Ruling: `invert 7` is judged among the tiles `invert` may name -- with the
    default scope every tile held, kept ones included -- while `play 7` stays
    judged among this phase's tiles."""
    state = final(items={"0": ["inversion"]}, invert_scope=scope)
    seven = {v: 0 if v <= 7 else 1 for v in range(1, 13)}
    play_set(state, seven, [([1], [8, 9, 10, 11, 12])])  # P2 keeps 0, P1 gets 13; P1 keeps 2..7, 13
    assert state.phase == LOTS and 7 in hand(state, 0)
    play_set(state, seven)
    assert state.phase == REQUIRED and state.set_no == 1
    legal = state.legal_actions(0)
    assert ("play", 7) in legal
    if scope == "held":
        assert ("invert", 7) not in legal and {("invert", 7, 1, 3), ("invert", 7, 2, 3)} <= set(legal)
        why = refused(state, 0, "invert 7")
        assert "ambiguous" in why and "1.3" in why and "2.3" in why
        act(state, 0, "invert 7 from 1.3")  # the kept one
        assert [t["value"] for t in state.view(0)["my_tiles"] if t["from"] == "1.3"] == [6]
    else:
        assert ("invert", 7) in legal and ("invert", 7, 1, 3) not in legal
        act(state, 0, "invert 7")  # only set 2's 7 may be named
        assert [t["value"] for t in state.view(0)["my_tiles"] if t["from"] == "2.3"] == [6]
    # now two 6s are held (2.2, and the inverted 7); `play` still judges by this phase's
    if scope == "held":
        act(state, 0, "play 6")  # the inverted kept 6 cannot be played here: 2.2's it is
        assert state.pending[0] == ("play", 6)
    else:
        assert "ambiguous" in refused(state, 0, "play 6")
        act(state, 0, "play 6 from 2.3")
    act(state, 1, "play 8")
    assert [state._origin_text(t) for t in state.sub[0]] == ["2.2" if scope == "held" else "2.3"]


# --------------------------------------------------------------------------- conceal


def test_conceal_hides_groups_for_the_rest_of_the_phase_only() -> None:
    state = final(items={"1": ["conceal"]})
    play_set(state, LOW)
    act(state, 1, "conceal")
    assert state.to_move() == [0, 1]
    assert not state.view(0)["concealed"] and state.view(0)["items"]["their_used"] == []
    act(state, 0, "play 1")
    act(state, 1, "play 7")
    # from the first step on, no announcement names a group -- P1's tiles' neither
    assert state.view(0)["concealed"] and state.view(0)["items"]["their_used"] == ["conceal"]
    assert [p["group"] for p in state.view(0)["plays"]] == [None, None]
    assert "P2 submits a white tile (group hidden)." in [n.text for n in state.log if n.to is None]
    act(state, 0, "play 2")
    act(state, 1, "pass")
    act(state, 0, "pass")
    act(state, 1, "pass")
    joust(state, [4], [8])  # the phase's later jousts stay concealed
    assert [p["group"] for p in state.view(1)["plays"]] == [None] * 5
    assert "used once" in refused(state, 1, "conceal")
    while state.phase != LOTS:
        joust(state, [hand(state, 0)[0]], [hand(state, 1)[0]])
    play_set(state, LOW)
    act(state, 0, "play 1")
    act(state, 1, "play 7")
    assert [p["group"] for p in state.view(0)["plays"]][-2:] == [1, 3]  # set 2: groups again


def test_conceal_not_in_the_final_joust_nor_later_in_a_phase_nor_without_the_item() -> None:
    state = final(items={"0": ["conceal"], "1": ["inversion"]})
    play_set(state, LOW)
    assert "does not hold" in refused(state, 1, "conceal")
    joust(state, [1], [7])
    assert "start of" in refused(state, 0, "conceal")
    while state.phase != LOTS:
        joust(state, [hand(state, 0)[0]], [hand(state, 1)[0]])
    for _ in range(2):
        play_set(state, 0)
    assert state.set_no == 3 and state.phase == REQUIRED
    assert "not in the final joust" in refused(state, 0, "conceal")
    assert ("conceal",) not in state.legal_actions(0)


def test_both_items_in_one_step_and_a_timeout_uses_none() -> None:
    state = final(items={"0": ["inversion"], "1": ["conceal", "inversion"]})
    play_set(state, LOW)
    act(state, 1, "conceal")
    act(state, 1, "invert 12")  # 12 -> 1
    act(state, 0, "timeout")  # the clock plays P1's smallest tile and uses no item
    act(state, 1, "play 1")
    assert state.view(0)["items"]["their_used"] == ["conceal", "inversion"]
    assert state.view(1)["items"]["their_used"] == []
    assert [state.val[t] for t in state.sub[0]] == [1] and [state.val[t] for t in state.sub[1]] == [1]
    assert [p["group"] for p in state.view(0)["plays"]] == [None, None]


# --------------------------------------------------------------------------- the final joust


def test_final_joust_pools_and_scores_remaining_tiles() -> None:
    state = final()
    for _ in range(3):
        play_set(state, 0)
    # P1: 1..12 three times and the three 13s it was given; P2: three 0s
    assert len(hand(state, 0)) == 39 and hand(state, 1) == [0, 0, 0]
    joust(state, ["1 from 1.1"], ["0 from 1.leftover", "0 from 2.leftover", "0 from 3.leftover"])
    # 1 against 0: P1 scores 0; P2 is out, P1 scores 1 per tile it still holds (38)
    assert state.phase == OVER and state.points == [38, 0]


# --------------------------------------------------------------------------- records and properties


def random_items(rng: random.Random) -> dict[str, list[str]]:
    return {str(s): sorted(rng.sample(ITEMS, rng.randrange(4))) for s in (0, 1)}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_with_items_keeps_the_invariants(seed: int) -> None:
    rng = random.Random(seed)
    state = make_game("joust-final", {"items": random_items(rng)}).new_initial_state()
    assert isinstance(state, JoustState)
    play_checking_invariants(state, rng)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), timeouts=st.booleans())
def test_records_with_items_round_trip(seed: int, timeouts: bool) -> None:
    options = {"items": random_items(random.Random(seed)), "dmo": seed % 2}
    state = random_game("joust-final", seed, options, timeouts=timeouts, stop=None if seed % 3 else 130)
    record = json.loads(json.dumps(to_record(state)))
    again = load(record)
    assert to_record(again) == record
    assert dump(again) == dump(state) and outcome_json(again) == outcome_json(state)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(1, 300))
def test_resample_with_items_depends_only_on_the_seats_knowledge(seed: int, cut: int) -> None:
    options = {"items": {"0": ["inversion", "conceal"], "1": ["inversion", "conceal"]}}
    state = random_game("joust-final", seed, options, stop=cut)
    for seat in (0, 1):
        knowledge_only(state, seat, seed)


def test_resample_after_an_announced_inversion() -> None:
    state = final(items={"0": ["inversion"]})
    play_set(state, LOW)
    act(state, 0, "invert 1")
    act(state, 0, "play 3")
    act(state, 1, "play 7")  # the inversion is now public, its tile is not
    inverted = set()
    for i in range(60):
        world = state.resample(1, random.Random(i))
        assert isinstance(world, JoustState)
        check_places(world, world.chips, len(world.auctions))
        t = world.inv_tile[0]
        assert t >= 0 and world.own[t] == 0 and world.val[t] == 13 - world.orig[t]
        # P1's submitted tile is white, as announced, and from group 1
        (sub,) = world.sub[0]
        assert world.val[sub] % 2 == 1 and sub // 3 == 0
        inverted.add(t)
    assert len(inverted) > 1  # P2 cannot tell which tile it was: the sample varies
    assert state.resample(0, random.Random(0)).inv_tile[0] == state.inv_tile[0]  # P1 knows
