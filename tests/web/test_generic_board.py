"""A game that brings only its rules is drawn by the generic boards (pages, terminal,
Discord); a package that ships its own board partial, script and style sheet has them
used, found through its registration and never through a table keyed by game id."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from blackwhite.app import create_app
from blackwhite.discord_bridge.draw import draw_view
from blackwhite.drawing.text import generic_lines
from blackwhite.engine import face_down, face_up, registry
from blackwhite.terminal.draw import drawer_for
from blackwhite.web import render
from blackwhite.web.render import board_html, render_board
from tests.plugin_games import installed, plant
from tests.web.boards import started

EVIL = '<script>alert("x")</script>'

PLAIN = """
    from blackwhite.engine import GameEntry
    from blackwhite.games.swapping import Swapping

    class Plain(Swapping):
        '''Swapping's rules under another id, with no board, drawing or script of its own.'''
        id = "plain-swapping"
        title = "Swapping, rules only"
        action_help = {"place": "choose tiles for your row", "swap": "trade two of your tiles"}

    ENTRY = GameEntry(id="plain-swapping", rules="bw_test_plain:Plain")
"""

OWN = """
    from blackwhite.engine import GameEntry
    from blackwhite.games.swapping import Swapping

    class Own(Swapping):
        id = "own-board"
        title = "Swapping with a board of its own"

    ENTRY = GameEntry(id="own-board", rules="bw_test_own:Own", page_template="bw_test_own:board/board.html",
                      page_script="bw_test_own:board/board.js", page_style="bw_test_own:board/board.css")
    BROKEN = GameEntry(id="own-broken", rules="bw_test_own:OwnBroken", page_template="bw_test_own:board/broken.html")

    class OwnBroken(Swapping):
        id = "own-broken"
        title = "A board partial that fails"
