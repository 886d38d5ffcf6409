"""How strong and how fast the bots are: the table in docs/bots.md comes from this script.

    python benchmarks/bots.py                      # the full table: ~200 games per pairing
    python benchmarks/bots.py --games 4 --games-list swapping,yellow --speed-seconds 1   # a smoke run

For every game: ``ismcts`` vs ``random``, ``ismcts`` vs ``heuristic`` and ``heuristic`` vs
``random``, seats rotated and deals paired (each deal is played from every seat).  In
the 3-seat ``yellow`` a pairing ``A vs B`` is one ``A`` against two copies of ``B``, ``A``
rotated through the three seats; ``A``'s fair share of wins is then 1/3, and the
column "A ahead" counts, per match and per copy of ``B``, whether ``A`` finished
above it (fair share 1/2, as in two-seat games).  Every match of every pairing goes
into one process pool so both cores stay busy to the end.

Then the speed comparison: ``ismcts`` simulations per second on ``grouping`` (whole
matches against ``random``) against OpenSpiel's pure-Python ISMCTS on ``leduc_poker``
(whole hands, both seats), both at 1000 simulations per decision (``--speed-budget``
gives ours a wall-clock budget per decision instead), measured one after the other in
this process, alternating.  Both sides count CPU seconds spent choosing
(``time.process_time``), so the load of other processes does not skew the ratio.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from blackwhite.arena import MatchSpec, make_specs, progress_bar, run_specs, tabulate, wilson  # noqa: E402
from blackwhite.bots import ISMCTSBot, make_bot  # noqa: E402
from blackwhite.bots.match import play_match  # noqa: E402
from blackwhite.engine import game_ids, make_game  # noqa: E402

PAIRINGS = [("ismcts", "random"), ("ismcts", "heuristic"), ("heuristic", "random")]


def ahead_rate(results: list[dict[str, Any]], label: str) -> tuple[float, int]:
    """Share of (match, other seat) pairs in which ``label`` finished above the other."""
    ahead = 0.0
    pairs = 0
    for res in results:
        names = res["names"]
        ranking = res["ranking"]
        if ranking is None:
            winner = res["winner"]
            seat = names.index(label)
            for other in range(len(names)):
                if other == seat:
                    continue
                pairs += 1
                ahead += 1.0 if winner == seat else 0.5 if winner is None else 0.0
            continue
        seat = names.index(label)
        for other in range(len(names)):
            if other != seat:
                pairs += 1
                ahead += ranking.index(seat) < ranking.index(other)
    return ahead, pairs


def strength(args: argparse.Namespace, console: Console) -> list[dict[str, Any]]:
    specs: list[MatchSpec] = []
    for gid in args.games_list:
        for a, b in args.pairings:
            specs += make_specs(
                gid, [a, b], args.games, args.seed, args.budget, group=f"{gid}|{a}|{b}",
                first_index=len(specs),
            )
    # the slow pairings first, so the pool does not end on one long straggler
    specs.sort(key=lambda s: ("ismcts" not in s.bots, s.index))
    start = time.time()
    with progress_bar(console) as progress:
        task = progress.add_task("matches", total=len(specs))
        results = run_specs(specs, args.workers, None, lambda _: progress.advance(task))
    console.print(f"{len(specs)} matches in {time.time() - start:.0f} s with {args.workers} workers")
    rows = []
    for gid in args.games_list:
        for a, b in args.pairings:
            group = [r for r in results if r["spec"]["group"] == f"{gid}|{a}|{b}"]
            table = {row.label: row for row in tabulate(group)}
            mine = table[a]
            ahead, pairs = ahead_rate(group, a)
            seconds = sum(r["seconds"] for r in group) / len(group)
            rows.append(
                {
                    "game": gid,
                    "a": a,
                    "b": b,
                    "games": mine.games,
                    "win_rate": mine.rate,
                    "ci95": list(mine.ci),
                    "ahead": ahead / pairs,
                    "ahead_ci95": list(wilson(ahead, pairs)),
                    "margin": mine.margin,
                    "sims_per_decision": mine.sims,
                    "seats": len(group[0]["names"]),
                    "seconds_per_match": seconds,
                }
            )
    return rows


def strength_table(rows: list[dict[str, Any]], budget: float) -> Table:
    table = Table(title=f"A vs B, seats rotated; ismcts at {budget:g} s per decision")
    for col in ("game", "A vs B", "games", "A wins", "95% CI", "A ahead", "A margin", "sims/decision", "s/match"):
        table.add_column(col, justify="left" if col in ("game", "A vs B") else "right")
    for r in rows:
        table.add_row(
            r["game"],
            f"{r['a']} vs {r['b']}" + (" x2" if r["seats"] == 3 else ""),
            str(r["games"]),
            f"{100 * r['win_rate']:.1f}%",
            f"{100 * r['ci95'][0]:.1f}-{100 * r['ci95'][1]:.1f}",
            f"{100 * r['ahead']:.1f}%",
            f"{r['margin']:+.2f}",
            "" if r["sims_per_decision"] is None else f"{r['sims_per_decision']:.0f}",
            f"{r['seconds_per_match']:.2f}",
        )
    return table


def markdown(rows: list[dict[str, Any]]) -> str:
    out = [
        "| game | A vs B | games | A wins | 95% CI | A ahead | A margin | sims/decision |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        sims = "" if r["sims_per_decision"] is None else f"{r['sims_per_decision']:.0f}"
        vs = f"{r['a']} vs {r['b']}" + (" x2" if r["seats"] == 3 else "")
        out.append(
            f"| {r['game']} | {vs} | {r['games']} | {100 * r['win_rate']:.1f}% | "
            f"{100 * r['ci95'][0]:.1f}-{100 * r['ci95'][1]:.1f} | {100 * r['ahead']:.1f}% | "
            f"{r['margin']:+.2f} | {sims} |"
        )
    return "\n".join(out)


# --------------------------------------------------------------------------- speed


class _Timed:
    """A bot whose decisions are timed in CPU seconds (``time.process_time``), so that
    other processes on the machine do not count against it."""

    def __init__(self, bot: ISMCTSBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.cpu = 0.0

    def choose(self, decision: Any) -> Any:
        t = time.process_time()
        action = self.bot.choose(decision)
        self.cpu += time.process_time() - t
        return action


def ours_rate(seconds: float, iterations: int | None, budget: float, seed: int) -> tuple[float, int]:
    """ismcts simulations per CPU second of search over whole grouping matches against
    random: ``iterations`` per decision (as OpenSpiel's side), or ``budget`` seconds of
    wall clock per decision when ``iterations`` is None."""
    game = make_game("grouping")
    bot = make_bot("ismcts", budget=None if iterations else budget, iterations=iterations)
    assert isinstance(bot, ISMCTSBot)
    timed = _Timed(bot)
    end = time.process_time() + seconds
    while time.process_time() < end:
        play_match(game, [timed, make_bot("random")], seed)
        seed += 1
    return bot.stats["iterations"] / timed.cpu, int(bot.stats["iterations"])


def openspiel_rate(seconds: float, simulations: int, seed: int) -> tuple[float, int] | None:
    """OpenSpiel's pure-Python ISMCTS on leduc_poker: simulations per CPU second of search."""
    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts
    except ImportError:
        return None
    game = pyspiel.load_game("leduc_poker")
    rs = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, simulations, random_state=rs)
    rng = random.Random(seed)
    searched = 0.0
    sims = 0
    end = time.process_time() + seconds
    while time.process_time() < end:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                actions, probs = zip(*outcomes)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            t = time.process_time()
            action = bot.step(state)
            searched += time.process_time() - t
            sims += simulations
            state.apply_action(action)
    return sims / searched, sims


