"""The model of the other seats, one for the ``ismcts`` bot and the analysis alike.

Another seat plays the game's heuristic (:mod:`blackwhite.bots.heuristic`) with some
chance, else uniformly at random.  The chance comes from how well each explains the
seat's play so far: a log-likelihood ratio (llr) of its actions under the heuristic
against random play, turned into a share by :func:`heuristic_share`.  The llr is read

- from the watching seat's view alone where the heuristic module can replay that play
  (its ``play_evidence``: yellow, grouping); the bot asks it at every decision;
- or, where an action hides something from the watcher (a domino placement hides one
  number), by drawing worlds from what the watcher knew when it saw the action and asking
  how often the heuristic, playing from the actor's view of such a world, makes an action
  that looks the same to the watcher (:func:`replayed_evidence`).  That needs the states
  before each action, which the analysis holds and a bot's decision does not.

Either way the watcher's secrets stay its own: the action actually played is read from
the watcher's view (the heuristic module's ``seen_in_view``), never from the record.
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Sequence

from ..engine.core import Action, State
from .heuristic import Policy, Seen, evidence_for, heuristic_share, seen_for

__all__ = [
    "EVIDENCE_WORLDS",
    "Seen",
    "WHIM",
    "evidence_for",
    "heuristic_seats",
    "heuristic_share",
    "replayed_evidence",
    "seen_for",
    "shares",
]

#: worlds drawn per action of another seat to ask whether the heuristic would play it
EVIDENCE_WORLDS = 8
#: the share of a seat's play that is anything at all, so that one surprise cannot
#: settle how it plays (as in the heuristics' own ``play_evidence``)
WHIM = 0.05


def shares(llr: Sequence[float], me: int | None = None) -> list[float]:
    """Per seat, the chance a world plays it by the heuristic (else at random), from the
    llr of its play; the seat ``me`` (the searcher or the judged seat) always is."""
    return [1.0 if s == me else heuristic_share(x) for s, x in enumerate(llr)]


def heuristic_seats(share: Sequence[float], rand: Callable[[], float]) -> list[bool]:
    """Which seats play by the heuristic in one world or simulation: one draw of
    ``rand`` per seat, in seat order."""
    return [rand() < p for p in share]


def replayed_evidence(
    before: State, watcher: int, actor: int, target: Any, policy: Policy,
    seen: Callable[[Action], Any], tag: str,
) -> float:
    """The llr, heuristic against random play, of ``actor``'s action from ``before``,
    which ``watcher`` saw as ``target`` (the module's ``seen_in_view`` of the view after
    it); ``seen`` says how any action of ``actor`` would look to the watcher.  Worlds are
    drawn from what the watcher knew then (``resample``), seeded by ``tag``."""
    heuristic = 0.0
    random_share = 0.0
    for k in range(EVIDENCE_WORLDS):
        world_tag = f"{tag}/{k}"
        world = before.resample(watcher, random.Random(world_tag))
        legal = world.legal_actions(actor)
        if not legal:
            continue
        choice = policy(world.view(actor), legal, random.Random(f"choice/{world_tag}"))
        heuristic += seen(choice) == target
        random_share += sum(seen(a) == target for a in legal) / len(legal)
    if random_share <= 0.0:
        return 0.0  # no drawn world allows the action: it says nothing either way
    heuristic /= EVIDENCE_WORLDS
    random_share /= EVIDENCE_WORLDS
    return math.log((1 - WHIM) * heuristic + WHIM * random_share) - math.log(random_share)
