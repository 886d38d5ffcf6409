"""A seat's information state as text, computed from its views alone.

The ``cfr`` bot looks its saved policy up by this string and the OpenSpiel adapter
hands the same string to OpenSpiel, so it lives in the engine, below both: a bot
never imports an adapter.  Everything here reads ``State.view(seat)`` and what the
seat did, never hidden state.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from .core import Action

#: parts of a view that are bookkeeping of the live step or narrative, not knowledge
#: of the seat: left out of the information-state key, so the key of a decision is
#: the same whether the other seats of a simultaneous step have submitted yet or not
#: (as in live play) and whether the state keeps a log or not (as in search copies)
STEP_FIELDS = ("log", "to_move", "submitted", "my_pending")


def infostate_key(view: Mapping[str, Any]) -> str:
    """The information-state string of a seat's view (``State.view(seat)``).

    Canonical JSON of the view without :data:`STEP_FIELDS`.  It names the game, the
    options and the seat (all in the view), so policies of two games or two seats
    never share a key, and it is a function of the view alone: a saved policy is
    looked up from a live view with it.
    """
    kept = {k: v for k, v in view.items() if k not in STEP_FIELDS}
    return json.dumps(kept, sort_keys=True, separators=(",", ":"), default=repr)


def trail_entry(key: str, action: Action) -> str:
    """One step of a seat's decision trail: the key of its view when it decided
    (:func:`infostate_key`) and the action it took there (as JSON)."""
    return key + " => " + json.dumps(action, separators=(",", ":"), default=repr)


def infostate_string(trail: Sequence[str], key: str) -> str:
    """The perfect-recall information-state string of a seat: its decision trail
    (:func:`trail_entry` of each of its earlier decisions, in order) then the key of
    its current view, one per line (a key is JSON, which holds no raw newline).

    The view alone forgets some of what a seat was told (the bidding sequence of a
    joust or grouping round lives only in the log); the seat's own earlier views and
    actions put it back, so two positions share a string only when the seat decided
    the same way on the same views before.  Both the OpenSpiel adapter and the
    ``cfr`` bot build it from what the seat saw and did, never from hidden state."""
    return "\n".join([*trail, key])
