"""The arena: its table agrees with the records it saved; seats rotate; Ray is optional."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any, Callable

import pytest
import typer
from typer.testing import CliRunner

from blackwhite import arena
from blackwhite.arena import make_specs, run_arena, run_specs, tabulate, wilson
from blackwhite.cli import arena as arena_command
from blackwhite.engine import load


def figures_from_records(out: Path) -> dict[str, dict[str, float]]:
    """Recompute wins, games and margins from nothing but the saved record files."""
    figures: dict[str, dict[str, float]] = {}
    for path in sorted((out / "records").glob("*.json")):
        record = json.loads(path.read_text())
        result = load(record).result()
        names = record["seats"]
        for seat, name in enumerate(names):
            row = figures.setdefault(name, {"games": 0, "wins": 0.0, "margin": 0.0})
            row["games"] += 1
            if result.winner is None:
                row["wins"] += 1 / len(names)
            elif result.winner == seat:
                row["wins"] += 1
            others = [s for i, s in enumerate(result.scores) if i != seat]
            row["margin"] += result.scores[seat] - sum(others) / len(others)
    return figures


@pytest.mark.parametrize(
    ("game", "bots"),
    [("swapping", ["heuristic", "random"]), ("yellow", ["ismcts:iterations=4", "random"])],
)
def test_table_agrees_with_saved_records(tmp_path: Path, game: str, bots: list[str]) -> None:
    rows, results = run_arena(game, bots, games=6, workers=2, budget=0.01, seed=3, out=tmp_path)
    figures = figures_from_records(tmp_path)
    assert {r.label for r in rows} == set(figures)
    for row in rows:
        mine = figures[row.label]
        assert row.games == mine["games"] == 6
        assert row.wins == pytest.approx(mine["wins"])
        assert row.margin == pytest.approx(mine["margin"] / mine["games"])
        assert row.ci == wilson(row.wins, row.games)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [t["bot"] for t in summary["table"]] == [r.label for r in rows]
    assert [t["wins"] for t in summary["table"]] == [r.wins for r in rows]
    assert len(summary["matches"]) == 6


def test_seats_rotate_and_deals_are_paired() -> None:
    specs = make_specs("yellow", ["heuristic", "random"], games=6, seed=10)
    assert [s.labels for s in specs[:1]] == [("heuristic", "random#1", "random#2")]
    # each block of three matches seats the first slot once in every seat, on one deal
    for block in (specs[:3], specs[3:]):
        assert sorted(s.lineup.index(0) for s in block) == [0, 1, 2]
        assert len({s.seed for s in block}) == 1
    two = make_specs("swapping", ["random", "heuristic"], games=4)
    assert [s.lineup for s in two] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert [s.seed for s in two] == [0, 0, 1, 1]


def test_pool_and_in_process_runs_agree() -> None:
    specs = make_specs("swapping", ["heuristic", "random"], games=4, seed=1)
    one = run_specs(specs, workers=1)
    two = run_specs(specs, workers=2)
    assert [r["record"] for r in one] == [r["record"] for r in two]


def test_wilson_interval() -> None:
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-3) and high == pytest.approx(0.7634, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(0, 10)[1] == pytest.approx(0.2775, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """Test app."""

    arena_command.register(app)
    return app


def test_ray_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    result = CliRunner().invoke(
        cli(), ["arena", "swapping", "--bots", "random,random", "--ray", "auto", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "pip install 'blackwhite[ray]'" in result.output


def test_ray_path_runs_the_same_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for Ray's API (init, remote, wait, get) runs the specs as Ray would."""

    class Ref:
        def __init__(self, value: Any) -> None:
            self.value = value

    fake: Any = types.ModuleType("ray")
    fake.init = lambda address, ignore_reinit_error: None
    fake.is_initialized = lambda: True  # the caller's connection: left open

    def remote(fn: Callable[..., Any]) -> Any:
        return types.SimpleNamespace(remote=lambda *a: Ref(fn(*a)))

    fake.remote = remote
    fake.wait = lambda refs, num_returns: (refs[:num_returns], refs[num_returns:])
    fake.get = lambda ref: ref.value
    monkeypatch.setitem(sys.modules, "ray", fake)
    specs = make_specs("swapping", ["heuristic", "random"], games=2, seed=4)
    via_ray = run_specs(specs, ray_address="auto")
    local = run_specs(specs, workers=1)
    assert [r["record"] for r in via_ray] == [r["record"] for r in local]
    assert tabulate(via_ray)[0].wins == tabulate(local)[0].wins


