"""Every registered game has every part, found where its registry entry says.

A game is declared once (``blackwhite/engine/registry.py``) and every layer looks
its part up there.  This test loads each part of each entry the way its layer does
and fails, naming the game, the part and the name, when one is missing or is not
what its layer expects; it also fails on a part module no entry names (a game's
twins or heuristic written but never declared).
"""

from __future__ import annotations

import pkgutil
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

import tests.twins
from blackwhite.analysis.core import GameEval, eval_for
from blackwhite.bots import heuristic
from blackwhite.bots.heuristic import policy_for
from blackwhite.bots.ismcts import GameTuning, tuning_for
from blackwhite.discord_bridge.draw import DRAWERS as DISCORD_DRAWERS
from blackwhite.engine.core import Game, State
from blackwhite.engine.encoding import Encoding, encoding
from blackwhite.engine.registry import GAMES, GameEntry, declared_ids, load, make_game
from blackwhite.terminal.draw import drawer_for
from tests.twins import Twin

DECLARED = declared_ids()


def _rules(entry: GameEntry, rules: Any) -> str | None:
    if not (isinstance(rules, type) and issubclass(rules, Game)):
        return "is not a Game subclass"
    return None if rules.id == entry.id else f"is the rules of {rules.id!r}"


def _encoding(entry: GameEntry, cls: Any) -> str | None:
    if not (isinstance(cls, type) and issubclass(cls, Encoding)):
        return "is not an Encoding subclass"
    return None if type(encoding(entry.id)) is cls else "is not what encoding() gives"


def _heuristic(entry: GameEntry, module: Any) -> str | None:
    if not callable(getattr(module, "choose", None)):
        return "has no choose(view, legal, rng)"
    return None if policy_for(entry.id) is module.choose else "is not what policy_for() gives"


def _tuning(entry: GameEntry, tuning: Any) -> str | None:
    if not isinstance(tuning, GameTuning):
        return "is not a GameTuning"
    return None if tuning_for(entry.id) is tuning else "is not what tuning_for() gives"


def _drawer(entry: GameEntry, draw: Any) -> str | None:
    if not callable(draw):
        return "is not a function"
    return None if drawer_for(make_game(entry.id)) is draw else "is not what drawer_for() gives"


def _analysis(entry: GameEntry, rule: Any) -> str | None:
    if not isinstance(rule, GameEval):
        return "is not a GameEval"
    return None if eval_for(entry.id) is rule else "is not what eval_for() gives"


def _twins(entry: GameEntry, module: Any) -> str | None:
    twins = getattr(module, "TWINS", None)
    if not twins or not all(isinstance(t, Twin) for t in twins):
        return "has no TWINS (a non-empty list of Twin)"
    games = {t.a.get("game") for t in twins} | {t.b.get("game") for t in twins}
    return None if games == {entry.id} else f"holds records of {sorted(map(str, games))}"


#: part -> the check of what its name loads (``None``: as its layer expects)
CHECKS: dict[str, Callable[[GameEntry, Any], str | None]] = {
    "rules": _rules,
    "encoding": _encoding,
    "heuristic": _heuristic,
    "tuning": _tuning,
    "drawer": _drawer,
    "analysis": _analysis,
    "twins": _twins,
}


def test_every_part_of_an_entry_is_checked() -> None:
    # a part added to GameEntry must get its check here (the sampler and board apart)
    assert set(GameEntry.__dataclass_fields__) == {"id", "sampler", "board", *CHECKS}


@pytest.mark.parametrize("gid", DECLARED)
def test_a_registered_game_has_every_part(gid: str) -> None:
    entry = next(e for e in GAMES if e.id == gid)
    missing = []
    for part, check in CHECKS.items():
        ref = getattr(entry, part)
        try:
            found = load(ref)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{part} {ref!r} is not there ({type(exc).__name__}: {exc})")
            continue
        problem = check(entry, found)
        if problem:
            missing.append(f"{part} {ref!r} {problem}")
    assert not missing, f"{gid}: " + "; ".join(missing)


@pytest.mark.parametrize("gid", DECLARED)
def test_a_game_that_redraws_hidden_facts_names_its_sampler(gid: str) -> None:
    entry = next(e for e in GAMES if e.id == gid)
    state_class = type(load(entry.rules)().new_initial_state())
    own_resample = state_class.resample is not State.resample
    if entry.sampler is None:
        assert not own_resample, f"{gid} overrides resample but names no sampler"
    else:
        module = load(entry.sampler)
        assert isinstance(module, ModuleType) and callable(getattr(module, "resample", None)), (
            f"{gid}'s sampler {entry.sampler!r} has no resample(state, seat, rng)"
        )
        assert own_resample, f"{gid} names the sampler {entry.sampler!r} but keeps the default resample"


@pytest.mark.parametrize("gid", DECLARED)
def test_a_game_with_a_host_view_names_the_board_the_referee_draws(gid: str) -> None:
    entry = next(e for e in GAMES if e.id == gid)
    state = load(entry.rules)().new_initial_state()
    has_host_view = callable(getattr(state, "host_view", None))
    if entry.board is None:
        assert not has_host_view, f"{gid} has a host view but names no board drawing"
    else:
        assert has_host_view, f"{gid} names the board {entry.board!r} but has no host view"
        assert isinstance(load(entry.board)(state.host_view()), str)


def _modules_in(package: ModuleType) -> set[str]:
    return {
        f"{package.__name__}.{info.name}"
        for info in pkgutil.iter_modules([str(Path(package.__file__ or "").parent)])
    }


@pytest.mark.parametrize(
    ("package", "part"), [(tests.twins, "twins"), (heuristic, "heuristic")], ids=["twins", "heuristic"]
)
def test_every_part_module_belongs_to_a_registered_game(package: ModuleType, part: str) -> None:
    named = {getattr(e, part) for e in GAMES}
    assert _modules_in(package) - named == set()


#: parts found by a file named after the game id rather than by the entry
BY_ID = {
    "board partial of the pages": "blackwhite/web/templates/games/{}.html",
    "rules page": "docs/rules/{}.md",
}


@pytest.mark.parametrize("gid", DECLARED)
def test_a_registered_game_has_its_pages(gid: str) -> None:
    root = Path(__file__).resolve().parent.parent
    missing = [f"{what} {path.format(gid)}" for what, path in BY_ID.items() if not (root / path.format(gid)).is_file()]
    # the Discord bridge imports no engine: it draws by the game id of the views it is sent
    if gid not in DISCORD_DRAWERS:
        missing.append("Discord drawing (blackwhite.discord_bridge.draw.DRAWERS)")
    assert not missing, f"{gid}: " + "; ".join(missing)
