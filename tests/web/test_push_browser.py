"""The pages' Web Push opt-in, in chromium with a stubbed PushManager (a headless browser
has no push service): the seat's page asks once, in its own words, and the browser's
permission prompt comes only after a yes; the subscription it makes with the server's key
reaches the server, whose next notice goes to a local push service and decrypts with
the subscription's keys; the answer is remembered; unticking withdraws it."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from blackwhite.app import create_app
from blackwhite.server.notify import NotifySettings
from tests.server.client import free_port
from tests.server.test_notify import Browser, PushService

from .conftest import check_page


@pytest.fixture
def push_server(tmp_path: Path) -> Iterator[tuple[str, Path, PushService]]:
    """A server in this process (uvicorn in a thread) that sends Web Push to a local push
    service over plain HTTP (what only a test may allow), with a quick digest."""
    import uvicorn

    service = PushService()
    db = tmp_path / "push.db"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    app = create_app(f"sqlite:///{db}", bot_workers=0, rate_limit=False, notify=NotifySettings(
        base_url=base, digest=0.0, gather=0.0, push_services=("127.0.0.1",), push_plain=True))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(300):
        try:
            if httpx.get(base + "/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    try:
        yield base, db, service
    finally:
        server.should_exit = True
        thread.join(15)
        service.close()


STUB = """
(() => {
  const endpoint = %(endpoint)s, keys = %(keys)s;
  // a browser keeps its subscription across reloads: so does the stub (in sessionStorage)
  const sub = {endpoint, toJSON: () => ({endpoint, keys}),
               unsubscribe: () => { window.__unsubscribed = true; current = null; sessionStorage.removeItem("stub.sub");
                                    return Promise.resolve(true); }};
  let current = sessionStorage.getItem("stub.sub") ? sub : null;
  const reg = {pushManager: {
    getSubscription: () => Promise.resolve(current),
    subscribe: (options) => {
      window.__subscribed = {visible: options.userVisibleOnly, key: Array.from(new Uint8Array(options.applicationServerKey))};
      current = sub;
      sessionStorage.setItem("stub.sub", "1");
      return Promise.resolve(sub);
    }}};
  window.PushManager = function () {};
  Object.defineProperty(navigator, "serviceWorker", {configurable: true, value: {
    register: (url) => { window.__registered = url; return Promise.resolve(reg); }, ready: Promise.resolve(reg)}});
  window.__asked = 0;
  window.Notification = {permission: "default",
                         requestPermission: () => { window.__asked += 1; return Promise.resolve("granted"); }};
})();
"""


def subscriptions(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT endpoint FROM notify_push")]


def test_the_seat_page_asks_once_and_its_subscription_gets_the_servers_push(
        push_server: tuple[str, Path, PushService], page: Any) -> None:
    import base64

    base, db, service = push_server
    r = httpx.post(base + "/api/matches", json={"game": "swapping", "start": "now",
                                                "seats": [{"name": "Sally"}, {"name": "Bo"}]}, timeout=30)
    assert r.status_code == 201, r.text
    m = r.json()
    endpoint = f"http://127.0.0.1:{service.port}/push/sally-browser"
    browser = Browser(endpoint)
    page.add_init_script(STUB % {"endpoint": json.dumps(endpoint), "keys": json.dumps(browser.subscription["keys"])})
    page.goto(f"{base}/play/{m['id']}?token={m['tokens']['seats'][0]}")
    ask = page.locator("#push-ask")
    ask.wait_for(state="visible")
    assert page.evaluate("window.__asked") == 0  # no browser prompt before the player says yes
    check_page(page)
    page.click("#push-yes")
    page.wait_for_function("() => document.getElementById('push-out').textContent.includes('will be told')")
    assert page.evaluate("window.__asked") == 1
    assert page.evaluate("window.__registered") == "/static/push-sw.js"
    subscribed = page.evaluate("window.__subscribed")
    key = httpx.get(base + "/api/notify/push").json()["key"]
    assert subscribed["visible"] is True
    assert bytes(subscribed["key"]) == base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
    assert subscriptions(db) == [endpoint]
    # the server's next round tells that browser: the push service gets it, the browser reads it
    for _ in range(100):
        if service.received:
            break
        time.sleep(0.1)
    [(_headers, body, path)] = service.received
    assert path == "/push/sally-browser"
    assert browser.read(body)["title"] == "Your move: Swapping Black & White"
    # asked once: a reload asks nothing and shows the choice
    page.reload()
    page.wait_for_function("() => document.getElementById('alert-push').checked")
    assert page.locator("#push-ask").is_hidden()
    assert page.evaluate("window.__asked") == 0
    # unticking withdraws the subscription, here and on the server
    page.click("summary:has-text('When it is your move')")
    page.uncheck("#alert-push")
    page.wait_for_function("() => document.getElementById('push-out').textContent.includes('will not be told')")
    assert page.evaluate("window.__unsubscribed") is True
    assert subscriptions(db) == []


def test_no_thanks_asks_nothing_more(push_server: tuple[str, Path, PushService], page: Any) -> None:
    base, db, service = push_server
    m = httpx.post(base + "/api/matches", json={"game": "swapping", "seats": [{"name": "Sally"}, {"name": "Bo"}]},
                   timeout=30).json()
    browser = Browser(f"http://127.0.0.1:{service.port}/push/x")
    page.add_init_script(STUB % {"endpoint": json.dumps(browser.subscription["endpoint"]),
                                 "keys": json.dumps(browser.subscription["keys"])})
    url = f"{base}/play/{m['id']}?token={m['tokens']['seats'][1]}"
    page.goto(url)
    page.locator("#push-ask").wait_for(state="visible")
    page.click("#push-no")
    assert page.locator("#push-ask").is_hidden()
    page.goto(url)
    page.wait_for_timeout(500)
    assert page.locator("#push-ask").is_hidden() and page.evaluate("window.__asked") == 0
    assert subscriptions(db) == []


def test_the_players_page_chooses_its_channels_after_logging_in(
        push_server: tuple[str, Path, PushService], page: Any) -> None:
    """On /me nothing is asked before the player logs in here; then email and Discord are
    ticked (on unless turned off) and unticking one turns it off on the server, and the
    Web Push question comes once; a yes subscribes the player."""
    base, db, service = push_server
    owner = httpx.post(base + "/api/matches", json={"game": "swapping"}, timeout=30).json()["host_token"]
    r = httpx.post(base + "/api/players", json={"name": "Sally", "email": "sally@example.org"},
                   headers={"Authorization": f"Bearer {owner}"}, timeout=30)
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    browser = Browser(f"http://127.0.0.1:{service.port}/push/sally-me")
    page.add_init_script(STUB % {"endpoint": json.dumps(browser.subscription["endpoint"]),
                                 "keys": json.dumps(browser.subscription["keys"])})
    page.goto(f"{base}/me?token={token}")
    page.wait_for_selector("#player-choice:not([hidden])")
    assert page.locator("#push-ask").is_hidden() and page.evaluate("window.__asked") == 0
    page.click("#player-login")
    page.locator("#push-ask").wait_for(state="visible")
    page.wait_for_function("() => document.getElementById('notify-email').checked")
    check_page(page)
    page.uncheck("#notify-email")
    page.wait_for_function("() => document.getElementById('push-out').textContent === 'Saved.'")
    me = {"Authorization": f"Bearer {token}"}
    assert httpx.get(base + "/api/player/notify", headers=me).json()["email"] is False
    page.click("#push-yes")
    page.wait_for_function("() => document.getElementById('push-out').textContent.includes('will be told')")
    channels = httpx.get(base + "/api/player/notify", headers=me).json()
    assert channels["push"] is True and channels["push_subscribed"] is True
    assert subscriptions(db) == [browser.subscription["endpoint"]]
