"""The grouping-final board: the grouping board plus the Final's items, ante proposals,
regrouping limits and fold-the-8 facts, rendered from real states (helpers and the
shared checks in test_game_grouping)."""

from __future__ import annotations

import re
from typing import Any

from blackwhite.engine import State, load
from tests.twins import act as _act
from tests.twins import deal
from tests.twins.grouping_final import DOWN, GA, UP, _opening
from tests.web.test_game_grouping import (
    NAMES,
    assert_controls_ok,
    board,
    legal_texts,
    parse,
    play_grouping_in_the_browser,
    random_states,
)


def _state(events: list[dict[str, Any]], **options: Any) -> State:
    return load({"format": "blackwhite-record/1", "game": "grouping-final", "options": options,
                 "seats": NAMES, "events": events})


def test_every_state_renders_with_its_controls() -> None:
    options = {"chips": 6, "items": {"0": ["bonus", "peek", "order"], "1": ["peek", "order"]}, "proposal_limit": 2}
    states = random_states("grouping-final", options, range(2),
                           prefer=("call", "fold", "group", "go", "peek", "order", "accept"))
    for state in states:
        for seat in (None, 0, 1):
            assert_controls_ok(board(state, seat), legal_texts(state, seat))


def test_items_peek_and_order_are_buttons_and_a_peek_shows_only_to_the_peeker() -> None:
    options = {"items": {"0": ["peek", "order"], "1": ["bonus"]}}
    state = _state([_act(1, "go first"), _act(0, GA), _act(1, GA),
                    deal(0, UP), deal(1, DOWN)],
                   **options)
    # P2 holds bonus (110 chips) and bets first
    c = parse(board(state, 0, legal=False))
    assert c.actions == []  # P1 is not awaited: the contract gives it no legal list
    state.apply_text(1, "raise 1")
    html = board(state, 0)
    c = parse(html)
    # peek until P1's own first bet of the round; order only before round 1's first bet
    assert "peek" in c.actions and "order" not in c.actions
    assert_controls_ok(html, legal_texts(state, 0))
    text = c.visible()
    assert "Items: peek order" in text and "Chips 110" not in text  # P2's bonus is in its chips
    state.apply_text(0, "peek")  # P2's first tile is 8
    mine = parse(board(state, 0)).visible()
    assert "tile was 8 black (your peek)" in mine
    for seat in (None, 1):
        other = parse(board(state, seat)).visible()
        assert "your peek" not in other and "tile was 8" not in other
    # the public page says peek was used, never the number
    assert "used: peek" in parse(board(state, None)).visible()


def test_proposal_picker_covers_every_proposal_and_answers_are_buttons() -> None:
    state = _state([])
    html = board(state, 0)
    texts = legal_texts(state, 0)
    props = [t for t in texts if t.startswith("propose ante")]
    m = re.search(r'data-role="propose" min="(\d+)" max="(\d+)"', html)
    assert m is not None
    assert (int(m.group(1)), int(m.group(2))) == (int(props[0].split()[-1]), int(props[-1].split()[-1]))
    assert_controls_ok(html, texts)
    state.apply_text(0, "propose ante 4")
    p2 = parse(board(state, 1))
    assert "accept" in p2.actions and "decline" in p2.actions
    assert "Pending proposal: ante 4, by Sally" in p2.visible()
    assert "Pending proposal: ante 4, by you" in parse(board(state, 0)).visible()
    assert "accept" not in parse(board(state, 0)).actions


def test_regrouping_builder_offers_only_legal_regroupings() -> None:
    # nine rounds of set 1 (P2 folds each), then set 2's grouping
    events = _opening(UP, UP)
    for _ in range(9):
        events += [_act(0, "raise 1"), _act(1, "fold")]
    state = _state(events)
    assert state.view(0)["phase"] == "group" and state.view(0)["set"] == 2
    html = board(state, 0)
    m = re.search(r'data-legal="([^"]*)"', html)
    assert m is not None
    offered = set(m.group(1).split("|"))
    assert offered == {t for t in legal_texts(state, 0) if t.startswith("group")}
    assert len(offered) == 147  # the Final's regrouping limits, not the 1260 of a free grouping
    assert "at most 1 tile leaves A" in html
    assert parse(html).actions.count(GA) == 1  # keeping the groups is legal and preselected


def test_fold_of_the_8_is_marked_for_everyone() -> None:
    # P2's first tile is 8; P2 folds it: the penalty is announced
    state = _state(_opening(UP, DOWN) + [_act(0, "raise 1"), _act(1, "fold")])
    for seat in (None, 0, 1):
        text = parse(board(state, seat)).visible()
        assert "folded, the 8: penalty" in text
        assert "8!" in text  # the tile in the dealt row says it was the 8


def test_a_player_with_items_plays_rounds_against_a_bot_with_a_spectator_watching(
    live_server: Any, new_page: Any
) -> None:
    # Ann holds peek (clicked on her board in round 1) and order
    options = {"items": {"0": ["peek", "order"]}}
    public = play_grouping_in_the_browser(live_server, new_page, "grouping-final", options, rounds=2)
    assert public["items"]["used"][0] == ["peek"]  # announced to all; the number never is
