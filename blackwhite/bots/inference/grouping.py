"""What the grouping bots infer from a view: exact tile chances, from the view alone.

The chances are exactly the frequencies ``GroupingState.resample`` draws with: they
weigh the same fitting deals (``blackwhite.games.grouping_sampler``) and the same
posterior over the opponent's groupings.  ``entries_constraints`` turns a view's
deal entries (``{"colour", "tile", "eight"}``) into the sampler's constraint masks.
"""

from __future__ import annotations

from functools import lru_cache

from ...games.grouping import ALL, BLACK, EIGHT, GROUPING_MASKS, GROUPINGS, ORDER_POSITIONS, TILES, WHITE, Groups
from ...games.grouping_sampler import _fill_counts, span_cons, fits, fitting_orders, posterior_cum

#: the constraints on groups A, B and C's positions (``span_cons``, per order)
SpanCons = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
from ...views.grouping import Entry


@lru_cache(maxsize=1 << 15)
def tile_chances(
    groups: Groups, cons: tuple[int, ...], p: int, order: tuple[int, int, int] | None = None
) -> tuple[float, ...]:
    """The chance of each tile number at position ``p`` of a deal of ``groups``, given
    what is known of the deal (``cons``) and, if known, its group order.

    A deal draws the group order and each group's arrangement uniformly among those
    fitting what is known, so each order weighs its number of fitting deals, and
    within it the group holding ``p`` contributes its fitting arrangements equally.
    """
    weights, cons = fitting_orders(groups, cons, order)  # as ``sample_deal`` draws
    if not 0 <= p < TILES:
        return (0.0,) * TILES
    return tuple(_in_orders(groups, weights, sum(weights), span_cons(cons), p))


def _in_orders(groups: Groups, weights: list[int], total: int, spans: tuple[SpanCons, ...], p: int) -> list[float]:
    """``tile_chances`` from the fitting deals of each order (``weights``, summing to
    ``total``) and the positions' constraints per order (``spans``)."""
    out = [0.0] * TILES
    for k, w in enumerate(weights):
        if not w:
            continue
        g, at = _HOLDER[k][p]
        arrangements = fits(spans[k][g], groups[g])
        share = w / total / len(arrangements)
        for arrangement in arrangements:
            out[arrangement[at]] += share
    return out


#: per group order and position: the group whose span holds the position, and where in it
_HOLDER: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(next((g, span.index(p)) for g, span in enumerate(spans) if p in span) for p in range(TILES))
    for spans in ORDER_POSITIONS
)


@lru_cache(maxsize=1 << 14)
def deal_tile_chances(facts: tuple[tuple[int, ...], ...], d: int, p: int) -> tuple[float, ...]:
    """The chance of each number at position ``p`` of deal ``d`` of a seat whose groups
    are unknown: ``tile_chances`` averaged over the posterior of its groupings given
    ``facts`` (what is known of each of its deals this set), as ``sample_grouping``
    then ``sample_deal`` would draw it."""
    cum = posterior_cum(facts)
    total = cum[-1]
    out = [0.0] * TILES
    prev = 0
    known = facts[d]
    tiles = range(TILES)
    # ``tile_chances(GROUPINGS[i], known, p)`` for each grouping, with what every
    # grouping shares looked up once: the fitting deals per order, the constraints
    table = _fill_counts(known) if 0 <= p < TILES else None
    spans = span_cons(known)
    for i, c in enumerate(cum):
        w = c - prev
        prev = c
        if not w:
            continue
        chances: tuple[float, ...] | list[float]
        if table is not None:
            a, b, m = GROUPING_MASKS[i]  # as ``fitting_orders`` counts them
            weights = [x[0].get(a, 0) * x[1].get(b, 0) * x[2].get(m, 0) for x in table]
            every = sum(weights)
            chances = _in_orders(GROUPINGS[i], weights, every, spans, p) if every else tile_chances(GROUPINGS[i], known, p)
        else:
            chances = tile_chances(GROUPINGS[i], known, p)
        share = w / total
        for t in tiles:
            x = chances[t]
            if x:
                out[t] += share * x
    return tuple(out)



def entry_mask(entry: Entry | None) -> int:
    """The tiles a view entry (``{"colour", "tile", "eight"}``) allows; for bots and views."""
    if entry is None:
        return ALL
    tile = entry.get("tile")
    if tile is not None:
        return 1 << int(tile)
    if entry.get("eight") is True:
        return EIGHT
    m = BLACK if entry["colour"] == "black" else WHITE
    if entry.get("eight") is False:
        m &= ~EIGHT
    return m


def entries_constraints(entries: list[Entry]) -> tuple[int, ...]:
    """Constraint masks of a deal from the entries a view lists for it (dealt positions)."""
    dealt = min(len(entries), TILES)
    out = []
    for p in range(dealt):  # ``entry_mask`` of each, inlined: a search asks this per simulation
        entry = entries[p]
        if entry is None:
            out.append(ALL)
            continue
        tile = entry.get("tile")
        if tile is not None:
            out.append(1 << int(tile))
            continue
        eight = entry.get("eight")
        if eight is True:
            out.append(EIGHT)
            continue
        m = BLACK if entry["colour"] == "black" else WHITE
        out.append(m & ~EIGHT if eight is False else m)
    return tuple(out) + _UNDEALT[dealt]


#: ``ALL`` for the positions of a deal not listed, by how many are listed
_UNDEALT: tuple[tuple[int, ...], ...] = tuple((ALL,) * (TILES - n) for n in range(TILES + 1))
