"""Engine speed: random legal games through the fast path, beside OpenSpiel.

Prints games and steps per CPU second for every registered game, and in the same run the same
loop over OpenSpiel's pure-Python ``python_liars_poker`` and its C++ ``goofspiel``
driven from Python (install the ``bench`` extra: ``pip install -r requirements/bench.txt -e '.[bench]'``).
A *step* is one applied event: one seat's action (each seat's part of a
simultaneous move counts once) or one chance outcome.  Our loop is
:func:`blackwhite.engine.play.random_step`: a uniform draw among the legal actions
(``State.random_action``; domino finds the drawn placement without listing all of
them, the same draw and action as indexing ``legal_actions``).

    python benchmarks/engine.py [--seconds 3] [--games swapping,yellow]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, Callable

from blackwhite.engine import game_ids, make_game
from blackwhite.engine.play import random_step


def measure(run_one: Callable[[random.Random], int], seconds: float) -> tuple[float, float]:
    """Play games until ``seconds`` of this process's CPU time pass; return (games,
    steps) per CPU second.  CPU time, because the machine is shared: wall-clock rates
    move with other people's load from one cell to the next, CPU time far less."""
    rng = random.Random(1)
    games = steps = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        steps += run_one(rng)
        games += 1
        now = time.process_time()
        if now >= deadline:
            break
    elapsed = now - start
    return games / elapsed, steps / elapsed


def ours(gid: str) -> Callable[[random.Random], int]:
    game = make_game(gid)

    def run(rng: random.Random) -> int:
        state = game.new_initial_state()
        state.track = False  # the fast path keeps no log or history
        steps = 0
        while not state.is_over():
            random_step(state, rng, fast=True)
            steps += 1
        return steps

    return run


def openspiel(name: str) -> Callable[[random.Random], int] | None:
    try:
        import pyspiel
        from open_spiel.python import games as _python_games  # noqa: F401  (registers python_*)
    except ImportError:
        return None
    game: Any = pyspiel.load_game(name)

    def run(rng: random.Random) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                r = rng.random()
                acc = 0.0
                pick = outcomes[-1][0]
                for action, prob in outcomes:
                    acc += prob
                    if r < acc:
                        pick = action
                        break
                state.apply_action(pick)
                steps += 1
            elif state.is_simultaneous_node():
                joint = []
                for p in range(game.num_players()):
                    legal = state.legal_actions(p)
                    joint.append(legal[rng.randrange(len(legal))])
                state.apply_actions(joint)
                steps += len(joint)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game (default 3)")
    parser.add_argument("--games", default="", help="comma-separated game ids (default: all)")
    args = parser.parse_args()
    wanted = [g for g in args.games.split(",") if g] or game_ids()

    rows: list[tuple[str, float, float]] = []
    for gid in wanted:
        g, s = measure(ours(gid), args.seconds)
        rows.append((gid, g, s))
    baseline: dict[str, float] = {}
    for name, label in (("python_liars_poker", "openspiel python_liars_poker (pure Python)"),
                        ("goofspiel", "openspiel goofspiel (C++ from Python)")):
        runner = openspiel(name)
        if runner is None:
            print(f"{label}: open-spiel not installed (pip install -e '.[bench]')")
            continue
        g, s = measure(runner, args.seconds)
        rows.append((label, g, s))
        baseline[name] = s

    print(f"{'game':46} {'games/s':>12} {'steps/s':>12} {'vs liars_poker':>15} {'vs goofspiel':>13}")
    for label, g, s in rows:
        lp = f"{s / baseline['python_liars_poker']:.2f}" if "python_liars_poker" in baseline else "-"
        gs = f"{s / baseline['goofspiel']:.2f}" if "goofspiel" in baseline else "-"
        print(f"{label:46} {g:12.1f} {s:12.0f} {lp:>15} {gs:>13}")
    if "python_liars_poker" in baseline:  # the target (issue 28): every game at 1.0 or more
        for label, _, s in rows:
            if label in wanted:
                ratio = s / baseline["python_liars_poker"]
                verdict = "meets" if ratio >= 1.0 else "MISSES"
                print(f"target: {label} steps/s / python_liars_poker steps/s = {ratio:.2f} ({verdict} >= 1.0)")


if __name__ == "__main__":
    main()
