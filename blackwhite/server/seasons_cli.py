"""``blackwhite season``: a host's season through the API, the operator's on the database,
and a season simulated by bots.

``create``, ``status``, ``transfer``, ``award``, ``main``, ``yellow``, ``opponent``,
``death``, ``void``, ``final-game``, ``draft`` and ``final`` are a host's (or a
player's own) steps through a running server's API (``--server``, ``--token``).
``list``, ``show``, ``standings`` (``--csv``), ``ledger``, ``export`` and ``import`` work
on the server's database, running or not, for the operator.  ``simulate`` plays a whole season with bots through the
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

from .cli import DB_OPTION, migrated_engine
from .cli import fail as _fail

if TYPE_CHECKING:
    from .service_seasons import SeasonService

T = TypeVar("T")

season_app = typer.Typer(help="Seasons: a cast, garnets, tokens, death matches and a final (docs/seasons.md).",
                         no_args_is_help=True)

_DB = DB_OPTION


def _with_seasons(db: str, work: Callable[["SeasonService"], Awaitable[T]]) -> T:
    """Run ``work`` with a season service over ``db`` (migrated as the server would), then close it."""
    from .errors import Refused
    from .service import MatchService
    from .service_seasons import SeasonService
    from .store import Store

    engine = migrated_engine(db)

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


# --------------------------------------------------------------------------- a host's commands (the API)

_SERVER = typer.Option("http://127.0.0.1:8000", "--server", envvar="BLACKWHITE_SERVER",
                       help="The server's address (BLACKWHITE_SERVER).")
_TOKEN = typer.Option(..., "--token", envvar="BLACKWHITE_TOKEN", help=(
    "Your host token (or, for a player's own transfer, opponent or pick, your player login's token); "
    "best in BLACKWHITE_TOKEN, out of sight of ps."))
_FOR = typer.Option(None, "--for", help="A host acting for this cast member (their id).")


def _call(server: str, token: str, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """One API request; its error body as one line and exit 1 (nothing was changed)."""
    import httpx

    try:
        answer = httpx.request(method, server.rstrip("/") + path, json=body, timeout=30, trust_env=False,
                               headers={"Authorization": f"Bearer {token}"})
    except httpx.HTTPError as exc:
        _fail(f"cannot reach {server}: {exc}")
        raise
    try:
        data = answer.json()
    except ValueError:
        data = {}
    if answer.status_code >= 400:
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            _fail(f"{error.get('message')} ({error.get('code')})")
        detail = data.get("detail") if isinstance(data, dict) else None
        _fail(f"the server answered {answer.status_code}: {detail or answer.text[:300]}")
    return data if isinstance(data, dict) else {"items": data}


def _pairs(given: list[str], what: str) -> dict[str, Any]:
    """``KEY=VALUE`` options, each value read as JSON where it parses (numbers, true/false, lists)."""
    out: dict[str, Any] = {}
    for item in given:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            _fail(f"{what} {item!r} is not KEY=VALUE")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _said(view: dict[str, Any], server: str) -> None:
    """What a host needs after each step: where the season is, and any match just made."""
    line = f"season {view.get('id')}: round {view.get('round')}, {view.get('phase')}"
    for key in ("candidate", "opponent", "champion", "final_game"):
        if view.get(key):
            line += f", {key.replace('_', ' ')} {view[key]}"
    if view.get("phase") == "choose":
        line += f" (may choose: {', '.join(view.get('eligible_opponents') or [])})"
    if view.get("items_left") and view.get("phase") == "draft":
        line += f" (items left: {', '.join(view['items_left'])})"
    typer.echo(line)
    made = view.get("made")
    if made:
        typer.echo(f"match {made['match']}: {server.rstrip('/')}/api/matches/{made['match']}/view")
        for player, token in (made.get("seats") or {}).items():
            typer.echo(f"  {player}'s seat link (send it to them): "
                       f"{server.rstrip('/')}/api/matches/{made['match']}/view?token={token}")


@season_app.command("create")
def create(name: str = typer.Argument(..., help="The season's name."),
           cast: str = typer.Option(..., "--cast", help=(
               "The cast, comma-separated: a player of yours as player:ID, anyone else by name.")),
           garnets: int = typer.Option(0, "--garnets", min=0, help="Garnets each player starts with."),
           rule: list[str] = typer.Option([], "--rule", help=(
               "A rule as KEY=VALUE (repeatable): loser_garnets_to_winner, tokens_one_round, finalists, "
               "transfers (public or host), choose_seconds.")),
           visibility: str = typer.Option("public", "--visibility", help="public, or cast (its cast and hosts)."),
           server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host creates a season (docs/seasons.md)."""
    members = []
    for item in (c.strip() for c in cast.split(",")):
        if item:
            members.append({"player": item[7:]} if item.startswith("player:") else {"name": item})
    view = _call(server, token, "POST", "/api/seasons", {"name": name, "cast": members, "garnets": garnets,
                                                         "rules": _pairs(rule, "rule"), "visibility": visibility})
    _said(view, server)
    for member in view.get("cast") or []:
        typer.echo(f"  {member['player']}: {member['name']}")


