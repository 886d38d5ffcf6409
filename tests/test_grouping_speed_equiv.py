"""The grouping engine's fast paths against plain reference versions of the same steps.

The fast paths (cached deal plans, the spelled-out shuffle, copy-on-write clones, rounds
logged as named tuples) must draw the same numbers from the same rng and show the same
facts as the straightforward code they replace.
"""

from __future__ import annotations

import random
from itertools import permutations

from blackwhite.engine import make_game
from blackwhite.engine.play import random_step
from blackwhite.games import grouping as g
from blackwhite.games import grouping_sampler as gs


def _ref_sample_deal(groups, cons, rng, order=None):
    """The plain version of ``sample_deal``: weights, fallbacks, one draw per group."""
    masks = (g.mask_of(groups[0]), g.mask_of(groups[1]), g.mask_of(groups[2]))
    weights = gs._order_weights(masks, cons)
    if order is not None:
        weights = [w if g.ORDERS[i] == order else 0 for i, w in enumerate(weights)]
    if sum(weights) == 0:
        cons = gs.relax(cons)
        weights = gs._order_weights(masks, cons)
        if order is not None:
            weights = [w if g.ORDERS[i] == order else 0 for i, w in enumerate(weights)]
        if sum(weights) == 0:
            cons = (g.ALL,) * g.TILES
            weights = [1] * 6 if order is None else [int(o == order) for o in g.ORDERS]
    k = rng.choices(range(6), weights=weights)[0]
    deal = [0] * g.TILES
    for grp, span in enumerate(g.ORDER_POSITIONS[k]):
        allowed = tuple(cons[p] for p in span)
        fits = [p for p in permutations(groups[grp]) if all(m >> t & 1 for m, t in zip(allowed, p))]
        perm = fits[rng.randrange(len(fits))]
        for p, t in zip(span, perm):
            deal[p] = t
    return tuple(deal)


def _random_cons(rng: random.Random, deal: tuple[int, ...]) -> tuple[int, ...]:
    n = rng.randrange(0, 10)
    out = []
    for p in range(g.TILES):
        t = deal[p]
        r = rng.random()
        if p >= n:
            out.append(g.ALL)
        elif r < 0.25:
            out.append(1 << t)
        elif r < 0.3 and t == 8:
            out.append(g.EIGHT)
        elif r < 0.35:
            out.append(1 << rng.randrange(g.TILES))  # an impossible fact now and then
        else:
            out.append(g.COLOUR_MASKS[t] & ~g.EIGHT if t != 8 and r < 0.5 else g.COLOUR_MASKS[t])
    return tuple(out)


def test_sample_deal_draws_as_the_reference() -> None:
    rng = random.Random(11)
    for i in range(300):
        groups = g.GROUPINGS[rng.randrange(len(g.GROUPINGS))]
        deal = gs.sample_deal(groups, (g.ALL,) * g.TILES, rng)
        cons = _random_cons(rng, deal)
        order = g.ORDERS[rng.randrange(6)] if i % 3 == 0 else None
        for _ in range(2):  # the second call uses the cached plan
            a, b = random.Random(i), random.Random(i)
            assert gs.sample_deal(groups, cons, a, order) == _ref_sample_deal(groups, cons, b, order)
            assert a.random() == b.random()


def test_deal_weights_as_the_reference() -> None:
    rng = random.Random(5)
    for _ in range(12):
        groups = g.GROUPINGS[rng.randrange(len(g.GROUPINGS))]
        cons = _random_cons(rng, gs.sample_deal(groups, (g.ALL,) * g.TILES, rng))
        weights = gs._deal_weights(cons)
        if weights is None:
            continue
        for i in range(0, len(g.GROUPINGS), 7):
            assert weights[i] == sum(gs._order_weights(g.GROUPING_MASKS[i], cons))


def _ref_sample_chance(state: g.GroupingState, rng: random.Random) -> tuple[int, list[int]]:
    """The plain ``sample_chance``: ``rng.shuffle`` the group order, then each group."""
    seat = 0 if len(state.deals[0]) <= state.deal_no else 1
    groups = state.groups[seat]
    assert groups is not None
    order = [0, 1, 2]
    rng.shuffle(order)
    tiles: list[int] = []
    for k in order:
        inside = list(groups[k])
        rng.shuffle(inside)
        tiles.extend(inside)
    return seat, tiles


def test_sample_chance_draws_as_random_shuffle() -> None:
    """``sample_chance`` reads ``rng._randbelow`` as ``rng.shuffle`` would: the same deal
    and the rng left in the same state, over many deals of many groupings."""
    rng = random.Random(3)
    compared = 0
    for gid in ("grouping", "grouping-final"):
        for _ in range(40):
            state = make_game(gid).new_initial_state()
            while not state.is_over():
                if state.is_chance():
                    for _ in range(5):
                        seed = rng.random()
                        a, b = random.Random(seed), random.Random(seed)
                        event = state.sample_chance(a)
                        assert (event.data["seat"], event.data["tiles"]) == _ref_sample_chance(state, b)
                        assert isinstance(event.data["tiles"], list)
                        assert a.random() == b.random()
                        compared += 1
                random_step(state, rng)
    assert compared > 1000


def test_clones_share_nothing_that_play_changes() -> None:
    rng = random.Random(8)
    for gid in ("grouping", "grouping-final"):
        for _ in range(15):
            options = {"items": {"0": ["peek", "order"], "1": ["bonus", "order"]}} if gid == "grouping-final" else {}
            state = make_game(gid, options).new_initial_state()
            for _ in range(rng.randrange(0, 80)):
                if state.is_over():
                    break
                random_step(state, rng)
            before = [state.view(s) for s in (0, 1)]
            rounds = state.rounds
            for track in (True, False):
                copy = state.clone(track=track)
                world = state.resample(rng.randrange(2), random.Random(1))
                for other in (copy, world):
                    for _ in range(60):
                        if other.is_over():
                            break
                        random_step(other, rng)
            assert [state.view(s) for s in (0, 1)] == before
            assert state.rounds == rounds == before[0]["rounds"] == before[1]["rounds"]


def _ref_cons(state, viewer, owner, d):
    """The plain version of ``_cons``: what ``viewer`` knows of each position of a deal."""
    deal = state.deals[owner][d]
    n = state._dealt(d)
    bit = g.PUBLIC if viewer is None else 1 << viewer
    out = []
    for p in range(g.TILES):
        i = 9 * d + p
        if p >= n:
            out.append(g.ALL)
        elif state.vis[owner][i] & bit:
            out.append(1 << deal[p])
        elif state.eight[owner][i] == 1:
            out.append(g.EIGHT)
        elif state.eight[owner][i] == 0:
            out.append(g.COLOUR_MASKS[deal[p]] & ~g.EIGHT)
        else:
            out.append(g.COLOUR_MASKS[deal[p]])
    return tuple(out)


def test_cons_as_the_reference() -> None:
    rng = random.Random(12)
    checked = 0
    for gid in ("grouping", "grouping-final"):
        for k in range(12):
            options = {"see_own_tile": k % 3 == 0}
            if gid == "grouping-final":
                options["items"] = {"0": ["peek"], "1": ["peek", "order"]}
            state = make_game(gid, options).new_initial_state()
            while not state.is_over():
                random_step(state, rng)
                for owner in (0, 1):
                    for d in range(len(state.deals[owner])):
                        for viewer in (None, 0, 1):
                            assert state._cons(viewer, owner, d) == _ref_cons(state, viewer, owner, d)
                            checked += 1
    assert checked > 5000
