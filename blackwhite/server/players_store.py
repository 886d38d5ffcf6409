"""Storage of player identities: players, their login links, and seats bound to them.

A player is like a host (docs/server.md, "Players"): an id that is not a secret, any
number of login links stored only as their tokens' SHA-256, each with a label, an
expiry and whether it was revoked.  Seats bound to a player are rows of
``player_seats``; the database is what every process reads a player's rights from,
so a link revoked (by the API on any process, or ``blackwhite players revoke``) is
refused at once everywhere.

Every method blocks; the service calls them in its store threads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, Connection, Float, ForeignKey, Integer, String, false, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from .. import names
from .errors import Invalid, Unknown
from .limits import MAX_ANONYMOUS_PLAYERS, MAX_HOST_PLAYERS
from .store import LINK_ID, Base, MatchRow, Store



#: a Discord user id: a snowflake, 15 to 21 digits
DISCORD_ID = re.compile(r"[0-9]{15,21}")
#: an email address, as far as the server checks one: something@domain.tld, no spaces or controls
EMAIL = re.compile(r"[^\s@<>()\[\],;:\"\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?"
                   r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+")
MAX_EMAIL = 254


def check_name(name: object) -> str:
    """A display name as stored, or Invalid ``bad_name``."""
    wrong = names.problem(name)
    if wrong is not None:
        raise Invalid("bad_name", f"the player's name: {wrong}")
    assert isinstance(name, str)
    return names.clean(name)


def check_discord(value: object) -> str:
    """A Discord user id as stored, or Invalid ``bad_discord_id``."""
    if not isinstance(value, str) or not DISCORD_ID.fullmatch(value.strip()):
        shown = repr(value)[:40]
        raise Invalid("bad_discord_id", f"a Discord user id is 15 to 21 digits (a snowflake); got {shown}")
    return value.strip()


def check_email(value: object) -> str:
    """An email address as stored, or Invalid ``bad_email``."""
    if not isinstance(value, str) or len(value.strip()) > MAX_EMAIL or not EMAIL.fullmatch(value.strip()):
        shown = repr(value)[:60]
        raise Invalid("bad_email", f"an email address is name@domain.example, at most {MAX_EMAIL} characters; got {shown}")
    return value.strip()



class PlayerRow(Base):
    """A player: the identity its seats belong to, whichever of its links it logs in with."""

    __tablename__ = "players"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    #: the Discord user the bridge maps to this player (unique)
    discord_id: Mapped[str | None] = mapped_column(String(32), nullable=True, unique=True)
    #: where notifications go, if the player wants them
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    #: the host that made it (None: the operator); only it may seat the player
    host_id: Mapped[str | None] = mapped_column(String(32), index=True, nullable=True)
    #: the client address an anonymous host made it from (the quota counts per address)
    creator: Mapped[str | None] = mapped_column(String(64), index=True, nullable=True)
    created: Mapped[float] = mapped_column(Float)
    #: when a link of it was first used: from then on its host makes no more links for it
    claimed: Mapped[float | None] = mapped_column(Float, nullable=True)


class PlayerLinkRow(Base):
    """A login link of a player: its token (hashed), whose it is, and whether it logs in."""

    __tablename__ = "player_links"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), ForeignKey("players.id"), index=True)
    label: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created: Mapped[float] = mapped_column(Float)
    revoked: Mapped[float | None] = mapped_column(Float, nullable=True)
    expires: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: the expiry holds only until the link is first used (a host's invitation link)
    until_used: Mapped[bool] = mapped_column(Boolean, server_default=false())
    #: who made it: ``player`` (the player itself), ``host:<id>``, or ``operator``
    made_by: Mapped[str] = mapped_column(String(40), server_default="player")

    @property
    def link_id(self) -> str:
        """How a link is named in lists and to revoke it: the start of its token's hash."""
        return self.token_hash[:LINK_ID]


class PlayerSeatRow(Base):
    """A match's seat played by a player (with its own login, not a seat link)."""

    __tablename__ = "player_seats"
    match_id: Mapped[str] = mapped_column(String(32), ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str] = mapped_column(String(32), ForeignKey("players.id"), index=True)
    bound: Mapped[float] = mapped_column(Float)


@dataclass(frozen=True)
class PlayerLogin:
    """What a player token logs in as: the player, and whether its link logs in."""

    player_id: str
    revoked: bool
    expires: float | None
    until_used: bool
    #: the player's first login so far (None: never logged in)
    claimed: float | None

    def expired(self, now: float) -> bool:
        return self.expires is not None and now >= self.expires

    def valid(self, now: float) -> bool:
        return not self.revoked and not self.expired(now)


