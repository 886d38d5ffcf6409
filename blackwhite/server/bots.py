"""Bot seats: specs checked when a match is made, decisions made in worker processes.

A worker receives a copy of the state only to build :func:`decision_for` from it,
exactly as the terminal and arena do: the bot itself sees the seat's view, its legal
actions and a resampler, never the state.  The action comes back as notation and goes
through the server's checked path and clock like a person's.
"""

from __future__ import annotations

import random
from typing import Any

from ..bots import BOTS, bot_settings, make_bot_spec, parse_bot_spec
from ..engine import State

#: the most a bot spec may ask to think per decision (it holds a worker that long)
MAX_BUDGET = 30.0
#: seconds a decision of a bot that takes a budget and names none gets (:func:`decide`)
DEFAULT_BUDGET = 1.0


def check_spec(spec: str) -> None:
    """Raise ``ValueError`` naming the problem if ``spec`` is not a bot the server may seat."""
    name, settings = parse_bot_spec(spec)
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} in {spec!r}; bots: {', '.join(BOTS)}")
    budget = settings.get("budget")
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= MAX_BUDGET:
            raise ValueError(f"bot budget must be a number of seconds in (0, {MAX_BUDGET:g}], got {budget!r} in {spec!r}")
    try:
        make_bot_spec(spec)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad bot spec {spec!r}: {exc}") from None


def playing_spec(spec: str, cap: float = MAX_BUDGET) -> str:
    """The spec as the bot plays on a server whose ``--max-bot-budget`` is ``cap``: a
    budget above the cap (or a default budget above it) written as the cap, the rest as
    given.  A seat stores this, so its record and its rating name what played (a rating of
    ``ismcts:budget=30`` earned at 5 s would be another bot's).  ``spec`` is checked."""
    name, settings = parse_bot_spec(spec)
    spec = spec.strip()
    if "budget" not in bot_settings(name):
        return spec
    asked = float(settings.get("budget", DEFAULT_BUDGET))
    plays = float(min(asked, MAX_BUDGET, cap))
    if plays >= asked:
        return spec
    budget = f"budget={int(plays) if plays.is_integer() else repr(plays)}"
    if "budget" not in settings:
        return f"{spec}:{budget}"
    head, *parts = spec.split(":")
    return ":".join([head, *(budget if p.partition("=")[0].strip() == "budget" else p for p in parts)])


def decide(state: State, seat: int, spec: str, seed: str, out_of_time: float | None = None,
           cap: float = MAX_BUDGET) -> str:
    """Run in a worker: the bot's action for ``seat`` as notation.  It thinks at most
    its spec's budget, at most ``cap`` (the server's ``--max-bot-budget``), and at most
    half of what its clock has left *when it starts thinking*: ``out_of_time`` is the
    ``time.monotonic()`` moment (one clock for every process of the machine) the seat
    runs out, so time spent queued behind other matches' bots is not thought away too."""
    import time

    from ..bots import decision_for

    bot = make_bot_spec(spec)
    # every decision is timed, even for a spec that gives only an iteration cap: a bot
    # holds a worker, and the clock runs for it as for a person
    budget = min(float(parse_bot_spec(spec)[1].get("budget", DEFAULT_BUDGET)), MAX_BUDGET, cap)
    if out_of_time is not None:
        budget = min(budget, (out_of_time - time.monotonic()) / 2)
    budget = max(0.01, budget)
    decision = decision_for(state, seat, random.Random(seed), budget)
    action = bot.choose(decision)
    return action_text(state, action)


def action_text(state: State, action: Any) -> str:
    """Canonical notation, including the core's ``resign`` and ``timeout``."""
    if action == ("resign",):
        return "resign"
    if action == ("timeout",):
        return "timeout"
    return state.format_action(action)