def speed(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    ours: list[float] = []
    theirs: list[float] = []
    for round_ in range(2):
        rate, _ = ours_rate(
            args.speed_seconds / 2, args.speed_iterations, args.speed_budget, args.seed + round_ * 100
        )
        ours.append(rate)
        other = openspiel_rate(args.speed_seconds / 2, args.speed_simulations, args.seed + round_)
        if other is None:
            console.print("OpenSpiel is not installed (pip install 'blackwhite\\[bench]'): comparison skipped")
            return {"ours": sum(ours) / len(ours), "openspiel": None, "ratio": None}
        theirs.append(other[0])
    mine, base = sum(ours) / len(ours), sum(theirs) / len(theirs)
    return {"ours": mine, "openspiel": base, "ratio": mine / base}


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="matches per pairing (default 200)")
    parser.add_argument("--budget", type=float, default=0.05, help="ismcts seconds per decision")
    parser.add_argument("--games-list", default=",".join(game_ids()), help="comma-separated game ids")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--pairings", default=",".join(f"{a}-{b}" for a, b in PAIRINGS),
        help="comma-separated A-B bot pairings (default: every pairing of the table)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--speed-seconds", type=float, default=20.0, help="time for each side of the speed test")
    parser.add_argument(
        "--speed-iterations", type=int, default=1000,
        help="ismcts simulations per decision there (default 1000, as OpenSpiel's side)",
    )
    parser.add_argument(
        "--speed-budget", type=float, default=None,
        help="instead of --speed-iterations, ismcts seconds of wall clock per decision there",
    )
    parser.add_argument(
        "--speed-simulations", type=int, default=1000, help="OpenSpiel simulations per decision there"
    )
    parser.add_argument("--no-strength", action="store_true", help="only the speed comparison")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    args = parser.parse_args(argv)
    if args.speed_budget is not None:
        args.speed_iterations = None
    args.games_list = [g for g in args.games_list.split(",") if g]
    if args.speed_seconds <= 0:
        parser.error(f"--speed-seconds must be more than 0 (got {args.speed_seconds}); --no-strength skips the strength table")
    args.pairings = [tuple(p.split("-", 1)) for p in args.pairings.split(",") if p]
    for pairing in args.pairings:
        if len(pairing) != 2 or not all(pairing):
            parser.error(f"--pairings: {'-'.join(pairing)!r} is not A-B (e.g. ismcts-heuristic)")
    console = Console(width=150)
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    console.print(
        f"[bold]blackwhite bot benchmark[/] {when}; {platform.python_version()}, {os.cpu_count()} cores; "
        f"{args.games} matches per pairing, ismcts {args.budget:g} s/decision"
    )
    start = time.time()
    rows: list[dict[str, Any]] = []
    if not args.no_strength:
        rows = strength(args, console)
        console.print(strength_table(rows, args.budget))
        console.print(markdown(rows))
    fast = speed(args, console)
    effort = (
        f"{args.speed_iterations} simulations/decision" if args.speed_iterations
        else f"{args.speed_budget:g} s/decision"
    )
    if fast["openspiel"] is not None:
        console.print(
            f"ismcts on grouping ({effort}): {fast['ours']:.0f} simulations/CPU s; "
            f"OpenSpiel ISMCTS on leduc_poker ({args.speed_simulations} simulations/decision): "
            f"{fast['openspiel']:.0f} simulations/CPU s; ratio {fast['ratio']:.2f} (target >= 3.0)"
        )
    console.print(f"total {time.time() - start:.0f} s")
    if args.json:
        args.json.write_text(
            json.dumps({"date": when, "args": {k: str(v) for k, v in vars(args).items()}, "rows": rows,
                        "speed": fast}, indent=1)
        )


if __name__ == "__main__":
    main()
