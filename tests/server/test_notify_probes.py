"""Hostile requests to the notifications' routes (#41): a push endpoint that one URL
parser reads as a push service and the HTTP client as another host is refused, and is
never posted to."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest
from fastapi.testclient import TestClient

from blackwhite.app import create_app
from blackwhite.server.notify import NotifySettings
from blackwhite.server.notify_push import check_endpoint

from .test_notify import Browser, FakeTime, PushService, create, smtp_server, step

#: endpoints that name a push service to ``urlsplit`` but another host to the HTTP client
#: (or are no plain URL at all): the authority must be a host name and a port, nothing else
CONFUSED = ["{scheme}://127.0.0.1:{port}\\@fcm.googleapis.com/push/x",
            "{scheme}://127.0.0.1:{port}\\.fcm.googleapis.com/push/x",
            "{scheme}://user@fcm.googleapis.com/push/x",
            "{scheme}://127.0.0.1%2f.fcm.googleapis.com/push/x",
            "{scheme}://fcm.googleapis.com /push/x",
            "{scheme}://fcm.googleapis.com\t/push/x",
            "{scheme}://[::1]/.fcm.googleapis.com/push/x",
            "{scheme}://fcm.googleapis.com/push/x\n"]


@pytest.mark.parametrize("endpoint", [e.format(scheme="https", port=443) for e in CONFUSED])
def test_an_endpoint_parsed_two_ways_is_refused(endpoint: str) -> None:
    with pytest.raises(ValueError):
        check_endpoint(endpoint, ("fcm.googleapis.com",))


def test_real_push_endpoints_still_pass() -> None:
    for endpoint in ("https://fcm.googleapis.com/fcm/send/cXyZ:APA91bH-abc_DEF",
                     "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk-x_y=",
                     "https://web.push.apple.com/QOabc-DEF_ghi",
                     "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD%2bx%3d",
                     "https://fcm.googleapis.com:443/fcm/send/x"):
        check_endpoint(endpoint, ("fcm.googleapis.com", "push.services.mozilla.com", "push.apple.com",
                                  "notify.windows.com"))


@contextmanager
def fcm_only(url: str, now: FakeTime, smtp_port: int) -> Iterator[TestClient]:
    """A server that posts to the FCM push service only (over plain HTTP, as the tests' do)."""
    settings = NotifySettings(smtp_url=f"smtp://127.0.0.1:{smtp_port}?from=bw@games.test", base_url="http://testserver",
                              digest=0.0, gather=0.0, push_services=("fcm.googleapis.com",), push_plain=True)
    app = create_app(url, bot_workers=0, now=now, clock_interval=None, rate_limit=False, notify=settings)
    with TestClient(app) as client:
        yield client


def test_a_page_cannot_make_the_server_post_to_a_local_address(sqlite_url: str) -> None:
    local = PushService()
    try:
        with smtp_server() as (_inbox, port), fcm_only(sqlite_url, FakeTime(), port) as c:
            m = create(c, [{"name": "Sally"}, {"name": "Bo"}])
            for endpoint in CONFUSED:
                sub = Browser(endpoint.format(scheme="http", port=local.port)).subscription
                r = c.post(f"/api/matches/{m['id']}/push", params={"token": m["tokens"]["seats"][0]}, json=sub)
                assert r.status_code == 422 and r.json()["error"]["code"] == "bad_push", (endpoint, r.text)
            step(c)
            assert local.received == []
    finally:
        local.close()
