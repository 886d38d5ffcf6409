"""Drawing a joust world consistent with what one seat knows (``JoustState.resample``).

The rules live in :mod:`blackwhite.games.joust`; this module is the search bots'
sampler behind the game's ``resample`` contract (:func:`resample`), which the rules
reach through :func:`blackwhite.engine.registry.sampler`, so they never import it.  It
stays in the games package because the engine may not import from the bots.

What a draw reads (and nothing else): the seat's own tiles and the values it was
told (``know``), every group's public colours (``orig[t] & 1`` of a group tile),
the announced first labels and orders of sale, who owns which tile, and the public
announcements of the other seat's plays (set, group, colour, revealed value) and of
its inversion.  Unknown values are sorted before any shuffle, so the same view and
the same rng give the same world whatever the hidden truth is.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from ..engine.core import State
from .joust import BALANCE, CONCEALED, GIANT, GROUPS, HAND, LEFT, MINUTE, SUB, USED, JoustState

#: tries of the strict sampler before :func:`draw` falls back
RESAMPLE_TRIES = 60
_DFS_BUDGET = 4000
_SET_TRIES = 12


class World(NamedTuple):
    """A drawn world: what :func:`install` writes into a copy."""

    origs: list[list[int]]  # original values of every dealt set's slots
    where: dict[int, int]  # index of each of the other seat's plays -> its tile
    inverted: int  # the tile the other seat inverted, or -1


def resample(state: JoustState, seat: int, rng: random.Random) -> State:
    """``state.resample(seat, rng)``: see :meth:`JoustState.resample` for what the
    world keeps, redraws and drops."""
    copy = state.clone(track=False)
    assert isinstance(copy, JoustState)
    copy.pending = {s: a for s, a in copy.pending.items() if s == seat}
    opp = 1 - seat
    copy.hold[opp] = ()
    copy.used[opp] = state.used_pub[opp]
    copy.inv_tile[opp] = -1
    if state._dealt() == 0:
        return copy
    install(copy, seat, draw(state, seat, rng))
    return copy


def draw(state: JoustState, seat: int, rng: random.Random) -> World:
    """Up to ``RESAMPLE_TRIES`` strict draws, then the fallback (see ``resample``)."""
    for _ in range(RESAMPLE_TRIES):
        world = _draw_world(state, seat, rng, strict=True)
        if world is not None:
            return world
    world = _draw_world(state, seat, rng, strict=False)
    assert world is not None
    return world


def install(state: JoustState, seat: int, world: World) -> None:
    """Write a drawn world into ``state`` (a copy): every hidden field is overwritten."""
    opp = 1 - seat
    ns = state.ns
    for k, values in enumerate(world.origs):
        for slot, v in enumerate(values):
            t = k * ns + slot
            if state.own[t] == seat:
                continue
            state.orig[t] = state.val[t] = v
            if state.own[t] == opp:
                state.stat[t] = HAND
    sub: list[int] = []
    for i, t in sorted(world.where.items()):
        rec = state.plays[i]
        state.plays[i] = rec._replace(tile=t)
        if rec.value >= 0:
            state.stat[t] = USED
        else:
            state.stat[t] = SUB
            sub.append(t)
    state.sub[opp] = sub
    state.inv_tile[opp] = world.inverted
    if world.inverted >= 0:
        state.val[world.inverted] = state.game.top - state.orig[world.inverted]
    state._recount_held()


def _draw_world(state: JoustState, seat: int, rng: random.Random, strict: bool) -> World | None:
    """One try: a world, or None when the strict search gives up."""
    opp = 1 - seat
    ns = state.ns
    dealt = state._dealt()
    plays = state.plays
    mine = [i for i, p in enumerate(plays) if p.seat == opp]
    owned = [[t for t in range(k * ns, (k + 1) * ns) if state.own[t] == opp] for k in range(dealt)]
    # which tile the other seat inverted: one of its plays since, or a tile in hand
    inv_play, inv_hand = -1, False
    phi = state.inv_phase[opp]
    if strict and phi >= 0:
        # candidates a draw would always reject are left out: same result, fewer tries
        forced = [i for i in mine if not _colour_fits(state, i, owned, plays[i].colour)]
        cand = [
            i
            for i in mine
            if plays[i].phase >= phi
            and state._invertible_set(phi, plays[i].set)
            and _colour_fits(state, i, owned, 1 - plays[i].colour)
        ]
        if forced:
            if len(forced) > 1 or forced[0] not in cand:
                return None
            cand = forced
        n_hand = 0
        for k in range(dealt):
            if state._invertible_set(phi, k):
                n_hand += len(owned[k]) - sum(1 for i in mine if plays[i].set == k)
        if forced:
            n_hand = 0
        total = len(cand) + n_hand
        if total == 0:
            return None
        pick = rng.randrange(total)
        if pick < len(cand):
            inv_play = cand[pick]
        else:
            inv_hand = True
    origs: list[list[int]] = []
    where: dict[int, int] = {}
    taken: set[int] = set()
    for k in range(dealt):
        base = k * ns
        known = {t - base: state.orig[t] for t in range(base, base + ns) if state.know[t] >> seat & 1}
        values: list[int] | None = None
        if strict:
            # pins that fit locally may still leave no completion: redraw them a few times
            shown = [i for i in mine if plays[i].set == k and plays[i].value >= 0]
            for _ in range(_SET_TRIES):
                fixed = dict(known)
                if not _pin(state, k, shown, inv_play, owned[k], fixed, where, rng, [_DFS_BUDGET]):
                    return None
                values = _fill(state, k, fixed, rng, [_DFS_BUDGET])
                if values is not None:
                    break
            if values is None:
                return None
            taken.update(where[i] for i in shown)
        else:
            values = _fill(state, k, known, rng, [10**7])
            if values is None:
                values = _fill(state, k, known, rng, [10**7], rule=False)
            assert values is not None, "the seat's own knowledge is contradictory"
        origs.append(values)
    if not strict:
        for k in range(dealt):
            free = iter(owned[k])
            for i in mine:
                if plays[i].set == k:
                    where[i] = next(free)
        return World(origs, where, -1)
    for i in mine:
        rec = plays[i]
        if rec.value >= 0:
            continue
        k = rec.set
        base = k * ns
        slots = [t for t in owned[k] if t not in taken and _group_fits(t - base, rec.group)]
        rng.shuffle(slots)
        for t in slots:
            u = origs[k][t - base]
            if ((state.game.top - u) if i == inv_play else u) & 1 == rec.colour:
                where[i] = t
                taken.add(t)
                break
        else:
            return None
    inv = where[inv_play] if inv_play >= 0 else -1
    if inv_hand:
        cand_t = [
            t for k in range(dealt) if state._invertible_set(phi, k) for t in owned[k] if t not in taken
        ]
        if not cand_t:
            return None
        inv = cand_t[rng.randrange(len(cand_t))]
    return World(origs, where, inv)


def _pin(
    state: JoustState,
    k: int,
    shown: list[int],
    inv_play: int,
    owned: list[int],
    fixed: dict[int, int],
    where: dict[int, int],
    rng: random.Random,
    budget: list[int],
) -> bool:
    """Place the other seat's revealed plays of set ``k`` on its tiles of that set
    (announced group, public colour, group order), by randomised backtracking."""
    base = k * state.ns
    plays = state.plays

    def rec(n: int, free: list[int]) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if n == len(shown):
            return True
        i = shown[n]
        p = plays[i]
        u = state.game.top - p.value if i == inv_play else p.value
        slots = [t - base for t in free if _group_fits(t - base, p.group)]
        rng.shuffle(slots)
        for slot in slots:
            if not _pin_fits(state, k, slot, u, fixed):
                continue
            had = fixed.get(slot)
            fixed[slot] = u
            where[i] = base + slot
            if rec(n + 1, [t for t in free if t != base + slot]):
                return True
            del where[i]
            if had is None:
                del fixed[slot]
        return False

    return rec(0, owned)


def _colour_fits(state: JoustState, i: int, owned: list[list[int]], parity: int) -> bool:
    """Could play ``i`` be a tile whose dealt colour is ``parity``?  (A leftover's
    colour was never announced, so it could be either.)"""
    p = state.plays[i]
    base = p.set * state.ns
    for t in owned[p.set]:
        slot = t - base
        if _group_fits(slot, p.group) and (slot >= 12 or state.orig[t] & 1 == parity):
            return True
    return False


def _group_fits(slot: int, group: int) -> bool:
    """Could a play announced from ``group`` be the tile in ``slot``?"""
    if group == CONCEALED:
        return True
    if group == LEFT:
        return slot >= 12
    return slot < 12 and slot // 3 == group - 1


def _pin_fits(state: JoustState, k: int, slot: int, u: int, fixed: dict[int, int]) -> bool:
    """Can original value ``u`` sit in ``slot`` next to the values fixed so far?"""
    if slot in fixed:
        return fixed[slot] == u
    if u in fixed.values():
        return False
    if slot >= 12:
        return True
    if state.orig[k * state.ns + slot] & 1 != u & 1:  # the group's public colour
        return False
    g0, r = 3 * (slot // 3), slot % 3
    for r2 in range(3):
        v2 = fixed.get(g0 + r2)
        if v2 is not None and ((r2 < r and v2 >= u) or (r2 > r and v2 <= u)):
            return False
    return True


def _fill(
    state: JoustState, k: int, fixed: dict[int, int], rng: random.Random, budget: list[int], rule: bool = True
) -> list[int] | None:
    """Complete set ``k``'s original values around ``fixed``: each group's public
    colours and order, and (``rule``) every announced first label, by a randomised
    depth-first search with a node ``budget``."""
    ns, base = state.ns, k * state.ns
    par = [state.orig[base + s] & 1 for s in range(12)]
    out = [-1] * ns
    for s, v in fixed.items():
        out[s] = v
    pool0 = sorted(set(range(state.game.low, state.game.top + 1)) - set(fixed.values()))
    first, order = state.first, state.order

    def rec(g: int, pool: list[int]) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if g == state.game.groups:
            free = [s for s in range(12, ns) if out[s] < 0]
            vals = pool[:]
            rng.shuffle(vals)
            for s, v in zip(free, vals):
                out[s] = v
            return len(free) == len(vals)
        b = 3 * g
        unknown = [r for r in range(3) if out[b + r] < 0]
        need = first[k * GROUPS + g] if rule and g > 0 else -1
        last = -1
        if need >= 0:
            last = out[3 * (g - 1) + order[k * GROUPS + g - 1][2]]
        # the values of the unknown labels, in the order ``product`` over their
        # options would list them (the shuffle below must see the same list), but
        # by nested loops that skip what breaks Minute < Balance < Giant early
        combos: list[tuple[int, ...]] = []
        lists = [
            [v for v in pool if v & 1 == par[b + r]] if out[b + r] < 0 else [out[b + r]] for r in range(3)
        ]
        l0, l1, l2 = lists
        three = len(unknown) == 3
        for x0 in l0:
            for x1 in l1:
                if x1 <= x0:
                    continue
                for x2 in l2:
                    if x2 <= x1:
                        continue
                    if need >= 0:
                        # closest_rank inlined: nearest to ``last``, ties to Balance
                        d0, d1, d2 = abs(x0 - last), abs(x1 - last), abs(x2 - last)
                        if d1 <= d0 and d1 <= d2:
                            near = BALANCE
                        else:
                            near = MINUTE if d0 <= d2 else GIANT
                        if near != need:
                            continue
                    if three:
                        combos.append((x0, x1, x2))
                    else:
                        trip = (x0, x1, x2)
                        combos.append(tuple([trip[r] for r in unknown]))
        rng.shuffle(combos)
        for vs in combos:
            for r, v in zip(unknown, vs):
                out[b + r] = v
            if rec(g + 1, [v for v in pool if v not in vs]):
                return True
        for r in unknown:
            out[b + r] = -1
        return False

    return out if rec(0, pool0) else None
