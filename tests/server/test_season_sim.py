"""A 13-player season played by bots through the season and match services, on SQLite
and on PostgreSQL (blackwhite/server/season_sim.py), and what its export must show."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

from blackwhite.engine import outcome_json
from blackwhite.engine.record import parse_record, replay as referee
from blackwhite.server.season_ledger import replay, voided
from blackwhite.server.season_sim import simulate
from blackwhite.server.service_seasons import standings_rows

#: bots think this many iterations a decision: enough to play, little enough for the suite
ITERATIONS = 4


def check_season(export: dict[str, Any], players: int) -> None:
    """Every property a finished season must have, from its export alone."""
    ledger = export["ledger"]
    gone = set().union(*voided(ledger).values()) if voided(ledger) else set()
    counted = [e for e in ledger if e["seq"] not in gone and e["kind"] != "void"]
    season = replay(ledger)
    assert standings_rows(season) == export["standings"], "the ledger replays to the exported standings"
    champions = [e for e in counted if e["kind"] == "champion"]
    assert len(champions) == 1 and season.champion == champions[0]["data"]["player"]
    assert [r["place"] for r in export["standings"]] == list(range(1, players + 1))
    assert export["standings"][0]["player"] == season.champion
    # one elimination per death match, and 11 or 12 of them
    deaths = {e["data"]["match"] for e in counted if e["kind"] == "match_created" and e["data"]["stage"] == "death"}
    eliminations = [e for e in counted if e["kind"] == "eliminated"]
    assert len(eliminations) in (players - 2, players - 1)
    assert sorted(e["data"]["match"] for e in eliminations) == sorted(deaths)
    assert len({e["data"]["player"] for e in eliminations}) == len(eliminations)
    # garnets conserved at every entry, counted here independently of the fold
    start = ledger[0]["data"]["garnets"]
    held = {m["player"]: start for m in ledger[0]["data"]["cast"]}
    awarded = spent = 0
    out: set[str] = set()
    for e in ledger[1:]:
        d = e["data"]
        if e["seq"] not in gone and e["kind"] != "void":
            if e["kind"] in ("award", "adjust"):
                held[d["player"]] += d["garnets"]
                awarded += d["garnets"]
            elif e["kind"] == "spend":
                held[d["player"]] -= d["garnets"]
                spent += d["garnets"]
            elif e["kind"] in ("transfer", "garnets_moved"):
                held[d["from"]] -= d["garnets"]
                held[d["to"]] += d["garnets"]
            elif e["kind"] == "opponent":
                before = replay(ledger[:e["seq"] - 1])
                others = [p for p in before.alive() if p != before.candidate]
                if any(before.players[p].tokens == 0 for p in others):
                    assert before.players[d["player"]].tokens == 0, f"entry {e['seq']}: a token holder was chosen"
            elif e["kind"] == "match_created":
                assert not out & set(d["seats"]), f"entry {e['seq']}: an eliminated player seated again"
            elif e["kind"] == "eliminated":
                out.add(d["player"])
        assert min(held.values()) >= 0, f"entry {e['seq']}: below zero"
        assert sum(held.values()) == start * len(held) + awarded - spent, f"entry {e['seq']}: garnets not conserved"
        at = replay(ledger[:e["seq"]])
        assert {p: s.garnets for p, s in at.players.items()} == held
    assert {r["player"]: r["garnets"] for r in export["standings"]} == held
    # every server match's record passes the referee, with the result the ledger wrote
    finished = {e["data"]["match"]: e["data"]["ranking"] for e in counted if e["kind"] == "match_finished"}
    assert export["records"], "the season played matches on the server"
    for item in export["records"]:
        result = referee(parse_record(json.dumps(item["record"]), item["match"]))
        assert result.error is None, (item["match"], result.error)
        outcome = outcome_json(result.state)
        assert outcome["finished"]
        m = season.matches[item["match"]]
        winner_seat = outcome["ranking"][0] if outcome.get("ranking") else outcome["winner"]
        assert m.seats[winner_seat] == finished[item["match"]][0]
    stages = Counter(item["stage"] for item in export["records"])
    assert stages["final"] == 1 and stages["death"] >= 1 and stages["main"] >= 1


def test_a_13_player_season_simulated_by_bots(db_url: str) -> None:
    export = asyncio.run(simulate(13, 7, db_url, iterations=ITERATIONS, small=True))
    check_season(export, 13)
    games = {e["data"]["game"] for e in export["ledger"] if e["kind"] == "match_created"
             and e["data"]["stage"] == "death"}
    assert {"swapping", "domino", "grouping", "joust"} <= games  # every two-seat game without items


def test_the_same_seed_gives_the_same_season(tmp_path: Path) -> None:
    first = asyncio.run(simulate(5, 3, f"sqlite:///{tmp_path / 'a.db'}", iterations=ITERATIONS, small=True))
    second = asyncio.run(simulate(5, 3, f"sqlite:///{tmp_path / 'b.db'}", iterations=ITERATIONS, small=True))
    assert first == second
    check_season(first, 5)
