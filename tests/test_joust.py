"""``joust`` (RULES.md section 6): hand-worked scenarios for every rule, properties
over random play, and the heuristic policy's legality (the smoke-test records in tests/data/records
are replayed for every game by test_record.py).

Scenarios drive the game only through its public API (``apply`` with notation and
``apply_chance``); they read the state's fields only to check what happened.
"""

from __future__ import annotations

import json
import random
from typing import Any, Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blackwhite.engine import (
    ActionSyntaxError,
    ChanceEvent,
    GameOverError,
    IllegalActionError,
    IllegalChanceError,
    NotYourTurnError,
    OptionError,
    load,
    make_game,
    outcome_json,
    to_record,
)
from blackwhite.engine.play import random_step
from blackwhite.games.joust import (
    AUCTION,
    HAND,
    LOTS,
    NEXT,
    OPTIONAL,
    OVER,
    REQUIRED,
    SUB,
    USED,
    JoustState,
    closest_rank,
)

from .random_play import policy_match


# --------------------------------------------------------------------------- helpers

STRAIGHT = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]  # leftover 13


def new(gid: str = "joust", **options: Any) -> JoustState:
    state = make_game(gid, options).new_initial_state()
    assert isinstance(state, JoustState)
    return state


def lots(state: JoustState, groups: list[list[int]], leftover: list[int]) -> None:
    state.apply_chance(ChanceEvent("lots", {"groups": groups, "leftover": leftover}))


def act(state: JoustState, seat: int, text: str) -> None:
    state.apply(seat, state.parse(seat, text))


def refused(state: JoustState, seat: int, text: str, kind: type[Exception] = IllegalActionError) -> str:
    """Apply ``text``; it must be refused with ``kind`` and change nothing."""
    before = dump(state), [state.view(s) for s in (0, 1)]
    with pytest.raises(kind) as info:
        act(state, seat, text)
    assert (dump(state), [state.view(s) for s in (0, 1)]) == before
    return str(info.value)


def on_sale(state: JoustState) -> int:
    return state.orig[state._tid(state.set_no, state.group, state.rank)]


def sell(state: JoustState, winner: int, price: int = 0) -> None:
    """Run the auction on now so that ``winner`` buys the tile for ``price``."""
    opener = state.turn
    if opener == winner:
        act(state, winner, f"bid {price}")
        act(state, 1 - winner, "fold")
    elif price == 0:
        act(state, opener, "fold")
    else:
        act(state, opener, "bid 0")
        act(state, winner, f"bid {price}")
        act(state, opener, "fold")


def auction(state: JoustState, owner: dict[int, int] | int, price: int = 0, nexts: Iterable[str] = ()) -> None:
    """Sell every tile of the set: value v to ``owner[v]`` (or all to one seat);
    ``next`` takes the labels in ``nexts``, then the first label left."""
    choices = list(nexts)
    while state.phase in (AUCTION, NEXT):
        if state.phase == NEXT:
            label = choices.pop(0) if choices else state.view(state.chooser)["auction"]["remaining"][0]
            act(state, state.chooser, f"next {label}")
            continue
        v = on_sale(state)
        sell(state, owner if isinstance(owner, int) else owner[v], price)


def joust(state: JoustState, mine: list[Any], theirs: list[Any]) -> None:
    """One joust: each seat's tiles in order (ints or `7 from 2.3`), passing once out."""
    queues = [list(mine), list(theirs)]
    assert state.phase == REQUIRED
    for seat in (0, 1):
        act(state, seat, f"play {queues[seat].pop(0)}")
    while state.phase == OPTIONAL:
        for seat in state.to_move():
            act(state, seat, f"play {queues[seat].pop(0)}" if queues[seat] else "pass")
    assert queues == [[], []]


def hand(state: JoustState, seat: int) -> list[int]:
    return sorted(state.val[t] for t in range(len(state.val)) if state.own[t] == seat and state.stat[t] == HAND)


def dump(state: JoustState) -> str:
    skip = {"log", "history", "drawn", "game", "track"}
    return json.dumps({k: v for k, v in state.__dict__.items() if k not in skip}, sort_keys=True, default=str)


def split_set1(state: JoustState) -> None:
    """Set 1 of STRAIGHT: P1 buys 1 4 6 8 10 12, P2 buys 2 3 5 7 9 11 (6 each)."""
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v in (1, 4, 6, 8, 10, 12) else 1 for v in range(1, 13)})


# --------------------------------------------------------------------------- options


def test_options_are_checked() -> None:
    with pytest.raises(OptionError):
        make_game("joust", {"chips": -1})
    with pytest.raises(OptionError):
        make_game("joust", {"leftover_count": "most"})
    with pytest.raises(OptionError):
        make_game("joust", {"items": {"0": ["inversion"]}})  # items belong to the final
    assert make_game("joust", {"chips": 40}).new_initial_state().chips == [40, 40]  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- lots


