"""Reading ``--option key=value`` the same way in every command (play, arena, benchmarks)."""

from __future__ import annotations

import json
from typing import Any, Sequence


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["dmo=1", "show_colours=true"]`` -> ``{"dmo": 1, "show_colours": True}`` (JSON
    values where they parse, text otherwise)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad option {pair!r}; write key=value")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out
