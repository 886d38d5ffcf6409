"""The joust heuristic's counted label means equal the brute-force ones exactly."""

from __future__ import annotations

import random
from itertools import product

from blackwhite.bots.inference.joust import expected_labels
from blackwhite.games.joust import TOP


def _brute(spec: tuple[int, ...], pool: tuple[int, ...]) -> tuple[float, ...]:
    options = [[x] if x >= 0 else [v for v in pool if v % 2 == -1 - x] for x in spec]
    sums, n = [0.0, 0.0, 0.0], 0
    for combo in product(*options):
        if combo[0] < combo[1] < combo[2]:
            n += 1
            for r in range(3):
                sums[r] += combo[r]
    if n == 0:
        mean = sum(pool) / len(pool) if pool else TOP / 2
        return (mean, mean, mean)
    return tuple(s / n for s in sums)


def test_counted_label_means_match_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        low = rng.randrange(2)
        values = list(range(low, TOP + 1))
        rng.shuffle(values)
        pool = tuple(sorted(values[: rng.randrange(len(values) + 1)]))
        spec = tuple(rng.choice([-1, -2, rng.randrange(low, TOP + 1)]) for _ in range(3))
        assert expected_labels(spec, pool, TOP) == _brute(spec, pool)
