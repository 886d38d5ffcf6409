"""Drawing a grouping seat's hidden facts from what another seat knows of them.

``GroupingState.resample`` (the rules module's sampling contract) is :func:`resample`
here, reached through :func:`blackwhite.engine.registry.sampler` so that the rules
never import this module, which imports their tables; the bots' exact tile chances (``blackwhite.bots.inference.grouping``) share
its posterior and its counts of fitting deals, so the chances they compute are the
frequencies ``resample`` draws with.

What a seat knows about one deal is a tuple of nine masks: the tiles each position
may hold (a colour, an exact number, "the 8"/"not the 8", or anything when not yet
dealt).  For a grouping, a group order and a group, the number of ways to lay the
group's tiles on its positions is a small permanent; one DP over the positions gives
it for every candidate tile set at once.  Weighting groupings by the product over
deals is the exact posterior under a uniform prior over groupings.

In the Final a seat regroups under limits from set 2 on, so its groups of every set
form a chain of legal regroupings.  ``chain_posterior_cum`` weighs the groups in
force by everything known of the deals of every set: a forward pass over the chain
(an HMM whose hidden state is the grouping) under a uniform prior over set-1
groupings and over the legal regroupings of each later set.  Every grouping has the
same number of legal regroupings (147 under the Final's limits) and the relation is
symmetric, so the pass needs only integer sums over each grouping's neighbours.  The
pass over the earlier sets is cached by their facts, which stay fixed through a set, so
a search pays it once per set.  (The bots' tile chances, ``deal_tile_chances``, still
weigh groupings by the set in force alone: in the Final from set 2 on they are not yet
the frequencies ``resample`` draws with.)

The caches are pure functions of their arguments (``lru_cache``, and ``_DEAL_PLANS``
whose entries are only ever replaced by equal ones), so threads may share them.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate, permutations

from ..engine.core import State
from .grouping import (
    ALL,
    BLACK,
    GROUPING_MASKS,
    GROUPINGS,
    ITEMS,
    ORDER_POSITIONS,
    ORDERS,
    TILES,
    WHITE,
    Groups,
    GroupingState,
    Masks,
    SeenTile,
    deal_order,
    mask_of,
)

#: a grouping's masks by its groups
_GROUPS_MASKS: dict[Groups, Masks] = dict(zip(GROUPINGS, GROUPING_MASKS))
#: group A's mask -> (B's mask, C's mask, index in ``GROUPINGS``) of every grouping with that A
_SPLITS_OF_A: dict[int, list[tuple[int, int, int]]] = {}
for _i, (_a, _b, _c) in enumerate(GROUPING_MASKS):
    _SPLITS_OF_A.setdefault(_a, []).append((_b, _c, _i))


# What a seat knows about one deal is a tuple of nine masks: the tiles each position
# may hold (a colour, an exact number, "the 8"/"not the 8", or anything when not yet
# dealt).  For a grouping, a group order and a group, the number of ways to lay the
# group's tiles on its positions is a small permanent; one DP over the positions gives
# it for every candidate tile set at once.  Weighting groupings by the product over
# deals is the exact posterior under a uniform prior over groupings.


@lru_cache(maxsize=1 << 14)
def _fill_counts(cons: tuple[int, ...]) -> tuple[tuple[dict[int, int], dict[int, int], dict[int, int]], ...]:
    """For each of the six orders and each group: tile-set mask -> ways to fill its positions.

    The 18 spans of the orders are 12 distinct runs of positions: each is counted once
    and its table shared (read only)."""
    out = []
    counted: dict[tuple[int, ...], dict[int, int]] = {}
    for spans in ORDER_POSITIONS:
        per_group = []
        for span in spans:
            known = counted.get(span)
            if known is not None:
                per_group.append(known)
                continue
            dp: dict[int, int] = {0: 1}
            for p in span:
                allowed = cons[p]
                nxt: dict[int, int] = {}
                for used, ways in dp.items():
                    free = allowed & ~used
                    while free:
                        low = free & -free
                        key = used | low
                        nxt[key] = nxt.get(key, 0) + ways
                        free ^= low
                dp = nxt
            counted[span] = dp
            per_group.append(dp)
        out.append((per_group[0], per_group[1], per_group[2]))
    return tuple(out)


def _order_weights(masks: Masks, cons: tuple[int, ...]) -> list[int]:
    table = _fill_counts(cons)
    a, b, c = masks
    return [t[0].get(a, 0) * t[1].get(b, 0) * t[2].get(c, 0) for t in table]


@lru_cache(maxsize=1 << 12)
def _deal_weights(cons: tuple[int, ...]) -> tuple[int, ...] | None:
    """Likelihood of each grouping in ``GROUPINGS`` for one deal (None: all equal)."""
    if all(m == ALL for m in cons):
        return None
    acc = [0] * len(GROUPINGS)
    for ta, tb, tc in _fill_counts(cons):
        if not (ta and tb and tc):
            continue
        gb, gc = tb.get, tc.get
        for a, x in ta.items():  # only the A sets that fit: the rest weigh nothing
            for b, c, i in _SPLITS_OF_A[a]:
                y = gb(b)
                if y:
                    z = gc(c)
                    if z:
                        acc[i] += x * y * z
    return tuple(acc)


@lru_cache(maxsize=512)
def _grouping_cum_weights(deals: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Cumulative posterior weights over ``GROUPINGS`` given what is known of each deal."""
    weights = [1] * len(GROUPINGS)
    for cons in deals:
        likelihood = _deal_weights(cons)
        if likelihood is not None:
            weights = [w * x for w, x in zip(weights, likelihood)]
    return tuple(accumulate(weights))


