"""Secrecy, tested with twins written by hand (``tests/twins/<game>.py``).

A twin is two match records that differ in a hidden fact but must look the same to
one seat (or, for seat ``None``, to everyone).  Both are replayed independently with
the engine's record functions, and then everything that seat can get from the
engine must be the same for both: its view, its ``info_key``, the worlds
``resample`` draws for it (every field and every byte, for several seeds), its legal
actions, its game's heuristic policy and every registered bot's decision.  Nothing
here builds a twin with the code under test.
"""

from __future__ import annotations

import enum
import pickle
import random
from dataclasses import fields, is_dataclass
from typing import Any

import pytest

from blackwhite.bots import bot_names, decision_for, make_bot
from blackwhite.bots.heuristic import policy_for
from blackwhite.engine import State, load
from blackwhite.engine.registry import game_ids
from tests.twins import Twin, all_twins, twin_modules

#: core fields of a sampled world that are bookkeeping of the real match, not facts
#: of the world (search copies keep none)
DROPPED = {"log", "history", "drawn"}
SEEDS = (0, 1, 2, 3, 4, 5, 7, 31)
#: seeds of the bots' own generators in the decision test
BOT_SEEDS = (0, 1, 3, 11)
#: fixed settings, so a decision is a function of what the bot is given; the second
#: ismcts plays the other seats and its own rollouts by the heuristic, from each
#: seat's view of the sampled worlds
BOT_SETTINGS: dict[str, list[dict[str, Any]]] = {
    "ismcts": [{"iterations": 24}, {"iterations": 8, "model": 1.0, "rollout": 1.0}, {"iterations": 40}],
}
#: domino's info_key reads the seat's own hand, so it has no spectator key
NO_PUBLIC_INFO_KEY = {"domino"}
#: seat twins that end where their seat is not asked: their views and worlds are
#: compared, there is no decision to compare (every other seat twin is asked)
UNASKED = {("domino", "P1's hidden CZ and EY (3, 0 or 1, 4)")}


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


def _pickled_worlds_agree(x: State, y: State, what: str) -> None:
    """Two worlds equal byte for byte; on failure, name the fields that differ."""
    assert not x.log and not x.history and not y.log and not y.history, "search copies keep neither"
    if pickle.dumps(x) != pickle.dumps(y):
        differ = sorted(
            name for name in vars(x).keys() | vars(y).keys()
            if pickle.dumps(vars(x).get(name)) != pickle.dumps(vars(y).get(name))
        )
        pytest.fail(f"{what}: the worlds differ in {differ}")


def test_every_twins_module_has_twins() -> None:
    """A module with no twins (or a misspelt list) would test nothing: it fails."""
    from blackwhite.engine.registry import entry, provider

    modules = twin_modules()
    known = {gid.replace("-", "_") for gid in game_ids()}
    # the built-ins keep hand-made twins beside the kit's generic secrecy checks
    built_in = {gid for gid in game_ids() if provider(gid) == "blackwhite"}
    assert all(entry(gid).twins == f"tests.twins.{gid.replace('-', '_')}" for gid in built_in)
    assert {m.__name__.rsplit(".", 1)[1] for m in modules} >= {g.replace("-", "_") for g in built_in}
    for module in modules:
        name = module.__name__.rsplit(".", 1)[1]
        assert name in known, f"tests/twins/{name}.py names no game"
        twins = getattr(module, "TWINS", None)
        assert isinstance(twins, list) and twins, f"tests/twins/{name}.py has no TWINS"
        assert all(isinstance(t, Twin) for t in twins)
        assert all(load(t.a).game.id.replace("-", "_") == name for t in twins)


TWINS = all_twins()
SEAT_TWINS = [(g, t) for g, t in TWINS if t.seat is not None]


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_look_the_same(game: str, twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    # the pair really differs (in the state, or at least in its history): a twin of
    # one match twice proves nothing
    assert fields_of(vars(a).get("history")) != fields_of(vars(b).get("history")) or world_fields(
        a
    ) != world_fields(b), f"{twin.name}: the two records give the same match"
    assert pickle.dumps(a) != pickle.dumps(b) and a.to_record() != b.to_record()
    seat = twin.seat
    assert a.view(seat) == b.view(seat), f"{twin.name}: the view tells them apart"
    if seat is None:
        if game not in NO_PUBLIC_INFO_KEY:
            assert a.info_key(seat) == b.info_key(seat)  # type: ignore[arg-type]
        return
    assert a.info_key(seat) == b.info_key(seat), f"{twin.name}: info_key tells them apart"
    for k in SEEDS:
        wa = a.resample(seat, random.Random(k))
        wb = b.resample(seat, random.Random(k))
        assert world_fields(wa) == world_fields(wb), f"{twin.name}: resample(seed {k}) tells them apart"
        _pickled_worlds_agree(wa, wb, f"{twin.name}: resample({seat}, Random({k}))")
        assert wa.view(seat) == wb.view(seat)


@pytest.mark.parametrize("game,twin", SEAT_TWINS, ids=[f"{g}: {t.name}" for g, t in SEAT_TWINS])
def test_twins_get_the_same_decisions(game: str, twin: Twin) -> None:
    a, b = load(twin.a), load(twin.b)
    seat = twin.seat
    assert seat is not None
    if (game, twin.name) in UNASKED:
        assert seat not in a.to_move()
        pytest.skip("the seat is not asked at the end of this twin: no decision to compare")
    assert seat in a.to_move() and a.to_move() == b.to_move(), "each seat twin ends on its seat's decision"
    legal = a.legal_actions(seat)
    assert legal == b.legal_actions(seat)
    policy = policy_for(a.game.id)
    if policy is not None:
        for k in range(3):
            assert policy(a.view(seat), legal, random.Random(k)) == policy(b.view(seat), legal, random.Random(k))
    for name in bot_names():
        for settings in BOT_SETTINGS.get(name, [{}]):
            for k in BOT_SEEDS:
                da = make_bot(name, **settings).choose(decision_for(a, seat, random.Random(k)))
                db = make_bot(name, **settings).choose(decision_for(b, seat, random.Random(k)))
                assert da == db, f"{twin.name}: {name} {settings} decides {da} in one and {db} in the other"


def test_the_unasked_twins_are_named_right() -> None:
    """An entry of UNASKED that names no twin would excuse nothing and hide a typo."""
    assert UNASKED <= {(g, t.name) for g, t in SEAT_TWINS}
