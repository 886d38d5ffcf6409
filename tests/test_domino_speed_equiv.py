"""The fast paths of domino (bit-mask spots, tabled heuristic values) give exactly what
the direct computations give: a policy that chooses differently would change results."""

from __future__ import annotations

import random
from typing import Any

from blackwhite.bots.heuristic import domino as heuristic
from blackwhite.engine import make_game
from blackwhite.engine.play import random_step
from blackwhite.engine.core import Action
from blackwhite.games.domino import (
    CELLS,
    D_BIT,
    H_BIT,
    LINES,
    MOVES,
    POSITIONS,
    V_BIT,
    Shape,
    legal_positions,
    line_flags,
    reachable,
    rectangle,
    rests,
    shape_positions,
)

UNKNOWN = heuristic.UNKNOWN


def _spots_ref(occ: int) -> tuple[int, ...]:
    return tuple(sorted(i for i in reachable(occ) if rests(occ, i)))


def _random_board(rng: random.Random) -> tuple[list[int], list[int]]:
    num, parity = [-1] * 81, [0] * 81
    fill = rng.random()
    for g in CELLS:
        if rng.random() < fill:
            n = rng.randrange(6)
            parity[g] = n % 2
            num[g] = UNKNOWN if rng.random() < 0.35 else n
    return num, parity


def _odds(known: int, unknown: list[int]) -> tuple[float, float]:
    sums = [known]
    for par in unknown:
        sums = [s + n for s in sums for n in range(par, 6, 2)]
    return sum(1 for s in sums if s % 5 == 0) / len(sums), sum(1 for s in sums if s in (0, 15)) / len(sums)


def _expected_ref(num: list[int], parity: list[int], ca: int, a: int, cb: int, b: int) -> float:
    """The per-action computation the tables replace (scan order kept: floats depend on it)."""
    miss = {H_BIT: 1.0, V_BIT: 1.0, D_BIT: 1.0}
    miss_b = 1.0
    seen: set[tuple[int, int, int]] = set()
    for half in (ca, cb):
        for bit, x, y, z in LINES[half]:
            if (x, y, z) in seen:
                continue
            seen.add((x, y, z))
            known, unknown, complete = 0, [], True
            for c in (x, y, z):
                n = a if c == ca else b if c == cb else num[c]
                if n == -1:
                    complete = False
                    break
                if n == UNKNOWN:
                    unknown.append(parity[c])
                else:
                    known += n
            if complete:
                p, pb = _odds(known, unknown)
                miss[bit] *= 1.0 - p
                miss_b *= 1.0 - pb
    return sum(1.0 - m for m in miss.values()) + (1.0 - miss_b)


def test_legal_positions_match_bfs_on_random_and_played_boards() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        fill = rng.random() ** 2
        occ = sum(1 << g for g in CELLS if rng.random() < fill)
        assert legal_positions(occ) == _spots_ref(occ)
    game = make_game("domino")
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_over():
            random_step(state, rng)
            occ = getattr(state, "occ")
            assert legal_positions(occ) == _spots_ref(occ)
            assert getattr(state, "spots") == _spots_ref(occ)  # as the last move left them


def _rect_spots_ref(shape: Shape, occ: int) -> tuple[int, ...]:
    """Rule 2 by search on a small variant's rectangle (entries in its top row), then rule 1."""
    inside = {i for i, p in enumerate(POSITIONS) if shape.on[p.a] and shape.on[p.b]}
    free = {i for i in inside if not occ & POSITIONS[i].mask}
    top = min(g // 9 for g in shape.cells)
    stack = [i for i in free if POSITIONS[i].a // 9 == top]
    seen = set(stack)
    while stack:
        for j in MOVES[stack.pop()]:
            if j in free and j not in seen:
                seen.add(j)
                stack.append(j)
    return tuple(sorted(i for i in seen if rests(occ, i)))


def test_small_variant_spots_match_the_search() -> None:
    rng = random.Random(6)
    for width, height in ((2, 1), (3, 2), (5, 4), (4, 9), (5, 9)):
        shape = rectangle(width, height)
        for _ in range(400):
            fill = rng.random() ** 2
            occ = sum(1 << g for g in shape.cells if rng.random() < fill)
            assert shape_positions(shape, occ) == _rect_spots_ref(shape, occ)
        for _ in range(10):
            state = make_game("domino", {"board": f"{width}x{height}"}).new_initial_state()
            while not state.is_over():
                random_step(state, rng)
                assert getattr(state, "spots") == _rect_spots_ref(shape, getattr(state, "occ"))


def test_gain_tables_equal_the_direct_computation() -> None:
    rng = random.Random(4)
    for _ in range(40):
        num, parity = _random_board(rng)
        for p in rng.sample(POSITIONS, 20):
            for ca, cb in ((p.a, p.b), (p.b, p.a)):
                table = heuristic._gain_table(heuristic._desc(num, parity, ca, cb))
                for a in range(6):
                    for b in range(6):
                        assert table[a * 6 + b] == _expected_ref(num, parity, ca, a, cb, b)


def test_heuristic_choice_is_stable_under_its_caches() -> None:
    """Cold and warm caches choose the same action and draw the same randomness."""
    rng = random.Random(5)
    game = make_game("domino")
    cases: list[tuple[dict[str, Any], list[Action]]] = []
    while len(cases) < 15:
        state = game.new_initial_state()
        for _ in range(rng.randrange(2, 25)):
            if state.is_over():
                break
            random_step(state, rng)
        if state.is_over() or state.is_chance():
            continue
        seat = state.to_move()[0]
        cases.append((state.view(seat), state.legal_actions(seat)))
    heuristic._gain_table.cache_clear()
    heuristic._spot_value.cache_clear()
    runs = []
    for _ in range(2):
        out = []
        for k, (view, legal) in enumerate(cases):
            r = random.Random(k)
            out.append((heuristic.choose(view, legal, r), r.random()))
        runs.append(out)
    assert runs[0] == runs[1]


def test_what_a_state_carries_between_placements_stays_true_through_copies_and_worlds() -> None:
    """A placement works on from the state's own tables (reach, resting positions, line
    counts, each seat's offer per spot): through clones and resampled worlds they must
    still give the spots, the line flags and the random draw of the plain rules."""
    rng = random.Random(12)
    for options in ({}, {"board": "5x9"}, {"board": "3x4", "numbers": 2}):
        game = make_game("domino", options)
        for _ in range(40 if not options else 15):
            state: Any = game.new_initial_state()
            state.track = rng.random() < 0.5
            while not state.is_over():
                if rng.random() < 0.15:
                    state = state.clone(track=rng.random() < 0.5)
                if state.phase == "play" and rng.random() < 0.1:
                    state = state.resample(rng.randrange(2), rng)
                seat = state.to_move()[0]
                legal = state.legal_actions(seat)
                seed = rng.random()
                by_list, direct = random.Random(seed), random.Random(seed)
                action = state.random_action(seat, direct)
                assert action == legal[by_list.randrange(len(legal))]
                assert direct.getstate() == by_list.getstate()
                state.apply_fast(seat, action)
                if options:
                    assert state.spots == _rect_spots_ref(state.shape, state.occ)
                else:
                    assert state.spots == _spots_ref(state.occ)
                if state.placements:
                    last = state.placements[-1]
                    assert line_flags(state.num, last.cell_a, last.cell_b) == last.flags