def test_lots_must_be_a_partition_and_say_why() -> None:
    state = new()
    cases = [
        ({"groups": [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "leftover": [13]}, "4 groups"),
        ({"groups": [[1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]], "leftover": [12]}, "group 1"),
        ({"groups": STRAIGHT, "leftover": [13, 13]}, "exactly 1"),
        ({"groups": STRAIGHT, "leftover": []}, "exactly 1"),
        ({"groups": [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 11]], "leftover": [13]}, "twice"),
        ({"groups": STRAIGHT, "leftover": [14]}, "not a tile"),
        ({"groups": [[0, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], "leftover": [13]}, "not a tile"),
        ({"groups": STRAIGHT, "leftover": ["13"]}, "not a tile"),
        ({"groups": STRAIGHT, "leftover": [True]}, "not a tile"),
        ({"groups": STRAIGHT, "leftover": [13], "seat": 0}, "unknown field"),
    ]
    for data, why in cases:
        with pytest.raises(IllegalChanceError) as info:
            state.apply_chance(ChanceEvent("lots", data))
        assert why in str(info.value), (data, str(info.value))
    assert state.phase == LOTS and state.history == []
    with pytest.raises(IllegalChanceError):
        state.apply_chance(ChanceEvent("deal", {"groups": STRAIGHT, "leftover": [13]}))


def test_lots_values_in_any_order_and_sampled_lots_are_canonical() -> None:
    state = new()
    lots(state, [[3, 1, 2], [6, 4, 5], [9, 7, 8], [12, 11, 10]], [13])
    # the Balance of group 1 (value 2) is the first tile on sale
    assert on_sale(state) == 2
    view = state.view(0)
    assert [t["colour"] for t in view["lots"][0]["groups"][0]["tiles"]] == ["white", "black", "white"]
    assert all(t["value"] is None for g in view["lots"][0]["groups"] for t in g["tiles"])
    event = new().sample_chance(random.Random(4))
    assert all(grp == sorted(grp) for grp in event.data["groups"])
    values = sorted([v for g in event.data["groups"] for v in g] + list(event.data["leftover"]))
    assert values == list(range(1, 14))


def test_chance_only_when_due() -> None:
    state = new()
    split_set1(state)
    with pytest.raises(IllegalChanceError):
        lots(state, STRAIGHT, [13])


# --------------------------------------------------------------------------- auctions


def test_auction_bids_folds_and_payment() -> None:
    state = new(dmo=1)
    lots(state, STRAIGHT, [13])
    assert state.to_move() == [1]  # the DMO opens the first auction of the set
    assert refused(state, 0, "bid 3", NotYourTurnError)
    act(state, 1, "bid 0")  # a bid of 0 is a bid
    assert "more than the current bid" in refused(state, 0, "bid 0")
    act(state, 0, "bid 5")
    assert "may not exceed your chips" in refused(state, 1, "bid 91")
    act(state, 1, "bid 90")  # all in is allowed
    act(state, 0, "fold")
    assert state.chips == [90, 0]  # the winner pays its bid, the folder nothing
    assert state.auctions == [(0, 0, 1, 1, 90)]
    # only the winner is told the value
    assert state.view(1)["lots"][0]["groups"][0]["tiles"][1]["value"] == 2
    assert state.view(0)["lots"][0]["groups"][0]["tiles"][1]["value"] is None
    assert [t["value"] for t in state.view(1)["my_tiles"]] == [2]
    # the winner chooses the next label and opens it; with no chips it can only bid 0
    assert state.phase == NEXT and state.to_move() == [1]
    act(state, 1, "next giant")
    assert state.to_move() == [1] and on_sale(state) == 3
    assert state.legal_actions(1) == [("bid", 0), ("fold",)]
    act(state, 1, "bid 0")
    assert state.legal_actions(0)[:2] == [("bid", 1), ("bid", 2)]
    assert state.legal_actions(0)[-1] == ("fold",) and len(state.legal_actions(0)) == 91
    act(state, 0, "bid 1")
    assert state.legal_actions(1) == [("fold",)]  # cannot bid more than its chips
    act(state, 1, "fold")
    assert state.chips == [89, 0]


def test_opener_folding_at_once_gives_the_tile_free() -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    act(state, 0, "fold")
    assert state.auctions == [(0, 0, 1, 1, 0)] and state.chips == [90, 90]


def test_next_choice_rules_and_clock() -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    sell(state, 0)
    assert state.phase == NEXT and state.to_move() == [0]
    assert "already sold" in refused(state, 0, "next balance")
    assert "next" in refused(state, 0, "bid 3")
    assert refused(state, 1, "next minute", NotYourTurnError)
    assert state.legal_actions(0) == [("next", 0), ("next", 2)]
    act(state, 0, "timeout")  # the smaller remaining label: Minute
    assert on_sale(state) == 1
    sell(state, 1)
    assert on_sale(state) == 3 and state.to_move() == [1]  # the last label follows; P2 won last


def _group_two_first(groups: list[list[int]], leftover: int, nexts: list[str]) -> tuple[str, int]:
    state = new()
    lots(state, groups, [leftover])
    for _ in range(3):
        if state.phase == NEXT:
            act(state, state.chooser, f"next {nexts.pop(0)}")
        sell(state, 0)
    view = state.view(1)
    return view["lots"][0]["groups"][1]["first"], on_sale(state)


def test_group_order_closest_to_the_last_tile_sold() -> None:
    # group 1 sold Balance 2, Minute 1, Giant 3: last 3 -> group 2's Minute 4
    assert _group_two_first(STRAIGHT, 13, ["minute"]) == ("minute", 4)
    # group 1 [11 12 13] sold B, G, M: last 11 -> group 2 [1 2 3]'s Giant 3
    assert _group_two_first([[11, 12, 13], [1, 2, 3], [4, 5, 6], [7, 8, 9]], 10, ["giant"]) == ("giant", 3)
    # last 8 -> group 2 [1 7 11]: 7 is closest, the Balance
    assert _group_two_first([[8, 12, 13], [1, 7, 11], [2, 3, 4], [5, 6, 9]], 10, ["giant"]) == ("balance", 7)


def test_group_order_tie_goes_to_balance() -> None:
    # last 8; group 2 [6 10 11]: Minute 6 and Balance 10 are both 2 away
    assert _group_two_first([[8, 12, 13], [6, 10, 11], [1, 2, 3], [4, 5, 7]], 9, ["giant"]) == ("balance", 10)
    # last 8; group 2 [1 6 10]: Balance 6 and Giant 10 are both 2 away
    assert _group_two_first([[8, 12, 13], [1, 6, 10], [2, 3, 4], [5, 7, 9]], 11, ["giant"]) == ("balance", 6)
    assert closest_rank([6, 10, 11], 8) == 1 and closest_rank([1, 6, 10], 8) == 1


def test_openers_across_groups_and_sets() -> None:
    state = new(dmo=1)
    lots(state, STRAIGHT, [13])
    seen = []
    winners = iter([0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0])
    while state.phase in (AUCTION, NEXT):
        if state.phase == NEXT:
            act(state, state.chooser, "timeout")
            continue
        seen.append(state.turn)
        sell(state, next(winners))
    # the DMO opens the first auction; every other one is opened by the last winner
    assert seen == [1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1]
    while state.phase != LOTS:
        joust(state, [hand(state, 0)[0]], [hand(state, 1)[0]])
    lots(state, STRAIGHT, [13])
    assert state.turn == 1  # set 2 opens with the DMO again, though P1 won the last auction


def test_auction_timeout_folds() -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    act(state, 0, "bid 4")
    act(state, 1, "timeout")
    assert state.auctions[-1] == (0, 0, 1, 0, 4)


# --------------------------------------------------------------------------- leftovers


def test_leftover_goes_unseen_to_the_seat_with_fewer_tiles() -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v <= 5 else 1 for v in range(1, 13)})  # 5 against 7
    left = 12  # tile id of set 1's leftover
    assert state.own[left] == 0 and state.stat[left] == HAND
    assert any(e["value"] == 13 for e in state.view(0)["lots"][0]["leftovers"])
    assert state.view(1)["lots"][0]["leftovers"] == [{"set": 1, "owner": 0, "value": None}]
    assert 13 not in [t["value"] for t in state.view(1)["my_tiles"]]
    assert state.view(0)["tiles_in_hand"] == [6, 7]


