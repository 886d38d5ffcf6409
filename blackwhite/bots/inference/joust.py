"""What a joust seat can infer about tiles it was not told, from its view alone.

A tile on sale, or one the other seat played, is known only by its label, colour
and group.  Its expected value is the mean over every way to fill its group from
the values the seat has not seen (own tiles, tiles it was told, revealed plays),
keeping the group's colours and Minute < Balance < Giant.  The heuristic prices
bids and guesses the other seat's joust totals with these.

The label means are a pure function of a group's known values, colours and the
unseen pool, so they are memoised across calls in a module dict.  Every entry is
computed from its key alone, so threads sharing it can at worst compute one twice
(dict reads and writes are atomic); it is cleared when full.
"""

from __future__ import annotations

from ...views.joust import JoustPolicyView, PlayView

Memo = dict[int, set[int]]

_LABEL_CACHE: dict[tuple[tuple[int, ...], tuple[int, ...], int], tuple[float, float, float]] = {}
_LABEL_CACHE_MAX = 200_000


def tile_range(view: JoustPolicyView) -> tuple[int, int]:
    """(lowest, highest) tile of the view's game."""
    r = view["tile_range"]
    return r["lowest"], r["highest"]


def seen_values(view: JoustPolicyView, k: int, memo: Memo | None = None) -> set[int]:
    """Values of set ``k`` (1-based) the seat has seen (the caller must not change it).

    ``memo`` (set number -> values) saves recomputing them within one decision."""
    if memo is not None:
        got = memo.get(k)
        if got is not None:
            return got
    out: set[int] = set()
    for lot in view["lots"]:
        if lot["set"] == k:
            out = {t["value"] for group in lot["groups"] for t in group["tiles"] if t["value"] is not None}
            out.update([e["value"] for e in lot["leftovers"] if e["value"] is not None])
            break
    out.update([tile["original"] for tile in view["my_tiles"] if tile["set"] == k])
    me = view["seat"]
    out.update(
        [p["value"] for p in view["plays"] if p["set"] == k and p["value"] is not None and p["seat"] != me]
    )
    if memo is not None:
        memo[k] = out
    return out


def label_values(view: JoustPolicyView, k: int, g: int, memo: Memo | None = None) -> list[float]:
    """Expected value of each label of group ``g`` of set ``k`` (both 1-based)."""
    lot = next(lot for lot in view["lots"] if lot["set"] == k)
    tiles = lot["groups"][g - 1]["tiles"]
    seen = seen_values(view, k, memo)
    low, high = tile_range(view)
    pool = tuple(v for v in range(low, high + 1) if v not in seen)
    # each label: its known value, or -1 (black) / -2 (white) when unknown
    spec = tuple((-1 if t["colour"] == "black" else -2) if t["value"] is None else t["value"] for t in tiles)
    key = (spec, pool, high)
    got = _LABEL_CACHE.get(key)
    if got is None:
        if len(_LABEL_CACHE) >= _LABEL_CACHE_MAX:
            _LABEL_CACHE.clear()
        got = _LABEL_CACHE[key] = expected_labels(spec, pool, high)
    return list(got)


def expected_labels(spec: tuple[int, ...], pool: tuple[int, ...], high: int) -> tuple[float, float, float]:
    """Mean of each label over the fillings ``a < b < c`` of a group (see ``spec`` in
    :func:`label_values`); ``high`` is the top tile, for the empty-pool fallback.

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
        mean = sum(pool) / len(pool) if pool else high / 2
        return (mean, mean, mean)
    return (float(s0) / n, float(s1) / n, float(s2) / n)


def play_value(view: JoustPolicyView, play: PlayView, memo: Memo | None = None) -> float:
    """Expected value of one of the other seat's announced (unrevealed) plays."""
    k, g = play["set"], play["group"]
    parity = 0 if play["colour"] == "black" else 1
    if isinstance(g, int):
        evs = label_values(view, k, g, memo)
        lot = next(lot for lot in view["lots"] if lot["set"] == k)
        tiles = lot["groups"][g - 1]["tiles"]
        cands = [
            evs[r]
            for r, t in enumerate(tiles)
            if t["owner"] == play["seat"] and (0 if t["colour"] == "black" else 1) == parity
        ]
        if cands:
            return sum(cands) / len(cands)
    seen = seen_values(view, k, memo)
    low, high = tile_range(view)
    vals = [v for v in range(low, high + 1) if v not in seen and v % 2 == parity]
    return sum(vals) / len(vals) if vals else high / 2


__all__ = ["expected_labels", "label_values", "play_value", "seen_values", "tile_range"]
