"""The secrecy twins of every game (tests/twins/), drawn as boards.

A page may show only what ``State.view`` gives it: two matches that differ in a
fact hidden from a seat (or from everyone) must give that seat's board, with its
legal actions, the very same HTML, built as the server builds it.  Each board must
be the game's own, not an empty shell.  (Each game's board tests show, on one twin,
that the seat that knows the fact does get another page: the test can fail.)
"""

from __future__ import annotations

import pytest

from blackwhite.engine import load
from tests.twins import Twin, all_twins
from tests.web.boards import render_as

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


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_render_the_same_page(game: str, twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    gid = a.game.id
    names = list(twin.a.get("seats", ["Sally", "Maddie", "Ann"][: a.num_seats]))
    html_a = render_as(gid, a, twin.seat, names)
    assert html_a == render_as(gid, b, twin.seat, names), twin.name
    assert BOARD_MARK[gid] in html_a, "the page is the game's board, not an empty shell"
