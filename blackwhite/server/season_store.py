"""Seasons in the database: a row per season and its append-only ledger.

An append is one transaction that first moves the season row (taking its lock: SQLite's
write lock, PostgreSQL's row lock), then reads the whole ledger, replays it
(:func:`~blackwhite.server.season_ledger.replay`), lets the caller build the new entries
from the season as it is *now*, replays again with them, and inserts them.  Appends to
one season are therefore applied one at a time and in one order by every process (a
transfer and a death match's result arriving together on two processes are ordered by
the lock, and the second is checked against the first), and nothing is acknowledged
before it is committed (SQLite WAL or PostgreSQL: a commit survives ``kill -9``).
Entries are only ever inserted: no statement here updates or deletes one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sqlalchemy import JSON, Boolean, Connection, Float, ForeignKey, Integer, String, insert, select, update
from sqlalchemy.orm import Mapped, mapped_column

from .season_ledger import LedgerError, Season, replay
from .store import Base, Store


class SeasonRow(Base):
    """A season: its name, host and co-hosts, who may read it, and how long its ledger is."""

    __tablename__ = "seasons"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    host_id: Mapped[str] = mapped_column(String(32), index=True)
    cohosts: Mapped[Any] = mapped_column(JSON, nullable=True)
    #: ``public`` (anyone with the season's address) or ``cast`` (its cast and hosts)
    visibility: Mapped[str] = mapped_column(String(16), server_default="public")
    created: Mapped[float] = mapped_column(Float)
    #: entries in the ledger; every append moves it on first (the season's lock)
    seq: Mapped[int] = mapped_column(Integer, server_default="0")


class SeasonEntryRow(Base):
    """One ledger entry, never changed once written."""

    __tablename__ = "season_entries"
    season_id: Mapped[str] = mapped_column(String(32), ForeignKey("seasons.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    data: Mapped[Any] = mapped_column(JSON)
    #: the entry whose consequence this is (a result's elimination names the result)
    cause: Mapped[int | None] = mapped_column(Integer, nullable=True)
    at: Mapped[float] = mapped_column(Float)
    #: who wrote it: ``host:ID``, ``player:ID`` or ``server``
    by: Mapped[str | None] = mapped_column(String(64), nullable=True)


class SeasonMatchRow(Base):
    """A server match of a season: its result goes to the ledger when it ends."""

    __tablename__ = "season_matches"
    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    season_id: Mapped[str] = mapped_column(String(32), ForeignKey("seasons.id"), index=True)
    #: {player: seat}
    seats: Mapped[Any] = mapped_column(JSON)
    settled: Mapped[bool] = mapped_column(Boolean, server_default="0")


_SEASONS = Base.metadata.tables["seasons"]
_ENTRIES = Base.metadata.tables["season_entries"]
_MATCHES = Base.metadata.tables["season_matches"]
#: builds the entries to append from the season as the ledger has it now, the next seq
#: and the moment: each ``{"kind", "data", "cause"?, "by"?}`` (seq and at are filled in)
Builder = Callable[[Season, int], list[dict[str, Any]]]


@dataclass(frozen=True)
class Appended:
    """What an append wrote, and the season after it."""

    season: Season
    entries: list[dict[str, Any]]


def entry_json(row: Any) -> dict[str, Any]:
    """An entry as the replay and the export read it."""
    out: dict[str, Any] = {"seq": int(row.seq), "kind": str(row.kind), "data": row.data, "at": float(row.at),
                           "by": row.by}
    if row.cause is not None:
        out["cause"] = int(row.cause)
    return out


class SeasonStore:
    """The statements a season runs; each method is one transaction (on the match store's
    kept connections, with its bounded waits)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create(self, season_id: str, name: str, host_id: str, visibility: str, now: float,
               ledger: list[dict[str, Any]]) -> Season:
        """Insert a season with its whole ledger (a new season's first entry, or an
        imported ledger), checked by replay first: nothing is written if it does not
        replay."""
        season = replay(ledger)
        rows = [{"season_id": season_id, "seq": e["seq"], "kind": e["kind"], "data": e.get("data") or {},
                 "cause": e.get("cause"), "at": float(e.get("at") or now), "by": e.get("by")} for e in ledger]

        def work(conn: Connection) -> None:
            conn.execute(insert(_SEASONS).values(id=season_id, name=name, host_id=host_id, cohosts=[],
                                                 visibility=visibility, created=now, seq=len(ledger)))
            conn.execute(insert(_ENTRIES), rows)

        self.store._write(work)
        return season

    def append(self, season_id: str, build: Builder, now: float, by: str,
               matches: dict[str, dict[str, int]] | None = None) -> Appended:
        """Append what ``build`` makes of the season as it is now, in one transaction
        under the season's lock, if the ledger still replays with it (else
        :class:`LedgerError` and nothing is written).  ``matches`` names the server
        matches made by these entries ({match id: {player: seat}}).  KeyError: no such
        season."""
        out: list[Appended] = []

        def work(conn: Connection) -> None:
            locked = conn.execute(update(_SEASONS).where(_SEASONS.c.id == season_id)
                                  .values(seq=_SEASONS.c.seq)).rowcount
            if locked != 1:
                raise KeyError(season_id)
            ledger = [entry_json(r) for r in conn.execute(
                select(_ENTRIES).where(_ENTRIES.c.season_id == season_id).order_by(_ENTRIES.c.seq))]
            season = replay(ledger)
            made = build(season, len(ledger) + 1)
            new = []
            for i, e in enumerate(made):
                entry = {"seq": len(ledger) + 1 + i, "kind": e["kind"], "data": e.get("data") or {},
                         "at": float(e.get("at", now)), "by": e.get("by", by)}
                if e.get("cause") is not None:
                    entry["cause"] = e["cause"]
                new.append(entry)
            if not new:
                out.append(Appended(season, []))
                return
            after = replay(ledger + new)
            conn.execute(insert(_ENTRIES), [{"season_id": season_id, "seq": e["seq"], "kind": e["kind"],
                                              "data": e["data"], "cause": e.get("cause"), "at": e["at"],
                                              "by": e["by"]} for e in new])
            conn.execute(update(_SEASONS).where(_SEASONS.c.id == season_id).values(seq=len(ledger) + len(new)))
            for match_id, seats in (matches or {}).items():
                conn.execute(insert(_MATCHES).values(match_id=match_id, season_id=season_id, seats=seats,
                                                     settled=False))
            settled = [e["data"].get("match") for e in new if e["kind"] in ("match_finished", "void")]
            if settled:
                conn.execute(update(_MATCHES).where(_MATCHES.c.match_id.in_(settled)).values(settled=True))
            out.append(Appended(after, new))

        self.store._write(work)
        return out[-1]

    def ledger(self, season_id: str) -> list[dict[str, Any]] | None:
        """A season's entries in order (None: no such season)."""
        with self.store.engine.connect() as conn:
            if conn.execute(select(_SEASONS.c.id).where(_SEASONS.c.id == season_id)).first() is None:
                return None
            return [entry_json(r) for r in conn.execute(
                select(_ENTRIES).where(_ENTRIES.c.season_id == season_id).order_by(_ENTRIES.c.seq))]

    def row(self, season_id: str) -> SeasonRow | None:
        from sqlalchemy.orm import Session

        with Session(self.store.engine) as session:
            found = session.get(SeasonRow, season_id)
            session.expunge_all()
        return found

    def rows(self, host_id: str | None = None) -> list[SeasonRow]:
        """Every season (a host's own and co-hosted ones, given ``host_id``), oldest first."""
        from sqlalchemy import String, cast, or_
        from sqlalchemy.orm import Session

        query = select(SeasonRow).order_by(SeasonRow.created)
        if host_id is not None:
            query = query.where(or_(SeasonRow.host_id == host_id,
                                    cast(SeasonRow.cohosts, String).like(f'%"{host_id}"%')))
        with Session(self.store.engine) as session:
            out = list(session.scalars(query))
            session.expunge_all()
        return out

    def rows_of_player(self, player_id: str) -> list[SeasonRow]:
        """Every season whose cast names ``player_id`` (a server player's id), oldest first."""
        from sqlalchemy import String, cast
        from sqlalchemy.orm import Session

        named = cast(_ENTRIES.c.data, String).like(f'%"{player_id}"%')
        first = select(_ENTRIES.c.season_id).where(_ENTRIES.c.seq == 1, _ENTRIES.c.kind == "created", named)
        with Session(self.store.engine) as session:
            out = list(session.scalars(select(SeasonRow).where(SeasonRow.id.in_(first)).order_by(SeasonRow.created)))
            session.expunge_all()
        return out

    def set_row(self, season_id: str, **changes: Any) -> None:
        """Change a season's co-hosts or visibility (never its ledger)."""
        self.store._write(lambda conn: conn.execute(update(_SEASONS).where(_SEASONS.c.id == season_id)
                                                    .values(**changes)))

    def season_of(self, match_id: str) -> tuple[str, dict[str, int], bool] | None:
        """(season id, {player: seat}, settled) of a season's server match, or None."""
        with self.store.engine.connect() as conn:
            row = conn.execute(select(_MATCHES.c.season_id, _MATCHES.c.seats, _MATCHES.c.settled)
                               .where(_MATCHES.c.match_id == match_id)).first()
        return None if row is None else (str(row[0]), dict(row[1]), bool(row[2]))

    def unsettled(self) -> list[tuple[str, str]]:
        """(match id, season id) of every server match of a season whose result is not
        in its ledger yet: what the settling loop looks at."""
        with self.store.engine.connect() as conn:
            return [(str(r[0]), str(r[1])) for r in conn.execute(
                select(_MATCHES.c.match_id, _MATCHES.c.season_id).where(_MATCHES.c.settled.is_(False)))]


__all__ = ["Appended", "LedgerError", "SeasonStore", "SeasonRow", "SeasonEntryRow", "SeasonMatchRow", "entry_json"]
