"""The ``random`` bot: a uniformly random legal action (the baseline every bot must beat)."""

from __future__ import annotations

from typing import Any

from ..engine.core import Action
from .base import Decision


class RandomBot:
    """Picks uniformly among the legal actions with the decision's own rng."""

    name = "random"

    def __init__(self, **settings: Any) -> None:
        if settings:
            raise TypeError(f"the random bot takes no settings, got {', '.join(sorted(settings))}")

    def choose(self, decision: Decision) -> Action:
        legal = decision.legal
        return legal[decision.rng.randrange(len(legal))]
