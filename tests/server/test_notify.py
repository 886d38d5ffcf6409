"""Notifications (blackwhite/server/notify.py) against a real local SMTP server (aiosmtpd):
each event reaches each destination once, several matches within the digest window are
one message, a crash loses nothing and doubles nothing, the single-use link opens the
seat and only once, unsubscribe works, and what a seat is told holds nothing its view
does not (the secrecy twins run through the notices)."""

from __future__ import annotations

import email
import email.policy
import json
import re
import threading
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient

from blackwhite.app import create_app
from blackwhite.server.notify import Message, NotifySettings, compose, dm_of, facts_of
from blackwhite.server.notify_push import payload
from tests.twins import Twin, seat_twins

from .client import free_port
from .fake_time import FakeTime, tick
from .fake_time import server as on_fake_time
from .matches import live_of_record, view


class Inbox:
    """What a real SMTP server (aiosmtpd, on a free loopback port) received."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.raw: list[bytes] = []
        self.lock = threading.Lock()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address.startswith("nobody@"):
            return "550 5.1.1 no such mailbox"
        if address.startswith("busy@"):
            return "450 4.2.1 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self.lock:
            self.messages.append(message)
            self.raw.append(envelope.content)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if m["To"] == address]


@contextmanager
def smtp_server(port: int | None = None) -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = port or free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@contextmanager
def server(url: str, now: FakeTime, smtp_port: int, digest: float = 60.0, gather: float = 0.0) -> Iterator[TestClient]:
    settings = NotifySettings(smtp_url=f"smtp://127.0.0.1:{smtp_port}?from=bw@games.test", base_url="http://testserver",
                              digest=digest, gather=gather)
    with on_fake_time(url, now, notify=settings) as client:
        yield client


def step(client: TestClient) -> int:
    """One notifier round: write what the matches hold, send what is due."""
    notifier = client.app.state.notifier  # type: ignore[attr-defined]
    return int(client.portal.call(notifier.step))  # type: ignore[union-attr]


def create(client: TestClient, seats: list[dict[str, Any]], game: str = "swapping", **extra: Any) -> dict[str, Any]:
    r = client.post("/api/matches", json={"game": game, "seats": seats, "start": "now", **extra})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def act(client: TestClient, mid: str, token: str, action: str) -> None:
    v = view(client, mid, token)
    r = client.post(f"/api/matches/{mid}/actions", json={"action": action, "version": v["version"]},
                    params={"token": token})
    assert r.status_code == 200, r.text


def links_in(message: EmailMessage) -> list[str]:
    body = message.get_content()
    return re.findall(r"http://testserver/notify/open/[A-Za-z0-9_-]+", body)


SALLY = {"name": "Sally", "email": "sally@example.org"}
MADDIE = {"name": "Maddie", "email": "maddie@example.org"}


def test_each_event_reaches_each_seat_once_and_the_link_opens_the_seat_once(db_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (inbox, port), server(db_url, now, port, digest=10.0) as c:
        m = create(c, [SALLY, MADDIE])
        mid, tokens = m["id"], m["tokens"]["seats"]
        assert "email" not in str(m["match"]), "a seat's address is never shown"
        assert step(c) == 2
        for address in ("sally@example.org", "maddie@example.org"):
            [mail] = inbox.to(address)
            assert mail["Subject"] == "Your move: Swapping Black & White"
            assert mail["From"] == "bw@games.test"
            assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
            assert "(8 min left)" in mail.get_content()
        assert step(c) == 0  # looked at again: nothing new
        # the link opens the seat's page with a fresh key, once
        [link] = links_in(inbox.to("sally@example.org")[0])
        opened = c.get(urlsplit(link).path, follow_redirects=False)
        assert opened.status_code == 303
        page = urlsplit(opened.headers["location"])
        assert page.path == f"/play/{mid}"
        key = page.query.removeprefix("token=")
        assert view(c, mid, key)["seat"] == 0
        assert view(c, mid, key)["role"] == "seat"
        assert c.get(urlsplit(link).path, follow_redirects=False).status_code == 403
        # Maddie submits; Sally's step is still the same one: nothing new for anyone
        act(c, mid, tokens[1], "place 1 2 3")
        now.t += 11
        assert step(c) == 0
        # Sally's time runs low: a quarter of her 480 s left
        now.t = 1_000_000.0 + 360
        tick(c)
        assert step(c) == 1
        [_, low] = inbox.to("sally@example.org")
        assert low["Subject"] == "Time running low: Swapping Black & White"
        assert "2 min left" in low.get_content()
        assert step(c) == 0
        # the end: both are told, the loser as their own view says it
        now.t += 11
        act(c, mid, tokens[0], "resign")
        assert step(c) == 2
        sally_end, maddie_end = inbox.to("sally@example.org")[-1], inbox.to("maddie@example.org")[-1]
        assert sally_end["Subject"] == maddie_end["Subject"] == "Match over: Swapping Black & White"
        assert "Maddie won." in sally_end.get_content() and "You won." in maddie_end.get_content()
        assert step(c) == 0
        assert len(inbox.messages) == 5


def test_several_matches_within_the_window_are_one_message(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, digest=300.0, gather=5.0) as c:
        first = create(c, [SALLY, {"name": "Bo"}])
        assert step(c) == 0  # gathering
        now.t += 2
        second = create(c, [{"name": "Cy"}, SALLY])
        assert step(c) == 0
        now.t += 3
        assert step(c) == 1
        [mail] = inbox.to("sally@example.org")
        assert mail["Subject"] == "2 updates from 2 matches"
        assert len(links_in(mail)) == 2
        # a third within the window waits for it, then comes as one with what else came
        now.t += 10
        act(c, first["id"], first["tokens"]["seats"][0], "place 1 2 3")
        act(c, first["id"], first["tokens"]["seats"][1], "place 8 0 3")
        third = create(c, [SALLY, {"name": "Di"}])
        now.t += 10
        assert step(c) == 0
        now.t = 1_000_000.0 + 5 + 300
        assert step(c) == 1
        [_, digest] = inbox.to("sally@example.org")
        body = digest.get_content()
        assert body.count("Your move in Swapping Black & White") == 2, body  # the third match, and the first's new step
        assert "with Di" in body and "with Bo" in body
        _ = (second, third)


def test_an_answered_step_is_not_announced_late(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, gather=30.0) as c:
        m = create(c, [SALLY, {"name": "Bo"}])
        mid, tokens = m["id"], m["tokens"]["seats"]
        step(c)  # written, waiting to be gathered
        act(c, mid, tokens[0], "place 1 2 3")  # Sally answered before it went
        now.t += 31
        assert step(c) == 0
        assert inbox.to("sally@example.org") == []


def test_unsubscribe_in_one_click_stops_every_message_to_the_address(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, digest=0.0) as c:
        m = create(c, [SALLY, MADDIE])
        assert step(c) == 2
        [mail] = inbox.to("sally@example.org")
        url = mail["List-Unsubscribe"].strip("<>")
        assert url in mail.get_content()
        assert f"List-Unsubscribe: <{url}>".encode() in inbox.raw[0] + inbox.raw[1]  # as a mail program reads it
        path = urlsplit(url).path
        assert c.get(path).status_code == 200  # a page with the button: opening it changes nothing
        forged = path[:-4] + ("0000" if not path.endswith("0000") else "1111")
        assert c.post(forged, content="List-Unsubscribe=One-Click").status_code == 404
        r = c.post(path, content="List-Unsubscribe=One-Click",
                   headers={"content-type": "application/x-www-form-urlencoded"})
        assert r.status_code == 200 and "no more emails" in r.text
        act(c, m["id"], m["tokens"]["seats"][1], "resign")
        assert step(c) == 1  # Maddie only
        assert len(inbox.to("sally@example.org")) == 1
        other = create(c, [SALLY, {"name": "Bo"}])
        assert step(c) == 0 and other
        assert len(inbox.to("sally@example.org")) == 1


def test_bad_addresses_are_refused_and_change_nothing(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (_inbox, port), server(sqlite_url, now, port) as c:
        for seats in ([{"name": "Sally", "email": "sally@example.org\r\nBcc: all@example.org"}, {"name": "Bo"}],
                      [{"name": "Sally", "email": "not an address"}, {"name": "Bo"}],
                      [{"bot": "random", "email": "bot@example.org"}, {"name": "Bo"}]):
            r = c.post("/api/matches", json={"game": "swapping", "seats": seats})
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_seats", r.text
        host = c.post("/api/matches", json={"game": "swapping"}).json()["host_token"]
        assert len(c.get("/api/matches", headers={"Authorization": f"Bearer {host}"}).json()) == 1


def test_a_crash_loses_no_notice_and_doubles_none(sqlite_url: str) -> None:
    """Notices committed but not sent (the SMTP server was down), a match whose end was
    committed but never looked at, and a running match never looked at: after a restart,
    each goes out exactly once."""
    now = FakeTime()
    port = free_port()
    with server(sqlite_url, now, port, digest=0.0) as c:
        down = create(c, [SALLY, {"name": "Bo"}])
        assert step(c) == 0  # written; the mail server refuses connections: tried again later
        ended = create(c, [MADDIE, {"name": "Cy"}])
        act(c, ended["id"], ended["tokens"]["seats"][0], "resign")  # committed; no round looked at it
        fresh = create(c, [{"name": "Di", "email": "di@example.org"}, {"name": "Ed"}])
        rows = c.app.state.notifier.store.rows()  # type: ignore[attr-defined]
        assert [r["state"] for r in rows] == ["pending"] and rows[0]["attempts"] == 1
    now.t += 3600
    with smtp_server(port) as (inbox, _), server(sqlite_url, now, port, digest=0.0) as c:
        step(c)
        step(c)
        step(c)
        assert [m["Subject"] for m in inbox.to("sally@example.org")] == ["Your move: Swapping Black & White"]
        assert [m["Subject"] for m in inbox.to("maddie@example.org")] == ["Match over: Swapping Black & White"]
        assert [m["Subject"] for m in inbox.to("di@example.org")] == ["Your move: Swapping Black & White"]
        assert len(inbox.messages) == 3
        _ = (down, fresh)
    with smtp_server(port) as (inbox, _), server(sqlite_url, now, port, digest=0.0) as c:
        step(c)
        step(c)
        assert inbox.messages == []  # a second restart finds nothing new


# --------------------------------------------------------------------------- secrecy


TWINS = seat_twins()


def messages(record: dict[str, Any], seat: int) -> list[Message]:
    """Every message the seat could be sent at the record's end (each kind, and the
    digest of them all); a notice reads the game (the title) and the views only."""
    live, _names = live_of_record(record, "a notice")
    facts = [facts_of(live, seat, kind, 100.0, 400.0) for kind in ("turn", "low", "late", "end", "join")]
    out = [compose([f], ["LINK"], "STOP") for f in facts]
    out.append(compose(facts, ["LINK"] * len(facts), "STOP"))
    return out


def told(record: dict[str, Any], seat: int) -> list[str]:
    """:func:`messages` as every channel sends them: the mail's subject and text, the Web
    Push payload, and what the Discord bridge is handed (each item's match and kind too)."""
    return [json.dumps([m.subject, m.text, payload(m), dm_of(m)], sort_keys=True) for m in messages(record, seat)]


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_are_told_the_same(game: str, twin: Twin) -> None:
    """Two matches differing in a fact hidden from the seat (tests/twins/) send that seat
    the same messages, word for word, whatever the event."""
    assert twin.seat is not None
    assert told(twin.a, twin.seat) == told(twin.b, twin.seat), twin.name


# --------------------------------------------------------------------------- players


def make_player(client: TestClient, host: str, name: str, **extra: Any) -> tuple[str, str]:
    r = client.post("/api/players", json={"name": name, **extra}, headers={"Authorization": f"Bearer {host}"})
    assert r.status_code == 201, r.text
    return r.json()["player"]["id"], r.json()["token"]


def test_a_players_chosen_channels_email_and_the_bridges_dm(db_url: str) -> None:
    """A seat bound to a player goes to the player's email and to the Discord bridge's
    DMs (read by a link of the server's own host, marked delivered once); the player turns
    a channel off on their page, and the host's address for the seat is not used."""
    now = FakeTime()
    with smtp_server() as (inbox, port), server(db_url, now, port, digest=0.0) as c:
        host = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
        auth = {"Authorization": f"Bearer {host}"}
        sally, sally_token = make_player(c, host, "Sally", email="sally@example.org", discord_id="123456789012345678")
        r = c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
            {"player": sally}, {"name": "Bo", "email": "bo@example.org"}]})
        assert r.status_code == 201, r.text
        m = r.json()
        assert step(c) == 3  # Sally's email, Sally's DM, Bo's email
        [mail] = inbox.to("sally@example.org")
        assert mail["Subject"] == "Your move: Swapping Black & White"
        [dm] = c.get("/api/notify/discord", headers=auth).json()
        assert dm["discord_id"] == "123456789012345678" and dm["subject"] == mail["Subject"]
        assert dm["items"][0]["text"].startswith("Your move in Swapping Black & White with Bo")
        # what the bridge leaves out of its own matches' DMs is named by each item (public facts only)
        assert {k: v for k, v in dm["items"][0].items() if k not in ("text", "link")} == {
            "match": m["id"], "kind": "turn", "title": "Swapping Black & White", "subject": mail["Subject"]}
        # only the server's own host reads them; a player token or another host: refused
        other = c.post("/api/matches", json={"game": "swapping"}).json()["host_token"]
        assert c.get("/api/notify/discord", headers={"Authorization": f"Bearer {other}"}).status_code == 403
        assert c.get("/api/notify/discord", headers={"Authorization": f"Bearer {sally_token}"}).status_code == 403
        assert c.post(f"/api/notify/discord/{dm['id']}/delivered", headers=auth).json()["delivered"] is True
        assert c.get("/api/notify/discord", headers=auth).json() == []
        # the DM's link opens Sally's seat, as her email's does
        opened = c.get(urlsplit(dm["items"][0]["link"]).path, follow_redirects=False)
        key = urlsplit(opened.headers["location"]).query.removeprefix("token=")
        assert view(c, m["id"], key)["seat"] == 0
        # Sally turns email off on her page: the end comes by DM only
        me = {"Authorization": f"Bearer {sally_token}"}
        assert c.get("/api/player/notify", headers=me).json()["email"] is True
        r = c.patch("/api/player/notify", headers=me, json={"email": False})
        assert r.status_code == 200 and r.json()["email"] is False and r.json()["discord"] is True
        act(c, m["id"], m["tokens"]["seats"][1], "resign")
        step(c)
        assert len(inbox.to("sally@example.org")) == 1
        [end] = c.get("/api/notify/discord", headers=auth).json()
        assert end["subject"] == "Match over: Swapping Black & White" and "You won." in end["text"]
        assert c.patch("/api/player/notify", headers=me, json={"fax": True}).status_code == 400


