"""Bots: players built on the engine's per-seat view (never on hidden state).

Bots are registered by name so every front end (terminal, arena, server) makes them
the same way: ``make_bot("ismcts", budget=0.05)`` or, from a command line,
``make_bot_spec("ismcts:budget=0.05:c=1.0")``.
"""

from __future__ import annotations

import inspect
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


def _cfr_bot(path: str = "", fallback: str = "error") -> Bot:  # no path: CFRBot says what to give
    from .cfr import CFRBot  # imports the adapters' key function only when used

    return CFRBot(path, fallback)


#: bots that read a local file named in their spec (``cfr:PATH``): made by
#: :func:`make_bot` for the terminal and the arena, but not listed in :data:`BOTS`,
#: which is what the server lets remote clients seat (a client must not make the
#: server open a file of its choosing)
FILE_BOTS: dict[str, Callable[..., Bot]] = {
    "cfr": _cfr_bot,
}


class UnknownBotError(KeyError):
    """No bot of that name is registered."""

    def __str__(self) -> str:
        return str(self.args[0])


class BotSettingError(TypeError, ValueError):
    """A setting the bot does not take, or a value it cannot use.  The message names
    the bot, the setting and the settings the bot does take (a ``TypeError`` as
    before for callers that caught that, and a ``ValueError`` like every bad input)."""


def bot_names() -> list[str]:
    return list(BOTS)


def bot_settings(name: str) -> list[str]:
    """The settings a registered bot takes, by name (empty: none)."""
    params = inspect.signature(BOTS.get(name) or FILE_BOTS[name]).parameters.values()
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def make_bot(name: str, **settings: Any) -> Bot:
    """A new bot by registered name; a bad setting raises :class:`BotSettingError`."""
    factory = BOTS.get(name) or FILE_BOTS.get(name)
    if factory is None:
        raise UnknownBotError(f"unknown bot {name!r}; bots: {', '.join([*BOTS, *FILE_BOTS])}")
    takes = bot_settings(name)
    offered = "no settings" if not takes else "settings " + ", ".join(takes)
    unknown = sorted(set(settings) - set(takes))
    if unknown:
        raise BotSettingError(
            f"bot {name!r} has no setting {', '.join(map(repr, unknown))}; it takes {offered}"
        )
    try:
        return factory(**settings)
    except (TypeError, ValueError) as exc:
        given = ", ".join(f"{k}={json.dumps(v)}" for k, v in settings.items())
        raise BotSettingError(f"bot {name!r} cannot use {given}: {exc}; it takes {offered}") from None


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:budget=0.1:c=1"`` -> ``("ismcts", {"budget": 0.1, "c": 1})``.

    Values are read as JSON where they parse (numbers, true/false), else kept as text.
    A file bot's first part may be its file alone: ``"cfr:policy.json"`` ->
    ``("cfr", {"path": "policy.json"})``.
    """
    name, *parts = spec.strip().split(":")
    settings: dict[str, Any] = {}
    for i, part in enumerate(parts):
        key, sep, raw = part.partition("=")
        if i == 0 and not sep and name.strip() in FILE_BOTS and part:
            settings["path"] = part
            continue
        if not sep or not key:
            raise ValueError(f"bad bot setting {part!r} in {spec!r}; write name:key=value")
        try:
            settings[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            settings[key.strip()] = raw
    return name.strip(), settings


def spec_budget(spec: str, default: float) -> float:
    """Seconds a decision of the bot ``spec`` gets where a command's ``--budget`` is
    ``default``: the spec's own ``budget`` when it gives one, none (0: time-free, its
    ``iterations`` cap alone) when it gives ``iterations`` without a budget, else the
    default.  A setting written into a bot's spec is the more particular word."""
    settings = parse_bot_spec(spec)[1]
    if "budget" in settings:
        return float(settings["budget"])
    if "iterations" in settings:
        return 0.0
    return default


def make_bot_spec(spec: str, **defaults: Any) -> Bot:
    """A bot from a command-line spec; ``defaults`` fill settings the spec leaves out."""
    name, settings = parse_bot_spec(spec)
    return make_bot(name, **{**defaults, **settings})


__all__ = [
    "BOTS",
    "FILE_BOTS",
    "Bot",
    "BotSettingError",
    "Decision",
    "HeuristicBot",
    "ISMCTSBot",
    "RandomBot",
    "UnknownBotError",
    "bot_names",
    "bot_settings",
    "decision_for",
    "make_bot",
    "make_bot_spec",
    "parse_bot_spec",
    "spec_budget",
]
