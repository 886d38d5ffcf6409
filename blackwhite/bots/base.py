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

from ..engine.core import Action, ChanceEvent, State

#: side actions (an ante proposal or its answer, an item use, an early choice) a bot is
#: offered before each of its own moves; past them, only the moves that fill its part of
#: the step.  The rules bound some side actions by nothing (ante proposals without
#: ``proposal_limit``), and two bots proposing and declining would never end a step.
#: Four leave room for every legitimate combination (a choice and two items in a turn).
SIDE_ACTIONS = 4


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


def side_actions_made(state: State, seat: int) -> int:
    """How many side actions ``seat`` has made since its own last move (read from the
    state's history: 0 on an untracked state)."""
    made = 0
    for event in reversed(state.history):
        if isinstance(event, ChanceEvent):
            continue
        by, action = event
        if by != seat:
            continue
        if not state.is_free(action):
            break
        made += 1
    return made


def decision_for(state: State, seat: int, rng: random.Random, budget: float = 0.0) -> Decision:
    """Build the decision a bot at ``seat`` faces, exposing only what ``seat`` may know.
    Past ``SIDE_ACTIONS`` side actions since its last move, a bot is offered only its
    moves (where it has any), so bots alone end every match (see :data:`SIDE_ACTIONS`)."""
    # tracked, so that a game without a sampler of its own is redrawn from its history
    frozen = state.clone()

    def sample(r: random.Random) -> State:
        return frozen.resample(seat, r)

    legal = state.legal_actions(seat)
    if side_actions_made(state, seat) >= SIDE_ACTIONS:
        legal = [a for a in legal if not state.is_free(a)] or legal
    return Decision(seat, state.view(seat), legal, sample, rng, budget)
