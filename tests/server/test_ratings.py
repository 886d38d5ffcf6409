"""Ratings (#40): OpenSkill over every finished rated match, kept in the database and
always equal to a rebuild from the matches (SQLite and a real PostgreSQL)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from blackwhite.app import create_app
from blackwhite.engine.registry import make_game
from blackwhite.server.ratings import (
    Outcome,
    Ratings,
    Standing,
    bot_identity,
    fold,
    identity_of,
    places_of,
    ranked,
)
from blackwhite.server.bots import check_spec, playing_spec
from blackwhite.server.limits import Quotas
from blackwhite.server.ratings_api import Keeper
from blackwhite.server.store import MatchRow

from .matches import served
from .test_api import create, service, wait_finished


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with served(db_url, ratings_interval=3600) as c:
        yield c


def keeper(c: TestClient) -> Keeper:
    found: Keeper = c.app.state.ratings_keeper  # type: ignore[attr-defined]
    return found


def ratings(c: TestClient) -> Ratings:
    found: Ratings = c.app.state.ratings  # type: ignore[attr-defined]
    return found


def synced(c: TestClient) -> None:
    """Wait for a whole sync of the running server's keeper."""
    c.portal.call(keeper(c).until_synced)  # type: ignore[union-attr]


def play(c: TestClient, game: str, seats: list[dict[str, str]]) -> str:
    made = create(c, game, seats=seats)
    wait_finished(c, made["id"])
    return str(made["id"])


def snapshot(r: Ratings) -> dict[str, list[tuple[Any, ...]]]:
    """Every game's leaderboard as plain values (to compare two computations)."""
    out = {}
    for g in r.games():
        board = r.leaderboard(g["game"], 1000)
        out[g["game"]] = [(place, s.identity, round(s.mu, 9), round(s.sigma, 9), s.matches, s.wins, s.draws, s.losses)
                          for place, s in board.rows]
    return out


# --------------------------------------------------------------------------- pure parts


def test_a_bot_is_one_entrant_per_spec_however_it_is_written() -> None:
    assert bot_identity("ismcts:budget=2.0") == bot_identity(" ismcts:budget=2 ") == "bot:ismcts:budget=2"
    assert bot_identity("ismcts:c=1:budget=0.5") == bot_identity("ismcts:budget=0.5:c=1.0")
    assert bot_identity("ismcts:budget=1") != bot_identity("ismcts:budget=2")
    assert identity_of({"bot": "random"}) == "bot:random"
    assert identity_of({"name": "Sally"}) is None
    assert identity_of({"name": "Sally", "player": "p1"}) == "player:p1"
    assert identity_of("junk") is None and identity_of({"player": ""}) is None


def test_places_come_from_the_ranking_or_the_winner() -> None:
    from blackwhite.bots import make_bot
    from blackwhite.bots.match import play_match

    done = play_match(make_game("yellow"), [make_bot("random")] * 3, seed=3)
    ranking = done.result().ranking
    assert ranking is not None
    places = places_of(done)
    assert sorted(places) == [1, 2, 3] and places[ranking[0]] == 1 and places[ranking[2]] == 3
    two = play_match(make_game("swapping"), [make_bot("heuristic"), make_bot("random")], seed=1)
    winner = two.result().winner
    assert winner is not None and places_of(two)[winner] == 1 and sorted(places_of(two)) == [1, 2]


def test_the_fold_is_openskill_plackett_luce_one_update_per_match() -> None:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    a, b, c = model.rating(), model.rating(), model.rating()
    [[a], [b], [c]] = model.rate([[a], [b], [c]], ranks=[2, 1, 3])
    [[a], [c]] = model.rate([[a], [c]], ranks=[1, 1])
    outcomes = [Outcome("m1", "yellow", 1.0, ("bot:a", "bot:b", "bot:c"), (2, 1, 3)),
                Outcome("m2", "yellow", 2.0, ("bot:a", "bot:c"), (1, 1)),
                Outcome("m3", "yellow", 3.0, ("bot:a", None), (1, 2), "a seat is a person known only by a name")]
    got = fold(outcomes)
    assert got["bot:a"].mu == pytest.approx(a.mu) and got["bot:a"].sigma == pytest.approx(a.sigma)
    assert got["bot:c"].mu == pytest.approx(c.mu) and got["bot:b"].mu == pytest.approx(b.mu)
    assert (got["bot:a"].matches, got["bot:a"].wins, got["bot:a"].draws, got["bot:a"].losses) == (2, 0, 1, 1)
    assert (got["bot:b"].wins, got["bot:c"].losses, got["bot:c"].draws) == (1, 1, 1)
    assert [s.identity for s in ranked(got.values())][0] == "bot:b"
    assert Standing("x").rating == pytest.approx(0.0)  # a newcomer: mu 25, sigma 25/3


