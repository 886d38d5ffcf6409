"""Every installed game has every part it names, found where its entry says; a broken
registration is reported and skipped, never taking the others down.

Games are found through the entry-point group ``blackwhite.games`` (the built-ins from
blackwhite's own pyproject.toml, any other from its own package), so these tests run
over whatever is installed, never over a list.  A part a game does not name is optional
(its layer falls back to a generic one); a part it names must load and be what its
layer expects, and this test fails naming the game, the part and the name otherwise.
"""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import pytest

import tests.twins
from blackwhite.analysis.core import GameEval, eval_for
from blackwhite.bots import heuristic
from blackwhite.bots.heuristic import policy_for
from blackwhite.bots.ismcts import GameTuning, tuning_for
from blackwhite.engine import registry
from blackwhite.engine.core import Game, State
from blackwhite.engine.encoding import Encoding, encoding
from blackwhite.engine.registry import GameEntry, entries, entry, game_ids, load, make_game
from blackwhite.terminal.draw import drawer_for
from tests.plugin_games import installed, plant
from tests.twins import Twin

INSTALLED = game_ids()
ROOT = Path(__file__).resolve().parent.parent


def _rules(gid: str, rules: Any) -> str | None:
    if not (isinstance(rules, type) and issubclass(rules, Game)):
        return "is not a Game subclass"
    return None if rules.id == gid else f"is the rules of {rules.id!r}"


def _encoding(gid: str, cls: Any) -> str | None:
    if not (isinstance(cls, type) and issubclass(cls, Encoding)):
        return "is not an Encoding subclass"
    return None if type(encoding(gid)) is cls else "is not what encoding() gives"


def _heuristic(gid: str, module: Any) -> str | None:
    if not callable(getattr(module, "choose", None)):
        return "has no choose(view, legal, rng)"
    return None if policy_for(gid) is module.choose else "is not what policy_for() gives"


def _drawer(gid: str, draw: Any) -> str | None:
    if not callable(draw):
        return "is not a function"
    return None if drawer_for(make_game(gid)) is draw else "is not what drawer_for() gives"


def _text_drawer(gid: str, draw: Any) -> str | None:
    from blackwhite.discord_bridge.draw import _drawer as text_drawer_for

    if not callable(draw):
        return "is not a function"
    return None if text_drawer_for(gid) is draw else "is not what the Discord bridge draws with"


def _twins(gid: str, module: Any) -> str | None:
    twins = getattr(module, "TWINS", None)
    if not twins or not all(isinstance(t, Twin) for t in twins):
        return "has no TWINS (a non-empty list of Twin)"
    games = {t.a.get("game") for t in twins} | {t.b.get("game") for t in twins}
    return None if games == {gid} else f"holds records of {sorted(map(str, games))}"


def _sampler(gid: str, module: Any) -> str | None:
    if not callable(getattr(module, "resample", None)):
        return "has no resample(state, seat, rng)"
    return None if make_game(gid).entry_sampler == entry(gid).sampler else "is not what the rules draw with"


#: named part -> the check of what its name loads (``None``: as its layer expects)
CHECKS: dict[str, Callable[[str, Any], str | None]] = {
    "rules": _rules,
    "encoding": _encoding,
    "heuristic": _heuristic,
    "drawer": _drawer,
    "text_drawer": _text_drawer,
    "twins": _twins,
    "sampler": _sampler,
}
#: parts that are data or files, checked by their own tests below
#: (the page files in tests/web/test_pages_render.py)
OTHER_PARTS = {"id", "rules_page", "tuning", "analysis", "board", "page_template", "page_script", "page_style"}


def test_every_part_of_an_entry_is_checked() -> None:
    # a part added to GameEntry must get its check here
    assert set(GameEntry.__dataclass_fields__) == set(CHECKS) | OTHER_PARTS


