"""The joust-final board: the joust board plus the two leftovers' sharing (keep), the
items (inversion, conceal, equaliser), rendered from real states (helpers in
test_game_grouping and test_game_joust)."""

from __future__ import annotations

from typing import Any

from blackwhite.engine import State
from tests.web.test_game_grouping import (
    assert_controls_ok,
    board,
    legal_texts,
    parse,
    random_states,
)
from tests.web.test_game_joust import P1_BUYS, _a, _state, numbers_shown, play_joust_set_in_the_browser

#: P2's Minute 10, leftovers 0 and 8 (as in tests/twins/joust_final.py)
LOTS = {"chance": "lots", "groups": [[1, 2, 3], [4, 5, 6], [7, 9, 13], [10, 11, 12]], "leftover": [0, 8]}
#: P1 buys ten tiles; group 4's Balance (11) and Minute (10) go to P2: P2 shares the leftovers
WHOLE_SET = [
    *P1_BUYS, _a(0, "next minute"), *P1_BUYS, *P1_BUYS,
    *P1_BUYS, _a(0, "next balance"), *P1_BUYS, *P1_BUYS,
    *P1_BUYS, _a(0, "next balance"), *P1_BUYS, *P1_BUYS,
    *P1_BUYS, _a(0, "next balance"), _a(0, "fold"), _a(1, "bid 0"), _a(0, "fold"),
]
ITEMS = {"items": {"0": ["conceal", "equaliser"], "1": ["inversion"]}}


def _final(*events: dict[str, Any]) -> State:
    return _state(*WHOLE_SET, *events, game="joust-final", lots=LOTS, **ITEMS)


def test_every_state_renders_with_its_controls() -> None:
    options = {"chips": 6, "items": {"0": ["inversion", "conceal"], "1": ["equaliser", "conceal"]}}
    states = random_states("joust-final", options, range(1), prefer=("fold", "next", "play", "pass", "keep"))
    for state in states[::4] + [states[-1]]:
        for seat in (None, 0, 1):
            assert_controls_ok(board(state, seat), legal_texts(state, seat))


def test_only_the_keeper_sees_both_leftovers() -> None:
    state = _final()
    assert state.view(1)["phase"] == "keep"
    p2 = board(state, 1)
    c = parse(p2)
    assert sorted(a for a in c.actions if a.startswith("keep")) == ["keep 0", "keep 8"]
    assert "only you see them" in c.visible()
    assert_controls_ok(p2, legal_texts(state, 1))
    for seat in (None, 0):
        page = board(state, seat)
        assert "only you see them" not in page and "0" not in numbers_shown(page) and "8" not in numbers_shown(page)
    state.apply_text(1, "keep 8")  # P1 is given the 0, and told only that
    p1 = numbers_shown(board(state, 0))
    assert "0" in p1 and "8" not in p1


def test_items_are_controls_at_the_first_joust_and_inversion_stays_secret() -> None:
    state = _final()
    state.apply_text(1, "keep 8")
    assert state.view(0)["phase"] == "joust-required"
    p2 = board(state, 1)
    c = parse(p2)
    inverts = sorted(a for a in c.actions if a.startswith("invert"))
    assert inverts == ["invert 10 from 1.4", "invert 11 from 1.4", "invert 8 from 1.leftover"]
    assert_controls_ok(p2, legal_texts(state, 1))
    p1 = parse(board(state, 0))
    assert "conceal" in p1.actions
    # equaliser: P1 wins on equal points, said on every page
    assert "Wins on equal points" in parse(board(state, None)).visible()
    state.apply_text(1, "invert 10")  # the 10 becomes a 3 for P2; nobody else is told which tile
    mine = parse(board(state, 1)).visible()
    assert "(was 10)" in mine
    for seat in (None, 0):
        assert "(was 10)" not in parse(board(state, seat)).visible()


def test_a_player_with_items_plays_a_whole_set_against_a_bot_with_a_spectator_watching(
    live_server: Any, new_page: Any
) -> None:
    # Ann holds inversion (used from her board in set 1's first joust) and equaliser
    options = {"items": {"0": ["inversion", "equaliser"]}}
    final = play_joust_set_in_the_browser(live_server, new_page, "joust-final", options)
    assert final["items"]["my_used"] == ["inversion"]
    assert final["favoured"] == 0
