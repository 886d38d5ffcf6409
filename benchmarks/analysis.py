"""Sanity and calibration of ``blackwhite analyse`` (issue 17).

1. Sanity: in matches of ``heuristic`` against ``random`` (seats rotated), the share of
   each side's analysed decisions that get a mark.  Random play should be marked far
   more often.
2. Calibration: every analysed decision's estimated win chance *before* it (the best
   candidate's, from the seat's own information) against the match's real outcome: a
   reliability table by deciles and the Brier score, beside the Brier score of always
   predicting the base rate.

Usage: ``python benchmarks/analysis.py --matches 2 --worlds 4 --per-seat 5``.  Each
match analyses a seeded random sample of ``--per-seat`` decisions per seat, drawn from
the first ``--early`` share of its decisions (a full analysis of a grouping match takes
minutes, and once random play has lost the match for sure no decision can lose ground,
so late decisions would only dilute the rates).  Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from blackwhite.analysis import Settings, analyse, decision_points, outcome_for  # noqa: E402
from blackwhite.bots import make_bot  # noqa: E402
from blackwhite.bots.match import play_match  # noqa: E402
from blackwhite.engine import make_game, to_record  # noqa: E402

GAMES = ["swapping", "domino", "yellow", "grouping", "grouping-final", "joust", "joust-final"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--matches", type=int, default=2, help="matches per game (seats rotated)")
    parser.add_argument("--worlds", type=int, default=4)
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument("--per-seat", type=int, default=5, help="decisions analysed per seat and match")
    parser.add_argument(
        "--early", type=float, default=1 / 3,
        help="sample from this first share of each seat's decisions (a decided match marks nothing)",
    )
    args = parser.parse_args()
    settings = Settings(worlds=args.worlds, candidates=args.candidates, search=0, seed=11)
    pairs: dict[str, list[tuple[float, float]]] = {}
    print("| game | matches | heuristic decisions | heuristic marked | random decisions | random marked |")
    print("|---|---:|---:|---:|---:|---:|")
    started = time.perf_counter()
    for gid in args.games.split(","):
        game = make_game(gid, {})
        counts = {"heuristic": [0, 0], "random": [0, 0]}
        pairs[gid] = []
        for m in range(args.matches):
            heuristic_seat = m % game.num_seats
            names = ["heuristic" if s == heuristic_seat else "random" for s in range(game.num_seats)]
            final = play_match(game, [make_bot(n) for n in names], seed=1000 + m)
            record = to_record(final)
            points, _, _ = decision_points(record)
            pick = random.Random(f"pick/{gid}/{m}")
            chosen: set[int] = set()
            for seat in range(game.num_seats):
                mine = [p.event for p in points if p.seat == seat and len(p.before.legal_actions(seat)) > 1]
                mine = mine[: max(1, round(args.early * len(mine)))]
                chosen.update(pick.sample(mine, min(args.per_seat, len(mine))))
            result = analyse(record, None, settings, events=chosen)
            for d in result.decisions:
                side = counts[names[d.seat]]
                side[0] += 1
                side[1] += d.mark is not None
                pairs[gid].append((d.best_win, outcome_for(final, d.seat)))
        h, r = counts["heuristic"], counts["random"]
        print(
            f"| {gid} | {args.matches} | {h[0]} | {100 * h[1] / max(1, h[0]):.0f}% | {r[0]} | "
            f"{100 * r[1] / max(1, r[0]):.0f}% |",
            flush=True,
        )
    print()
    print("| game | positions | Brier | base-rate Brier |")
    print("|---|---:|---:|---:|")
    every: list[tuple[float, float]] = []
    for gid, got in pairs.items():
        every.extend(got)
        print(f"| {gid} | {len(got)} | {brier(got):.3f} | {base_brier(got):.3f} |")
    print(f"| all | {len(every)} | {brier(every):.3f} | {base_brier(every):.3f} |")
    print()
    print("| estimated | positions | mean estimate | won |")
    print("|---|---:|---:|---:|")
    for lo in range(10):
        cell = [(p, o) for p, o in every if lo / 10 <= p < (lo + 1) / 10 or (lo == 9 and p == 1.0)]
        if cell:
            mean = sum(p for p, _ in cell) / len(cell)
            won = sum(o for _, o in cell) / len(cell)
            print(f"| {lo * 10}-{lo * 10 + 10}% | {len(cell)} | {100 * mean:.0f}% | {100 * won:.0f}% |")
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)


def brier(pairs: list[tuple[float, float]]) -> float:
    return sum((p - o) ** 2 for p, o in pairs) / max(1, len(pairs))


def base_brier(pairs: list[tuple[float, float]]) -> float:
    if not pairs:
        return 0.0
    rate = sum(o for _, o in pairs) / len(pairs)
    return sum((rate - o) ** 2 for _, o in pairs) / len(pairs)


if __name__ == "__main__":
    main()