def test_equal_counts_nobody_gets_the_leftover() -> None:
    state = new()
    split_set1(state)
    assert state.own[12] == -1 and state.stat[12] == 0
    for seat in (0, 1):
        assert state.view(seat)["lots"][0]["leftovers"] == [{"set": 1, "owner": None, "value": None}]
    assert state.phase == REQUIRED


def test_leftover_count_option_held_counts_kept_tiles() -> None:
    # Set 1: P1 keeps 5 tiles, P2 one.  Set 2: P1 buys 5 against 7, short by the
    # default count ('set'), but holding 10 against 8 by 'held'.
    for rule, expected in (("set", 0), ("held", 1)):
        state = new(leftover_count=rule)
        lots(state, STRAIGHT, [13])
        auction(state, {v: 0 if v <= 6 else 1 for v in range(1, 13)})
        joust(state, [1], [7, 8, 9, 10, 11])  # P2 is left with one tile: the phase ends
        assert state.phase == LOTS and hand(state, 0) == [2, 3, 4, 5, 6] and hand(state, 1) == [12]
        lots(state, STRAIGHT, [13])
        auction(state, {v: 0 if v <= 5 else 1 for v in range(1, 13)})
        assert state.leftover_to[1] == expected
        assert state.own[state.ns + 12] == expected


# --------------------------------------------------------------------------- jousts


def test_joust_tie_both_score_and_win_scores_the_losers_smallest() -> None:
    state = new()
    split_set1(state)
    assert state.to_move() == [0, 1] and state.simultaneous()
    act(state, 0, "play 4")
    # the first submission is secret: P2's view shows only that P1 has submitted
    view = state.view(1)
    assert view["submitted"] == [0] and view["my_pending"] is None and "play 4" not in json.dumps(view)
    assert "required" in refused(state, 1, "pass")
    act(state, 1, "play 3")
    # announced: colour and group, not the value
    theirs = [p for p in state.view(0)["plays"] if p["seat"] == 1]
    assert theirs == [
        {"joust": 1, "phase": 1, "seat": 1, "set": 1, "group": 1, "colour": "white", "value": None}
    ]
    assert state.phase == OPTIONAL and state.to_move() == [0, 1]
    act(state, 0, "play 1")
    act(state, 1, "play 2")
    act(state, 0, "pass")
    act(state, 1, "pass")
    # 4+1 = 5 against 3+2 = 5: both score the other's smallest tile
    assert state.points == [2, 1]
    assert [p["value"] for p in state.view(0)["plays"]] == [4, 3, 1, 2]
    joust(state, [12, 6], [11, 5])  # 18 against 16: P1 scores 5, P2's smallest
    assert state.points == [7, 1]
    assert state.jousts[-1] == (2, 0, (18, 16), (5, 0))


