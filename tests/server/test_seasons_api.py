"""Seasons through the HTTP API: who may do what (a player acts only for themselves, a
cast member cannot read another's garnets when transfers are host-only), a round played
with real player logins and seats bound to them, voids, export and import."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient

from blackwhite.app import create_app
from blackwhite.server.season_ledger import replay
from blackwhite.server.service_seasons import standings_rows

from .matches import bearer, error, host, ok


def season(c: TestClient, hosted: str, n: int = 4, **extra: Any) -> tuple[str, dict[str, str]]:
    """A season whose cast are ``n`` players of the server: its id, and each player's login."""
    logins = {}
    for i in range(n):
        made = ok(c.post("/api/players", json={"name": f"Cast {i + 1}"}, headers=bearer(hosted)), 201)
        logins[made["player"]["id"]] = made["token"]
    body = {"name": "Season", "cast": [{"player": p} for p in logins], "garnets": 5, **extra}
    made = ok(c.post("/api/seasons", json=body, headers=bearer(hosted)), 201)
    return made["id"], logins


def test_a_player_acts_only_for_themselves(client: TestClient) -> None:
    hosted = host(client)
    sid, logins = season(client, hosted)
    a, b, c_, d = logins
    # a transfer from one's own page, at once; never for another, never below zero
    after = ok(client.post(f"/api/seasons/{sid}/transfers", json={"to": b, "garnets": 2}, headers=bearer(logins[a])))
    assert after["you"]["garnets"] == 3
    error(client.post(f"/api/seasons/{sid}/transfers", json={"to": c_, "garnets": 1, "player": b},
                      headers=bearer(logins[a])), 403, "not_yourself")
    error(client.post(f"/api/seasons/{sid}/transfers", json={"to": b, "garnets": 4}, headers=bearer(logins[a])),
          409, "not_enough_garnets")
    error(client.post(f"/api/seasons/{sid}/transfers", json={"to": b, "garnets": 1}), 401, "missing_token")
    # host actions are the hosts'
    error(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b}, headers=bearer(logins[a])),
          403, "not_host")
    ok(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b, "awards": {a: 2}},
                   headers=bearer(hosted)))
    # only the candidate chooses (or a host), and never a token holder
    error(client.post(f"/api/seasons/{sid}/opponent", json={"player": c_}, headers=bearer(logins[c_])),
          403, "not_candidate")
    error(client.post(f"/api/seasons/{sid}/opponent", json={"player": a}, headers=bearer(logins[b])),
          409, "not_eligible")
    mine = ok(client.get("/api/player/seasons", headers=bearer(logins[b])))
    assert [(m["id"], m["your_turn"], m["standing"]["player"]) for m in mine] == [(sid, True, b)]
    assert ok(client.get("/api/player/seasons", headers=bearer(logins[c_])))[0]["your_turn"] is False
    view = ok(client.post(f"/api/seasons/{sid}/opponent", json={"player": c_}, headers=bearer(logins[b])))
    assert view["phase"] == "death" and view["opponent"] == c_
    # the death match's seats are bound to the players: no seat links, each plays with their login
    made = ok(client.post(f"/api/seasons/{sid}/death", json={"game": "swapping"}, headers=bearer(hosted)))
    mid = made["made"]["match"]
    assert made["made"]["seats"] == {}
    seats = ok(client.get(f"/api/matches/{mid}/players", params={"token": hosted}))["seats"]
    assert seats == [b, c_]
    opts = ok(client.get(f"/api/matches/{mid}", params={"token": logins[b]}))
    assert opts["options"]["dmo"] == 1  # the opponent holds the death match's advantage
    # both open it (it starts), the candidate resigns: the loser is eliminated and the garnets move by themselves
    ok(client.get(f"/api/matches/{mid}/view", params={"token": logins[c_]}))
    v = ok(client.get(f"/api/matches/{mid}/view", params={"token": logins[b]}))
    ok(client.post(f"/api/matches/{mid}/actions", params={"token": logins[b]},
                   json={"action": "resign", "version": v["version"]}))
    client.portal.call(client.app.state.seasons.settle_all)  # type: ignore[attr-defined]
    view = ok(client.get(f"/api/seasons/{sid}", headers=bearer(hosted)))
    rows = {r["player"]: r for r in view["standings"]}
    assert rows[b]["eliminated_round"] == 1 and rows[b]["garnets"] == 0
    assert rows[c_]["garnets"] == 5 + 7  # b held 5 and the 2 a gave
    assert view["round"] == 2 and view["phase"] == "main"
    # an eliminated player is never seated again
    error(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b}, headers=bearer(hosted)),
          409, "eliminated")
    # void the death match: the round is back where it was, and the match is made again
    view = ok(client.post(f"/api/seasons/{sid}/void", json={"match": mid}, headers=bearer(hosted)))
    assert view["phase"] == "death" and view["round"] == 1
    assert {r["player"]: r["eliminated_round"] for r in view["standings"]}[b] is None
    again = ok(client.post(f"/api/seasons/{sid}/death", json={"winner": b}, headers=bearer(hosted)))
    assert {r["player"]: r["eliminated_round"] for r in again["standings"]}[c_] == 1


