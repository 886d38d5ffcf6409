"""render_board's contract, the pages' payload fields and the pages' refusals, without a browser."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from blackwhite.engine import game_ids
from blackwhite.app import create_app
from blackwhite.web import render
from blackwhite.engine import registry
from blackwhite.web.render import game_asset, has_partial, legal_entries, render_board, rules_html
from tests.server.matches import create_match
from tests.web.boards import started

ROOT = Path(__file__).resolve().parents[2]
EVIL = "<script>alert(1)</script>"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", bot_workers=0, clock_interval=None, rate_limit=False)
    with TestClient(app) as c:
        yield c


def create(c: TestClient, game: str, seats: list[dict[str, str]], join: bool = True, **extra: Any) -> dict[str, Any]:
    """Create a match with these seats (see :func:`create_match`)."""
    return create_match(c, game, join=join, seats=seats, **extra)


# --------------------------------------------------------------------------- render_board


def test_a_game_without_a_partial_falls_back_to_the_generic_dump(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = started("swapping")
    monkeypatch.setattr(render, "has_partial", lambda gid: False)
    html = render_board("swapping", state.view(0), seat=0, legal=[], names=["Ann", "Bob"])
    assert 'class="board generic"' in html and "<dt>My unplaced</dt>" in html and "P1 Ann" in html
    assert not has_partial("../base") and not has_partial("NoSuchGame")


@pytest.mark.parametrize("game", game_ids())
def test_every_games_board_renders_every_seat_and_the_public_view(game: str) -> None:
    state = started(game)
    names = [f"P{i + 1}" for i in range(state.num_seats)]
    for seat in [*range(state.num_seats), None]:
        legal = legal_entries(
            [state.format_action(a) for a in state.legal_actions(seat)] if seat is not None else []
        )
        html = render_board(game, state.view(seat), seat=seat, legal=legal, names=names)
        assert html.strip()


@pytest.mark.parametrize("game", game_ids())
def test_a_seat_named_by_its_label_is_named_once(game: str) -> None:
    """A record whose seats are called P1, P2 (every example, every 'blackwhite play'
    opponent) read "1. P1 (P1)" in yellow's standing; a real name keeps its label."""
    state = started(game)
    labels = [f"P{i + 1}" for i in range(state.num_seats)]
    named = ["Ann", "Bea", "Cy"][:state.num_seats]
    for seat in [*range(state.num_seats), None]:
        html = render_board(game, state.view(seat), seat=seat, names=labels, you=False)
        assert not any(f"{label} ({label})" in html for label in labels), (game, seat)
        html = render_board(game, state.view(seat), seat=seat, names=named, you=False)
        if "Bea" in html:  # a board that names the seat keeps its label beside the name
            assert "Bea (P2)" in html or "P2 Bea" in html, (game, seat)


def test_names_and_notes_are_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    state = started("swapping")
    view = state.view(0)
    view["log"] = [EVIL]
    view["extra_note"] = EVIL
    for partial in (True, False):
        monkeypatch.setattr(render, "has_partial", lambda gid, p=partial: p and (render.TEMPLATES / "games" / f"{gid}.html").is_file())
        html = render_board("swapping", view, seat=0, legal=legal_entries(["place 0 1 2"]), names=[EVIL, EVIL])
        assert EVIL not in html and "<script" not in html


def test_legal_entries_carry_the_text_and_its_first_word() -> None:
    assert legal_entries(["place 0 1 2", "resign"]) == [
        {"text": "place 0 1 2", "tag": "place"}, {"text": "resign", "tag": "resign"},
    ]


def test_game_assets_are_what_each_games_registration_names() -> None:
    """A final's registration names its death match's script; the address is the game's own."""
    assert registry.entry("joust-final").page_script == registry.entry("joust").page_script
    assert game_asset("joust-final", "js") == "/games/joust-final/board.js"
    assert game_asset("joust-final", "css") == "/games/joust-final/board.css"
    for gid in game_ids():
        entry = registry.entry(gid)
        assert has_partial(gid) == (entry.page_template is not None)
        if entry.page_template is not None:
            assert registry.read_resource(entry.page_template).strip(), (gid, entry.page_template)
        for ext, ref in (("js", entry.page_script), ("css", entry.page_style)):
            assert (game_asset(gid, ext) is None) == (ref is None), (gid, ext)
            if ref is not None:
                assert registry.read_resource(ref).strip(), (gid, ref)
    assert game_asset("../../etc/passwd", "js") is None and game_asset("swapping", "html") is None


