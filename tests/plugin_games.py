"""Game packages planted for a test: an installed distribution on a ``sys.path`` entry,
with its entry points in ``blackwhite.games`` and its modules, as pip would leave them.

The registry reads installed metadata, so a test game takes exactly the path of an
outside game package (docs/designing-a-game.md)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from blackwhite.engine import registry


def plant(where: Path, dist: str, entry_points: dict[str, str], files: dict[str, str]) -> None:
    """Write distribution ``dist`` under ``where``: its metadata, its entry points, and
    ``files`` (paths relative to ``where``: ``mod.py``, ``pkg/__init__.py``, ``pkg/board.html``)."""
    info = where / f"{dist.replace('-', '_')}-1.0.dist-info"  # as pip names it
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[blackwhite.games]\n{lines}")
    for name, source in files.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))


@contextmanager
def installed(where: Path, modules: list[str]) -> Iterator[Path]:
    """``where`` on ``sys.path`` with the registry looking again; undone at the end
    (``modules``: the planted top-level modules to forget)."""
    sys.path.insert(0, str(where))
    registry.refresh()
    try:
        yield where
    finally:
        sys.path.remove(str(where))
        for name in list(sys.modules):
            if name.split(".")[0] in modules:
                del sys.modules[name]
        registry.refresh()