def test_host_only_transfers_hide_each_players_garnets_from_the_others(client: TestClient) -> None:
    hosted = host(client)
    sid, logins = season(client, hosted, rules={"transfers": "host"}, visibility="cast")
    a, b, *_ = logins
    ok(client.post(f"/api/seasons/{sid}/transfers", json={"to": b, "garnets": 3}, headers=bearer(logins[a])))
    mine = ok(client.get(f"/api/seasons/{sid}", headers=bearer(logins[a])))
    rows = {r["player"]: r["garnets"] for r in mine["standings"]}
    assert rows[a] == 2 and all(g is None for p, g in rows.items() if p != a)
    ledger = ok(client.get(f"/api/seasons/{sid}/ledger", headers=bearer(logins[list(logins)[2]])))
    assert [e["kind"] for e in ledger] == ["created"]  # the others' transfer is not seen to happen
    table = list(csv.DictReader(io.StringIO(client.get(f"/api/seasons/{sid}/standings.csv",
                                                       headers=bearer(logins[b])).text)))
    assert {r["player"]: r["garnets"] for r in table}[b] == "8"
    assert all(r["garnets"] == "" for r in table if r["player"] != b)
    # the places of players still in would tell the garnets: in cast order instead
    assert [r["player"] for r in table] == list(logins)
    full = ok(client.get(f"/api/seasons/{sid}", headers=bearer(hosted)))
    assert {r["player"]: r["garnets"] for r in full["standings"]}[b] == 8
    # a cast-only season is not read without a login of its cast or hosts
    error(client.get(f"/api/seasons/{sid}"), 403, "cast_only")
    outsider = ok(client.post("/api/players", json={"name": "Outsider"}, headers=bearer(hosted)), 201)["token"]
    error(client.get(f"/api/seasons/{sid}", headers=bearer(outsider)), 403, "cast_only")
    error(client.get(f"/api/seasons/{sid}/export", headers=bearer(logins[a])), 403, "not_host")