def test_rules_pages_render_and_raw_html_stays_text(monkeypatch: pytest.MonkeyPatch) -> None:
    html = rules_html("swapping")
    assert html is not None and "<h1" in html and "<table" in html
    rules_html.cache_clear()
    monkeypatch.setattr(render, "rules_markdown", lambda gid: f"# Title\n\n{EVIL}\n\nsome <b>text</b>\n")
    try:
        html = rules_html("swapping")
        assert html is not None and "<script" not in html and "&lt;script&gt;" in html
    finally:
        rules_html.cache_clear()


# --------------------------------------------------------------------------- payloads


def test_render_adds_the_board_and_a_seats_own_legal_actions_only(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": EVIL}, {"name": "Bob"}])
    mid, (t0, t1) = made["id"], made["tokens"]["seats"]
    plain = client.get(f"/api/matches/{mid}/view", params={"token": t0}).json()
    assert "board" not in plain and "legal" not in plain  # the API's payload is unchanged
    mine = client.get(f"/api/matches/{mid}/view", params={"token": t0, "render": 1}).json()
    assert {k: v for k, v in mine.items() if k not in ("board", "legal")}.keys() == plain.keys()
    assert "place 0 1 2" in mine["legal"] and EVIL not in mine["board"]
    spectator = client.get(f"/api/matches/{mid}/view", params={"token": made["tokens"]["spectator"], "render": 1}).json()
    assert "legal" not in spectator and spectator["view"] == client.get(
        f"/api/matches/{mid}/view", params={"token": made["tokens"]["spectator"]}).json()["view"]
    host = client.get(f"/api/matches/{mid}/view", params={"token": made["host_token"], "render": 1}).json()
    assert "legal" not in host and "boards" not in host
    # after P1 answers, P1 may do nothing more this step; P2 still may
    r = client.post(f"/api/matches/{mid}/actions", params={"token": t0}, json={"action": "place 0 1 2", "version": mine["version"]})
    assert r.status_code == 200, r.text
    assert client.get(f"/api/matches/{mid}/view", params={"token": t0, "render": 1}).json()["legal"] == []
    assert client.get(f"/api/matches/{mid}/view", params={"token": t1, "render": 1}).json()["legal"]


def test_a_bots_watch_token_and_a_paused_match_get_no_legal_actions(client: TestClient) -> None:
    made = create(client, "domino", [{"bot": "random"}, {"bot": "random"}], paused=True)
    for token in made["tokens"]["seats"]:
        payload = client.get(f"/api/matches/{made['id']}/view", params={"token": token, "render": 1}).json()
        assert payload["legal"] == []
    made = create(client, "domino", [{"name": "A"}, {"name": "B"}], paused=True)
    for token in made["tokens"]["seats"]:
        assert client.get(f"/api/matches/{made['id']}/view", params={"token": token, "render": 1}).json()["legal"] == []


def test_socket_pushes_with_render_carry_only_the_roles_own_board(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "Ann"}, {"name": "Bob"}])
    mid, (t0, t1) = made["id"], made["tokens"]["seats"]
    spectator = made["tokens"]["spectator"]
    with client.websocket_connect(f"/ws/matches/{mid}?token={t0}&render=1") as p0, \
            client.websocket_connect(f"/ws/matches/{mid}?token={spectator}&render=1") as watcher, \
            client.websocket_connect(f"/ws/matches/{mid}?token={t1}") as plain:
        first = p0.receive_json()
        assert first["legal"] and first["board"]
        w = watcher.receive_json()
        assert "legal" not in w and w["board"]
        assert "board" not in plain.receive_json()
        p0.send_json({"type": "action", "action": "place 0 1 2", "version": first["version"]})
        pushed = p0.receive_json()
        assert pushed["type"] == "view" and pushed["legal"] == [] and "place 0 1 2" in json.dumps(pushed["view"])
        assert p0.receive_json() == {"type": "ack", "version": pushed["version"]}
        w2 = watcher.receive_json()  # the public view changed (P1 has answered)
        assert "legal" not in w2 and "place 0 1 2" not in w2["board"] and "place 0 1 2" not in json.dumps(w2)


