"""``blackwhite season``: seasons on the server's database, and a season simulated by bots.

``list``, ``show``, ``standings`` (``--csv``), ``ledger``, ``export`` and ``import`` work
on the server's database, running or not, for the operator (a season's hosts use the API
or the pages: docs/seasons.md).  ``simulate`` plays a whole season with bots through the
same services, on a database of its own (a fresh SQLite file unless ``--db``), and writes
its export.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, TypeVar

import typer

from .cli import DEFAULT_DB, database_url, shown_url, without_password

if TYPE_CHECKING:
    from .service_seasons import SeasonService

T = TypeVar("T")

season_app = typer.Typer(help="Seasons: a cast, garnets, tokens, death matches and a final (docs/seasons.md).",
                         no_args_is_help=True)

_DB = typer.Option(None, "--db", envvar="BLACKWHITE_DB", callback=database_url, show_default=DEFAULT_DB, help=(
    "The server's database URL (as given to blackwhite serve): --db, else BLACKWHITE_DB, else the db key "
    "of the file BLACKWHITE_CONFIG names, else the default."))


def _fail(message: str, code: int = 1) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _with_seasons(db: str, work: Callable[["SeasonService"], Awaitable[T]]) -> T:
    """Run ``work`` with a season service over ``db`` (migrated as the server would), then close it."""
    from .errors import Refused
    from .service import MatchService
    from .service_seasons import SeasonService
    from .store import Store, make_engine, migrate, normalise_url

    try:
        engine = make_engine(normalise_url(db))
        migrate(engine)
    except Exception as exc:
        typer.echo(without_password(f"error: cannot open the database {shown_url(db)}: {exc}", db), err=True)
        raise typer.Exit(2) from None

    async def run() -> T:
        matches = MatchService(Store(engine), bot_workers=0)
        try:
            return await work(SeasonService(matches))
        finally:
            await matches.close()

    try:
        return asyncio.run(run())
    except Refused as exc:
        _fail(f"{exc.message} ({exc.code})")
        raise  # unreachable: _fail exits
    finally:
        engine.dispose()


def _table(rows: list[dict[str, Any]]) -> None:
    typer.echo(f"{'place':>5}  {'player':<18} {'name':<24} {'garnets':>7} {'tokens':>6}  out in round")
    for r in rows:
        out = "-" if r["eliminated_round"] is None else str(r["eliminated_round"])
        garnets = "?" if r["garnets"] is None else str(r["garnets"])
        typer.echo(f"{r['place']:>5}  {r['player']:<18} {r.get('name', ''):<24} {garnets:>7} {r['tokens']:>6}  {out}")


@season_app.command("list")
def list_seasons(db: str = _DB) -> None:
    """Every season on the server: its id, name, host, visibility and ledger length."""

    async def work(seasons: "SeasonService") -> None:
        for row in await seasons.matches._db(seasons.store.rows):
            typer.echo(f"{row.id}  {row.name!r}  host {row.host_id}  {row.visibility}  {row.seq} entries")

    _with_seasons(db, work)


@season_app.command("show")
def show(season: str = typer.Argument(..., help="A season id (blackwhite season list)."), db: str = _DB) -> None:
    """A season's round, phase, next step and standings."""

    async def work(seasons: "SeasonService") -> None:
        row, state = await seasons._season(season)
        summary = state.summary()
        typer.echo(f"{row.name!r}: round {summary['round']}, {summary['phase']}"
                   + (f", candidate {summary['candidate']}" if summary["candidate"] else "")
                   + (f", opponent {summary['opponent']}" if summary["opponent"] else "")
                   + (f", champion {summary['champion']}" if summary["champion"] else ""))
        _table(state.standings())

    _with_seasons(db, work)


