"""Shared parameters of the adapter tests: the games whose encoding exists, and a
small variant of each (options that keep its structure but make matches short)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from blackwhite.engine import OptionError, make_game  # noqa: E402
from blackwhite.envs.openspiel import available_games  # noqa: E402

GAMES = available_games()

def small_options(game_id: str) -> dict[str, Any]:
    """The small variant's options the game declares (``Game.small_options``), or the
    standard game when it declares none: the tests then run on the full game."""
    options = dict(type(make_game(game_id)).small_options)
    try:
        make_game(game_id, options)
    except OptionError:
        return {}
    return options
