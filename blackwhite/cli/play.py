"""``blackwhite play``: a person plays a game in the terminal against bots.

The match itself is :class:`blackwhite.terminal.TerminalMatch`; this module reads the
options, makes the game and the bots, and saves the record at the end.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from ..engine import BlackWhiteError, make_game
from ..terminal import PERSON_BUDGET, TerminalMatch, check_record_path, seat_bots
from .options import parse_options


def seat_number(text: str, num_seats: int) -> int:
    """``--seat``: ``0``..``n-1`` or ``P1``..``Pn`` -> the 0-based seat; ValueError otherwise."""
    t = text.strip().upper()
    digits = t[1:] if t.startswith("P") else t
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"--seat {text!r}: give a seat number 0..{num_seats - 1} or P1..P{num_seats}")
    seat = int(digits) - 1 if t.startswith("P") else int(digits)
    if not 0 <= seat < num_seats:
        raise ValueError(f"seat {text} does not exist; seats are 0..{num_seats - 1} (P1..P{num_seats})")
    return seat


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to the CLI."""

    @app.command()
    def play(
        game: str = typer.Argument(..., help="Game id (see `blackwhite rules`)."),
        seat: str = typer.Option("0", "--seat", help="Your seat: 0..n-1, or P1..Pn."),
        vs: list[str] = typer.Option(
            [], "--vs", help="Bot(s) for the other seats in seat order (repeat or comma-separate); "
            "default ismcts. Settings as name:key=value."
        ),
        option: list[str] = typer.Option([], "--option", "-o", help="Game option key=value (repeatable)."),
        seed: Optional[int] = typer.Option(None, "--seed", help="Seed for chance events (default: random)."),
        budget: float = typer.Option(PERSON_BUDGET, "--budget", help="Seconds a search bot may think per decision."),
        record: Optional[Path] = typer.Option(
            None, "--record", help="File or folder for the match record (default ./records/); saved once you have moved."
        ),
        clock: bool = typer.Option(False, "--clock", help="Enforce the game's clock (timeouts apply its rule)."),
        name: str = typer.Option("You", "--name", help="Your name in the record."),
    ) -> None:
        """Play a game in the terminal against bots."""
        err = Console(stderr=True, highlight=False)
        try:
            g = make_game(game, parse_options(option))
            person = seat_number(seat, g.num_seats)
            bots = seat_bots(g.num_seats, person, vs)
            check_record_path(record)
            if not (budget > 0 and math.isfinite(budget)):
                raise ValueError(f"--budget is seconds per decision and must be above 0, got {budget:g}")
        except (BlackWhiteError, ValueError, TypeError, KeyError) as exc:
            err.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(2) from None
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        match = TerminalMatch(g, person, bots, seed, budget, enforce_clock=clock, name=name)
        try:
            match.run()
        finally:
            if match.worth_saving():
                path = match.save(record)
                if path is not None:
                    match.console.print(Text(f"Record saved: {path}"))
            else:
                match.console.print("No move was made: no record saved.")
