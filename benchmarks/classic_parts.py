"""What each optional part of the worked example buys (docs/designing-a-game.md).

    python benchmarks/classic_parts.py [--games 200] [--budget 0.05]

Plays ``ismcts`` against ``random`` on ``classic`` (installed from
examples/plugins/blackwhite-classic) with its registration cut down to fewer parts:
the rules alone, the rules and the sampler, and everything the package ships (sampler,
heuristic and the ismcts tuning that models the other seat from its play).  Prints,
for each, the win rate of ismcts (draws half; a match always has a winner here), the
search's simulations a decision, and how long a world takes to draw.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time

from blackwhite.arena.run import make_specs, run_match
from blackwhite.engine import make_game, registry
from blackwhite.engine.play import random_step


def cut(**parts: object) -> None:
    """Replace classic's registration by one with ``parts`` changed (this process only)."""
    registry.refresh()
    state = registry._state()
    entry = dataclasses.replace(state.entries["classic"], **parts)  # type: ignore[arg-type]
    state.entries["classic"] = entry
    state.classes["classic"].entry_sampler = entry.sampler
    from blackwhite.analysis import core as analysis_core
    from blackwhite.bots import heuristic, ismcts

    ismcts._TUNINGS.clear()
    analysis_core._EVALS.clear()
    heuristic._modules.clear()


def world_ms(count: int = 300) -> float:
    """Milliseconds to draw a world for the seat to move, over random positions."""
    rng = random.Random(1)
    times: list[float] = []
    while len(times) < count:
        state = make_game("classic").new_initial_state()
        for _ in range(rng.randrange(0, 17)):
            random_step(state, rng, fast=False)
        if state.is_over():
            continue
        seat = state.to_move()[0]
        start = time.perf_counter()
        state.resample(seat, random.Random(len(times)))
        times.append(time.perf_counter() - start)
    return 1000 * statistics.mean(times)


def arena(games: int, budget: float, seed: int) -> tuple[float, float]:
    """ismcts's share of ``games`` against random (seats rotated), and its simulations a decision."""
    wins = 0.0
    sims: list[float] = []
    for spec in make_specs("classic", ["ismcts", "random"], games, seed=seed, budget=budget):
        result = run_match(spec)
        me = result["names"].index("ismcts")
        wins += 1.0 if result["winner"] == me else 0.5 if result["winner"] is None else 0.0
        stats = result["bot_stats"].get("ismcts", {})
        if stats.get("decisions"):
            sims.append(stats["iterations"] / stats["decisions"])
    return wins / games, statistics.mean(sims) if sims else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--budget", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    setups: list[tuple[str, dict[str, object]]] = [
        ("rules only", dict(sampler=None, heuristic=None, tuning={})),
        ("+ sampler", dict(heuristic=None, tuning={})),
        ("everything shipped", {}),
    ]
    for name, parts in setups:
        cut(**parts)
        ms = world_ms()
        rate, sims = arena(args.games, args.budget, args.seed)
        print(f"{name:20} world {ms:6.2f} ms   ismcts {100 * rate:5.1f}% of {args.games}   "
              f"{sims:6.0f} simulations a decision", flush=True)



if __name__ == "__main__":
    main()
