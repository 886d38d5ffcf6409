"""The bridge's own small store (sqlite3): which Discord channel and users belong to
which match, the tokens it holds, and the last version it posted to each audience, so
that a restarted bridge catches up from the current view and posts nothing twice."""

from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    host_user_id INTEGER NOT NULL,
    host_token TEXT NOT NULL,
    spectator_token TEXT NOT NULL,
    names TEXT NOT NULL,
    pages TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    match_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    user_id INTEGER,
    token TEXT,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS posted (
    match_id TEXT NOT NULL,
    audience INTEGER NOT NULL,
    version INTEGER NOT NULL,
    log_count INTEGER NOT NULL,
    legal TEXT NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (match_id, audience)
);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id TEXT NOT NULL,
    audience INTEGER NOT NULL,
    post TEXT NOT NULL,
    notes TEXT NOT NULL DEFAULT '[]',
    view INTEGER NOT NULL DEFAULT 0,
    state INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS outbox_queue ON outbox (match_id, audience, state, id);
CREATE TABLE IF NOT EXISTS players (
    user_id INTEGER PRIMARY KEY,
    player_id TEXT NOT NULL,
    token TEXT NOT NULL,
    page_token TEXT
);
"""

#: an outbox post's state: to send, sent (Discord took it), superseded by a newer view of
#: its seat before it was sent (its notes carried into the newer one), given up (Discord
#: refused it for good: a DM to a user who accepts none, an unknown channel)
TO_SEND, SENT, SUPERSEDED, GIVEN_UP = 0, 1, 2, 3

#: the ``audience`` of the channel (the spectator payload); a seat's DM is its seat number
PUBLIC = -1

#: Discord's longest message nonce (characters)
NONCE_MAX = 25


@dataclass(frozen=True)
class MatchRow:
    id: str
    game: str
    channel_id: int
    host_user_id: int
    host_token: str
    spectator_token: str
    names: list[str]
    pages: dict[str, Any]
    done: bool


@dataclass(frozen=True)
class SeatRow:
    match_id: str
    seat: int
    user_id: int | None  # None: a bot
    token: str | None


@dataclass(frozen=True)
class PlayerRow:
    """The server's player a Discord user is: its id, the bridge's own login link of it
    (it watches and acts for the player's seats with it), and the login link given to the
    user for their pages (None until made)."""

    user_id: int
    player_id: str
    token: str
    page_token: str | None


@dataclass(frozen=True)
class Queued:
    """A post of the outbox: its row id, the post (as :meth:`Outgoing.to_json` wrote it),
    the announcement lines it carries, and whether it is a seat's view (a newer one
    supersedes it while unsent)."""

    id: int
    match_id: str
    audience: int
    post: dict[str, Any]
    notes: list[str]
    view: bool


@dataclass(frozen=True)
class Posted:
    """What was last posted to one audience: the payload's version, how many log lines
    of it, the legal actions offered (a seat), and small flags (result posted...)."""

    version: int
    log_count: int
    legal: list[str]
    extra: dict[str, Any]


log = logging.getLogger("blackwhite.discord")


def private_file(path: str) -> None:
    """Create ``path`` readable and writable by its owner only (0600), or take group and
    others' rights off an existing one: the store holds seat tokens (anyone reading them
    reads a player's hidden hand) and a host link's token.  SQLite gives its -wal and
    -shm files the database's own mode."""
    if path == ":memory:" or path.startswith("file:"):
        return
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
            log.warning("the store %s was readable by others (%o): now %o", path, mode, mode & 0o700)
        for side in (path + "-wal", path + "-shm"):
            if os.path.exists(side) and stat.S_IMODE(os.stat(side).st_mode) & 0o077:
                os.chmod(side, stat.S_IMODE(os.stat(side).st_mode) & 0o700)
    else:
        os.close(fd)