"""


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    where = tmp_path_factory.mktemp("plugins")
    plant(where, "bw-test-plain", {"plain-swapping": "bw_test_plain:ENTRY"}, {"bw_test_plain.py": PLAIN})
    plant(where, "bw-test-own", {"own-board": "bw_test_own:ENTRY", "own-broken": "bw_test_own:BROKEN"}, {
        "bw_test_own/__init__.py": OWN,
        "bw_test_own/board/board.html": '<div class="own-board" data-phase="{{ view.phase }}">{{ your }} board</div>\n',
        "bw_test_own/board/board.js": "window.ownBoardLoaded = true;\n",
        "bw_test_own/board/board.css": ".own-board { color: red; }\n",
        "bw_test_own/board/broken.html": "{{ view.no_such_field.deeper }}\n",
    })
    with installed(where, ["bw_test_plain", "bw_test_own"]):
        yield where


def test_a_game_with_only_its_rules_gets_the_generic_board_with_labelled_buttons(plugins: Path) -> None:
    state = started("plain-swapping", 3)
    seat = state.to_move()[0]
    legal = [state.format_action(a) for a in state.legal_actions(seat)]
    html = board_html("plain-swapping", state.view(seat), seat, legal, ["Ann", "Bob"])
    assert 'class="board generic"' in html
    assert "<dt>My unplaced</dt>" in html and "my_unplaced" not in html  # field names in words
    buttons = re.findall(r'<button type="button" data-action="([^"]+)" aria-label="([^"]+)"', html)
    assert [b[0] for b in buttons] == legal
    assert all(label == f"{text}: choose tiles for your row" for text, label in buttons)
    assert "Choose tiles for your row" in html  # the group's heading, in the game's words
    assert render.game_asset("plain-swapping", "js") is None and render.game_asset("plain-swapping", "css") is None


def test_tiles_seats_and_nesting_are_drawn_in_words_and_escaped() -> None:
    view = {"game": "anything", "seat": 0, "to_move": [1], "leader": 0, "my_tiles": [face_up(4), face_up(7)],
            "led": face_down("white"), "unknown": face_down(), "rounds": [{"round": 1, "winner": None,
                                                                            "tiles": [face_up(2), face_down("black")]}],
            "done": True, "note": EVIL, "first_seat": 1, "score": [3, 1]}
    html = render_board("no-such-game", view, seat=0, names=["Ann", EVIL])
    assert EVIL not in html and "<script" not in html
    assert 'aria-label="black 4">4</span>' in html and 'aria-label="white 7">7</span>' in html
    assert 'aria-label="white tile, number hidden">?</span>' in html and 'aria-label="a face-down tile"' in html
    assert re.search(r"<dt>Leader</dt>\s*<dd>P1 Ann</dd>", html)
    assert re.search(r"<dt>To move</dt>\s*<dd>P2 &lt;script", html)
    assert re.search(r"<dt>First seat</dt>\s*<dd>P2 ", html) and re.search(r"<dt>Score</dt>\s*<dd>3, 1</dd>", html)
    assert re.search(r"<dt>Done</dt>\s*<dd>yes</dd>", html)
    assert "<dt>Winner</dt><dd>none</dd>" in html
    lines = generic_lines({k: v for k, v in view.items() if k not in ("game", "seat")}, ["Ann", "Bob"])
    assert "My tiles: black 4, white 7" in lines and "Led: white ?" in lines and "Unknown: ?" in lines
    assert "Leader: P1 Ann" in lines and "To move: P2 Bob" in lines and "Done: yes" in lines
    assert "  - round 1; winner none; tiles black 2, black ?" in lines


def test_terminal_and_discord_draw_a_rules_only_game_in_words(plugins: Path) -> None:
    state = started("plain-swapping", 3)
    view = state.view(0)
    console = Console(width=80, record=True)
    console.print(drawer_for(state.game)(view))
    text = console.export_text()
    assert "plain-swapping - what P1 knows" in text and "My unplaced:" in text
    drawn = draw_view(view, ["Ann", "Bob"])
    assert drawn.startswith("plain-swapping - what Ann knows") and "My unplaced:" in drawn
    public = draw_view(state.view(None), ["Ann", "Bob"])
    assert public.startswith("plain-swapping - what everyone knows")


def test_a_package_board_script_and_style_are_used_and_a_failing_partial_falls_back(plugins: Path) -> None:
    state = started("own-board", 0)
    html = board_html("own-board", state.view(0), 0, [], ["Ann", "Bob"])  # type: ignore[attr-defined]
    assert html.strip() == '<div class="own-board" data-phase="play">Your board</div>'
    assert render.game_asset("own-board", "js") == "/games/own-board/board.js"
    assert render.game_asset("own-board", "css") == "/games/own-board/board.css"
    broken = started("own-broken", 0)
    html = board_html("own-broken", broken.view(0), 0, [], ["Ann", "Bob"])  # type: ignore[attr-defined]
    assert 'class="board generic"' in html


def test_the_pages_serve_a_packages_assets_and_the_built_ins_through_their_entries(plugins: Path, tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'bw.db'}", bot_workers=0, clock_interval=None, rate_limit=False)
    with TestClient(app) as c:
        r = c.get("/games/own-board/board.js")
        assert r.status_code == 200 and r.text == "window.ownBoardLoaded = true;\n"
        assert r.headers["content-type"].startswith("text/javascript")
        assert c.get("/games/own-board/board.css").text == ".own-board { color: red; }\n"
        for bad in ("/games/plain-swapping/board.js", "/games/own-board/board.html", "/games/own-board/..%2F__init__.py",
                    "/games/no-such/board.js", "/games/own-board/other.js"):
            assert c.get(bad).status_code == 404, bad
        # a final shares its death match's script: its registration says so
        joust = registry.entry("joust-final").page_script
        assert joust is not None and c.get("/games/joust-final/board.js").text == registry.read_resource(joust)
        # a match of a rules-only game: the live page carries the game's words, and no script of its own
        made = c.post("/api/matches", json={"game": "plain-swapping", "seats": [{"name": "Ann"}, {"name": "Bob"}]})
        assert made.status_code in (200, 201), made.text
        body = made.json()
        page = c.get(f"/play/{body['id']}", params={"token": body["tokens"]["seats"][0]})
        assert page.status_code == 200
        assert 'class="board generic"' in page.text and "/games/plain-swapping/board.js" not in page.text
        assert '"actions": {"place": "choose tiles for your row"' in page.text or \
            '"actions":{"place":"choose tiles for your row"' in page.text
        made = c.post("/api/matches", json={"game": "own-board", "seats": [{"name": "Ann"}, {"name": "Bob"}]}).json()
        page = c.get(f"/play/{made['id']}", params={"token": made["tokens"]["seats"][0]})
        assert 'src="/games/own-board/board.js"' in page.text and 'href="/games/own-board/board.css"' in page.text
        assert 'class="own-board"' in page.text