def test_a_message_the_bridge_did_not_dm_holds_nothing_back(sqlite_url: str) -> None:
    """The bridge DMs the prompts of its own matches itself and leaves such items out of
    the server's message; with nothing left it DMs nothing and says so when it marks the
    message (``{"dm": false}``): the message's rows are void, not sent, so the digest
    window does not hold the next message back (no message went).  One DMed holds it."""
    now = FakeTime()
    with smtp_server() as (_inbox, port), server(sqlite_url, now, port, digest=300.0) as c:
        host = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
        auth = {"Authorization": f"Bearer {host}"}
        sally, _token = make_player(c, host, "Sally", discord_id="123456789012345678")

        def match(other: str) -> str:
            r = c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
                {"player": sally}, {"name": other}]})
            assert r.status_code == 201, r.text
            return str(r.json()["id"])

        first = match("Bo")
        assert step(c) == 1
        [dm] = c.get("/api/notify/discord", headers=auth).json()
        assert set(dm) == {"id", "discord_id", "subject", "text", "items", "unsubscribe", "created"}  # rows kept inside
        for bad in ({"dm": "no"}, {"dm": False, "more": 1}):
            r = c.post(f"/api/notify/discord/{dm['id']}/delivered", headers=auth, json=bad)
            assert r.status_code in (400, 422), r.text
        assert [d["id"] for d in c.get("/api/notify/discord", headers=auth).json()] == [dm["id"]]  # bad: unchanged
        r = c.post(f"/api/notify/discord/{dm['id']}/delivered", headers=auth, json={"dm": False})
        assert r.json() == {"id": dm["id"], "delivered": True}
        rows = c.app.state.notifier.store.rows(first)  # type: ignore[attr-defined]
        assert [(r["channel"], r["state"]) for r in rows] == [("discord", "void")] and "bridge" in rows[0]["error"]
        now.t += 10
        second = match("Cy")
        assert step(c) == 1  # not held back: nothing was DMed
        [dm2] = c.get("/api/notify/discord", headers=auth).json()
        assert [i["match"] for i in dm2["items"]] == [second]
        assert c.post(f"/api/notify/discord/{dm2['id']}/delivered", headers=auth).json()["delivered"] is True
        # marked again, now as not DMed: it was delivered already, nothing changes
        assert c.post(f"/api/notify/discord/{dm2['id']}/delivered", headers=auth,
                      json={"dm": False}).json()["delivered"] is False
        assert [r["state"] for r in c.app.state.notifier.store.rows(second)] == ["sent"]  # type: ignore[attr-defined]
        now.t += 10
        match("Di")
        assert step(c) == 0  # the second was DMed: its window holds the third


