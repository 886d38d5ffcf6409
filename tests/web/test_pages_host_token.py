"""The host page's token in a real browser: a link's host token never replaces the one
this browser keeps without the user's choice (host-token fixation), the form says which
host a new match belongs to, and a host page shows private links of its own origin only."""

from __future__ import annotations

import json
import re
import time
from typing import Any
from urllib.parse import quote

import httpx

from .conftest import LiveServer, check_page, wait_connected

STRICT = ("critical", "serious")


def stored(page: Any) -> Any:
    return page.evaluate("() => localStorage.getItem('bw.host')")


def hosted_ids(server: LiveServer, token: str) -> set[str]:
    r = httpx.get(server.base_url + "/api/matches", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert r.status_code == 200, r.text
    return {m["id"] for m in r.json()}


def create_on_page(page: Any) -> str:
    page.check("#game-swapping")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/host/[^/?]+\?token="))
    return page.url.split("/host/", 1)[1].split("?", 1)[0]


def become_host(page: Any, server: LiveServer) -> str:
    page.goto(server.base_url + "/")
    create_on_page(page)
    token = stored(page)
    assert token
    return str(token)


def test_a_links_host_token_does_not_replace_this_browsers_own_unasked(live_server: LiveServer, page: Any) -> None:
    mine = become_host(page, live_server)
    other = live_server.host_token
    assert other and other != mine
    page.goto(live_server.base_url + "/?token=" + quote(other))
    page.wait_for_selector("#host-choice:not([hidden])")
    check_page(page, impacts=STRICT)
    # nothing switched yet, the safe choice has the focus, and nothing is created meanwhile
    assert stored(page) == mine
    assert page.evaluate("() => document.activeElement.id") == "host-keep"
    assert page.is_disabled("#create-button")
    assert mine[:6] in page.inner_text("#host-choice") and other[:6] in page.inner_text("#host-choice")
    # the keyboard alone keeps this browser's own host
    page.keyboard.press("Enter")
    page.wait_for_selector("#host-choice", state="hidden")
    assert stored(page) == mine and "token=" not in page.url
    assert mine[:6] in page.inner_text("#create-host") and other[:6] not in page.inner_text("#create-host")
    made = create_on_page(page)
    assert made in hosted_ids(live_server, mine) and made not in hosted_ids(live_server, other)
    assert stored(page) == mine


def test_switching_to_a_links_host_is_the_users_explicit_choice(live_server: LiveServer, page: Any) -> None:
    mine = become_host(page, live_server)
    other = live_server.host_token
    page.goto(live_server.base_url + "/?token=" + quote(other))
    page.wait_for_selector("#host-choice:not([hidden])")
    page.click("#host-switch")
    page.wait_for_selector("#host-choice", state="hidden")
    assert stored(page) == other
    assert other[:6] in page.inner_text("#create-host")
    made = create_on_page(page)
    assert made in hosted_ids(live_server, other) and made not in hosted_ids(live_server, mine)
    # the same link again asks nothing: it is this browser's host now
    page.goto(live_server.base_url + "/?token=" + quote(other))
    page.wait_for_selector("#my-matches a[href^='/host/']")
    assert page.is_hidden("#host-choice") and not page.is_disabled("#create-button")


def strangers_host_token(server: LiveServer) -> str:
    """A host token that is not the one ``blackwhite serve`` printed (anyone can get one)."""
    r = httpx.post(server.base_url + "/api/matches", json={"game": "swapping", "seats": [{"name": "A"}, {"name": "B"}]},
                   timeout=30)
    assert r.status_code == 201, r.text
    token = str(r.json()["host_token"])
    assert token != server.host_token
    return token


def test_the_operators_first_visit_takes_the_printed_link_without_asking(live_server: LiveServer, page: Any) -> None:
    printed = live_server.host_token
    page.goto(live_server.base_url + "/?token=" + quote(printed))
    page.wait_for_selector("#create-host:has-text('this browser')")
    assert page.is_hidden("#host-choice") and not page.is_disabled("#create-button")
    assert stored(page) == printed and "token=" not in page.url
    made = create_on_page(page)
    assert made in hosted_ids(live_server, printed)


def test_a_fresh_browser_asks_before_taking_a_links_host_token(live_server: LiveServer, page: Any) -> None:
    other = strangers_host_token(live_server)
    page.goto(live_server.base_url + "/?token=" + quote(other))
    page.wait_for_selector("#host-choice:not([hidden])")
    assert stored(page) is None and page.is_disabled("#create-button")
    page.click("#host-keep")  # "not this host": the first match makes this browser a new host
    page.wait_for_selector("#host-choice", state="hidden")
    assert stored(page) is None
    made = create_on_page(page)
    assert made not in hosted_ids(live_server, other)
    assert stored(page) not in (None, other)


def test_a_host_page_shows_no_private_link_of_another_origin(live_server: LiveServer, page: Any) -> None:
    made = live_server.create("swapping", [{"name": "A"}, {"name": "B"}])
    mid = made["id"]
    evil = {
        "spectator": f"http://evil.example/watch/{mid}?token=x",
        "seats": [f"https://evil.example/play/{mid}?token=y", None],
        "host": "", "game": "swapping",
    }
    page.goto(f"{live_server.base_url}/host/{mid}?token={quote(live_server.host_token)}"
              f"#links={quote(json.dumps(evil))}")
    wait_connected(page)
    assert page.locator("#links input.link").count() == 0
    assert "evil.example" not in page.content()
    assert page.is_visible("#links-missing")
    # the same links on this page's own origin are shown
    good = {**evil, "spectator": evil["spectator"].replace("http://evil.example", live_server.base_url),
            "seats": [evil["seats"][0].replace("https://evil.example", live_server.base_url), None]}
    page.goto("about:blank")  # a new fragment alone would not load the page again
    page.goto(f"{live_server.base_url}/host/{mid}?token={quote(live_server.host_token)}"
              f"#links={quote(json.dumps(good))}")
    wait_connected(page)
    assert page.locator("#links input.link").count() == 2


def test_a_new_link_of_the_same_host_asks_nothing_and_host_pages_open_without_a_token(
    live_server: LiveServer, page: Any
) -> None:
    mine = become_host(page, live_server)
    made = page.url.split("/host/", 1)[1].split("?", 1)[0]
    # a second link of this browser's host (as a restart of blackwhite serve prints one)
    r = httpx.post(live_server.base_url + "/api/host/links", headers={"Authorization": f"Bearer {mine}"},
                   json={"label": "printed again"}, timeout=30)
    assert r.status_code == 201, r.text
    again = r.json()["token"]
    page.goto(live_server.base_url + "/?token=" + quote(again))
    page.wait_for_selector("#host-links:not([hidden])")
    assert page.is_hidden("#host-choice") and not page.is_disabled("#create-button")
    assert stored(page) == mine and "token=" not in page.url
    host_id = httpx.get(live_server.base_url + "/api/host", headers={"Authorization": f"Bearer {mine}"},
                        timeout=30).json()["id"]
    assert page.inner_text("#host-id") == host_id and "printed again" in page.inner_text("#host-link-list")
    check_page(page, impacts=STRICT)
    # the host's match page opens with no token in the address: the browser's host cookie
    page.goto(f"{live_server.base_url}/host/{made}")
    wait_connected(page)
    assert page.is_visible("#pause") and "token=" not in page.url
    page.click("#pause")
    page.wait_for_selector("body[data-status='paused']")
    # a new link made on the page is shown once; revoking it refuses it at once
    page.goto(live_server.base_url + "/")
    page.wait_for_selector("#host-links:not([hidden])")
    page.fill("#new-link-label", "for my phone")
    page.click("#new-link")
    page.wait_for_selector("#new-link-out input.link")
    link = page.input_value("#new-link-out input.link")
    token = link.rsplit("token=", 1)[1]
    assert made in hosted_ids(live_server, token)
    # one limited to matches, for a week: the host's list says so
    page.fill("#new-link-label", "for the bot")
    page.select_option("#new-link-scope", "matches")
    page.select_option("#new-link-expires", "604800")
    page.click("#new-link")
    page.wait_for_selector("#host-link-list li:has-text('for the bot')")
    links = httpx.get(live_server.base_url + "/api/host", headers={"Authorization": f"Bearer {mine}"},
                      timeout=30).json()["links"]
    bot = [link for link in links if link["label"] == "for the bot"][0]
    assert bot["scope"] == "matches" and abs(bot["expires"] - time.time() - 604800) < 120, bot
    assert "creates and runs matches only" in page.inner_text("#host-link-list li:has-text('for the bot')")
    # the Discord bot's link is the server's own host's: this host is told so, nothing made
    page.fill("#new-link-label", "for discord")
    page.select_option("#new-link-scope", "discord")
    page.click("#new-link")
    page.wait_for_selector("#new-link-out:has-text('Discord bot')")
    assert "for discord" not in page.inner_text("#host-link-list")
    row = page.locator("#host-link-list li", has_text="for my phone")
    page.once("dialog", lambda dialog: dialog.accept())
    row.locator("button").click()
    page.wait_for_selector("#host-link-list li:has-text('for my phone'):has-text('revoked')")
    r = httpx.get(live_server.base_url + "/api/matches", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert r.status_code == 403 and r.json()["error"]["code"] == "revoked"


def test_a_host_page_opened_with_this_browsers_own_token_keeps_it_for_the_next_visit(
    live_server: LiveServer, page: Any
) -> None:
    mine = become_host(page, live_server)
    made = page.url.split("/host/", 1)[1].split("?", 1)[0]
    page.context.clear_cookies()  # a browser that kept its host token before the cookie existed
    assert page.goto(f"{live_server.base_url}/host/{made}").status == 401
    page.goto(f"{live_server.base_url}/host/{made}?token={quote(mine)}")
    wait_connected(page)
    assert page.goto(f"{live_server.base_url}/host/{made}").status == 200
    wait_connected(page)
    # another host's link opened here is not kept: the cookie stays this browser's own
    other = live_server.host_token
    other_match = live_server.create("swapping", [{"name": "A"}, {"name": "B"}], token=other)["id"]
    page.goto(f"{live_server.base_url}/host/{other_match}?token={quote(other)}")
    wait_connected(page)
    assert page.goto(f"{live_server.base_url}/host/{other_match}").status == 403