def test_the_built_in_games_are_installed_through_their_entry_points() -> None:
    import importlib.metadata

    own = {ep.name: ep.value for ep in importlib.metadata.entry_points(group=registry.GROUP)
           if ep.dist is not None and ep.dist.name == "blackwhite"}
    assert own, "blackwhite's own games are not registered: reinstall it (pip install -e .)"
    assert set(own) <= set(INSTALLED)
    for gid, value in own.items():
        assert load(value) is entry(gid)
        assert entry(gid).rules.startswith("blackwhite.games.")
    assert registry.broken() == []


def test_game_ids_come_in_id_order_and_each_entry_once() -> None:
    assert INSTALLED == sorted(INSTALLED)
    assert [e.id for e in entries()] == INSTALLED


@pytest.mark.parametrize("gid", INSTALLED)
def test_an_installed_game_has_every_part_it_names(gid: str) -> None:
    found_entry = entry(gid)
    missing = []
    for part, check in CHECKS.items():
        ref = getattr(found_entry, part)
        if ref is None:
            continue
        try:
            found = load(ref)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{part} {ref!r} is not there ({type(exc).__name__}: {exc})")
            continue
        problem = check(gid, found)
        if problem:
            missing.append(f"{part} {ref!r} {problem}")
    assert not missing, f"{gid}: " + "; ".join(missing)


@pytest.mark.parametrize("gid", INSTALLED)
def test_an_installed_game_ships_its_rules_page(gid: str) -> None:
    text = registry.rules_markdown(gid)
    assert text is not None, f"{gid}: its rules page {entry(gid).rules_page!r} cannot be read"
    assert text.lstrip().startswith("# "), f"{gid}: a rules page starts with its title"


@pytest.mark.parametrize("gid", INSTALLED)
def test_tuning_and_analysis_settings_are_what_their_layers_take(gid: str) -> None:
    assert isinstance(tuning_for(gid), GameTuning)
    assert isinstance(eval_for(gid), GameEval)
    for ref in (tuning_for(gid).worlds_by, tuning_for(gid).state_policy, tuning_for(gid).state_explain):
        if ref is not None:
            assert callable(load(ref)), f"{gid}: tuning names {ref!r}, which is not a function"


def test_a_misspelt_setting_is_refused_naming_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from blackwhite.analysis import core as analysis_core
    from blackwhite.bots import ismcts

    gid = INSTALLED[0]
    bad = dataclasses.replace(entry(gid), tuning={"horizn": 3}, analysis={"scael": 1.0})
    monkeypatch.setattr(registry, "declared", lambda g: bad if g == gid else None)
    monkeypatch.setattr(ismcts, "declared", registry.declared)
    monkeypatch.setattr(analysis_core, "declared", registry.declared)
    monkeypatch.setattr(ismcts, "_TUNINGS", {})
    monkeypatch.setattr(analysis_core, "_EVALS", {})
    with pytest.raises(TypeError, match=f"{gid}.*horizn"):
        tuning_for(gid)
    with pytest.raises(TypeError, match=f"{gid}.*scael"):
        eval_for(gid)


@pytest.mark.parametrize("gid", INSTALLED)
def test_a_game_with_a_host_view_names_the_board_the_referee_draws(gid: str) -> None:
    found_entry = entry(gid)
    state = make_game(gid).new_initial_state()
    has_host_view = callable(getattr(state, "host_view", None))
    if found_entry.board is None:
        assert not has_host_view, f"{gid} has a host view but names no board drawing"
    else:
        assert has_host_view, f"{gid} names the board {found_entry.board!r} but has no host view"
        assert isinstance(load(found_entry.board)(state.host_view()), str)


def _modules_in(package: ModuleType) -> set[str]:
    return {
        f"{package.__name__}.{info.name}"
        for info in pkgutil.iter_modules([str(Path(package.__file__ or "").parent)])
    }


@pytest.mark.parametrize(
    ("package", "part"), [(tests.twins, "twins"), (heuristic, "heuristic")], ids=["twins", "heuristic"]
)
def test_every_part_module_belongs_to_an_installed_game(package: ModuleType, part: str) -> None:
    named = {getattr(e, part) for e in entries()}
    assert _modules_in(package) - named == set()


# --------------------------------------------------------------------------- broken packages