def test_the_bridge_voids_only_its_own_hosts_prompts(sqlite_url: str) -> None:
    """``{"dm": false}`` says the bridge DMs every item itself: only the invitation,
    prompts and end of a match of its own host can be.  A message about another host's
    match (or time running low) is refused (403 scope) and nothing changes: still handed
    out, its rows still counted sent; a plain mark then delivers it."""
    now = FakeTime()
    with smtp_server() as (_inbox, port), server(sqlite_url, now, port, digest=0.0) as c:
        bridge = {"Authorization": f"Bearer {c.app.state.service.owner_login('test')}"}  # type: ignore[attr-defined]
        made = c.post("/api/matches", json={"game": "swapping"})  # no token: another host, made now
        assert made.status_code == 201, made.text
        other = {"Authorization": f"Bearer {made.json()['host_token']}"}
        tom, _token = make_player(c, made.json()["host_token"], "Tom")
        # only the operator (or the server's own host) names a Discord id: here, the operator
        c.app.state.service.players.change(tom, {"discord_id": "223456789012345678"})  # type: ignore[attr-defined]
        r = c.post("/api/matches", headers=other, json={"game": "swapping", "start": "now", "seats": [
            {"player": tom}, {"name": "Bo"}]})
        assert r.status_code == 201, r.text
        assert step(c) == 1
        [dm] = c.get("/api/notify/discord", headers=bridge).json()
        assert [i["match"] for i in dm["items"]] == [r.json()["id"]]
        refused = c.post(f"/api/notify/discord/{dm['id']}/delivered", headers=bridge, json={"dm": False})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "scope", refused.text
        assert [d["id"] for d in c.get("/api/notify/discord", headers=bridge).json()] == [dm["id"]]
        rows = c.app.state.notifier.store.rows(r.json()["id"])  # type: ignore[attr-defined]
        assert [row["state"] for row in rows] == ["sent"]
        assert c.post(f"/api/notify/discord/{dm['id']}/delivered", headers=bridge).json()["delivered"] is True
        # the bridge's own match, but time running low (which the bridge does not say): refused too
        own = c.post("/api/matches", headers=bridge, json={"game": "swapping"}).json()["id"]
        store = c.app.state.notifier.store  # type: ignore[attr-defined]
        store.add_dm("223456789012345678", {"subject": "s", "text": "t", "unsubscribe": "u", "rows": [], "items": [
            {"text": "x", "link": "l", "match": own, "kind": "low", "title": "T", "subject": "S"}]}, now.t)
        [low] = c.get("/api/notify/discord", headers=bridge).json()
        refused = c.post(f"/api/notify/discord/{low['id']}/delivered", headers=bridge, json={"dm": False})
        assert refused.status_code == 403 and [d["id"] for d in c.get("/api/notify/discord", headers=bridge).json()] \
            == [low["id"]]


