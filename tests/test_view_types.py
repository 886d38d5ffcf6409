"""Every view the engine builds has its declared type (``blackwhite/views``).

mypy checks the readers (heuristics, drawings) against the declarations; this checks
the declarations against the views the engine really builds.  In random matches of
every game, the public view and each seat's view at every step are walked against the
type the game's state class names (``State[SwappingView]``): no undeclared key, every
required key present, every value of its declared type, nested types included.  The
pages' board partials, which mypy cannot read, are held to the declared keys too."""

from __future__ import annotations

import functools
import random
import re
import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import jinja2
import pytest
from jinja2 import nodes

from blackwhite.engine import game_ids, make_game
from blackwhite.engine.registry import entry
from blackwhite.engine.core import State
from blackwhite.engine.play import random_step
from blackwhite.web.render import TEMPLATES
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
    if tp is Any and not entry(gid).rules.startswith("blackwhite."):
        pytest.skip(f"{gid} is an outside game typed State[Any], as docs/designing-a-game.md allows")
    assert tp is not Any, f"{gid}: blackwhite's own games declare their views"
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


def _template_reads(source: str) -> set[str]:
    """The keys a board template reads from ``view`` directly (``view.phase``,
    ``view["items"]``, ``view.get("target", 9)``)."""
    tree = jinja2.Environment().parse(source)
    keys: set[str] = set()
    for node in tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Call)):
        if isinstance(node, nodes.Call):
            target = node.node
            if (isinstance(target, nodes.Getattr) and target.attr == "get" and isinstance(target.node, nodes.Name)
                    and target.node.name == "view" and node.args and isinstance(node.args[0], nodes.Const)):
                keys.add(node.args[0].value)
            continue
        if not (isinstance(node.node, nodes.Name) and node.node.name == "view"):
            continue
        if isinstance(node, nodes.Getattr):
            if node.attr != "get":  # the dict's method, read above with its key
                keys.add(node.attr)
        elif isinstance(node.arg, nodes.Const):
            keys.add(node.arg.value)
    return keys


def _declared_keys(tp: Any) -> set[str]:
    options = get_args(tp) if get_origin(tp) in (Union, types.UnionType) else (tp,)
    return {k for option in options for k in option.__annotations__}


@pytest.mark.parametrize("gid", game_ids())
def test_board_templates_read_only_declared_keys(gid: str) -> None:
    """The pages' board partials are Jinja, which mypy does not read: their reads of
    ``view`` are checked against the game's view type here, so a misspelt key fails
    a test (the partial of a final may only include its death match's)."""
    path = TEMPLATES / "games" / f"{gid}.html"
    if not path.is_file():
        pytest.skip(f"{gid} has no board partial")
    declared = _declared_keys(declared_view(make_game(gid).new_initial_state()))
    source = path.read_text(encoding="utf-8")
    included = [TEMPLATES / name for name in re.findall(r'{%-?\s*include\s+"([^"]+)"', source)]
    reads = set().union(*(_template_reads(p.read_text(encoding="utf-8")) for p in [path, *included]))
    assert reads, f"{path.name} reads nothing from view"
    assert reads <= declared, f"{path.name} reads undeclared keys {sorted(reads - declared)}"


def test_the_template_check_can_fail() -> None:
    assert _template_reads('{{ view.phase }} {{ view["items"].held }} {{ view.get("target", 9) }} '
                           '{% for c in view.my_row %}{{ c.tile }}{% endfor %}') == {
        "phase", "items", "target", "my_row"}
    assert not _template_reads("{{ other.phase }}")
    assert "their_reveald" not in _declared_keys(SwappingView)
