"""Benchmark of the ratings (#40 item 6, docs/seasons.md "Ratings"): after how many
matches the leaderboard orders a population of bots of known strength correctly.

For each of ``--seeds`` schedules (match ``i`` of schedule ``s`` is dealt with seed
``1000 * s + i``), the bots play ``--matches`` matches (every group of the game's seat
count in turn, seats rotated), each outcome folded by the server's own code; printed per
schedule: the number of matches after which the leaderboard's order is the given one and
stays so to the end (``never`` if it is wrong at the end), and the CPU time.  The tests
(tests/test_ratings_population.py) run one schedule of the two default populations.

    python benchmarks/ratings.py                                   # both populations, 5 schedules
    python benchmarks/ratings.py --game yellow --bots random,heuristic,ismcts:iterations=10,ismcts:iterations=100
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blackwhite.bots import make_bot_spec  # noqa: E402
from blackwhite.bots.match import play_match  # noqa: E402
from blackwhite.engine.registry import make_game  # noqa: E402
from blackwhite.server.ratings import Outcome, bot_identity, fold, places_of, ranked  # noqa: E402

POPULATIONS = [
    ("yellow", ["random", "heuristic", "ismcts:iterations=10"]),
    ("swapping", ["random", "ismcts:prior=false:iterations=4", "ismcts:prior=false:iterations=16",
                  "ismcts:prior=false:iterations=64"]),
]


def settled_after(game_id: str, weakest_first: list[str], matches: int, seed: int) -> tuple[int | None, float]:
    """(matches after which the order is right for good, or None; CPU seconds)."""
    game = make_game(game_id)
    n = game.num_seats
    groups = list(itertools.combinations(weakest_first, n))
    want = [bot_identity(b) for b in reversed(weakest_first)]
    outcomes = []
    right_since: int | None = None
    start = time.process_time()
    for i in range(matches):
        group = groups[i % len(groups)]
        turn = (i // len(groups)) % n
        seats = [group[(j + turn) % n] for j in range(n)]
        state = play_match(game, [make_bot_spec(s) for s in seats], seed=seed + i)
        outcomes.append(Outcome(f"m{i:05d}", game_id, float(i), tuple(bot_identity(s) for s in seats),
                                tuple(places_of(state))))
        right = [s.identity for s in ranked(fold(outcomes).values())] == want
        right_since = (right_since or i + 1) if right else None
    return right_since, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", help="one game (with --bots, weakest first); default: the two populations")
    parser.add_argument("--bots", help="bot specs, weakest first, comma-separated")
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    populations = [(args.game, args.bots.split(","))] if args.game and args.bots else POPULATIONS
    for game_id, bots in populations:
        print(f"{game_id}: {' < '.join(bots)}, {args.matches} matches a schedule", flush=True)
        for s in range(args.seeds):
            since, cpu = settled_after(game_id, bots, args.matches, 1000 * s)
            print(f"  schedule {s}: ordered for good after {since if since else 'never'} matches, "
                  f"{cpu:.1f} s CPU ({1000 * cpu / args.matches:.0f} ms a match)", flush=True)


if __name__ == "__main__":
    main()
