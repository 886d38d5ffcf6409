"""How a search seat redraws the numbers its opponent hid in domino.

``DominoState.resample`` is :func:`resample` here (the rules reach it through
:func:`blackwhite.engine.registry.sampler`, so they never import this module, which
imports them).  It draws one assignment of the opponent's hidden
numbers that fits everything the seat knows: the colour of each hidden half, the
shown halves, that the opponent's placements are distinct dominoes, and the H/V/D/B
result announced for every placement (the seat's own included).  It is a randomised
depth-first search in placement order (candidates in increasing order, then shuffled
with the caller's ``rng``) under a node budget; it reads only what the seat knows.
The rules live in :mod:`.domino`; this is the bots' business, kept out of the way.
"""

from __future__ import annotations

import random

from ..engine.core import State
from .domino import DOMINO_OF, DOMINOES, GRID, DominoState, Placement, cell_mask, pair_lines


class _OutOfBudget(Exception):
    """The sampler's node budget ran out (the caller tries a looser search)."""


#: one H/V/D/B test: (flags the placement announced, flags of its lines that involve no
#: hidden number, its lines that do as (x, y, z, flags by sum))
_Check = tuple[int, int, tuple[tuple[int, int, int, tuple[int, ...]], ...]]


class SamplePlan:
    """What :func:`draw_hidden` needs of one position, for one seat.

    The search visits the placements in order.  A placement of the seat itself has no
    choice: the plain search only tests its H/V/D/B result, so that test is folded into
    the preceding opponent node (failing it sends that node to its next candidate, as
    returning False from the seat's node did).  A line counts at placement ``k`` when
    its three cells belong to placements up to ``k``; the part of it that no hidden
    number touches is summed once here.  ``placements`` are as the seat knows them
    (:func:`known_placements`): each hidden number of the opponent's is only
    its colour's stand-in, and only its parity is read.
    """

    def __init__(self, placements: list[Placement], opp: int, top: int = 5) -> None:
        val = [-1] * GRID  # every number the seat knows; its opponent's hidden cells stay -1
        order = [-1] * GRID  # placement index on each cell
        hidden_cells = 0
        for k, pl in enumerate(placements):
            order[pl.cell_a] = order[pl.cell_b] = k
            if pl.seat == opp:
                shown = pl.cell_b if pl.hidden == pl.cell_a else pl.cell_a
                val[shown] = pl.num_b if pl.hidden == pl.cell_a else pl.num_a
                hidden_cells |= 1 << pl.hidden
            else:
                val[pl.cell_a], val[pl.cell_b] = pl.num_a, pl.num_b

        def check(k: int, pl: Placement) -> _Check:
            const = 0
            lines = []
            for _mask, x, y, z, tab, _bit in pair_lines(pl.cell_a, pl.cell_b):
                if not (0 <= order[x] <= k and 0 <= order[y] <= k and 0 <= order[z] <= k):
                    continue  # a cell still empty at placement k: the line is not full
                if hidden_cells >> x & 1 or hidden_cells >> y & 1 or hidden_cells >> z & 1:
                    lines.append((x, y, z, tab))
                else:
                    const |= tab[val[x] + val[y] + val[z]]
            return (pl.flags, const, tuple(lines))

        #: checks of the seat's placements before the first opponent one (no choice yet)
        self.head: list[_Check] = []
        #: per opponent placement: (index, hidden cell, its candidates, domino index by
        #: candidate, its own check followed by those of the seat's placements after it)
        #: and, when those checks read no other hidden number, their verdict by candidate
        self.steps: list[tuple[int, int, tuple[int, ...], tuple[int, ...], list[_Check], tuple[bool, ...] | None]] = []
        for k, pl in enumerate(placements):
            if pl.seat != opp:
                (self.steps[-1][4] if self.steps else self.head).append(check(k, pl))
                continue
            v = pl.num_b if pl.hidden == pl.cell_a else pl.num_a
            parity = (pl.num_a if pl.hidden == pl.cell_a else pl.num_b) % 2
            doms = tuple(DOMINO_OF[v * 6 + n] for n in range(6))
            # candidates: the colour's numbers up to ``top`` (the small variant's highest)
            self.steps.append((k, pl.hidden, tuple(range(parity, top + 1, 2)), doms, [check(k, pl)], None))
        # a step whose tests read no hidden number but its own: decide each candidate now
        for j, (k, cell, base, doms, checks, _ok) in enumerate(self.steps):
            reads = cell_mask(c for _t, _f, lines in checks for line in lines for c in line[:3])
            if not reads & hidden_cells & ~(1 << cell):
                verdicts = []
                for n in range(6):
                    val[cell] = n
                    verdicts.append(_passes(checks, val))
                val[cell] = -1
                self.steps[j] = (k, cell, base, doms, checks, tuple(verdicts))
        self.val = val

    def draw(self, rng: random.Random, check_flags: bool, distinct: bool, nodes: int) -> dict[int, int] | None:
        """One randomised depth-first search (see the module docstring)."""
        if check_flags and not _passes(self.head, self.val):
            return None
        val = self.val[:]
        used = [False] * len(DOMINOES)
        out: dict[int, int] = {}
        steps = self.steps
        last = len(steps)
        budget = nodes
        shuffle = rng.shuffle

        def go(j: int) -> bool:
            nonlocal budget
            if j == last:
                return True
            k, cell, base, doms, checks, ok = steps[j]
            cands = list(base)
            shuffle(cands)
            for n in cands:
                budget -= 1
                if budget < 0:
                    raise _OutOfBudget
                d = doms[n]
                if distinct and used[d]:
                    continue
                if check_flags:
                    if ok is not None:
                        if not ok[n]:
                            continue
                    else:
                        val[cell] = n
                        if not _passes(checks, val):
                            continue
                    val[cell] = n
                used[d] = True
                out[k] = n
                if go(j + 1):
                    return True
                used[d] = False
            return False

        try:
            return out if go(0) else None
        except _OutOfBudget:
            return None