def test_create_answers_with_the_pages_links(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "Ann"}, {"bot": "random"}])
    pages = made["pages"]
    assert pages["host"].endswith(f"/host/{made['id']}?token={made['host_token']}")
    assert pages["spectator"].endswith(f"/watch/{made['id']}?token={made['tokens']['spectator']}")
    assert pages["seats"][0].endswith(f"/play/{made['id']}?token={made['tokens']['seats'][0]}")
    assert pages["seats"][1] is None


# --------------------------------------------------------------------------- pages


def test_each_page_refuses_a_token_not_its_own(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "Ann"}, {"name": "Bob"}])
    mid, seat, spectator = made["id"], made["tokens"]["seats"][0], made["tokens"]["spectator"]
    assert client.get(f"/play/{mid}", params={"token": seat}).status_code == 200
    assert client.get(f"/watch/{mid}", params={"token": spectator}).status_code == 200
    assert client.get(f"/host/{mid}", params={"token": made["host_token"]}).status_code == 200
    assert client.get(f"/play/{mid}", params={"token": spectator}).status_code == 403
    assert client.get(f"/host/{mid}", params={"token": seat}).status_code == 403
    assert client.get(f"/watch/{mid}").status_code == 401
    r = client.get("/play/nosuchmatch", params={"token": seat})
    assert r.status_code == 404 and "nosuchmatch" in r.text and "text/html" in r.headers["content-type"]
    assert client.get("/rules/nope").status_code == 404
    assert client.get("/rules/..%2Fbase").status_code == 404


def test_a_spectator_page_holds_no_seats_secret(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "Ann"}, {"name": "Bob"}])
    mid = made["id"]
    page = client.get(f"/watch/{mid}", params={"token": made["tokens"]["spectator"]}).text
    assert "legal" not in page.split('id="bw-initial"', 1)[1].split("</script>", 1)[0]
    r = client.post(f"/api/matches/{mid}/actions", params={"token": made["tokens"]["seats"][0]},
                    json={"action": "place 8 7 6", "version": client.get(
                        f"/api/matches/{mid}/view", params={"token": made["tokens"]["seats"][0]}).json()["version"]})
    assert r.status_code == 200
    page = client.get(f"/watch/{mid}", params={"token": made["tokens"]["spectator"]}).text
    assert "place 8 7 6" not in page and "8 7 6" not in page


def test_the_host_page_lists_games_with_rules_links_and_the_hosts_matches(client: TestClient) -> None:
    page = client.get("/").text
    for gid in game_ids():
        assert f'href="/rules/{gid}"' in page
    made = create(client, "domino", [{"name": "A"}, {"name": "B"}])
    page = client.get("/", params={"token": made["host_token"]}).text
    assert made["id"] in page and "Your matches" in page


def test_the_form_posts_what_the_engine_refuses_with_its_message(client: TestClient) -> None:
    r = client.post("/api/matches", json={"game": "swapping", "options": {"dmo": 7}, "seats": [{"name": "A"}, {"name": "B"}]})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_options" and "dmo" in r.json()["error"]["message"]


# --------------------------------------------------------------------------- replay


