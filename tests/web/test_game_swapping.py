"""The swapping board partial (templates/games/swapping.html), rendered from views of
real states: what each seat and a spectator see, the controls, escaping, and the
secrecy twins (two records differing in a hidden fact render the same page)."""

from __future__ import annotations

import random
import re
from functools import partial
from typing import Any

from blackwhite.engine import load
from tests.web.boards import labelled_by_notation, legal_for, random_play, render_as

GAME = "swapping"
NAMES = ["Sally", "Maddie"]


render = partial(render_as, GAME, names=NAMES)


def actions_in(html: str) -> list[str]:
    return [a for a in re.findall(r'data-action="([^"]*)"', html) if a]


def covers_in(html: str) -> set[str]:
    return {t for group in re.findall(r'data-covers="([^"]*)"', html) for t in group.split()}



def tiles_of_row(html: str, label: str) -> list[str]:
    """The aria-labels of the tiles in the row whose list is labelled ``label``."""
    m = re.search(r'<ol class="sw-row[^"]*" aria-label="' + re.escape(label) + r'[^"]*">(.*?)</ol>', html, re.S)
    assert m, f"no row {label!r}"
    return re.findall(r'class="sw-tile[^"]*" aria-label="([^"]*)"', m.group(1))


play = partial(random_play, GAME)


def test_own_row_numbers_opponent_face_down() -> None:
    state = load({"format": "blackwhite-record/1", "game": GAME, "seats": NAMES,
                  "events": [{"seat": 0, "action": "place 8 0 3"}, {"seat": 1, "action": "place 1 2 3"}]})
    html = render(state, 0)
    assert tiles_of_row(html, "your row")[:4] == [
        "position 1: black 8, face down", "position 2: black 0, face down",
        "position 3: white 3, face down", "position 4: empty"]
    theirs = tiles_of_row(html, "Row of Maddie (P2)")
    assert theirs[:4] == ["position 1: face down", "position 2: face down", "position 3: face down",
                          "position 4: empty"]
    assert "P1 1 – P2 1" in html
    spectator = render(state, None)
    for label in ("Row of Sally (P1)", "Row of Maddie (P2)"):
        assert all(t.endswith("face down") or t.endswith("empty") for t in tiles_of_row(spectator, label))


def test_colours_shown_with_the_option_and_reveals_with_numbers() -> None:
    events = ["place 8 0 3", "place 1 2 3", "place 4 1 6", "place 0 5 4", "place 2 7 5", "place 8 6 7",
              "swap 8 1", "swap 2 1", "reveal 5", "reveal 4"]
    state = load({"format": "blackwhite-record/1", "game": GAME, "options": {"show_colours": True},
                  "seats": NAMES, "events": [{"seat": i % 2, "action": a} for i, a in enumerate(events)]})
    html = render(state, 1)
    theirs = tiles_of_row(html, "Row of Sally (P1)")
    revealed = [t for t in theirs if "revealed" in t]
    assert revealed == ["position 9: white 5, revealed"]
    assert "position 1: white, number hidden" in theirs  # 8 and 1 swapped: 1 now first
    assert "Sally (P1) swapped positions: 1↔5" in html


def test_controls_cover_every_legal_action_and_nothing_else() -> None:
    for steps in range(0, 40, 3):
        state = play(5, steps)
        for seat in (0, 1):
            legal = legal_for(state, seat)
            html = render(state, seat)
            texts = {l["text"] for l in legal}
            assert set(actions_in(html)) <= texts
            if legal and "sw-picker" not in html:
                labelled_by_notation(html)
            for l in legal:
                assert l["text"] in actions_in(html) or any(l["text"].startswith(c) for c in covers_in(html)), l


def test_place_picker_lists_the_unplaced_tiles() -> None:
    state = play(3, 2)
    html = render(state, 0)
    picks = re.findall(r'data-pick="(\d)"', html)
    assert [int(p) for p in picks] == state.view(0)["my_unplaced"]
    assert 'data-first="4"' in html and "positions 4, 5, 6" in html


def test_spectator_and_replay_have_no_controls() -> None:
    state = play(2, 12)
    assert actions_in(render(state, None)) == []
    assert "sw-picker" not in render(play(2, 0), 0, replay=True)
    assert actions_in(render(state, 0, replay=True)) == []


def test_pending_choice_shown_only_to_its_seat() -> None:
    state = play(4, 1)  # P1 has placed, P2 not yet
    mine = state.view(0)["my_pending"]
    assert mine and mine in render(state, 0)
    assert mine not in render(state, 1) and mine not in render(state, None)
    assert "has chosen" in render(state, 1)


def test_the_end_shows_every_tile_and_the_winner() -> None:
    state = play(9, 200)
    assert state.is_over()
    html = render(state, None)
    for label in ("Row of Sally (P1)", "Row of Maddie (P2)"):
        assert all("revealed" in t for t in tiles_of_row(html, label))
    assert "wins" in html


# --------------------------------------------------------------------------- in a browser


def _row_labels(page: Any, which: str) -> list[str]:
    """The tile labels of one row on a page (``which``: the start of the row's label)."""
    labels: list[str] = page.evaluate(
        """(which) => { const row = [...document.querySelectorAll('#board ol.sw-row')]
             .find(r => r.getAttribute('aria-label').startsWith(which));
           return row ? [...row.querySelectorAll('.sw-tile')].map(t => t.getAttribute('aria-label')) : []; }""",
        which,
    )
    return labels


def _number(label: str) -> int | None:
    """The tile number in a label such as "position 3: white 7, revealed" (None: not shown)."""
    m = re.match(r"position \d: (?:black|white) (\d)", label)
    return int(m.group(1)) if m else None


