"""The swapping search's helpers (``SWAPPING_TUNING`` in :mod:`.ismcts` names them).

``policy``: the heuristic (``bots/heuristic/swapping.py``) read from a world's state
instead of a view, making exactly its choices for the same rng.  Inside the search
it plays the other seat (the opponent model) and this seat's later moves; building
a view for every such move cost more than the choice.

``draw_worlds``: the search's worlds with the other seat's hidden row drawn as if it
had played the heuristic.  ``State.resample`` draws that row uniformly among the
histories that fit what the seat was told (the running totals, the reveals, one swap
per step).  The heuristic does not swap at random: it moves the cheapest tile that
beats a revealed tile onto it and reveals the tiles that lock a won position first,
so its swaps and reveals are evidence about the tiles it still hides.  Here the
other seat's history is replayed forward from a first row drawn to fit the totals
(the heuristic places at random, so that part is exact): at every past step its swap
is drawn from the heuristic's best swaps mixed with a ``WHIM`` share of any legal
swap, restricted to the swaps that bring the tile it then revealed to where it was
shown, and its reveal is weighed by how likely the same mixture makes it
(sequential importance sampling).  The worlds returned are drawn from those replays
in proportion to their weights raised to ``TEMPER`` (flattened: the plain weights
collapse onto a few replays late in the swap phase).  What the other seat saw at a step (this seat's
reveals before it) is public, so the heuristic's tables are built once per decision.
Only the rules without ``show_colours`` are handled (there the colours are evidence
too); otherwise, and before the other seat has swapped in private, ``draw_worlds``
returns ``None`` and the search draws worlds as usual.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from typing import Any, cast

from ..engine.core import Action, State
from ..engine.registry import make_game
from ..games.swapping import Swapping, SwappingState, _hidden_actions
from ..games.swapping_sampler import _increments, _placements
from .base import Decision
from .heuristic.swapping import _cell_value, choose, reveal_scores

#: share of the other seat's moves taken as whim (any legal move) rather than the heuristic's
WHIM = 0.05
#: replays drawn per world returned
REPLAYS = 4
#: the power the replays' weights are raised to before the worlds are drawn by them.
#: Late in the swap phase the plain weights rest on two to six of the 128 replays, so
#: the 32 worlds held a few rows with a confidence the evidence does not carry (their
#: log-probability of the true tiles fell below uniform worlds'); flattened, they get as
#: many hidden positions right and hold more rows (docs/bots.md, "Swapping against the
#: heuristic")
TEMPER = 0.25


def draw_worlds(decision: Decision, count: int, rng: random.Random) -> list[State] | None:
    """``count`` worlds for ``decision`` with the other seat's row drawn as above, or
    ``None`` when this sampler has nothing to add (play phase, no private swap of the
    other seat yet, ``show_colours``)."""
    view: Any = decision.view
    phase = view["phase"]
    if phase not in ("swap", "reveal") or view["show_colours"]:
        return None
    me = decision.seat
    n = len(view["my_row"])
    theirs = [(r["tile"], r["position"] - 1) for r in view["their_reveals"]]
    mine_shown = [(r["tile"], r["position"] - 1) for r in view["my_reveals"]]
    done = len(theirs)  # completed steps
    # the other seat's swap of the current step is made (privately) once reveals are asked
    steps = done + (1 if phase == "reveal" else 0)
    swapped = [_can_swap([t for t, _ in theirs[:j]], n) for j in range(steps)]
    if not any(swapped):
        return None  # no private swap: the uniform draw is already the heuristic's law
    row = [c["tile"] for c in view["my_row"]]
    first_mine = row[:]
    for a, b in reversed(view["my_swaps"]):
        first_mine[a - 1], first_mine[b - 1] = first_mine[b - 1], first_mine[a - 1]
    incs = _increments([tuple(t) for t in view["totals"]], me)
    table = _placements(tuple(first_mine), incs, (-1,) * n, (-1,) * n, n)
    tables = [_values(mine_shown[:j], n) for j in range(steps)]
    faced = [_facing(mine_shown[:j], n) for j in range(len(theirs))]
    replays: list[tuple[list[int], list[tuple[int, int]]]] = []
    weights: list[float] = []
    total = 0.0
    cum: list[float] = []
    for _ in range(REPLAYS * count):
        first = table.draw(rng)
        if first is None:
            return None
        found = _replay(first, theirs, mine_shown, swapped, tables, faced, n, rng)
        if found is None:
            continue
        weight, now, swaps = found
        weight **= TEMPER
        total += weight
        cum.append(total)
        replays.append((now, swaps))
        weights.append(weight)
    if not replays:
        return None
    base = _base_world(view, me)
    opp = 1 - me
    out: list[State] = []
    for _ in range(count):
        now, swaps = replays[bisect_right(cum, rng.random() * total)] if total > 0 else replays[0]
        world = base.clone(track=False)
        assert isinstance(world, SwappingState)
        world._set_row(opp, list(now), list(swaps), redo=False)
        out.append(world)
    return out


def _base_world(view: Any, me: int) -> SwappingState:
    """The world of ``me``'s view with the other seat's row still to be set: built from
    the view alone, so it reads nothing the seat was not told.  Only for the swap and
    reveal phases without ``show_colours`` (where ``draw_worlds`` draws): there the view
    holds every field of the state but the other seat's hidden row and swaps.  The
    same as ``sample_world`` gives but for that row (tested), without the exact
    sampler's table, which late in the swap phase cost more than the rest of a
    decision's worlds; ``draw_worlds`` replaces the row anyway."""
    options = view["options"]
    key = tuple(sorted(options.items()))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = cast(Swapping, make_game("swapping", options))
    world = game.new_initial_state()
    world.track = False
    n = world.tiles
    world.phase = view["phase"]
    world.game_no = view["game_no"]
    world.ties = view["ties"]
    world.past = [(a, b) for a, b in view["past_games"]]
    world.round = view["play_round"]
    world.step = view["swap_step"]
    world.totals = [(a, b) for a, b in view["totals"]]
    opp = 1 - me
    row = [c["tile"] for c in view["my_row"]]
    world.rows[me] = row
    where = world.where[me]
    for p, t in enumerate(row):
        where[t] = p
    world.swaps[me] = [(a - 1, b - 1) for a, b in view["my_swaps"]]
    for seat, reveals in ((me, view["my_reveals"]), (opp, view["their_reveals"])):
        for r in reveals:
            world.reveals[seat].append(r["tile"])
            world.shown[seat][r["tile"]] = True
    for r in view["their_reveals"]:
        world.rows[opp][r["position"] - 1] = r["tile"]
        world.where[opp][r["tile"]] = r["position"] - 1
    # the seats that could swap at this step (the state keeps them through its reveals)
    world.swappers = tuple(s for s in (0, 1) if world._can_swap(s))
    assert n == len(row)
    return world