def _passes(checks: list[_Check], val: list[int]) -> bool:
    """Whether every placement of ``checks`` meets the flags it announced under ``val``."""
    for target, flags, lines in checks:
        for x, y, z, tab in lines:
            flags |= tab[val[x] + val[y] + val[z]]
        if flags != target:
            return False
    return True


# --------------------------------------------------------------------------- resample


def resample(state: DominoState, seat: int, rng: random.Random) -> State:
    """``state.resample(seat, rng)``: see :meth:`DominoState.resample` for what the
    world keeps and what it redraws."""
    copy = state.clone(track=False)
    assert isinstance(copy, DominoState)
    copy.pending = {}
    opp = 1 - seat
    if copy.is_over() or not any(p.seat == opp for p in copy.placements):
        return copy  # nothing is hidden from the seat
    values = None
    for check_flags, distinct in ((True, True), (False, True), (False, False)):
        values = draw_hidden(state, seat, rng, check_flags, distinct)
        if values is not None:
            break
    assert values is not None
    used = list(state.game.absent)
    placements = copy.placements
    num = copy.num
    for k, n in values.items():
        s, ca, cb, a, b, hidden, flags = placements[k]
        if hidden == ca:
            a = n
        else:
            b = n
        placements[k] = Placement(s, ca, cb, a, b, hidden, flags)
        num[hidden] = n
        used[DOMINO_OF[a * 6 + b]] = True
    copy.used[opp] = used
    return copy


def draw_hidden(
    state: DominoState, seat: int, rng: random.Random, check_flags: bool, distinct: bool
) -> dict[int, int] | None:
    """Placement index -> hidden number for each opponent placement, or None (budget).

    The plan is built once per position and seat from what the seat knows, and
    kept on this state only: placements are only ever added, so their count tells
    whether it is still this position's.
    """
    cached = state._plan
    count = len(state.placements)
    if cached is not None and cached[0] == seat and cached[1] == count:
        plan = cached[2]
    else:
        plan = SamplePlan(known_placements(state, seat), 1 - seat, state.game.options["numbers"])
        state._plan = (seat, count, plan)
    found: dict[int, int] | None = plan.draw(rng, check_flags, distinct, state.SAMPLE_NODES)
    return found


def known_placements(state: DominoState, seat: int) -> list[Placement]:
    """The placements as ``seat`` knows them: each hidden number of the opponent's
    replaced by its colour's stand-in (0 black, 1 white), so what the sampler is
    handed holds no secret to read by mistake."""
    out = []
    for pl in state.placements:
        if pl.seat != seat:
            if pl.hidden == pl.cell_a:
                pl = pl._replace(num_a=pl.num_a & 1)
            else:
                pl = pl._replace(num_b=pl.num_b & 1)
        out.append(pl)
    return out
