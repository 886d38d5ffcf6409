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

import random
import re
from functools import partial
from typing import Any

import pytest

from blackwhite.engine import State, game_class, game_ids, load, make_game
from blackwhite.engine.core import SamplingError, replay_world, was_told
from blackwhite.web.render import has_partial
from tests.twins import Twin, all_twins
from tests.web.boards import random_play, render_as, render_every_step

TWINS = all_twins()
#: every installed game: the built-ins and any package's (the worked example's too)
GAMES = game_ids()
#: the seat names the boards are drawn with (a twin's record may name its own)
NAMES = {2: ["Sally", "Maddie"], 3: ["Ann", "Bo", "Cy"]}


def names_for(seats: int) -> list[str]:
    return NAMES.get(seats, [f"Seat {s + 1}" for s in range(seats)])


def own_board(gid: str, html: str) -> None:
    """The page is the game's board: its own partial where the package ships one (not
    the generic board, and not an empty shell), else the generic board."""
    generic = 'class="board generic"' in html
    if has_partial(gid):
        assert not generic, f"{gid} ships a board of its own, yet the generic one was drawn"
        assert len(re.sub(r"<[^>]*>|\s+", "", html)) > 40, "the page is the game's board, not an empty shell"
    else:
        assert generic, f"{gid} ships no board: the generic one is drawn"


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_render_the_same_page(game: str, twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    gid = a.game.id
    names = list(twin.a.get("seats", names_for(a.num_seats)))
    html_a = render_as(gid, a, twin.seat, names)
    assert html_a == render_as(gid, b, twin.seat, names), twin.name
    own_board(gid, html_a)


@pytest.mark.parametrize("gid", sorted({g for g, _ in TWINS}))
def test_a_twin_differs_for_a_seat_that_knows(gid: str) -> None:
    """Some seat (or the public) knows what one of the game's twins hides from another,
    and its page shows it: the twins test above can fail."""
    for game, twin in TWINS:
        if game != gid:
            continue
        a, b = load(twin.a), load(twin.b)
        names = names_for(a.num_seats)
        for seat in [*range(a.num_seats), None]:
            if render_as(gid, a, seat, names) != render_as(gid, b, seat, names):
                return
    pytest.fail(f"no page of any seat of {gid} shows what its twins hide")


@pytest.mark.parametrize("gid", GAMES)
def test_worlds_a_seat_cannot_tell_apart_draw_the_same_page(gid: str) -> None:
    """Every installed game, with or without twins of its own: the match redrawn for a seat
    from what it was told (the kit's ``told`` worlds) draws that seat the same page."""
    rng = random.Random(5)
    met = 0
    for steps in (3, 7, 12):
        state = random_play(gid, steps, steps)
        names = names_for(state.num_seats)
        for seat in [*range(state.num_seats), None]:
            if any(s != seat for s in state.pending):
                continue  # another seat's pending choice: the pages' own test covers it
            try:
                world = replay_world(state, seat, rng, was_told, particles=1, budget=2000,
                                     truth_as_candidate=True)
            except SamplingError:
                continue
            html = render_as(gid, state, seat, names)
            assert html == render_as(gid, world, seat, names), (steps, seat)
            own_board(gid, html)
            met += 1
    assert met, f"no world of {gid} was redrawn: the test saw nothing"


def _every_step_runs() -> list[tuple[str, dict[str, Any], str]]:
    """Each installed game played out with its default options and with the first variant
    it declares; resigned and timed out part way in its small variant (the quick one)."""
    out = []
    for gid in GAMES:
        cls = game_class(gid)
        out += [(gid, {}, "played out"), *((gid, dict(v), "played out") for v in cls.variants[:1])]
        out += [(gid, dict(cls.small_options), ending) for ending in ("resign", "timeout")]
    return out


@pytest.mark.parametrize("gid,options,ending", _every_step_runs(), ids=lambda v: str(v))
def test_every_step_renders_for_every_audience(gid: str, options: dict[str, Any], ending: str) -> None:
    """Whole random games, every step drawn for each seat and the public, live and as a
    replay; a resignation or a timeout part way draws its outcome too."""
    names = names_for(make_game(gid, options).num_seats)
    render_every_step(gid, options, ending, partial(render_as, gid, names=names))


#: seat names that would be markup if a board did not escape them
HOSTILE = ["<script>alert(1)</script> a&b", 'a"b<img src=x onerror=alert(2)> x" onmouseover="y <b onmouseover=y()>',
           '"q"']
@pytest.mark.parametrize("gid", GAMES)
def test_names_are_escaped_on_every_board(gid: str) -> None:
    states: list[State] = [random_play(gid, 1, steps) for steps in (2, 9)]
    states += [load(t.a) for g, t in TWINS if g == gid][:1]
    for state in states:
        names = HOSTILE[: state.num_seats]
        for seat in [None, *range(state.num_seats)]:
            html = render_as(gid, state, seat, names)
            assert "<script>" not in html and "<img" not in html and "<b " not in html, seat
            assert 'onmouseover="y' not in html, seat
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "a&amp;b" in html, seat