def relax(cons: tuple[int, ...]) -> tuple[int, ...]:
    """Drop exact numbers, keeping colours (a fallback that cannot be needed in real play)."""
    return tuple(ALL if m == ALL else (BLACK if m & BLACK else WHITE) for m in cons)


def posterior_cum(deals: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """``_grouping_cum_weights`` after the fallbacks for inconsistent facts (which cannot
    arise in real play): colours only, then nothing."""
    cum = _grouping_cum_weights(deals)
    if cum[-1] == 0:
        cum = _grouping_cum_weights(tuple(relax(c) for c in deals))
        if cum[-1] == 0:
            cum = _grouping_cum_weights(())
    return cum


Deals = tuple[tuple[int, ...], ...]


def sample_grouping(
    deals: Deals,
    rng: random.Random,
    past: tuple[Deals, ...] = (),
    limits: tuple[int, int, int] | None = None,
) -> Groups:
    """Draw a grouping from the posterior given the known facts of its deals and, under
    regrouping ``limits``, of the deals of the earlier sets (``past``, oldest first)."""
    return GROUPINGS[draw(chain_posterior_cum(past, deals, limits), rng)]


def chain_posterior_cum(
    past: tuple[Deals, ...], deals: Deals, limits: tuple[int, int, int] | None
) -> tuple[int, ...]:
    """Cumulative posterior weights over ``GROUPINGS`` of the groups in force, given what
    is known of their ``deals`` and of each earlier set's deals (``past``, oldest first),
    the groups of consecutive sets being legal regroupings under ``limits``.

    Without a past (set 1, or free regrouping) this is ``posterior_cum``.  When no chain
    fits the facts (which cannot arise in real play) the past is dropped: the answer is
    ``posterior_cum(deals)`` with its own fallbacks."""
    if not past or limits is None:
        return posterior_cum(deals)
    cum = _chain_cum(past, deals, limits)
    return cum if cum[-1] else posterior_cum(deals)


@lru_cache(maxsize=256)
def _chain_cum(past: tuple[Deals, ...], deals: Deals, limits: tuple[int, int, int]) -> tuple[int, ...]:
    return _times_likelihood(_chain_prior(past, limits), deals)


def _times_likelihood(prior: tuple[int, ...] | None, deals: Deals) -> tuple[int, ...]:
    """Cumulative weights: ``prior`` (None: uniform) times the likelihood of ``deals``."""
    weights = list(prior) if prior is not None else [1] * len(GROUPINGS)
    for cons in deals:
        likelihood = _deal_weights(cons)
        if likelihood is not None:
            weights = [w * x for w, x in zip(weights, likelihood)]
    return tuple(accumulate(weights))


_Key = tuple[tuple[Deals, ...], tuple[int, int, int]]
#: ``_chain_prior``'s answers by (past, limits); cleared when full (entries are only
#: ever replaced by equal ones, so threads may share it)
_PRIORS: dict[_Key, tuple[int, ...] | None] = {}
_PRIORS_MAX = 64


def _chain_prior(past: tuple[Deals, ...], limits: tuple[int, int, int]) -> tuple[int, ...] | None:
    """Weights over ``GROUPINGS`` of the next set's groups given the earlier sets' facts
    (None: uniform).  One step from the answer for all but the last set when it is at
    hand (the usual case: a match adds a set at a time), else a loop over every set (no
    recursion: a long match cannot exhaust the stack)."""
    if not past:
        return None
    key = (past, limits)
    if key in _PRIORS:
        return _PRIORS[key]
    before = (past[:-1], limits)
    if before in _PRIORS:
        prior = _next_prior(_PRIORS[before], past[-1], limits)
    else:
        prior = None
        for deals in past:
            prior = _next_prior(prior, deals, limits)
    if len(_PRIORS) >= _PRIORS_MAX:
        _PRIORS.clear()
    _PRIORS[key] = prior
    return prior


def _next_prior(
    prior: tuple[int, ...] | None, deals: Deals, limits: tuple[int, int, int]
) -> tuple[int, ...] | None:
    """The next set's prior from this set's prior and facts: each grouping passes its
    posterior weight to its legal regroupings.  A set whose facts no chain fits restarts
    the chain there (only inconsistent hand-made facts can do that)."""
    posterior = _times_likelihood(prior, deals)
    if not posterior[-1]:
        posterior = _grouping_cum_weights(deals)
        if not posterior[-1]:
            return None
    nxt = [0] * len(GROUPINGS)
    prev = 0
    for i, c in enumerate(posterior):
        w = c - prev
        prev = c
        if w:
            for j in regroupings_of(i, limits):
                nxt[j] += w
    # keep the integers small enough for ``draw``'s float product over a long match:
    # scaling down keeps every positive weight positive (a skew below 2**-_KEEP_BITS)
    shift = max(nxt).bit_length() - _KEEP_BITS
    if shift > 0:
        nxt = [(w >> shift) or (1 if w else 0) for w in nxt]
    return tuple(nxt)


#: the bits ``_chain_prior`` keeps of its largest weight
_KEEP_BITS = 160


@lru_cache(maxsize=None)
def regroupings_of(i: int, limits: tuple[int, int, int]) -> tuple[int, ...]:
    """Indices in ``GROUPINGS`` of the legal regroupings of grouping ``i`` (itself
    included): at most ``limits[g]`` tiles leave group g.  The groups keep their sizes,
    so the relation is symmetric: these are also the groupings ``i`` may come from."""
    a, b, c = GROUPING_MASKS[i]
    la, lb, lc = limits
    out = []
    for a2, splits in _SPLITS_OF_A.items():
        if (a & ~a2).bit_count() <= la:
            for b2, c2, j in splits:
                if (b & ~b2).bit_count() <= lb and (c & ~c2).bit_count() <= lc:
                    out.append(j)
    out.sort()
    return tuple(out)


def draw(cum: tuple[int, ...], rng: random.Random) -> int:
    """An index drawn by cumulative weights: ``rng.choices(range(len(cum)), cum_weights=cum)[0]``
    exactly as the standard library computes it (one ``random()``), without its overhead."""
    return bisect_right(cum, rng.random() * (cum[-1] + 0.0), 0, len(cum) - 1)


def sample_deal(
    groups: Groups, cons: tuple[int, ...], rng: random.Random, order: tuple[int, int, int] | None = None
) -> tuple[int, ...]:
    """Draw a deal of ``groups`` uniformly among those fitting ``cons`` (and ``order`` if known)."""
    key = (groups, cons, order)
    plan = _DEAL_PLANS.get(key)
    if plan is None:
        if len(_DEAL_PLANS) >= _DEAL_PLANS_MAX:
            _DEAL_PLANS.clear()
        plan = _DEAL_PLANS[key] = _deal_plan(groups, cons, order)
    cum, allowed, fitted = plan
    k = bisect_right(cum, rng.random() * (cum[-1] + 0.0), 0, 5)  # as ``draw``
    arrangements = fitted[k]
    if arrangements is None:
        spans = allowed[k]
        arrangements = fitted[k] = (
            fits(spans[0], groups[0]), fits(spans[1], groups[1]), fits(spans[2], groups[2])
        )
    # one draw per group, in group order (A, B, C); the groups lie in the deal in ORDERS[k]
    randrange = rng.randrange
    fa, fb, fc = arrangements
    perms = (fa[randrange(len(fa))], fb[randrange(len(fb))], fc[randrange(len(fc))])
    first, second, third = ORDERS[k]
    return perms[first] + perms[second] + perms[third]


_Perms = tuple[tuple[int, ...], ...]
_Fitted = tuple[_Perms, _Perms, _Perms]
_SpanCons = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]
_DealPlan = tuple[tuple[int, ...], tuple[_SpanCons, ...], list[_Fitted | None]]
#: ``sample_deal``'s plans by (groups, constraints, order); cleared when full
_DEAL_PLANS: dict[tuple[Groups, tuple[int, ...], tuple[int, int, int] | None], _DealPlan] = {}
_DEAL_PLANS_MAX = 1 << 15