def test_cli_prints_the_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli(),
        ["arena", "swapping", "--bots", "heuristic,random", "-n", "2", "-w", "1", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert "win rate" in result.output and "95% CI" in result.output
    assert len(list((tmp_path / "records").glob("*.json"))) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-n", "-3"], "--games must be at least 1"),
        (["-n", "0"], "--games must be at least 1"),
        (["-w", "-2"], "--workers must be 0"),
        (["--budget", "0"], "--budget is seconds per decision and must be above 0"),
        (["--budget", "-1"], "must be above 0"),
        (["--budget", "nan"], "must be above 0"),
        (["--bots", "ismcts:foo=1"], "it takes settings budget, iterations"),
        (["--bots", "ismcts:budget=abc"], "cannot use budget=\"abc\""),
        (["--bots", "random:x=1"], "takes no settings"),
    ],
)
def test_a_run_that_cannot_mean_anything_is_refused_before_it_starts(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "out"
    base = ["arena", "swapping", "--bots", "random,random", "-n", "2", "-w", "1", "--out", str(out)]
    result = CliRunner().invoke(cli(), base + args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output and "━" not in result.output  # no progress bar started
    assert not out.exists()


def test_an_unwritable_out_is_refused_before_playing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    for out in ("/proc/nope", str(blocker / "sub")):
        result = CliRunner().invoke(cli(), ["arena", "swapping", "--bots", "random,random", "-n", "2", "--out", out])
        assert result.exit_code == 2 and "cannot make the output folder" in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_two_runs_in_the_same_second_get_their_own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = arena.output_dir(None, "swapping", now=0)
    second = arena.output_dir(None, "swapping", now=0)
    assert first != second and first.is_dir() and second.is_dir()
    assert second.name == first.name + "-2"
    (first / "summary.json").write_text("{}")
    with pytest.raises(arena.ArenaError, match="already holds an arena run"):
        arena.output_dir(first, "swapping")


def test_the_table_keeps_the_order_of_bots(tmp_path: Path) -> None:
    for bots in (["random", "heuristic"], ["heuristic", "random"]):
        rows, _ = run_arena("swapping", bots, games=2, workers=1, budget=0.01, out=None)
        assert [r.label for r in rows] == bots
    result = CliRunner().invoke(
        cli(), ["arena", "swapping", "--bots", "random,heuristic", "-n", "2", "-w", "1", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    table = result.output.split("win rate")[1]  # below the table's header
    assert table.index("random") < table.index("heuristic")


def test_a_budget_in_a_bots_spec_is_its_own_over_the_arenas() -> None:
    """``ismcts:budget=0.2`` thinks 0.2 s a decision though the arena's --budget is
    0.01 (the spec's word was overridden by the arena's default, and an iteration cap
    without a budget was cut by it too)."""
    from blackwhite.arena.run import run_match

    (spec,) = make_specs("swapping", ["ismcts:budget=0.2", "random"], 1, 0, 0.01,
                         {"tiles": 3, "max_ties": 1})
    stats = run_match(spec)["bot_stats"]["ismcts"]
    assert stats["decisions"] >= 1
    assert stats["seconds"] / stats["decisions"] >= 0.15, stats


def test_wins_of_three_seats_with_draws_print_as_a_short_number() -> None:
    """A drawn match of three seats counts a third to each: 19/3 wins read "6.33",
    not "6.33333"."""
    from rich.console import Console

    from blackwhite.arena import Row, rows_table

    console = Console(width=200, record=True)
    console.print(rows_table([Row("ismcts", games=20, wins=19 / 3)], "t", 3))
    text = console.export_text()
    assert " 6.33 " in text and "6.333" not in text, text
