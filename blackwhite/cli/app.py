"""The ``blackwhite`` command: a thin adapter over the engine.

``blackwhite referee`` is a public contract: exit 0 for a legal record, 2 for a bad
one, and under ``--json`` exactly one JSON object on standard output, whatever the
input (never a traceback).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from .. import __version__
from .. import app as serve_cli  # blackwhite serve, beside the app it assembles
from ..discord_bridge import cli as discord_cli
from ..engine import LIVE, State, outcome_json
from ..engine.record import RecordError, Replay, parse_record, replay
from ..engine.registry import UnknownGameError, broken, declared, entry, game_class, game_ids, load, rules_markdown
from ..server import cluster_cli, hosts_cli, players_cli, seasons_cli, ratings_cli
from . import analyse, arena, play

app = typer.Typer(
    help="Host, referee and play the Black & White games.\n\n"
    "Start with `blackwhite play swapping` (you against a bot), "
    "`blackwhite rules` (the games) or `blackwhite referee RECORD.json` (check a match record).",
    no_args_is_help=True,
    # plain click help: typer's rich panels print every flag as `--json <bool>`, which
    # reads as if it took a value
    rich_markup_mode=None,
)


def _show_version(value: bool) -> None:
    if value:
        print(f"blackwhite {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Host, referee and play the Black & White games."""


def _fail(message: str, as_json: bool, event: int | None = None) -> None:
    if as_json:
        print(json.dumps({"error": {"event": event, "message": message}}))
    else:
        where = "" if event is None else f"event {event}: "
        Console(stderr=True).print(
            f"[bold red]error:[/] {escape(where + message)}", highlight=False, soft_wrap=True
        )
    raise typer.Exit(2)


def _read(file: Path) -> bytes:
    """The bytes of ``file`` (``-``: standard input); :class:`RecordError` if unreadable."""
    try:
        if str(file) == "-":
            return sys.stdin.buffer.read()
        return file.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read {file}: {exc.strerror or exc}") from None


@app.command()
def referee(
    file: Path = typer.Argument(..., help="A match record (JSON), or - for standard input."),
    as_json: bool = typer.Option(
        False, "--json", help="Print one JSON object: the outcome, or {\"error\": ...}."
    ),
) -> None:
    """Check a match record and print the outcome.

    Exit status 0 for a legal record (finished or not), 2 for a bad one. With --json
    it prints {"game", "finished", "winner", "scores"} (plus "to_move" while
    unfinished, "ranking" for yellow, "pace" and "clock" for a record played at
    a pace other than live), or {"error": {"event": i, "message": ...}}
    where i is the 0-based index of the first bad event (null: the record as a
    whole). Without --json it prints every announcement, what each seat saw
    privately, and the result.
    """
    try:
        _referee(file, as_json)
    except typer.Exit:
        raise
    except Exception as exc:  # a bug of ours: still one answer, and no traceback
        _fail(
            f"blackwhite could not check {file} (internal error {type(exc).__name__}: {exc}); "
            "please report it with the record",
            as_json,
        )


def _referee(file: Path, as_json: bool) -> None:
    try:
        record = parse_record(_read(file), "standard input" if str(file) == "-" else str(file))
        result = replay(record)
    except RecordError as exc:
        _fail(exc.message, as_json, exc.event)
        return
    if as_json:
        if result.error is not None:
            _fail(result.error.message, True, result.error.event)
        # a live match's outcome is exactly as it always was (a server's records say "live")
        print(json.dumps(outcome_json(result.state, None if result.pace == LIVE else result.pace)))
        return
    _print_account(result, result.pace != LIVE)
    if result.error is not None:
        _fail(result.error.message, False, result.error.event)


def seat_names(names: list[str]) -> str:
    """``P1 Sally, P2 Maddie``; a seat named by default (``P1``) is named once."""
    return ", ".join(
        n if n == f"P{i + 1}" else f"P{i + 1} {n}" for i, n in enumerate(names)
    )


def _print_account(result: Replay, show_pace: bool = False) -> None:
    """A readable account: every announcement, who saw what privately, and the result
    (with ``show_pace``, a record played at a pace other than live, the clock its timeouts followed)."""
    console = Console(highlight=False)
    state = result.state
    names = [escape(n) for n in result.seats]  # names are the record author's text, not markup
    game = state.game
    opts = ", ".join(f"{k}={json.dumps(v)}" for k, v in game.shown_options().items())
    console.print(f"[bold]{escape(game.title)}[/] ({game.id}); options: {escape(opts)}")
    console.print("Seats: " + seat_names(names))
    if show_pace:
        console.print("Pace: " + escape(result.pace.describe(game.clock_rule())))
    console.print()
    for note in state.log:
        if note.to is None:
            console.print(f"  {escape(note.text)}")
        else:
            console.print(f"  [dim]\\[only {names[note.to]} sees][/] {escape(note.text)}")
    for seat, action in sorted(state.pending.items()):
        console.print(
            f"  [dim]\\[secret, step not complete][/] {names[seat]} has submitted {escape(state._fmt(action))}"
        )
    drawing = _host_drawing(state)
    if drawing:
        console.print()
        console.print(drawing, markup=False)
    console.print()
    console.print(_result_text(state, names))


def _host_drawing(state: State) -> str | None:
    """The board as the host sees it, for games whose registry entry names a ``board``
    drawing (domino)."""
    host_view = getattr(state, "host_view", None)
    declared_as = declared(state.game.id)
    if callable(host_view) and declared_as is not None and declared_as.board is not None:
        return str(load(declared_as.board)(host_view()))
    return None