class BridgeStore:
    """One sqlite3 file (``:memory:`` for a throwaway), created 0600.  Every write is
    committed at once."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        private_file(self.path)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)
        # this store's own prefix of the nonces it sends: another store (a new file, a second
        # bridge on the same bot) counts its outbox from 1 again, and Discord would answer
        # its first posts with this one's messages of the last minutes instead of sending them
        self.db.execute("INSERT OR IGNORE INTO settings (key, value) VALUES ('nonce_prefix', ?)",
                        (secrets.token_hex(4),))
        self.nonce_prefix = str(self.db.execute(
            "SELECT value FROM settings WHERE key = 'nonce_prefix'").fetchone()[0])

    def close(self) -> None:
        """Close the file once no call is running: a store call cancelled on the event loop
        goes on in its worker thread, and sqlite3 closed under a running statement crashes
        the process (a segmentation fault, seen when the bridge stopped mid-send)."""
        with self._lock:
            self.db.close()

    def _exec(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self.db.execute(sql, args).fetchall()

    # ------------------------------------------------------------- settings

    def setting(self, key: str) -> str | None:
        rows = self._exec("SELECT value FROM settings WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_setting(self, key: str, value: str) -> None:
        self._exec("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))

    # ------------------------------------------------------------- matches

    def add_match(self, row: MatchRow, seats: list[SeatRow],
                  posts: list[tuple[int, dict[str, Any]]] = ()) -> None:  # type: ignore[assignment]
        """The match, its seats and its opening posts ``(audience, post)`` in one transaction."""
        with self._lock:
            self.db.execute("BEGIN")
            try:
                self.db.executemany("INSERT INTO outbox (match_id, audience, post) VALUES (?, ?, ?)",
                                    [(row.id, audience, json.dumps(post)) for audience, post in posts])
                self.db.execute(
                    "INSERT INTO matches (id, game, channel_id, host_user_id, host_token, spectator_token, names, pages, done)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
                    (row.id, row.game, row.channel_id, row.host_user_id, row.host_token, row.spectator_token,
                     json.dumps(row.names), json.dumps(row.pages)),
                )
                self.db.executemany(
                    "INSERT INTO seats (match_id, seat, user_id, token) VALUES (?, ?, ?, ?)",
                    [(s.match_id, s.seat, s.user_id, s.token) for s in seats],
                )
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    @staticmethod
    def _match(r: tuple[Any, ...]) -> MatchRow:
        return MatchRow(r[0], r[1], int(r[2]), int(r[3]), r[4], r[5], json.loads(r[6]), json.loads(r[7]), bool(r[8]))

    _MATCH_COLS = "id, game, channel_id, host_user_id, host_token, spectator_token, names, pages, done"

    def match(self, match_id: str) -> MatchRow | None:
        rows = self._exec(f"SELECT {self._MATCH_COLS} FROM matches WHERE id = ?", (match_id,))
        return self._match(rows[0]) if rows else None

    def matches(self, *, running_only: bool = False, channel_id: int | None = None) -> list[MatchRow]:
        sql = f"SELECT {self._MATCH_COLS} FROM matches WHERE 1=1"
        args: list[Any] = []
        if running_only:
            sql += " AND done = 0"
        if channel_id is not None:
            sql += " AND channel_id = ?"
            args.append(channel_id)
        return [self._match(r) for r in self._exec(sql + " ORDER BY rowid", tuple(args))]

    def set_channel(self, match_id: str, channel_id: int) -> None:
        """The match's announcements go to ``channel_id`` from now on (a thread opened for it)."""
        self._exec("UPDATE matches SET channel_id = ? WHERE id = ?", (channel_id, match_id))

    def set_done(self, match_id: str) -> None:
        self._exec("UPDATE matches SET done = 1 WHERE id = ?", (match_id,))

    def seats(self, match_id: str) -> list[SeatRow]:
        rows = self._exec("SELECT match_id, seat, user_id, token FROM seats WHERE match_id = ? ORDER BY seat", (match_id,))
        return [SeatRow(r[0], int(r[1]), None if r[2] is None else int(r[2]), r[3]) for r in rows]

    def seats_of_user(self, user_id: int) -> list[SeatRow]:
        """The user's seats in matches not over, oldest match first."""
        rows = self._exec(
            "SELECT s.match_id, s.seat, s.user_id, s.token FROM seats s JOIN matches m ON m.id = s.match_id"
            " WHERE s.user_id = ? AND m.done = 0 ORDER BY m.rowid, s.seat", (user_id,))
        return [SeatRow(r[0], int(r[1]), int(r[2]), r[3]) for r in rows]

    def prompted(self, user_id: int, match_ids: Sequence[str]) -> set[str]:
        """Those of ``match_ids`` in which the user holds a seat the bridge watches and DMs
        them for (its invitation, prompts and end), over or not."""
        ids = sorted(set(match_ids))
        if not ids:
            return set()
        rows = self._exec(f"SELECT DISTINCT match_id FROM seats WHERE user_id = ? AND token IS NOT NULL"
                          f" AND match_id IN ({','.join('?' * len(ids))})", (user_id, *ids))
        return {str(r[0]) for r in rows}

    # ------------------------------------------------------------- players

    def player(self, user_id: int) -> PlayerRow | None:
        rows = self._exec("SELECT user_id, player_id, token, page_token FROM players WHERE user_id = ?", (user_id,))
        return PlayerRow(int(rows[0][0]), rows[0][1], rows[0][2], rows[0][3]) if rows else None

    def set_player(self, row: PlayerRow) -> None:
        self._exec("INSERT OR REPLACE INTO players (user_id, player_id, token, page_token) VALUES (?, ?, ?, ?)",
                   (row.user_id, row.player_id, row.token, row.page_token))

    def forget_player(self, user_id: int) -> None:
        """The bridge's login of the user's player was refused (revoked): mapped afresh next time."""
        self._exec("DELETE FROM players WHERE user_id = ?", (user_id,))

    # ------------------------------------------------------------- what was posted

    def posted(self, match_id: str, audience: int) -> Posted | None:
        rows = self._exec("SELECT version, log_count, legal, extra FROM posted WHERE match_id = ? AND audience = ?",
                          (match_id, audience))
        if not rows:
            return None
        v, n, legal, extra = rows[0]
        return Posted(int(v), int(n), json.loads(legal), json.loads(extra))

    def set_posted(self, match_id: str, audience: int, posted: Posted) -> None:
        self._exec(
            "INSERT OR REPLACE INTO posted (match_id, audience, version, log_count, legal, extra) VALUES (?, ?, ?, ?, ?, ?)",
            (match_id, audience, posted.version, posted.log_count, json.dumps(posted.legal), json.dumps(posted.extra)),
        )

    # ------------------------------------------------------------- the outbox

    def queue(self, match_id: str, audience: int, posted: Posted | None,
              posts: list[tuple[dict[str, Any], list[str], bool]], supersede: list[int], over: bool) -> None:
        """In one transaction: the posts ``(post, notes, is a view)`` queued to send, the
        unsent posts ``supersede`` marked superseded (never one already sent), what the
        audience was last given, and the match over when ``over``."""
        with self._lock:
            self.db.execute("BEGIN")
            try:
                self.db.executemany(f"UPDATE outbox SET state = {SUPERSEDED}, post = '{{}}', notes = '[]'"
                                    f" WHERE id = ? AND state = {TO_SEND}", [(i,) for i in supersede])
                self.db.executemany(
                    "INSERT INTO outbox (match_id, audience, post, notes, view) VALUES (?, ?, ?, ?, ?)",
                    [(match_id, audience, json.dumps(post), json.dumps(notes), int(view)) for post, notes, view in posts])
                if posted is not None:
                    self.db.execute(
                        "INSERT OR REPLACE INTO posted (match_id, audience, version, log_count, legal, extra)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (match_id, audience, posted.version, posted.log_count, json.dumps(posted.legal),
                         json.dumps(posted.extra)))
                if over:
                    self.db.execute("UPDATE matches SET done = 1 WHERE id = ?", (match_id,))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    @staticmethod
    def _queued(r: tuple[Any, ...]) -> Queued:
        return Queued(int(r[0]), r[1], int(r[2]), json.loads(r[3]), json.loads(r[4]), bool(r[5]))

    def unsent(self, match_id: str, audience: int) -> list[Queued]:
        """The audience's posts still to send, oldest first."""
        rows = self._exec("SELECT id, match_id, audience, post, notes, view FROM outbox"
                          f" WHERE match_id = ? AND audience = ? AND state = {TO_SEND} ORDER BY id",
                          (match_id, audience))
        return [self._queued(r) for r in rows]

    def nonce(self, post_id: int) -> str:
        """The nonce every try of an outbox post carries (``enforce_nonce``): Discord
        answers a second try within its window with the message the first created,
        creating none, so a post taken just before the bridge died (or whose answer was
        lost) and sent again after is not shown twice.  Unique per store and post: ids of
        ``AUTOINCREMENT`` are never reused."""
        nonce = f"bw{self.nonce_prefix}.{post_id}"
        assert len(nonce) <= NONCE_MAX, nonce
        return nonce

    def set_state(self, post_id: int, state: int) -> None:
        """Mark a post; one no longer to send keeps its mark, not its body (its text, a
        record file): the store does not grow with every message ever sent."""
        if state == TO_SEND:
            self._exec("UPDATE outbox SET state = ? WHERE id = ?", (state, post_id))
        else:
            self._exec("UPDATE outbox SET state = ?, post = '{}', notes = '[]' WHERE id = ?", (state, post_id))

    def queued(self) -> list[tuple[str, int]]:
        """Every (match, audience) with posts still to send (a restart sends them)."""
        rows = self._exec(f"SELECT DISTINCT match_id, audience FROM outbox WHERE state = {TO_SEND} ORDER BY match_id, audience")
        return [(r[0], int(r[1])) for r in rows]

    def states(self, match_id: str) -> list[tuple[int, int, int]]:
        """(id, audience, state) of every post of a match, oldest first (for tests and checks)."""
        return [(int(a), int(b), int(c)) for a, b, c in
                self._exec("SELECT id, audience, state FROM outbox WHERE match_id = ? ORDER BY id", (match_id,))]
