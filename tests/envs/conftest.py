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

#: the small variants the solver and the quick tests use, where the game has the option
SMALL_CANDIDATES: dict[str, dict[str, Any]] = {
    "swapping": {"tiles": 3, "max_ties": 1},
    "domino": {"board": "5x1", "numbers": 3},
    "yellow": {"rounds": 2, "target": 2},
    "grouping": {"chips": 2, "rounds": 1, "max_raise": 1},
    "grouping-final": {"chips": 2, "rounds": 1, "max_raise": 1},
    "joust": {"sets": 1, "groups": 1, "chips": 2},
    "joust-final": {"sets": 1, "groups": 1, "chips": 2},
}


def small_options(game_id: str) -> dict[str, Any]:
    """The small variant's options, or the standard game where the option does not
    exist (yet): the tests then run on the full game."""
    options = SMALL_CANDIDATES.get(game_id, {})
    try:
        make_game(game_id, options)
    except OptionError:
        return {}
    return options