def _deal_plan(groups: Groups, cons: tuple[int, ...], order: tuple[int, int, int] | None) -> _DealPlan:
    """What ``sample_deal`` draws from: cumulative weights over ``ORDERS``, the constraints on
    each group's positions per order (after the fallbacks for inconsistent facts: colours
    only, then nothing), and the arrangements of each group per order, filled when drawn."""
    weights, cons = fitting_orders(groups, cons, order)
    return tuple(accumulate(weights)), span_cons(cons), [None] * len(ORDERS)


def fitting_orders(
    groups: Groups, cons: tuple[int, ...], order: tuple[int, int, int] | None
) -> tuple[list[int], tuple[int, ...]]:
    """How many deals of ``groups`` fit ``cons`` in each of the six group orders (only
    ``order`` when it is known), and the constraints that was counted under: after the
    fallbacks for inconsistent facts, colours only, then nothing (all orders alike)."""
    masks = _GROUPS_MASKS.get(groups)
    if masks is None:
        masks = (mask_of(groups[0]), mask_of(groups[1]), mask_of(groups[2]))
    weights = _order_weights(masks, cons)
    if order is not None:
        weights = [w if ORDERS[i] == order else 0 for i, w in enumerate(weights)]
    if sum(weights) == 0:
        cons = relax(cons)
        weights = _order_weights(masks, cons)
        if order is not None:
            weights = [w if ORDERS[i] == order else 0 for i, w in enumerate(weights)]
        if sum(weights) == 0:
            cons = (ALL,) * TILES
            weights = [1] * len(ORDERS) if order is None else [int(o == order) for o in ORDERS]
    return weights, cons