def test_export_imports_into_another_server_and_replays_to_the_same_standings(client: TestClient,
                                                                             tmp_path: Any) -> None:
    hosted = host(client)
    sid, logins = season(client, hosted, n=3)
    a, b, c_ = logins
    ok(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b}, headers=bearer(hosted)))
    ok(client.post(f"/api/seasons/{sid}/opponent", json={"player": c_}, headers=bearer(hosted)))
    ok(client.post(f"/api/seasons/{sid}/death", json={"winner": c_}, headers=bearer(hosted)))
    export = ok(client.get(f"/api/seasons/{sid}/export", headers=bearer(hosted)))
    assert standings_rows(replay(export["ledger"])) == export["standings"]
    assert [r["place"] for r in export["standings"]] == [1, 2, 3]
    other = create_app(f"sqlite:///{tmp_path / 'other.db'}", bot_workers=0, clock_interval=None, rate_limit=False)
    with TestClient(other) as c2:
        made = ok(c2.post("/api/seasons/import", json=export, headers=bearer(host(c2))), 201)
        assert [{k: r[k] for k in ("player", "garnets", "tokens", "eliminated_round", "place")}
                for r in made["standings"]] == export["standings"]
        tampered = {**export, "ledger": [*export["ledger"][:-1]], "standings": export["standings"]}
        error(c2.post("/api/seasons/import", json=tampered, headers=bearer(host(c2))), 422, "bad_import")
        broken = {**export, "ledger": [{**export["ledger"][1], "seq": 7}, *export["ledger"]]}
        error(c2.post("/api/seasons/import", json=broken, headers=bearer(host(c2))), 422, "bad_import")


def test_the_schema_lists_the_season_routes_and_bad_input_changes_nothing(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/seasons", "/api/seasons/{season_id}", "/api/seasons/{season_id}/transfers",
                 "/api/seasons/{season_id}/death", "/api/seasons/{season_id}/export", "/api/seasons/import"):
        assert path in paths
    hosted = host(client)
    error(client.post("/api/seasons", json={"name": "S", "cast": [{"name": "A"}, {"name": "B"}]},
                      headers=bearer(hosted)), 422, "bad_cast")
    error(client.post("/api/seasons", json={"name": "S", "cast": [{"player": "nobody"}] * 3},
                      headers=bearer(hosted)), 404, "unknown_player")
    error(client.post("/api/seasons", json={"name": "S", "cast": [{"name": "A"}, {"name": "A"}, {"name": "B"}],
                                            "rules": {"finalists": 4}}, headers=bearer(hosted)), 422, "bad_rules")
    assert ok(client.get("/api/seasons", headers=bearer(hosted))) == []
    error(client.get("/api/seasons/nope"), 404, "unknown_season")


def test_a_cast_is_the_hosts_own_players_and_a_cohost_runs_the_season(client: TestClient) -> None:
    hosted = host(client)
    sid, logins = season(client, hosted, n=3)
    a, b, c_ = logins
    # another host (made by its first match) casts none of them, and runs nothing of this season
    other = ok(client.post("/api/matches", json={"game": "swapping"}), 201)["host_token"]
    error(client.post("/api/seasons", json={"name": "Mine", "cast": [{"player": p} for p in logins]},
                      headers=bearer(other)), 404, "unknown_player")
    error(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b}, headers=bearer(other)),
          403, "wrong_token")
    error(client.get(f"/api/seasons/{sid}/export", headers=bearer(other)), 403, "wrong_token")
    # named co-host by the season's own host, it runs the season; seats are still bound to the cast
    other_id = ok(client.get("/api/host", headers=bearer(other)))["id"]
    error(client.post(f"/api/seasons/{sid}/cohosts", json={"host": other_id}, headers=bearer(logins[a])),
          403, "not_host")
    ok(client.post(f"/api/seasons/{sid}/cohosts", json={"host": other_id}, headers=bearer(hosted)))
    ok(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b}, headers=bearer(other)))
    ok(client.post(f"/api/seasons/{sid}/opponent", json={"player": c_}, headers=bearer(other)))
    made = ok(client.post(f"/api/seasons/{sid}/death", json={"game": "joust"}, headers=bearer(other)))["made"]
    assert made["seats"] == {}
    assert ok(client.get(f"/api/matches/{made['match']}/players", params={"token": other}))["seats"] == [b, c_]
    assert [s["id"] for s in ok(client.get("/api/seasons", headers=bearer(other)))] == [sid]
