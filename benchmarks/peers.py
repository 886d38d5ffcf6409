"""Our ``ismcts`` against OpenSpiel's own Python ISMCTS, through the OpenSpiel adapter.

    python benchmarks/peers.py                         # 100 matches per game, 0.05 s
    python benchmarks/peers.py --games swapping,joust --matches 20 --budget 0.1
    python benchmarks/peers.py --simulations 200     # equal work instead of equal time
    python benchmarks/peers.py --simulations 200 --jsonl runs.jsonl   # keep each match as it ends
    python benchmarks/peers.py --summarize runs.jsonl                 # the table of everything kept

Both bots get the same wall-clock time per decision (``--budget`` seconds), or with
``--simulations N`` the same number of simulations per decision and no clock: ours runs
exactly N iterations (``ismcts`` with ``iterations=N``; an iteration is a descent and a
rollout in a sampled world, as an OpenSpiel simulation is), OpenSpiel's exactly N.  Equal time measures the
bots with their implementations' speed; equal work compares the searches themselves.
OpenSpiel's ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` runs with a random-
rollout evaluator (one rollout per leaf, UCT c = 2, the most-visited action) on the
game registered by ``blackwhite.envs.openspiel``; its search is time-limited here
(simulations until the budget is spent, at least two, since its final policy needs a
visited root), which is its own loop with a clock instead of a count.  Its worlds come
from the adapter's ``resample_from_infostate`` (the engine's ``resample``).

Our ``ismcts`` (blackwhite/bots/ismcts.py) decides from the seat's view with the
engine's ``resample``, exactly as in ``blackwhite play``; it is offered the same
actions as OpenSpiel's bot (the encoding's ``offered``).  Matches are driven by the
adapter state; chance draws come from a seeded ``random.Random``.

Seats are rotated: match ``i`` puts ours in seat ``i % seats``.  Two-seat games count
a match won when ours gets utility +1.  ``yellow`` (three seats) puts one ``ismcts``
against two OpenSpiel bots: "ours wins" is a match it wins (fair share 33%) and "ours
ahead" counts, per match and per opponent, whether ours finished above it (fair
share 50%); the 60% goal is read on "ahead" there.  95% intervals are Wilson's.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts as spiel_ismcts  # noqa: E402
from open_spiel.python.algorithms import mcts as spiel_mcts  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from blackwhite.arena import wilson  # noqa: E402
from blackwhite.bots import Decision, make_bot  # noqa: E402
from blackwhite.bots.match import bot_rng  # noqa: E402
from blackwhite.envs.openspiel import available_games, load  # noqa: E402


class TimedISMCTS(spiel_ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTS, searching for ``budget`` seconds instead of a fixed count,
    or for exactly ``simulations`` when that is given."""

    def __init__(self, game: Any, budget: float, seed: int, simulations: int | None = None) -> None:
        rs = np.random.RandomState(seed)
        evaluator = spiel_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        super().__init__(game, evaluator, uct_c=2.0, max_simulations=2, random_state=rs)
        self.budget = budget
        self.fixed = simulations
        self.simulations = 0
        self.decisions = 0

    def run_search(self, state: Any) -> list[tuple[int, float]]:
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        self._root_node = self.create_new_node(state)
        deadline = time.perf_counter() + self.budget
        done = 0
        while (done < self.fixed) if self.fixed else (done < 2 or time.perf_counter() < deadline):
            self.run_simulation(self.sample_root_state(state))
            done += 1
        self.simulations += done
        self.decisions += 1
        result: list[tuple[int, float]] = self.get_final_policy(state, self._root_node)
        return result