@season_app.command("standings")
def standings(season: str = typer.Argument(..., help="A season id (blackwhite season list)."),
              as_csv: bool = typer.Option(False, "--csv", help="CSV: place, player, name, garnets, tokens, "
                                                                "eliminated_round."),
              db: str = _DB) -> None:
    """A season's standings, as a table or CSV (every player's garnets: the operator's view)."""
    from .service_seasons import standings_csv

    async def work(seasons: "SeasonService") -> list[dict[str, Any]]:
        return (await seasons._season(season))[1].standings()

    rows = _with_seasons(db, work)
    if as_csv:
        typer.echo(standings_csv(rows), nl=False)
    else:
        _table(rows)


@season_app.command("ledger")
def ledger(season: str = typer.Argument(..., help="A season id (blackwhite season list)."), db: str = _DB) -> None:
    """Every ledger entry of a season, one JSON object a line, in order."""

    async def work(seasons: "SeasonService") -> list[dict[str, Any]]:
        await seasons._season(season)
        return await seasons.matches._db(seasons.store.ledger, season) or []

    for e in _with_seasons(db, work):
        typer.echo(json.dumps(e, ensure_ascii=False))


def _write(data: dict[str, Any], out: Optional[Path]) -> None:
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}")


@season_app.command("export")
def export(season: str = typer.Argument(..., help="A season id (blackwhite season list)."),
           out: Optional[Path] = typer.Option(None, "--out", help="Write the export here (default: standard output)."),
           db: str = _DB) -> None:
    """A season as JSON: its ledger, standings and every server match's record."""

    async def work(seasons: "SeasonService") -> dict[str, Any]:
        return await seasons.export_unchecked(season)

    _write(_with_seasons(db, work), out)


@season_app.command("import")
def import_season(file: Path = typer.Argument(..., help="A season's export (blackwhite season export)."),
                  db: str = _DB) -> None:
    """A season exported from another server, as a season of this server's own host (its
    ledger is replayed and checked whole; nothing is written if any entry does not fit)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        _fail(f"cannot read {file}: {exc}")

    async def work(seasons: "SeasonService") -> dict[str, Any]:
        token = seasons.matches.owner_login("season import", expires_in=60.0)
        return await seasons.import_season(token, data)

    made = _with_seasons(db, work)
    typer.echo(f"imported as season {made['id']} ({made['name']!r}, {len(made['standings'])} players)")


@season_app.command("simulate")
def simulate(players: int = typer.Option(13, "--players", min=3, max=64, help="Players in the cast."),
             seed: int = typer.Option(..., "--seed", min=0, max=2**62 - 1, help="The season's seed: the same seed, "
                                                                                "the same season."),
             out: Path = typer.Option(..., "--out", help="Write the season's export (JSON) here."),
             db: Optional[str] = typer.Option(None, "--db", help="A database to play it on (default: a fresh "
                                                                 "SQLite file, removed after)."),
             iterations: int = typer.Option(30, "--iterations", min=1, max=10_000,
                                            help="Iterations each bot (ismcts) thinks per decision."),
             short: bool = typer.Option(False, "--short", help="Every game in its short variant (a quick run)."),
             quiet: bool = typer.Option(False, "--quiet", help="No progress lines.")) -> None:
    """A whole season played by bots through the server's own services: main matches as
    Black and Yellow or as host-entered results, death matches of every two-seat game, a
    final with an item draft; written as the season's export."""
    from .season_sim import simulate as run

    def progress(line: str) -> None:
        if not quiet:
            typer.echo(line, err=True)

    try:  # a file that cannot be written is said before the season is played, not after
        out.open("a", encoding="utf-8").close()
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}")
    with tempfile.TemporaryDirectory(prefix="blackwhite-season-") as folder:
        url = db or f"sqlite:///{Path(folder) / 'season.db'}"
        try:
            export = asyncio.run(run(players, seed, url, iterations, short, progress))
        except ValueError as exc:
            _fail(str(exc))
    _write(export, out)
    progress(f"written to {out}")


def register(app: typer.Typer) -> None:
    """Mount ``season`` on the ``blackwhite`` command."""
    app.add_typer(season_app, name="season")