@season_app.command("status")
def status(season: str = typer.Argument(..., help="A season id."), server: str = _SERVER,
           token: str = _TOKEN) -> None:
    """Where a season is, and its standings, as the token may see them."""
    view = _call(server, token, "GET", f"/api/seasons/{season}")
    _said(view, server)
    _table(view.get("standings") or [])


@season_app.command("transfer")
def transfer(season: str = typer.Argument(..., help="A season id."),
             to: str = typer.Argument(..., help="The cast member who receives them (their id)."),
             garnets: int = typer.Argument(..., min=1, help="How many garnets."),
             player: Optional[str] = _FOR, server: str = _SERVER, token: str = _TOKEN) -> None:
    """Give garnets to another cast member (yours, with your login; a host names --for)."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/transfers",
                {"to": to, "garnets": garnets, "player": player}), server)


@season_app.command("award")
def award(season: str = typer.Argument(..., help="A season id."),
          player: str = typer.Argument(..., help="The cast member (their id)."),
          garnets: int = typer.Argument(..., help="Garnets (above 0; with --correction, any non-zero number)."),
          note: str = typer.Option("", "--note", help="Why (shown in the ledger)."),
          correction: bool = typer.Option(False, "--correction", help="Correct a holding (a new ledger entry)."),
          server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host awards garnets, or corrects a holding."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/awards",
                {"player": player, "garnets": garnets, "note": note, "correction": correction}), server)


@season_app.command("main")
def main_match(season: str = typer.Argument(..., help="A season id."),
               winner: list[str] = typer.Option(..., "--winner", help="A Token of Life winner (repeatable)."),
               candidate: str = typer.Option(..., "--candidate", help="The Elimination Candidate."),
               seat: list[str] = typer.Option([], "--seat", help="Who played (repeatable; default: everyone in)."),
               won: list[str] = typer.Option([], "--garnets", help="Garnets won as PLAYER=N (repeatable)."),
               game: str = typer.Option("elsewhere", "--game", help="What was played (a label)."),
               server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host records a main match played elsewhere."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/main",
                {"tokens": winner, "candidate": candidate, "seats": seat or None, "awards": _pairs(won, "garnets"),
                 "game": game}), server)


@season_app.command("yellow")
def yellow(season: str = typer.Argument(..., help="A season id."),
           player: list[str] = typer.Option([], "--player", help="One of the three (repeat 3 times; default: the "
                                                                  "three left)."),
           option: list[str] = typer.Option([], "--option", help="A game option as KEY=VALUE (repeatable)."),
           server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host runs the round's main match as a Black and Yellow on the server."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/main/run",
                {"players": player or None, "options": _pairs(option, "option")}), server)


@season_app.command("opponent")
def opponent(season: str = typer.Argument(..., help="A season id."),
             player: str = typer.Argument(..., help="The opponent (their id)."),
             server: str = _SERVER, token: str = _TOKEN) -> None:
    """The candidate (with their login) or a host chooses the death match's opponent."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/opponent", {"player": player}), server)


@season_app.command("death")
def death(season: str = typer.Argument(..., help="A season id."),
          game: Optional[str] = typer.Argument(None, help="Any installed two-seat game (blackwhite rules)."),
          option: list[str] = typer.Option([], "--option", help="A game option as KEY=VALUE (repeatable)."),
          winner: Optional[str] = typer.Option(None, "--winner", help="Played elsewhere: its winner."),
          server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host makes the death match on the server, or enters one played elsewhere."""
    if (game is None) == (winner is None):
        _fail("give the game to play on the server, or --winner for one played elsewhere", 2)
    _said(_call(server, token, "POST", f"/api/seasons/{season}/death",
                {"game": game, "options": _pairs(option, "option"), "winner": winner}), server)


@season_app.command("void")
def void(season: str = typer.Argument(..., help="A season id."),
         match: str = typer.Argument(..., help="The season's newest match."),
         note: str = typer.Option("", "--note", help="Why (shown in the ledger)."),
         server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host voids the newest match and all that followed it, to make it again."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/void", {"match": match, "note": note}), server)


@season_app.command("final-game")
def final_game(season: str = typer.Argument(..., help="A season id."),
               game: str = typer.Argument(..., help="A two-seat game with items (grouping-final, joust-final)."),
               server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host sets the final's game: its items are what the finalists draft."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/final/game", {"game": game}), server)


@season_app.command("draft")
def draft(season: str = typer.Argument(..., help="A season id."),
          items: list[str] = typer.Argument(..., help="Your pick: one item first; the other finalist takes the rest."),
          player: Optional[str] = _FOR, server: str = _SERVER, token: str = _TOKEN) -> None:
    """A finalist picks the final's items, in turn."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/draft", {"items": items, "player": player}),
          server)


@season_app.command("final")
def final(season: str = typer.Argument(..., help="A season id."),
          option: list[str] = typer.Option([], "--option", help="A game option as KEY=VALUE (repeatable)."),
          winner: Optional[str] = typer.Option(None, "--winner", help="Played elsewhere: its winner."),
          server: str = _SERVER, token: str = _TOKEN) -> None:
    """A host makes the final with the drafted items, or enters its result."""
    _said(_call(server, token, "POST", f"/api/seasons/{season}/final",
                {"options": _pairs(option, "option"), "winner": winner}), server)


def register(app: typer.Typer) -> None:
    """Mount ``season`` on the ``blackwhite`` command."""
    app.add_typer(season_app, name="season")
