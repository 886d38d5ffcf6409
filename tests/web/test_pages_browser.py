"""The pages in a real browser (Debian's chromium through Playwright): the host flow,
copy buttons, pause and resume, reconnecting, the replay page, and 375 px phones."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx

from blackwhite.engine import make_game
from blackwhite.engine.registry import game_ids

from .conftest import PHONE, LiveServer, check_page, wait_connected

ROOT = Path(__file__).resolve().parents[2]
#: the framework's own pages (those without a game's board) pass axe's serious checks
#: too; pages with a board are held to the issue's bar, no critical issue
STRICT = ("critical", "serious")


def test_host_creates_a_match_with_a_bot_and_plays_it(live_server: LiveServer, page: Any, new_page: Any) -> None:
    page.goto(live_server.base_url + "/")
    check_page(page, impacts=STRICT)
    page.check("#game-swapping")
    page.fill("#seat-name-0", "Sally <b>")
    page.select_option("#seat-kind-1", "random")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/host/[^/?]+\?token="))
    wait_connected(page)
    links = page.locator("#links input.link")
    assert links.count() == 2  # the spectator and Sally; the bot's seat has no link
    spectator_link, seat_link = links.nth(0).input_value(), links.nth(1).input_value()
    assert "/watch/" in spectator_link and "/play/" in seat_link
    check_page(page)

    player = new_page()
    player.goto(seat_link)
    wait_connected(player)
    assert "P1 Sally <b>" in player.locator("h1").inner_text()  # the name is text, not markup
    assert player.locator("#other button[data-action]").count() > 0 or player.locator("#board [data-action]").count() > 0
    first = player.evaluate("() => BW.payload().legal[0]")
    before = player.evaluate("() => BW.payload().version")
    player.fill("#notation", first)
    player.press("#notation", "Enter")
    player.wait_for_function(f"() => BW.payload().version > {before}")
    # the move was taken (the bot answered at once): the round's announcement is in the log
    player.wait_for_selector("#log li")
    check_page(player)

    # resigning asks first; the finished match offers its replay, as this seat saw it
    player.once("dialog", lambda dialog: dialog.dismiss())
    player.click("#resign")
    assert player.get_attribute("body", "data-status") == "running"
    player.once("dialog", lambda dialog: dialog.accept())
    player.click("#resign")
    player.wait_for_selector("body[data-status='finished']")
    assert "P2" in player.inner_text("#status") and player.is_disabled("#resign")
    player.click(".when-over a")
    player.wait_for_selector("body[data-step='0']")
    check_page(player)

    # the host's list of matches shows it
    page.goto(live_server.base_url + "/")
    page.wait_for_selector("#my-matches a[href^='/host/']")


def test_host_form_shows_the_engines_validation_message(live_server: LiveServer, page: Any) -> None:
    page.goto(live_server.base_url + "/")
    page.check("#game-swapping")
    page.fill("#opt-max_ties", "7")
    page.click("#create-button")
    page.wait_for_function("() => document.getElementById('create-error').textContent.length > 0")
    message = page.inner_text("#create-error")
    # the engine's message, naming the option as the form does (not by its API name)
    assert "Ties before the advantage wins" in message and "7" in message and "max_ties" not in message
    assert "/host/" not in page.url


def test_copy_buttons_pause_resume_and_give_time(live_server: LiveServer, page: Any) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(live_server.base_url + "/")
    page.check("#game-domino")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/host/"))
    wait_connected(page)
    first = page.locator("#links li").first
    first.locator("button.copy").click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == first.locator("input.link").input_value() and "/watch/" in copied
    # the match waits for P1 (the bot is ready at once); P1 opening the link starts the clocks
    page.wait_for_selector("body[data-status='waiting']")
    assert "waiting for P1 to join" in page.inner_text("#status") and page.is_visible("#start-now")
    seat_link = page.locator("#links li input.link").nth(1).input_value()
    assert "/play/" in seat_link and httpx.get(seat_link, timeout=30).status_code == 200
    page.wait_for_selector("body[data-status='running']")
    assert page.is_hidden("#start-now")
    page.click("#pause")
    page.wait_for_selector("body[data-status='paused']")
    assert "paused" in page.inner_text("#status")
    page.click("#resume")
    page.wait_for_selector("body[data-status='running']")
    reserve = page.locator("#clocks tr[data-seat='1'] .reserve-left").inner_text()
    page.select_option("#time-seat", "1")
    page.fill("#time-amount", "600")
    page.click("#give-time button[type=submit]")
    page.wait_for_function(
        "(before) => document.querySelector(\"#clocks tr[data-seat='1'] .reserve-left\").textContent !== before",
        arg=reserve,
    )
    page.click("#pause")
    page.wait_for_selector("body[data-status='paused']")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#cancel")
    page.wait_for_selector("body[data-status='cancelled']")
    assert page.inner_text("#host-error") == ""


def test_the_host_starts_a_waiting_match_by_hand(live_server: LiveServer, page: Any, new_page: Any) -> None:
    made = live_server.create("swapping", [{"name": "Ann"}, {"name": "Bob"}], join=False)
    player = new_page()
    player.goto(made["pages"]["seats"][0])  # Ann comes; Bob does not
    wait_connected(player)
    assert "waiting for Bob to join" in player.inner_text("#status")
    assert player.locator("#other button[data-action]").count() == 0  # no move while waiting
    page.goto(made["pages"]["host"])
    wait_connected(page)
    assert "waiting for Bob to join" in page.inner_text("#status")
    page.click("#start-now")
    page.wait_for_selector("body[data-status='running']")
    assert page.is_hidden("#start-now")
    player.wait_for_selector("body[data-status='running']")  # pushed to Ann's page: she may move now
    player.wait_for_function("() => BW.payload().legal.length > 0")


def test_a_control_answered_503_is_asked_again(live_server: LiveServer, page: Any) -> None:
    """A 503 (the match's server process is being taken over: nothing was changed) is
    asked again after its Retry-After instead of being shown (docs/server.md)."""
    made = live_server.create("swapping", [{"name": "Ann"}, {"name": "Bob"}], start="now")
    tried: list[str] = []

    def first_unavailable(route: Any) -> None:
        tried.append(route.request.method)
        if len(tried) == 1:
            route.fulfill(status=503, headers={"Retry-After": "1", "Content-Type": "application/json"},
                          body=json.dumps({"error": {"code": "owner_unavailable", "message": "try again shortly"}}))
        else:
            route.continue_()

    page.route(re.compile(r".*/api/matches/[^/]+/pause$"), first_unavailable)
    page.goto(made["pages"]["host"])
    wait_connected(page)
    page.click("#pause")
    page.wait_for_selector("body[data-status='paused']", timeout=10_000)
    assert tried == ["POST", "POST"]
    assert page.inner_text("#host-error") == ""


def test_a_page_reconnects_after_the_server_goes_away(live_server: LiveServer, new_page: Any) -> None:
    made = live_server.create("domino", [{"name": "Ann"}, {"name": "Bob"}])
    player = new_page()
    player.goto(made["pages"]["seats"][0])
    wait_connected(player)
    live_server.restart()  # the socket drops; the server comes back on the same port and database
    # the page saw the socket drop (it may well be connected again already: it retries
    # every second at most, and the restart waited for the server to answer)
    player.wait_for_function("() => Number(document.body.dataset.drops || 0) > 0")
    wait_connected(player, timeout=30_000)
    # the reconnected page acts: its action reaches the restarted server
    legal = player.evaluate("() => BW.payload().legal")
    assert legal
    before = player.evaluate("() => BW.payload().version")
    player.evaluate("(a) => BW.send(a)", legal[0])
    player.wait_for_function(f"() => BW.payload().version > {before}")
    assert live_server.view(made["id"], made["tokens"]["seats"][0])["version"] > before


def test_replay_steps_forward_back_and_jumps(live_server: LiveServer, page: Any) -> None:
    page.goto(live_server.base_url + "/replay")
    page.set_input_files("#record-file", str(ROOT / "examples" / "swapping.json"))
    page.wait_for_selector("body[data-step='0']")
    check_page(page)
    page.click("#forward")
    page.wait_for_selector("body[data-step='1']")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("body[data-step='2']")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("body[data-step='1']")
    page.keyboard.press("End")
    page.wait_for_function("() => Number(document.body.dataset.step) > 5")
    assert "finished" in page.inner_text("#step-label")
    page.keyboard.press("Home")
    page.wait_for_selector("body[data-step='0']")
    page.fill("#step-number", "4")
    page.press("#step-number", "Enter")
    page.wait_for_selector("body[data-step='4']")
    page.focus("#forward")
    page.select_option("#audience", "1")
    page.wait_for_function("() => document.querySelector('#boards h3').textContent.startsWith('P2')")
    page.keyboard.press("End")
    page.wait_for_function("() => Number(document.body.dataset.step) > 5")


def test_replay_refuses_a_bad_file_with_the_referees_reason(live_server: LiveServer, page: Any, tmp_path: Path) -> None:
    bad = json.loads((ROOT / "examples" / "swapping.json").read_text())
    bad["events"].insert(1, {"seat": 0, "action": "place 9 9 9"})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    page.goto(live_server.base_url + "/replay")
    page.set_input_files("#record-file", str(path))
    page.wait_for_function("() => document.getElementById('replay-error').textContent.length > 0")
    assert "event 1" in page.inner_text("#replay-error")
    assert page.locator("#viewer").is_hidden()


def test_every_page_fits_a_phone(live_server: LiveServer, phone: Any) -> None:
    made = live_server.create("yellow", [{"name": "A very long name with spaces, as people write them"},
                                         {"name": "W" * 64}, {"bot": "random"}])
    pages = [
        live_server.base_url + "/",
        live_server.base_url + "/rules/grouping-final",
        live_server.base_url + "/replay",
        made["pages"]["host"],
        made["pages"]["spectator"],
        made["pages"]["seats"][0],
    ]
    assert phone.viewport_size == PHONE
    for i, url in enumerate(pages):
        phone.goto(url)
        phone.wait_for_load_state("load")
        check_page(phone, impacts=STRICT if i < 3 else ("critical",))


def test_the_host_is_offered_only_the_pause_or_resume_that_applies(live_server: LiveServer, page: Any) -> None:
    for game in game_ids():
        made = live_server.create(game, [{"name": f"S{i + 1}"} for i in range(make_game(game).num_seats)], join=False)
        page.goto(made["pages"]["host"])
        wait_connected(page)
        page.wait_for_selector("body[data-status='waiting']")
        assert page.is_visible("#pause") and page.is_hidden("#resume"), f"{game}: waiting"
        page.click("#pause")
        page.wait_for_selector("body[data-status='paused']")
        assert page.is_hidden("#pause") and page.is_visible("#resume"), f"{game}: paused"
        page.click("#resume")
        page.wait_for_selector("body[data-status='waiting'], body[data-status='running']")
        assert page.is_visible("#pause") and page.is_hidden("#resume"), f"{game}: resumed"
        page.click("#start-now")
        page.wait_for_selector("body[data-status='running']")
        assert page.is_visible("#pause") and page.is_hidden("#resume"), f"{game}: running"


def test_a_seat_whose_choice_is_in_is_told_whom_it_waits_for(live_server: LiveServer, page: Any) -> None:
    made = live_server.create("swapping", [{"name": "Ann"}, {"name": "Bob"}])
    page.goto(made["pages"]["seats"][0])
    wait_connected(page)
    assert page.inner_text("#actions-h") == "Your move"
    page.wait_for_function("() => BW.payload().legal.length > 0")
    page.fill("#notation", page.evaluate("() => BW.payload().legal[0]"))
    page.click("#notation-form button[type=submit]")
    page.wait_for_function("() => !!BW.payload().view.my_pending")
    assert page.inner_text("#actions-h") == "Your choice is in"
    prompt = page.inner_text("#prompt")
    assert "waiting for P2 Bob" in prompt and "the others" not in prompt