GOOD_RULES = """
    from blackwhite.engine import GameEntry
    from blackwhite.games.swapping import Swapping

    class Other(Swapping):
        id = "other-swapping"
        title = "Swapping under another id"

    ENTRY = GameEntry(id="other-swapping", rules="bw_test_good:Other")
    WRONG_ID = GameEntry(id="something-else", rules="bw_test_good:Other")
    NOT_AN_ENTRY = 42
"""


@pytest.fixture
def broken_plugins(tmp_path: Path) -> Iterator[Path]:
    """Packages with every kind of broken registration, and one good one, on sys.path."""
    plant(tmp_path, "bw-test-broken", {
        "import-error": "bw_test_missing_module:ENTRY",
        "raises": "bw_test_raises:ENTRY",
        "not-an-entry": "bw_test_good:NOT_AN_ENTRY",
        "wrong-name": "bw_test_good:WRONG_ID",
        "swapping": "bw_test_good:ENTRY",  # an id already taken
        "Bad_Id": "bw_test_good:ENTRY",
    }, {"bw_test_raises.py": "raise RuntimeError('the designer left a bug here')\n"})
    plant(tmp_path, "bw-test-good", {"other-swapping": "bw_test_good:ENTRY"}, {"bw_test_good.py": GOOD_RULES})
    with installed(tmp_path, ["bw_test_good", "bw_test_raises"]):
        yield tmp_path


def test_a_broken_registration_is_reported_and_skipped(broken_plugins: Path) -> None:
    ids = game_ids()
    assert set(INSTALLED) < set(ids) and "other-swapping" in ids
    assert registry.make_game("other-swapping").new_initial_state().to_move() == [0, 1]
    reasons = {bad.name: bad.error for bad in registry.broken()}
    assert set(reasons) == {"import-error", "raises", "not-an-entry", "wrong-name", "swapping", "Bad_Id"}
    assert "ModuleNotFoundError" in reasons["import-error"] and "bw_test_missing_module" in reasons["import-error"]
    assert "the designer left a bug here" in reasons["raises"] and "bw_test_raises.py:1" in reasons["raises"]
    assert "not a blackwhite.engine.GameEntry" in reasons["not-an-entry"]
    assert "'something-else'" in reasons["wrong-name"]
    assert "already taken" in reasons["swapping"]
    assert "lower-case" in reasons["Bad_Id"]
    assert entry("swapping").rules == "blackwhite.games.swapping:Swapping"  # the first one keeps its id
    with pytest.raises(registry.UnknownGameError, match="the designer left a bug here"):
        make_game("raises")


def test_the_command_line_lists_the_working_games_and_names_the_broken(broken_plugins: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(broken_plugins), str(ROOT)])}
    listed = subprocess.run([sys.executable, "-m", "blackwhite", "rules"], capture_output=True, text=True,
                            env=env, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "swapping" in listed.stdout and "other-swapping" in listed.stdout
    assert "'raises'" in listed.stderr and "the designer left a bug here" in listed.stderr
    shown = subprocess.run([sys.executable, "-m", "blackwhite", "rules", "raises"], capture_output=True,
                           text=True, env=env, timeout=120)
    assert shown.returncode == 2 and "the designer left a bug here" in shown.stderr
    assert "Traceback" not in shown.stderr


def test_every_command_names_a_broken_game_once_as_a_warning(broken_plugins: Path) -> None:
    """Each broken registration is said once, as "warning: game ... is not loaded", by
    `rules` (which printed it twice, once bare) and by any other command (which printed
    a bare line that read like an error of the command itself)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(broken_plugins), str(ROOT)])}
    for args in (["rules"], ["rules", "swapping"]):
        run = subprocess.run([sys.executable, "-m", "blackwhite", *args], capture_output=True, text=True,
                             env=env, timeout=120)
        assert run.returncode == 0, run.stderr
        lines = [line for line in run.stderr.splitlines() if "'raises'" in line]
        assert len(lines) == 1, run.stderr
        assert lines[0].startswith("warning: game 'raises'"), run.stderr
