"""A hostile reader of a season (#40): what a cast-only season and host-only transfers
keep from others, on every route that could tell it (a player's own seasons, the
ledger, the leaderboards and profiles)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from .matches import served
from .test_ratings import synced
from .test_seasons_api import bearer, host, ok, season
from .test_standings_pages import played_round


@pytest.fixture
def client(sqlite_url: str) -> Iterator[TestClient]:
    with served(sqlite_url, ratings_interval=3600) as c:
        yield c


def test_a_players_own_seasons_do_not_rank_them_by_garnets_they_may_not_see(client: TestClient) -> None:
    """With host-only transfers, a player's place among those still in would say how many
    hold more garnets than they do: on their own list it follows the cast order too."""
    hosted = host(client)
    sid, logins = season(client, hosted, rules={"transfers": "host"})
    a, b, c_, d = logins
    ok(client.post(f"/api/seasons/{sid}/transfers", json={"to": d, "garnets": 5}, headers=bearer(logins[a])))
    for p in logins:
        mine = ok(client.get("/api/player/seasons", headers=bearer(logins[p])))[0]["standing"]
        seen = {r["player"]: r for r in ok(client.get(f"/api/seasons/{sid}", headers=bearer(logins[p])))["standings"]}
        assert mine == seen[p], p  # the same row the season shows them, place included
        assert mine["place"] == list(logins).index(p) + 1


def test_a_transfer_kept_from_a_player_is_not_seen_to_happen(client: TestClient) -> None:
    """With host-only transfers, what others read of the season does not change when a
    transfer (or any garnet entry not about them) is made: not its kind, its author, its
    moment, nor how many entries the ledger holds."""
    hosted = host(client)
    sid, logins = season(client, hosted, rules={"transfers": "host"})
    a, b, c_, d = logins

    def read(reader: str | None) -> tuple[Any, Any]:
        view = ok(client.get(f"/api/seasons/{sid}", headers=bearer(reader)))
        return ok(client.get(f"/api/seasons/{sid}/ledger", headers=bearer(reader))), view["seq"]

    before = {r: read(r) for r in (logins[c_], None)}
    ok(client.post(f"/api/seasons/{sid}/transfers", json={"to": b, "garnets": 2}, headers=bearer(logins[a])))
    ok(client.post(f"/api/seasons/{sid}/awards", json={"player": a, "garnets": 1}, headers=bearer(hosted)))
    for reader in (logins[c_], None):
        assert read(reader) == before[reader]
    # what they may read goes on, numbered without gaps, each result's cause among it
    ok(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b, "awards": {a: 2}},
                   headers=bearer(hosted)))
    for reader in (logins[c_], None):
        ledger, seq = read(reader)
        assert [e["seq"] for e in ledger] == list(range(1, len(ledger) + 1)) and seq == len(ledger)
        assert all(e["kind"] not in ("transfer", "award", "hidden") for e in ledger), ledger
        seqs = {e["seq"] for e in ledger}
        assert all(e.get("cause") in seqs for e in ledger if e.get("cause") is not None), ledger
        assert f"player:{a}" not in str(ledger)
    # the giver and the receiver read their own transfer whole; a host reads everything
    for reader in (logins[a], logins[b], hosted):
        mine = ok(client.get(f"/api/seasons/{sid}/ledger", headers=bearer(reader)))
        assert [e["data"] for e in mine if e["kind"] == "transfer"] == [{"from": a, "to": b, "garnets": 2}]


def test_a_cast_only_seasons_matches_are_on_no_leaderboard_or_profile(client: TestClient) -> None:
    """A cast-only season answers nothing to others: its matches are not rated (a public
    leaderboard would show who played whom, and who won)."""
    hosted = host(client)
    sid, logins = season(client, hosted, visibility="cast")
    a, b, c_, d = logins
    mid = played_round(client, hosted, sid, logins)
    synced(client)
    ratings = client.app.state.ratings  # type: ignore[attr-defined]
    assert [(o.match_id, o.rated) for o in ratings.outcomes()] == [(mid, False)]
    assert ok(client.get("/api/ratings/swapping"))["rows"] == []
    assert ok(client.get("/api/ratings")) == {"games": []}
    for who in (b, c_):
        profile = client.get(f"/players/{who}").text
        assert "/ratings/swapping" not in profile and sid not in profile
    ratings.rebuild()
    assert [(o.match_id, o.rated) for o in ratings.outcomes()] == [(mid, False)] and ratings.games() == []
    # a public season's match is rated as before
    sid2, logins2 = season(client, hosted)
    mid2 = played_round(client, hosted, sid2, logins2)
    synced(client)
    assert dict((o.match_id, o.rated) for o in ratings.outcomes())[mid2] is True


def test_a_matches_link_names_no_cohost_of_a_season(client: TestClient) -> None:
    """A ``matches`` link (given to a bot or the bridge) manages no co-hosts, of matches or
    of seasons: leaked, it must not make another host a co-host who reads every garnet."""
    hosted = host(client)
    sid, logins = season(client, hosted, rules={"transfers": "host"}, visibility="cast")
    limited = ok(client.post("/api/host/links", json={"scope": "matches"}, headers=bearer(hosted)), 201)["token"]
    stranger = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    stranger_id = ok(client.get("/api/host", headers=bearer(stranger)))["id"]
    r = client.post(f"/api/seasons/{sid}/cohosts", json={"host": stranger_id}, headers=bearer(limited))
    assert r.status_code == 403 and r.json()["error"]["code"] == "scope", r.text
    assert ok(client.get(f"/api/seasons/{sid}", headers=bearer(hosted)))["cohosts"] == []
    r = client.get(f"/api/seasons/{sid}", headers=bearer(stranger))
    assert r.status_code == 403, r.text
    ok(client.post(f"/api/seasons/{sid}/cohosts", json={"host": stranger_id}, headers=bearer(hosted)))


def test_an_import_casts_no_other_hosts_player(client: TestClient) -> None:
    """An import is checked as a creation is: its cast's logins are the importing host's
    own players. Else a stranger's season would name someone else's player: on their page
    and profile, playing (and losing by time) seats bound to them, told by email."""
    hosted = host(client)
    sid, logins = season(client, hosted, n=3)
    export = ok(client.get(f"/api/seasons/{sid}/export", headers=bearer(hosted)))
    stranger = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    r = client.post("/api/seasons/import", json=export, headers=bearer(stranger))
    assert r.status_code in (404, 422) and r.json()["error"]["code"] in ("unknown_player", "bad_import"), r.text
    assert ok(client.get("/api/seasons", headers=bearer(stranger))) == []
    for p, token in logins.items():
        assert [s["id"] for s in ok(client.get("/api/player/seasons", headers=bearer(token)))] == [sid]
    # its own host imports it again (a copy of the season, on the same server)
    made = ok(client.post("/api/seasons/import", json=export, headers=bearer(hosted)), 201)
    assert [c["player"] for c in made["cast"]] == list(logins)


def test_a_season_match_is_the_seasons_hosts_whoever_made_it(client: TestClient) -> None:
    """A co-host makes the death match: it is the season's (its own host and co-hosts run
    it), so a co-host the season's host drops runs it no more, and the season's host, who
    voids it, cancels it."""
    hosted = host(client)
    sid, logins = season(client, hosted, n=3)
    a, b, c_ = logins
    other = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    other_id = ok(client.get("/api/host", headers=bearer(other)))["id"]
    ok(client.post(f"/api/seasons/{sid}/cohosts", json={"host": other_id}, headers=bearer(hosted)))
    ok(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b}, headers=bearer(other)))
    ok(client.post(f"/api/seasons/{sid}/opponent", json={"player": c_}, headers=bearer(other)))
    mid = ok(client.post(f"/api/seasons/{sid}/death", json={"game": "joust"}, headers=bearer(other)))["made"]["match"]
    assert client.get(f"/api/matches/{mid}/players", params={"token": hosted}).status_code == 200
    assert client.get(f"/api/matches/{mid}/players", params={"token": other}).status_code == 200
    ok(client.post(f"/api/seasons/{sid}/cohosts", json={"host": other_id, "add": False}, headers=bearer(hosted)))
    assert client.get(f"/api/matches/{mid}/players", params={"token": other}).status_code == 403
    assert client.post(f"/api/matches/{mid}/cancel", params={"token": other}).status_code == 403
    ok(client.post(f"/api/seasons/{sid}/void", json={"match": mid}, headers=bearer(hosted)))
    assert ok(client.get(f"/api/matches/{mid}", params={"token": hosted}))["status"] == "cancelled"


def _names_no_discord_id(client: TestClient, token: str, reader: str) -> None:
    """``token`` may make a plain player but gives no player a Discord id, at creation or
    after (403 ``scope``, nothing changed: ``reader`` sees no id)."""
    r = client.post("/api/players", json={"name": "Squat", "discord_id": "123456789012345678"}, headers=bearer(token))
    assert r.status_code == 403 and r.json()["error"]["code"] == "scope", r.text
    made = ok(client.post("/api/players", json={"name": "Plain"}, headers=bearer(token)), 201)["player"]["id"]
    r = client.patch(f"/api/players/{made}", json={"discord_id": "123456789012345678"}, headers=bearer(token))
    assert r.status_code == 403 and r.json()["error"]["code"] == "scope", r.text
    assert ok(client.get(f"/api/players/{made}", headers=bearer(reader)))["discord_id"] is None


def test_only_the_servers_own_host_names_a_players_discord_id(client: TestClient) -> None:
    """A Discord id says where the server's bridge DMs a player's notices: a stranger's host
    (anyone can make one with a match) naming someone's Discord id would have the community's
    bot DM them its matches' links, and keep the bridge from ever mapping them."""
    stranger = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    _names_no_discord_id(client, stranger, stranger)
    # the server's own host (the bridge's link) names it, but not through a co-organiser's
    # matches link: the bot would DM the player's notices (fresh links in them) to anyone
    hosted = host(client)
    limited = ok(client.post("/api/host/links", json={"scope": "matches"}, headers=bearer(hosted)), 201)["token"]
    _names_no_discord_id(client, limited, hosted)
    ok(client.post("/api/players", json={"name": "Real", "discord_id": "123456789012345678"},
                   headers=bearer(hosted)), 201)
    # nor looks the Discord user up (its host_link would give the co-organiser the player's login)
    r = client.get("/api/players/by-discord/123456789012345678", headers=bearer(limited))
    assert r.status_code == 403 and r.json()["error"]["code"] == "scope", r.text
    assert ok(client.get("/api/players/by-discord/123456789012345678", headers=bearer(hosted)))["name"] == "Real"
