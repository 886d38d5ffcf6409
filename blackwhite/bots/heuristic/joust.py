"""Heuristic play of ``joust`` and ``joust-final``, reading only the seat's view.

What a thoughtful player does:

* **Valuing a tile**: a tile on sale is known only by its label and colour; its
  expected value comes from :mod:`blackwhite.bots.inference.joust`.
* **Bidding**: chips are worth nothing at the end, so they are spread over the
  auctions still to come, weighted by how good the tile looks; bid up by small
  steps to that limit, then fold.  ``next`` picks the best-looking label left (the
  chooser opens it).  ``keep`` keeps the larger leftover.
* **Jousting**: the loser gives away its *smallest* submitted tile, so the required
  tile is usually the smallest.  In the optional steps the seat estimates the
  opponent's total from the announced colours and groups; behind, it adds the
  cheapest tile that takes the lead if it can afford to, and otherwise stops
  throwing good tiles after bad; ahead, it passes.
* **Items**: inversion turns a small tile big (used on the smallest tile when that
  gains enough, or at the final joust); conceal is used at the first chance.
"""

from __future__ import annotations

import random

from ...engine.core import Action
from ...games.joust import LABELS, SETS
from ...views.joust import JoustPolicyView
from ..inference.joust import label_values, play_value, tile_range


def choose(view: JoustPolicyView, legal: list[Action], rng: random.Random) -> Action:
    if len(legal) == 1:
        return legal[0]
    phase = view["phase"]
    if phase == "auction":
        action = _bid(view, legal, rng)
    elif phase == "next":
        action = _next(view, legal)
    elif phase == "keep":
        keep = view["keep"]
        assert keep is not None, "the keeper is asked"
        action = ("keep", max(keep["leftovers"]))
    else:
        action = _joust(view, legal, rng)
    return action if action in legal else legal[rng.randrange(len(legal))]


# --------------------------------------------------------------------------- auctions


def _bid(view: JoustPolicyView, legal: list[Action], rng: random.Random) -> Action:
    auction = view["auction"]
    assert auction is not None, "an auction is under way"
    k, g, label = auction["set"], auction["group"], auction["label"]
    ev = label_values(view, k, g)[LABELS.index(label)]
    sold = sum(1 for a in view["auctions"] if a["set"] == k)
    # a small variant (options sets, groups) has fewer auctions to pace the chips over: the
    # groups show in the lots; the sets in the options (a search's light view carries them too)
    per_set = 3 * len(view["lots"][k - 1]["groups"])
    sets = view.get("options", {}).get("sets", SETS)
    left = (sets - k) * per_set + (per_set - sold)  # auctions still to come, this one included
    chips = view["chips"][view["seat"]]
    low, high = tile_range(view)
    mean = (high + low) / 2
    limit = int(chips / max(left, 1) * 2.2 * (ev / mean) ** 2 + rng.random() * 2)
    limit = min(limit, chips)
    bid = auction["bid"]
    if bid is None:
        want = max(0, int(limit * 0.4))
    elif bid < limit:
        want = min(limit, bid + 1 + rng.randrange(3))
    else:
        return ("fold",)
    return ("bid", want)


def _next(view: JoustPolicyView, legal: list[Action]) -> Action:
    auction = view["auction"]
    assert auction is not None, "a next choice is under way"
    evs = label_values(view, auction["set"], auction["group"])
    best = max((a for a in legal if a[0] == "next"), key=lambda a: evs[a[1]])
    return best


# --------------------------------------------------------------------------- jousts


def _playable(view: JoustPolicyView, legal: list[Action]) -> list[tuple[int, Action]]:
    """(value, action) for each tile that can be played, one action per tile."""
    seen: dict[tuple[int, ...], Action] = {}
    for a in legal:
        if a[0] == "play":
            seen.setdefault(a[1:], a)
    out: list[tuple[int, Action]] = []
    values = {a[1] for a in seen.values()}
    for v in sorted(values):
        bare = seen.get((v,))
        if bare is not None:
            out.append((v, bare))
        else:
            out.extend((v, a) for key, a in sorted(seen.items()) if key[0] == v and len(key) == 3)
    return out


def _joust(view: JoustPolicyView, legal: list[Action], rng: random.Random) -> Action:
    items = _items(view, legal)
    if items is not None:
        return items
    tiles = _playable(view, legal)
    if not tiles:
        return ("pass",)
    me = view["seat"]
    joust = view["joust"]
    assert joust is not None, "a joust is under way"
    number = joust["number"]
    current = [p for p in view["plays"] if p["joust"] == number]
    if joust["required"]:
        if len(tiles) > 3 and rng.random() < 0.2:
            return tiles[len(tiles) // 2][1]
        return tiles[0][1]
    # a seat's own plays always carry their value
    mine = sum(p["value"] for p in current if p["seat"] == me and p["value"] is not None)
    memo: dict[int, set[int]] = {}
    theirs = sum(play_value(view, p, memo) for p in current if p["seat"] != me)
    if mine > theirs + 1:
        return ("pass",)
    final = view["set"] == "final"
    spare = len(tiles) - (0 if final else 1)  # a set phase needs 2 tiles to go on jousting
    if spare <= 0:
        return ("pass",)
    need = theirs + 1 - mine
    for v, action in tiles:
        if v >= need:
            return action
    largest_value, largest = tiles[-1]
    if need - largest_value <= 3 and len(tiles) > 2:
        return largest
    return ("pass",)


def _items(view: JoustPolicyView, legal: list[Action]) -> Action | None:
    if ("conceal",) in legal:
        return ("conceal",)
    inverts = [a for a in legal if a[0] == "invert"]
    if not inverts:
        return None
    smallest = min(a[1] for a in inverts)
    _, top = tile_range(view)  # inversion turns X into top - X
    if top - 2 * smallest >= 7 or (view["set"] == "final" and smallest < top - smallest):
        return next(a for a in inverts if a[1] == smallest)
    return None