def test_optional_steps_the_five_tile_limit_and_who_is_asked() -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v <= 6 else 1 for v in range(1, 13)})
    act(state, 0, "play 1")
    act(state, 1, "play 7")
    for v in (2, 3, 4, 5):
        assert state.to_move() == [0, 1]
        act(state, 1, "pass")  # steps go on while anyone submitted
        act(state, 0, f"play {v}")
    # P1 has submitted 5 tiles: it is not asked again, P2 alone is
    assert state.to_move() == [1] and not state.simultaneous()
    assert refused(state, 0, "play 6", NotYourTurnError)
    assert state.legal_actions(0) == []
    act(state, 1, "play 8")
    assert state.to_move() == [1]
    act(state, 1, "pass")
    assert state.jousts[-1] == (1, 0, (15, 15), (7, 1))
    # P1 holds a single tile: the phase ends and every tile left is kept
    assert state.phase == LOTS and hand(state, 0) == [6] and hand(state, 1) == [9, 10, 11, 12]


def test_a_seat_with_no_tile_left_is_not_asked() -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10) else 1 for v in range(1, 13)})
    assert hand(state, 1) == [11, 12, 13]  # 2 bought + the leftover
    act(state, 0, "play 10")
    act(state, 1, "play 11")
    act(state, 0, "play 9")
    act(state, 1, "play 12")
    act(state, 0, "pass")
    act(state, 1, "play 13")
    assert state.to_move() == [0]  # P2 has nothing left to add
    act(state, 0, "play 8")
    act(state, 0, "play 7")
    act(state, 0, "pass")
    assert state.jousts[-1] == (1, 0, (34, 36), (0, 7))
    assert state.phase == LOTS


def test_playing_tiles_you_do_not_hold_or_from_another_set() -> None:
    state = new()
    split_set1(state)
    assert "no tile 2" in refused(state, 0, "play 2")
    assert "no tile 13" in refused(state, 0, "play 13")
    assert "1.3" in refused(state, 0, "play 4 from 1.3")  # it is the 1.2 Minute
    act(state, 0, "play 4 from 1.2")  # `from` is accepted even when not needed
    act(state, 1, "play 3")
    act(state, 0, "pass")
    act(state, 1, "pass")
    joust(state, [1, 6, 8, 10, 12], [2, 5, 7, 9, 11])
    assert state.phase == LOTS and hand(state, 0) == [] and hand(state, 1) == []
    # set 2: both keep nothing from set 1; P1 buys 1..6, P2 7..12
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v <= 6 else 1 for v in range(1, 13)})
    joust(state, [1, 2, 3], [7])
    joust(state, [4], [8, 9, 10, 11])  # P2 keeps one tile: the phase ends, P1 keeps 5 and 6
    assert state.phase == LOTS and hand(state, 0) == [5, 6]
    # set 3: kept tiles of set 2 may not be played in set 3's phase
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v <= 6 else 1 for v in range(1, 13)})
    why = refused(state, 0, "play 5 from 2.2")
    assert "only tiles bought in set 3" in why


def test_a_kept_tile_does_not_make_a_bare_play_ambiguous_in_a_set_phase() -> None:
    """Ruling: `play 7` is ambiguous only among the tiles playable in this phase."""
    state = new()
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v <= 7 else 1 for v in range(1, 13)})  # P2 is short: gets 13
    joust(state, [1], [8, 9, 10, 11, 12])  # P2 is left with one tile: P1 keeps 2..7
    assert state.phase == LOTS and hand(state, 0) == [2, 3, 4, 5, 6, 7]
    lots(state, STRAIGHT, [13])
    auction(state, {v: 0 if v <= 7 else 1 for v in range(1, 13)})
    assert ("play", 7) in state.legal_actions(0) and ("play", 7, 1, 3) not in state.legal_actions(0)
    assert "only tiles bought in set 2" in refused(state, 0, "play 7 from 1.3")
    act(state, 0, "play 7")  # the set-2 7: the kept 1.3 7 cannot be played here
    act(state, 1, "play 8")
    assert [state._origin_text(t) for t in state.sub[0]] == ["2.3"]


def test_equal_tiles_from_two_sets_make_a_bare_play_ambiguous_in_the_final_joust() -> None:
    state = new()
    for _ in range(3):
        lots(state, STRAIGHT, [13])
        auction(state, 0)  # P1 buys all twelve; P2 gets the 13; no set phase starts
    assert state.set_no == 3
    assert ("play", 7) not in state.legal_actions(0) and ("play", 7, 2, 3) in state.legal_actions(0)
    why = refused(state, 0, "play 7")
    assert "ambiguous" in why and "1.3" in why and "2.3" in why and "3.3" in why
    act(state, 0, "play 7 from 2.3")
    act(state, 1, "play 13 from 1.leftover")
    assert [state._origin_text(t) for t in state.sub[0]] == ["2.3"]


