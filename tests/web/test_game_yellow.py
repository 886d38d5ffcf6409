"""The yellow board partial (templates/games/yellow.html), rendered from views of real
states: three inventories, yellow numbers, points, garnets and the round, the history
of submissions, the submission builder, escaping, and the secrecy twins (a submission
not yet resolved never shows to anyone but its seat)."""

from __future__ import annotations

import random
import re
from functools import partial
from typing import Any

from blackwhite.engine import load
from blackwhite.web.render import render_board
from tests.web.boards import labelled_by_notation, legal_for, random_play, render_as

GAME = "yellow"
NAMES = ["Ann", "Bo", "Cy"]


render = partial(render_as, GAME, names=NAMES)



play = partial(random_play, GAME)


def test_everything_owned_is_shown_for_every_seat() -> None:
    state = play(2, 20, garnets=[9, 3, 0])
    view = state.view(None)
    html = render(state, None)
    assert f"Round {view['round'] + 1} of 50" in html
    for s in range(3):
        m = re.search(r'<ul class="ye-inv" aria-label="black tiles of ' + re.escape(f"{NAMES[s]} (P{s + 1})")
                      + r'">(.*?)</ul>', html, re.S)
        assert m
        assert [int(t) for t in re.findall(r">(\d)</li>", m.group(1))] == view["inventories"][s]
        assert f'aria-label="yellow number {view["yellow"][s]}"' in html
    assert html.count('class="ye-history"') == 1
    assert html.count("<tr><th scope=\"row\">") == view["round"]


def test_builder_only_for_a_seat_that_may_submit() -> None:
    state = play(1, 1, garnets=[3, 0, 0])  # P1 has submitted
    assert "ye-builder" not in render(state, 0)
    html = render(state, 1)
    assert 'data-covers="play boost exchange"' in html
    assert set(re.findall(r'data-action="([^"]+)"', html)) <= {l["text"] for l in legal_for(state, 1)}
    plays = re.findall(r'data-action="play (\d)"', html)
    assert [int(p) for p in plays] == sorted(set(state.view(1)["inventories"][1]))
    labelled_by_notation(html)
    assert "ye-boost" in html and re.search(r'class="ye-boost"[^>]*disabled', html)  # P2 has no garnets
    assert not re.search(r'class="ye-boost"[^>]*disabled', render(play(1, 0, garnets=[3, 0, 0]), 0))
    assert "ye-builder" not in render(state, None) and "ye-builder" not in render(state, 1, replay=True)


def test_own_pending_submission_shown_to_its_seat_only() -> None:
    state = load({"format": "blackwhite-record/1", "game": GAME, "seats": NAMES,
                  "events": [{"seat": 0, "action": "play 7"}]})
    assert "<code>play 7</code>" in render(state, 0)
    for seat in (1, 2, None):
        html = render(state, seat)
        # the seat's own controls may offer "play 7"; nothing else on the page names it
        outside = re.sub(r'<fieldset class="ye-builder".*?</fieldset>', "", html, flags=re.S)
        assert "play 7" not in outside
        assert "submitted" in html


def test_a_submitted_seat_is_told_whom_it_waits_for() -> None:
    one = load({"format": "blackwhite-record/1", "game": GAME, "seats": NAMES,
                "events": [{"seat": 0, "action": "play 7"}]})
    assert "waiting for the others." in render(one, 0)  # Bo and Cy have still to choose
    two = load({"format": "blackwhite-record/1", "game": GAME, "seats": NAMES,
                "events": [{"seat": 0, "action": "play 7"}, {"seat": 1, "action": "play 7"}]})
    assert "waiting for Cy (P3)." in render(two, 0) and "the others" not in render(two, 0)
    assert "waiting for Cy (P3)." in render(two, 1)


def test_the_end_gives_the_ranking() -> None:
    state = play(8, 400)
    assert state.is_over()
    html = render(state, None)
    assert "Game over" in html and "ranking: 1." in html


def test_a_shorter_target_from_the_view_is_shown() -> None:
    # a variant may set the points that win at once in the view ("target"); 9 otherwise
    state = play(1, 3)
    view = state.view(0)
    assert "/9</dd>" in render(state, 0) and "first to 9 points" in render(state, 0)
    view["target"] = 5
    html = render_board(GAME, view, seat=0, legal=legal_for(state, 0), names=NAMES)
    assert "/5</dd>" in html and "first to 5 points" in html and "/9<" not in html


# --------------------------------------------------------------------------- in a browser


def test_rounds_against_two_bots(live_server: Any, new_page: Any) -> None:
    from .conftest import PHONE, check_page, no_sideways_scroll, wait_connected
    from .shots import shoot

    made = live_server.create(GAME, [{"name": NAMES[0]}, {"bot": "random"}, {"bot": "random"}],
                              options={"garnets": [9, 0, 0]})
    base, match = live_server.base_url, made["id"]
    player = new_page()
    spectator = new_page(PHONE)
    player.goto(f"{base}/play/{match}?token={made['tokens']['seats'][0]}")
    spectator.goto(f"{base}/watch/{match}?token={made['tokens']['spectator']}")
    wait_connected(player)
    wait_connected(spectator)
    rng = random.Random(14)
    sent: list[str] = []
    for round_no in range(1, 13):
        player.wait_for_function(
            "() => BW.payload().view.finished || document.body.dataset.myTurn === '1'")
        if player.evaluate("() => BW.payload().view.finished"):
            break
        # build a submission: a boost while garnets last (every third round), an
        # exchange when yellow is above 0, then a tile
        if round_no % 3 == 1 and player.locator("#board .ye-boost:enabled").count():
            player.click("#board .ye-boost")
        if player.locator("#board .ye-exchange:enabled").count():
            player.click("#board .ye-exchange")
        plays = player.locator("#board .ye-play")
        choice = plays.nth(rng.randrange(plays.count()))
        text: str = choice.get_attribute("data-action")
        assert text.endswith(choice.get_attribute("data-tile") or "?")
        if round_no == 4:
            check_page(player)
            shoot(player, GAME)
        choice.click()
        sent.append(text)
        player.wait_for_function(f"() => BW.payload().view.round >= {round_no}")
        spectator.wait_for_function(f"() => BW.payload().view.round >= {round_no}")
        # the round is resolved: the spectator's history shows what was played, and never
        # shows a submission before its round resolves
        assert spectator.locator("#board .ye-pending, #board .ye-builder, #board button").count() == 0
        history = spectator.inner_text("#board .ye-history tbody tr:first-child")
        assert text in " ".join(history.split())
    final = live_server.view(match, made["tokens"]["seats"][0])["view"]
    assert final["round"] >= min(12, len(sent)) and len(sent) >= 3
    mine = [" ".join(r[0]["steps"] + ["play", str(r[0]["play"])]) for r in final["submissions"]]
    assert mine[: len(sent)] == sent  # what the builder sent is what the seat played
    no_sideways_scroll(spectator)
    check_page(spectator)