def _check_spectator(spectator: Any, players: list[Any]) -> None:
    """The spectator's rows show a number only for a revealed tile, and it is the tile that
    seat really has there (read from the seat's own page); no private note reaches it."""
    for seat, player in enumerate(players):
        public = _row_labels(spectator, f"Row of {NAMES[seat]}")
        own = _row_labels(player, "your row")
        assert len(public) == 9
        for label, mine in zip(public, own):
            if _number(label) is not None:
                assert label.endswith("revealed"), label
                if mine.endswith("revealed"):  # both pages show the same step
                    assert _number(mine) == _number(label)
    text = spectator.evaluate("() => document.getElementById('main').innerText")
    assert "You swapped" not in text and "Your row" not in text and "Your swaps" not in text
    assert spectator.locator("#board button").count() == 0


def _act(page: Any, rng: random.Random) -> bool:
    """Make this seat's move through its board's controls, if it is awaited; whether it acted."""
    if page.get_attribute("body", "data-my-turn") != "1":
        return False
    before = page.evaluate("() => BW.payload().version")
    if page.locator("#board .sw-picker").count():
        picks = page.locator("#board .sw-pick")
        order = rng.sample(range(picks.count()), 3)
        texts = [picks.nth(i).get_attribute("data-pick") for i in order]
        for i in order:
            picks.nth(i).click()
        send = page.locator("#board .sw-send")
        assert send.get_attribute("data-action") == "place " + " ".join(str(t) for t in texts)
        send.click()
    else:
        buttons = page.locator("#board .sw-swaps button[data-action], #board .sw-reveals button[data-action]")
        assert buttons.count() > 0, page.inner_text("#board")
        buttons.nth(rng.randrange(buttons.count())).click()
    page.wait_for_function(f"() => BW.payload().version > {before}")
    return True


def test_a_whole_match_between_two_person_pages(live_server: Any, new_page: Any) -> None:
    from .conftest import PHONE, check_page, no_sideways_scroll, wait_connected
    from .shots import shoot

    made = live_server.create(GAME, [{"name": NAMES[0]}, {"name": NAMES[1]}])
    base, match = live_server.base_url, made["id"]
    players = [new_page(), new_page(PHONE)]
    spectator = new_page(PHONE)
    for seat, page in enumerate(players):
        page.goto(f"{base}/play/{match}?token={made['tokens']['seats'][seat]}")
    spectator.goto(f"{base}/watch/{match}?token={made['tokens']['spectator']}")
    for page in players + [spectator]:
        wait_connected(page)
    check_page(players[0])  # the place picker
    # a half-made choice survives a push: P2 picks two tiles, P1's answer arrives, the
    # two tiles are still picked, in order
    second = players[1]
    second.click("#board .sw-pick[data-pick='8']")
    second.click("#board .sw-pick[data-pick='0']")
    before = second.evaluate("() => BW.payload().version")
    for tile in "123":  # P1 by keyboard
        players[0].focus(f"#board .sw-pick[data-pick='{tile}']")
        players[0].keyboard.press("Enter")
    players[0].focus("#board .sw-send")
    players[0].keyboard.press("Enter")
    second.wait_for_function(f"() => BW.payload().version > {before}")
    assert second.evaluate("() => BW.payload().view.submitted") == [0]
    assert second.locator("#board .sw-pick[aria-pressed='true']").count() == 2
    second.click("#board .sw-pick[data-pick='4']")
    assert second.get_attribute("#board .sw-send", "data-action") == "place 8 0 4"
    second.click("#board .sw-send")
    players[0].wait_for_function("() => BW.payload().view.play_round === 1")
    rng = random.Random(14)
    shot = False
    for _ in range(400):
        if players[0].evaluate("() => BW.payload().view.finished"):
            break
        acted = [_act(page, rng) for page in players]
        if not any(acted):
            players[0].wait_for_timeout(50)
            continue
        _check_spectator(spectator, players)
        view = players[0].evaluate("() => BW.payload().view")
        if not shot and view["phase"] == "reveal" and view["swap_step"] == 2:
            for page in players + [spectator]:
                check_page(page)  # mid-game: revealed tiles, swaps, reveal buttons
            shoot(players[0], GAME)
            shot = True
    for page in players + [spectator]:
        page.wait_for_function("() => BW.payload().view.finished")
    assert shot
    record = live_server.record(match, made["tokens"]["seats"][0])
    final = load(record)
    assert final.is_over()
    winner = final.result().winner
    assert winner is not None
    assert f"{NAMES[winner]} (P{winner + 1}) wins" in spectator.inner_text("#board")
    # at the end every tile is public: the spectator's rows are the real rows
    for seat in (0, 1):
        shown = [_number(label) for label in _row_labels(spectator, f"Row of {NAMES[seat]}")]
        assert shown == [c["tile"] for c in final.view(seat)["my_row"]]
    no_sideways_scroll(players[1])
    check_page(spectator)


def test_tiles_sent_in_a_waiting_placement_are_not_listed_as_not_placed() -> None:
    state = play(2, 0)
    state.apply_text(0, "place 0 1 2")  # P2 has not answered: the placement waits
    html = render(state, 0)
    hand = re.search(r'<p class="sw-hand">(.*?)</p>', html, re.S)
    assert hand is not None
    listed = [int(t) for t in re.findall(r'aria-label="(?:black|white) (\d+)"', hand.group(1))]
    assert listed == [3, 4, 5, 6, 7, 8]
    assert "<code>place 0 1 2</code>" in html