class PlayerConflict(Exception):
    """A unique value (a Discord user id) another player already has: nothing was written."""


class PlayerQuota(Exception):
    """Making a player would go over a bound (``kind``: ``host`` or ``address``)."""

    def __init__(self, kind: str, limit: int) -> None:
        super().__init__(f"{kind}: {limit}")
        self.kind = kind
        self.limit = limit


_LOGIN = (PlayerLinkRow.player_id, PlayerLinkRow.revoked, PlayerLinkRow.expires, PlayerLinkRow.until_used,
          PlayerRow.claimed)


def _login(row: Any) -> PlayerLogin:
    return PlayerLogin(str(row[0]), row[1] is not None, row[2], bool(row[3]), row[4])


class PlayerStore:
    """The statements about players, over the server's :class:`~blackwhite.server.store.Store`
    (its kept connections and its retry on a dead one); each method is one transaction."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    # ------------------------------------------------------------- logins

    def login_of(self, digest: str) -> PlayerLogin | None:
        """What a token (by its hash) logs in as, or None: no player's token."""
        with self.engine.connect() as conn:
            row = conn.execute(select(*_LOGIN).join(PlayerRow, PlayerRow.id == PlayerLinkRow.player_id)
                               .where(PlayerLinkRow.token_hash == digest)).first()
        return None if row is None else _login(row)

    def logins_of(self, digests: list[str]) -> dict[str, PlayerLogin]:
        """What each of these token hashes logs in as (absent: no player's), in one query."""
        out: dict[str, PlayerLogin] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(digests), 500):
                chunk = digests[start:start + 500]
                for row in conn.execute(select(*_LOGIN, PlayerLinkRow.token_hash)
                                        .join(PlayerRow, PlayerRow.id == PlayerLinkRow.player_id)
                                        .where(PlayerLinkRow.token_hash.in_(chunk))):
                    out[str(row[5])] = _login(row)
        return out

    def seat_rights(self, digest: str, match_id: str) -> tuple[PlayerLogin | None, int | None]:
        """What a token logs in as and which seat of ``match_id`` its player holds (None:
        none), read together from what is stored."""
        with self.engine.connect() as conn:
            row = conn.execute(select(*_LOGIN).join(PlayerRow, PlayerRow.id == PlayerLinkRow.player_id)
                               .where(PlayerLinkRow.token_hash == digest)).first()
            if row is None:
                return None, None
            login = _login(row)
            seat = conn.execute(select(PlayerSeatRow.seat).where(
                PlayerSeatRow.match_id == match_id, PlayerSeatRow.player_id == login.player_id)).scalar()
        return login, None if seat is None else int(seat)

    def mark_used(self, digest: str, now: float) -> None:
        """A link was used: an invitation's expiry ends, and its player is claimed."""

        def work(conn: Connection) -> None:
            player = conn.execute(select(PlayerLinkRow.player_id).where(PlayerLinkRow.token_hash == digest)).scalar()
            conn.execute(update(PlayerLinkRow).where(PlayerLinkRow.token_hash == digest,
                                                     PlayerLinkRow.until_used.is_(True))
                         .values(until_used=False, expires=None))
            if player is not None:
                conn.execute(update(PlayerRow).where(PlayerRow.id == player, PlayerRow.claimed.is_(None))
                             .values(claimed=now))

        self.store._write(work)

    # ------------------------------------------------------------- players

    def create(self, player: dict[str, Any], link: dict[str, Any], anonymous: bool,
               limits: tuple[int, int] = (MAX_ANONYMOUS_PLAYERS, MAX_HOST_PLAYERS)) -> None:
        """Insert a player with its first login link, counted against the bounds in the
        same transaction (``limits``: an anonymous host's, an operator-made host's; 0:
        none): over one, :class:`PlayerQuota` and nothing is written.  A Discord id
        another player has: :class:`PlayerConflict`."""

        def count(conn: Connection, where: Any) -> int:
            return int(conn.execute(select(func.count()).select_from(PlayerRow).where(where)).scalar() or 0)

        def work(conn: Connection) -> None:
            if conn.dialect.name == "postgresql":  # creations counted one at a time across processes
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(hashtextextended('blackwhite players', 0))")
            if player.get("discord_id") is not None and conn.execute(
                    select(PlayerRow.id).where(PlayerRow.discord_id == player["discord_id"])).first() is not None:
                raise PlayerConflict(player["discord_id"])
            conn.execute(insert(PlayerRow).values(**player))
            conn.execute(insert(PlayerLinkRow).values(**link))
            host = player.get("host_id")
            limit = limits[0] if anonymous else limits[1]
            if host is not None and limit > 0 and count(conn, PlayerRow.host_id == host) > limit:
                raise PlayerQuota("host", limit)
            if anonymous and player.get("creator") and limits[0] > 0 and count(
                    conn, PlayerRow.creator == player["creator"]) > limits[0]:
                raise PlayerQuota("address", limits[0])

        try:
            self.store._write(work)
        except IntegrityError as exc:  # two makers of one Discord id at once: the second loses here
            raise PlayerConflict(str(player.get("discord_id"))) from exc

    def get(self, player_id: str) -> PlayerRow | None:
        with Session(self.engine) as session:
            row = session.get(PlayerRow, player_id)
            session.expunge_all()
        return row

    def by_discord(self, discord_id: str) -> PlayerRow | None:
        with Session(self.engine) as session:
            row = session.scalars(select(PlayerRow).where(PlayerRow.discord_id == discord_id)).first()
            session.expunge_all()
        return row

    def players(self, host_id: str | None = None, every: bool = False) -> list[PlayerRow]:
        """The players a host made (``host_id``; None: the operator's), or every player, oldest first."""
        query = select(PlayerRow).order_by(PlayerRow.created)
        if not every:
            query = query.where(PlayerRow.host_id.is_(None) if host_id is None else PlayerRow.host_id == host_id)
        return self.store.detached(query)

    def change(self, player_id: str, changes: dict[str, Any]) -> None:
        """Change a player's name, email or Discord id; a Discord id another player has:
        :class:`PlayerConflict`, nothing written."""

        def work(conn: Connection) -> None:
            if changes.get("discord_id") is not None and conn.execute(
                    select(PlayerRow.id).where(PlayerRow.discord_id == changes["discord_id"],
                                               PlayerRow.id != player_id)).first() is not None:
                raise PlayerConflict(changes["discord_id"])
            conn.execute(update(PlayerRow).where(PlayerRow.id == player_id).values(**changes))

        try:
            self.store._write(work)
        except IntegrityError as exc:
            raise PlayerConflict(str(changes.get("discord_id"))) from exc

    # ------------------------------------------------------------- links

    def add_link(self, link: dict[str, Any]) -> None:
        self.store._write(lambda conn: conn.execute(insert(PlayerLinkRow).values(**link)))

    def links(self, player_id: str | None = None) -> list[PlayerLinkRow]:
        """A player's login links (every player's: None), oldest first."""
        query = select(PlayerLinkRow).order_by(PlayerLinkRow.created)
        if player_id is not None:
            query = query.where(PlayerLinkRow.player_id == player_id)
        return self.store.detached(query)

    def revoke(self, player_id: str | None, link_id: str, now: float, made_by: str | None = None) -> PlayerLinkRow | None:
        """Revoke the link named ``link_id`` of ``player_id`` (None: any player's; with
        ``made_by``, only a link that maker made); the link as it is now, or None."""
        rows = [r for r in self.links(player_id) if r.link_id == link_id and (made_by is None or r.made_by == made_by)]
        if not rows:
            return None
        row = rows[0]
        if row.revoked is None:
            self.store._write(lambda conn: conn.execute(
                update(PlayerLinkRow).where(PlayerLinkRow.token_hash == row.token_hash).values(revoked=now)))
            row.revoked = now
        return row

    # ------------------------------------------------------------- seats

    @staticmethod
    def binding(match_id: str, seats: dict[int, str], now: float) -> Callable[[Connection], None]:
        """What binds ``seats`` (seat -> player id) of a match, replacing whoever held them:
        run inside the transaction that creates the match or changes its seat links."""

        def work(conn: Connection) -> None:
            for seat, player_id in seats.items():
                # a player holds one seat of a match: checked in the transaction that binds it,
                # so two binds at once cannot give one player two seats
                other = conn.execute(select(PlayerSeatRow.seat).where(
                    PlayerSeatRow.match_id == match_id, PlayerSeatRow.player_id == player_id,
                    PlayerSeatRow.seat != seat)).scalar()
                if other is not None:
                    raise Invalid("bad_seat", f"player {player_id} already holds P{int(other) + 1} of match {match_id}")
                changed = conn.execute(update(PlayerSeatRow).where(PlayerSeatRow.match_id == match_id,
                                                                   PlayerSeatRow.seat == seat)
                                       .values(player_id=player_id, bound=now)).rowcount
                if not changed:
                    conn.execute(insert(PlayerSeatRow).values(match_id=match_id, seat=seat, player_id=player_id,
                                                              bound=now))

        return work

    def seats_of_match(self, match_id: str) -> dict[int, str]:
        """A match's bound seats: seat -> player id."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(PlayerSeatRow.seat, PlayerSeatRow.player_id)
                                .where(PlayerSeatRow.match_id == match_id)).all()
        return {int(r[0]): str(r[1]) for r in rows}

    def seats_of_matches(self, match_ids: list[str]) -> dict[str, dict[int, str]]:
        """Several matches' bound seats at once: match id -> seat -> player id."""
        out: dict[str, dict[int, str]] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(match_ids), 500):
                chunk = match_ids[start:start + 500]
                for row in conn.execute(select(PlayerSeatRow.match_id, PlayerSeatRow.seat, PlayerSeatRow.player_id)
                                        .where(PlayerSeatRow.match_id.in_(chunk))):
                    out.setdefault(str(row[0]), {})[int(row[1])] = str(row[2])
        return out

    def seasons_of_player(self, player_id: str) -> list[dict[str, Any]]:
        """The seasons whose cast names the player (the ledger's first entry): ``{"id",
        "name", "host", "created"}``, oldest first.  The entry's JSON text is searched for
        the id, then its cast is read, so nothing else that happens to hold it counts."""
        from sqlalchemy import String, cast

        from .season_store import SeasonEntryRow, SeasonRow

        out: list[dict[str, Any]] = []
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(SeasonRow.id, SeasonRow.name, SeasonRow.host_id, SeasonRow.created, SeasonEntryRow.data)
                .join(SeasonEntryRow, SeasonEntryRow.season_id == SeasonRow.id)
                .where(SeasonEntryRow.seq == 1, SeasonEntryRow.kind == "created",
                       cast(SeasonEntryRow.data, String).like(f'%"{player_id}"%'))
                .order_by(SeasonRow.created)).all()
        for season_id, name, host_id, created, data in rows:
            members = data.get("cast") if isinstance(data, dict) else None
            if isinstance(members, list) and any(isinstance(m, dict) and m.get("player") == player_id for m in members):
                out.append({"id": str(season_id), "name": str(name), "host": host_id, "created": created})
        return out

    def seats_of_player(self, player_id: str) -> list[tuple[MatchRow, int]]:
        """Every match a player holds a seat of (its row, without events) with the seat, oldest first."""
        with Session(self.engine) as session:
            rows = session.execute(select(MatchRow, PlayerSeatRow.seat)
                                   .join(PlayerSeatRow, PlayerSeatRow.match_id == MatchRow.id)
                                   .where(PlayerSeatRow.player_id == player_id)
                                   .order_by(MatchRow.created)).all()
            session.expunge_all()
        return [(r[0], int(r[1])) for r in rows]


def resolve_seats(players: PlayerStore, host_id: str, seats: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """The seats of a create-match request with ``{"player": id}`` entries resolved: each
    becomes a person's seat named as given or by the player's name; the bound seats
    (seat -> player id).  Only players ``host_id`` made may be seated, each once;
    Invalid ``bad_seats`` / Unknown ``unknown_player`` otherwise.  Blocks (a store thread)."""
    out: list[dict[str, Any]] = []
    bound: dict[int, str] = {}
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict) or seat.get("player") is None:
            out.append(seat)
            continue
        player_id = seat["player"]
        if not isinstance(player_id, str) or "bot" in seat:
            raise Invalid("bad_seats", f"P{i + 1}: a player's seat is {{\"player\": id}} (a person, not a bot)")
        row = players.get(player_id) if len(player_id) <= 32 else None
        if row is None or row.host_id != host_id:
            raise Unknown("unknown_player", f"P{i + 1}: this host has no player {player_id[:40]!r} "
                                            "(a host seats the players it made)")
        if player_id in bound.values():
            raise Invalid("bad_seats", f"P{i + 1}: player {player_id} already holds another seat of this match")
        bound[i] = player_id
        out.append({"name": seat["name"] if seat.get("name") is not None else row.name})
    return out, bound
