"""The fast domino sampler draws the very sample the plain depth-first search drew.

``resample`` runs on a cached plan; these tests keep a copy of
the plain search (every placement in order, ``line_flags`` at each node) and compare
samples and the rng's state afterwards, also with budgets small enough to reach the
fallbacks.  Same samples for the same rng means the same distribution.
"""

from __future__ import annotations

import random

import pytest

from blackwhite.engine import make_game
from blackwhite.engine.play import random_step
from blackwhite.games.domino import (
    DOMINO_INDEX,
    GRID,
    DominoState,
    Placement,
    line_flags,
)
from blackwhite.games.domino_sampler import draw_hidden


def _plain_draw(
    state: DominoState, seat: int, rng: random.Random, check_flags: bool, distinct: bool, nodes: int
) -> dict[int, int] | None:
    """The sampler as first written (the reference)."""
    opp = 1 - seat
    plist = state.placements
    num = [-1] * GRID
    used = [False] * len(DOMINO_INDEX)
    out: dict[int, int] = {}
    budget = [nodes]

    def go(k: int) -> bool:
        if k == len(plist):
            return True
        pl: Placement = plist[k]
        if pl.seat != opp:
            num[pl.cell_a], num[pl.cell_b] = pl.num_a, pl.num_b
            ok = not check_flags or line_flags(num, pl.cell_a, pl.cell_b) == pl.flags
            if ok and go(k + 1):
                return True
            num[pl.cell_a] = num[pl.cell_b] = -1
            return False
        v = pl.num_b if pl.hidden == pl.cell_a else pl.num_a
        shown_cell = pl.cell_b if pl.hidden == pl.cell_a else pl.cell_a
        parity = (pl.num_a if pl.hidden == pl.cell_a else pl.num_b) % 2
        cands = list(range(parity, 6, 2))
        rng.shuffle(cands)
        for n in cands:
            budget[0] -= 1
            if budget[0] < 0:
                return False
            d = DOMINO_INDEX[(min(v, n), max(v, n))]
            if distinct and used[d]:
                continue
            num[shown_cell], num[pl.hidden] = v, n
            if not check_flags or line_flags(num, pl.cell_a, pl.cell_b) == pl.flags:
                used[d] = True
                out[k] = n
                if go(k + 1):
                    return True
                used[d] = False
            num[shown_cell] = num[pl.hidden] = -1
        return False

    return out if go(0) else None


def _positions(games: int, seed: int) -> list[DominoState]:
    game = make_game("domino")
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_over():
            random_step(state, rng)
            if state.phase == "play" and rng.random() < 0.3:
                assert isinstance(state, DominoState)
                out.append(state.clone(track=False))
    return out


@pytest.mark.parametrize("nodes", [DominoState.SAMPLE_NODES, 300, 40, 12])
def test_sampler_draws_what_the_plain_search_drew(nodes: int) -> None:
    for i, state in enumerate(_positions(12, nodes)):
        for seat in (0, 1):
            for check_flags, distinct in ((True, True), (False, True), (False, False)):
                a, b = random.Random(i), random.Random(i)
                state.SAMPLE_NODES = nodes
                fast = draw_hidden(state, seat, a, check_flags, distinct)
                plain = _plain_draw(state, seat, b, check_flags, distinct, nodes)
                assert fast == plain
                assert a.random() == b.random()  # the same rng calls


def test_resample_with_a_custom_shuffle_draws_the_same() -> None:
    """An rng with its own shuffle: the sampler goes through it and draws the same."""

    class Own(random.Random):
        def shuffle(self, x: list[int]) -> None:  # type: ignore[override]
            random.Random.shuffle(self, x)

    for i, state in enumerate(_positions(4, 5)):
        seat = state.to_move()[0]
        w1 = state.resample(seat, random.Random(i))
        w2 = state.resample(seat, Own(i))
        assert isinstance(w1, DominoState) and isinstance(w2, DominoState)
        assert w1.num == w2.num and w1.placements == w2.placements and w1.used == w2.used
