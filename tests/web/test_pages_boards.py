"""What every game's board must do, tested once for all games.

A page may show only what ``State.view`` gives it: the secrecy twins of every game
(tests/twins/), two matches that differ in a fact hidden from a seat (or from
everyone), must give that seat's board, with its legal actions, the very same HTML,
built as the server builds it, and each board must be the game's own, not an empty
shell; the seat that does know the fact gets another page, so the test can fail.
Whole random matches draw at every step for every audience, live and as a replay.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from blackwhite.engine import load, make_game
from tests.twins import Twin, all_twins
from tests.web.boards import render_as, render_every_step

TWINS = all_twins()
#: text every board of the game shows, whatever the state
BOARD_MARK = {
    "swapping": 'aria-label="Swapping board"',
    "domino": 'aria-label="Domino board"',
    "yellow": 'aria-label="Black and Yellow board"',
    "grouping": "Rounds played",
    "grouping-final": "Rounds played",
    "joust": "Lots",
    "joust-final": "Lots",
}
#: the seat names the boards are drawn with (a twin's record may name its own)
NAMES = {2: ["Sally", "Maddie"], 3: ["Ann", "Bo", "Cy"]}
#: game -> (its first twin, a seat that knows the hidden fact): P2 hid FZ (domino),
#: P1's own tiles (swapping), P1's own pending submission (yellow)
KNOWS = {"domino": 1, "swapping": 0, "yellow": 0}
#: games whose random matches are drawn at every step (no chance steps), and options
EVERY_STEP = {
    "domino": [{}, {"dmo": 1}],
    "swapping": [{}, {"show_colours": True}],
    "yellow": [{}, {"garnets": [9, 3, 45]}],
}


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_render_the_same_page(game: str, twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    gid = a.game.id
    names = list(twin.a.get("seats", NAMES[a.num_seats]))
    html_a = render_as(gid, a, twin.seat, names)
    assert html_a == render_as(gid, b, twin.seat, names), twin.name
    assert BOARD_MARK[gid] in html_a, "the page is the game's board, not an empty shell"


@pytest.mark.parametrize("gid,seat", KNOWS.items())
def test_a_twin_differs_for_the_seat_that_knows(gid: str, seat: int) -> None:
    twin = next(t for g, t in TWINS if g == gid)
    a, b = load(twin.a), load(twin.b)
    names = NAMES[a.num_seats]
    assert render_as(gid, a, seat, names) != render_as(gid, b, seat, names)


@pytest.mark.parametrize(
    "gid,options", [(g, o) for g, opts in EVERY_STEP.items() for o in opts], ids=lambda v: str(v)
)
@pytest.mark.parametrize("ending", ["played out", "resign", "timeout"])
def test_every_step_renders_for_every_audience(gid: str, options: dict[str, Any], ending: str) -> None:
    """Whole random games, every step drawn for each seat and the public, live and as a
    replay; a resignation or a timeout part way draws its outcome too."""
    names = NAMES[make_game(gid, options).num_seats]
    render_every_step(gid, options, ending, partial(render_as, gid, names=names))
