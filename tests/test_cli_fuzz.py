"""Fuzz ``blackwhite referee``: random bytes, random JSON, record-shaped JSON and
mutations of the example records.  Every run ends with exit 0 or 2 and, under
``--json``, exactly one JSON object; never a traceback, and never the command's
last-resort "internal error" answer (which would hide a bug in the engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from blackwhite.cli import app
from blackwhite.engine.registry import game_ids

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "examples").glob("*.json"))}
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check(data: bytes) -> None:
    runner = CliRunner()
    for args in (["referee", "-", "--json"], ["referee", "-"]):
        result = runner.invoke(app, args, input=data)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception  # a traceback a user would have seen
        assert result.exit_code in (0, 2), (result.exit_code, result.output)
        assert "internal error" not in result.output, result.output
        if "--json" in args:
            lines = result.output.strip().splitlines()
            assert len(lines) == 1, result.output
            out = json.loads(lines[0])
            assert isinstance(out, dict)
            if result.exit_code == 2:
                assert set(out) == {"error"} and set(out["error"]) == {"event", "message"}
            else:
                assert {"game", "finished", "winner", "scores"} <= set(out)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)

WORDS = [
    "place", "swap", "reveal", "play", "boost", "exchange", "group", "raise", "call", "fold", "go", "first",
    "second", "bid", "next", "minute", "balance", "giant", "keep", "from", "pass", "resign", "timeout", "peek",
    "order", "propose", "ante", "accept", "decline", "inversion", "equaliser", "conceal", "hide", "A=0,1",
    "B=2,3,4", "C=5,6,7,8", "(0,5)", "HR:IR", "IR", "0", "1", "2", "3", "8", "9", "13", "-1", "99", "1.4",
    "2.leftover", "[/]", "[bold]", "\udc80", "\x00", "٣",
]
actions = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
events = st.one_of(
    st.fixed_dictionaries({"seat": st.integers(-1, 3), "action": actions}),
    st.fixed_dictionaries({"seat": json_values, "action": json_values}),
    st.builds(lambda kind, data: {"chance": kind, **data},
              st.sampled_from(["deal", "lots", "order", "shuffle", "first"]) | st.text(max_size=5),
              st.dictionaries(st.sampled_from(["seat", "tiles", "order", "lots", "deal"]), json_values, max_size=3)),
    json_values,
)
records = st.fixed_dictionaries(
    {"game": st.sampled_from(game_ids()) | st.text(max_size=6)},
    optional={
        "format": st.just("blackwhite-record/1") | json_values,
        "options": st.dictionaries(st.sampled_from(["dmo", "chips", "items", "show_colours", "garnets", "x"]),
                                   json_values, max_size=3) | json_values,
        "seats": st.lists(st.text(max_size=6) | st.sampled_from(["P1", "P2", "[/]", "\udc80"]), max_size=4)
        | json_values,
        "seed": st.integers() | json_values,
        "events": st.lists(events, max_size=12),
    },
)


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    check(data)


@FUZZ
@given(json_values)
def test_random_json(value: Any) -> None:
    check(json.dumps(value).encode())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records)
def test_record_shaped_json(record: dict[str, Any]) -> None:
    check(json.dumps(record).encode())


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, here + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, here + (i,))
    return out


@st.composite
def mutated_examples(draw: st.DrawFn) -> bytes:
    """An example record with one to three changes: a value replaced or removed, an
    event dropped, repeated or moved, the events cut short; or its bytes changed."""
    record = json.loads(json.dumps(EXAMPLES[draw(st.sampled_from(sorted(EXAMPLES)))]))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["replace", "remove", "drop", "repeat", "move", "cut", "action"]))
        events = record.get("events") if isinstance(record, dict) else None
        if how in ("drop", "repeat", "move", "cut", "action") and isinstance(events, list) and events:
            i = draw(st.integers(0, len(events) - 1))
            if how == "drop":
                del events[i]
            elif how == "repeat":
                events.insert(i, events[i])
            elif how == "move":
                events.insert(draw(st.integers(0, len(events) - 1)), events.pop(i))
            elif how == "cut":
                del events[i:]
            elif isinstance(events[i], dict) and "action" in events[i]:
                events[i]["action"] = draw(actions)
            continue
        path = draw(st.sampled_from(_paths(record)))
        if not path:
            continue
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        if how == "remove":
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(json_values | st.integers(-3, 14))
    data = json.dumps(record).encode()
    if draw(st.booleans()) and data:
        i = draw(st.integers(0, len(data) - 1))
        data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1:]
    return data


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_examples())
def test_mutated_examples(data: bytes) -> None:
    check(data)


def test_the_examples_themselves_pass_the_check() -> None:
    for record in EXAMPLES.values():
        check(json.dumps(record).encode())


def test_a_lone_surrogate_is_refused_as_a_record_error() -> None:
    """JSON can escape a lone surrogate, which is no character: a seat name or an action
    holding one is refused (exit 2) in both modes; the text mode used to fail writing it
    out as UTF-8 (hypothesis found ``"seats": ["", "\\udc80"]``)."""
    for data in (b'{"game": "swapping", "seats": ["", "\\udc80"]}',
                 b'{"game": "yellow", "events": [{"seat": 0, "action": "play \\ud800"}]}',
                 b'{"game": "domino", "options": {"\\udfff": 1}}'):
        check(data)
        for args in (["referee", "-", "--json"], ["referee", "-"]):
            result = CliRunner().invoke(app, args, input=data)
            assert result.exit_code == 2 and "lone surrogate" in result.output, result.output