def test_timeouts_in_a_joust_and_the_note_names_no_value() -> None:
    state = new()
    split_set1(state)
    act(state, 1, "play 9")
    act(state, 0, "timeout")  # the required tile: P1's smallest
    assert state.sub[0] == [0] and state.val[0] == 1
    notes = [n.text for n in state.log if n.to is None]
    assert "P1 timed out." in notes and not any("smallest" in n for n in notes)
    assert "Your time ran out: play smallest was played for you." in [n.text for n in state.log if n.to == 0]
    act(state, 0, "timeout")  # an optional step: pass
    act(state, 1, "timeout")
    assert state.jousts[-1].totals == (1, 9)
    assert "timeout" in [e.get("action") for e in to_record(state)["events"]]
    # `play smallest` is the clock's stand-in, not a move a seat may make
    assert "timeout" in refused(state, 0, "play smallest")


def test_a_timeout_in_an_open_simultaneous_step_is_public_and_says_nothing_more() -> None:
    """Ruling: "P1 timed out." is public at once, while P2 has not yet chosen (in live
    play everyone sees the clock run out); the stand-in played stays P1's."""
    state = new()
    split_set1(state)
    act(state, 0, "timeout")
    assert state.to_move() == [1]
    public, theirs = state.view(None), state.view(1)
    assert public["log"][-1] == "P1 timed out." and theirs["log"][-1] == "P1 timed out."
    assert public["submitted"] == [0] and public["my_pending"] is None
    assert "smallest" not in json.dumps(public) and "smallest" not in json.dumps(theirs)
    assert state.view(0)["log"][-1] == "Your time ran out: play smallest was played for you."
    check_public_view(state)


def test_the_public_view_before_and_after_a_reveal() -> None:
    state = new()
    split_set1(state)
    check_public_view(state)
    assert state.view(None)["tile_range"] == {"lowest": 1, "highest": 13}
    act(state, 0, "play 12")
    act(state, 1, "play 3")
    public = state.view(None)
    assert [(p["seat"], p["colour"], p["group"], p["value"]) for p in public["plays"]] == [
        (0, "black", 4, None),
        (1, "white", 1, None),
    ]
    act(state, 0, "pass")
    act(state, 1, "pass")
    assert [p["value"] for p in state.view(None)["plays"]] == [12, 3]
    check_public_view(state)


def test_wrong_kind_of_action_for_the_moment() -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    assert "bid N" in refused(state, 0, "play 3")
    assert "bid N" in refused(state, 0, "pass")
    assert "no keep" in refused(state, 0, "keep 3")
    assert "no items" in refused(state, 0, "conceal")
    assert "no items" in refused(state, 0, "invert 3")
    split = new()
    split_set1(split)
    assert "play N" in refused(split, 0, "bid 3")
    assert "play N" in refused(split, 0, "next giant")


@pytest.mark.parametrize(
    "text", ["", "bid", "bid x", "bid -3", "next huge", "play 14", "play 0", "play 3 from 4.1",
             "play 3 from 1.5", "play 3 from 1", "fold now", "keep 14", "dance"]
)
def test_unreadable_actions(text: str) -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    with pytest.raises(ActionSyntaxError):
        state.parse(0, text)


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_hand_made_tuples_that_are_no_action_are_refused_and_change_nothing(gid: str) -> None:
    state = new(gid, **({"items": {"0": ["inversion", "conceal"]}} if gid == "joust-final" else {}))
    lots(state, STRAIGHT, [13] if gid == "joust" else [0, 13])
    for action in [(), ("bid",), ("bid", 2.5), ("bid", True), ("bid", "3"), ("next", 5), ("play",),
                   ("invert", 3.0), ("fold", 1), ("dance",), ["bid", 3]]:
        before = dump(state), state.view(0), state.view(1)
        with pytest.raises(ValueError):
            state.apply(0, action)  # type: ignore[arg-type]
        assert (dump(state), state.view(0), state.view(1)) == before
    state.apply(0, ("bid", 3))
    assert state.bid == 3


@pytest.mark.parametrize("text", ["bid \uff13", "bid \u0663", "play \uff17", "play 7 from \uff12.3", "bid \u00b2"])
def test_numbers_are_ascii_digits_only(text: str) -> None:
    state = new()
    lots(state, STRAIGHT, [13])
    for parse in (state.parse, state.parse_action):
        with pytest.raises(ActionSyntaxError, match="(?i)ascii"):
            parse(0, text)


def test_notation_is_forgiving_and_round_trips() -> None:
    state = new()
    assert state.parse(0, "  PLAY 7  From 2 . leftover ") == ("play", 7, 2, 0)
    assert state.parse(0, "Next Giant") == ("next", 2)
    for action in [("bid", 12), ("fold",), ("next", 0), ("play", 7), ("play", 7, 2, 3), ("play", 7, 2, 0),
                   ("pass",), ("smallest",), ("keepsmaller",)]:
        assert state.parse(0, state.format_action(action)) == action


# --------------------------------------------------------------------------- final joust and end


def _to_final(state: JoustState, sets: list[tuple[dict[int, int] | int, list[tuple[list[Any], list[Any]]]]]) -> None:
    for owner, jousts in sets:
        lots(state, STRAIGHT, [13])
        auction(state, owner)
        for mine, theirs in jousts:
            joust(state, mine, theirs)
        assert state.phase in (LOTS, REQUIRED, OVER)


