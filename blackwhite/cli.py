"""The ``blackwhite`` command: a thin adapter over the engine."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.markdown import Markdown

from .engine import State, outcome_json
from .engine.record import RecordError, Replay, replay
from .engine.registry import _GAMES, game_class

app = typer.Typer(
    help="Host, referee and play the Black & White games.",
    no_args_is_help=True,
    add_completion=False,
)


def _fail(message: str, as_json: bool, event: int | None = None) -> None:
    if as_json:
        print(json.dumps({"error": {"event": event, "message": message}}))
    else:
        where = "" if event is None else f"event {event}: "
        Console(stderr=True).print(f"[bold red]error:[/] {where}{message}", highlight=False)
    raise typer.Exit(2)


@app.command()
def referee(
    file: Path = typer.Argument(..., help="A match record (JSON), or - for standard input."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (RULES.md format)."),
) -> None:
    """Check a match record and print the outcome.

    Exit status 0 for a legal record (finished or not), 2 for a bad one; with --json
    a bad record prints {"error": {"event": i, "message": ...}}.
    """
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}", as_json)
        return
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"{file} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}", as_json)
        return
    try:
        result = replay(record)
    except RecordError as exc:
        _fail(exc.message, as_json, exc.event)
        return
    if as_json:
        if result.error is not None:
            _fail(result.error.message, True, result.error.event)
        print(json.dumps(outcome_json(result.state)))
        return
    _print_account(result)
    if result.error is not None:
        _fail(result.error.message, False, result.error.event)


def _print_account(result: Replay) -> None:
    """A readable account: every announcement, who saw what privately, and the result."""
    console = Console(highlight=False)
    state = result.state
    names = result.seats
    game = state.game
    opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in game.options.items())
    console.print(f"[bold]{game.title}[/] ({game.id}); options: {opts}")
    console.print("Seats: " + ", ".join(f"P{i + 1} {n}" for i, n in enumerate(names)))
    console.print()
    for note in state.log:
        if note.to is None:
            console.print(f"  {note.text}")
        else:
            console.print(f"  [dim]\\[only {names[note.to]} sees][/] {note.text}")
    for seat, action in sorted(state.pending.items()):
        console.print(
            f"  [dim]\\[secret, step not complete][/] {names[seat]} has submitted {state._fmt(action)}"
        )
    drawing = _host_drawing(state)
    if drawing:
        console.print()
        console.print(drawing, markup=False)
    console.print()
    console.print(_result_text(state, names))


def _host_drawing(state: State) -> str | None:
    """The board as the host sees it, for games whose module can draw one (domino)."""
    host_view = getattr(state, "host_view", None)
    draw = getattr(sys.modules.get(type(state).__module__), "draw_board", None)
    if callable(host_view) and callable(draw):
        return str(draw(host_view()))
    return None


def _result_text(state: State, names: list[str]) -> str:
    res = state.result()
    scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(res.scores))
    if res.finished:
        who = "nobody" if res.winner is None else names[res.winner]
        line = f"[bold]Finished.[/] Winner: {who}. Scores: {scores}."
        if res.reason:
            line += f" ({res.reason})"
    else:
        waiting = state.to_move()
        if waiting:
            awaiting = ", ".join(names[s] for s in waiting)
        else:
            awaiting = f"a chance event ({state.chance_kind()})" if state.is_chance() else "nothing"
        line = f"[bold]Not finished.[/] Awaiting: {awaiting}. Scores so far: {scores}."
    if res.ranking is not None:
        line += " Ranking: " + ", ".join(names[s] for s in res.ranking) + "."
    return line


def rules_text(gid: str) -> str:
    """The rules page of ``gid`` from the installed package, or from docs/ in a checkout."""
    packaged = Path(__file__).parent / "_rules" / f"{gid}.md"
    checkout = Path(__file__).resolve().parent.parent / "docs" / "rules" / f"{gid}.md"
    for path in (packaged, checkout):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(gid)


@app.command()
def rules(
    game: Optional[str] = typer.Argument(None, help="Game id; leave out to list the games."),
    raw: bool = typer.Option(False, "--raw", help="Print the Markdown source."),
) -> None:
    """Print a game's rules page (every ruling and option)."""
    console = Console()
    if game is None:
        for gid in _GAMES:
            try:
                title = game_class(gid).title
            except KeyError:
                title = "(not implemented yet)"
            console.print(f"{gid:16} {title}")
        return
    if game not in _GAMES:
        _fail(f"unknown game {game!r}; games: {', '.join(_GAMES)}", False)
    try:
        text = rules_text(game)
    except FileNotFoundError:
        _fail(f"no rules page for {game} yet", False)
        return
    if raw or not sys.stdout.isatty():
        print(text)
    else:
        console.print(Markdown(text))


def _register_plugins() -> None:
    """Mount commands that live in their own modules (terminal play, arena)."""
    for name in ("terminal", "arena"):
        modname = f"{__package__}.{name}"
        if importlib.util.find_spec(modname) is None:
            continue
        module: Any = importlib.import_module(modname)
        module.register(app)


_register_plugins()
app.command("analyse")(importlib.import_module(f"{__package__}.analysis").analyse_command)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
