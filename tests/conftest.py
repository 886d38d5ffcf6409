"""Shared test helpers."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _examples_dir() -> Path | None:
    for candidate in (
        os.environ.get("BLACKWHITE_EXAMPLES"),
        ROOT / "tests" / "data" / "records",
    ):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


EXAMPLES = _examples_dir()


def example_cases(game: str | None = None) -> list[Any]:
    """(record, expected) pairs of the smoke-test records (tests/data/records), as pytest params."""
    if EXAMPLES is None:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="no smoke-test records: BLACKWHITE_EXAMPLES names a missing folder"))]
    cases = []
    for path in sorted(EXAMPLES.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        gid = path.name.rsplit("-", 1)[0]
        if game is not None and gid != game:
            continue
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        cases.append(pytest.param(json.loads(path.read_text()), expected, id=path.stem))
    return cases


#: folders whose files start servers, browsers and other processes: scheduled first, so the
#: two workers end on the many small files instead of one waiting on the other's browser test
_HEAVY_FIRST = ("web", "server", "discord")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the heavy folders' tests first (a stable sort: within a folder nothing moves)."""
    def weight(item: pytest.Item) -> int:
        path = Path(str(item.path))
        parts = path.relative_to(ROOT).parts if path.is_relative_to(ROOT) else ()
        if len(parts) > 2 and parts[0] == "tests" and parts[1] in _HEAVY_FIRST:
            return _HEAVY_FIRST.index(parts[1])
        return len(_HEAVY_FIRST)
    items.sort(key=weight)
