"""A quick policy for ``classic`` (optional: without it the ``heuristic`` bot plays at
random, and ``ismcts`` models every other seat by its own search tree).

``choose`` reads only the seat's view.  Every tile of the other seat of a colour is
taken as equally likely to be the one it still holds or has just led (its counts by
colour are public).  Answering a led tile, it plays the smallest tile sure to beat
it, else its smallest tile (a round it cannot win costs as little as it can).
Leading, it plays the tile with the best chance of winning the round for what it
costs, its smallest when no tile is likelier than not to win.

``respond`` is the answer to the other seat as the ``ismcts`` bot models it: where that
seat plays at random more likely than not, the exact best answer to random play
(:mod:`.solver`), else ``choose``.  It is the search's champion, the choice a challenger
must beat.

``play_evidence`` tells the ``ismcts`` bot (tuning ``adapt``) how the other seat
plays: the log-likelihood ratio of the colours it showed, under this policy against
uniformly random play, so that a random player is searched against as one.
"""

from __future__ import annotations

import math
import random
from typing import Any

from blackwhite.engine import Action, make_game

from . import solver

TILES = 9
#: a chance of noise in the policy, so one surprise does not rule it out for good
NOISE = 0.02


def _remaining(view: dict[str, Any]) -> list[float]:
    """For each tile, the chance the other seat still holds it (or has just led it):
    each of its plays of this game is taken as any tile of the colour shown that agrees
    with the round's outcome, evenly (a quick estimate: plays are not excluded jointly)."""
    me = view["seat"]
    other = 1 - me
    gone = [0.0] * TILES
    for r in view["rounds"]:
        mine = r["tiles"][me]["tile"]
        parity = 0 if r["tiles"][other]["colour"] == "black" else 1
        if r["winner"] is None:
            fits = [mine]
        elif r["winner"] == other:
            fits = [t for t in range(TILES) if t % 2 == parity and t > mine]
        else:
            fits = [t for t in range(TILES) if t % 2 == parity and t < mine]
        for t in fits:
            gone[t] += 1 / len(fits)
    return [max(0.0, 1.0 - g) for g in gone]


def _beats(m: int, chances: list[float], colour: str | None) -> float:
    """The chance that ``m`` beats the other seat's tile, drawn by ``chances`` (of the
    colour shown, when one was)."""
    pool = [(t, c) for t, c in enumerate(chances) if c > 0 and (colour is None or (t % 2 == 0) == (colour == "black"))]
    total = sum(c for _, c in pool)
    return sum(c for t, c in pool if t < m) / total if total else 0.0


def choose(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    mine = sorted(a[1] for a in legal)
    chances = _remaining(view)
    led = view.get("led")
    colour = led["colour"] if led is not None and view["leader"] != view["seat"] else None
    best = max(mine, key=lambda m: (_beats(m, chances, colour) - m / 16, -m))
    return ("play", best if _beats(best, chances, colour) > 0.5 else mine[0])


def respond(view: dict[str, Any], legal: list[Action], rng: random.Random, shares: list[float]) -> Action:
    """``choose`` against the other seat as modelled: it plays like ``choose`` with chance
    ``shares[other]``, else at random.  Where random play is at least as likely, the
    exact best answer to it (the solver); else ``choose``."""
    if shares[1 - view["seat"]] <= 0.5:
        return ("play", solver.best_tile(view, [a[1] for a in legal]))
    return choose(view, legal, rng)


def play_evidence(view: dict[str, Any], memo: dict[Any, Any]) -> list[float]:
    """Per seat, the log-likelihood ratio of the colours it showed under this policy
    (with :data:`NOISE`) against uniformly random play; 0.0 for the viewing seat.

    Under the policy the other seat's tiles follow from the seat's own plays (its hand
    starts as 0-8 and the policy is deterministic), so the match is replayed with the
    policy in its seat; under random play a colour's chance is its share of the tiles
    it held then (public).  Only the current game counts (a replayed game starts
    afresh)."""
    me = view["seat"]
    other = 1 - me
    key = (me, repr(view["rounds"]), repr(view.get("led")), view["game_no"])
    if key in memo:
        found: list[float] = memo[key]
        return found
    llr = 0.0
    plays = []
    for r in view["rounds"]:
        leader = r["leader"]
        tiles = r["tiles"]
        plays.append((leader, tiles[me]["tile"], tiles[other]["colour"]))
    if view.get("led") is not None and view["leader"] == other:
        plays.append((other, None, view["led"]["colour"]))
    sim = make_game("classic", {**view["options"], "replays": 0, "early_end": False}).new_initial_state()
    rng = random.Random(0)
    try:
        for leader, my_tile, shown in plays:
            order = [other, me] if leader == other else [me, other]
            for seat in order:
                if seat == me:
                    if my_tile is None:
                        break
                    sim.apply(me, ("play", my_tile))
                    continue
                left = sim.view(other)["left"][other]
                p_random = left[shown] / (left["black"] + left["white"])
                legal = sim.legal_actions(other)
                pick = choose({**sim._view(other), "game": "classic", "seat": other}, legal, rng)[1]
                same = (pick % 2 == 0) == (shown == "black")
                p_policy = (1 - NOISE) * (1.0 if same else 0.0) + NOISE * p_random
                llr += math.log(p_policy / p_random)
                if not same:  # off the policy's path: its hand is no longer known
                    raise StopIteration
                sim.apply(other, ("play", pick))
            if my_tile is not None:
                done = sim.view(None)["rounds"]
                if done[-1]["winner"] != view["rounds"][len(done) - 1]["winner"]:
                    llr += math.log(NOISE)  # the policy's tile would have won or lost otherwise
                    raise StopIteration
    except (StopIteration, ValueError):
        pass
    out = [0.0, 0.0]
    out[other] = llr
    memo[key] = out
    return out
