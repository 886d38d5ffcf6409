"""``blackwhite cluster status``: the server processes over one database and what each
owns, read straight from the database (no process needs to answer), for an operator
who would otherwise query ``processes``, ``owners`` and ``pg_locks`` by hand."""

from __future__ import annotations

import json
import time
from typing import Any

import typer

from .cli import shown_url, without_password
from .cli import DB_OPTION as _DB

cluster_app = typer.Typer(help="The server processes sharing a database, and what each owns.", no_args_is_help=True)


def cluster_state(db: str) -> dict[str, Any]:
    """Every process (its lease and the running matches it owns) and the running matches
    no live process owns, as of now on the database's clock."""
    from sqlalchemy import func, select
    from sqlalchemy.exc import SQLAlchemyError

    from .store import MatchRow, OwnerRow, ProcessRow, make_engine, normalise_url

    # read only: no migration (run beside older servers after an upgrade of the package,
    # it must not change their schema under them), and a database it cannot read is one line
    from pathlib import Path

    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(normalise_url(db))
        if (parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
                and not Path(str(parsed.database)).exists()):  # a typo must not leave an empty database behind
            raise FileNotFoundError(f"there is no file {parsed.database}")
        engine = make_engine(normalise_url(db))
    except Exception as exc:
        typer.echo(without_password(f"error: cannot open the database {shown_url(db)}: {exc}", db), err=True)
        raise typer.Exit(2) from None
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "postgresql":
                now = float(conn.execute(select(func.extract("epoch", func.now()))).scalar_one())
            else:
                now = time.time()
            processes = conn.execute(select(ProcessRow.id, ProcessRow.url, ProcessRow.started, ProcessRow.beat,
                                            ProcessRow.expires).order_by(ProcessRow.started)).all()
            owned = conn.execute(select(OwnerRow.process_id, OwnerRow.match_id).join(
                MatchRow, MatchRow.id == OwnerRow.match_id).where(MatchRow.status == "running")).all()
            running = [str(r[0]) for r in conn.execute(select(MatchRow.id).where(MatchRow.status == "running"))]
    except SQLAlchemyError as exc:
        orig = getattr(exc, "orig", None)
        first = str(orig if orig is not None else exc).splitlines()[0][:300]
        typer.echo(without_password(f"error: cannot read the servers' tables in {shown_url(db)}: {first} "
                                    "(has a blackwhite serve of this version run on it?)", db), err=True)
        raise typer.Exit(2) from None
    finally:
        engine.dispose()
    by_process: dict[str, list[str]] = {}
    for process_id, match_id in owned:
        by_process.setdefault(str(process_id), []).append(str(match_id))
    out = []
    live_owned: set[str] = set()
    for pid, url, started, beat, expires in processes:
        alive = expires is not None and float(expires) > now
        matches = sorted(by_process.get(str(pid), []))
        if alive:
            live_owned.update(matches)
        out.append({"id": str(pid), "url": url, "started": started, "beat_age": round(now - float(beat), 1),
                    "lease_left": None if expires is None else round(float(expires) - now, 1), "alive": alive,
                    "matches": matches})
    return {"now": now, "processes": out, "running": len(running),
            "unowned": sorted(m for m in running if m not in live_owned)}


@cluster_app.command("status")
def status(db: str = _DB, as_json: bool = typer.Option(False, "--json", help="One JSON object, for other tools.")) -> None:
    """The processes (id, address, heartbeat, lease) and the running matches each owns."""
    state = cluster_state(db)
    if as_json:
        typer.echo(json.dumps(state, indent=1))
        return
    if not state["processes"]:
        typer.echo("no server process has registered on this database (one process over SQLite never does)")
    for p in state["processes"]:
        lease = "no lease" if p["lease_left"] is None else (
            f"lease {p['lease_left']:.1f} s left" if p["alive"] else f"lease ran out {-p['lease_left']:.1f} s ago")
        shown = ", ".join(p["matches"][:8]) + (f" (+{len(p['matches']) - 8} more)" if len(p["matches"]) > 8 else "")
        typer.echo(f"{p['id']}  {p['url'] or '(no internal URL)'}  {'up' if p['alive'] else 'DOWN'}, "
                   f"heartbeat {p['beat_age']:.1f} s ago, {lease}; owns {len(p['matches'])} running"
                   + (f": {shown}" if shown else ""))
    unowned = state["unowned"]
    typer.echo(f"{state['running']} running match{'es' if state['running'] != 1 else ''}; "
               + (f"{len(unowned)} owned by no live process (the next request or look takes them over): "
                  + ", ".join(unowned[:8]) if unowned else "every one owned by a live process"))


def register(app: typer.Typer) -> None:
    """Mount ``cluster`` on the ``blackwhite`` command."""
    app.add_typer(cluster_app, name="cluster")
