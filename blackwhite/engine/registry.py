"""Where game ids map to their classes.

Game modules are imported lazily by id, so a missing or broken module affects only
its own game, and adding a game means adding one line here.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from .core import Game

#: game id -> "module:ClassName"
_GAMES: dict[str, str] = {
    "swapping": "blackwhite.games.swapping:Swapping",
    "domino": "blackwhite.games.domino:Domino",
    "yellow": "blackwhite.games.yellow:Yellow",
    "grouping": "blackwhite.games.grouping:Grouping",
    "grouping-final": "blackwhite.games.grouping:GroupingFinal",
    "joust": "blackwhite.games.joust:Joust",
    "joust-final": "blackwhite.games.joust:JoustFinal",
}


class UnknownGameError(KeyError):
    """No game with that id is registered (or its module is not there yet)."""

    def __str__(self) -> str:
        return str(self.args[0])


def game_ids() -> list[str]:
    """Ids of the games whose modules are present, in the order of the rules pages."""
    return [gid for gid in _GAMES if _try_class(gid) is not None]


def _try_class(gid: str) -> type[Game] | None:
    module_name, _, class_name = _GAMES[gid].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise
    cls = getattr(module, class_name, None)
    return cls if isinstance(cls, type) and issubclass(cls, Game) else None


def game_class(gid: str) -> type[Game]:
    if gid not in _GAMES:
        raise UnknownGameError(f"unknown game {gid!r}; games: {', '.join(_GAMES)}")
    cls = _try_class(gid)
    if cls is None:
        raise UnknownGameError(f"game {gid!r} is not implemented yet")
    return cls


def make_game(gid: str, options: Mapping[str, Any] | None = None) -> Game:
    """The game ``gid`` with ``options`` (raises OptionError on a bad one)."""
    return game_class(gid)(options)
