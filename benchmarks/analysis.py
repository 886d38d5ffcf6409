"""Sanity and calibration of ``blackwhite analyse`` (issue 17).

1. Sanity: in matches of ``heuristic`` against ``random`` (seats rotated), the share of
   each side's analysed decisions that get a mark.  Random play should be marked far
   more often.
2. Calibration: every analysed decision's estimated win chance against the match's real
   outcome, twice: *after* the chosen action (the analysis's forecast of the match as it
   was played) and *before* it (the best candidate's, a forecast that assumes best play
   now), both from the seat's own information: a reliability table by deciles and the
   Brier score, beside the Brier score of always predicting the base rate.

Usage: ``python benchmarks/analysis.py --matches 4 --mirror 1 --jobs 2`` analyses every
decision of every match; ``--per-seat N`` analyses only N decisions per seat and match
that had a choice: its first ``--first`` ones (where a joust's match is usually decided)
and a seeded random sample of the rest.  ``--worlds`` is the screening worlds per
decision, ``8`` for every game or per game (``8,swapping=40``): the defaults
(``blackwhite.analysis.worlds_for``) give most games about the same time per decision (a
swapping rollout costs about 3 ms, a yellow one about 25 ms); swapping needs the most
worlds (its single swaps and reveals move the win chance by 5-20 points, under 8-15
points of noise at 12 worlds), and yellow gets three times the base (24, about 3 s a
decision: its decisions move the match by a few points, and at 8 worlds chance marked
some of the heuristic's sound ones).
A full analysis of a grouping match takes minutes.  The rates are given over every
analysed decision and over the *open* ones, where the seat's chance before the decision
was between 5% and 95%: once a match is decided no decision can lose ground, and random
play decides matches early.  ``--mirror N`` adds N matches of ``heuristic`` against
itself to the calibration (the use the tool is meant for: sound players).
``--stand-in`` also judges, at every analysed decision of the heuristic, one seeded
uniformly random legal action in its place: the same positions, so the heuristic's
marks and random play's are compared without the random seat's worse positions (a
seat far behind has little win chance left to lose).  The
calibration also shows what shrinking every estimate towards 1/seats would give, with
the factor fitted on the other matches of the game (leave one match out).  Prints
Markdown tables.

``--speed`` (issue 28) compares this tree with an earlier revision (``--before``, by
default the last one before early stopping and worker processes) on every record in
examples/, in one run: ``blackwhite analyse RECORD --json`` with default settings, the
seconds per match (wall clock and CPU of every process) and whether the two reports are
the same (every decision and summary, every float), then both revisions at the
same fixed settings (the game's worlds, 8 candidates, no ``ismcts`` candidate, seed 11):
how many decisions get the same mark and the same best action, and the Brier score of
the estimated win chance after each chosen action against the match's outcome.  The
earlier revision is taken from git (``git archive``) into a temporary directory.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from blackwhite.analysis import (  # noqa: E402
    DecisionReport, Point, Settings, analyse, decision_points, evaluate, opponent_shares, outcome_for, worlds_for,
)
from blackwhite.bots import make_bot  # noqa: E402
from blackwhite.bots.match import play_match  # noqa: E402
from blackwhite.engine import game_ids, make_game, to_record  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: the last revision of main before early stopping and worker processes (``--speed``)
BEFORE = "2e89ae6"
#: every installed game (the built-ins and any package's)
GAMES = game_ids()
#: screening worlds per decision by default (about 1-2 s per decision in every game)
WORLDS = {game: worlds_for(game, 8) for game in GAMES}


def parse_worlds(text: str) -> dict[str, int]:
    """``8`` (every game) or ``8,swapping=40`` (per game, the first number the rest)."""
    out = dict(WORLDS)
    for part in filter(None, (p.strip() for p in text.split(","))):
        game, _, count = part.rpartition("=")
        if game and game not in GAMES:
            raise SystemExit(f"--worlds: no game {game!r} (games: {', '.join(GAMES)})")
        if not count.isdigit() or int(count) < 1:
            raise SystemExit(f"--worlds: {part!r} is not a positive number of worlds")
        if game:
            out[game] = int(count)
        else:
            out = {g: int(count) for g in GAMES}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--matches", type=int, default=2, help="matches per game (seats rotated)")
    parser.add_argument("--worlds", default="", help="screening worlds: N, or per game like 8,swapping=40")
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument("--per-seat", type=int, default=0, help="decisions analysed per seat and match (0: every one)")
    parser.add_argument("--first", type=int, default=2, help="with --per-seat: always analyse each seat's first decisions")
    parser.add_argument("--mirror", type=int, default=0, help="heuristic-against-heuristic matches per game")
    parser.add_argument("--stand-in", action="store_true",
                        help="also judge a random legal action at each analysed decision of the heuristic")
    parser.add_argument("--jobs", type=int, default=1, help="processes analysing matches side by side")
    parser.add_argument("--dump", help="append one JSON line per analysed decision to this file, as it comes")
    parser.add_argument("--report", nargs="+", metavar="DUMP", help="only print the tables of these dumps")
    parser.add_argument("--speed", action="store_true",
                        help="seconds per example record and the same judgements, against --before")
    parser.add_argument("--before", default=BEFORE, help="the revision --speed compares with")
    parser.add_argument("--records", nargs="+", default=None, help="with --speed: these records (default examples/)")
    parser.add_argument("--part", choices=("both", "default", "fixed"), default="both",
                        help="with --speed: only the default settings' seconds, or only the fixed settings' judgements")
    args = parser.parse_args()
    if args.speed:
        records = [Path(r) for r in args.records] if args.records else sorted((ROOT / "examples").glob("*.json"))
        speed(records, args.before, args.part)
        return
    rows: list[dict[str, Any]] = []
    if args.report:
        rows = [json.loads(line) for name in args.report for line in Path(name).read_text().splitlines() if line]
        rows.sort(key=lambda r: (GAMES.index(r["game"]), r["match"], r["event"]))
        report(rows)
        return
    worlds = parse_worlds(args.worlds)
    units = [(gid, m) for gid in args.games.split(",") for m in range(args.matches + args.mirror)]
    for gid, _ in units:
        if gid not in GAMES:
            raise SystemExit(f"--games: no game {gid!r}")
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(max(1, args.jobs)) as pool:
        futures = [
            pool.submit(analyse_match, gid, m, args.matches, worlds[gid], args.candidates, args.per_seat, args.first,
                        args.stand_in)
            for gid, m in units
        ]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            got = future.result()
            rows.extend(got)
            if args.dump:
                with open(args.dump, "a", encoding="utf-8") as out:
                    out.writelines(json.dumps(row) + "\n" for row in got)
            label = f"{got[0]['game']} match {got[0]['match']}" if got else "a match with no decision"
            print(f"[{done}/{len(units)}] {label} done at {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)
    rows.sort(key=lambda r: (GAMES.index(r["game"]), r["match"], r["event"]))
    report(rows)
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)


def analyse_match(
    gid: str, m: int, matches: int, worlds: int, candidates: int, per_seat: int, first: int, stand_in: bool = False,
) -> list[dict[str, Any]]:
    """Play match ``m`` of ``gid`` (``heuristic`` against ``random`` below ``matches``, the
    heuristic's seat rotating; against itself from there on) and analyse its decisions."""
    game = make_game(gid, {})
    heuristic_seat = m % game.num_seats
    if m < matches:
        names = ["heuristic" if s == heuristic_seat else "random" for s in range(game.num_seats)]
    else:
        names = ["heuristic"] * game.num_seats
    final = play_match(game, [make_bot(n) for n in names], seed=1000 + m)
    record = to_record(final)
    chosen: set[int] | None = None
    if per_seat > 0:
        points, _, _ = decision_points(record)
        pick = random.Random(f"pick/{gid}/{m}")
        chosen = set()
        for seat in range(game.num_seats):
            mine = [p.event for p in points if p.seat == seat and len(p.before.legal_actions(seat)) > 1]
            chosen.update(mine[:first])
            rest = mine[first:]
            chosen.update(pick.sample(rest, min(max(0, per_seat - first), len(rest))))
    settings = Settings(worlds=worlds, candidates=candidates, search=0, seed=11)
    result = analyse(record, None, settings, events=chosen)
    population = "mirror" if m >= matches else "heuristic-random"

    def row(d: DecisionReport, population: str, side: str) -> dict[str, Any]:
        return {
            "game": gid, "match": m, "event": d.event, "population": population, "side": side,
            "seats": game.num_seats, "legal": d.legal, "loss": d.loss, "stderr": d.stderr, "mark": d.mark,
            "estimate": d.best_win, "win": d.win, "outcome": outcome_for(final, d.seat),
            "confirm_worlds": d.confirm_worlds,
        }

    rows = [row(d, population, "mirror" if m >= matches else names[d.seat]) for d in result.decisions]
    if stand_in and m < matches:
        # the same positions as the heuristic's analysed decisions, a random action in its place
        points, _, _ = decision_points(record)
        judged = {d.event for d in result.decisions if d.seat == heuristic_seat}
        spots = [p for p in points if p.event in judged]
        for point, shares in zip(spots, opponent_shares(points, spots, settings)):
            legal = point.before.legal_actions(point.seat)
            other = random.Random(f"stand-in/{gid}/{m}/{point.ordinal}").choice(legal)
            d = evaluate(Point(point.event, point.seat, other, point.before, point.ordinal), settings, shares)
            rows.append(row(d, "stand-in", "stand-in"))
    return rows


def run_cli(tree: Path, record: Path, args: list[str]) -> tuple[list[dict[str, Any]], float, float]:
    """``blackwhite analyse record --json args`` with the package of ``tree``: its JSON
    lines, the wall-clock seconds and the CPU seconds of it and every process it started."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "blackwhite.cli", "analyse", str(record.resolve()), "--json", *args],
        capture_output=True, text=True, cwd=tree, env=env, check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"analyse {record} in {tree} failed: {out.stderr or out.stdout}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()], wall, cpu


def speed(records: list[Path], revision: str, part: str = "both") -> None:
    """Seconds per record with default settings, then the same judgements at fixed
    settings, this tree against ``revision`` (see the module's docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        cores = len(os.sched_getaffinity(0))
        if part != "fixed":
            default_seconds(records, revision, old, cores)
        if part != "default":
            fixed_judgements(records, old)


def default_seconds(records: list[Path], revision: str, old: Path, cores: int) -> None:
    """The first table of ``--speed``: seconds per record with default settings."""
    print(f"Default settings (`blackwhite analyse RECORD`), {revision} against this tree "
          f"({cores} cores; CPU: every process):\n")
    print("| record | decisions | before s | before CPU s | after s | after CPU s | wall ratio | CPU ratio "
          "| same report |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for record in records:
        lines, wall0, cpu0 = run_cli(old, record, [])
        again, wall1, cpu1 = run_cli(ROOT, record, [])
        decisions = sum(1 for x in lines if "summary" not in x)
        # a speed change that keeps every judgement gives the same report, line for line
        same = "yes" if lines == again else "no"
        print(f"| {record.name} | {decisions} | {wall0:.0f} | {cpu0:.0f} | {wall1:.0f} | {cpu1:.0f} "
              f"| {wall0 / wall1:.1f} | {cpu0 / cpu1:.2f} | {same} |", flush=True)


def fixed_judgements(records: list[Path], old: Path) -> None:
    """The second table of ``--speed``: marks, best actions and Brier at fixed settings."""
    print("\nFixed settings (the game's worlds, 8 candidates, no ismcts candidate, seed 11): the same "
          "judgements?\n")
    print("| record | decisions | same mark | same best | marks before | marks after | Brier before "
          "| Brier after | before CPU s | after CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    pairs: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    for record in records:
        game = json.loads(record.read_text())["game"]
        fixed = ["--worlds", str(worlds_for(game, 8)), "--candidates", "8", "--search", "0", "--seed", "11"]
        got: dict[str, list[dict[str, Any]]] = {}
        cpus: dict[str, float] = {}
        here: dict[str, list[tuple[float, float]]] = {}
        for label, tree in (("before", old), ("after", ROOT)):
            lines, _, cpus[label] = run_cli(tree, record, fixed)
            outcome = {x["summary"]["seat"]: x["summary"]["outcome"] for x in lines if "summary" in x}
            got[label] = [x for x in lines if "summary" not in x]
            here[label] = [(d["win"], outcome[d["seat"]]) for d in got[label] if outcome[d["seat"]] is not None]
            pairs[label].extend(here[label])
        a, b = got["before"], got["after"]
        n = len(a)
        briers = [brier(here["before"]), brier(here["after"])]
        print(
            f"| {record.name} | {n} | {sum(x['mark'] == y['mark'] for x, y in zip(a, b))} "
            f"| {sum(x['best'] == y['best'] for x, y in zip(a, b))} "
            f"| {sum(x['mark'] is not None for x in a)} | {sum(x['mark'] is not None for x in b)} "
            f"| {briers[0]:.3f} | {briers[1]:.3f} | {cpus['before']:.0f} | {cpus['after']:.0f} |",
            flush=True,
        )
    print(f"| all | {len(pairs['before'])} | | | | | {brier(pairs['before']):.3f} | {brier(pairs['after']):.3f} | | |")


def report(rows: list[dict[str, Any]]) -> None:
    """The sanity, loss-profile and calibration tables of analysed decisions."""
    games = list(dict.fromkeys(r["game"] for r in rows))
    print(
        "| game | heuristic decisions | heuristic marked | random decisions | random marked "
        "| open heuristic | marked | open random | marked | mirror decisions | marked |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for gid in games:
        cells = []
        for side in ("heuristic", "random"):
            got = [r for r in rows if r["game"] == gid and r["side"] == side]
            cells += [str(len(got)), pct(sum(r["mark"] is not None for r in got), len(got))]
        for side in ("heuristic", "random"):
            got = [r for r in rows if r["game"] == gid and r["side"] == side and 0.05 <= r["estimate"] <= 0.95]
            cells += [str(len(got)), pct(sum(r["mark"] is not None for r in got), len(got))]
        got = [r for r in rows if r["game"] == gid and r["side"] == "mirror"]
        cells += [str(len(got)), pct(sum(r["mark"] is not None for r in got), len(got))]
        print(f"| {gid} | " + " | ".join(cells) + " |")
    stand_ins = [r for r in rows if r["side"] == "stand-in"]
    if stand_ins:
        print("\nThe same positions: at the heuristic's analysed decisions, its own choice against one")
        print("random legal action in its place (share marked, mean loss in points):\n")
        print("| game | positions | heuristic's choice marked | random action marked | heuristic's mean loss | random's mean loss |")
        print("|---|---:|---:|---:|---:|---:|")
        for gid in games:
            here = {(r["match"], r["event"]): r for r in stand_ins if r["game"] == gid}
            own = [r for r in rows if r["game"] == gid and r["side"] == "heuristic" and (r["match"], r["event"]) in here]
            if own:
                alt = [here[(r["match"], r["event"])] for r in own]
                n = len(own)
                print(
                    f"| {gid} | {n} | {pct(sum(r['mark'] is not None for r in own), n)} "
                    f"| {pct(sum(r['mark'] is not None for r in alt), n)} "
                    f"| {sum(r['loss'] for r in own) / n:.1f} | {sum(r['loss'] for r in alt) / n:.1f} |"
                )
    print("\nLosses (points of win chance) per side: mean loss, share above 5 / 10 / 20 points, median")
    print("standard error of the confirmed loss, share of decisions whose loss is above 2 standard errors:\n")
    print("| game | side | decisions | mean loss | > 5 | > 10 | > 20 | median stderr | > 2 stderr |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for gid in games:
        for who in ("heuristic", "random", "mirror"):
            pairs: list[tuple[float, float]] = [(r["loss"], r["stderr"]) for r in rows if r["game"] == gid and r["side"] == who]
            if pairs:
                n = len(pairs)
                errs = sorted(e for _, e in pairs if e > 0) or [0.0]
                print(
                    f"| {gid} | {who} | {n} | {sum(x for x, _ in pairs) / n:.1f} "
                    + " ".join(f"| {pct(sum(1 for x, _ in pairs if x > t), n)}" for t in (5, 10, 20))
                    + f" | {errs[len(errs) // 2]:.1f} | {pct(sum(1 for x, e in pairs if x > 2 * e and x > 0), n)} |"
                )
    print("\nShare of decisions a threshold would mark (loss above it and above 2 standard errors):\n")
    thresholds = (2, 3, 5, 8, 10, 20)
    print("| game | side | " + " | ".join(f"> {t}" for t in thresholds) + " |")
    print("|---|---|" + "---:|" * len(thresholds))
    for gid in games:
        for who in ("heuristic", "random"):
            got = [r for r in rows if r["game"] == gid and r["side"] == who]
            if got:
                cells = [pct(sum(1 for r in got if r["loss"] > t and r["loss"] > 2 * r["stderr"]), len(got)) for t in thresholds]
                print(f"| {gid} | {who} | " + " | ".join(cells) + " |")
    for population in ("heuristic-random", "mirror"):
        for moment in ("after", "before"):
            by_game: dict[str, list[list[tuple[float, float, int]]]] = {}
            for gid in games:
                matches = sorted({r["match"] for r in rows if r["game"] == gid and r["population"] == population})
                if matches:
                    by_game[gid] = [
                        [(estimate(r, moment), r["outcome"], r["seats"]) for r in rows
                         if r["game"] == gid and r["population"] == population and r["match"] == m]
                        for m in matches
                    ]
            if by_game:
                when = ("after the chosen action (`win`)" if moment == "after"
                        else "before the decision, best play (`best_win`)")
                print(f"\nCalibration, {population} matches, the estimate {when}:\n")
                calibration(by_game)


def estimate(row: dict[str, Any], moment: str) -> float:
    """The win chance estimated before the decision (best play) or after the chosen
    action; dumps made before ``win`` was written give it as ``estimate - loss``."""
    if moment == "before":
        return float(row["estimate"])
    return float(row["win"]) if "win" in row else max(0.0, row["estimate"] - row["loss"] / 100)


def calibration(by_game: dict[str, list[list[tuple[float, float, int]]]]) -> None:
    """Brier per game against the base rate and a leave-one-match-out shrink, then the
    reliability table by deciles over every game."""
    print("| game | positions | Brier | base-rate Brier | shrunk Brier (left-out fit) | factor (all) |")
    print("|---|---:|---:|---:|---:|---:|")
    every: list[tuple[float, float]] = []
    every_shrunk: list[tuple[float, float]] = []
    for gid, matches in by_game.items():
        got = [(p, o) for match in matches for p, o, _ in match]
        shrunk: list[tuple[float, float]] = []
        for i, match in enumerate(matches):
            k = shrink_factor([x for j, other in enumerate(matches) if j != i for x in other])
            shrunk.extend((n_base(n) + k * (p - n_base(n)), o) for p, o, n in match)
        every.extend(got)
        every_shrunk.extend(shrunk)
        k_all = shrink_factor([x for match in matches for x in match])
        print(f"| {gid} | {len(got)} | {brier(got):.3f} | {base_brier(got):.3f} | {brier(shrunk):.3f} | {k_all:.2f} |")
    print(f"| all | {len(every)} | {brier(every):.3f} | {base_brier(every):.3f} | {brier(every_shrunk):.3f} | |")
    print()
    print("| estimated | positions | mean estimate | won |")
    print("|---|---:|---:|---:|")
    for lo in range(10):
        cell = [(p, o) for p, o in every if lo / 10 <= p < (lo + 1) / 10 or (lo == 9 and p == 1.0)]
        if cell:
            mean = sum(p for p, _ in cell) / len(cell)
            won = sum(o for _, o in cell) / len(cell)
            print(f"| {lo * 10}-{lo * 10 + 10}% | {len(cell)} | {100 * mean:.0f}% | {100 * won:.0f}% |")


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def n_base(seats: int) -> float:
    return 1.0 / seats


def shrink_factor(points: list[tuple[float, float, int]]) -> float:
    """The k in ``base + k (p - base)`` with the least Brier score on ``points``."""
    top = sum((p - n_base(n)) * (o - n_base(n)) for p, o, n in points)
    bottom = sum((p - n_base(n)) ** 2 for p, _, n in points)
    return max(0.0, min(1.0, top / bottom)) if bottom > 0 else 1.0


def brier(pairs: list[tuple[float, float]]) -> float:
    return sum((p - o) ** 2 for p, o in pairs) / max(1, len(pairs))


def base_brier(pairs: list[tuple[float, float]]) -> float:
    if not pairs:
        return 0.0
    rate = sum(o for _, o in pairs) / len(pairs)
    return sum((rate - o) ** 2 for _, o in pairs) / len(pairs)


if __name__ == "__main__":
    main()
