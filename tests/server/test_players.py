"""Player identities (#40 item 1): a host makes players and gets their login links; a
seat bound to a player is played with the player's own login; a player acts only for
its own seats; links are revoked and expire as a host's do; the player's page and
waiting list are built from each seat's own view."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from blackwhite.app import create_app
from blackwhite.server.players import PlayerService

from .matches import bearer, error, host, ok, service


def players(c: TestClient) -> PlayerService:
    svc: PlayerService = c.app.state.players  # type: ignore[attr-defined]
    return svc


def new_player(c: TestClient, host_token: str, name: str, **extra: Any) -> tuple[str, str]:
    made = ok(c.post("/api/players", json={"name": name, **extra}, headers=bearer(host_token)), 201)
    assert made["link"].endswith("/me?token=" + made["token"])
    return made["player"]["id"], made["token"]


def create(c: TestClient, host_token: str | None, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = ok(c.post("/api/matches", json={"game": "swapping", "seats": seats, **extra},
                                    headers=bearer(host_token)), 201)
    return out


def view(c: TestClient, mid: str, token: str, **params: Any) -> Any:
    return c.get(f"/api/matches/{mid}/view", params={"token": token, **params})


def first_legal(c: TestClient, mid: str, token: str) -> tuple[str, int]:
    payload = ok(view(c, mid, token, render=1))
    return payload["legal"][0], payload["version"]


def test_a_seat_bound_to_a_player_is_played_with_the_players_login(client: TestClient) -> None:
    h = host(client)
    sally, sally_token = new_player(client, h, "Sally")
    made = create(client, h, [{"player": sally}, {"name": "Maddie"}])
    mid = made["id"]
    assert made["players"] == [sally, None]
    assert made["tokens"]["seats"][0] is None and made["links"]["seats"][0] is None
    assert made["pages"]["seats"][0] is None
    assert made["match"]["seats"][0] == {"name": "Sally"}  # named after the player
    # the seat link of the other seat still works
    maddie = made["tokens"]["seats"][1]
    assert ok(view(client, mid, maddie))["seat"] == 1
    payload = ok(view(client, mid, sally_token))
    assert payload["role"] == "seat" and payload["seat"] == 0
    assert payload["status"] == "running"  # both joined: the clocks started
    action, version = first_legal(client, mid, sally_token)
    ok(client.post(f"/api/matches/{mid}/actions", params={"token": sally_token},
                   json={"action": action, "version": version}))
    assert ok(client.get(f"/api/matches/{mid}/players", headers=bearer(h)))["seats"] == [sally, None]
    error(client.get(f"/api/matches/{mid}/players", params={"token": maddie}), 403, "wrong_token")


def test_a_player_acts_only_for_its_own_seats(client: TestClient) -> None:
    h = host(client)
    sally, sally_token = new_player(client, h, "Sally")
    maddie, maddie_token = new_player(client, h, "Maddie")
    _eve, eve_token = new_player(client, h, "Eve")
    mid = create(client, h, [{"player": sally}, {"player": maddie}])["id"]
    ok(view(client, mid, maddie_token))
    ok(view(client, mid, sally_token))
    # a player of the same host who holds no seat of the match: no view of it at all
    error(view(client, mid, eve_token), 403, "wrong_token")
    # Sally's login plays seat 0 only: her payload is seat 0's, and an action is seat 0's
    assert ok(view(client, mid, sally_token))["seat"] == 0
    action, version = first_legal(client, mid, maddie_token)
    r = client.post(f"/api/matches/{mid}/actions", params={"token": eve_token}, json={"action": action, "version": version})
    error(r, 403, "wrong_token")
    # a player token is no host token: no host controls
    error(client.post(f"/api/matches/{mid}/pause", headers=bearer(sally_token)), 403, "wrong_token")
    error(client.get("/api/matches", headers=bearer(sally_token)), 403, "wrong_token")
    error(client.post("/api/players", json={"name": "X"}, headers=bearer(sally_token)), 403, "wrong_token")
    # a host token is no player token
    error(client.get("/api/player", headers=bearer(h)), 403, "wrong_token")
    # the socket of a player who holds no seat is refused
    with client.websocket_connect(f"/ws/matches/{mid}?token={eve_token}") as ws:
        with pytest.raises(Exception):
            ws.receive_json()


def test_only_the_host_that_made_a_player_seats_it(client: TestClient) -> None:
    h = host(client)
    sally, _token = new_player(client, h, "Sally")
    # an anonymous host (made by its first match) has no players: refused, nothing made
    r = client.post("/api/matches", json={"game": "swapping", "seats": [{"player": sally}, {"name": "B"}]})
    error(r, 404, "unknown_player")
    other = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    error(client.post("/api/matches", json={"game": "swapping", "seats": [{"player": sally}, {"name": "B"}]},
                      headers=bearer(other)), 404, "unknown_player")
    error(client.post("/api/matches", json={"game": "swapping", "seats": [{"player": sally}, {"player": sally}]},
                      headers=bearer(h)), 422, "bad_seats")
    error(client.post("/api/matches", json={"game": "swapping", "seats": [{"player": sally, "bot": "random"},
                                                                         {"name": "B"}]},
                      headers=bearer(h)), 422, "bad_seats")
    # another host neither sees nor looks up nor changes the player
    error(client.get(f"/api/players/{sally}", headers=bearer(other)), 404, "unknown_player")
    error(client.patch(f"/api/players/{sally}", json={"name": "Z"}, headers=bearer(other)), 404, "unknown_player")
    error(client.post(f"/api/players/{sally}/links", headers=bearer(other)), 404, "unknown_player")
    assert [p["id"] for p in ok(client.get("/api/players", headers=bearer(other)))] == []
    assert [p["id"] for p in ok(client.get("/api/players", headers=bearer(h)))] == [sally]


def test_player_links_are_revoked_expire_and_belong_to_the_player_once_claimed(client: TestClient) -> None:
    h = host(client)
    sally, first = new_player(client, h, "Sally")
    # before Sally logs in, her host may make her another link (a lost invitation) and revoke its own
    spare = ok(client.post(f"/api/players/{sally}/links", json={"label": "again"}, headers=bearer(h)), 201)
    assert spare["until_used"] and spare["expires"] is not None
    ok(client.post(f"/api/players/{sally}/links/{spare['id']}/revoke", headers=bearer(h)))
    error(client.get("/api/player", headers=bearer(spare["token"])), 403, "revoked")
    me = ok(client.get("/api/player", headers=bearer(first)))
    assert me["id"] == sally and me["claimed"] is not None
    assert [link["this"] for link in me["links"]] == [True, False]
    # once claimed, the host makes no more links for her and changes her no more
    error(client.post(f"/api/players/{sally}/links", headers=bearer(h)), 409, "claimed")
    error(client.patch(f"/api/players/{sally}", json={"discord_id": "123456789012345678"}, headers=bearer(h)),
          409, "claimed")
    # she makes her own (one that expires), and revokes the first: it logs in no more, anywhere
    phone = ok(client.post("/api/player/links", json={"label": "phone", "expires_in": 60}, headers=bearer(first)), 201)
    mid = create(client, h, [{"player": sally}, {"name": "B"}])["id"]
    ok(view(client, mid, first))
    own = ok(client.post(f"/api/player/links/{me['links'][0]['id']}/revoke", headers=bearer(phone["token"])))
    assert own["revoked"] is not None
    error(client.get("/api/player", headers=bearer(first)), 403, "revoked")
    error(view(client, mid, first), 403, "revoked")
    assert ok(view(client, mid, phone["token"]))["seat"] == 0
    error(client.post("/api/player/links/0000000000000000/revoke", headers=bearer(phone["token"])), 404, "unknown_link")
    # the phone's link expires after its 60 s
    svc = service(client)
    real = svc.now
    svc.now = lambda: real() + 61  # type: ignore[method-assign]
    try:
        error(client.get("/api/player", headers=bearer(phone["token"])), 403, "expired")
        error(view(client, mid, phone["token"]), 403, "expired")
    finally:
        svc.now = real  # type: ignore[method-assign]


def test_a_hosts_link_for_a_player_expires_unless_used(client: TestClient) -> None:
    h = host(client)
    _sally, token = new_player(client, h, "Sally")
    svc = service(client)
    real = svc.now
    svc.now = lambda: real() + 8 * 86400  # type: ignore[method-assign]
    try:
        error(client.get("/api/player", headers=bearer(token)), 403, "expired")
    finally:
        svc.now = real  # type: ignore[method-assign]
    _maddie, used = new_player(client, h, "Maddie")
    ok(client.get("/api/player", headers=bearer(used)))
    svc.now = lambda: real() + 8 * 86400  # type: ignore[method-assign]
    try:  # used once: it stays
        ok(client.get("/api/player", headers=bearer(used)))
    finally:
        svc.now = real  # type: ignore[method-assign]


def test_names_emails_and_discord_ids(client: TestClient) -> None:
    h = host(client)
    sally, token = new_player(client, h, "Sally", discord_id="123456789012345678", email="sally@example.org")
    listed = ok(client.get(f"/api/players/{sally}", headers=bearer(h)))
    assert listed["discord_id"] == "123456789012345678" and listed["has_email"] is True and "email" not in listed
    assert ok(client.get("/api/players/by-discord/123456789012345678", headers=bearer(h)))["id"] == sally
    error(client.get("/api/players/by-discord/999999999999999999", headers=bearer(h)), 404, "unknown_player")
    error(client.get("/api/players/by-discord/abc", headers=bearer(h)), 422, "bad_discord_id")
    error(client.post("/api/players", json={"name": "Twin", "discord_id": "123456789012345678"}, headers=bearer(h)),
          409, "discord_taken")
    for bad, code in [({"name": ""}, "bad_name"), ({"name": "a\u202eb"}, "bad_name"),
                      ({"name": "x", "email": "not an email"}, "bad_email"),
                      ({"name": "x", "discord_id": "12"}, "bad_discord_id")]:
        error(client.post("/api/players", json=bad, headers=bearer(h)), 422, code)
    before = len(ok(client.get("/api/players", headers=bearer(h))))
    assert before == 1  # nothing refused was made
    me = ok(client.patch("/api/player", json={"name": "Sally B", "email": "b@example.org"}, headers=bearer(token)))
    assert me["name"] == "Sally B" and me["email"] == "b@example.org"
    # a player does not claim a Discord id (the bridge or the operator map one), but clears hers
    error(client.patch("/api/player", json={"discord_id": "223456789012345678"}, headers=bearer(token)), 403, "scope")
    assert ok(client.patch("/api/player", json={"discord_id": None, "email": None}, headers=bearer(token)))[
        "discord_id"] is None
    error(client.patch("/api/player", json={"name": "\u0000"}, headers=bearer(token)), 422, "bad_name")
    assert ok(client.get("/api/player", headers=bearer(token)))["name"] == "Sally B"


def test_players_made_are_bounded(db_url: str) -> None:
    """The bounds hold over SQLite and PostgreSQL, and for creations at once (counted in
    the transaction that stores the player)."""
    from concurrent.futures import ThreadPoolExecutor

    from blackwhite.server.limits import Quotas

    app = create_app(db_url, bot_workers=0, clock_interval=None, rate_limit=False,
                     quotas=Quotas(anonymous_players=2, host_players=3))
    with TestClient(app) as client:
        h = host(client)
        with ThreadPoolExecutor(6) as pool:
            codes = sorted(pool.map(lambda i: client.post("/api/players", json={"name": f"P{i}"},
                                                          headers=bearer(h)).status_code, range(6)))
        assert codes == [201, 201, 201, 429, 429, 429]
        error(client.post("/api/players", json={"name": "P9"}, headers=bearer(h)), 429, "too_many_players")
        assert len(ok(client.get("/api/players", headers=bearer(h)))) == 3
        _anonymous_bounds(client)


def _anonymous_bounds(client: TestClient) -> None:
    # anonymous hosts: 2 each, and 2 for all of one address together
    a = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    b = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    new_player(client, a, "A0")
    new_player(client, a, "A1")
    error(client.post("/api/players", json={"name": "A2"}, headers=bearer(a)), 429, "too_many_players")
    error(client.post("/api/players", json={"name": "B0"}, headers=bearer(b)), 429, "too_many_players")
    error(client.post("/api/players", json={"name": "X"}), 401, "missing_token")


def test_a_host_binds_a_waiting_seat_to_a_player_and_its_seat_link_stops(client: TestClient) -> None:
    h = host(client)
    sally, sally_token = new_player(client, h, "Sally")
    made = create(client, h, [{"name": "A"}, {"name": "B"}])
    mid, seat_link = made["id"], made["tokens"]["seats"][0]
    error(client.post(f"/api/matches/{mid}/seats/0/player", json={"player": sally}, headers=bearer(sally_token)),
          403, "wrong_token")
    bound = ok(client.post(f"/api/matches/{mid}/seats/0/player", json={"player": sally}, headers=bearer(h)))
    assert bound["seats"] == [sally, None]
    error(view(client, mid, seat_link), 403, "wrong_token")
    assert ok(view(client, mid, sally_token))["seat"] == 0
    # seat 1 has been opened: it is that person's now
    ok(view(client, mid, made["tokens"]["seats"][1]))
    maddie, _ = new_player(client, h, "Maddie")
    error(client.post(f"/api/matches/{mid}/seats/1/player", json={"player": maddie}, headers=bearer(h)), 409,
          "seat_taken")
    error(client.post(f"/api/matches/{mid}/seats/5/player", json={"player": maddie}, headers=bearer(h)), 422, "bad_seat")
    # a match already under way: no seat moves to anyone (a host would read a hand so)
    other = create(client, h, [{"name": "A"}, {"name": "B"}], start="now")
    error(client.post(f"/api/matches/{other['id']}/seats/0/player", json={"player": maddie}, headers=bearer(h)),
          409, "seat_taken")


def test_a_revoked_players_socket_closes(client: TestClient) -> None:
    h = host(client)
    sally, token = new_player(client, h, "Sally")
    spare = ok(client.post("/api/player/links", json={"label": "tab"}, headers=bearer(token)), 201)["token"]
    mid = create(client, h, [{"player": sally}, {"name": "B"}])["id"]
    with client.websocket_connect(f"/ws/matches/{mid}?token={spare}") as ws:
        assert ws.receive_json()["seat"] == 0
        me = ok(client.get("/api/player", headers=bearer(token)))
        link = [entry for entry in me["links"] if not entry["this"]][0]["id"]
        ok(client.post(f"/api/player/links/{link}/revoke", headers=bearer(token)))
        with pytest.raises(Exception) as closed:
            while True:
                ws.receive_json()
        assert getattr(closed.value, "code", None) == 4403


def test_the_players_page_puts_its_move_first_and_the_waiting_list_soonest_first(client: TestClient) -> None:
    h = host(client)
    sally, token = new_player(client, h, "Sally")
    # an invitation: a match waiting for Sally to join
    invited = create(client, h, [{"player": sally}, {"name": "B"}])["id"]
    # a running match where it is her move (swapping: both seats choose at once)
    playing = create(client, h, [{"name": "A"}, {"player": sally}], start="now")["id"]
    # a finished one
    done = create(client, h, [{"player": sally}, {"name": "B"}], start="now")
    ok(client.post(f"/api/matches/{done['id']}/cancel", headers=bearer(h)))
    page = ok(client.get("/api/player/matches", headers=bearer(token)))
    assert page["player"]["id"] == sally
    ids = [m["id"] for m in page["matches"]]
    assert set(ids) == {invited, playing, done["id"]}
    assert ids[0] == playing and page["matches"][0]["your_move"] and page["matches"][0]["deadline"] is not None
    assert [m["id"] for m in page["invitations"]] == [invited]
    waiting = ok(client.get("/api/player/waiting", headers=bearer(token)))
    assert [(w["id"], w["kind"]) for w in waiting] == [(playing, "move"), (invited, "join")]
    assert waiting[0]["deadline"] <= waiting[1]["deadline"]
    # her host reads the same list (the Discord bridge's /bw moves); another host does not
    hosts_view = ok(client.get(f"/api/players/{sally}/waiting", headers=bearer(h)))
    assert [{**w, "deadline": None} for w in hosts_view] == [{**w, "deadline": None} for w in waiting]
    assert all(abs(a["deadline"] - b["deadline"]) < 5 for a, b in zip(hosts_view, waiting))  # time moves on
    other = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    error(client.get(f"/api/players/{sally}/waiting", headers=bearer(other)), 404, "unknown_player")
    error(client.get(f"/api/players/{sally}/waiting", headers=bearer(token)), 403, "wrong_token")
    # the page did not join her to the invitation (only opening the match does)
    assert ok(client.get(f"/api/matches/{invited}", headers=bearer(h)))["start"]["waiting_for"] == [0, 1]


def test_the_player_page_and_the_play_page_by_the_players_cookie(client: TestClient) -> None:
    h = host(client)
    sally, token = new_player(client, h, "Sally")
    _maddie, maddie_token = new_player(client, h, "Maddie")
    playing = create(client, h, [{"name": "A"}, {"player": sally}], start="now")["id"]
    page = client.get("/me", params={"token": token})
    assert page.status_code == 200 and "Content-Security-Policy" in page.headers
    assert "Sally" in page.text and f"/play/{playing}" in page.text and "your move" in page.text
    assert token not in page.text.replace(f"token={token}", "")  # the token is not written into the page
    assert "Open the login link" in client.get("/me").text
    # the play page opens with the player's cookie (a seat link is no longer needed)
    client.cookies.set("bw_player", token)
    try:
        assert client.get(f"/play/{playing}").status_code == 200
        assert "Sally" in client.get("/me").text
        client.cookies.set("bw_player", maddie_token)
        assert client.get(f"/play/{playing}").status_code == 403  # not her seat
    finally:
        client.cookies.clear()
    error(client.get("/api/player/matches", params={"token": "made-up"}), 403, "wrong_token")
    assert client.get("/me", params={"token": "made-up"}).status_code == 403


def test_the_operators_command_manages_players(sqlite_url: str) -> None:
    """``blackwhite players``: a player made on the database logs in to a running server;
    a link the operator revokes is refused there at once; a lost link is made again
    even after the player logged in (what its host may no longer do)."""
    from typer.testing import CliRunner

    from blackwhite.cli.app import app

    def cli(*args: str, code: int = 0) -> str:
        done = CliRunner().invoke(app, ["players", *args, "--db", sqlite_url])
        assert done.exit_code == code, done.output
        return done.output

    with TestClient(create_app(sqlite_url, bot_workers=0, clock_interval=None, rate_limit=False)) as c:
        h = host(c)  # the server's own host, as a start of blackwhite serve makes it
        out = cli("new", "Sally", "--discord", "123456789012345678", "--url", "http://bw.example")
        player = out.split()[1]
        token = out.strip().splitlines()[-1].split("token=")[1]
        assert ok(c.get("/api/player", headers=bearer(token)))["id"] == player
        assert player in cli("list")
        assert "logged in" in cli("list")
        # its host (the server's own) seats it
        mid = create(c, h, [{"player": player}, {"name": "B"}])["id"]
        assert ok(view(c, mid, token))["seat"] == 0
        again = cli("new-link", player, "--expires", "0").strip().split("token=")[1]
        link = [line.split()[0] for line in cli("links", player).splitlines() if "made by the operator" in line][0]
        assert "revoked" in cli("revoke", link)
        error(c.get("/api/player", headers=bearer(token)), 403, "revoked")
        assert ok(c.get("/api/player", headers=bearer(again)))["id"] == player
        assert "name Sal" in cli("set", player, "--name", "Sal", "--discord", "")
        assert ok(c.get("/api/player", headers=bearer(again)))["discord_id"] is None
        cli("new", "Twin", "--discord", "nope", code=2)
        cli("new", "X", "--host", "nohost", code=1)
        cli("set", player, code=2)
        cli("revoke", "0000000000000000", code=1)


def test_the_players_page_lists_its_seasons(client: TestClient) -> None:
    """A season whose cast names the player is on its page (and only such a season)."""
    from blackwhite.server.service_seasons import SeasonService

    h = host(client)
    cast = [new_player(client, h, name) for name in ("Sally", "Maddie", "Ann", "Bo")]
    seasons = SeasonService(service(client))
    portal = client.portal  # type: ignore[attr-defined]
    made = portal.call(lambda: seasons.create(h, "Autumn", [{"player": p, "name": n}
                                                            for (p, _t), n in zip(cast[:3], ("Sally", "Maddie", "Ann"))]))
    page = ok(client.get("/api/player/matches", headers=bearer(cast[0][1])))
    assert [(s["id"], s["name"]) for s in page["seasons"]] == [(made["id"], "Autumn")]
    assert ok(client.get("/api/player/matches", headers=bearer(cast[3][1])))["seasons"] == []
    assert "Autumn" in client.get("/me", params={"token": cast[1][1]}).text


def test_a_merged_hosts_players_are_the_targets(client: TestClient) -> None:
    """``blackwhite hosts merge``: the source's players move with its matches, so the
    target seats them (and revokes the links the source made)."""
    from typer.testing import CliRunner

    from blackwhite.cli.app import app

    h = host(client)
    source = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    sally, _token = new_player(client, source, "Sally")
    invite = ok(client.post(f"/api/players/{sally}/links", headers=bearer(source)), 201)["id"]
    source_id = ok(client.get("/api/host", headers=bearer(source)))["id"]
    url = str(service(client).store.engine.url)
    done = CliRunner().invoke(app, ["hosts", "merge", source_id, "--db", url])
    assert done.exit_code == 0, done.output
    assert [p["id"] for p in ok(client.get("/api/players", headers=bearer(h)))] == [sally]
    create(client, h, [{"player": sally}, {"name": "B"}])
    ok(client.post(f"/api/players/{sally}/links/{invite}/revoke", headers=bearer(h)))


def test_one_seat_per_player_is_kept_by_the_binding_itself(client: TestClient) -> None:
    """The check that a player holds one seat of a match is in the transaction that binds
    it (two binds at once cannot both pass it): bound past the service's own check, the
    second seat is refused and nothing changes."""
    from blackwhite.server.errors import Invalid

    h = host(client)
    sally, _token = new_player(client, h, "Sally")
    made = create(client, h, [{"player": sally}, {"name": "B"}])
    svc = service(client)
    match = svc.matches[made["id"]]
    with pytest.raises(Invalid):
        client.portal.call(svc.bind_seat, match, 1, sally)  # type: ignore[attr-defined]
    assert ok(view(client, made["id"], made["tokens"]["seats"][1]))["seat"] == 1
    assert ok(client.get(f"/api/matches/{made['id']}/players", headers=bearer(h)))["seats"] == [sally, None]


def test_a_refused_action_with_a_fresh_player_link_changes_nothing(client: TestClient) -> None:
    """A player's link used only on a match (its action refused) is not marked used: every
    row of the players' tables is as it was."""
    from sqlalchemy import text

    h = host(client)
    sally, token = new_player(client, h, "Sally")
    mid = create(client, h, [{"player": sally}, {"name": "B"}], start="now")["id"]
    engine = service(client).store.engine

    def rows() -> list[Any]:
        with engine.connect() as conn:
            return [list(conn.execute(text(f"SELECT * FROM {t} ORDER BY 1"))) for t in
                    ("players", "player_links", "player_seats")]

    before = rows()
    version = ok(view(client, mid, token, join=0))["version"]
    error(client.post(f"/api/matches/{mid}/actions", params={"token": token},
                      json={"action": "not notation", "version": version}), 422, "notation")
    assert rows() == before