def test_replay_outline_and_steps_of_a_good_record(client: TestClient) -> None:
    raw = (ROOT / "examples" / "domino.json").read_bytes()
    outline = client.post("/replay/outline", content=raw).json()
    assert outline["game"] == "domino" and outline["steps"] > 2
    last = outline["steps"] - 1
    full = client.post(f"/replay/step?n={last}&audience=full", content=raw).json()
    assert full["finished"] and len(full["boards"]) == 2
    seat = client.post("/replay/step?n=1&audience=1", content=raw).json()
    assert len(seat["boards"]) == 1 and seat["boards"][0]["title"].startswith("P2")
    # what the other seat played is not spelled out to a seat's replay
    acted = json.loads(raw)["events"]
    first_seat_event = next(e for e in acted if "seat" in e)
    if first_seat_event["seat"] != 1:
        assert first_seat_event["action"] not in seat["label"]


@pytest.mark.parametrize("body, needle", [
    (b"", "empty"),
    (b"\xff\xfe", "UTF-8"),
    (b"{nope", "not JSON"),
    (b"[]", "JSON object"),
    (json.dumps({"game": "nope"}).encode(), "nope"),
    (json.dumps({"game": "swapping", "events": [{"seat": 0, "action": "fly"}]}).encode(), "event 0"),
])
def test_replay_refuses_a_bad_file_with_the_referees_reason(client: TestClient, body: bytes, needle: str) -> None:
    r = client.post("/replay/outline", content=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "bad_record" and needle in r.json()["error"]["message"]


def test_replay_refuses_a_step_or_audience_out_of_range(client: TestClient) -> None:
    raw = (ROOT / "examples" / "swapping.json").read_bytes()
    assert client.post("/replay/step?n=999&audience=full", content=raw).status_code == 422
    assert client.post("/replay/step?n=0&audience=7", content=raw).status_code == 422
    assert client.post("/replay/step?n=0&audience=evil", content=raw).status_code == 422


def test_a_stored_replay_needs_a_finished_match_and_its_token(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "A"}, {"name": "B"}])
    mid = made["id"]
    assert client.get(f"/replay/{mid}", params={"token": made["tokens"]["spectator"]}).status_code == 409
    client.post(f"/api/matches/{mid}/actions", params={"token": made["tokens"]["seats"][0]},
                json={"action": "resign", "version": client.get(
                    f"/api/matches/{mid}/view", params={"token": made["tokens"]["seats"][0]}).json()["version"]})
    page = client.get(f"/replay/{mid}", params={"token": made["tokens"]["spectator"]})
    assert page.status_code == 200 and 'id="bw-record"' in page.text
    assert client.get(f"/replay/{mid}", params={"token": "forged"}).status_code == 403


def test_pages_run_only_the_servers_own_scripts(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "A"}, {"name": "B"}])
    for url in ["/", "/replay", "/rules/swapping", f"/play/{made['id']}?token={made['tokens']['seats'][0]}",
                "/play/nosuch?token=x"]:
        headers = client.get(url).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, url
        assert headers["referrer-policy"] == "same-origin"


def test_a_failing_partial_falls_back_to_the_generic_board(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    made = create(client, "swapping", [{"name": "A"}, {"name": "B"}])
    real = render.render_board

    def broken(game_id: str, view: dict[str, Any], **kw: Any) -> str:
        if game_id != "_generic":
            raise KeyError("a bug in a partial")
        return real(game_id, view, **kw)

    monkeypatch.setattr(render, "render_board", broken)
    r = client.get(f"/api/matches/{made['id']}/view", params={"token": made["tokens"]["seats"][0], "render": 1})
    assert r.status_code == 200 and 'class="board generic"' in r.json()["board"] and r.json()["legal"]


def test_a_bots_watch_link_shows_no_controls(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "A"}, {"bot": "random"}], host_sees_all=True)
    page = client.get(f"/play/{made['id']}", params={"token": made["tokens"]["seats"][1]}).text
    assert "played by the random bot" in page and 'id="notation"' not in page and 'id="resign"' not in page
    page = client.get(f"/play/{made['id']}", params={"token": made["tokens"]["seats"][0]}).text
    assert "played by the bot" not in page and 'id="notation"' in page