#: the games ``_base_world`` builds its worlds of, by options
_GAMES: dict[tuple[tuple[str, Any], ...], Swapping] = {}


def _can_swap(revealed: list[int], n: int) -> bool:
    hidden = [t for t in range(n) if t not in revealed]
    return any(t % 2 == 0 for t in hidden) and any(t % 2 == 1 for t in hidden)


def _values(shown: list[tuple[int, int]], n: int) -> list[list[float]]:
    """What the other seat's heuristic gives each of its tiles at each position when
    this seat has revealed ``shown`` (tile, position): ``_cell_value`` per cell."""
    target: list[int | None] = [None] * n
    for t, p in shown:
        target[p] = t
    gone = {t for t, _ in shown}
    hidden = [t for t in range(n) if t not in gone]
    out = []
    for p in range(n):
        out.append([_cell_value(x, hidden, target[p]) for x in range(n)])
    return out


def _facing(shown: list[tuple[int, int]], n: int) -> list[int | None]:
    """This seat's revealed tile at each position (``None``: hidden) once it has revealed
    ``shown`` (tile, position): what the other seat's reveals faced."""
    target: list[int | None] = [None] * n
    for t, p in shown:
        target[p] = t
    return target


def _replay(
    first: list[int],
    theirs: list[tuple[int, int]],
    mine_shown: list[tuple[int, int]],
    swapped: list[bool],
    tables: list[list[list[float]]],
    faced: list[list[int | None]],
    n: int,
    rng: random.Random,
) -> tuple[float, list[int], list[tuple[int, int]]] | None:
    """One forward replay of the other seat from ``first``: (weight, row now, swaps as
    (position of the black, position of the white) before each), or ``None`` when the
    reveals cannot be reached from it.

    At a step, a swap has the chance ``WHIM / size + (1 - WHIM) / tops`` if it is one
    of the heuristic's ``tops`` best swaps, else ``WHIM / size``.  The swaps that fit
    the next reveal either leave the revealed tile alone (it already stands where it
    was shown) or are the one swap that brings it there.  The weight gains the sum of
    the fitting swaps' chances, and one of them is drawn in proportion to its chance."""
    row = first[:]
    where = [0] * n
    for p, t in enumerate(row):
        where[t] = p
    hidden = list(range(n))
    gone = [False] * n
    swaps: list[tuple[int, int]] = []
    weight = 1.0
    rand = rng.random
    for j, can in enumerate(swapped):
        reveal = theirs[j] if j < len(theirs) else None
        if can:
            fit: tuple[int, int] | None = None  # the one fitting swap, when only one fits
            if reveal is not None and where[reveal[0]] != reveal[1]:
                # only the revealed tile with the tile standing where it was shown
                # (checked before scoring the swaps: a replay that fails draws nothing)
                r, at = reveal
                u = row[at]
                if gone[u] or not (u ^ r) & 1:
                    return None
                fit = (u, r) if r & 1 else (r, u)
            v = tables[j]
            blacks = [t for t in hidden if not t & 1]
            whites = [t for t in hidden if t & 1]
            cols = [(w, v[where[w]]) for w in whites]
            deltas = []
            for b in blacks:
                vb = v[where[b]]
                own = vb[b]
                for w, vw in cols:
                    deltas.append(vb[w] - own + vw[b] - vw[w])
            best = max(deltas) - 1e-9
            nw = len(whites)
            size = len(deltas)
            tops = [(blacks[k // nw], whites[k % nw]) for k, d in enumerate(deltas) if d >= best]
            if reveal is None:  # a swap whose reveal is still to come: any fits
                fit_tops = tops
                count = size
            elif fit is None:  # any swap that leaves the revealed tile alone
                r = reveal[0]
                fit_tops = [m for m in tops if r not in m]
                count = size - (len(blacks) if r & 1 else nw)
            else:
                fit_tops = [fit] if fit in tops else []
                count = 1
            if count <= 0:
                return None
            if size == 1:
                z_top = z = 1.0
            else:
                z_top = (1.0 - WHIM) / len(tops) * len(fit_tops)
                z = z_top + WHIM / size * count
            weight *= z
            if fit_tops and rand() * z < z_top:
                b, w = fit_tops[int(rand() * len(fit_tops))]
            elif fit is not None:
                b, w = fit
            elif reveal is None:  # any swap, evenly
                k = int(rand() * size)
                b, w = blacks[k // nw], whites[k % nw]
            else:  # any swap leaving r alone, evenly
                r = reveal[0]
                bs = [x for x in blacks if x != r]
                ws = [x for x in whites if x != r]
                b, w = bs[int(rand() * len(bs))], ws[int(rand() * len(ws))]
            pb, pw = where[b], where[w]
            row[pb], row[pw] = w, b
            where[b], where[w] = pw, pb
            swaps.append((pb, pw))
        if reveal is None:
            break
        r, at = reveal
        if where[r] != at:
            return None
        if len(hidden) > 1:
            facing = faced[j]
            scored = reveal_scores(hidden, hidden, [facing[where[t]] for t in hidden], n - len(mine_shown[:j]))
            top = max(s for _, s in scored) - 1e-9
            tops_r = sum(1 for _, s in scored if s >= top)
            weight *= WHIM / len(hidden) + ((1.0 - WHIM) / tops_r if scored[hidden.index(r)][1] >= top else 0.0)
        hidden.remove(r)
        gone[r] = True
    return weight, row, swaps


def policy(world: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The heuristic's choice (``bots/heuristic/swapping.py``'s ``choose``) for ``seat``
    of ``world``, read from the state instead of a view: the same scores, the same
    order of ``legal`` and the same draw among ties, so the same action for the same
    rng.  A search calls it for every modelled move, where building the view cost
    more than the choice.

    The heuristic's best actions depend only on the seat's revealed tiles, the positions
    of its tiles and the other seat's revealed tile at each position; when ``legal`` is
    the seat's whole list in the state's order (always, in a search), they are kept in
    ``_BEST`` by those, so a position met again (the same worlds are replayed all through
    a decision) costs a lookup and the same single draw among them."""
    assert isinstance(world, SwappingState)
    phase = world.phase
    if phase == "play" or len(legal) == 1 or world.show_colours:
        if phase == "play" or len(legal) == 1:
            return legal[rng.randrange(len(legal))]
        view = cast(Any, world._view(seat))
        view["game"] = world.game.id
        view["seat"] = seat
        return choose(view, legal, rng)
    n = world.tiles
    opp = 1 - seat
    at = world.where[opp]
    target: list[int | None] = [None] * n
    for t in world.reveals[opp]:  # the other seat's revealed tiles (``shown``), which never move
        target[at[t]] = t
    mine = tuple(world.shown[seat])
    where = world.where[seat]
    key = (phase, tuple(target), tuple(where), mine)
    found = _BEST.get(key)
    if found is not None and len(legal) == found[0]:
        best = found[1]
    else:
        best = _swap_best(target, where, legal, n) if phase == "swap" else _reveal_best(target, where, mine, legal)
        if tuple(legal) == _hidden_actions(phase, mine):  # the whole list, in the state's order
            if len(_BEST) >= _BEST_SIZE:
                _BEST.clear()
            _BEST[key] = (len(legal), best)
    return best[rng.randrange(len(best))]


#: ``policy``'s best actions by (phase, the other seat's revealed tile per position,
#: the seat's positions by tile, its revealed tiles), with the length of the whole list
#: they were chosen from (a shorter ``legal`` is scored afresh); emptied when full
_BEST: dict[tuple[str, tuple[int | None, ...], tuple[int, ...], tuple[bool, ...]], tuple[int, list[Action]]] = {}
_BEST_SIZE = 1 << 13  # about 5 MB full; a decision meets a few hundred new positions


def _swap_best(target: list[int | None], where: list[int], legal: list[Action], n: int) -> list[Action]:
    """The heuristic's best swaps among ``legal`` (in their order), the seat's tiles at
    ``where`` facing ``target``."""
    key = tuple(target)
    table = _TABLES.get(key)
    if table is None:
        table = _swap_table(target, n)
    at = [table[p] for p in where]  # each tile's values where it stands
    best: list[Action] = []
    best_value = -1e9
    for action in legal:
        _, a, b = action
        ta, tb = at[a], at[b]
        value = (ta[b] - ta[a]) + (tb[a] - tb[b])
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif abs(value - best_value) <= 1e-9:
            best.append(action)
    return best


def _reveal_best(
    target: list[int | None], where: list[int], mine: tuple[bool, ...], legal: list[Action]
) -> list[Action]:
    """The heuristic's best reveals among ``legal`` (in their order): ``mine`` the seat's
    revealed tiles, its tiles at ``where`` facing ``target``."""
    unrevealed = [t for t in range(len(mine)) if not mine[t]]
    tiles = [action[1] for action in legal]
    their_open = sum(1 for v in target if v is None)
    scored = reveal_scores(tiles, unrevealed, [target[where[t]] for t in tiles], their_open)
    best: list[Action] = []
    best_score = -1e9
    for action, (_, score) in zip(legal, scored):
        if score > best_score + 1e-9:
            best, best_score = [action], score
        elif abs(score - best_score) <= 1e-9:
            best.append(action)
    return best


#: ``_swap_table`` by the other seat's revealed tile per position (``None``: hidden)
_TABLES: dict[tuple[int | None, ...], list[list[float]]] = {}


def _swap_table(target: list[int | None], n: int) -> list[list[float]]:
    """Per position, what each tile of the seat is worth there to the heuristic's swap
    (``_cell_value``): facing a revealed tile, or facing the other seat's hidden ones.
    Kept in ``_TABLES`` (a pure function of ``target``; emptied when large)."""
    pv = _position_values([t for t in range(n) if t not in target], n)
    table = [pv if tg is None else _target_values(tg, n) for tg in target]
    if len(_TABLES) >= 4096:
        _TABLES.clear()
    _TABLES[tuple(target)] = table
    return table


def _position_values(hidden: list[int], n: int) -> list[float]:
    """``_position_value(x, hidden)`` for every tile ``x`` (``hidden`` ascending), in one pass."""
    m = len(hidden)
    if not m:
        return [0.0] * n
    present = [0] * n
    for t in hidden:
        present[t] = 1
    out = []
    less = 0
    for x in range(n):
        out.append((less - (m - less - present[x])) / m)
        less += present[x]
    return out


_TARGETS: dict[tuple[int, int], list[float]] = {}


def _target_values(target: int, n: int) -> list[float]:
    """``_cell_value(x, _, target)`` for every tile ``x`` facing a revealed ``target``."""
    found = _TARGETS.get((target, n))
    if found is None:
        found = _TARGETS[(target, n)] = [_cell_value(x, [], target) for x in range(n)]
    return found
