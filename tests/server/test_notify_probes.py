"""Hostile requests to the notifications' routes (#41): a push endpoint that one URL
parser reads as a push service and the HTTP client as another host is refused, and is
never posted to."""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from blackwhite.app import create_app
from blackwhite.server.notify import NotifySettings
from blackwhite.server.notify_push import check_endpoint

from tests.twins import Twin

from .matches import live_of_record
from .test_notify import TWINS, Browser, FakeTime, PushService, create, smtp_server, step

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


# --------------------------------------------------------------------------- the notifier's own choices


def _notices(record: dict[str, Any], seat: int, at: float) -> list[tuple[str, dict[str, Any]]]:
    """What the notifier itself would write for ``seat`` of the record's match ``at``
    seconds after its clocks began, through :meth:`Notifier._candidates`: which notices
    (turn, time running low, end) and what they say: whether and when a seat is told, not
    only what.  The state answers only its views and who is to move."""
    from blackwhite.server import clocks as clk
    from blackwhite.server.notify import Notifier, _Seen

    live, names = live_of_record(record, "the notifier", "to_move", "is_over", "num_seats")
    live.clocks = dataclasses.replace(live.clocks, started=True)
    live.joined = [True] * len(names)

    class Clocked:
        t = 0.0

        def _now(self) -> float:
            return self.t

    assert isinstance(live.clocks, clk.Clocks)
    notifier, seen = Clocked(), _Seen()
    Notifier._candidates(notifier, live, seen)  # type: ignore[arg-type]  # the step's full time, at its start
    notifier.t = at
    notes, _steps = Notifier._candidates(notifier, live, seen)  # type: ignore[arg-type]
    return [(kind, facts) for _key, _mid, s, kind, facts in notes if s == seat]


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_are_told_alike_by_the_notifier_itself(game: str, twin: Twin) -> None:
    """Two matches differing in a fact hidden from the seat: the notifier writes that seat
    the same notices (the same kinds, at the same moments, saying the same), when the step
    opens and as its time runs low."""
    assert twin.seat is not None
    for at in (0.0, 1.0, 30.0, 100.0, 10_000.0, 10**7):
        assert _notices(twin.a, twin.seat, at) == _notices(twin.b, twin.seat, at), (twin.name, at)


# --------------------------------------------------------------------------- a message's seat key


def test_a_key_from_a_message_stops_with_its_players_revoked_links_and_in_time(sqlite_url: str) -> None:
    """The key a message's link gives is another credential of the seat: it must not
    outlive a revocation of its player's links (a lost phone keeps the key in its
    history), nor play for ever."""
    from .test_notify import links_in, server, view

    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, digest=0.0) as c:
        host = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
        auth = {"Authorization": f"Bearer {host}"}
        made = c.post("/api/players", headers=auth, json={"name": "Sally", "email": "sally@example.org"}).json()
        sally, sally_token = made["player"]["id"], made["token"]
        m = c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
            {"player": sally}, {"name": "Bo", "email": "bo@example.org"}]}).json()
        step(c)

        def key_of(address: str) -> str:
            [link] = links_in(inbox.to(address)[-1])
            return urlsplit(c.get(urlsplit(link).path, follow_redirects=False).headers["location"]).query[6:]

        sally_key, bo_key = key_of("sally@example.org"), key_of("bo@example.org")
        assert view(c, m["id"], sally_key)["seat"] == 0 and view(c, m["id"], bo_key)["seat"] == 1
        # the host revokes Sally's link: her login and the key her message gave stop together
        assert c.post(f"/api/players/{sally}/links/{made['link_id']}/revoke", headers=auth).status_code == 200
        assert c.get(f"/api/matches/{m['id']}/view", params={"token": sally_token}).status_code == 403
        assert c.get(f"/api/matches/{m['id']}/view", params={"token": sally_key}).status_code == 403
        # a key lasts as long as the link that gave it could have been opened (then a new message brings one)
        now.t += 14 * 86400 + 1
        assert c.get(f"/api/matches/{m['id']}/view", params={"token": bo_key}).status_code == 403
        assert view(c, m["id"], m["tokens"]["seats"][1])["seat"] == 1  # the seat's own link still plays


