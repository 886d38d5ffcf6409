"""The small block writers the encodings share (``blackwhite.games.tensor_layout``):
what each writes, and that a view that does not fit its layout is refused by name
rather than written into the next block."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from blackwhite.engine import make_game
from blackwhite.engine.encoding import encoding
from blackwhite.engine.play import random_step
from blackwhite.games.tensor_layout import colour, one_hot, side, side_values


def test_one_hot_writes_at_its_index_and_refuses_outside_the_block() -> None:
    out: dict[int, float] = {}
    one_hot(out, 10, 0, 3)
    one_hot(out, 20, 2, 3)
    assert out == {10: 1.0, 22: 1.0}
    for bad in (-1, 3):
        with pytest.raises(ValueError, match=rf"tile {bad} outside a one-hot block of 3 \(0..2\)"):
            one_hot(out, 30, bad, 3, "tile")
    assert out == {10: 1.0, 22: 1.0}


def test_side_is_seen_from_the_observing_seat() -> None:
    for a in (0, 1):
        out: dict[int, float] = {}
        side(out, 0, a, a)
        side(out, 2, 1 - a, a)
        side(out, 4, None, a)
        assert out == {0: 1.0, 3: 1.0}


def test_side_values_divide_and_leave_zeros_unwritten() -> None:
    out: dict[int, float] = {}
    side_values(out, 0, [3, 0], 1, 4)
    side_values(out, 2, [3, 5], 0, 4)
    assert out == {1: 0.75, 2: 0.75, 3: 1.25}


def test_colour_flags_black_or_white_and_refuses_other_names() -> None:
    out: dict[int, float] = {}
    colour(out, 0, "black")
    colour(out, 2, "white")
    colour(out, 4, None)
    assert out == {0: 1.0, 3: 1.0}
    with pytest.raises(ValueError, match="colour 'grey' is not black or white"):
        colour(out, 6, "grey")


def _late_view(gid: str, seat: int, ready: Any) -> dict[str, Any]:
    """A deep copy of ``seat``'s view at the first step of a seeded random match where
    ``ready(view)`` holds (for breaking one field)."""
    game = make_game(gid)
    state = game.new_initial_state()
    rng = random.Random(3)
    while not state.is_over():
        view = state.view(seat)
        if ready(view):
            return copy.deepcopy(view)
        random_step(state, rng)
    raise AssertionError(f"no view of {gid} met the condition")


def test_domino_refuses_a_number_outside_its_halves() -> None:
    view = _late_view("domino", 0, lambda v: any(c and c["number"] is not None for c in v["board"].values()))
    cell = next(c for c in view["board"].values() if c is not None and c["number"] is not None)
    cell["number"] = 99
    with pytest.raises(ValueError, match="number 99 outside a one-hot block"):
        encoding(make_game("domino")).observation_entries(view)


def test_swapping_refuses_a_tile_outside_the_set() -> None:
    view = _late_view("swapping", 0, lambda v: any(c and c["tile"] is not None for c in v["my_row"]))
    cell = next(c for c in view["my_row"] if c is not None and c["tile"] is not None)
    cell["tile"] = 9
    with pytest.raises(ValueError, match="tile 9 outside a one-hot block of 9"):
        encoding(make_game("swapping")).observation_entries(view)


def test_grouping_refuses_a_colour_it_does_not_know() -> None:
    view = _late_view("grouping", 0, lambda v: bool(v["rounds"]))
    view["rounds"][0]["colours"] = ["grey", "black"]
    with pytest.raises(ValueError, match="colour 'grey'"):
        encoding(make_game("grouping")).observation_entries(view)
