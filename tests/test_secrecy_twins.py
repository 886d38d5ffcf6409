"""Secrecy, tested with twins written by hand (``tests/twins/<game>.py``).

A twin is two match records that differ in a hidden fact but must look the same to
one seat (or, for seat ``None``, to everyone).  Both are replayed independently with
the engine's record functions, and then everything that seat can get from the
engine must be the same for both: its view, its ``info_key``, the worlds
``resample`` draws for it (every field, for several seeds) and every registered
bot's decision.  Nothing here builds a twin with the code under test.
"""

from __future__ import annotations

import enum
import importlib
import pkgutil
import random
from dataclasses import fields, is_dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import tests.twins
from blackwhite.bots import bot_names, decision_for, make_bot
from blackwhite.engine import State, load
from blackwhite.engine.registry import game_ids
from tests.twins import Twin

TWIN_DIR = Path(tests.twins.__file__).parent
#: core fields of a sampled world that are bookkeeping of the real match, not facts
#: of the world (search copies keep none)
DROPPED = {"log", "history", "drawn"}
SEEDS = (0, 1, 2, 7, 31)
#: fixed settings, so a decision is a function of what the bot is given; the second
#: ismcts plays the other seats and its own rollouts by the heuristic, from each
#: seat's view of the sampled worlds
BOT_SETTINGS: dict[str, list[dict[str, Any]]] = {
    "ismcts": [{"iterations": 24}, {"iterations": 8, "model": 1.0, "rollout": 1.0}],
}


def twin_modules() -> list[ModuleType]:
    names = sorted(info.name for info in pkgutil.iter_modules([str(TWIN_DIR)]))
    return [importlib.import_module(f"tests.twins.{name}") for name in names]


def all_twins() -> list[tuple[str, Twin]]:
    out = []
    for module in twin_modules():
        for twin in getattr(module, "TWINS", []):
            out.append((module.__name__.rsplit(".", 1)[1], twin))
    return out


def fields_of(value: Any, depth: int = 0) -> Any:
    """Every field of ``value`` as plain data, for comparing two states in full.

    Objects become their attribute dicts (``slots`` included), sets are sorted, so
    two states compare equal exactly when they hold the same facts, whatever objects
    they share inside.
    """
    assert depth < 50, "structure too deep to compare"
    if isinstance(value, (int, float, str, bytes, bool, type(None), enum.Enum)):
        return value
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [fields_of(v, depth + 1) for v in value])
    if isinstance(value, (set, frozenset)):
        return ("set", sorted((fields_of(v, depth + 1) for v in value), key=repr))
    if isinstance(value, dict):
        items = [(fields_of(k, depth + 1), fields_of(v, depth + 1)) for k, v in value.items()]
        return ("dict", sorted(items, key=repr))
    if callable(value) and not hasattr(value, "__dict__"):
        return ("callable", repr(value))
    attrs: dict[str, Any] = {}
    if is_dataclass(value):
        attrs.update({f.name: getattr(value, f.name) for f in fields(value)})
    attrs.update(getattr(value, "__dict__", {}))
    for cls in type(value).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(value, slot):
                attrs[slot] = getattr(value, slot)
    return (type(value).__qualname__, fields_of(attrs, depth + 1))


def world_fields(state: State) -> Any:
    return fields_of({k: v for k, v in vars(state).items() if k not in DROPPED})


def test_every_twins_module_has_twins() -> None:
    """A module with no twins (or a misspelt list) would test nothing: it fails."""
    modules = twin_modules()
    known = {gid.replace("-", "_") for gid in game_ids()}
    assert {m.__name__.rsplit(".", 1)[1] for m in modules} == known, "every game has its twins"
    for module in modules:
        name = module.__name__.rsplit(".", 1)[1]
        assert name in known, f"tests/twins/{name}.py names no game"
        twins = getattr(module, "TWINS", None)
        assert isinstance(twins, list) and twins, f"tests/twins/{name}.py has no TWINS"
        assert all(isinstance(t, Twin) for t in twins)
        assert all(load(t.a).game.id.replace("-", "_") == name for t in twins)


TWINS = all_twins()


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_look_the_same(game: str, twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    # the pair really differs (in the state, or at least in its history): a twin of
    # one match twice proves nothing
    assert fields_of(vars(a).get("history")) != fields_of(vars(b).get("history")) or world_fields(
        a
    ) != world_fields(b), f"{twin.name}: the two records give the same match"
    seat = twin.seat
    assert a.view(seat) == b.view(seat), f"{twin.name}: the view tells them apart"
    if seat is None:
        return
    assert a.info_key(seat) == b.info_key(seat), f"{twin.name}: info_key tells them apart"
    for k in SEEDS:
        wa = a.resample(seat, random.Random(k))
        wb = b.resample(seat, random.Random(k))
        assert world_fields(wa) == world_fields(wb), f"{twin.name}: resample(seed {k}) tells them apart"
        assert wa.view(seat) == wb.view(seat)


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_get_the_same_decisions(game: str, twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    seat = twin.seat
    if seat is None or seat not in a.to_move():
        pytest.skip("no seat awaited (a spectator twin, or the seat has acted): no decision to compare")
    assert seat in b.to_move()
    for name in bot_names():
        for settings in BOT_SETTINGS.get(name, [{}]):
            for k in (3, 11):
                da = make_bot(name, **settings).choose(decision_for(a, seat, random.Random(k)))
                db = make_bot(name, **settings).choose(decision_for(b, seat, random.Random(k)))
                assert da == db, f"{twin.name}: {name} {settings} decides {da} in one and {db} in the other"
