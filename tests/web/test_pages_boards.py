"""What every game's board must do, tested once for all games.

A page may show only what ``State.view`` gives it: the secrecy twins of every game
(tests/twins/), two matches that differ in a fact hidden from a seat (or from
everyone), must give that seat's board, with its legal actions, the very same HTML,
built as the server builds it, and each board must be the game's own, not an empty
shell; the seat that does know the fact gets another page, so the test can fail.
Whole random matches draw at every step for every audience, live and as a replay.
Seat names are text, escaped on every board.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from blackwhite.engine import State, load, make_game
from tests.twins import Twin, all_twins
from tests.web.boards import random_play, render_as, render_every_step
from tests.web.test_game_grouping import _betting_round_two
from tests.web.test_game_joust import WHOLE_SET
from tests.web.test_game_joust import _state as joust_state

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


#: seat names that would be markup if a board did not escape them
HOSTILE = ["<script>alert(1)</script> a&b", 'a"b<img src=x onerror=alert(2)> x" onmouseover="y <b onmouseover=y()>',
           '"q"']
#: a state of each game whose board shows the names (the one its own board tests drew)
NAMED_STATES = {
    "domino": lambda: random_play("domino", 1, 3),
    "swapping": lambda: random_play("swapping", 1, 2),
    "yellow": lambda: random_play("yellow", 1, 3),
    "grouping": _betting_round_two,
    "joust": lambda: joust_state(*WHOLE_SET),
}


@pytest.mark.parametrize("gid", BOARD_MARK)
def test_names_are_escaped_on_every_board(gid: str) -> None:
    first_twin = next(t for g, t in TWINS if g == gid)
    states: list[State] = [load(first_twin.a)]
    if gid in NAMED_STATES:
        states.append(NAMED_STATES[gid]())
    for state in states:
        names = HOSTILE[: state.num_seats]
        for seat in [None, *range(state.num_seats)]:
            html = render_as(gid, state, seat, names)
            assert "<script>" not in html and "<img" not in html and "<b " not in html, seat
            assert 'onmouseover="y' not in html, seat
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "a&amp;b" in html, seat