def test_only_the_bridges_link_reads_and_marks_the_discord_notices(sqlite_url: str) -> None:
    """The Discord notices carry fresh single-use login links of every Discord player:
    only a link of scope ``discord`` of the server's own host (the bridge's) or an owner
    link (the operator's) reads or marks them.  A ``matches`` link of that host (a
    co-organiser's), a seat's key, a player's link, a revoked link, no token: refused
    (403 ``scope`` for a host link of another scope), and nothing is marked."""
    now = FakeTime()
    with smtp_server() as (_inbox, port), server(sqlite_url, now, port, digest=0.0) as c:
        owner = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]

        def link(scope: str) -> str:
            made = c.post("/api/host/links", params={"token": owner}, json={"label": scope, "scope": scope})
            assert made.status_code == 201 and made.json()["scope"] == scope, made.text
            return str(made.json()["token"])

        bridge, co_organiser, gone = link("discord"), link("matches"), link("discord")
        gone_id = next(e["id"] for e in c.get("/api/host", params={"token": gone}).json()["links"] if e["this"])
        assert c.post(f"/api/host/links/{gone_id}/revoke", params={"token": owner}).status_code == 200
        # the bridge's link runs matches as a matches link does, and makes no links
        assert c.post("/api/host/links", params={"token": bridge}, json={}).json()["error"]["code"] == "scope"
        sally, sally_token = make_player(c, bridge, "Sally", discord_id="123456789012345678")
        r = c.post("/api/matches", params={"token": bridge}, json={"game": "swapping", "start": "now", "seats": [
            {"player": sally}, {"name": "Bo"}]})
        assert r.status_code == 201, r.text
        match_id, seat_key = r.json()["id"], r.json()["tokens"]["seats"][1]
        assert step(c) == 1
        [dm] = c.get("/api/notify/discord", params={"token": bridge}).json()
        refused = {co_organiser: (403, "scope"), seat_key: (403, "wrong_token"), sally_token: (403, "wrong_token"),
                   gone: (403, "revoked"), "": (401, "missing_token")}
        for token, (status, code) in refused.items():
            auth = {"Authorization": f"Bearer {token}"} if token else {}
            for how, body in (("GET", None), ("POST", None), ("POST", {"dm": False})):
                path = "/api/notify/discord" + (f"/{dm['id']}/delivered" if how == "POST" else "")
                r = c.request(how, path, headers=auth, json=body)
                assert (r.status_code, r.json()["error"]["code"]) == (status, code), (token == co_organiser, r.text)
        said = c.get("/api/notify/discord", params={"token": co_organiser}).json()["error"]["message"]
        assert "blackwhite hosts new-link --scope discord" in said, said
        # nothing was marked: the bridge is handed the notice still; the operator's link reads it too
        assert [d["id"] for d in c.get("/api/notify/discord", params={"token": bridge}).json()] == [dm["id"]]
        assert [d["id"] for d in c.get("/api/notify/discord", params={"token": owner}).json()] == [dm["id"]]
        rows = c.app.state.notifier.store.rows(match_id)  # type: ignore[attr-defined]
        assert [row["state"] for row in rows] == ["sent"]
        assert c.post(f"/api/notify/discord/{dm['id']}/delivered", params={"token": bridge}).json()["delivered"] is True
        assert c.get("/api/notify/discord", params={"token": owner}).json() == []


