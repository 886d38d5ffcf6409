"""Every view the engine builds has its declared type (``blackwhite/views``).

mypy checks the readers (heuristics, drawings) against the declarations; this checks
the declarations against the views the engine really builds.  In random matches of
every game, the public view and each seat's view at every step are walked against the
type the game's state class names (``State[SwappingView]``): no undeclared key, every
required key present, every value of its declared type, nested types included."""

from __future__ import annotations

import functools
import random
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from blackwhite.engine import game_ids, make_game
from blackwhite.engine.core import State
from blackwhite.engine.play import random_step
from blackwhite.views.domino import DominoBoard
from blackwhite.views.swapping import SwappingView

MATCHES = 2


def declared_view(state: State) -> Any:
    """The view type ``state``'s class names as ``State[...]``."""
    for klass in type(state).__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            if get_origin(base) is State:
                return get_args(base)[0]
    raise AssertionError(f"{type(state).__name__} names no view type")


def problems(value: Any, tp: Any, path: str = "view") -> list[str]:
    """Where ``value`` departs from the type ``tp`` (empty: it fits)."""
    origin = get_origin(tp)
    if tp is Any:
        return []
    if tp is type(None):
        return [] if value is None else [f"{path}: {value!r} is not None"]
    if origin is Union or origin is types.UnionType:
        found = [problems(value, option, path) for option in get_args(tp)]
        return [] if any(not f for f in found) else min(found, key=len)
    if origin is Literal:
        if any(value == a and type(value) is type(a) for a in get_args(tp)):
            return []
        return [f"{path}: {value!r} is none of {get_args(tp)}"]
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: a {type(value).__name__}, not a {tp.__name__}"]
        out = [f"{path}: {k!r} is not declared in {tp.__name__}" for k in value if k not in tp.__annotations__]
        out += [f"{path}: {tp.__name__} requires {k!r}" for k in sorted(tp.__required_keys__) if k not in value]
        hints = _hints(tp)
        for k, v in value.items():
            if k in hints:
                out += problems(v, hints[k], f"{path}.{k}")
        return out
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: a {type(value).__name__}, not a list"]
        (item,) = get_args(tp)
        return [p for i, v in enumerate(value) for p in problems(v, item, f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: a {type(value).__name__}, not a dict"]
        key_type, value_type = get_args(tp)
        return [p for k, v in value.items()
                for p in problems(k, key_type, f"{path} key") + problems(v, value_type, f"{path}[{k!r}]")]
    if tp in (int, str, bool):  # exact: True is not a number of tiles
        return [] if type(value) is tp else [f"{path}: {value!r} is not a {tp.__name__}"]
    raise AssertionError(f"{path}: this test does not know the type {tp!r}")


@functools.cache
def _hints(tp: Any) -> dict[str, Any]:
    return get_type_hints(tp)


@pytest.mark.parametrize("gid", game_ids())
def test_every_view_has_its_declared_type(gid: str) -> None:
    game = make_game(gid)
    tp = declared_view(game.new_initial_state())
    assert tp is not Any
    checked = 0
    for seed in range(MATCHES):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while True:
            for seat in [None, *range(state.num_seats)]:
                found = problems(state.view(seat), tp, f"{gid} seed {seed} view({seat})")
                assert not found, "\n".join(found[:10])
                checked += 1
            if state.is_over():
                break
            random_step(state, rng)
    assert checked > 10 * MATCHES


def test_the_domino_host_view_is_a_board() -> None:
    rng = random.Random(5)
    state = make_game("domino").new_initial_state()
    while not state.is_over():
        random_step(state, rng)
        assert not problems(state.host_view(), DominoBoard, "host_view")


def test_the_check_can_fail() -> None:
    view = make_game("swapping").new_initial_state().view(0)
    assert not problems(view, SwappingView)
    assert problems({**view, "their_reveald": []}, SwappingView) == [
        "view: 'their_reveald' is not declared in SwappingView"]
    missing = dict(view)
    del missing["phase"]
    assert problems(missing, SwappingView) == ["view: SwappingView requires 'phase'"]
    assert problems({**view, "phase": "swapping"}, SwappingView) == [
        "view.phase: 'swapping' is none of ('play', 'swap', 'reveal', 'over')"]
    assert problems({**view, "ties": True}, SwappingView) == ["view.ties: True is not a int"]
    assert problems({**view, "my_row": [{"tile": 3}]}, SwappingView)
