"""Screenshots of the pages: ``<name>-<desktop|phone>.png``.

Every browser test run takes them, into ``$BLACKWHITE_SCREENSHOTS`` when it is set and
otherwise into ``blackwhite-screenshots`` in the system's temporary directory, so that a
test run never rewrites files of the repository.  The README's pictures are refreshed
with ``BLACKWHITE_SCREENSHOTS=docs/screenshots python -m pytest tests/web``.

The game tests call :func:`shoot` on a page at its current state; it saves the page at
desktop width (1280 px) and at phone width (375 px), light and dark, then restores the
viewport and the colour scheme.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from .conftest import DESKTOP, PHONE

SHOTS = Path(os.environ.get("BLACKWHITE_SCREENSHOTS") or Path(tempfile.gettempdir()) / "blackwhite-screenshots")


def shoot(page: Any, name: str, *, full_page: bool = True) -> list[Path]:
    """Save ``page`` as ``<name>-desktop.png`` and ``<name>-phone.png``, then in the dark
    theme as ``<name>-desktop-dark.png`` and ``<name>-phone-dark.png``; the paths written."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"a screenshot name is a plain file stem such as 'swapping', got {name!r}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size or DESKTOP
    written = []
    try:
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
                page.set_viewport_size(size)
                page.wait_for_timeout(150)  # let the layout settle at the new width
                path = SHOTS / f"{name}-{label}{'-dark' if scheme == 'dark' else ''}.png"
                page.screenshot(path=str(path), full_page=full_page, animations="disabled", caret="hide")
                written.append(path)
    finally:
        page.emulate_media(color_scheme="no-preference")
        page.set_viewport_size(before)
    return written