# --------------------------------------------------------------------------- on the server


def test_finished_bot_matches_are_rated_and_the_tables_equal_a_rebuild(client: TestClient) -> None:
    strong, weak = {"bot": "heuristic"}, {"bot": "random"}
    played = [play(client, "swapping", [strong, weak] if i % 2 else [weak, strong]) for i in range(4)]
    played.append(play(client, "yellow", [{"bot": "heuristic"}, {"bot": "random"}, {"bot": "ismcts:iterations=5"}]))
    synced(client)
    board = client.get("/api/ratings/swapping").json()
    assert board["total"] == 2 and [row["identity"] for row in board["rows"]] == ["bot:heuristic", "bot:random"]
    top = board["rows"][0]
    assert top["place"] == 1 and top["kind"] == "bot" and top["name"] == "heuristic" and top["matches"] == 4
    assert top["wins"] + top["draws"] + top["losses"] == 4 and top["rating"] == pytest.approx(top["mu"] - 3 * top["sigma"], abs=1e-3)
    three = client.get("/api/ratings/yellow").json()
    assert three["total"] == 3 and all(row["matches"] == 1 for row in three["rows"])
    assert sorted(row["wins"] for row in three["rows"]) == [0, 0, 1]
    assert {g["game"]: g["matches"] for g in client.get("/api/ratings").json()["games"]} == {"swapping": 4, "yellow": 1}

    kept = snapshot(ratings(client))
    assert ratings(client).rebuild() == 5
    assert snapshot(ratings(client)) == kept
    assert ratings(client).pending() == 0


def test_a_spec_is_written_as_it_plays_under_a_cap() -> None:
    assert playing_spec("ismcts:budget=30", 5.0) == "ismcts:budget=5"
    assert playing_spec(" ismcts:budget=2.5:c=1 ", 0.25) == "ismcts:budget=0.25:c=1"
    assert playing_spec("ismcts:iterations=3", 0.5) == "ismcts:iterations=3:budget=0.5"  # the 1 s default, cut
    assert playing_spec("ismcts:iterations=3", 5.0) == "ismcts:iterations=3"  # within the cap: as written
    assert playing_spec("ismcts:budget=0.2", 0.5) == "ismcts:budget=0.2"
    assert playing_spec("random", 0.01) == "random" and playing_spec("heuristic", 0.01) == "heuristic"
    for spec in ("ismcts:budget=30", "ismcts:iterations=3"):
        check_spec(playing_spec(spec, 0.5))
        assert bot_identity(playing_spec(spec, 0.5)) != bot_identity(spec)


def test_a_bot_is_rated_at_the_budget_it_played_at_under_the_servers_cap(sqlite_url: str) -> None:
    """A spec asking more than ``--max-bot-budget`` (or a bot's 1 s default) plays at the
    cap: its seat, its record and its rating say so; one within the cap is left as written."""
    app = create_app(sqlite_url, bot_workers=0, clock_interval=None, rate_limit=False, ratings_interval=3600,
                     quotas=Quotas(bot_budget=0.5))
    with TestClient(app) as c:
        made = create(c, "swapping", seats=[{"bot": "ismcts:budget=20:iterations=3"}, {"bot": "ismcts:iterations=4"}])
        plays = ["ismcts:budget=0.5:iterations=3", "ismcts:iterations=4:budget=0.5"]
        assert made["match"]["seats"] == [{"bot": p} for p in plays]
        within = create(c, "swapping", seats=[{"bot": "ismcts:budget=0.25:iterations=3"}, {"bot": "random"}])
        assert within["match"]["seats"] == [{"bot": "ismcts:budget=0.25:iterations=3"}, {"bot": "random"}]
        wait_finished(c, made["id"])
        wait_finished(c, within["id"])
        record = c.get(f"/api/matches/{made['id']}/record", params={"token": made["tokens"]["seats"][0]}).json()
        assert record["seats"] == [f"bot {p}" for p in plays]
        synced(c)
        rows = c.get("/api/ratings/swapping").json()["rows"]
        assert sorted(r["identity"] for r in rows) == sorted(
            ["bot:ismcts:budget=0.5:iterations=3", "bot:ismcts:budget=0.5:iterations=4",
             "bot:ismcts:budget=0.25:iterations=3", "bot:random"])


