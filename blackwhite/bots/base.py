"""The bot interface.

A bot sees a :class:`Decision`: its seat's view, the legal actions, and a
``sample_world`` function that draws a full state consistent with what the seat
knows (the engine's ``State.resample``).  It never receives the state itself, so it
cannot read another seat's secrets.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from ..engine.core import Action, State


@dataclass
class Decision:
    seat: int
    view: dict[str, Any]
    legal: list[Action]
    sample_world: Callable[[random.Random], State]
    rng: random.Random
    #: seconds this decision may take (search bots); 0 means "as little as possible"
    budget: float = 0.0


class Bot(Protocol):
    name: str

    def choose(self, decision: Decision) -> Action: ...


def decision_for(state: State, seat: int, rng: random.Random, budget: float = 0.0) -> Decision:
    """Build the decision a bot at ``seat`` faces, exposing only what ``seat`` may know."""
    # tracked, so that a game without a sampler of its own is redrawn from its history
    frozen = state.clone()

    def sample(r: random.Random) -> State:
        return frozen.resample(seat, r)

    return Decision(seat, state.view(seat), state.legal_actions(seat), sample, rng, budget)
