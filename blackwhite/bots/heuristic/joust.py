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
#
# Search rollouts call the policy at every step, so what it derives from a view is
# computed once per call (``seen``: set number -> values seen) and the expected label
# values, a pure function of the group's known values, colours and the unseen pool,
# are memoised across calls.


def _low(view: dict[str, Any]) -> int:
    return 0 if view["game"] == "joust-final" else 1


def _seen(view: dict[str, Any], k: int, memo: dict[int, set[int]] | None = None) -> set[int]:
    """Values of set ``k`` (1-based) the seat has seen (the caller must not change it)."""
    if memo is not None:
        got = memo.get(k)
        if got is not None:
            return got
    out: set[int] = set()
    for lot in view["lots"]:
        if lot["set"] == k:
            out = {t["value"] for group in lot["groups"] for t in group["tiles"]}
            out.update([e["value"] for e in lot["leftovers"]])
            out.discard(None)
            break
    out.update([tile["original"] for tile in view["my_tiles"] if tile["set"] == k])
    me = view["seat"]
    out.update(
        [p["value"] for p in view["plays"] if p["set"] == k and p["value"] is not None and p["seat"] != me]
    )
    if memo is not None:
        memo[k] = out
    return out


_LABEL_CACHE: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[float, float, float]] = {}
_LABEL_CACHE_MAX = 200_000


def _label_values(
    view: dict[str, Any], k: int, g: int, memo: dict[int, set[int]] | None = None
) -> list[float]:
    """Expected value of each label of group ``g`` of set ``k`` (both 1-based)."""
    lot = next(lot for lot in view["lots"] if lot["set"] == k)
    tiles = lot["groups"][g - 1]["tiles"]
    seen = _seen(view, k, memo)
    pool = tuple(v for v in range(_low(view), TOP + 1) if v not in seen)
    # each label: its known value, or -1 (black) / -2 (white) when unknown
    spec = tuple(
        (-1 if t["colour"] == "black" else -2) if t["value"] is None else t["value"] for t in tiles
    )
    key = (spec, pool)
    got = _LABEL_CACHE.get(key)
    if got is None:
        if len(_LABEL_CACHE) >= _LABEL_CACHE_MAX:
            _LABEL_CACHE.clear()
        got = _LABEL_CACHE[key] = _expected_labels(spec, pool)
    return list(got)


def _expected_labels(spec: tuple[int, ...], pool: tuple[int, ...]) -> tuple[float, float, float]:
    """Mean of each label over the fillings ``a < b < c`` of a group (see ``spec`` above).

    The sums are whole numbers, so counting them by the middle label gives exactly
    what summing every combination would."""
    opts = [[x] if x >= 0 else [v for v in pool if v % 2 == -1 - x] for x in spec]
    low_opts, mid_opts, high_opts = opts
    n = s0 = s1 = s2 = 0
    for b in mid_opts:
        na = sa = 0
        for a in low_opts:
            if a < b:
                na += 1
                sa += a
        if not na:
            continue
        nc = sc = 0
        for c in high_opts:
            if c > b:
                nc += 1
                sc += c
        if not nc:
            continue
        n += na * nc
        s0 += sa * nc
        s1 += b * na * nc
        s2 += sc * na
    if n == 0:  # an inverted or contradictory corner: fall back on the pool's mean
        mean = sum(pool) / len(pool) if pool else TOP / 2
        return (mean, mean, mean)
    return (float(s0) / n, float(s1) / n, float(s2) / n)


def _tile_value(view: dict[str, Any], play: dict[str, Any], memo: dict[int, set[int]] | None = None) -> float:
    """Expected value of one of the opponent's announced (unrevealed) plays."""
    k, g = play["set"], play["group"]
    parity = 0 if play["colour"] == "black" else 1
    if isinstance(g, int):
        evs = _label_values(view, k, g, memo)
        lot = next(lot for lot in view["lots"] if lot["set"] == k)
        tiles = lot["groups"][g - 1]["tiles"]
        cands = [
            evs[r]
            for r, t in enumerate(tiles)
            if t["owner"] == play["seat"] and (0 if t["colour"] == "black" else 1) == parity
        ]
        if cands:
            return sum(cands) / len(cands)
    seen = _seen(view, k, memo)
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
    memo: dict[int, set[int]] = {}
    theirs = sum(_tile_value(view, p, memo) for p in current if p["seat"] != me)
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