def test_a_socket_opened_with_a_messages_key_lasts_as_long_as_the_key(sqlite_url: str) -> None:
    """A seat's page opened by a message's link follows the match on a socket with the
    key: the server's look at open sockets' rights (every 0.4 s) keeps it while the key
    plays the seat, and closes it once the key stops (its player's link revoked, its 14
    days over), as it does a player's login."""
    from .test_notify import links_in, server

    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, digest=0.0) as c:
        service = c.app.state.service  # type: ignore[attr-defined]
        auth = {"Authorization": f"Bearer {service.owner_login('test')}"}
        made = c.post("/api/players", headers=auth, json={"name": "Sally", "email": "sally@example.org"}).json()
        m = c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
            {"player": made["player"]["id"]}, {"name": "Bo", "email": "bo@example.org"}]}).json()
        step(c)

        def key_of(address: str) -> str:
            [link] = links_in(inbox.to(address)[-1])
            return urlsplit(c.get(urlsplit(link).path, follow_redirects=False).headers["location"]).query[6:]

        sally_key, bo_key = key_of("sally@example.org"), key_of("bo@example.org")
        live = service.matches[m["id"]]

        def open_seats() -> list[int]:
            return sorted(s.role.seat for s in live.subscribers if s.player_digest is not None and not s.revoked)

        with c.websocket_connect(f"/ws/matches/{m['id']}?token={sally_key}") as ws0, \
                c.websocket_connect(f"/ws/matches/{m['id']}?token={bo_key}") as ws1:
            assert ws0.receive_json()["type"] == "view" and ws1.receive_json()["type"] == "view"
            assert c.portal.call(service.recheck_players) == 0 and open_seats() == [0, 1]  # type: ignore[union-attr]
            assert c.post(f"/api/players/{made['player']['id']}/links/{made['link_id']}/revoke",
                          headers=auth).status_code == 200
            assert open_seats() == [1]  # Sally's key stopped with her link: its socket closes
            now.t += 14 * 86400 + 1
            assert c.portal.call(service.recheck_players) == 1 and open_seats() == []  # type: ignore[union-attr]


def test_a_key_from_a_message_subscribes_no_browser_to_all_its_players_matches(sqlite_url: str) -> None:
    """A push subscription made from a player's seat is the player's (told of all their
    matches, each notice with a link that opens that match's seat): made with a message's
    key, it would turn one seat's key into every seat of the player. Only the player's own
    login subscribes for the player."""
    from .test_notify import links_in, push_server

    now = FakeTime()
    with smtp_server() as (inbox, port), push_server(sqlite_url, now, port) as c:
        host = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
        auth = {"Authorization": f"Bearer {host}"}
        made = c.post("/api/players", headers=auth, json={"name": "Sally", "email": "sally@example.org"}).json()
        sally_token = made["token"]
        m = c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
            {"player": made["player"]["id"]}, {"name": "Bo"}]}).json()
        step(c)
        [link] = links_in(inbox.to("sally@example.org")[-1])
        key = urlsplit(c.get(urlsplit(link).path, follow_redirects=False).headers["location"]).query[6:]
        sub = Browser("http://127.0.0.1:9/push/elsewhere").subscription
        r = c.post(f"/api/matches/{m['id']}/push", params={"token": key}, json=sub)
        assert r.status_code == 403 and r.json()["error"]["code"] == "wrong_token", r.text
        assert c.get("/api/player/notify", headers={"Authorization": f"Bearer {sally_token}"}).json()[
            "push_subscribed"] == 0
        r = c.post(f"/api/matches/{m['id']}/push", params={"token": sally_token}, json=sub)
        assert r.status_code == 201, r.text


def test_a_messages_link_made_before_its_players_revocation_opens_nothing(sqlite_url: str) -> None:
    """The links of messages sent before the player's links were revoked (a lost phone
    holds their mail too) open nothing after it; the next message's link opens the seat."""
    from .test_notify import act, links_in, server, view

    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, digest=0.0) as c:
        auth = {"Authorization": f"Bearer {c.app.state.service.owner_login('test')}"}  # type: ignore[attr-defined]
        made = c.post("/api/players", headers=auth, json={"name": "Sally", "email": "sally@example.org"}).json()
        m = c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
            {"player": made["player"]["id"]}, {"name": "Bo"}]}).json()
        step(c)
        [old] = links_in(inbox.to("sally@example.org")[-1])
        now.t += 1
        assert c.post(f"/api/players/{made['player']['id']}/links/{made['link_id']}/revoke",
                      headers=auth).status_code == 200
        assert c.get(urlsplit(old).path, follow_redirects=False).status_code == 403
        now.t += 1
        act(c, m["id"], m["tokens"]["seats"][1], "resign")
        step(c)
        [new] = links_in(inbox.to("sally@example.org")[-1])
        opened = c.get(urlsplit(new).path, follow_redirects=False)
        assert opened.status_code == 303, opened.text
        assert view(c, m["id"], urlsplit(opened.headers["location"]).query[6:])["seat"] == 0
