"""Bots: players built on the engine's per-seat view (never on hidden state).

Bots are registered by name so every front end (terminal, arena, server) makes them
the same way: ``make_bot("ismcts", budget=0.05)`` or, from a command line,
``make_bot_spec("ismcts:budget=0.05:c=1.0")``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .base import Bot, Decision, decision_for
from .heuristic import HeuristicBot
from .ismcts import ISMCTSBot
from .random_bot import RandomBot

BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "ismcts": ISMCTSBot,
}


class UnknownBotError(KeyError):
    """No bot of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0])


def bot_names() -> list[str]:
    return list(BOTS)


def make_bot(name: str, **settings: Any) -> Bot:
    """A new bot by registered name; unknown settings raise ``TypeError``."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise UnknownBotError(f"unknown bot {name!r}; bots: {', '.join(BOTS)}") from None
    return factory(**settings)


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:budget=0.1:c=1"`` -> ``("ismcts", {"budget": 0.1, "c": 1})``.

    Values are read as JSON where they parse (numbers, true/false), else kept as text.
    """
    name, *parts = spec.strip().split(":")
    settings: dict[str, Any] = {}
    for part in parts:
        key, sep, raw = part.partition("=")
        if not sep or not key:
            raise ValueError(f"bad bot setting {part!r} in {spec!r}; write name:key=value")
        try:
            settings[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            settings[key.strip()] = raw
    return name.strip(), settings


def make_bot_spec(spec: str, **defaults: Any) -> Bot:
    """A bot from a command-line spec; ``defaults`` fill settings the spec leaves out."""
    name, settings = parse_bot_spec(spec)
    return make_bot(name, **{**defaults, **settings})


__all__ = [
    "BOTS",
    "Bot",
    "Decision",
    "HeuristicBot",
    "ISMCTSBot",
    "RandomBot",
    "UnknownBotError",
    "bot_names",
    "decision_for",
    "make_bot",
    "make_bot_spec",
    "parse_bot_spec",
]
