"""Adapters that present every game to research libraries.

- :func:`pettingzoo_env` — a PettingZoo AEC environment (``blackwhite.envs.pettingzoo``);
- ``blackwhite.envs.openspiel.register()`` — every game as an OpenSpiel Python game
  ``blackwhite_<id>`` (dash written as underscore).

Both are built on the games' :class:`~blackwhite.engine.encoding.Encoding` and the
engine's public ``State`` API only, so they hold no copy of any rule.  The libraries
are imported lazily: the package imports without them (``pip install
'blackwhite[research]'`` adds them).  Usage: docs/research.md.
"""

from __future__ import annotations

from typing import Any


def pettingzoo_env(game_id: str, render_mode: str | None = None, **options: Any) -> Any:
    """A PettingZoo AEC environment of ``game_id`` with ``options`` (a
    :class:`blackwhite.envs.pettingzoo.BlackWhiteEnv`)."""
    from .pettingzoo import BlackWhiteEnv

    return BlackWhiteEnv(game_id, render_mode=render_mode, **options)


__all__ = ["pettingzoo_env"]
