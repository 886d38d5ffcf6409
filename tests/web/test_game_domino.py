"""The domino board partial (templates/games/domino.html), rendered from views of real
states: the walled 63-cell board, hidden halves as "?" on their colour, the dominoes
left, each placement's H/V/D/B, the controls, escaping, and the secrecy twins (two
records differing in a hidden number render the same page for the seat that must not
know it)."""

from __future__ import annotations

import json
import random
import re
from functools import partial
from html import unescape
from typing import Any

from blackwhite.engine import load
from tests.web.boards import labelled_by_notation, legal_for, random_play, render_as

GAME = "domino"
NAMES = ["Sally", "Maddie"]


render = partial(render_as, GAME, names=NAMES)


def record(events: list[tuple[int, str]]) -> dict[str, Any]:
    return {"format": "blackwhite-record/1", "game": GAME, "seats": NAMES,
            "events": [{"seat": s, "action": a} for s, a in events]}



def cells(html: str) -> dict[str, str]:
    """Cell name -> its aria-label, for every board cell and wall."""
    return {m.group(1): m.group(0) for m in re.finditer(r'aria-label="([A-I][R-Z]): [^"]*"', html)}


play = partial(random_play, GAME)


def test_the_board_has_63_cells_and_18_walls() -> None:
    html = render(play(1, 0), None)
    found = cells(html)
    assert len(found) == 81
    walls = sorted(name for name, label in found.items() if label.endswith(': wall"'))
    assert len(walls) == 18 and "BZ" in walls and "AS" in walls and "IR" not in walls


def test_hidden_halves_are_colour_and_question_mark_to_others() -> None:
    state = load(record([(0, "go first"), (0, "(2,0) CZ:DZ hide CZ"), (1, "(1,0) EZ:FZ hide FZ")]))
    mine, theirs, public = render(state, 0), render(state, 1), render(state, None)
    assert 'aria-label="CZ: black 2, hidden from the opponent' in mine
    assert 'aria-label="CZ: hidden black' in theirs and 'aria-label="CZ: hidden black' in public
    assert 'aria-label="FZ: hidden black' in mine and 'aria-label="FZ: black 0, hidden' in theirs
    assert "CZ=?black DZ=0" in public and "EZ=1 FZ=?black" in public
    assert "CZ=2 (hidden)" in mine


def test_placement_results_and_dominoes_left() -> None:
    state = play(3, 12)
    view = state.view(0)
    html = render(state, 0)
    assert html.count('class="dm-met"') == len(view["placements"])
    flags = re.findall(r'<span class="dm-met">(.*?)</span>', html)
    shown = ["".join(re.findall(r'">([HVDB])</abbr>', f)) or f for f in flags]
    assert shown == [p["met"] or "nothing" for p in reversed(view["placements"])]
    assert any(p["met"] for p in view["placements"]) and "nothing" in shown  # both kinds seen
    assert f"({len(view['my_unused'])})" in html
    assert f"has {view['their_unused_count']} dominoes left" in html
    for a, b in view["my_unused"]:
        assert f'aria-label="domino {a}-{b}"' in html


def test_picker_carries_exactly_the_legal_placements() -> None:
    state = play(4, 7)
    seat = state.to_move()[0]
    legal = legal_for(state, seat)
    html = render(state, seat)
    m = re.search(r"data-legal='([^']*)'", html)
    assert m
    assert json.loads(unescape(m.group(1))) == [l["text"] for l in legal]
    assert 'data-covers="("' in html
    spot_cells = set(re.findall(r'data-cell="([A-I][R-Z])"', html))
    assert spot_cells == {c for spot in state.view(seat)["spots"] for c in spot}
    other = render(state, 1 - seat)
    assert "data-legal" not in other and "dm-spot" not in other


def test_opening_choice_buttons() -> None:
    state = play(1, 0)
    html = render(state, 0)
    assert re.findall(r'data-action="([^"]+)"', html) == ["go first", "go second"]
    labelled_by_notation(html)
    assert "data-action" not in render(state, 1) and "data-action" not in render(state, None)


def test_replay_and_spectator_have_no_controls() -> None:
    state = play(2, 10)
    for html in (render(state, None), render(state, 0, replay=True), render(state, 1, replay=True)):
        assert "data-action" not in html and "dm-spot" not in html


def test_the_end_shows_every_number() -> None:
    state = play(6, 400)
    assert state.is_over()
    html = render(state, None)
    assert "hidden black" not in html and "hidden white" not in html and "=?" not in html
    assert "wins" in html


# --------------------------------------------------------------------------- in a browser