def _result_text(state: State, names: list[str]) -> str:
    res = state.result()
    scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(res.scores))
    if res.finished:
        who = "nobody" if res.winner is None else names[res.winner]
        line = f"[bold]Finished.[/] Winner: {who}. Scores: {scores}."
        if res.reason:
            line += f" ({escape(res.reason)})"
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
    """The rules page of ``gid`` as its package ships it (its entry's ``rules_page``)."""
    text = rules_markdown(gid)
    if text is None:
        raise FileNotFoundError(gid)
    return text


def _report_broken() -> None:
    """Say on standard error which installed games could not be loaded, and why, unless
    the log already said so when the games were discovered (a command run by :func:`main`)."""
    if any(h.get_name() == "blackwhite" for h in logging.getLogger("blackwhite").handlers):
        return
    for bad in broken():
        Console(stderr=True).print(f"[yellow]warning:[/] {escape(str(bad))}", highlight=False, soft_wrap=True)


class _PlainLevel(logging.Formatter):
    """``warning: text``: how a command says what its log says."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


def _log_to_stderr() -> None:
    """Write blackwhite's warnings (an installed game that cannot be loaded) on standard
    error as ``warning: ...``: without a handler Python printed them bare, reading like
    an error of the command.  ``serve`` replaces this handler (same name) with its own."""
    logger = logging.getLogger("blackwhite")
    if any(h.get_name() == "blackwhite" for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name("blackwhite")
    handler.setLevel(logging.WARNING)
    handler.setFormatter(_PlainLevel())
    logger.addHandler(handler)


@app.command()
def rules(
    game: Optional[str] = typer.Argument(None, help="Game id; leave out to list the games."),
    raw: bool = typer.Option(False, "--raw", help="Print the Markdown source."),
) -> None:
    """Print a game's rules page (every ruling and option)."""
    console = Console()
    if game is None:
        for gid in game_ids():
            console.print(f"{gid:16} {escape(game_class(gid).title)}", highlight=False)
        _report_broken()
        return
    try:
        entry(game)
    except UnknownGameError as exc:
        _fail(str(exc), False)
    try:
        text = rules_text(game)
    except FileNotFoundError:
        _fail(f"no rules page for {game} yet", False)
        return
    with contextlib.suppress(KeyError):  # the options as the host form and the rules page say them
        text = text.rstrip() + "\n\n" + game_class(game).options_markdown()
    if raw or not sys.stdout.isatty():
        print(text)
    else:
        from rich.markdown import Markdown  # here, not at the top: every command (serve too) paid its import

        console.print(Markdown(text))


@app.command("check-game")
def check_game(
    game: str = typer.Argument(..., help="Game id of an installed game (see `blackwhite rules`)."),
    playouts: int = typer.Option(
        2000, "--playouts", min=1,
        help="Random playouts; the other checks run in proportion (at least once each).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the first run; each further run takes the next."),
    only: Optional[str] = typer.Option(
        None, "--only", help="Checks to run, comma-separated (default: all; see docs/designing-a-game.md)."
    ),
) -> None:
    """Run the conformance kit on an installed game: rules, records, clock and secrecy.

    Each failure is printed with the command that reproduces it.  Exit 0 when every
    check passes, 1 when one fails, 2 for an unknown game or check."""
    from ..engine import conformance

    console = Console()
    names = [n.strip() for n in only.split(",") if n.strip()] if only else None
    unknown = [n for n in names or [] if n not in conformance.CHECKS]
    if unknown:
        _fail(f"unknown check {', '.join(unknown)}; checks: {', '.join(conformance.CHECKS)}", False)
    try:
        entry(game)
    except UnknownGameError as exc:
        _fail(str(exc), False)

    def report(outcome: conformance.Outcome) -> None:
        runs = f"{outcome.runs} run{'s' if outcome.runs != 1 else ''}"
        if not outcome.failures:
            console.print(f"[green]ok[/]    {outcome.check:11} {runs:>11}  {outcome.seconds:6.1f} s", highlight=False)
            return
        console.print(f"[bold red]FAIL[/]  {outcome.check:11} {runs:>11}  {outcome.seconds:6.1f} s", highlight=False)
        for failure in outcome.failures:
            console.print(f"      seed {failure.seed}: {escape(failure.message)}", highlight=False, soft_wrap=True)
            console.print(f"      reproduce: {failure.reproduce(game)}", highlight=False, soft_wrap=True)

    console.print(f"check-game {game}: {playouts} playouts, seeds from {seed}", highlight=False)
    try:
        outcomes = conformance.run(game, playouts=playouts, seed=seed, only=names, on_outcome=report)
    except Exception as exc:  # the game fails before any check can start (its defaults, its class)
        console.print(f"[bold red]FAIL[/]  the game cannot be made: {escape(conformance.explain(exc))}",
                      highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    failed = [o.check for o in outcomes if o.failures]
    if failed:
        console.print(f"[bold red]{len(failed)} of {len(outcomes)} checks failed:[/] {', '.join(failed)}",
                      highlight=False)
        raise typer.Exit(1)
    console.print(f"[green]all {len(outcomes)} checks passed[/]", highlight=False)


# the commands that live in their own modules, each added by its ``register(app)``
for _commands in (play, arena, serve_cli, discord_cli, hosts_cli, players_cli, seasons_cli, ratings_cli, cluster_cli,
                  analyse):
    _commands.register(app)


def main() -> None:
    _log_to_stderr()
    app(prog_name="blackwhite")
