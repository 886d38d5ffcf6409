"""Solve small variants with OpenSpiel's CFR+ and save the policy for the ``cfr`` bot.

    python benchmarks/solve.py                                  # the preset variants
    python benchmarks/solve.py --game swapping --option tiles=3 --option max_ties=1 \\
        --iterations 200 --out policies/swapping-3.json

How: the game is loaded through the OpenSpiel adapter (``blackwhite.envs.openspiel``)
and its whole tree is walked once, through the adapter, into OpenSpiel's EFG format
(one information set per information-state string of the adapter; action names are
the encoding's codes; chance draws with their probabilities).  OpenSpiel loads that
as a C++ game (``pyspiel.load_efg_game``), so its CFR+ (``pyspiel.CFRPlusSolver``;
``--algorithm mccfr``: outcome-sampling MCCFR) and its ``exploitability`` run at C++
speed on exactly the game the adapter defines; walking the tree through Python on
every iteration would take seconds per iteration.

It prints the exploitability of the uniform policy, then of the average policy as the
iterations go, and saves the average policy as JSON (docs/research.md, "Solving"):

    {"format": "blackwhite-policy/1", "game": ID, "options": {...}, "algorithm": ...,
     "iterations": N, "exploitability": X, "uniform_exploitability": U,
     "policy": {INFOSTATE: {NOTATION: PROBABILITY, ...}, ...}}

``INFOSTATE`` is the adapter's perfect-recall information-state string of the seat
to move: its decision trail (its earlier view keys and actions) then its current
view's key (``blackwhite.engine.infostate.infostate_string``).  The ``cfr`` bot builds the
same string from its views and its own actions, so ``blackwhite play GAME --vs
cfr:PATH`` looks a live position up in it.  A policy written before the trail was
added is keyed by the view alone and no longer matches: solve again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyspiel  # noqa: E402

from blackwhite.envs.openspiel import load  # noqa: E402
from blackwhite.cli.options import parse_options  # noqa: E402

FORMAT = "blackwhite-policy/1"

#: the variants solved by default: small enough to walk whole (the sizes are
#: information sets of the two seats together)
PRESETS: list[tuple[str, dict[str, Any], int]] = [
    ("domino", {"board": "5x1", "numbers": 3}, 200),  # 131 information sets
    ("swapping", {"tiles": 3, "max_ties": 1}, 200),  # 11,162 information sets
]


@dataclass
class Tree:
    """A game tree written out as EFG, with what is needed to read a policy back."""

    lines: list[str] = field(default_factory=list)
    #: (player, infoset number) -> the adapter's information-state string
    infosets: dict[tuple[int, int], str] = field(default_factory=dict)
    numbers: list[dict[str, int]] = field(default_factory=list)
    #: action code -> notation
    notation: dict[int, str] = field(default_factory=dict)
    nodes: int = 0
    chance_nodes: int = 0
    terminals: int = 0

    def efg(self, title: str, players: int) -> str:
        names = " ".join(f'"P{p + 1}"' for p in range(players))
        return f'EFG 2 R "{title}" {{ {names} }}\n""\n' + "\n".join(self.lines) + "\n"


def walk(game: Any, limit: int, prefix: Sequence[int] = ()) -> Tree:
    """The whole tree of ``game`` (an adapter game) as EFG lines, depth first; with
    ``prefix`` (actions of the adapter), the subgame after them (for quick tests)."""
    players = game.num_players()
    tree = Tree(numbers=[{} for _ in range(players)])
    root = game.new_initial_state()
    for action in prefix:
        root.apply_action(action)
    stack = [root]
    while stack:
        state = stack.pop()
        tree.nodes += 1
        if tree.nodes > limit:
            raise SystemExit(f"the tree has more than {limit} nodes; pick a smaller variant or raise --max-nodes")
        if state.is_terminal():
            tree.terminals += 1
            pays = " ".join(repr(float(r)) for r in state.returns())
            tree.lines.append(f't "" {tree.terminals} "" {{ {pays} }}')
            continue
        if state.is_chance_node():
            tree.chance_nodes += 1
            outcomes = state.chance_outcomes()
            arms = " ".join(f'"d{o}" {p!r}' for o, p in outcomes)
            tree.lines.append(f'c "" {tree.chance_nodes} "" {{ {arms} }} 0')
            stack.extend(state.child(o) for o, _ in reversed(outcomes))
            continue
        player = state.current_player()
        key = state.information_state_string(player)
        number = tree.numbers[player].setdefault(key, len(tree.numbers[player]) + 1)
        tree.infosets[(player, number)] = key
        actions = state.legal_actions()
        for a in actions:
            if a not in tree.notation:
                tree.notation[a] = state.action_to_string(player, a)
        names = " ".join(f'"{a}"' for a in actions)
        tree.lines.append(f'p "" {player + 1} {number} "" {{ {names} }} 0')
        stack.extend(state.child(a) for a in reversed(actions))
    return tree


def read_policy(efg_game: Any, table: dict[str, list[tuple[int, float]]], tree: Tree) -> dict[str, dict[str, float]]:
    """OpenSpiel's tabular policy of the EFG game, keyed back by the adapter's
    information-state strings and notation."""
    names = _action_names(efg_game)
    out: dict[str, dict[str, float]] = {}
    for efg_key, probs in table.items():
        _cur, player, number, _name = efg_key.split("-", 3)
        key = tree.infosets[(int(player), int(number))]
        out[key] = {tree.notation[int(names[a])]: round(float(p), 6) for a, p in probs}
    return out


def _action_names(efg_game: Any) -> dict[int, str]:
    """EFG action id -> its name (our action code as text), read from the game."""
    names: dict[int, str] = {}
    stack = [efg_game.new_initial_state()]
    while stack and len(names) < efg_game.num_distinct_actions():
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            for a in state.legal_actions():
                names.setdefault(a, state.action_to_string(state.current_player(), a))
        stack.extend(state.child(a) for a in state.legal_actions())
    return names


def solve(
    game_id: str, options: dict[str, Any], iterations: int, algorithm: str, out: Path | None,
    report_every: int = 0, max_nodes: int = 2_000_000, quiet: bool = False, prefix: Sequence[int] = (),
) -> dict[str, Any]:
    """Walk, solve and save; returns the saved document (without writing when ``out`` is None)."""
    say = (lambda *a: None) if quiet else print
    start = time.perf_counter()
    game = load(game_id, **options)
    tree = walk(game, max_nodes, prefix)
    efg_game = pyspiel.load_efg_game(tree.efg(f"blackwhite {game_id}", game.num_players()))
    infosets = len(tree.infosets)
    say(
        f"{game_id} {json.dumps(options)}: {tree.nodes} nodes, {infosets} information sets, "
        f"walked in {time.perf_counter() - start:.1f} s"
    )
    uniform = pyspiel.exploitability(efg_game, pyspiel.UniformRandomPolicy(efg_game))
    say(f"  uniform policy: exploitability {uniform:.5f}")
    if algorithm == "cfr+":
        solver: Any = pyspiel.CFRPlusSolver(efg_game)
        step = solver.evaluate_and_update_policy
    else:
        solver = pyspiel.OutcomeSamplingMCCFRSolver(efg_game, seed=0)
        step = lambda: [solver.run_iteration() for _ in range(1000)]  # noqa: E731
    every = report_every or max(1, iterations // 10)
    value = uniform
    begun = time.perf_counter()
    for i in range(1, iterations + 1):
        step()
        if i % every == 0 or i == iterations:
            value = pyspiel.exploitability(efg_game, solver.average_policy())
            say(
                f"  {algorithm} iteration {i:>5}: exploitability {value:.5f} "
                f"({uniform / value if value > 0 else float('inf'):.0f}x below uniform, "
                f"{time.perf_counter() - begun:.1f} s)"
            )
    table = solver.tabular_average_policy().policy_table() if algorithm == "cfr+" else _table(solver, efg_game)
    doc = {
        "format": FORMAT,
        "game": game_id,
        "options": dict(game.setup.game.options),
        "algorithm": algorithm,
        "iterations": iterations,
        "exploitability": value,
        "uniform_exploitability": uniform,
        "policy": read_policy(efg_game, table, tree),
    }
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, separators=(",", ":")), encoding="utf-8")
        say(f"  saved {len(doc['policy'])} positions to {out} ({out.stat().st_size // 1024} KiB)")
    return doc


def _table(solver: Any, efg_game: Any) -> dict[str, list[tuple[int, float]]]:
    """MCCFR's average policy as a table (its policy object has no table of its own)."""
    policy = solver.average_policy()
    table: dict[str, list[tuple[int, float]]] = {}
    stack = [efg_game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            table.setdefault(state.information_state_string(), policy.get_state_policy(state))
        stack.extend(state.child(a) for a in state.legal_actions())
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", help="a game id (default: the presets)")
    parser.add_argument("--option", action="append", default=[], help="key=value, repeatable")
    parser.add_argument("--iterations", type=int, help="CFR+ iterations (MCCFR: thousands of samples each)")
    parser.add_argument("--algorithm", choices=("cfr+", "mccfr"), default="cfr+")
    parser.add_argument("--out", type=Path, help="policy file (default policies/GAME.json)")
    parser.add_argument("--max-nodes", type=int, default=2_000_000)
    args = parser.parse_args()
    if args.game:
        runs = [(args.game, parse_options(args.option), args.iterations or 100)]
    else:
        runs = [(g, o, args.iterations or n) for g, o, n in PRESETS]
    for game_id, options, iterations in runs:
        out = args.out if args.out and len(runs) == 1 else Path("policies") / f"{game_id}.json"
        solve(game_id, options, iterations, args.algorithm, out, max_nodes=args.max_nodes)


if __name__ == "__main__":
    main()
