"""The research adapters' speed, beside the engine and OpenSpiel, in one run.

Per game, random-play steps/s of:

- our engine on its fast path (``benchmarks/engine.py``'s loop: a uniform legal
  action, or a chance event, per step);
- the OpenSpiel adapter (``blackwhite.envs.openspiel``), driven as OpenSpiel's own
  examples drive a game: ``legal_actions``/``apply_action``, ``chance_outcomes`` at a
  chance node (a shuffle is split into one small draw per item; each draw is a step);
- the PettingZoo AEC environment, driven as its documentation shows: ``agent_iter``,
  ``last()`` (the observation tensor and action mask of the selected agent), a uniform
  pick among the mask's actions (chance is drawn inside the environment, not a step);
- and, once, OpenSpiel's pure-Python ``python_liars_poker`` with the same loop as
  the adapter (the baseline of ``benchmarks/engine.py``).

Then OpenSpiel's own CFR+ (``open_spiel.python.algorithms.cfr.CFRPlusSolver``):
iterations/s on a small variant of one of our games through the adapter, against the
same solver on OpenSpiel's ``kuhn_poker`` and ``leduc_poker`` (C++ games), from
Python.  The trees differ in size, so each row also gives its number of states and
iterations/s times that (states/s, the solver's pace per state).

Every cell runs for ``--seconds`` of this process's CPU time (``time.process_time``:
the machine is shared, and CPU time is what other people's load disturbs least;
compare the ratios of one run, not absolute numbers).

    python benchmarks/adapters.py [--seconds 2] [--games swapping,yellow] [--cfr-seconds 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python import games as _python_games  # noqa: E402,F401  (registers python_*)
from open_spiel.python.algorithms import cfr  # noqa: E402

from blackwhite.engine import make_game  # noqa: E402
from blackwhite.engine.play import random_step  # noqa: E402
from blackwhite.envs import pettingzoo_env  # noqa: E402
from blackwhite.envs.openspiel import available_games, load  # noqa: E402

#: the small variant CFR+ solves through the adapter (tests/envs/conftest.py's)
CFR_GAME = ("swapping", {"tiles": 3, "max_ties": 1})


def measure(run_one: Callable[[random.Random], int], seconds: float) -> float:
    """Play games until ``seconds`` of CPU time pass; return steps per CPU second."""
    rng = random.Random(1)
    steps = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        steps += run_one(rng)
        now = time.process_time()
        if now >= deadline:
            break
    return steps / (now - start)


def engine_runner(gid: str) -> Callable[[random.Random], int]:
    game = make_game(gid)

    def run(rng: random.Random) -> int:
        state = game.new_initial_state()
        state.track = False
        steps = 0
        while not state.is_over():
            random_step(state, rng, fast=True)
            steps += 1
        return steps

    return run


def spiel_runner(game: Any) -> Callable[[random.Random], int]:
    """Random play of an OpenSpiel game (sequential; ours and liars poker are)."""

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
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        return steps

    return run


def pettingzoo_runner(gid: str) -> Callable[[random.Random], int]:
    env = pettingzoo_env(gid)

    def run(rng: random.Random) -> int:
        env.reset(seed=rng.randrange(2**31))
        steps = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        return steps

    return run


def cfr_rate(game: Any, seconds: float) -> tuple[float, int]:
    """CFR+ iterations per CPU second (and the iterations run) within about ``seconds``
    (at least one iteration)."""
    solver = cfr.CFRPlusSolver(game)
    iterations = 0
    start = time.process_time()
    while True:
        solver.evaluate_and_update_policy()
        iterations += 1
        now = time.process_time()
        if now - start >= seconds:
            break
    return iterations / (now - start), iterations


def tree_size(game: Any) -> int:
    """The number of states (histories) of ``game``'s tree: one CFR+ iteration walks
    it once per player, so iterations/s times this compares the cost per state."""
    count = 0
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        count += 1
        if state.is_terminal():
            continue
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        stack.extend(state.child(a) for a in actions)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per cell (default 2)")
    parser.add_argument("--games", default="", help="comma-separated game ids (default: all)")
    parser.add_argument("--cfr-seconds", type=float, default=5.0, help="time per CFR+ cell (default 5)")
    parser.add_argument("--no-cfr", action="store_true", help="skip the CFR+ comparison")
    args = parser.parse_args()
    games = [g for g in args.games.split(",") if g] or available_games()

    baseline = measure(spiel_runner(pyspiel.load_game("python_liars_poker")), args.seconds)
    print(f"date: {time.strftime('%Y-%m-%d', time.gmtime())}; one run, {args.seconds:g} s per cell")
    print(f"openspiel python_liars_poker: {baseline:.0f} steps/s (the baseline)")
    header = f"{'game':16} {'engine':>9} {'openspiel':>10} {'pettingzoo':>11}  {'engine/lp':>9} {'os/engine':>9} {'pz/engine':>9}"
    print(header)
    misses: list[str] = []
    for gid in games:
        ours = measure(engine_runner(gid), args.seconds)
        spiel = measure(spiel_runner(load(gid)), args.seconds)
        pz = measure(pettingzoo_runner(gid), args.seconds)
        print(
            f"{gid:16} {ours:9.0f} {spiel:10.0f} {pz:11.0f}  {ours / baseline:9.2f} {spiel / ours:9.2f} {pz / ours:9.2f}",
            flush=True,
        )
        for what, ratio, goal in (("engine/lp", ours / baseline, 1.0), ("os/engine", spiel / ours, 0.5),
                                  ("pz/engine", pz / ours, 0.5)):
            if ratio < goal:
                misses.append(f"{gid} {what} {ratio:.2f} < {goal}")
    print("targets (engine >= 1.0 x liars_poker, adapters >= 0.5 x engine): "
          + ("all met" if not misses else "missed: " + "; ".join(misses)))

    if args.no_cfr:
        return
    gid, options = CFR_GAME
    print(f"\nOpenSpiel CFR+ (CFRPlusSolver, from Python), about {args.cfr_seconds:g} s each:")
    cells = [
        (f"blackwhite_{gid} {options}", load(gid, **options)),
        ("kuhn_poker", pyspiel.load_game("kuhn_poker")),
        ("leduc_poker", pyspiel.load_game("leduc_poker")),
    ]
    print(f"{'game':50} {'iterations/s':>13} {'states':>8} {'states/s':>10}")
    for label, game in cells:
        rate, done = cfr_rate(game, args.cfr_seconds)
        size = tree_size(game)
        print(f"{label:50} {rate:13.2f} {size:8d} {rate * size:10.0f}   ({done} iterations)", flush=True)


if __name__ == "__main__":
    main()