def _labels(page: Any) -> dict[str, str]:
    """Cell name -> aria-label of every board cell on a page."""
    found: dict[str, str] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#board .dm-grid td[aria-label]')]
             .map(td => [td.getAttribute('aria-label').slice(0, 2), td.getAttribute('aria-label')]))"""
    )
    return found


def _place(page: Any, rng: random.Random, keyboard: bool = False, before_last: Any = None) -> str:
    """Place a domino through the board: two cells, a domino, a half to hide; its notation.
    With ``keyboard``, every control is focused and pressed with Enter instead of clicked;
    ``before_last()`` is called with the last choice on screen (a screenshot)."""

    def press(control: Any) -> None:
        if keyboard:
            control.focus()
            page.keyboard.press("Enter")
        else:
            control.click()

    spots = page.locator("#board .dm-spot")
    press(spots.nth(rng.randrange(spots.count())))
    partners = page.locator("#board .dm-spot.dm-partner")
    assert partners.count() > 0
    press(partners.nth(rng.randrange(partners.count())))
    dominoes = page.locator("#board .dm-pickdomino")
    press(dominoes.nth(rng.randrange(dominoes.count())))
    finals = page.locator("#board .dm-final")
    assert 2 <= finals.count() <= 4
    if keyboard:  # choosing the domino moved the focus to the first way to place it
        assert page.evaluate("() => document.activeElement.classList.contains('dm-final')")
    final = finals.nth(rng.randrange(finals.count()))
    text: str = final.get_attribute("data-action")
    assert text in page.evaluate("() => BW.payload().legal")
    if before_last is not None:
        before_last()
    press(final)
    return text


def test_a_whole_match_against_a_bot(live_server: Any, new_page: Any) -> None:
    from .conftest import PHONE, check_page, no_sideways_scroll, wait_connected
    from .shots import shoot

    made = live_server.create(GAME, [{"name": NAMES[0]}, {"bot": "random"}])
    base, match = live_server.base_url, made["id"]
    player = new_page(PHONE)
    spectator = new_page()
    player.goto(f"{base}/play/{match}?token={made['tokens']['seats'][0]}")
    spectator.goto(f"{base}/watch/{match}?token={made['tokens']['spectator']}")
    wait_connected(player)
    wait_connected(spectator)
    player.wait_for_selector("body[data-my-turn='1']")
    check_page(player)  # the opening choice
    player.click("#board button[data-action='go first']")
    rng = random.Random(14)
    placed = 0
    while True:
        player.wait_for_function(
            "() => BW.payload().view.finished || (document.body.dataset.myTurn === '1'"
            " && document.querySelector('#board .dm-spot') !== null)")
        if player.evaluate("() => BW.payload().view.finished"):
            break
        before = player.evaluate("() => BW.payload().version")
        shot = (lambda: shoot(player, GAME)) if placed == 6 else None  # the picker's last choice
        _place(player, rng, keyboard=placed % 4 == 0, before_last=shot)
        placed += 1
        player.wait_for_function(f"() => BW.payload().version > {before}")
        # the spectator never sees a hidden number: every half the player hid is "?" there
        mine, public = _labels(player), _labels(spectator)
        if not spectator.evaluate("() => BW.payload().view.finished"):
            for cell, label in mine.items():
                if "hidden from the opponent" in label:
                    assert public[cell].startswith(f"{cell}: hidden ") or public[cell].endswith("empty"), public[cell]
            assert all(" hidden" not in label or label.startswith(f"{label[:2]}: hidden ") for label in public.values())
        assert spectator.locator("#board button").count() == 0
        if placed == 7:
            check_page(player)
            check_page(spectator)
    spectator.wait_for_function("() => BW.payload().view.finished")
    final = load(live_server.record(match, made["tokens"]["seats"][0]))
    assert final.is_over() and placed >= 8
    # at the end the spectator sees every number, the true one
    public = _labels(spectator)
    for name, half in final.view(0)["board"].items():
        if half is not None:
            assert public[name].startswith(f"{name}: {half['colour']} {half['number']}")
    points = final.view(None)["points"]
    assert f"{NAMES[0]} (P1) {points[0]}" in spectator.inner_text("#board .dm-points")
    no_sideways_scroll(player)
    check_page(spectator)
    # the finished match replays as the full record: both seats' boards, on a phone
    player.goto(f"{base}/replay/{match}?token={made['tokens']['seats'][0]}")
    player.wait_for_selector("body[data-step='0']")
    player.select_option("#audience", "full")
    player.keyboard.press("End")
    player.wait_for_function("() => Number(document.body.dataset.step) > 8")
    player.wait_for_function("() => document.querySelectorAll('#boards .dm-board').length === 2")
    check_page(player)