def test_a_key_stops_when_its_seat_is_bound_to_someone_else(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port) as c:
        r = c.post("/api/matches", json={"game": "swapping", "seats": [SALLY, {"name": "Bo"}]})
        m = r.json()
        host = m["host_token"]
        step(c)
        [link] = links_in(inbox.to("sally@example.org")[0])
        key = urlsplit(c.get(urlsplit(link).path, follow_redirects=False).headers["location"]).query[6:]
        watched = c.get(f"/api/matches/{m['id']}/view", params={"token": key, "join": 0})  # not opened: still bindable
        assert watched.status_code == 200 and watched.json()["seat"] == 0
        other, _ = make_player(c, host, "Someone")
        r = c.post(f"/api/matches/{m['id']}/seats/0/player", json={"player": other},
                   headers={"Authorization": f"Bearer {host}"})
        assert r.status_code == 200, r.text
        assert c.get(f"/api/matches/{m['id']}/view", params={"token": key}).status_code == 403


# --------------------------------------------------------------------------- Web Push


class PushService:
    """A local push service (a browser maker's, as far as the server can tell): records
    each POST (headers, body) and answers 201, or ``answer`` when set."""

    def __init__(self) -> None:
        import http.server

        self.received: list[tuple[dict[str, str], bytes, str]] = []
        self.answer = 201
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                outer.received.append(({k.lower(): v for k, v in self.headers.items()}, body, self.path))
                self.send_response(outer.answer)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Browser:
    """A browser's side of a push subscription: its ECDH key pair and auth secret, as
    ``PushManager.subscribe`` makes them, and the decryption a browser does (RFC 8291)."""

    def __init__(self, endpoint: str) -> None:
        import base64
        import os

        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)

        def b64(data: bytes) -> str:
            return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

        self.subscription = {"endpoint": endpoint, "keys": {"p256dh": b64(public), "auth": b64(self.auth)}}

    def read(self, body: bytes) -> dict[str, Any]:
        import json

        import http_ece

        return dict(json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth,
                                                version="aes128gcm")))


