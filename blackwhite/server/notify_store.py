"""The notifications' tables and statements (blackwhite/server/notify.py says what they are for).

The database is the truth here as everywhere: a notice is written to ``notify_notices``
(one row per event and seat, keyed so that writing it twice writes it once), and one
``notify_outbox`` row per channel it goes out by; a row is marked ``sent`` only after
the channel took it.  Every method blocks (the notifier runs them in a thread) and is
one transaction; every statement is plain SQL that SQLite and PostgreSQL both run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

metadata = MetaData()
#: browsers one recipient may have subscribed at once (more: the oldest go)
MAX_PUSH = 10

#: one row per event and seat: what happened (the facts the seat's view holds), keyed
#: ``kind:match:seat:step`` so that a notice found again (after a restart) is not new
notices = Table(
    "notify_notices", metadata,
    Column("key", String(200), primary_key=True),
    Column("match_id", String(32), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("kind", String(8), nullable=False),
    Column("facts", JSON, nullable=False),
    Column("created", Float, nullable=False),
)

#: one row per notice and destination (a channel and its address): pending, sent, void
#: (the step was over, or the channel was turned off, before it went) or failed
outbox = Table(
    "notify_outbox", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("notice", String(200), nullable=False),
    Column("recipient", String(64), nullable=False),
    Column("channel", String(16), nullable=False),
    Column("address", Text, nullable=False),
    Column("match_id", String(32), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("kind", String(8), nullable=False),
    Column("created", Float, nullable=False),
    Column("due", Float, nullable=False),
    Column("state", String(8), nullable=False, index=True),
    Column("sent", Float, nullable=True),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("error", Text, nullable=True),
)

#: the host's ``email`` for a seat not bound to a player (create-match request)
seat_emails = Table(
    "notify_seats", metadata,
    Column("match_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("email", String(254), nullable=False),
)

#: a recipient's choice per channel (no row: on); ``recipient`` is :func:`recipient_id`
prefs = Table(
    "notify_prefs", metadata,
    Column("recipient", String(64), primary_key=True),
    Column("channel", String(16), primary_key=True),
    Column("enabled", Boolean, nullable=False),
    Column("updated", Float, nullable=False),
)

#: Web Push subscriptions a page made (opt-in), each for one recipient
push_subs = Table(
    "notify_push", metadata,
    Column("id", String(32), primary_key=True),
    Column("recipient", String(64), nullable=False, index=True),
    Column("who", String(300), nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("p256dh", String(200), nullable=False),
    Column("auth", String(100), nullable=False),
    Column("created", Float, nullable=False),
)

#: single-use links a message carries (only their hashes): opening one gives the seat a
#: fresh key (``notify_keys``) and opens its page
links = Table(
    "notify_links", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("match_id", String(32), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("used", Float, nullable=True),
    #: the player it was sent to (None: the host's address for an unbound seat)
    Column("player", String(32), nullable=True),
)

#: seat keys made by opening a single-use link: a token (hash only) that speaks for the seat
keys = Table(
    "notify_keys", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("match_id", String(32), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("created", Float, nullable=False),
    #: the player the key was made for: it speaks for the seat only while the seat is that player's
    Column("player", String(32), nullable=True),
)

#: digests handed to the Discord bridge (``GET /api/notify/discord``): it DMs each to its
#: user and marks it delivered; one not marked is handed out again (at least once)
dms = Table(
    "notify_dm", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("discord_id", String(32), nullable=False),
    Column("message", JSON, nullable=False),
    Column("created", Float, nullable=False),
    Column("delivered", Float, nullable=True, index=True),
)

#: which process sends (one row): the holder until ``until``, renewed while it lives
lease = Table(
    "notify_lease", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("holder", String(64), nullable=False),
    Column("until", Float, nullable=False),
)


def recipient_id(who: str) -> str:
    """The opaque id a recipient (``mail:ADDRESS``, ``seat:MATCH:N``, ``player:ID``) is
    kept and named by in links: no address appears in a URL."""
    return hashlib.sha256(who.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class Target:
    """One destination of a seat's notices: who (``who``), by which channel, to what address."""

    who: str
    channel: str
    address: str

    @property
    def recipient(self) -> str:
        return recipient_id(self.who)


