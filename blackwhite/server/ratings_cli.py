"""``blackwhite ratings``: the per-game leaderboards, straight on a server's database.

It works whether or not the server is running: ``show`` first brings the ratings up to
date with every finished match (as the running server does after each one), and
``rebuild`` replays every finished match again and folds every game from its first
match, which leaves the tables as they were when nothing is wrong (docs/seasons.md).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import typer

from .cli import DB_OPTION as _DB
from .cli import migrated_engine

if TYPE_CHECKING:
    from .ratings import Ratings

ratings_app = typer.Typer(help="Per-game ratings and leaderboards of players and bots (run on the server's database).",
                          no_args_is_help=True)


def _ratings(db: str) -> Ratings:
    """The ratings of ``db``, migrated to the newest schema (as the server would at start)."""
    from .ratings import Ratings

    return Ratings(migrated_engine(db))


@ratings_app.command("games")
def list_games(db: str = _DB, as_json: bool = typer.Option(False, "--json", help="One JSON object.")) -> None:
    """The games with rated matches: how many, and how many players and bots are rated."""
    ratings = _ratings(db)
    ratings.sync()
    games = ratings.games()
    ratings.engine.dispose()
    if as_json:
        typer.echo(json.dumps({"games": games}))
        return
    if not games:
        typer.echo("no rated match yet: a match is rated when every seat is a player or a bot")
    for g in games:
        typer.echo(f"{g['game']}: {g['matches']} rated match{'es' if g['matches'] != 1 else ''}, {g['rated']} rated")


@ratings_app.command("show")
def show(game: str = typer.Argument(..., help="A game id (blackwhite rules lists them)."),
         limit: int = typer.Option(20, "--limit", min=1, max=1000, help="How many rows, best first."),
         offset: int = typer.Option(0, "--offset", min=0, help="Rows to skip first."),
         as_json: bool = typer.Option(False, "--json", help="One JSON object, as GET /api/ratings/GAME answers."),
         db: str = _DB) -> None:
    """A game's leaderboard: place, rating (mu - 3 sigma), mu, sigma, and the record."""
    from ..engine.registry import game_ids
    from .ratings import standing_json

    ratings = _ratings(db)
    ratings.sync()
    board = ratings.leaderboard(game, limit, offset)
    names = ratings.names([s.identity for _, s in board.rows])
    ratings.engine.dispose()
    if not board.total and game not in game_ids():
        typer.echo(f"error: no game {game!r} is installed or rated here (blackwhite ratings games)", err=True)
        raise typer.Exit(1)
    rows = [standing_json(place, s, names) for place, s in board.rows]
    if as_json:
        typer.echo(json.dumps({"game": game, "total": board.total, "offset": offset, "rows": rows}))
        return
    if not rows:
        typer.echo(f"{game}: nobody is rated yet" if not board.total else f"{game}: {board.total} rated, none past {offset}")
        return
    width = max(len(r["name"]) + (6 if r["kind"] == "bot" else 0) for r in rows)
    typer.echo(f"{'#':>4}  {'who':<{width}}  {'rating':>7}  {'mu':>6}  {'sigma':>5}  {'W-D-L':>11}  last")
    for r in rows:
        who = r["name"] + (" (bot)" if r["kind"] == "bot" else "")
        record = f"{r['wins']}-{r['draws']}-{r['losses']}"
        last = time.strftime("%Y-%m-%d", time.gmtime(r["last_at"])) if r["last_at"] else "-"
        typer.echo(f"{r['place']:>4}  {who:<{width}}  {r['rating']:>7.2f}  {r['mu']:>6.2f}  {r['sigma']:>5.2f}  "
                   f"{record:>11}  {last}")
    if board.total > offset + len(rows):
        typer.echo(f"... {board.total - offset - len(rows)} more (--offset {offset + len(rows)})")


@ratings_app.command("rebuild")
def rebuild(game: list[str] = typer.Option(None, "--game", help="Only this game (repeat for several); default: all."),
            db: str = _DB) -> None:
    """Replay every finished match again and fold each game's ratings from its first match."""
    ratings = _ratings(db)
    written = ratings.rebuild(game or None)
    after = ratings.games()
    ratings.engine.dispose()
    rated = ", ".join(f"{g['game']} {g['matches']}" for g in after) or "none"
    typer.echo(f"replayed {written} finished match{'es' if written != 1 else ''}; rated matches by game: {rated}")


def register(app: typer.Typer) -> None:
    """Mount ``ratings`` on the ``blackwhite`` command."""
    app.add_typer(ratings_app, name="ratings")
