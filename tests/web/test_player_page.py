"""The player's page in the browser at 375 px (#40): a player opens the link its host
sent, is asked before the browser logs in as them, sees the match awaiting its move
first, opens it from there with no seat link (the bw_player cookie), renames itself;
and the host's page makes players and offers them for a seat."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import LiveServer, check_page, wait_connected
from .shots import shoot


def new_player(server: LiveServer, name: str) -> tuple[str, str]:
    r = httpx.post(server.base_url + "/api/players", json={"name": name},
                   headers={"Authorization": f"Bearer {server.host_token}"}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()["player"]["id"], r.json()["token"]


def test_a_player_logs_in_sees_its_move_first_and_plays_from_its_page(live_server: LiveServer, phone: Any) -> None:
    player, token = new_player(live_server, "Sally")
    invited = live_server.create("swapping", [{"player": player}, {"name": "B"}], join=False)["id"]
    playing = live_server.create("swapping", [{"name": "A"}, {"player": player}], join=False, start="now")["id"]
    phone.goto(f"{live_server.base_url}/me?token={token}")
    # asked first, the safe answer focused; nothing is kept until the player chooses
    phone.wait_for_selector("#player-choice:not([hidden])")
    assert phone.evaluate("() => document.activeElement.id") == "player-ignore"
    assert phone.evaluate("() => localStorage.getItem('bw.player')") is None
    check_page(phone)
    phone.click("#player-login")
    assert "token=" not in phone.url
    assert phone.evaluate("() => localStorage.getItem('bw.player')") == token
    waiting = phone.locator("#waiting-list li")
    assert waiting.count() == 2
    assert "your move" in waiting.nth(0).inner_text() and playing in waiting.nth(0).inner_text()
    assert invited in waiting.nth(1).inner_text()
    assert "your move" in phone.locator("#match-list li").nth(0).inner_text()
    check_page(phone)
    shoot(phone, "player-page")
    # the match opens from the page, by the cookie: no seat link
    phone.click(f"#match-list a[href='/play/{playing}']")
    phone.wait_for_url(f"**/play/{playing}")
    wait_connected(phone)
    assert phone.locator("#board").count() == 1
    check_page(phone)
    # back on the page without the link: still logged in; rename
    phone.goto(f"{live_server.base_url}/me")
    phone.fill("#me-name", "Sally B")
    phone.click("#me-rename")
    phone.wait_for_function("() => document.getElementById('player-name').textContent === 'Sally B'")
    check_page(phone)


def test_the_host_page_makes_players_and_offers_them_for_a_seat(live_server: LiveServer, phone: Any) -> None:
    phone.goto(f"{live_server.base_url}/?token={live_server.host_token}")
    phone.wait_for_selector("#host-players:not([hidden])")
    phone.fill("#new-player-name", "Maddie")
    phone.click("#new-player")
    phone.wait_for_selector("#new-player-out input")
    link = phone.input_value("#new-player-out input")
    assert "/me?token=" in link
    phone.wait_for_selector("#seat-kind-0 option[data-player]", state="attached")
    options = phone.locator("#seat-kind-0 option[data-player]").all_inner_texts()
    assert "player: Maddie" in options
    phone.select_option("#seat-kind-0", label="player: Maddie")
    assert phone.is_hidden("#seat-name-0")
    phone.click("#create-button")
    phone.wait_for_url("**/host/**")
    phone.wait_for_selector("#links li.player-seat")
    assert "plays from their own page" in phone.inner_text("#links")
    check_page(phone)


def test_the_host_seats_a_player_from_the_match_page(live_server: LiveServer, phone: Any) -> None:
    player, token = new_player(live_server, "Ann")
    made = live_server.create("swapping", [{"name": "A"}, {"name": "B"}], join=False)
    mid, seat_link = made["id"], made["tokens"]["seats"][1]
    phone.goto(f"{live_server.base_url}/host/{mid}?token={live_server.host_token}")
    phone.wait_for_selector("#bind-form:not([hidden])")
    phone.select_option("#bind-seat", value="1")
    phone.select_option("#bind-player", value=player)
    phone.click("#bind-form button[type=submit]")
    phone.wait_for_function("() => document.getElementById('bind-out').textContent.includes('their own page')")
    check_page(phone)
    assert live_server.view(mid, token, join=False)["seat"] == 1
    r = httpx.get(f"{live_server.base_url}/api/matches/{mid}/view", params={"token": seat_link}, timeout=30)
    assert r.status_code == 403
