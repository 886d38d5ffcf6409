"""A heuristic policy for both Grouping games (Death Match and Final).

Betting: the seat's own tile is face down, so both tiles are estimated.  From the
view alone (its groups, the colours and numbers it was told in this set's deals, the
fold-the-8 facts, its group order if it used ``order``) we draw a few dozen deals
consistent with what it knows, for itself and for the opponent (whose groups are
drawn from their posterior), using the game module's pure sampling helpers.  That
gives the chances that our tile is higher, equal or lower, and the bet follows the
expected value of calling, folding or raising in the variant's chip rules.

Grouping: a few templates that make our high tiles readable from colour runs
(e.g. ``A=7,8 B=1,3,5 C=0,2,4,6``), mixed with random groupings so the opponent
cannot read us as easily; under the Final's regrouping limits, the legal grouping
closest to the template.

Items and extras: ``peek`` when the decision is close and the bets matter, ``order``
early, propose a higher ante when well ahead, accept one only when not behind.
"""

from __future__ import annotations

import random
from typing import Any

from ...engine.core import Action
from ...games.grouping import (
    NAMES,
    entries_constraints,
    sample_deal,
    sample_grouping,
)

SAMPLES = 48
TEMPLATES: tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...] = (
    ((7, 8), (1, 3, 5), (0, 2, 4, 6)),
    ((0, 8), (1, 3, 5), (2, 4, 6, 7)),
    ((1, 8), (5, 6, 7), (0, 2, 3, 4)),
    ((6, 8), (3, 5, 7), (0, 1, 2, 4)),
)


def choose(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    """Pick one of ``legal`` from what ``view`` tells the seat."""
    if not legal:
        raise ValueError("no legal action to choose from")
    tags = {a[0] for a in legal}
    if "group" in tags:
        return _grouping_step(view, legal, rng)
    if view.get("phase") == "choose":
        return ("go", "second") if ("go", "second") in legal else legal[0]
    if "call" in tags:
        return _bet(view, legal, rng)
    return legal[rng.randrange(len(legal))]


# ----------------------------------------------------------------------------- grouping


def _grouping_step(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    me = view["seat"]
    chips = view["chips"]
    proposal = view.get("proposal")
    if proposal is not None and proposal["by"] != me:
        # a higher ante drains the shorter stack first
        want = chips[me] >= chips[1 - me]
        answer: Action = ("accept",) if want else ("decline",)
        if answer in legal:
            return answer
    proposals = [a for a in legal if a[0] == "propose"]
    if proposals and proposal is None and chips[me] >= 1.25 * chips[1 - me] + 5:
        return min(proposals, key=lambda a: a[1])
    groups = [a for a in legal if a[0] == "group"]
    if rng.random() < 0.25:
        target = groups[rng.randrange(len(groups))][1:]
    else:
        target = TEMPLATES[rng.randrange(len(TEMPLATES))]
    best: list[Action] = []
    score = -1
    for action in groups:
        overlap = sum(len(set(action[1 + g]) & set(target[g])) for g in range(3))
        if overlap > score:
            best, score = [action], overlap
        elif overlap == score:
            best.append(action)
    return best[rng.randrange(len(best))]


# ----------------------------------------------------------------------------- betting


def outcome_chances(view: dict[str, Any], rng: random.Random, samples: int = SAMPLES) -> tuple[float, float, float]:
    """(P win, P tie, P lose) of this round's tiles, and it reads only the view."""
    d = view["deal"] - 1
    p = view["round"] - 1
    deals = view["deals"]
    mine_known = view["my_tile"]
    theirs_known = view["their_tile"]
    my_groups = view["my_groups"]
    groups = (tuple(my_groups["A"]), tuple(my_groups["B"]), tuple(my_groups["C"]))
    my_cons = entries_constraints(deals[d]["mine"])
    order = None
    if view.get("my_order") and d == 0:
        idx = [NAMES.index(n) for n in view["my_order"]]
        order = (idx[0], idx[1], idx[2])
    their_facts = tuple(entries_constraints(both["theirs"]) for both in deals)
    win = tie = 0
    for _ in range(samples):
        mine = mine_known["tile"]
        if mine is None:
            mine = sample_deal(groups, my_cons, rng, order)[p]
        theirs = theirs_known["tile"]
        if theirs is None:
            their_groups = sample_grouping(their_facts, rng)
            theirs = sample_deal(their_groups, their_facts[d], rng)[p]
        if mine > theirs:
            win += 1
        elif mine == theirs:
            tie += 1
    return win / samples, tie / samples, (samples - win - tie) / samples


def _bet(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    me = view["seat"]
    opp = 1 - me
    final = view.get("variant") == "final"
    pwin, ptie, plose = outcome_chances(view, rng)
    my_bet, their_bet = view["bets"][me], view["bets"][opp]
    if ("peek",) in legal and 0.25 < pwin + ptie / 2 < 0.75 and max(my_bet, their_bet) >= 4:
        return ("peek",)
    if ("order",) in legal and (view["set"] >= 2 or rng.random() < 0.3):
        return ("order",)
    raises = [a for a in legal if a[0] == "raise"]
    equity = pwin + ptie / 2
    if final:
        p8 = _chance_my_tile_is_eight(view, rng)
        fold_ev = -my_bet - 8 * p8
        call_ev = -(plose + ptie) * their_bet
        strong = pwin >= 0.7
    else:
        fold_ev = -my_bet
        call_ev = (2 * equity - 1) * their_bet
        strong = equity >= 0.72
    if raises and (strong or (equity > 0.35 and rng.random() < 0.08)):
        top = raises[-1][1]
        if strong and equity > 0.9:
            size = top
        else:
            size = max(1, min(top, int(round(top * equity * rng.uniform(0.3, 0.8)))))
        # do not escalate forever: once the bets are high, calling is enough
        if their_bet < 12 or equity > 0.85:
            return ("raise", size)
    if call_ev >= fold_ev or ("fold",) not in legal:
        return ("call",)
    return ("fold",)


def _chance_my_tile_is_eight(view: dict[str, Any], rng: random.Random) -> float:
    tile = view["my_tile"]
    if tile["tile"] is not None:
        return 1.0 if tile["tile"] == 8 else 0.0
    if tile["colour"] != "black" or tile.get("eight") is False:
        return 0.0
    d = view["deal"] - 1
    p = view["round"] - 1
    g = view["my_groups"]
    groups = (tuple(g["A"]), tuple(g["B"]), tuple(g["C"]))
    cons = entries_constraints(view["deals"][d]["mine"])
    hits = sum(sample_deal(groups, cons, rng)[p] == 8 for _ in range(16))
    return hits / 16