def test_final_joust_pools_sets_and_scores_remaining_tiles() -> None:
    state = new()
    # each set P1 buys all 12 and P2 gets the leftover: no set joust (P2 holds 1 tile)
    _to_final(state, [(0, []), (0, []), (0, [])])
    assert state.set_no == 3 and state.phase == REQUIRED
    assert hand(state, 0) == sorted(list(range(1, 13)) * 3) and hand(state, 1) == [13, 13, 13]
    # bare `play 5` names three tiles: refused as ambiguous
    assert "ambiguous" in refused(state, 0, "play 5")
    assert ("play", 5) not in state.legal_actions(0) and ("play", 5, 2, 2) in state.legal_actions(0)
    act(state, 0, "play 5 from 2.2")
    act(state, 1, "play 13 from 3.leftover")
    # the final's announcements also give the set
    theirs = [p for p in state.view(0)["plays"] if p["seat"] == 1][-1]
    assert (theirs["set"], theirs["group"], theirs["colour"], theirs["value"]) == (3, "leftover", "white", None)
    assert any("set 3, leftover" in n.text for n in state.log if n.to is None)
    act(state, 0, "pass")
    assert "ambiguous" in refused(state, 1, "play 13")  # 13 from 1.leftover and 2.leftover
    act(state, 1, "play 13 from 1.leftover")
    act(state, 0, "pass")
    act(state, 1, "play 13")  # now only one 13 is left
    assert state.to_move() == [0]  # P2 has no tile to add
    act(state, 0, "pass")
    # 5 against 39: P2 scores P1's 5; P2 is out, P1 scores 1 per remaining tile (35)
    assert state.phase == OVER
    assert state.points == [35, 5]
    assert state.result().winner == 0


def test_final_joust_both_run_out_together_nobody_scores_remaining() -> None:
    state = new()
    five = ([1, 4, 6, 8, 10], [2, 3, 5, 7, 9])
    owner = {v: 0 if v in (1, 4, 6, 8, 10, 12) else 1 for v in range(1, 13)}
    _to_final(state, [(owner, [five]), (owner, [five]), (owner, [five])])
    # each set: 29 against 26, P1 scores 2; P1 keeps its 12, P2 its 11
    assert hand(state, 0) == [12, 12, 12] and hand(state, 1) == [11, 11, 11]
    assert state.points == [6, 0] and state.set_no == 3
    for k in (1, 2, 3):
        assert state.phase == REQUIRED
        joust(state, [f"12 from {k}.4"], [f"11 from {k}.4"])
    # the last joust empties both pools at once: only the jousts scored (11 each)
    assert state.phase == OVER and state.points == [39, 0]


def test_a_seat_with_no_tile_at_the_final_lets_the_other_score_at_once() -> None:
    state = new()
    # P2 buys 12 and gets the leftover, plays both; P1 keeps its other 10 tiles every set
    owner = {v: 1 if v == 12 else 0 for v in range(1, 13)}
    _to_final(state, [(owner, [([1], [12, 13])]), (owner, [([1], [12, 13])]), (owner, [([1], [12, 13])])])
    assert state.phase == OVER
    assert state.points == [30, 3]  # P2 scored 1 three times; P1 scores its 30 kept tiles at once


def test_more_points_wins() -> None:
    state = new(dmo=1)
    owner = {v: 0 if v in (1, 4, 6, 8, 10, 12) else 1 for v in range(1, 13)}
    # each set: 5 against 5 (P1 +2, P2 +1), then 36 against 32 (P1 +5); nothing kept
    _to_final(state, [(owner, [([1, 4], [2, 3]), ([6, 8, 10, 12], [5, 7, 9, 11])])] * 3)
    assert state.phase == OVER and state.points == [21, 3]
    assert state.result().winner == 0  # though P2 is the DMO
    assert outcome_json(state) == {"game": "joust", "finished": True, "winner": 0, "scores": [21, 3]}


@pytest.mark.parametrize("dmo", [0, 1])
def test_equal_points_go_to_the_dmo_and_an_empty_final(dmo: int) -> None:
    state = new(dmo=dmo)
    # each set P1 buys 1..6, P2 7..12; 6 against 9+10+11+12 (P2 +6), then 1+2+3+4+5
    # against 7+8, a tie (P1 +7, P2 +1): 7 - 7 a set and no tile kept
    _to_final(state, [({v: 0 if v <= 6 else 1 for v in range(1, 13)},
                       [([6], [9, 10, 11, 12]), ([1, 2, 3, 4, 5], [7, 8])])] * 3)
    # nobody has a tile for the final joust: it ends at once, nobody scoring
    assert state.phase == OVER and state.points == [21, 21]
    assert state.result().winner == dmo


# --------------------------------------------------------------------------- record-level rules


def test_after_the_end_every_event_is_illegal_and_resign_mid_step() -> None:
    state = new()
    _to_final(state, [(0, [])] * 3)
    act(state, 0, "play 1 from 3.1")
    act(state, 1, "resign")  # the partial step has no effect
    assert state.result().winner == 0 and state.sub == [[], []]
    with pytest.raises(GameOverError):
        act(state, 0, "play 2")
    with pytest.raises(GameOverError):
        lots(state, STRAIGHT, [13])


# --------------------------------------------------------------------------- properties


def random_game(gid: str, seed: int, options: dict[str, Any] | None = None, timeouts: bool = False,
                stop: int | None = None) -> JoustState:
    """A random legal game (checked path), optionally with timeouts, maybe cut short."""
    rng = random.Random(seed)
    state = make_game(gid, options or {}).new_initial_state()
    assert isinstance(state, JoustState)
    events = 0
    while not state.is_over() and (stop is None or events < stop):
        if not state.is_chance() and timeouts and rng.random() < 0.05:
            act(state, state.to_move()[0], "timeout")
        else:
            random_step(state, rng, fast=False)
        events += 1
        assert events < 5000
    return state


