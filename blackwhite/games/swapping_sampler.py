"""Drawing a swapping world consistent with what one seat knows (``SwappingState.resample``).

The rules live in :mod:`blackwhite.games.swapping`; this module is the search bots'
sampler behind the game's ``resample`` contract, which reaches it through the
registry (:func:`blackwhite.engine.registry.sampler`), so the rules never import it.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from functools import lru_cache

from ..engine.core import State
from .swapping import OVER, PLAY, TILES, SwappingState


def resample(state: SwappingState, seat: int, rng: random.Random) -> State:
    """``state.resample(seat, rng)``: see :meth:`SwappingState.resample` for what the
    world keeps and what it draws."""
    copy = state.clone(track=False)
    assert isinstance(copy, SwappingState)
    copy.pending = {s: a for s, a in copy.pending.items() if s == seat}
    if state.phase == OVER:
        return copy  # every tile is face up
    opp = 1 - seat
    placed = 3 * state.round if state.phase == PLAY else state.tiles
    if placed == 0:
        return copy
    mine = _undo(state.rows[seat], state.swaps[seat])
    incs = _increments(state.totals, seat)
    swaps_known = state.show_colours or not state.swaps[opp]
    if swaps_known:
        # the opponent's first row is its row now with its (public) swaps undone
        first = _undo(state.rows[opp], state.swaps[opp])
        colours = tuple(first[q] & 1 if state.show_colours else -1 for q in range(placed))
        fixed = [-1] * placed
        for t in state.reveals[opp]:
            fixed[_back(state.where[opp][t], state.swaps[opp])] = t
        table = _placements(tuple(mine[:placed]), incs, colours, tuple(fixed), state.tiles)
        drawn = table.draw(rng)
        if drawn is None:  # cannot happen for a reachable state; stay leak-free anyway
            drawn = _shuffled_rest(state, opp, placed, rng)
            copy._set_row(opp, drawn, list(state.swaps[opp]), redo=False)
        else:
            copy._set_row(opp, drawn, list(state.swaps[opp]), redo=True)
        return copy
    row, swaps = _draw_hidden_swaps(state, opp, tuple(mine), incs, rng)
    copy._set_row(opp, row, swaps, redo=False)
    return copy


# ---------------------------------------------------------------------------- worlds
#
# Helpers of ``resample``: they read only what the sampling seat knows.


def _undo(row: list[int], swaps: list[tuple[int, int]]) -> list[int]:
    """The row as it was before ``swaps`` (positions exchanged, in reverse order)."""
    first = row[:]
    for a, b in reversed(swaps):
        first[a], first[b] = first[b], first[a]
    return first


def _back(position: int, swaps: list[tuple[int, int]]) -> int:
    """Where the tile now at ``position`` stood before ``swaps``."""
    for a, b in reversed(swaps):
        if position == a:
            position = b
        elif position == b:
            position = a
    return position


def _increments(totals: list[tuple[int, int]], seat: int) -> tuple[tuple[int, int], ...]:
    """Per play round: (positions ``seat`` won, positions its opponent won) in it."""
    out = []
    prev = (0, 0)
    for t in totals:
        out.append((t[seat] - prev[seat], t[1 - seat] - prev[1 - seat]))
        prev = t
    return tuple(out)


class _PlacementTable:
    """Every placement of the opponent that fits what the seat knows, counted so that
    one can be drawn uniformly.  Per round, the fitting triples grouped by their set of
    tiles (a bit mask); per round and set of tiles used before it, the sets still open,
    each weighed by its triples times the ways to complete the later rounds after it
    (cumulated, for a draw by bisection).  Built whole in ``__init__`` and read-only
    after, so threads may share it."""

    def __init__(self, rounds: list[dict[int, list[tuple[int, int, int]]]]) -> None:
        self.rounds = rounds
        #: (round, tiles used before it) -> (cumulated weights, the tile sets they weigh)
        self.choices: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
        self.total = self._count(0, 0)

    def _count(self, k: int, used: int) -> int:
        if k == len(self.rounds):
            return 1
        found = self.choices.get((k, used))
        if found is not None:
            return found[0][-1] if found[0] else 0
        cum: list[int] = []
        masks: list[int] = []
        total = 0
        for mask, triples in self.rounds[k].items():
            if not used & mask:
                ways = len(triples) * self._count(k + 1, used | mask)
                if ways:
                    total += ways
                    cum.append(total)
                    masks.append(mask)
        self.choices[(k, used)] = (cum, masks)
        return total

    def draw(self, rng: random.Random) -> list[int] | None:
        """One placement, uniformly among all that fit (``None`` if none does)."""
        if not self.total:
            return None
        used = 0
        out: list[int] = []
        for k, groups in enumerate(self.rounds):
            cum, masks = self.choices[(k, used)]
            mask = masks[bisect_right(cum, rng.randrange(cum[-1]))]
            triples = groups[mask]
            out += triples[rng.randrange(len(triples))]
            used |= mask
        return out


@lru_cache(maxsize=512)
def _placements(
    mine: tuple[int, ...],
    incs: tuple[tuple[int, int], ...],
    colours: tuple[int, ...],
    fixed: tuple[int, ...],
    tiles: int = TILES,
) -> _PlacementTable:
    """The table for one state of knowledge: the seat's tiles as placed, the round
    results, colours (-1 unknown) and revealed tiles (-1 unknown) per first position.
    Cached: a search asks for the same one many times (thread-safe; read-only)."""
    rounds: list[dict[int, list[tuple[int, int, int]]]] = []
    for k, (won, lost) in enumerate(incs):
        # per position of the round: (tile, +1 the seat wins / -1 loses / 0) allowed there
        cells = []
        for q in range(3 * k, 3 * k + 3):
            allowed = []
            for x in range(tiles):
                if (fixed[q] >= 0 and x != fixed[q]) or (colours[q] >= 0 and x & 1 != colours[q]):
                    continue
                allowed.append((x, (mine[q] > x) - (x > mine[q])))
            cells.append(allowed)
        groups: dict[int, list[tuple[int, int, int]]] = {}
        for a, ra in cells[0]:
            for b, rb in cells[1]:
                if b == a:
                    continue
                for c, rc in cells[2]:
                    if c == a or c == b:
                        continue
                    w = (ra > 0) + (rb > 0) + (rc > 0)
                    if w == won and (ra < 0) + (rb < 0) + (rc < 0) == lost:
                        groups.setdefault((1 << a) | (1 << b) | (1 << c), []).append((a, b, c))
        rounds.append(groups)
    return _PlacementTable(rounds)


def _shuffled_rest(state: SwappingState, opp: int, placed: int, rng: random.Random) -> list[int]:
    """A last resort that reads nothing secret: the opponent's revealed tiles where they
    are, the other positions filled with a random draw of its unrevealed tiles."""
    row = [-1] * placed
    for t in state.reveals[opp]:
        row[state.where[opp][t]] = t
    rest = sorted(t for t in range(state.tiles) if t not in state.reveals[opp])
    rng.shuffle(rest)
    return [t if t >= 0 else rest.pop() for t in row]


class _SwapChains:
    """The opponent's private swaps, counted backwards from what was shown.

    Before its swap of step ``j`` a seat may exchange any black with any white tile
    it has not revealed yet (``reveals[:j]`` are out), and after it ``reveals[j]``
    must stand at ``targets[j]``, where it was shown and stays.  Whether a sequence
    of swaps fits depends only on which tiles stand at the target positions of the
    reveals still to come: a swap of tiles ``b`` and ``w`` relabels those tiles and
    leaves the rest alone.  ``count(j, y)`` is the number of swap sequences from
    step ``j`` on that fit, ``y`` being the tiles now at ``targets[j:]``; swaps that
    touch none of ``y`` are counted together, so few states are ever visited.
    Memoised lazily (counts, step choices, :func:`_origins`' tables): every entry is
    a pure function of its key, so threads sharing it at worst compute one twice."""

    def __init__(
        self, reveals: tuple[int, ...], targets: tuple[int, ...], count: int, tiles: int = TILES
    ) -> None:
        self.tiles = tiles
        self.reveals = reveals
        self.targets = targets
        self.made = count  # swaps made (one per step the seat could swap: public)
        self.pools: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for j in range(count):
            gone = set(reveals[:j])
            self.pools.append(
                (
                    tuple(t for t in range(0, tiles, 2) if t not in gone),
                    tuple(t for t in range(1, tiles, 2) if t not in gone),
                )
            )
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self._steps: dict[
            tuple[int, tuple[int, ...]], tuple[list[int], list[tuple[int, int, int, tuple[int, ...]]]]
        ] = {}
        #: (the seat's first row, round results) -> :func:`_origins`' table
        self.origins: dict[
            tuple[tuple[int, ...], tuple[tuple[int, int], ...]], tuple[list[int], list[list[bytes]]]
        ] = {}

    def moves(self, j: int, y: tuple[int, ...]) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """The swaps of step ``j`` that can still fit, grouped: (``b``, ``w``, how
        many pairs, the next ``y``).  ``b == w == -1`` stands for every pair of
        tiles that touches none of ``y`` (then the next ``y`` is ``y[1:]``)."""
        blacks, whites = self.pools[j]
        if j >= len(self.reveals):  # a swap whose reveal is still to come: any pair
            return [(-1, -1, len(blacks) * len(whites), y)]
        r, y0 = self.reveals[j], y[0]
        if y0 != r:  # the one swap that brings r to its position
            if (y0 ^ r) & 1 == 0 or y0 not in blacks + whites or r not in blacks + whites:
                return []
            b, w = (y0, r) if y0 % 2 == 0 else (r, y0)
            return [(b, w, 1, tuple(r if x == y0 else y0 if x == r else x for x in y[1:]))]
        out: list[tuple[int, int, int, tuple[int, ...]]] = []
        seen = set(y)
        free_b = sum(1 for b in blacks if b not in seen)
        free_w = sum(1 for w in whites if w not in seen)
        if free_b and free_w:
            out.append((-1, -1, free_b * free_w, y[1:]))
        for b in blacks:
            for w in whites:
                if r in (b, w) or (b not in seen and w not in seen):
                    continue
                out.append((b, w, 1, tuple(w if x == b else b if x == w else x for x in y[1:])))
        return out

    def count(self, j: int, y: tuple[int, ...]) -> int:
        key = (j, y)
        found = self._memo.get(key)
        if found is not None:
            return found
        if j == self.made:  # reveals after the last swap: those tiles never moved
            total = int(y == self.reveals[j:])
        else:
            total = sum(n * self.count(j + 1, nxt) for _, _, n, nxt in self.moves(j, y))
        self._memo[key] = total
        return total

    def _choices(
        self, j: int, y: tuple[int, ...]
    ) -> tuple[list[int], list[tuple[int, int, int, tuple[int, ...]]]]:
        """The moves of step ``j`` from ``y`` that lead on, with cumulated weights
        (the sequences each leads to), memoised like ``count``."""
        found = self._steps.get((j, y))
        if found is None:
            cum: list[int] = []
            options = []
            total = 0
            for move in self.moves(j, y):
                weight = move[2] * self.count(j + 1, move[3])
                if weight:
                    total += weight
                    cum.append(total)
                    options.append(move)
            found = (cum, options)
            self._steps[(j, y)] = found
        return found

    def bound(self) -> int:
        """A ceiling on ``count(0, y)`` for any ``y``: per step, the pairs that leave
        the tile revealed after it alone (or the one pair that brings it in)."""
        out = 1
        for j, (blacks, whites) in enumerate(self.pools):
            n = len(blacks) * len(whites)
            if j < len(self.reveals):
                n -= len(whites) if self.reveals[j] % 2 == 0 else len(blacks)
            out *= max(n, 1)
        return out

    def draw(self, first: list[int], rng: random.Random) -> list[tuple[int, int]]:
        """Swaps from the first row ``first`` (whose chains must count > 0), each step
        drawn in proportion to the sequences it leads to: uniform over those that fit."""
        row = first[:]
        where = [0] * self.tiles
        for p, t in enumerate(row):
            where[t] = p
        swaps: list[tuple[int, int]] = []
        for j in range(self.made):
            y = tuple(row[q] for q in self.targets[j:])
            cum, options = self._choices(j, y)
            b, w, _, _ = options[bisect_right(cum, rng.randrange(cum[-1]))]
            if b < 0:  # one pair, uniformly, among those touching none of y
                seen = set(y)
                blacks, whites = self.pools[j]
                fb = [t for t in blacks if t not in seen]
                fw = [t for t in whites if t not in seen]
                b, w = fb[rng.randrange(len(fb))], fw[rng.randrange(len(fw))]
            pb, pw = where[b], where[w]
            row[pb], row[pw] = w, b
            where[b], where[w] = pw, pb
            swaps.append((pb, pw))
        return swaps


@lru_cache(maxsize=32)
def _chains(
    reveals: tuple[int, ...], targets: tuple[int, ...], count: int, tiles: int = TILES
) -> _SwapChains:
    return _SwapChains(reveals, targets, count, tiles)


def _origins(
    mine: tuple[int, ...], incs: tuple[tuple[int, int], ...], chains: _SwapChains
) -> tuple[list[int], list[list[bytes]]]:
    """Every first row that fits the totals, grouped by the tiles it holds at the
    reveals' positions, each group weighed by its rows times the swap sequences
    that fit from it (cumulated, for a draw by bisection; rows packed as bytes):
    the exact law of the first row.  Built once per state of knowledge and kept on
    ``chains``."""
    key = (mine, incs)
    found = chains.origins.get(key)
    if found is not None:
        return found
    n = chains.tiles
    table = _placements(mine, incs, (-1,) * n, (-1,) * n, n)
    rows: dict[tuple[int, ...], list[bytes]] = {}
    targets = chains.targets

    def walk(k: int, used: int, row: list[int]) -> None:
        if k == len(table.rounds):
            rows.setdefault(tuple(row[q] for q in targets), []).append(bytes(row))
            return
        for mask in table.choices[(k, used)][1]:
            for triple in table.rounds[k][mask]:
                walk(k + 1, used | mask, row + list(triple))

    if table.total:
        walk(0, 0, [])
    cum: list[int] = []
    groups: list[list[bytes]] = []
    total = 0
    for o, group in rows.items():
        weight = len(group) * chains.count(0, o)
        if weight:
            total += weight
            cum.append(total)
            groups.append(group)
    chains.origins[key] = (cum, groups)
    return cum, groups


#: uniform first rows the quick forward draw weighs (only while at most
#: ``_FORWARD_REVEALS`` tiles are revealed: later it keeps too few), then whole
#: histories the quick backward draw tries, before a draw turns to the exact table
_FORWARD_TRIES = 8
_FORWARD_REVEALS = 2
_BACKWARD_TRIES = 300
#: first rows the totals must allow for the backward draw to be tried: it keeps
#: about that many in 9! (362880) histories, while the exact table costs about as
#: much to build as it has rows, so with fewer the table is the cheaper way
_BACKWARD_MIN_ROWS = 7000


def _draw_hidden_swaps(
    state: SwappingState,
    opp: int,
    mine: tuple[int, ...],
    incs: tuple[tuple[int, int], ...],
    rng: random.Random,
) -> tuple[list[int], list[tuple[int, int]]]:
    """The opponent's row now and its swaps, when the swaps were private.

    Drawn uniformly among every history that fits what the seat was told: a first
    row that fits the totals, then one swap per swap step of one black and one white
    tile not yet revealed, bringing each revealed tile to where it was shown.  Three
    exact draws, cheapest first, each kept only if it fits (so the mix is exact too):

    - forward (while few tiles are revealed): a first row drawn uniformly from the
      totals' table, kept with probability the number of swap sequences that fit
      from it (which depends only on the tiles it holds at the reveals' positions:
      :class:`_SwapChains`) over a ceiling;
    - backward (when the totals allow many first rows): the unrevealed tiles
      shuffled over the unrevealed positions, then each swap undone with a random
      pair of the tiles it could have been made of, latest first (every history
      that fits the reveals equally likely), kept if its first row fits the totals;
    - exact, when both miss: every first row of the totals' table weighed by its
      swap sequences (:func:`_origins`), built once per state of knowledge (up to
      about half a second late in the swap phase) and cached.

    The swaps are then drawn in proportion to the sequences each leads to.  Which
    draws are tried depends only on what the seat knows, never on what is cached,
    so a world is a function of that and the rng.  The true history fits, so a
    world always exists; none that misses the totals, the reveals or the swap rule
    is ever returned.
    """
    reveals = tuple(state.reveals[opp])
    targets = tuple(state.where[opp][t] for t in reveals)
    chains = _chains(reveals, targets, len(state.swaps[opp]), state.tiles)
    # the same draws are tried whatever is cached, so that a world is a function of
    # what the seat knows and the rng alone
    found = _draw_quick(chains, mine, incs, rng)
    if found is not None:
        return found
    exact = _origins(mine, incs, chains)
    cum, groups = exact
    if not cum:  # cannot happen for a reachable state: the true history fits
        raise ValueError(
            f"no history of P{opp + 1} fits totals {state.totals} and reveals {list(reveals)}"
        )
    group = groups[bisect_right(cum, rng.randrange(cum[-1]))]
    first = list(group[rng.randrange(len(group))])
    swaps = chains.draw(first, rng)
    return _replay(first, swaps), swaps


def _draw_quick(
    chains: _SwapChains,
    mine: tuple[int, ...],
    incs: tuple[tuple[int, int], ...],
    rng: random.Random,
) -> tuple[list[int], list[tuple[int, int]]] | None:
    """The forward then the backward rejection draw of :func:`_draw_hidden_swaps`
    (``None`` when every try missed)."""
    n = chains.tiles
    table = _placements(mine, incs, (-1,) * n, (-1,) * n, n)
    targets = chains.targets
    ceiling = chains.bound()
    for _ in range(_FORWARD_TRIES if len(chains.reveals) <= _FORWARD_REVEALS else 0):
        first = table.draw(rng)
        if first is None:
            return None
        weight = chains.count(0, tuple(first[q] for q in targets))
        if weight and rng.randrange(ceiling) < weight:
            swaps = chains.draw(first, rng)
            return _replay(first, swaps), swaps
    if table.total < _BACKWARD_MIN_ROWS:
        return None
    fixed = dict(zip(targets, chains.reveals))
    rest_positions = [p for p in range(n) if p not in fixed]
    hidden = [t for t in range(n) if t not in chains.reveals]
    pools = [(b, len(b), w, len(w)) for b, w in reversed(chains.pools)]
    rounds = [(3 * k, won, lost) for k, (won, lost) in enumerate(incs)]
    rand = rng.random
    start = [-1] * n
    for p, t in fixed.items():
        start[p] = t
    for _ in range(_BACKWARD_TRIES):
        row = start[:]
        rng.shuffle(hidden)
        for p, t in zip(rest_positions, hidden):
            row[p] = t
        now = row[:]
        where = [0] * n
        for p, t in enumerate(row):
            where[t] = p
        back: list[tuple[int, int]] = []
        for blacks, nb, whites, nw in pools:
            b = blacks[int(rand() * nb)]
            w = whites[int(rand() * nw)]
            pb, pw = where[b], where[w]
            row[pb], row[pw] = w, b
            where[b], where[w] = pw, pb
            back.append((pw, pb))  # before this swap b stood at pw, w at pb
        fits = True
        for base, won, lost in rounds:
            wins = losses = 0
            for q in range(base, base + 3):
                if mine[q] > row[q]:
                    wins += 1
                elif row[q] > mine[q]:
                    losses += 1
            if wins != won or losses != lost:
                fits = False
                break
        if fits:
            return now, back[::-1]
    return None


def _replay(first: list[int], swaps: list[tuple[int, int]]) -> list[int]:
    row = first[:]
    for a, b in swaps:
        row[a], row[b] = row[b], row[a]
    return row