def check_vapid(headers: dict[str, str], server_key: str, audience: str) -> None:
    """The request is signed with the server's VAPID key (RFC 8292): ``vapid t=JWT, k=KEY``,
    the JWT's ES256 signature checks out with KEY, and it names the push service."""
    import base64
    import json

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    def unb64(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    scheme, _, rest = headers["authorization"].partition(" ")
    assert scheme.lower() == "vapid"
    fields = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert fields["k"] == server_key
    head, claims, signature = fields["t"].split(".")
    assert json.loads(unb64(claims))["aud"] == audience
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(fields["k"]))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged


@contextmanager
def push_server(url: str, now: FakeTime, smtp_port: int, digest: float = 0.0) -> Iterator[TestClient]:
    settings = NotifySettings(smtp_url=f"smtp://127.0.0.1:{smtp_port}?from=bw@games.test", base_url="http://testserver",
                              digest=digest, gather=0.0, push_services=("127.0.0.1",), push_plain=True)
    with on_fake_time(url, now, notify=settings) as client:
        yield client


def test_web_push_round_trip_decrypted_as_a_browser_would(db_url: str) -> None:
    """The seat's page subscribes (with the server's key); the server's message reaches the
    local push service signed with its VAPID key, and the browser's keys decrypt it to the
    notice with its link; a subscription the push service drops (410) is forgotten."""
    now = FakeTime()
    service = PushService()
    try:
        with smtp_server() as (inbox, port), push_server(db_url, now, port) as c:
            key = c.get("/api/notify/push").json()["key"]
            assert key and len(key) == 87
            m = create(c, [{"name": "Sally"}, {"name": "Bo"}])
            mid, tokens = m["id"], m["tokens"]["seats"]
            browser = Browser(f"http://127.0.0.1:{service.port}/push/sally-device")
            r = c.post(f"/api/matches/{mid}/push", params={"token": tokens[0]}, json=browser.subscription)
            assert r.status_code == 201 and r.json()["seat"] == 0, r.text
            assert c.post(f"/api/matches/{mid}/push", params={"token": m["tokens"]["spectator"]},
                          json=browser.subscription).status_code == 403
            assert step(c) == 1
            [(headers, body, path)] = service.received
            assert path == "/push/sally-device" and headers["content-encoding"] == "aes128gcm"
            check_vapid(headers, key, f"http://127.0.0.1:{service.port}")
            shown = browser.read(body)
            assert shown["title"] == "Your move: Swapping Black & White"
            assert shown["body"].startswith("Your move in Swapping Black & White with Bo")
            opened = c.get(urlsplit(shown["url"]).path, follow_redirects=False)
            assert view(c, mid, urlsplit(opened.headers["location"]).query[6:])["seat"] == 0
            assert step(c) == 0 and len(service.received) == 1  # once
            # unsubscribe from the notification's own link: nothing more by push
            assert c.post(urlsplit(shown["unsubscribe"]).path).status_code == 200
            act(c, mid, tokens[1], "resign")
            assert step(c) == 0 and len(service.received) == 1
            assert inbox.messages == []
            # another seat's browser; the push service says it is gone: forgotten, not retried
            other = Browser(f"http://127.0.0.1:{service.port}/push/bo-device")
            m2 = create(c, [{"name": "Cy"}, {"name": "Bo"}])
            assert c.post(f"/api/matches/{m2['id']}/push", params={"token": m2["tokens"]["seats"][1]},
                          json=other.subscription).status_code == 201
            service.answer = 410
            assert step(c) == 0 and len(service.received) == 2
            notifier = c.app.state.notifier  # type: ignore[attr-defined]
            assert [r["state"] for r in notifier.store.rows(m2["id"])] == ["void"]
            now.t += 7200
            step(c)
            assert len(service.received) == 2
    finally:
        service.close()