@dataclass
class Tally:
    """One game's results, from our bot's side."""

    matches: int = 0
    wins: int = 0
    draws: int = 0
    ahead: int = 0
    pairs: int = 0
    ours_sims: float = 0.0
    ours_decisions: float = 0.0
    ours_seconds: float = 0.0
    theirs_sims: int = 0
    theirs_decisions: int = 0
    theirs_seconds: float = 0.0
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def play_match(job: tuple[str, int, int, float, int | None]) -> tuple[str, Tally]:
    """One match: ours in ``ours_seat``, OpenSpiel's ISMCTS in every other seat; with
    ``simulations``, both search exactly that many per decision and ``budget`` is unused."""
    game_id, ours_seat, seed, budget, simulations = job
    tally = Tally()
    game = load(game_id)
    setup = game.setup
    players = game.num_players()
    chance = random.Random(f"peers/chance/{seed}")
    ours = make_bot("ismcts") if simulations is None else make_bot("ismcts", iterations=simulations)
    ours_budget = budget if simulations is None else 0.0  # 0: the bot's iteration count alone
    ours_rng = bot_rng(seed, ours_seat)
    theirs = {p: TimedISMCTS(game, budget, seed * 10 + p, simulations) for p in range(players) if p != ours_seat}
    state = game.new_initial_state()
    start = time.perf_counter()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(chance.choices(outcomes, probs)[0])
            continue
        p = state.current_player()
        if p == ours_seat:
            engine = state.engine
            frozen = engine.clone(track=False)
            offered = setup.enc.offered(engine, p)
            decision = Decision(p, engine.view(p), offered, lambda r: frozen.resample(p, r), ours_rng, ours_budget)
            began = time.perf_counter()
            action = ours.choose(decision)
            tally.ours_seconds += time.perf_counter() - began
            state.apply_action(setup.enc.encode(action))
        else:
            began = time.perf_counter()
            code = theirs[p].step(state)
            tally.theirs_seconds += time.perf_counter() - began
            state.apply_action(code)
    tally.seconds += time.perf_counter() - start
    returns = state.returns()
    tally.matches += 1
    mine = returns[ours_seat]
    others = [returns[p] for p in range(players) if p != ours_seat]
    if all(mine > r for r in others):
        tally.wins += 1
    elif all(mine == r for r in others):
        tally.draws += 1
    tally.ahead += sum(mine > r for r in others)
    tally.pairs += len(others)
    stats = getattr(ours, "stats", {})
    tally.ours_sims += stats.get("iterations", 0)
    tally.ours_decisions += stats.get("decisions", 0)
    for bot in theirs.values():
        tally.theirs_sims += bot.simulations
        tally.theirs_decisions += bot.decisions
    return game_id, tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(available_games()), help="comma-separated game ids")
    parser.add_argument("--matches", type=int, default=100, help="matches per game (seats rotated)")
    parser.add_argument("--budget", type=float, default=0.05, help="seconds per decision, both bots")
    parser.add_argument(
        "--simulations", type=int, default=None, help="simulations per decision, both bots (instead of --budget)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="processes (matches run in parallel)")
    parser.add_argument(
        "--jsonl", type=Path, default=None,
        help="append each match's tally to this file as it ends, so a long run can be stopped and summed later",
    )
    parser.add_argument(
        "--summarize", type=Path, default=None,
        help="play nothing: print the tables of the matches kept in this --jsonl file, one per setting",
    )
    args = parser.parse_args()
    console = Console(width=170)
    if args.summarize is not None:
        summarize(args.summarize, console)
        return
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    tallies = {game_id: Tally() for game_id in games}
    jobs = []
    for game_id in games:
        players = load(game_id).num_players()
        jobs += [
            (game_id, i % players, args.seed + i // players, args.budget, args.simulations)
            for i in range(args.matches)
        ]
    begun = time.perf_counter()
    with Progress(console=console) as progress, Pool(args.workers) as pool:
        tasks = {game_id: progress.add_task(game_id, total=args.matches) for game_id in games}
        for job, (game_id, tally) in pool.imap_unordered(_keyed, jobs):
            tallies[game_id].add(tally)
            progress.advance(tasks[game_id])
            if args.jsonl is not None:
                with args.jsonl.open("a") as out:
                    out.write(json.dumps({"game": game_id, "seat": job[1], "seed": job[2],
                                          "setting": _setting(args.budget, args.simulations),
                                          "tally": tally.__dict__}) + "\n")
    print_table(tallies, _setting(args.budget, args.simulations), console)
    console.print(f"{sum(t.matches for t in tallies.values())} matches in {time.perf_counter() - begun:.0f} s")


def _keyed(job: tuple[str, int, int, float, int | None]) -> tuple[tuple[str, int, int, float, int | None], tuple[str, Tally]]:
    return job, play_match(job)


def _setting(budget: float, simulations: int | None) -> str:
    return f"{budget} s" if simulations is None else f"{simulations} simulations"


def summarize(path: Path, console: Console) -> None:
    """The tables of a ``--jsonl`` file: per setting, per game, every distinct match
    (game, seat, seed) counted once, the last kept if one was played twice."""
    kept: dict[tuple[str, str, int, int], Tally] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            kept[(row["setting"], row["game"], row["seat"], row["seed"])] = Tally(**row["tally"])
    for setting in sorted({key[0] for key in kept}):
        tallies: dict[str, Tally] = {}
        for (each, game_id, _, _), tally in sorted(kept.items()):
            if each == setting:
                tallies.setdefault(game_id, Tally()).add(tally)
        print_table(tallies, setting, console)


def print_table(tallies: dict[str, Tally], each: str, console: Console) -> None:
    table = Table(title=f"ismcts vs OpenSpiel ISMCTS, {each} per decision each")
    columns = ("game", "matches", "ours wins", "95% CI", "ours ahead", "draws", "sims/dec ours", "sims/dec OS",
               "s/dec ours", "s/dec OS")
    for column in columns:
        table.add_column(column, justify="left" if column == "game" else "right")
    for game_id, t in tallies.items():
        low, high = wilson(t.wins, t.matches)
        ahead = f"{100 * t.ahead / t.pairs:.1f}%" if t.pairs else ""
        table.add_row(
            game_id, str(t.matches), f"{100 * t.wins / t.matches:.1f}%", f"{100 * low:.1f}-{100 * high:.1f}",
            ahead, str(t.draws),
            f"{t.ours_sims / t.ours_decisions:.0f}" if t.ours_decisions else "",
            f"{t.theirs_sims / t.theirs_decisions:.1f}" if t.theirs_decisions else "",
            f"{t.ours_seconds / t.ours_decisions:.3f}" if t.ours_decisions else "",
            f"{t.theirs_seconds / t.theirs_decisions:.3f}" if t.theirs_decisions else "",
        )
    console.print(table)


if __name__ == "__main__":
    main()