def told(state: JoustState, seat: int) -> set[tuple[int, int]]:
    """(set 1.., value) pairs ``seat`` was told: its own tiles, what it was shown, reveals."""
    out = set()
    ns = state.ns
    for t in range(len(state.val)):
        if state.know[t] >> seat & 1:
            out.add((t // ns + 1, state.orig[t]))
        if state.own[t] == seat:
            out.add((t // ns + 1, state.val[t]))
    for p in state.plays:
        if p.value >= 0:
            out.add((p.set + 1, p.value))
    return out


def check_view(state: JoustState, seat: int) -> None:
    """No value in the view's data that the seat was not told, and the right ones shown."""
    view = state.view(seat)
    known = told(state, seat)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("value", "original"):
                if isinstance(node.get(key), int):
                    assert (node["set"], node[key]) in known, (seat, node)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(view)
    for p, entry in zip(state.plays, view["plays"]):
        if p.seat != seat:
            assert entry["value"] == (p.value if p.value >= 0 else None)
    if view["keep"] is not None:
        assert seat == state.keeper
    mine = sorted((t["from"], t["value"]) for t in view["my_tiles"])
    assert mine == sorted(
        (state._origin_text(t), state.val[t]) for t in range(len(state.val)) if state.own[t] == seat
    )


PUBLIC_FIELDS = (
    "phase", "set", "tile_range", "chips", "points", "favoured", "auctions", "tiles_in_hand",
    "jousts", "concealed", "auction", "joust", "to_move", "submitted", "finished", "winner", "scores",
)


def check_public_view(state: JoustState) -> None:
    """The public view (a spectator's) holds no value until it is revealed, no seat's
    own tiles or pending choice, and agrees with each seat's view on public facts."""
    public = state.view(None)
    assert public["seat"] is None and public["my_pending"] is None
    assert public["my_tiles"] == [] and public["playable"] == [] and public["keep"] is None
    assert public["log"] == [n.text for n in state.log if n.to is None]
    for lot in public["lots"]:
        assert all(t["value"] is None for g in lot["groups"] for t in g["tiles"])
        assert all(e["value"] is None for e in lot["leftovers"])
    for p, entry in zip(state.plays, public["plays"], strict=True):
        assert "from" not in entry and entry["value"] == (p.value if p.value >= 0 else None)
    assert public["items"] == {
        "held": [sorted(state.items[0]), sorted(state.items[1])],
        "used": [sorted(state.used_pub[0]), sorted(state.used_pub[1])],
    }
    for seat in (0, 1):
        mine = state.view(seat)
        assert {k: mine[k] for k in PUBLIC_FIELDS} == {k: public[k] for k in PUBLIC_FIELDS}
        blanked = json.loads(json.dumps(mine["lots"]))
        for lot in blanked:
            for entry in [t for g in lot["groups"] for t in g["tiles"]] + lot["leftovers"]:
                entry["value"] = None
            lot["leftovers"].sort(key=lambda e: (2 if e["owner"] is None else e["owner"]))
        assert blanked == public["lots"]
        assert [{k: v for k, v in e.items() if k not in ("value", "from")} for e in mine["plays"]] == [
            {k: v for k, v in e.items() if k != "value"} for e in public["plays"]
        ]


def check_places(state: JoustState, before_chips: list[int], before_sales: int) -> None:
    """Every dealt tile is in exactly one place; chips only fall by winning bids."""
    for t in range(len(state.val)):
        if state.orig[t] < 0:
            assert state.own[t] == -1 and state.stat[t] == 0
            continue
        if state.own[t] < 0:
            assert state.stat[t] == 0
        else:
            assert state.stat[t] in (HAND, SUB, USED)
        in_sub = [s for s in (0, 1) if t in state.sub[s]]
        assert (state.stat[t] == SUB) == bool(in_sub) and in_sub in ([], [state.own[t]])
    for seat in (0, 1):
        assert len(state.sub[seat]) == len(set(state.sub[seat])) <= 5
        assert state.held[seat] == [t for t in range(len(state.val)) if state.own[t] == seat and state.stat[t] == HAND]
    assert sorted(p.tile for p in state.plays) == sorted(set(p.tile for p in state.plays))
    for k in range(state._dealt()):
        values = sorted(state.orig[k * state.ns + i] for i in range(state.ns))
        assert values == list(range(state.game.low, 14))
    paid = [0, 0]
    for sale in state.auctions[before_sales:]:
        paid[sale.winner] += sale.price
    assert state.chips == [before_chips[0] - paid[0], before_chips[1] - paid[1]]
    assert min(state.chips) >= 0


def play_checking_invariants(state: JoustState, rng: random.Random) -> None:
    """Random play to the end, checked and fast steps mixed, with the invariants after
    every step and views checked now and then (both joust games use it)."""
    while not state.is_over():
        chips, sales = state.chips[:], len(state.auctions)
        random_step(state, rng, fast=bool(rng.randrange(2)))
        check_places(state, chips, sales)
        if rng.random() < 0.2:
            for seat in (0, 1):
                check_view(state, seat)
            check_public_view(state)
    assert state.result().finished


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_invariants(seed: int) -> None:
    rng = random.Random(seed)
    state = make_game("joust").new_initial_state()
    assert isinstance(state, JoustState)
    play_checking_invariants(state, rng)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), timeouts=st.booleans())
def test_records_round_trip(seed: int, timeouts: bool) -> None:
    state = random_game("joust", seed, timeouts=timeouts, stop=None if seed % 3 else 120)
    record = json.loads(json.dumps(to_record(state)))
    again = load(record)
    assert to_record(again) == record
    assert dump(again) == dump(state)
    assert outcome_json(again) == outcome_json(state)


def knowledge_only(state: JoustState, seat: int, seed: int) -> None:
    """resample reads only what the seat knows: a world drawn from another world the
    seat cannot tell apart is drawn identically, and that world looks the same to it."""
    other = state.resample(seat, random.Random(seed + 1))
    assert isinstance(other, JoustState)
    keep = {"log", "to_move", "submitted"}
    assert {k: v for k, v in other.view(seat).items() if k not in keep} == {
        k: v for k, v in state.view(seat).items() if k not in keep
    }
    a = state.resample(seat, random.Random(seed))
    b = other.resample(seat, random.Random(seed))
    assert dump(a) == dump(b)
    assert dump(a) == dump(state.resample(seat, random.Random(seed)))
    assert isinstance(a, JoustState)
    check_places(a, a.chips, len(a.auctions))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(1, 250))
def test_resample_depends_only_on_the_seats_knowledge(seed: int, cut: int) -> None:
    state = random_game("joust", seed, stop=cut)
    for seat in (0, 1):
        knowledge_only(state, seat, seed)


#: every field of a joust position, by what ``resample`` does with it (docstring there)
RESAMPLE_FIELDS = {
    "public": {
        "game", "num_seats", "ns", "chips", "points", "first", "order", "auctions", "jousts",
        "leftover_to", "set_no", "group", "rank", "turn", "bid", "high", "last_winner", "chooser",
        "keeper", "step", "joust_no", "phase_first", "concealed", "opt_seats", "items", "used_pub",
        "inv_phase", "phase", "own", "know", "ended_by",
    },
    # a seat's own part kept, the other seat's part redrawn or dropped
    "redrawn": {"val", "orig", "stat", "held", "plays", "sub", "inv_tile", "used", "hold", "pending"},
    "dropped": {"log", "history", "drawn", "track"},
}


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_every_field_of_a_position_is_accounted_for_by_resample(gid: str) -> None:
    """A new field must be sorted into public, redrawn or dropped (and resample told)."""
    state = random_game(gid, 3, stop=150)
    assert set(vars(state)) == set().union(*RESAMPLE_FIELDS.values())
    world = state.resample(0, random.Random(1))
    assert (world.log, world.history, world.drawn, world.track) == ([], [], set(), False)
    for name in RESAMPLE_FIELDS["public"]:
        assert getattr(world, name) == getattr(state, name), name


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_the_clock_is_30_seconds_per_action_without_reserve(gid: str) -> None:
    rule = make_game(gid).clock_rule()
    assert rule.per_action == {"action": 30.0} and rule.reserve == 0
    assert ("keep" in rule.on_timeout) == (gid == "joust-final")


def test_resample_redraws_hidden_values_consistently() -> None:
    state = new()
    lots(state, [[2, 9, 13], [1, 5, 6], [3, 7, 10], [4, 8, 11]], [12])
    auction(state, {v: 0 if v in (2, 9, 13) else 1 for v in range(1, 14)})  # P1 also gets the leftover 12
    act(state, 0, "play 2")
    # a sampled world for P2 forgets P1's secret submission; P1's own keeps it
    assert state.resample(1, random.Random(0)).pending == {}
    assert state.resample(0, random.Random(0)).pending == {0: ("play", 2)}
    act(state, 1, "play 8")  # announced: black, group 4
    seen = set()
    for i in range(40):
        world = state.resample(0, random.Random(i))
        assert isinstance(world, JoustState)
        check_places(world, world.chips, len(world.auctions))
        assert hand(world, 0) == hand(state, 0)  # own tiles untouched
        mine = [world.val[t] for t in world.sub[1]]
        assert len(mine) == 1 and mine[0] % 2 == 0 and world.sub[1][0] // 3 == 3
        for g in range(4):
            trip = [world.orig[3 * g + r] for r in range(3)]
            assert trip == sorted(trip)
            assert [v % 2 for v in trip] == [state.orig[3 * g + r] % 2 for r in range(3)]
        seen.add(tuple(world.orig[:13]))
    assert len(seen) > 1  # P1 knows only its 2 9 13 and 12: the rest really is redrawn


# --------------------------------------------------------------------------- the heuristic policy


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_policy_returns_only_legal_actions(gid: str) -> None:
    options = {"items": {"0": ["inversion", "conceal"], "1": ["equaliser", "inversion"]}} if gid == "joust-final" else {}
    for seed in range(3):
        assert policy_match(gid, options, seed)[0].is_over()


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_policy_beats_random_play(gid: str) -> None:
    wins = 0
    for seed in range(10):
        me = seed % 2
        wins += policy_match(gid, {}, seed, policy_seats={me})[0].result().winner == me
    assert wins >= 8  # it won 100 of 100 such games when written