def test_a_page_cannot_make_the_server_post_anywhere(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (_inbox, port), server(sqlite_url, now, port) as c:  # the browsers' push services only
        m = create(c, [{"name": "Sally"}, {"name": "Bo"}])
        for endpoint in ("http://127.0.0.1:8000/api/matches", "https://169.254.169.254/latest",
                         "https://fcm.googleapis.com.evil.example/x", "http://fcm.googleapis.com/fcm/send/x"):
            sub = Browser(endpoint).subscription
            r = c.post(f"/api/matches/{m['id']}/push", params={"token": m["tokens"]["seats"][0]}, json=sub)
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_push", (endpoint, r.text)
        good = Browser("https://fcm.googleapis.com/fcm/send/abc").subscription
        assert c.post(f"/api/matches/{m['id']}/push", params={"token": m["tokens"]["seats"][0]},
                      json=good).status_code == 201
        # another seat cannot withdraw it, even knowing its endpoint
        assert c.post(f"/api/matches/{m['id']}/push/delete", params={"token": m["tokens"]["seats"][1]},
                      json={"endpoint": good["endpoint"]}).status_code == 200
        store = c.app.state.notifier.store  # type: ignore[attr-defined]
        assert store.has_targets(m["id"])
        assert c.post(f"/api/matches/{m['id']}/push/delete", params={"token": m["tokens"]["seats"][0]},
                      json={"endpoint": good["endpoint"]}).status_code == 200
        assert not store.has_targets(m["id"])
        # a DM id out of any range is a 400, not a failure of the server
        host = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
        for dm in ("99999999999999999999999", "0", "-1", "x"):
            r = c.post(f"/api/notify/discord/{dm}/delivered", headers={"Authorization": f"Bearer {host}"})
            assert r.status_code == 400, (dm, r.text)


def test_slow_pace_tells_at_a_quarter_and_at_ten_minutes(sqlite_url: str) -> None:
    """At slow pace (24 h an action, no reserve) the seat is told at 6 h left and again at
    ten minutes left, each once; the digest window lets both through (hours apart)."""
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, digest=600.0) as c:
        m = create(c, [SALLY, {"name": "Bo"}], pace={"kind": "slow", "action_hours": 24})
        assert step(c) == 1
        [turn] = inbox.to("sally@example.org")
        assert "(1 d 0 h left)" in turn.get_content()
        now.t += 17.9 * 3600
        assert step(c) == 0
        now.t += 0.2 * 3600  # 5.9 h left: under a quarter
        assert step(c) == 1
        assert "Your time is running low" in inbox.to("sally@example.org")[-1].get_content()
        now.t = 1_000_000.0 + 24 * 3600 - 601
        assert step(c) == 0
        now.t += 2
        assert step(c) == 1
        last = inbox.to("sally@example.org")[-1]
        assert last["Subject"] == "Time running low: Swapping Black & White" and "9 min" in last.get_content()
        now.t += 60
        assert step(c) == 0 and len(inbox.to("sally@example.org")) == 3
        _ = m


def test_one_process_sends_and_another_takes_over_when_its_lease_runs_out(postgres_url: str) -> None:
    """Two server processes over one PostgreSQL: the owner of the match writes its notices,
    one process at a time sends (the lease's holder); when the holder stops renewing,
    the other sends what was pending, once."""
    now = FakeTime()
    with smtp_server() as (inbox, port), server(postgres_url, now, port, gather=5.0) as a, \
            server(postgres_url, now, port, gather=5.0) as b:
        create(a, [SALLY, MADDIE])
        assert step(a) == 0  # written, gathering; a holds the lease
        assert step(b) == 0
        now.t += 6
        assert step(b) == 0  # due, but a's lease still holds: b sends nothing
        now.t += 5  # a has not renewed for 11 s: its lease ran out
        assert step(b) == 2
        assert step(a) == 0
        now.t += 60
        assert step(a) == 0 and step(b) == 0
        assert sorted(m["To"] for m in inbox.messages) == ["maddie@example.org", "sally@example.org"]


