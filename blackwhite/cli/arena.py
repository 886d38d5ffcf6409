"""``blackwhite arena``: bots play each other with seats rotated; the table of win rates.

The arena itself is :mod:`blackwhite.arena`; this module reads the options and prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from ..arena import ArenaError, check_ray, check_run, make_specs, output_dir, rows_table, run_arena
from .options import parse_options


def register(app: typer.Typer) -> None:
    """Add the ``arena`` command to the CLI."""

    @app.command()
    def arena(
        game: str = typer.Argument(..., help="Game id (see `blackwhite rules`)."),
        bots: str = typer.Option(
            ..., "--bots", help="Bots by seat slot, comma-separated: a,b[,c]; settings as name:key=value."
        ),
        games: int = typer.Option(100, "--games", "-n", help="Matches to play (seats rotate); at least 1."),
        workers: int = typer.Option(0, "--workers", "-w", help="Processes (0: one per core; 1: in-process)."),
        budget: float = typer.Option(0.05, "--budget", help="Seconds per decision for search bots (above 0)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the first deal."),
        out: Optional[Path] = typer.Option(
            None, "--out", help="Directory for records and summary.json (default: arena/GAME-TIME)."
        ),
        option: list[str] = typer.Option([], "--option", "-o", help="Game option key=value (repeatable)."),
        ray: Optional[str] = typer.Option(
            None, "--ray", help="Run on a Ray cluster at ADDRESS (needs: pip install 'blackwhite\\[ray]')."
        ),
    ) -> None:
        """Play bots against each other with seats rotated; print win rates with 95% intervals."""
        console = Console()
        names = [b for b in bots.split(",") if b.strip()]
        try:
            opts = parse_options(option)
            if ray is not None:
                check_ray()
            check_run(games, workers, budget)
            make_specs(game, names, 1, seed, budget, opts)  # a bad game, option or bot: before any folder
            target = output_dir(out, game)
            rows, results = run_arena(game, names, games, workers, budget, seed, target, opts, ray, console)
        except (ArenaError, ValueError, TypeError, KeyError, OSError) as exc:
            Console(stderr=True).print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        seats = len(results[0]["names"]) if results else 2
        title = f"{game}: {games} matches, seats rotated, budget {budget:g} s/decision"
        console.print(rows_table(rows, title, seats))
        console.print(f"Records and summary: {target}")
