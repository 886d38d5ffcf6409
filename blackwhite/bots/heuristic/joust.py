"""Heuristic play of ``joust`` and ``joust-final``, reading only the seat's view.

What a thoughtful player does:

* **Valuing a tile**: a tile on sale is known only by its label and colour.  Its
  expected value is the mean over every way to fill its group from the values the
  seat has not seen (own tiles, tiles it was told, revealed plays), keeping the
  group's colours and Minute < Balance < Giant.
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
from itertools import product
from typing import Any

from ...engine.core import Action

LABELS = ("minute", "balance", "giant")
TOP = 13


def choose(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    if len(legal) == 1:
        return legal[0]
    phase = view["phase"]
    if phase == "auction":
        action = _bid(view, legal, rng)
    elif phase == "next":
        action = _next(view, legal)
    elif phase == "keep":
        action = ("keep", max(view["keep"]["leftovers"]))
    else:
        action = _joust(view, legal, rng)
    return action if action in legal else legal[rng.randrange(len(legal))]


# --------------------------------------------------------------------------- knowledge


def _low(view: dict[str, Any]) -> int:
    return 0 if view["game"] == "joust-final" else 1


def _seen(view: dict[str, Any], k: int) -> set[int]:
    """Values of set ``k`` (1-based) the seat has seen."""
    out: set[int] = set()
    for lot in view["lots"]:
        if lot["set"] != k:
            continue
        for group in lot["groups"]:
            out.update(t["value"] for t in group["tiles"] if t["value"] is not None)
        out.update(e["value"] for e in lot["leftovers"] if e["value"] is not None)
    for tile in view["my_tiles"]:
        if tile["set"] == k:
            out.add(tile["original"])
    for play in view["plays"]:
        if play["set"] == k and play["value"] is not None and play["seat"] != view["seat"]:
            out.add(play["value"])
    return out


def _label_values(view: dict[str, Any], k: int, g: int) -> list[float]:
    """Expected value of each label of group ``g`` of set ``k`` (both 1-based)."""
    lot = next(lot for lot in view["lots"] if lot["set"] == k)
    tiles = lot["groups"][g - 1]["tiles"]
    seen = _seen(view, k)
    pool = [v for v in range(_low(view), TOP + 1) if v not in seen]
    fixed = [t["value"] for t in tiles]
    options = []
    for r, tile in enumerate(tiles):
        if fixed[r] is not None:
            options.append([fixed[r]])
        else:
            parity = 0 if tile["colour"] == "black" else 1
            options.append([v for v in pool if v % 2 == parity])
    sums = [0.0, 0.0, 0.0]
    n = 0
    for combo in product(*options):
        if combo[0] < combo[1] < combo[2]:
            n += 1
            for r in range(3):
                sums[r] += combo[r]
    if n == 0:  # an inverted or contradictory corner: fall back on the pool's mean
        mean = sum(pool) / len(pool) if pool else TOP / 2
        return [mean, mean, mean]
    return [s / n for s in sums]


def _tile_value(view: dict[str, Any], play: dict[str, Any]) -> float:
    """Expected value of one of the opponent's announced (unrevealed) plays."""
    k, g = play["set"], play["group"]
    parity = 0 if play["colour"] == "black" else 1
    if isinstance(g, int):
        evs = _label_values(view, k, g)
        lot = next(lot for lot in view["lots"] if lot["set"] == k)
        tiles = lot["groups"][g - 1]["tiles"]
        cands = [
            evs[r]
            for r, t in enumerate(tiles)
            if t["owner"] == play["seat"] and (0 if t["colour"] == "black" else 1) == parity
        ]
        if cands:
            return sum(cands) / len(cands)
    seen = _seen(view, k)
    vals = [v for v in range(_low(view), TOP + 1) if v not in seen and v % 2 == parity]
    return sum(vals) / len(vals) if vals else TOP / 2


# --------------------------------------------------------------------------- auctions


def _bid(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    auction = view["auction"]
    k, g, label = auction["set"], auction["group"], auction["label"]
    ev = _label_values(view, k, g)[LABELS.index(label)]
    sold = sum(1 for a in view["auctions"] if a["set"] == k)
    left = (3 - k) * 12 + (12 - sold)  # auctions still to come, this one included
    chips = view["chips"][view["seat"]]
    mean = (TOP + _low(view)) / 2
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


def _next(view: dict[str, Any], legal: list[Action]) -> Action:
    auction = view["auction"]
    evs = _label_values(view, auction["set"], auction["group"])
    best = max((a for a in legal if a[0] == "next"), key=lambda a: evs[a[1]])
    return best


# --------------------------------------------------------------------------- jousts


def _playable(view: dict[str, Any], legal: list[Action]) -> list[tuple[int, Action]]:
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


def _joust(view: dict[str, Any], legal: list[Action], rng: random.Random) -> Action:
    items = _items(view, legal)
    if items is not None:
        return items
    tiles = _playable(view, legal)
    if not tiles:
        return ("pass",)
    me = view["seat"]
    number = view["joust"]["number"]
    current = [p for p in view["plays"] if p["joust"] == number]
    if view["joust"]["required"]:
        if len(tiles) > 3 and rng.random() < 0.2:
            return tiles[len(tiles) // 2][1]
        return tiles[0][1]
    mine = sum(p["value"] for p in current if p["seat"] == me)
    theirs = sum(_tile_value(view, p) for p in current if p["seat"] != me)
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


def _items(view: dict[str, Any], legal: list[Action]) -> Action | None:
    if ("conceal",) in legal:
        return ("conceal",)
    inverts = [a for a in legal if a[0] == "invert"]
    if not inverts:
        return None
    smallest = min(a[1] for a in inverts)
    if TOP - 2 * smallest >= 7 or (view["set"] == "final" and smallest < TOP - smallest):
        return next(a for a in inverts if a[1] == smallest)
    return None