def test_a_players_browser_subscribed_from_a_seat_page_is_the_players(sqlite_url: str) -> None:
    """A player who says yes on a seat's page is told in that browser of every match of theirs."""
    now = FakeTime()
    service = PushService()
    try:
        with smtp_server() as (_inbox, port), push_server(sqlite_url, now, port) as c:
            host = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
            auth = {"Authorization": f"Bearer {host}"}
            sally, token = make_player(c, host, "Sally")
            first = c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
                {"player": sally}, {"name": "Bo"}]}).json()
            browser = Browser(f"http://127.0.0.1:{service.port}/push/sally")
            r = c.post(f"/api/matches/{first['id']}/push", params={"token": token}, json=browser.subscription)
            assert r.status_code == 201, r.text
            assert c.get("/api/player/notify", headers={"Authorization": f"Bearer {token}"}).json()["push_subscribed"]
            assert step(c) == 1
            c.post("/api/matches", headers=auth, json={"game": "swapping", "start": "now", "seats": [
                {"name": "Cy"}, {"player": sally}]})
            assert step(c) == 1
            titles = [browser.read(body)["title"] for _h, body, _p in service.received]
            assert titles == ["Your move: Swapping Black & White"] * 2
    finally:
        service.close()


def test_a_seat_bound_to_a_player_after_creation_is_told(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port) as c:
        host = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
        auth = {"Authorization": f"Bearer {host}"}
        m = c.post("/api/matches", headers=auth, json={"game": "swapping", "seats": [{"name": "A"}, {"name": "B"}]}).json()
        assert step(c) == 0  # nobody to tell
        sally, _ = make_player(c, host, "Sally", email="sally@example.org")
        r = c.post(f"/api/matches/{m['id']}/seats/0/player", json={"player": sally}, headers=auth)
        assert r.status_code == 200, r.text
        assert step(c) == 1
        assert [x["Subject"] for x in inbox.to("sally@example.org")] == ["Your move: Swapping Black & White"]


def test_a_server_without_smtp_writes_no_mail_and_forgets_spent_links(sqlite_url: str) -> None:
    """Without --smtp-url a seat's address is kept but nothing is queued for it; a row
    queued when the server had one is void after a restart without it, not re-read for
    ever; single-use links older than their life are forgotten."""
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port, gather=5.0) as c:
        create(c, [SALLY, {"name": "Bo"}])
        assert step(c) == 0  # queued, gathering
    app = create_app(sqlite_url, bot_workers=0, now=now, clock_interval=None, rate_limit=False,
                     notify=NotifySettings(base_url="http://testserver", push=False))
    with TestClient(app) as c:
        create(c, [MADDIE, {"name": "Cy"}])
        now.t += 10
        assert step(c) == 0
        rows = c.app.state.notifier.store.rows()  # type: ignore[attr-defined]
        assert [(r["state"], r["error"]) for r in rows] == [("void", "this server sends no email")]
        assert inbox.messages == []
    with smtp_server() as (inbox, port), server(sqlite_url, now, port) as c:
        m = create(c, [{"name": "Di", "email": "di@example.org"}, {"name": "Ed"}])
        assert step(c) == 1
        [link] = links_in(inbox.to("di@example.org")[0])
        now.t += 15 * 86400
        step(c)
        assert c.get(urlsplit(link).path, follow_redirects=False).status_code == 403
        store = c.app.state.notifier.store  # type: ignore[attr-defined]
        assert store.purge(now.t) == 0  # the hourly purge had forgotten it already
        _ = m


def test_a_mailbox_refused_for_good_is_not_tried_again_one_refused_for_now_is(sqlite_url: str) -> None:
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port) as c:
        create(c, [{"name": "A", "email": "nobody@example.org"}, {"name": "B", "email": "busy@example.org"}])
        assert step(c) == 0
        rows = {r["address"]: r for r in c.app.state.notifier.store.rows()}  # type: ignore[attr-defined]
        assert rows["nobody@example.org"]["state"] == "failed" and "550" in rows["nobody@example.org"]["error"]
        assert rows["busy@example.org"]["state"] == "pending" and rows["busy@example.org"]["attempts"] == 1
        assert inbox.messages == []


def test_a_seat_the_match_waits_for_is_invited_once(sqlite_url: str) -> None:
    """domino awaits P1 first: P2, whose link the match waits for, is invited (its move
    comes later), P1 is told it is its move; the invitation is not sent again."""
    now = FakeTime()
    with smtp_server() as (inbox, port), server(sqlite_url, now, port) as c:
        m = c.post("/api/matches", json={"game": "domino", "seats": [SALLY, MADDIE]}).json()
        assert step(c) == 2
        assert [x["Subject"] for x in inbox.to("sally@example.org")] == ["Your move: Domino Black & White"]
        [invite] = inbox.to("maddie@example.org")
        assert invite["Subject"] == "Invitation: Domino Black & White"
        assert "You are invited to Domino Black & White with Sally" in invite.get_content()
        view(c, m["id"], m["tokens"]["seats"][1])  # Maddie joins: nothing more for her
        now.t += 200
        assert step(c) == 0
