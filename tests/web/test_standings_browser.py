"""The season page, a player's profile and a leaderboard in the browser at 375 px (#40):
a season with a round played (a main match played elsewhere, the candidate's choice, a
death match on the server that the candidate resigns) and a main match of the next round,
with rated matches of players and bots; its replay opens from the season page.  Each page
passes the pages' checks (no sideways scroll, no critical axe issue) and is shot light
and dark (docs/screenshots: season-*, profile-*, ratings-*)."""

from __future__ import annotations

import time
from typing import Any

import httpx

from .conftest import LiveServer, check_page
from .shots import shoot


def call(server: LiveServer, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
    headers = {"Authorization": f"Bearer {token or server.host_token}"}
    r = httpx.request(method, server.base_url + path, headers=headers, timeout=60, **kwargs)
    assert r.status_code in (200, 201), r.text
    return r.json()


def finished(server: LiveServer, match_id: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if call(server, "GET", f"/api/matches/{match_id}")["status"] == "finished":
            return
        time.sleep(0.1)
    raise AssertionError(f"match {match_id} did not finish in {seconds} s")


def rated(server: LiveServer, game: str, who: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(r["identity"] == who for r in call(server, "GET", f"/api/ratings/{game}?limit=1000")["rows"]):
            return
        time.sleep(0.2)
    raise AssertionError(f"{who} was not rated in {game} within {seconds} s")


def test_season_profile_and_leaderboard_pages_on_a_phone(live_server: LiveServer, phone: Any) -> None:
    names = ["Sally", "Maddie", "Kyle", "Jenna", "Ollie"]
    logins = {}
    for name in names:
        made = call(live_server, "POST", "/api/players", json={"name": name})
        logins[made["player"]["id"]] = made["token"]
    ids = list(logins)
    sally, maddie, kyle, jenna, _ollie = ids
    sid = call(live_server, "POST", "/api/seasons", json={
        "name": "Autumn season", "cast": [{"player": p} for p in ids], "garnets": 6})["id"]
    call(live_server, "POST", f"/api/seasons/{sid}/main", json={"tokens": [sally], "candidate": maddie,
                                                                "awards": {sally: 3}})
    call(live_server, "POST", f"/api/seasons/{sid}/opponent", logins[maddie], json={"player": kyle})
    mid = call(live_server, "POST", f"/api/seasons/{sid}/death", json={"game": "swapping"})["made"]["match"]
    call(live_server, "GET", f"/api/matches/{mid}/view", logins[kyle])
    v = call(live_server, "GET", f"/api/matches/{mid}/view", logins[maddie])
    call(live_server, "POST", f"/api/matches/{mid}/actions", logins[maddie], json={"action": "resign", "version": v["version"]})
    deadline = time.monotonic() + 30
    while call(live_server, "GET", f"/api/seasons/{sid}")["round"] != 2 and time.monotonic() < deadline:
        time.sleep(0.2)  # the server writes the death match's result by itself
    call(live_server, "POST", f"/api/seasons/{sid}/main", json={"tokens": [kyle], "candidate": jenna})
    # rated matches beside the season: bots, and a player against a bot
    for seats in ([{"bot": "heuristic"}, {"bot": "random"}], [{"bot": "random"}, {"bot": "heuristic"}],
                  [{"player": sally}, {"bot": "random"}]):
        made = live_server.create("swapping", seats)
        if seats[0].get("player"):
            v = call(live_server, "GET", f"/api/matches/{made['id']}/view", logins[sally])
            call(live_server, "POST", f"/api/matches/{made['id']}/actions", logins[sally],
                 json={"action": "resign", "version": v["version"]})
        finished(live_server, made["id"])
    rated(live_server, "swapping", f"player:{sally}")

    # the season: public, read with no login
    phone.goto(f"{live_server.base_url}/seasons/{sid}")
    rows = phone.locator("#standings tbody tr")
    assert rows.count() == 5
    text = phone.locator("#standings").inner_text()
    assert "1\tKyle\t12\t1\tin" in text  # his 6 and the 6 of Maddie, whom he beat; his round 2 token
    assert "Maddie\t0\t0\tout, round 1" in text
    assert "Jenna" in phone.locator("#next-death-match").inner_text()
    assert phone.locator(f"a[href='/seasons/{sid}/replay/{mid}']").count() == 1
    check_page(phone)
    shoot(phone, "season")
    phone.click(f"a[href='/seasons/{sid}/replay/{mid}']")
    phone.wait_for_selector("#viewer:not([hidden])")
    check_page(phone)

    # the profile of a player, linked from the leaderboard
    phone.goto(f"{live_server.base_url}/ratings/swapping")
    board = phone.locator("#leaderboard").inner_text()
    assert "heuristic" in board and "Sally" in board
    check_page(phone)
    shoot(phone, "ratings")
    phone.click(f"a[href='/players/{sally}']")
    phone.wait_for_url(f"**/players/{sally}")
    assert "Autumn season" in phone.locator("#profile-seasons").inner_text()
    assert "Swapping" in phone.locator("#profile-games").inner_text()
    check_page(phone)
    shoot(phone, "profile")
