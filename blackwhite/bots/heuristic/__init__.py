"""Per-game heuristic policies and the ``heuristic`` bot that dispatches to them.

A policy is a module here with ``choose(view: dict, legal: list[tuple], rng) -> tuple``:
it reads only the seat's view, so it is fair by construction.  Each game's entry in
the registry (:mod:`blackwhite.engine.registry`) names its module; games share one
when they share a policy (``grouping-final`` uses ``grouping``); a game without one
falls back to random play, so a new game is playable by every bot from the day it lands.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Hashable

from ...engine.core import Action
from ...engine.registry import declared, load
from ..base import Decision

Policy = Callable[[dict[str, Any], list[Action], random.Random], Action]

_modules: dict[str, ModuleType | None] = {}


def _module(game_id: str) -> ModuleType | None:
    """The game's policy module (its entry's ``heuristic``), or ``None`` when it is
    not there (yet)."""
    if game_id in _modules:
        return _modules[game_id]
    declared_as = declared(game_id)
    module: ModuleType | None = None
    if declared_as is not None and declared_as.heuristic is not None:
        try:
            module = load(declared_as.heuristic)
        except ModuleNotFoundError as exc:
            if exc.name != declared_as.heuristic:
                raise  # a broken policy module must be loud, not silently random
    _modules[game_id] = module
    return module


def policy_for(game_id: str) -> Policy | None:
    """The game's policy function, or ``None`` when its module is not there (yet)."""
    policy: Policy | None = getattr(_module(game_id), "choose", None)
    return policy


Evidence = Callable[[dict[str, Any], dict[Any, Any]], list[float]]


def evidence_for(game_id: str) -> Evidence | None:
    """The game's ``play_evidence(view, memo)``, when its policy module has one.

    It answers, per seat, the log-likelihood ratio of that seat's past play under the
    policy against uniformly random play (a search uses it to decide how to model the
    seat); only games whose past play can be read from a view offer it.
    """
    found: Evidence | None = getattr(_module(game_id), "play_evidence", None)
    return found


def heuristic_share(llr: float) -> float:
    """The chance a seat plays like the heuristic (else at random), from even odds and
    the log-likelihood ratio ``play_evidence`` gives for its past play; never quite 0
    or 1, so a seat that changes its ways is still modelled both ways at times."""
    llr = max(-30.0, min(30.0, llr))
    return min(0.98, max(0.02, 1.0 / (1.0 + math.exp(-llr))))


Respond = Callable[[dict[str, Any], list[Action], random.Random, list[float]], Action]


def respond_for(game_id: str) -> Respond | None:
    """The game's ``respond(view, legal, rng, shares)``, when its policy module has one.

    It answers like ``choose`` but against the other seats as a search models them:
    seat ``s`` plays by the policy with chance ``shares[s]`` and at random otherwise
    (the shares come from ``play_evidence``); a search takes it as its default answer.
    """
    found: Respond | None = getattr(_module(game_id), "respond", None)
    return found


InWorlds = Callable[[dict[str, Any], list[Action], list[Any], random.Random], Action]


def in_worlds_for(game_id: str) -> InWorlds | None:
    """The game's ``choose_in_worlds(view, legal, worlds, rng)``, when its policy module
    has one.

    It answers like ``choose`` but weighs its values over worlds a search drew from
    what the seat knows (``State.resample``) instead of guessing hidden numbers
    evenly; a search takes it as its default answer.
    """
    found: InWorlds | None = getattr(_module(game_id), "choose_in_worlds", None)
    return found


@dataclass(frozen=True)
class Seen:
    """How another seat's actions look to a seat that watches them, for games whose
    announcements hide part of an action (a domino placement hides one number).

    ``action(a)`` is how any action ``a`` would look; ``in_view(view)`` reads the last
    action of the match from the watcher's view in the same form, so the action actually
    played is known only as the view shows it."""

    action: Callable[[Action], Hashable]
    in_view: Callable[[dict[str, Any]], Hashable]


def seen_for(game_id: str) -> Seen | None:
    """The game's ``seen`` and ``seen_in_view``, when its policy module has them."""
    module = _module(game_id)
    action = getattr(module, "seen", None)
    in_view = getattr(module, "seen_in_view", None)
    if action is None or in_view is None:
        return None
    return Seen(action, in_view)


Explain = Callable[[dict[str, Any], float], float]


def explain_for(game_id: str) -> Explain | None:
    """The game's ``explain(view)``, when its policy module has one.

    ``explain(view, share)`` answers how likely this seat's play so far is (as far as
    its own view shows it) if it plays by the policy with chance ``share`` and at
    random otherwise: a search weighs the worlds it draws by it, so that another
    seat's bets say something about what it holds.
    """
    found: Explain | None = getattr(_module(game_id), "explain", None)
    return found


class HeuristicBot:
    """Plays the game's hand-written policy; random where a game has none.

    A policy that returns an action outside ``legal`` is a bug in the policy; the bot
    stays legal (it plays a random action instead) and counts it in ``stats`` so
    tests can catch it.
    """

    name = "heuristic"

    def __init__(self, **settings: Any) -> None:
        if settings:
            raise TypeError(f"the heuristic bot takes no settings, got {', '.join(sorted(settings))}")
        self.stats: dict[str, int] = {"decisions": 0, "fallbacks": 0, "illegal": 0}

    def choose(self, decision: Decision) -> Action:
        legal = decision.legal
        self.stats["decisions"] += 1
        policy = policy_for(decision.view["game"])
        if policy is None or len(legal) == 1:
            if policy is None:
                self.stats["fallbacks"] += 1
            return legal[decision.rng.randrange(len(legal))]
        action = policy(decision.view, legal, decision.rng)
        if action not in legal:
            self.stats["illegal"] += 1
            return legal[decision.rng.randrange(len(legal))]
        return action
