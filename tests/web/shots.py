"""Screenshots of the pages for the README: ``docs/screenshots/<name>-<desktop|phone>.png``.

The game tests call :func:`shoot` on a page at its current state; it saves the page at
desktop width (1280 px) and at phone width (375 px), then restores the viewport.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import DESKTOP, PHONE

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def shoot(page: Any, name: str, *, full_page: bool = True) -> list[Path]:
    """Save ``page`` as ``<name>-desktop.png`` and ``<name>-phone.png``; the paths written."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"a screenshot name is a plain file stem such as 'swapping', got {name!r}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size or DESKTOP
    written = []
    try:
        for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            page.wait_for_timeout(150)  # let the layout settle at the new width
            path = SHOTS / f"{name}-{label}.png"
            page.screenshot(path=str(path), full_page=full_page, animations="disabled", caret="hide")
            written.append(path)
    finally:
        page.set_viewport_size(before)
    return written