@lru_cache(maxsize=1024)
def span_cons(cons: tuple[int, ...]) -> tuple[_SpanCons, ...]:
    """For each of the six orders: the constraints on the positions of groups A, B, C."""
    return tuple(
        (tuple(cons[p] for p in a), tuple(cons[p] for p in b), tuple(cons[p] for p in c))
        for a, b, c in ORDER_POSITIONS
    )


@lru_cache(maxsize=8192)
def fits(allowed: tuple[int, ...], tiles: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Arrangements of ``tiles`` (in a fixed order) on positions allowing ``allowed``."""
    return tuple(p for p in permutations(tiles) if all(m >> t & 1 for m, t in zip(allowed, p)))


# --------------------------------------------------------------------------- resample


def resample(state: GroupingState, seat: int, rng: random.Random) -> State:
    """``state.resample(seat, rng)``: see :meth:`GroupingState.resample` for what the
    world keeps, redraws and drops."""
    copy = state.clone(track=False)
    assert isinstance(copy, GroupingState)
    copy.pending = {s: a for s, a in copy.pending.items() if s == seat}
    copy.inferred = {}  # what it implied was the real state's knowledge, not the world's
    # fresh lists for what is redrawn (the clone shares them: see ``_copy_state``)
    copy.deals = [list(state.deals[0]), list(state.deals[1])]
    copy.groups = list(state.groups)
    copy.masks = list(state.masks)
    copy.order_known = list(state.order_known)
    opp = 1 - seat
    own = state.groups[seat]
    if own is not None:
        known = state.order_known[seat]
        for d in range(len(state.deals[seat])):
            order = known[1] if known is not None and known[0] == state.gset and d == 0 else None
            copy.deals[seat][d] = sample_deal(own, state._cons(seat, seat, d), rng, order)
    theirs_known = state.order_known[opp]
    copy.order_known[opp] = None
    if "order" in state.items_used[opp] and "order" not in state._public_used(opp):
        copy.items_left = list(state.items_left)
        copy.items_used = list(state.items_used)
        copy.items_left[opp] = tuple(i for i in ITEMS if i in state.items_left[opp] or i == "order")
        copy.items_used[opp] = tuple(i for i in state.items_used[opp] if i != "order")
        theirs_known = None
    if state.groups[opp] is not None:
        facts = tuple(state._cons(seat, opp, d) for d in range(len(state.deals[opp])))
        past = state._past_facts(seat) if state.REGROUP is not None else ()
        theirs = sample_grouping(facts, rng, past, state.REGROUP)
        copy.groups[opp] = theirs
        tmasks = (mask_of(theirs[0]), mask_of(theirs[1]), mask_of(theirs[2]))
        copy.masks[opp] = tmasks
        for d, cons in enumerate(facts):
            copy.deals[opp][d] = sample_deal(theirs, cons, rng)
        # an announced order used this set told the opponent the order: keep it in step
        if theirs_known is not None and theirs_known[0] == state.gset and copy.deals[opp]:
            copy.order_known[opp] = (state.gset, deal_order(tmasks, copy.deals[opp][0]))
    # what the opponent saw of this seat's numbers follows the redrawn deals;
    # what it saw in earlier sets is not this seat's knowledge and is dropped
    copy.seen = list(state.seen)  # copy on write (see ``GroupingState._copy_state``)
    copy.seen[opp] = [
        SeenTile(s, d, p, copy.deals[seat][d][p], how)
        for s, d, p, _t, how in state.seen[opp]
        if s >= state.gset and d < len(copy.deals[seat])
    ]
    return copy
