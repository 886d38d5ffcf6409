"""``blackwhite analyse``: the analysis of a match record, as a report, JSON lines or a plot.

The analysis itself is :mod:`blackwhite.analysis`; this module reads the options and the
record, shows progress and prints what it found.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..analysis.core import (
    DEFAULT_WORLDS,
    Analysis,
    Settings,
    analyse,
    default_workers,
    iter_json_lines,
    load_record,
    worlds_for,
)
from ..engine.record import RecordError


def register(app: typer.Typer) -> None:
    """Add the ``analyse`` command to the CLI."""
    app.command("analyse")(analyse_command)


def analyse_command(
    file: str = typer.Argument(..., help="A match record (JSON), or - for standard input."),
    seat: Optional[int] = typer.Option(None, "--seat", help="Only this seat's decisions (0-based)."),
    budget: Optional[float] = typer.Option(
        None, "--budget", help="Seconds of rollouts per decision instead of a fixed number of worlds."
    ),
    worlds: Optional[int] = typer.Option(
        None, "--worlds", help=f"Screening worlds per decision (default: the game's share of {DEFAULT_WORLDS})."
    ),
    workers: int = typer.Option(
        0, "--workers", help="Processes judging decisions side by side (default 0: one per core)."
    ),
    candidates_: int = typer.Option(12, "--candidates", help="Most actions evaluated at one decision."),
    search: int = typer.Option(200, "--search", help="ismcts iterations whose choice joins large candidate sets."),
    seed: int = typer.Option(0, "--seed", help="Seed of the sampled worlds and rollouts."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per decision, then one per seat."),
    plot_file: Optional[str] = typer.Option(None, "--plot", help="Draw the win-chance curves to FILE.png or FILE.svg."),
) -> None:
    """Where each seat gained or lost win chance, judged from its own information.

    For every decision: the estimated win chance after the chosen action and after the
    best candidate, and a mark when the choice lost more than 5 (inaccuracy), 10
    (mistake) or 20 (blunder) points.  Exit status 2 for a bad record or option.
    """
    err = Console(stderr=True, highlight=False)

    def fail(message: str) -> None:
        if as_json:
            print(json.dumps({"error": {"message": message}}))
        else:
            err.print(f"[bold red]error:[/] {message}")
        raise typer.Exit(2)

    try:
        if workers < 0:
            raise ValueError(f"--workers must be at least 0 (0: one per core), got {workers}")
        settings = Settings(
            worlds=worlds, budget=1.0 if budget is None else budget, candidates=candidates_, search=search, seed=seed,
        )
        if plot_file is not None and not (plot_file.endswith(".png") or plot_file.endswith(".svg")):
            raise ValueError(f"--plot writes a .png or .svg file, got {plot_file!r}")
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read {file}: {exc.strerror or exc}") from None
        record = load_record(text, file)
        if worlds is None and budget is None:  # the measured default: the game's share of the worlds
            settings = replace(settings, worlds=worlds_for(str(record.get("game", "")), DEFAULT_WORLDS))
        cores = workers or default_workers()
        if as_json:
            result = analyse(record, seat, settings, workers=cores)
        else:
            with Progress(
                TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                console=err, transient=True,
            ) as bar:
                task = bar.add_task("analyse", total=None)
                result = analyse(
                    record, seat, settings, lambda done, total: bar.update(task, completed=done, total=total),
                    workers=cores,
                )
    except RecordError as exc:
        fail(str(exc))
        return
    except ValueError as exc:
        fail(str(exc))
        return
    if plot_file is not None:
        from ..analysis.plot import plot  # here: matplotlib is an optional extra

        plot(result, plot_file)
    if as_json:
        for line in iter_json_lines(result):
            print(line)
        return
    print_report(result, Console(highlight=False))
    if plot_file is not None:
        Console(highlight=False).print(f"plot written to {plot_file}")


def _seat_name(seat: int, name: str) -> str:
    """``P1 Alice``; just ``P1`` when the record names the seat ``P1`` (or not at all)."""
    base = f"P{seat + 1}"
    return base if name in ("", base) else f"{base} {name}"


def _count(n: int, mark: str) -> str:
    """``1 blunder``, ``7 blunders``, ``2 inaccuracies``."""
    if n == 1:
        return f"1 {mark}"
    return f"{n} {mark[:-1]}ies" if mark.endswith("y") else f"{n} {mark}s"


def print_report(result: Analysis, console: Console) -> None:
    """The readable report: one line per decision, then each seat's skill and luck."""
    colours = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red"}
    console.print(f"[bold]{result.game}[/]: " + ", ".join(_seat_name(i, n) for i, n in enumerate(result.seats)))
    table = Table(box=None, pad_edge=False)
    for column in ("event", "seat", "move", "played", "win %", "best", "best %", "loss", "mark"):
        table.add_column(column, justify="right" if column in ("event", "move", "win %", "best %", "loss") else "left")
    for r in result.decisions:
        mark = "" if r.mark is None else f"[{colours[r.mark]}]{r.mark}[/]"
        best = "" if r.best == r.action else r.best
        table.add_row(
            str(r.event), f"P{r.seat + 1}", str(r.move), r.action, f"{100 * r.win:.0f}", best,
            f"{100 * r.best_win:.0f}", f"{r.loss:.1f}" if r.loss > 0 else "", mark,
        )
    console.print(table)
    for s in result.summaries:
        marks = ", ".join(_count(n, name) for name, n in s.marks.items() if n) or "no marks"
        start = "-" if s.start is None else f"{100 * s.start:.0f}%"
        end = "unfinished" if s.outcome is None else ("won" if s.outcome == 1 else "lost" if s.outcome == 0 else "drawn")
        console.print(
            f"{_seat_name(s.seat, s.name)}: {s.decisions} decisions, {marks}; win chance {start} at the first "
            f"decision, {end}; own decisions {s.skill:+.0f} points, chance and the others' play "
            f"{s.luck:+.0f} points"
        )
