"""Benchmark of a whole season played by bots (docs/seasons.md, "The command line"):
``blackwhite season simulate`` at full length, every game in its full form and the bots
thinking more than in the tests, timed, and checked as the tests check a season
(tests/server/test_season_sim.py: one champion, one elimination per death match,
garnets conserved at every entry, the ledger replays to the standings, every record
passes the referee).

    python benchmarks/season.py                           # 13 players, seeds 1-3, 30 iterations
    python benchmarks/season.py --players 13 --seeds 1 --iterations 100
    python benchmarks/season.py --short                   # the games' short variants
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from blackwhite.server.season_sim import simulate
    from tests.server.test_season_sim import check_season

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=13)
    parser.add_argument("--seeds", type=int, default=3, help="seasons to play, seeds 1..N")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--short", action="store_true", help="every game in its short variant")
    parser.add_argument("--db", default=None, help="a database URL (default: a fresh SQLite file per season)")
    args = parser.parse_args()
    for seed in range(1, args.seeds + 1):
        with tempfile.TemporaryDirectory() as folder:
            url = args.db or f"sqlite:///{Path(folder) / 'season.db'}"
            started = time.perf_counter()
            export = asyncio.run(simulate(args.players, seed, url, args.iterations, args.short))
            took = time.perf_counter() - started
        check_season(export, args.players)
        matches = len(export["records"])
        print(f"seed {seed}: {took:.1f} s, {matches} matches on the server, {len(export['ledger'])} ledger entries, "
              f"champion {export['standings'][0]['player']}; checks passed", flush=True)


if __name__ == "__main__":
    main()
