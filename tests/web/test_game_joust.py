"""The joust board (templates/games/joust.html), rendered from real states.

The twins of tests/twins/joust.py must give the same page to the seat that cannot tell
them apart; the spectator's page shows no tile number before a reveal; every legal
action is a labelled control (bids through a number picker, one button per playable
tile).  Shared helpers: test_game_grouping.
"""

from __future__ import annotations

import re
from typing import Any

from blackwhite.engine import State, load
from tests.web.test_game_grouping import (
    NAMES,
    assert_controls_ok,
    board,
    legal_texts,
    click_and_wait,
    parse,
    open_match_with_a_spectator,
    random_states,
    resign_and_wait_for_the_end,
    wait_my_turn_or,
)

Event = dict[str, Any]
P1_BUYS = [{"seat": 0, "action": "bid 0"}, {"seat": 1, "action": "fold"}]
LOTS = {"chance": "lots", "groups": [[1, 2, 3], [4, 5, 6], [7, 9, 13], [10, 11, 12]], "leftover": [8]}


def _a(seat: int, action: str) -> Event:
    return {"seat": seat, "action": action}


#: P1 buys eleven tiles for nothing and folds group 4's Minute (10) to P2, which is
#: then given the leftover (8): the joust phase starts, P2 holding two tiles
WHOLE_SET = [
    *P1_BUYS, _a(0, "next minute"), *P1_BUYS, *P1_BUYS,
    *P1_BUYS, _a(0, "next balance"), *P1_BUYS, *P1_BUYS,
    *P1_BUYS, _a(0, "next balance"), *P1_BUYS, *P1_BUYS,
    *P1_BUYS, _a(0, "next balance"), *P1_BUYS, _a(0, "fold"),
]


def _state(*events: Event, game: str = "joust", lots: Event = LOTS, **options: Any) -> State:
    return load({"format": "blackwhite-record/1", "game": game, "options": options, "seats": NAMES,
                 "events": [lots, *events]})


def numbers_shown(html: str) -> list[str]:
    """What every tile on the page shows as its number ("?" when hidden)."""
    return re.findall(r'class="jb-num">([^<]*)<', html)


def test_every_state_renders_with_its_controls() -> None:
    states = random_states("joust", {"chips": 6}, range(1), prefer=("fold", "next", "play", "pass"))
    phases = set()
    for state in states[::4] + [states[-1]]:
        phases.add(state.view(None)["phase"])
        for seat in (None, 0, 1):
            assert_controls_ok(board(state, seat), legal_texts(state, seat))
    assert {"auction", "next", "joust-required", "over"} <= phases


def test_auction_board_bid_picker_spans_the_legal_bids() -> None:
    state = _state(_a(0, "bid 3"))
    html = board(state, 1)
    bids = [t for t in legal_texts(state, 1) if t.startswith("bid ")]
    m = re.search(r'data-role="bid" min="(\d+)" max="(\d+)"', html)
    assert m is not None
    assert (int(m.group(1)), int(m.group(2))) == (4, 90) == (int(bids[0].split()[1]), int(bids[-1].split()[1]))
    c = parse(html)
    assert "fold" in c.actions and "bid 4" in c.actions
    assert_controls_ok(html, legal_texts(state, 1))
    text = c.visible()
    assert "Highest bid: 3 by Sally" in text and "You to bid or fold" in text
    # the other seat and the spectator see the auction, with no control
    for seat in (None, 0):
        page = board(state, seat)
        assert "Highest bid: 3" in parse(page).visible() and parse(page).actions == []


def test_numbers_show_only_to_the_buyer_and_never_to_the_public() -> None:
    state = _state(*WHOLE_SET)
    assert state.view(0)["phase"] == "joust-required"
    p1, p2, pub = board(state, 0), board(state, 1), board(state, None)
    # the spectator's page has no number at all: every tile shows "?"
    assert set(numbers_shown(pub)) == {"?"}
    # P1 sees its eleven tiles' numbers (lots and hand), never P2's 10 or the leftover 8
    shown1 = numbers_shown(p1)
    assert {"1", "2", "3", "4", "5", "6", "7", "9", "11", "12", "13"} <= set(shown1)
    assert "10" not in shown1 and "8" not in shown1
    # P2 sees its own two (10 and the leftover 8) and none of P1's
    shown2 = set(numbers_shown(p2)) - {"?"}
    assert shown2 == {"8", "10"}
    # P2's play buttons: one per tile, in its `from` form, showing the notation
    c = parse(p2)
    plays = sorted(a for a in c.actions if a.startswith("play"))
    assert plays == ["play 10 from 1.4", "play 8 from 1.leftover"]
    assert_controls_ok(p2, legal_texts(state, 1))