def test_a_person_known_only_by_name_is_not_rated_and_a_cancelled_match_is_not_an_outcome(client: TestClient) -> None:
    made = create(client, "swapping", seats=[{"name": "Sally"}, {"bot": "random"}])
    r = client.post(f"/api/matches/{made['id']}/actions", params={"token": made["tokens"]["seats"][0]},
                    json={"action": "resign", "version": service(client).get(made["id"]).version})
    assert r.status_code == 200, r.text
    cancelled = create(client, "swapping", seats=[{"bot": "random"}, {"bot": "random"}], paused=True)
    assert client.post(f"/api/matches/{cancelled['id']}/cancel",
                       params={"token": cancelled["host_token"] or made["host_token"]}).status_code == 200
    synced(client)
    outcomes = {o.match_id: o for o in ratings(client).outcomes()}
    assert set(outcomes) == {made["id"]}
    assert not outcomes[made["id"]].rated and "known only by a name" in (outcomes[made["id"]].note or "")
    assert client.get("/api/ratings/swapping").json() == {"game": "swapping", "total": 0, "offset": 0, "rows": []}


def test_an_outcome_that_arrives_out_of_order_folds_the_game_again(client: TestClient) -> None:
    """A match that finished before the last one folded (another process, a crash) is
    put in its place: the fold is done again from the first match, equal to a rebuild."""
    r = ratings(client)
    ids = [play(client, "swapping", [{"bot": "heuristic"}, {"bot": "random"}]) for _ in range(2)]
    synced(client)
    service(client).watchers.clear()  # the keeper is not told of the next match's end: it waits
    late = play(client, "swapping", [{"bot": "random"}, {"bot": "heuristic"}])
    assert late not in {o.match_id for o in r.outcomes()}
    first = min(o.finished_at for o in r.outcomes("swapping"))
    with r.engine.begin() as conn:  # as if it had finished first and its outcome came late
        from blackwhite.server.store import EventRow

        conn.execute(update(EventRow).where(EventRow.match_id == late).values(arrived_at=first - 10.0))
    synced(client)
    order = [o.match_id for o in r.outcomes("swapping")]
    assert order[0] == late and set(order[1:]) == set(ids)
    kept = snapshot(r)
    r.rebuild()
    assert snapshot(r) == kept


def test_the_leaderboard_refuses_what_it_cannot_answer(client: TestClient) -> None:
    assert client.get("/api/ratings/nosuchgame").status_code == 404
    assert client.get("/api/ratings/nosuchgame").json()["error"]["code"] == "unknown_game"
    assert client.get("/api/ratings/" + "x" * 5000).status_code == 404
    assert client.get("/api/ratings/a%00b").json()["error"]["code"] == "unknown_game"  # never sent to PostgreSQL
    assert client.get("/ratings/a%00b").status_code == 404 and client.get("/players/a%00b").status_code == 404
    assert client.get("/api/ratings/swapping", params={"limit": 5000}).status_code == 400
    assert client.get("/api/ratings/swapping", params={"offset": -1}).status_code == 400
    assert client.get("/api/ratings/swapping", params={"limit": "many"}).status_code == 400
    assert client.get("/api/ratings/swapping").json()["rows"] == []


def test_a_match_that_finishes_is_rated_by_itself_without_a_restart(db_url: str) -> None:
    """The keeper is poked when a match finishes: no waiting for its interval."""
    app = create_app(db_url, bot_workers=0, clock_interval=None, rate_limit=False, ratings_interval=3600)
    with TestClient(app) as c:
        play(c, "swapping", [{"bot": "heuristic"}, {"bot": "random"}])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not c.get("/api/ratings/swapping").json()["rows"]:
            time.sleep(0.05)
        assert c.get("/api/ratings/swapping").json()["total"] == 2


