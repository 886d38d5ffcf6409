"""The season, profile and leaderboard pages (#40 item 5) show what the API shows the same
reader and nothing more: a cast member does not read another's garnets when transfers are
host-only, a cast-only season is the cast's and hosts' only (its page, its replays, its
line on a profile), whichever login the browser holds."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from .matches import served
from .test_ratings import synced
from .test_seasons_api import bearer, host, ok, season


@pytest.fixture
def client(sqlite_url: str) -> Iterator[TestClient]:
    with served(sqlite_url, ratings_interval=3600) as c:
        yield c


def standings(html: str) -> dict[str, str]:
    """The standings table of a season page: each player's name -> the garnets cell."""
    table = html[html.index('id="standings"'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r'<th scope="row">([^<]*)</th>\s*<td class="num">([^<]*)</td>', table)
    return {name.strip(): cell.strip() for name, cell in rows}


def played_round(c: TestClient, hosted: str, sid: str, logins: dict[str, str]) -> str:
    """A main match played elsewhere, the candidate's choice, and a death match on the
    server that the candidate resigns: the death match's id."""
    a, b, c_, *_ = logins
    ok(c.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": b}, headers=bearer(hosted)))
    ok(c.post(f"/api/seasons/{sid}/opponent", json={"player": c_}, headers=bearer(logins[b])))
    mid: str = ok(c.post(f"/api/seasons/{sid}/death", json={"game": "swapping"}, headers=bearer(hosted)))["made"]["match"]
    ok(c.get(f"/api/matches/{mid}/view", params={"token": logins[c_]}))
    v = ok(c.get(f"/api/matches/{mid}/view", params={"token": logins[b]}))
    ok(c.post(f"/api/matches/{mid}/actions", params={"token": logins[b]}, json={"action": "resign", "version": v["version"]}))
    c.portal.call(c.app.state.seasons.settle_all)  # type: ignore[attr-defined]
    return mid


def test_the_season_page_shows_standings_rounds_replays_and_the_next_death_match(client: TestClient) -> None:
    hosted = host(client)
    sid, logins = season(client, hosted)
    a, b, c_, d = logins
    mid = played_round(client, hosted, sid, logins)
    ok(client.post(f"/api/seasons/{sid}/main", json={"tokens": [a], "candidate": d}, headers=bearer(hosted)))
    page = client.get(f"/seasons/{sid}")  # public: no login needed
    assert page.status_code == 200 and page.headers["content-security-policy"]
    html = page.text
    assert standings(html) == {"Cast 3": "10", "Cast 1": "5", "Cast 4": "5", "Cast 2": "0"}
    assert "out, round 1" in html and "Round 2" in html and "Round 1" in html
    assert f'/seasons/{sid}/replay/{mid}' in html and "Winner: <b>Cast 3</b>" in html
    assert 'id="next-death-match"' in html and "<b>Cast 4</b>, the Elimination Candidate, chooses" in html
    replay = client.get(f"/seasons/{sid}/replay/{mid}")
    assert replay.status_code == 200 and mid in replay.text and f'href="/seasons/{sid}"' in replay.text
    assert client.get(f"/seasons/{sid}/replay/nosuchmatch").status_code == 404
    assert client.get("/seasons/nosuchseason").status_code == 404
    assert client.get("/seasons/" + "x" * 3000).status_code == 404


def test_a_cast_member_does_not_read_anothers_garnets_on_the_page_when_transfers_are_host_only(
        client: TestClient) -> None:
    hosted = host(client)
    sid, logins = season(client, hosted, rules={"transfers": "host"}, visibility="cast")
    a, b, c_, d = logins
    ok(client.post(f"/api/seasons/{sid}/transfers", json={"to": b, "garnets": 3}, headers=bearer(logins[a])))
    mid = played_round(client, hosted, sid, logins)
    # a cast member, by link and by the browser's player cookie: their own garnets only
    for opened in (client.get(f"/seasons/{sid}", params={"token": logins[a]}),
                   client.get(f"/seasons/{sid}", headers={"Cookie": f"bw_player={logins[a]}"})):
        assert opened.status_code == 200
        cells = standings(opened.text)
        assert cells["Cast 1"] == "2" and all(v == "–" for k, v in cells.items() if k != "Cast 1"), cells
        assert 'id="garnets-hidden"' in opened.text
        # nothing else on the page tells them: no ledger amount, no other holding
        assert "13" not in re.sub(r"<[^>]*>", " ", opened.text.split('id="standings"')[1])
    # the host reads every holding (Cast 2 held 8, lost the death match: Cast 3 holds 13)
    cells = standings(client.get(f"/seasons/{sid}", params={"token": hosted}).text)
    assert cells == {"Cast 3": "13", "Cast 1": "2", "Cast 4": "5", "Cast 2": "0"}
    assert standings(client.get(f"/seasons/{sid}", headers={"Cookie": f"bw_host={hosted}"}).text) == cells
    # outside the cast: no page, no replay, whatever login the browser holds
    outsider = ok(client.post("/api/players", json={"name": "Outsider"}, headers=bearer(hosted)), 201)["token"]
    for blocked in (client.get(f"/seasons/{sid}"), client.get(f"/seasons/{sid}", params={"token": outsider}),
                    client.get(f"/seasons/{sid}", headers={"Cookie": f"bw_player={outsider}"}),
                    client.get(f"/seasons/{sid}/replay/{mid}"),
                    client.get(f"/seasons/{sid}/replay/{mid}", headers={"Cookie": f"bw_player={outsider}"})):
        assert blocked.status_code == 403 and "Cast 3" not in blocked.text and "garnets" not in blocked.text.lower()
    # a cast member's profile names the season to the cast, not to others
    profile = client.get(f"/players/{a}")
    assert profile.status_code == 200 and "Cast 1" in profile.text and f"/seasons/{sid}" not in profile.text
    assert 'href="/seasons/' + sid in client.get(f"/players/{a}", headers={"Cookie": f"bw_player={logins[b]}"}).text
    seen = client.get(f"/players/{a}", headers={"Cookie": f"bw_player={logins[b]}"}).text
    assert " garnets" not in seen.split('id="profile-seasons"')[1]  # host-only garnets stay hidden there too


def test_the_leaderboard_and_profile_pages(client: TestClient) -> None:
    hosted = host(client)
    made = ok(client.post("/api/players", json={"name": "Sally <b>"}, headers=bearer(hosted)), 201)
    sally, token = made["player"]["id"], made["token"]
    mid = ok(client.post("/api/matches", json={"game": "swapping", "seats": [{"player": sally}, {"bot": "random"}]},
                         headers=bearer(hosted)), 201)["id"]
    v = ok(client.get(f"/api/matches/{mid}/view", params={"token": token}))
    ok(client.post(f"/api/matches/{mid}/actions", params={"token": token}, json={"action": "resign", "version": v["version"]}))
    synced(client)
    board = client.get("/ratings/swapping").text
    assert f'href="/players/{sally}">Sally &lt;b&gt;</a>' in board and "random <span class=\"tag\">bot</span>" in board
    assert board.index("random") < board.index("Sally")  # the winner first
    assert "Swapping" in client.get("/ratings").text
    profile = client.get(f"/players/{sally}").text
    assert 'href="/ratings/swapping"' in profile and "0-0-1" in profile
    assert f'href="/players/{sally}"' in client.get("/me", headers={"Cookie": f"bw_player={token}"}).text
    assert client.get("/players/nosuchplayer").status_code == 404
    assert client.get("/ratings/nosuchgame").status_code == 404
    assert client.get("/ratings/swapping", params={"offset": 5}).status_code == 200
    assert client.get("/ratings/swapping", params={"offset": "x"}).status_code in (400, 422)


def test_a_season_match_its_host_voids_is_rated_no_more(client: TestClient) -> None:
    hosted = host(client)
    sid, logins = season(client, hosted)
    mid = played_round(client, hosted, sid, logins)
    synced(client)
    r = client.app.state.ratings  # type: ignore[attr-defined]
    assert {o.match_id: o.rated for o in r.outcomes()} == {mid: True}
    assert client.get("/api/ratings/swapping").json()["total"] == 2
    ok(client.post(f"/api/seasons/{sid}/void", json={"match": mid}, headers=bearer(hosted)))
    synced(client)
    assert [(o.match_id, o.rated) for o in r.outcomes()] == [(mid, False)]
    assert client.get("/api/ratings/swapping").json() == {"game": "swapping", "total": 0, "offset": 0, "rows": []}
    r.rebuild()
    assert [(o.match_id, o.rated) for o in r.outcomes()] == [(mid, False)] and r.games() == []