def test_a_joust_is_drawn_step_by_step_and_revealed() -> None:
    state = _state(*WHOLE_SET)
    state.apply_text(0, "play 13")
    state.apply_text(1, "play 10")
    # the required step resolved: colour and group announced, numbers not
    pub = parse(board(state, None)).visible()
    assert "Joust 1 (set 1)" in pub
    assert "? white" in pub and "? black" in pub
    p1 = board(state, 0)
    assert "13" in numbers_shown(p1) and "10" not in numbers_shown(p1)
    assert "pass" in parse(p1).actions
    while not state.view(None)["jousts"]:
        for mover in state.to_move():
            if mover not in state.view(None)["submitted"]:
                state.apply_text(mover, "pass")
    # the reveal: both numbers for everyone, totals and points in the history
    for viewer in (None, 0, 1):
        text = parse(board(state, viewer)).visible()
        assert "Jousts played (1)" in text and "13 / 10" in text


def test_replay_pages_have_no_controls() -> None:
    state = _state(*WHOLE_SET)
    for seat in (0, 1):
        html = board(state, seat, legal=False)
        assert parse(html).actions == [] and "jb-controls" not in html


# ----------------------------------------------------------------- in the browser


def joust_spectator_keeps_secrets(watch: Any) -> None:
    """The spectator's page: no lot number ever, no seat's tiles, no private note."""
    lots = watch.locator("#board .jb-lots .jb-num").all_text_contents()  # closed sets too
    assert set(lots) <= {"?"}, lots
    assert watch.locator("#board .jb-mine, #board .jb-controls, #board .jb-keep").count() == 0
    log = watch.inner_text("#log")
    assert "you won is" not in log and "Your " not in log


def bid_with_the_picker(page: Any, value: int) -> None:
    box = "#board input[data-role='bid']"
    page.locator(box).fill(str(value))
    assert page.inner_text("#board [data-role='bid-send']") == f"bid {value}"
    click_and_wait(page, box, press="Enter")


def play_joust_set_in_the_browser(server: Any, new_page: Any, game: str, options: dict[str, Any]) -> dict[str, Any]:
    """Ann (P1, through her page) plays the whole of set 1 (its auctions, the leftover,
    its joust phase) against a random bot, a spectator's phone page open throughout;
    then resigns, and her page and the spectator's are checked against the record's
    lots.  Returns Ann's last view."""
    from tests.web.conftest import check_page
    from tests.web.shots import shoot

    made, watch, me = open_match_with_a_spectator(server, new_page, game, options)
    shot = False
    while True:
        view = wait_my_turn_or(me, "v.set !== 1")
        joust_spectator_keeps_secrets(watch)
        # every legal action is on the board: "Other actions" lists none
        assert me.locator("#other button").count() == 0
        if view["finished"] or view["set"] != 1:
            break
        board = me.locator("#board")
        phase = view["phase"]
        mine = [t for t in view["my_tiles"] if t["set"] == 1]
        if phase == "auction":
            if board.locator("input[data-role='bid']").count() and len(mine) < 5:
                bid_with_the_picker(me, int(board.locator("input[data-role='bid']").get_attribute("min") or 0))
            else:
                click_and_wait(me, "#board [data-action='fold']")
        elif phase == "next":
            click_and_wait(me, "#board [data-action^='next ']")
        elif phase == "keep":
            click_and_wait(me, "#board [data-action^='keep ']")
        elif phase == "joust-required":
            if not shot:
                shoot(me, game)
                check_page(me)
                check_page(watch)
                shot = True
            if board.locator("[data-action^='invert ']").count() and not view["items"]["my_used"]:
                click_and_wait(me, "#board [data-action^='invert ']")
            click_and_wait(me, "#board .jb-tilebtn")
        elif phase == "joust-optional":
            click_and_wait(me, "#board [data-action='pass']")
        else:
            click_and_wait(me, "#board [data-action]")
    assert shot, "set 1 had no joust: the joust controls were never used"
    assert [j for j in view["jousts"] if j["phase"] == 1], view["jousts"]
    assert len([a for a in view["auctions"] if a["set"] == 1]) == 12
    resign_and_wait_for_the_end(me, watch, view)
    # against the record: Ann's page shows the number of each set-1 tile she bought and
    # "?" for every other one; the spectator's shows "?" for all twelve
    record = server.record(made["id"], made["tokens"]["spectator"])
    lots = next(e for e in record["events"] if e.get("chance") == "lots")
    labels = ("minute", "balance", "giant")
    mine_lot = me.locator("#board .jb-lot").last  # set 1 (the newest set is listed first)
    pub_lot = watch.locator("#board .jb-lot").last
    final = me.evaluate("() => BW.payload().view")
    owners = {(t["group"], t["label"]): t["owner"] for g in final["lots"][0]["groups"] for t in g["tiles"]}
    for g, values in enumerate(lots["groups"]):
        for r, value in enumerate(sorted(values)):
            slot = 3 * g + r
            shown = mine_lot.locator(".jb-group .jb-num").nth(slot).text_content()
            assert shown == (str(value) if owners[(g + 1, labels[r])] == 0 else "?"), (g, r, shown)
            assert pub_lot.locator(".jb-group .jb-num").nth(slot).text_content() == "?"
    return final


def test_a_player_plays_a_whole_set_against_a_bot_with_a_spectator_watching(live_server: Any, new_page: Any) -> None:
    play_joust_set_in_the_browser(live_server, new_page, "joust", {})
