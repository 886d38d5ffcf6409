"""The import contracts of pyproject.toml's [tool.importlinter]: arrows point down a
layer, and the engine's and games' modules import in no circle.

The first test runs import-linter over the package as it is.  The others plant one
offending import in a copy of the package and check the matching contract breaks, so a
contract that could never fail (a misspelt module name, a too-wide ignore) is caught.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def _lint(root: Path, package_parent: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(package_parent))
    return subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache", str(root / "pyproject.toml")],
        capture_output=True, text=True, cwd=root, env=env, timeout=120,
    )


def test_the_package_keeps_every_import_contract() -> None:
    done = _lint(ROOT, ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


#: (module that gains the import, the import, the contract it breaks)
PLANTED = [
    ("blackwhite/engine/core.py", "import blackwhite.bots", "The engine (rules and records) imports nothing above it"),
    ("blackwhite/games/swapping.py", "import fastapi", "The engine (rules and records) imports nothing above it"),
    ("blackwhite/bots/base.py", "import blackwhite.server", "Bots see the engine only"),
    ("blackwhite/bots/random_bot.py", "import blackwhite.envs", "Bots see the engine only"),
    ("blackwhite/server/store.py", "import blackwhite.web", "The server's service speaks data"),
    ("blackwhite/games/swapping.py", "import blackwhite.games.swapping_encoding", "No import circles"),
    # a rules module reaches its sampler through the registry, never by import (docs/engine.md)
    ("blackwhite/games/domino.py", "import blackwhite.games.domino_sampler", "No import circles"),
    ("blackwhite/engine/core.py", "import blackwhite.engine.record", "No import circles"),
    ("blackwhite/engine/record.py", "import blackwhite.games.swapping", "Every module imports only from the layers below"),
    ("blackwhite/analysis/core.py", "import blackwhite.terminal", "Every module imports only from the layers below"),
    ("blackwhite/server/service.py", "import blackwhite.app", "Every module imports only from the layers below"),
    ("blackwhite/drawing/text.py", "import blackwhite.terminal", "Every module imports only from the layers below"),
    ("blackwhite/views/swapping.py", "import blackwhite.pools", "Every module imports only from the layers below"),
]


@pytest.mark.parametrize("path,line,contract", PLANTED, ids=[p[0].split("/", 1)[1] + ": " + p[1] for p in PLANTED])
def test_a_planted_import_breaks_its_contract(tmp_path: Path, path: str, line: str, contract: str) -> None:
    shutil.copytree(ROOT / "blackwhite", tmp_path / "blackwhite", ignore=shutil.ignore_patterns("__pycache__", "static"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / path
    # inside a function, where a lazy import hides from a reader but not from the checker
    target.write_text(target.read_text(encoding="utf-8") + f"\n\ndef _planted() -> None:\n    {line}\n", encoding="utf-8")
    done = _lint(tmp_path, tmp_path)
    assert done.returncode != 0, done.stdout
    broken = [ln for ln in done.stdout.splitlines() if " BROKEN" in ln]
    assert any(ln.startswith(contract) for ln in broken), done.stdout
