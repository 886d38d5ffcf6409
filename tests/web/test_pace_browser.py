"""The pace on the pages (#41): the host form offers it in players' words, and every page
of a match (host, play, watch, and the rules it links to) says which pace it runs at."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

from .conftest import LiveServer, check_page, wait_connected
from .shots import shoot

STRICT = ("critical", "serious")


def test_the_host_chooses_a_slow_pace_with_quiet_nights(live_server: LiveServer, page: Any, new_page: Any) -> None:
    page.goto(live_server.base_url + "/")
    page.check("#game-swapping")
    assert page.is_hidden("#pace-slow-fields")
    page.check("#pace-slow")
    assert page.is_visible("#pace-slow-fields")
    page.fill("#pace-action-hours", "24")
    page.fill("#pace-reserve-hours", "12")
    page.fill("#pace-match-hours", "48")
    page.check("#pace-quiet")
    page.fill("#pace-quiet-from", "23:00")
    page.fill("#pace-quiet-to", "07:30")
    page.fill("#pace-quiet-tz", "Europe/Paris")
    check_page(page, impacts=STRICT)
    page.locator("#pace").scroll_into_view_if_needed()
    shoot(page, "host-form-pace", full_page=True)

    # a zone the server does not know: the server's message, nothing created
    page.fill("#pace-quiet-tz", "Europe/Atlantis")
    page.click("#create-button")
    page.wait_for_function("() => document.getElementById('create-error').textContent.length > 0")
    assert "not a time zone" in page.inner_text("#create-error") and "/host/" not in page.url
    page.fill("#pace-quiet-tz", "Europe/Paris")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/host/[^/?]+\?token="))
    wait_connected(page)
    said = page.inner_text("#pace-line")
    assert said == ("pace: slow: 24 h per action, 12 h reserve, 48 h for the whole match, "
                    "clocks stop 23:00–07:30 Europe/Paris time"), said
    assert page.inner_text("#clocks-h + p").startswith("24 h per action, 12 h reserve")
    # give time: hours at a slow pace, up to a day at once
    assert page.locator("#time-unit").input_value() == "3600"
    check_page(page)

    seat_link = page.locator("#links li input.link").nth(1).input_value()
    spectator_link = page.locator("#links li input.link").nth(0).input_value()
    for link in (seat_link, spectator_link):
        other = new_page()
        other.goto(link)
        wait_connected(other)
        assert other.inner_text("#pace-line") == said
        rules = other.locator("p.sub a").first.get_attribute("href")
        assert rules is not None and rules.startswith("/rules/swapping?pace=")
        other.goto(live_server.base_url + rules)
        assert "This match runs at its host's pace" in other.inner_text("#match-pace")
        assert "slow: 24 h per action" in other.inner_text("#match-pace")
        check_page(other, impacts=STRICT)


def test_a_live_match_says_so_and_gives_time_in_seconds(live_server: LiveServer, page: Any) -> None:
    page.goto(live_server.base_url + "/")
    page.check("#game-domino")
    page.check("#pace-scaled")
    page.fill("#pace-factor", "0")
    page.click("#create-button")
    page.wait_for_function("() => document.getElementById('create-error').textContent.length > 0")
    assert "from 0.1 to 1000" in page.inner_text("#create-error")
    page.check("#pace-live")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/host/"))
    wait_connected(page)
    assert page.inner_text("#pace-line") == "pace: live: the game's own clock"
    assert page.locator("#time-unit").input_value() == "1"
    rules = page.locator("p.sub a").first.get_attribute("href")
    assert rules == "/rules/domino"


def test_the_clocks_stop_in_quiet_hours(live_server: LiveServer, page: Any) -> None:
    """Quiet hours around now (UTC): the page's clocks do not count down and say why."""
    hour = datetime.now(timezone.utc).hour
    quiet = {"from": f"{(hour - 1) % 24:02d}:00", "to": f"{(hour + 2) % 24:02d}:00", "tz": "UTC"}
    made = live_server.create("swapping", [{"name": "Sally"}, {"name": "Maddie"}],
                              pace={"kind": "slow", "action_hours": 2, "quiet": quiet})
    page.goto(made["pages"]["seats"][0])
    wait_connected(page)
    page.wait_for_selector("#quiet-note:not([hidden])")
    assert "Quiet hours" in page.inner_text("#quiet-note")
    shown = page.inner_text("#clocks tr[data-seat='0'] .action-left")
    assert shown == "2:00:00"
    page.wait_for_timeout(2500)
    assert page.inner_text("#clocks tr[data-seat='0'] .action-left") == shown