def test_a_host_who_sees_all_gets_every_seats_board_and_others_do_not(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "A"}, {"name": "B"}], host_sees_all=True)
    mid = made["id"]
    host = client.get(f"/api/matches/{mid}/view", params={"token": made["host_token"], "render": 1}).json()
    assert len(host["boards"]) == 2 and "legal" not in host
    page = client.get(f"/host/{mid}", params={"token": made["host_token"]}).text
    assert "Every seat&#39;s view" in page or "Every seat's view" in page
    plain = create(client, "swapping", [{"name": "A"}, {"name": "B"}])
    page = client.get(f"/host/{plain['id']}", params={"token": plain["host_token"]}).text
    assert "Every seat" not in page
    seat = client.get(f"/api/matches/{mid}/view", params={"token": made["tokens"]["seats"][0], "render": 1}).json()
    assert "boards" not in seat


@pytest.mark.parametrize("body", [b"[1]", b'"x"', b"3", b"null", b"[1, 2, 3]"])
def test_replay_step_refuses_json_that_is_not_an_object_as_outline_does(client: TestClient, body: bytes) -> None:
    for url in ["/replay/outline", "/replay/step?n=0&audience=full"]:
        r = client.post(url, content=body)
        assert r.status_code == 422, (url, body, r.text)
        assert r.json()["error"]["code"] == "bad_record" and "JSON object" in r.json()["error"]["message"]


def _with_events(events: Any) -> bytes:
    record = json.loads((ROOT / "examples" / "swapping.json").read_bytes())
    record["events"] = events
    return json.dumps(record).encode()


@pytest.mark.parametrize("body, needle", [
    (_with_events({"a": 1}), "events"),
    (_with_events(["x"]), "event 0"),
    (_with_events([{"seat": 0, "action": "<img src=x onerror=alert(1)>"}]), "event 0"),
    # a good start, then an illegal event: a step before it is still refused
    (_with_events([*json.loads((ROOT / "examples" / "swapping.json").read_bytes())["events"][:3],
                   {"seat": 0, "action": "fly"}]), "event 3"),
])
def test_replay_step_checks_the_whole_record_as_outline_does(client: TestClient, body: bytes, needle: str) -> None:
    outline = client.post("/replay/outline", content=body)
    step = client.post("/replay/step?n=0&audience=full", content=body)
    assert outline.status_code == step.status_code == 422, (outline.text, step.text)
    assert step.json()["error"]["code"] == "bad_record" and needle in step.json()["error"]["message"]
    assert step.json() == outline.json()


@pytest.mark.parametrize("audience", ["²", "١", "0x1", " 1", "+1", "1.0", "-0"])
def test_replay_audience_is_ascii_digits_or_a_name(client: TestClient, audience: str) -> None:
    raw = (ROOT / "examples" / "swapping.json").read_bytes()
    r = client.post("/replay/step", params={"n": 0, "audience": audience}, content=raw)
    assert r.status_code == 422, (audience, r.text)
    assert "a replay is seen as a seat" in r.json()["error"]["message"]
    for good in ["0", "1", "public", "full"]:
        assert client.post("/replay/step", params={"n": 0, "audience": good}, content=raw).status_code == 200