@dataclass(frozen=True)
class Pending:
    """An outbox row waiting to be sent, with its notice's facts."""

    id: int
    recipient: str
    channel: str
    address: str
    match_id: str
    seat: int
    kind: str
    facts: dict[str, Any]
    created: float
    attempts: int
    due: float


def seat_email_rows(match_id: str, emails: dict[int, str]) -> list[dict[str, Any]]:
    """The ``notify_seats`` rows of a new match (stored in the transaction that creates it)."""
    return [{"match_id": match_id, "seat": seat, "email": email} for seat, email in sorted(emails.items())]


#: the kinds of notice the Discord bridge DMs itself for its own host's matches (the
#: invitation, every prompt, the end: its ``OWN_KINDS``), the only ones it may void
BRIDGE_KINDS = ("join", "turn", "end")


class NotBridgeOwn(Exception):
    """The bridge said it DMs a message itself, and the message has an item it does not
    (another host's match, or time running low): refused, nothing marked."""


class NotifyStore:
    """The notifications' statements; each method one transaction (blocking)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _insert_ignore(self, conn: Connection, table: Table, row: dict[str, Any], keys: list[str]) -> bool:
        """Insert ``row`` unless its key is there; whether it was inserted."""
        insert_ = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
        result = conn.execute(insert_(table).values(**row).on_conflict_do_nothing(index_elements=keys))
        return bool(result.rowcount)

    # ------------------------------------------------------------- who is told

    def targets(self, match_id: str) -> dict[int, list[Target]]:
        """Every destination of each seat of a match, as chosen now (a channel turned off
        is left out)."""
        with self.engine.connect() as conn:
            return self._targets(conn, match_id)

    def _targets(self, conn: Connection, match_id: str) -> dict[int, list[Target]]:
        out: dict[int, list[Target]] = {}
        for seat, email in conn.execute(select(seat_emails.c.seat, seat_emails.c.email)
                                        .where(seat_emails.c.match_id == match_id)):
            out.setdefault(int(seat), []).append(Target(f"mail:{email.lower()}", "email", email))
        bound = {int(r.seat): str(r.player_id) for r in conn.execute(_BOUND, {"m": match_id})}
        for row in conn.execute(_PLAYERS, {"m": match_id}):
            who = f"player:{row.player_id}"
            if row.email:
                out.setdefault(int(row.seat), []).append(Target(who, "email", str(row.email)))
            if row.discord_id:
                out.setdefault(int(row.seat), []).append(Target(who, "discord", str(row.discord_id)))
        # a seat bound to a player is the player's: the host's address for it is not used
        out = {seat: [t for t in found if seat not in bound or t.who.startswith("player:")]
               for seat, found in out.items()}
        players = {p: seat for seat, p in bound.items()}
        for row in conn.execute(select(push_subs).where(or_(
                push_subs.c.who.like(f"seat:{_like(match_id)}:%", escape="\\"),
                push_subs.c.who.in_([f"player:{p}" for p in players])))):
            kind, _, rest = row.who.partition(":")
            if kind == "player":
                seat = players[rest]
            else:
                seat = int(rest.rsplit(":", 1)[1])
                if seat in bound:
                    continue
            sub = json.dumps({"endpoint": row.endpoint, "keys": {"p256dh": row.p256dh, "auth": row.auth}})
            out.setdefault(seat, []).append(Target(row.who, "push", sub))
        off = {(r.recipient, r.channel) for r in conn.execute(select(prefs.c.recipient, prefs.c.channel)
                                                              .where(prefs.c.enabled.is_(False)))}
        return {seat: [t for t in found if (t.recipient, t.channel) not in off] for seat, found in out.items()}

    def has_targets(self, match_id: str) -> bool:
        """Whether any seat of the match may be told anything (most matches: no): the
        host gave an address, a seat's page subscribed, or a seat is a player's."""
        with self.engine.connect() as conn:
            return any(conn.execute(query, {"m": match_id, "like": f"seat:{_like(match_id)}:%"}).first() is not None
                       for query in _ANY_TARGET)

    # ------------------------------------------------------------- writing notices

    def write(self, notes: list[tuple[str, str, int, str, dict[str, Any]]], steps: list[tuple[str, int, str | None]],
              now: float, delay: float, channels: frozenset[str] = frozenset(("email", "push", "discord"))) -> int:
        """Write notices ``(key, match, seat, kind, facts)`` with an outbox row per
        destination of the seat (a key already written is skipped: a notice is never
        doubled), by the ``channels`` this server sends.  ``steps`` says, per ``(match, seat)``, the step that seat is awaited at
        now (None: none): whatever is still pending for it about another step is void (a
        "your move" that is no longer true is not sent).  Returns the outbox rows added."""
        added = 0
        with self.engine.begin() as conn:
            for match_id, seat, step in steps:
                pending = conn.execute(select(outbox.c.id, outbox.c.notice).where(and_(
                    outbox.c.match_id == match_id, outbox.c.seat == seat, outbox.c.state == "pending",
                    outbox.c.kind != "end"))).all()
                stale = [r.id for r in pending if step is None or not r.notice.endswith(f":{step}")]
                if stale:
                    conn.execute(update(outbox).where(outbox.c.id.in_(stale)).values(state="void"))
            cache: dict[str, dict[int, list[Target]]] = {}
            for key, match_id, seat, kind, facts in notes:
                if not self._insert_ignore(conn, notices, {"key": key, "match_id": match_id, "seat": seat,
                                                           "kind": kind, "facts": facts, "created": now}, ["key"]):
                    continue
                if match_id not in cache:
                    cache[match_id] = self._targets(conn, match_id)
                for target in [t for t in cache[match_id].get(seat, []) if t.channel in channels]:
                    conn.execute(insert(outbox).values(
                        notice=key, recipient=target.recipient, channel=target.channel, address=target.address,
                        match_id=match_id, seat=seat, kind=kind, created=now, due=now + delay, state="pending",
                        attempts=0))
                    added += 1
        return added

    def known(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The facts of those of ``keys`` already written."""
        if not keys:
            return {}
        with self.engine.connect() as conn:
            return {r.key: dict(r.facts) for r in conn.execute(select(notices.c.key, notices.c.facts)
                                                               .where(notices.c.key.in_(keys)))}

    def unnoticed_ends(self, since: float, limit: int = 50) -> list[str]:
        """Ended matches created after ``since`` with someone to tell and no end notice
        written: a crash came between the end's commit and its notice (the owner writes
        it right after)."""
        with self.engine.connect() as conn:
            ended = conn.execute(text_ended(), {"limit": limit, "since": since}).scalars().all()
        return [str(m) for m in ended]

    # ------------------------------------------------------------- sending

    def take_lease(self, holder: str, now: float, span: float) -> bool:
        """Become (or stay) the one sender for ``span`` seconds, unless another holds it."""
        with self.engine.begin() as conn:
            self._insert_ignore(conn, lease, {"id": 1, "holder": holder, "until": now + span}, ["id"])
            done = conn.execute(update(lease).where(and_(lease.c.id == 1, or_(
                lease.c.holder == holder, lease.c.until < now))).values(holder=holder, until=now + span))
            return bool(done.rowcount)

    def drop_lease(self, holder: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(lease).where(and_(lease.c.id == 1, lease.c.holder == holder)).values(until=0.0))

    def due(self, now: float, limit: int = 500) -> list[Pending]:
        """Pending rows of every destination that has one whose moment has come (all its
        pending rows: what came since is in the same digest), oldest first."""
        with self.engine.connect() as conn:
            ready = select(outbox.c.recipient, outbox.c.channel).where(and_(
                outbox.c.state == "pending", outbox.c.due <= now)).distinct().limit(limit).subquery()
            rows = conn.execute(select(outbox, notices.c.facts).join(notices, notices.c.key == outbox.c.notice)
                                .join(ready, and_(ready.c.recipient == outbox.c.recipient,
                                                  ready.c.channel == outbox.c.channel))
                                .where(and_(outbox.c.state == "pending", outbox.c.created <= now))
                                .order_by(outbox.c.id)).all()
        return [Pending(r.id, r.recipient, r.channel, r.address, r.match_id, r.seat, r.kind, dict(r.facts),
                        r.created, r.attempts, r.due) for r in rows]

    def last_sent(self, recipient: str, channel: str, address: str) -> float | None:
        with self.engine.connect() as conn:
            found = conn.execute(select(func.max(outbox.c.sent)).where(and_(
                outbox.c.recipient == recipient, outbox.c.channel == channel, outbox.c.address == address,
                outbox.c.state == "sent"))).scalar()
        return None if found is None else float(found)

    def channel_on(self, recipient: str, channel: str) -> bool:
        with self.engine.connect() as conn:
            found = conn.execute(select(prefs.c.enabled).where(and_(
                prefs.c.recipient == recipient, prefs.c.channel == channel))).scalar()
        return found is None or bool(found)

    def mark(self, ids: list[int], state: str, now: float, error: str | None = None) -> None:
        """Rows sent (or void, or failed for good): never picked again."""
        with self.engine.begin() as conn:
            conn.execute(update(outbox).where(outbox.c.id.in_(ids)).values(
                state=state, sent=now if state == "sent" else None, error=error))

    def retry(self, ids: list[int], when: float, error: str) -> None:
        """A channel failed: the rows wait until ``when`` and count one more attempt."""
        with self.engine.begin() as conn:
            conn.execute(update(outbox).where(outbox.c.id.in_(ids)).values(
                due=when, attempts=outbox.c.attempts + 1, error=error[:500]))

    # ------------------------------------------------------------- choices, links and keys

    def set_pref(self, recipient: str, channel: str, enabled: bool, now: float) -> None:
        """Turn a channel on or off for a recipient; turned off, what is pending is void."""
        with self.engine.begin() as conn:
            conn.execute(delete(prefs).where(and_(prefs.c.recipient == recipient, prefs.c.channel == channel)))
            conn.execute(insert(prefs).values(recipient=recipient, channel=channel, enabled=enabled, updated=now))
            if not enabled:
                conn.execute(update(outbox).where(and_(outbox.c.recipient == recipient, outbox.c.channel == channel,
                                                       outbox.c.state == "pending")).values(state="void"))

    def add_push(self, sub_id: str, who: str, endpoint: str, p256dh: str, auth: str, now: float) -> None:
        """Keep a page's push subscription (the same endpoint again replaces the old one)."""
        with self.engine.begin() as conn:
            conn.execute(delete(push_subs).where(push_subs.c.endpoint == endpoint))
            conn.execute(insert(push_subs).values(id=sub_id, recipient=recipient_id(who), who=who, endpoint=endpoint,
                                                  p256dh=p256dh, auth=auth, created=now))
            kept = conn.execute(select(push_subs.c.id).where(push_subs.c.who == who)
                                .order_by(push_subs.c.created.desc(), push_subs.c.id).offset(MAX_PUSH)).scalars().all()
            if kept:  # a recipient's browsers are bounded: the oldest subscriptions go
                conn.execute(delete(push_subs).where(push_subs.c.id.in_(list(kept))))
            conn.execute(delete(prefs).where(and_(prefs.c.recipient == recipient_id(who), prefs.c.channel == "push")))

    def drop_push(self, endpoint: str, who: str | None = None) -> None:
        """A subscription the push service says is gone (404/410), or the page withdrew
        (``who``: only if it is that recipient's)."""
        with self.engine.begin() as conn:
            gone = delete(push_subs).where(push_subs.c.endpoint == endpoint)
            if who is not None:
                gone = gone.where(push_subs.c.who == who)
            if not conn.execute(gone).rowcount:
                return
            conn.execute(update(outbox).where(and_(outbox.c.channel == "push", outbox.c.state == "pending",
                                                   outbox.c.address.like(f'%"{_like(endpoint)}"%', escape="\\"))
                                              ).values(state="void"))

    def add_link(self, token_hash: str, match_id: str, seat: int, now: float, player: str | None = None) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(links).values(token_hash=token_hash, match_id=match_id, seat=seat, created=now,
                                              player=player))

    def use_link(self, token_hash: str, key_hash: str, now: float, ttl: float) -> tuple[str, int] | None:
        """Spend a single-use link (younger than ``ttl``) for a fresh seat key: the seat,
        or None (unknown, used or too old)."""
        with self.engine.begin() as conn:
            row = conn.execute(select(links).where(links.c.token_hash == token_hash)).first()
            if row is None or row.used is not None or row.created + ttl < now:
                return None
            if row.player is not None and self._revoked_since(conn, str(row.player), float(row.created)):
                return None  # sent before the player's links were revoked: their mail may be in other hands
            done = conn.execute(update(links).where(and_(links.c.token_hash == token_hash, links.c.used.is_(None)))
                                .values(used=now))
            if done.rowcount != 1:  # opened twice at once: the other one had it
                return None
            conn.execute(insert(keys).values(token_hash=key_hash, match_id=row.match_id, seat=row.seat, created=now,
                                             player=row.player))
            return str(row.match_id), int(row.seat)

    def seat_of_key(self, token_hash: str, match_id: str, now: float, ttl: float) -> int | None:
        """The seat a key speaks for in ``match_id``: only while the seat is still whose it
        was made for (the player it was sent to, or nobody's for a host's address), for
        ``ttl`` seconds after it was made, and, for a player's, until one of the player's
        login links is revoked (a revocation says their devices may be in other hands)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(keys.c.seat, keys.c.player, keys.c.created).where(and_(
                keys.c.token_hash == token_hash, keys.c.match_id == match_id))).first()
            if row is None or not row.created + ttl >= now:
                return None
            holder = conn.execute(_sql("SELECT player_id FROM player_seats WHERE match_id = :m AND seat = :s"),
                                  {"m": match_id, "s": row.seat}).scalar()
            if row.player is not None and self._revoked_since(conn, str(row.player), float(row.created)):
                return None
        return int(row.seat) if holder == row.player else None

    @staticmethod
    def _revoked_since(conn: Connection, player_id: str, since: float) -> bool:
        """Whether one of the player's login links was revoked at or after ``since``."""
        revoked = conn.execute(_sql("SELECT MAX(revoked) FROM player_links WHERE player_id = :p"),
                               {"p": player_id}).scalar()
        return revoked is not None and float(revoked) >= since

    def holder(self, match_id: str, seat: int) -> str | None:
        """The player a seat is bound to (None: nobody's)."""
        with self.engine.connect() as conn:
            found = conn.execute(_sql("SELECT player_id FROM player_seats WHERE match_id = :m AND seat = :s"),
                                 {"m": match_id, "s": seat}).scalar()
        return None if found is None else str(found)

    def matches_of_player(self, player_id: str) -> list[str]:
        with self.engine.connect() as conn:
            return [str(m) for m in conn.execute(_sql("SELECT match_id FROM player_seats WHERE player_id = :p"),
                                                 {"p": player_id}).scalars()]

    # ------------------------------------------------------------- the Discord bridge's DMs

    def add_dm(self, discord_id: str, message: dict[str, Any], now: float, rows: list[int] | None = None) -> None:
        """Keep a message for the bridge, and mark the outbox ``rows`` it is made of sent, at once."""
        with self.engine.begin() as conn:
            conn.execute(insert(dms).values(discord_id=discord_id, message=message, created=now))
            if rows:
                conn.execute(update(outbox).where(outbox.c.id.in_(rows)).values(state="sent", sent=now, error=None))

    def undelivered(self, limit: int = 100) -> list[dict[str, Any]]:
        """DMs the bridge has not marked delivered, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(dms).where(dms.c.delivered.is_(None)).order_by(dms.c.id).limit(limit)).all()
        return [{"id": r.id, "discord_id": r.discord_id, **{k: v for k, v in dict(r.message).items() if k != "rows"},
                 "created": r.created} for r in rows]

    def delivered(self, dm_id: int, now: float, dmed: bool = True, host_id: str | None = None) -> bool:
        """Mark a DM delivered (True: this call did).  Not ``dmed`` (the bridge said all of
        it already): its outbox rows are void, so the digest window counts no message;
        only a message whose every item is an invitation, prompt or end of a match of
        ``host_id`` (the bridge's host) can be: another raises :class:`NotBridgeOwn`, and
        nothing is marked (the bridge cannot silence what it does not say itself)."""
        with self.engine.begin() as conn:
            marked = bool(conn.execute(update(dms).where(and_(dms.c.id == dm_id, dms.c.delivered.is_(None)))
                                       .values(delivered=now)).rowcount)
            if marked and not dmed:
                message = dict(conn.execute(select(dms.c.message).where(dms.c.id == dm_id)).scalar() or {})
                items = [i for i in message.get("items") or [] if isinstance(i, dict)]
                matches = {str(i.get("match")) for i in items}
                hosts = {str(r[0]): r[1] for r in conn.execute(_HOSTS_OF.bindparams(
                    bindparam("ids", expanding=True)), {"ids": sorted(matches)})} if matches else {}
                if not items or any(i.get("kind") not in BRIDGE_KINDS or host_id is None
                                    or hosts.get(str(i.get("match"))) != host_id for i in items):
                    raise NotBridgeOwn(dm_id)  # rolled back: not marked
                ids = [int(i) for i in (message.get("rows") or []) if isinstance(i, int)]
                if ids:
                    conn.execute(update(outbox).where(and_(
                        outbox.c.id.in_(ids), outbox.c.channel == "discord", outbox.c.state == "sent")).values(
                        state="void", sent=None, error="the Discord bridge DMs this itself"))
            return marked

    # ------------------------------------------------------------- a player's choices

    def player_prefs(self, player_id: str) -> dict[str, bool]:
        """Per channel, whether the player has it on (no row: on)."""
        rid = recipient_id(f"player:{player_id}")
        with self.engine.connect() as conn:
            rows = conn.execute(select(prefs.c.channel, prefs.c.enabled).where(prefs.c.recipient == rid)).all()
            subs = conn.execute(select(func.count()).select_from(push_subs).where(
                push_subs.c.who == f"player:{player_id}")).scalar()
        out = {c: True for c in ("email", "push", "discord")}
        out.update({str(r.channel): bool(r.enabled) for r in rows})
        out["push_subscriptions"] = bool(subs)
        return out

    def purge(self, before: float) -> int:
        """Forget single-use links, and the keys they gave, made before ``before`` (they
        open nothing any more)."""
        with self.engine.begin() as conn:
            conn.execute(delete(keys).where(keys.c.created < before))
            return int(conn.execute(delete(links).where(links.c.created < before)).rowcount or 0)

    def rows(self, match_id: str | None = None) -> list[dict[str, Any]]:
        """Every outbox row (of a match), oldest first: what tests and the operator read."""
        with self.engine.connect() as conn:
            query = select(outbox).order_by(outbox.c.id)
            if match_id is not None:
                query = query.where(outbox.c.match_id == match_id)
            return [dict(r._mapping) for r in conn.execute(query)]


from sqlalchemy import text as _sql  # noqa: E402

#: the hosts of matches (the matches' table is store.py's)
_HOSTS_OF = _sql("SELECT id, host_id FROM matches WHERE id IN :ids")
#: a match's seats bound to players (the players' table is players_store.py's)
_BOUND = _sql("SELECT seat, player_id FROM player_seats WHERE match_id = :m")
#: the players of a match's bound seats with their addresses
_PLAYERS = _sql("SELECT s.seat, s.player_id, p.email, p.discord_id FROM player_seats s "
                "JOIN players p ON p.id = s.player_id WHERE s.match_id = :m")
_ANY_TARGET = (
    _sql("SELECT 1 FROM notify_seats WHERE match_id = :m LIMIT 1"),
    _sql("SELECT 1 FROM player_seats WHERE match_id = :m LIMIT 1"),
    _sql("SELECT 1 FROM notify_push WHERE who LIKE :like ESCAPE '\\' LIMIT 1"),
)


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def text_ended() -> Any:
    """Ended matches someone is to be told of, with no end notice yet."""
    from sqlalchemy import text

    return text(
        "SELECT DISTINCT m.id FROM matches m WHERE m.status != 'running' "
        "AND (EXISTS (SELECT 1 FROM notify_seats s WHERE s.match_id = m.id) "
        "OR EXISTS (SELECT 1 FROM player_seats p WHERE p.match_id = m.id)) "
        "AND NOT EXISTS (SELECT 1 FROM notify_notices n WHERE n.match_id = m.id AND n.kind = 'end') "
        "AND m.created > :since LIMIT :limit")