def test_ratings_survive_a_restart_and_catch_up_on_matches_finished_while_the_keeper_was_away(db_url: str) -> None:
    app = create_app(db_url, bot_workers=0, clock_interval=None, rate_limit=False, ratings_interval=3600)
    with TestClient(app) as c:
        play(c, "swapping", [{"bot": "heuristic"}, {"bot": "random"}])
        synced(c)
        kept = snapshot(ratings(c))
        r = ratings(c)
        with r.engine.begin() as conn:  # the outcome was never written (a crash before the sync)
            from blackwhite.server.ratings import MatchResultRow, RatingGameRow, RatingRow
            from sqlalchemy import delete

            conn.execute(delete(RatingRow.__table__))
            conn.execute(delete(RatingGameRow.__table__).where(RatingGameRow.game != ""))
            conn.execute(delete(MatchResultRow.__table__))
    again = create_app(db_url, bot_workers=0, clock_interval=None, rate_limit=False, ratings_interval=3600)
    with TestClient(again) as c:
        synced(c)
        assert snapshot(ratings(c)) == kept
        with ratings(c).engine.connect() as conn:
            assert conn.execute(select(MatchRow.status)).scalars().all() == ["finished"]


def test_two_syncs_at_once_write_each_outcome_once(db_url: str) -> None:
    """Two processes' keepers over one database: each outcome once, the fold as a rebuild's."""
    app = create_app(db_url, bot_workers=0, clock_interval=None, rate_limit=False, ratings_interval=3600)
    with TestClient(app) as c:
        for i in range(3):
            play(c, "swapping", [{"bot": "heuristic"}, {"bot": "random"}] if i % 2 else [{"bot": "random"}, {"bot": "heuristic"}])
        engine = ratings(c).engine
        with engine.begin() as conn:
            from blackwhite.server.ratings import MatchResultRow, RatingGameRow, RatingRow
            from sqlalchemy import delete

            conn.execute(delete(RatingRow.__table__))
            conn.execute(delete(RatingGameRow.__table__).where(RatingGameRow.game != ""))
            conn.execute(delete(MatchResultRow.__table__))

        async def both() -> None:
            await asyncio.gather(asyncio.to_thread(Ratings(engine).sync), asyncio.to_thread(Ratings(engine).sync))

        asyncio.run(both())
        assert len(ratings(c).outcomes()) == 3
        kept = snapshot(ratings(c))
        ratings(c).rebuild()
        assert snapshot(ratings(c)) == kept and kept["swapping"][0][4] == 3


def test_players_are_rated_beside_bots_under_their_display_names(client: TestClient) -> None:
    h = service(client).owner_login("test")
    auth = {"Authorization": f"Bearer {h}"}
    made = client.post("/api/players", json={"name": "Sally"}, headers=auth).json()
    sally, token = made["player"]["id"], made["token"]
    for _ in range(2):
        mid = client.post("/api/matches", json={"game": "swapping", "seats": [{"player": sally}, {"bot": "random"}]},
                          headers=auth).json()["id"]
        version = client.get(f"/api/matches/{mid}/view", params={"token": token}).json()["version"]
        r = client.post(f"/api/matches/{mid}/actions", params={"token": token}, json={"action": "resign", "version": version})
        assert r.status_code == 200, r.text
    synced(client)
    rows = client.get("/api/ratings/swapping").json()["rows"]
    assert [(row["identity"], row["kind"], row["name"], row["matches"], row["losses"]) for row in rows] == [
        ("bot:random", "bot", "random", 2, 0), (f"player:{sally}", "player", "Sally", 2, 2)]


def test_the_command_line_shows_and_rebuilds_the_leaderboard(sqlite_url: str) -> None:
    from typer.testing import CliRunner

    from blackwhite.cli import app as cli_app

    app = create_app(sqlite_url, bot_workers=0, clock_interval=None, rate_limit=False, ratings_interval=3600)
    with TestClient(app) as c:
        service(c).watchers.clear()  # the server leaves the rating to the command below
        for seats in ([{"bot": "heuristic"}, {"bot": "random"}], [{"bot": "random"}, {"bot": "heuristic"}]):
            play(c, "swapping", seats)

    def run(*args: str) -> Any:
        return CliRunner().invoke(cli_app, ["ratings", *args, "--db", sqlite_url])

    shown = run("show", "swapping")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[1].split()[:3] == ["1", "heuristic", "(bot)"] and lines[2].split()[:3] == ["2", "random", "(bot)"]
    as_json = run("show", "swapping", "--json")
    assert [r["identity"] for r in json.loads(as_json.output)["rows"]] == ["bot:heuristic", "bot:random"]
    assert "swapping: 2 rated matches, 2 rated" in run("games").output
    assert "replayed 2 finished matches" in run("rebuild").output
    assert json.loads(run("show", "swapping", "--json").output) == json.loads(as_json.output)
    missing = run("show", "nosuchgame")
    assert missing.exit_code == 1 and "no game 'nosuchgame'" in missing.output
    assert run("show", "swapping", "--limit", "0").exit_code == 2