def test_an_unexpected_error_in_a_replay_is_a_logged_422(client: TestClient, monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    from blackwhite.web import replay as steps

    def broken(record: Any, n: int, audience: str) -> dict[str, Any]:
        raise AttributeError("a bug somewhere in the replay")

    monkeypatch.setattr(steps, "step", broken)
    raw = (ROOT / "examples" / "swapping.json").read_bytes()
    with caplog.at_level("WARNING", logger="blackwhite.web"):
        r = client.post("/replay/step?n=0&audience=full", content=raw)
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_record"
    assert any("a bug somewhere in the replay" in rec.getMessage() for rec in caplog.records)


# --------------------------------------------------------------------------- docs/pages.md agrees


def _docs() -> str:
    return " ".join((ROOT / "docs" / "pages.md").read_text().split())


def test_docs_say_when_a_bot_seat_gets_a_watch_link_as_the_code_does(client: TestClient) -> None:
    both_bots = create(client, "swapping", [{"bot": "random"}, {"bot": "random"}], paused=True)
    assert all(both_bots["pages"]["seats"])  # every seat a bot: each has its watch link
    mixed = create(client, "swapping", [{"name": "A"}, {"bot": "random"}])
    assert mixed["pages"]["seats"][1] is None
    seen_all = create(client, "swapping", [{"name": "A"}, {"bot": "random"}], host_sees_all=True)
    assert seen_all["pages"]["seats"][1]
    assert "only when the host sees everything or when every seat is a bot" in _docs()


def test_docs_say_an_answered_seat_keeps_its_free_actions_as_the_code_does() -> None:
    from blackwhite.server.service import MatchService

    code = " ".join((MatchService.legal_texts.__doc__ or "").split())
    assert "free actions" in code and "has already answered" in code
    docs = _docs()
    assert "has already answered this step, it holds only the free actions" in docs
    assert "has answered this step, or the match" not in docs  # the old, wrong wording


def test_docs_say_both_replay_routes_check_the_whole_record() -> None:
    docs = _docs()
    assert "each replay the whole record before answering" in docs and "never 500" in docs
    assert "ASCII digits" in docs


def test_every_page_of_a_waiting_match_says_whom_it_waits_for(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "Ann"}, {"name": "Bob"}], join=False)
    mid, host, (ann, bob) = made["id"], made["host_token"], made["tokens"]["seats"]
    for kind, token in {"host": host, "watch": made["tokens"]["spectator"]}.items():
        assert "waiting for Ann and Bob to join" in client.get(f"/{kind}/{mid}", params={"token": token}).text
    # Ann's own page is her joining: from then on only Bob is awaited
    assert "waiting for Bob to join" in client.get(f"/play/{mid}", params={"token": ann}).text
    assert "waiting for Bob to join" in client.get("/", params={"token": host}).text
    assert 'id="start-now"' in client.get(f"/host/{mid}", params={"token": host}).text
    client.get(f"/play/{mid}", params={"token": bob})
    page = client.get(f"/watch/{mid}", params={"token": made["tokens"]["spectator"]}).text
    assert "waiting for" not in page and '<span id="status">running</span>' in page


def _played(game: str, steps: int, seed: int = 3) -> Any:
    """A match ``steps`` random seat actions in, every seat having acted (reveals made...)."""
    state = started(game, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        while state.is_chance():
            state.apply_chance(state.sample_chance(rng))
        if state.is_terminal():
            break
        seat = rng.choice([s for s in state.to_move() if s not in state.pending])
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state


@pytest.mark.parametrize("game", game_ids())
def test_a_board_read_by_someone_else_never_says_you(game: str) -> None:
    """The replay's full record draws each seat's board for a reader who is not that seat
    (``you=False``): it names the seat ("P1 revealed"), never "You revealed"."""
    import re

    for steps in (0, 6, 30):
        state = _played(game, steps)
        for seat in range(state.num_seats):
            html = render_board(game, state.view(seat), seat=seat, names=["Ann", "Bea", "Cy"][:state.num_seats], you=False)
            text = re.sub(r"<[^>]+>", " ", html)
            assert not re.search(r"\bYou\b", text), (game, steps, seat, re.findall(r"[^.]*\bYou\b[^.]*", text)[:3])


def test_an_ended_match_offers_its_host_neither_cancel_nor_time_and_the_list_says_no_version(client: TestClient) -> None:
    made = create(client, "swapping", [{"name": "A"}, {"name": "B"}])
    running = client.get(f"/host/{made['id']}", params={"token": made["host_token"]}).text
    assert '<button type="button" id="cancel">' in running and '<form id="give-time" class="inline">' in running
    assert client.post(f"/api/matches/{made['id']}/cancel", params={"token": made["host_token"]}).status_code == 200
    ended = client.get(f"/host/{made['id']}", params={"token": made["host_token"]}).text
    assert '<button type="button" id="cancel" hidden>' in ended and '<form id="give-time" class="inline" hidden>' in ended
    listing = client.get("/", params={"token": made["host_token"]}).text
    assert made["id"] in listing and ", version " not in listing
