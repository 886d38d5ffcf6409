"""Notifications: a seat's player is told when the seat becomes awaited, when its time
runs low, and when the match ends, by every channel they chose (email, Web Push, the
Discord bridge's DMs).

The database is the truth: the process that owns a match looks at it after each commit
(:meth:`Notifier.observe`, called by the service after it broadcasts) and every second
(time running low), and *writes* what it found as notices, each under a key made of the
event, the match, the seat and the step (``turn:M:1:s7``), so a notice found twice (a
restart looks at every running match again) is written once.  A notice gets one outbox
row per destination; one process at a time (the holder of the sender's lease, renewed
every second) sends what is due and marks it sent *after* the channel took it: a crash
neither loses a notice (it is written before anyone is told, or found again at the
restart) nor doubles one, except for the at-least-once gap of a crash between a
channel's acceptance and the mark (that message goes again).

A digest, not a flood: a destination gets at most one message per ``digest`` seconds,
and everything pending for it then (several matches, several events) is one message.
A "your move" whose step is over before it went is dropped.

Secrecy: what a message says is built by :func:`facts_of` from the seat's own view
(``state.view(seat)``) and public facts (names, the game, the seat's own clock), never
from the state: the secrecy twins run through it (tests/server/test_notify.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import secrets
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit
from typing import TYPE_CHECKING, Any, Callable, Protocol

from ..tasks import wait_event
from . import clocks as clk
from .notify_store import NotifyStore, Pending, recipient_id
from .store import shared_secret, token_hash

if TYPE_CHECKING:
    from .service import LiveMatch, MatchService

log = logging.getLogger("blackwhite.notify")

#: the channels a notice may go out by
CHANNELS = ("email", "push", "discord")
#: seconds a destination waits after one message before the next (what comes meanwhile is one digest)
DIGEST = 120.0
#: seconds a notice waits before it is sent, so that events close together go as one message
GATHER = 5.0
#: seconds a single-use link in a message opens its seat's page (then it is refused)
LINK_TTL = 14 * 86400.0
#: how long the sender's lease lasts without renewal (another process then sends)
LEASE = 10.0
#: seconds between looks at every owned match's clocks (time running low)
SWEEP = 1.0
#: how far back (seconds of match age) a start looks for ends a crash kept from being told
ENDS_LOOKED_BACK = 7 * 86400.0
#: how long the Discord bridge is handed a DM it has not delivered (then it is dropped)
DM_TTL = 2 * 86400.0
#: tries a destination gets before a message to it is given up (with growing waits)
MAX_ATTEMPTS = 8

#: an address the host may give for a seat: one mailbox, nothing a header could be made of
EMAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                   r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$")


def check_email(text: str) -> str:
    """A seat's ``email`` as given in the create-match request; ValueError says what is wrong."""
    if not isinstance(text, str) or len(text) > 254 or not EMAIL.match(text):
        shown = text[:60] if isinstance(text, str) else repr(text)
        raise ValueError(f"{shown!r} is not an email address (one mailbox, like sally@example.org)")
    return text


# --------------------------------------------------------------------------- what a seat is told


def facts_of(match: "LiveMatch", seat: int, kind: str, left: float | None, full: float | None = None) -> dict[str, Any]:
    """What a notice to ``seat`` says, from the seat's own view and public facts only:
    the game, the match, the seats' names, the seat's own time left, and at the end the
    result as the seat's view gives it."""
    view = match.view_of(seat)
    names = match.names()
    out: dict[str, Any] = {
        "kind": kind, "match": match.id, "game": match.game_id, "title": match.state.game.title,
        "seat": seat, "you": names[seat], "others": [n for i, n in enumerate(names) if i != seat],
    }
    if kind in ("turn", "low", "late"):
        out["left"] = None if left is None else max(0, int(left))
    if full is not None:
        out["full"] = round(full, 3)
    if kind == "end":
        out["result"] = result_text(view, names, seat, match.status)
    return out


def result_text(view: dict[str, Any], names: list[str], seat: int, status: str) -> str:
    """The end of a match in words, from the seat's view."""
    if status == "cancelled":
        return "The host cancelled the match."
    winner = view.get("winner")
    scores = view.get("scores")
    said = ""
    if isinstance(scores, list) and scores and all(isinstance(s, (int, float)) for s in scores):
        said = " Scores: " + ", ".join(f"{names[i]} {s:g}" for i, s in enumerate(scores)) + "."
    if winner is None:
        return "The match ended in a draw." + said
    if winner == seat:
        return "You won." + said
    if isinstance(winner, int) and 0 <= winner < len(names):
        return f"{names[winner]} won." + said
    return "The match is over." + said


def duration(seconds: float) -> str:
    """Seconds in words a player reads at a glance: ``2 h 5 min``, ``45 s``."""
    s = max(0, int(seconds))
    if s >= 86400:
        return f"{s // 86400} d {s % 86400 // 3600} h"
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
    if s >= 60:
        return f"{s // 60} min {s % 60} s" if s < 600 and s % 60 else f"{s // 60} min"
    return f"{s} s"


def line_of(facts: dict[str, Any]) -> str:
    """One notice in one line."""
    game = facts["title"]
    others = facts.get("others") or []
    against = f" with {', '.join(others)}" if others else ""
    kind = facts["kind"]
    if kind == "turn":
        left = facts.get("left")
        return f"Your move in {game}{against}" + (f" ({duration(left)} left)." if left is not None else ".")
    if kind in ("low", "late"):
        return f"Your time is running low in {game}{against}: {duration(facts.get('left') or 0)} left."
    if kind == "join":
        return f"You are invited to {game}{against}: open it to join (the clocks start once everyone has)."
    return f"{game}{against} is over. {facts.get('result', '')}".strip()


@dataclass(frozen=True)
class Message:
    """One message to one destination: a digest of one or more notices."""

    subject: str
    text: str
    #: (line, link) per notice, in order: what a push or a DM shows
    items: list[tuple[str, str]]
    unsubscribe: str
    #: per notice, in order, what it is about: its match, kind, game's title and own subject
    #: (public facts), so that the Discord bridge can leave out what it DMs itself
    about: list[dict[str, str]] = field(default_factory=list)
    #: the outbox rows the message is made of (the Discord bridge's message keeps them, so
    #: that one it did not DM is not counted in the digest window)
    rows: tuple[int, ...] = ()


def subject_of(facts: dict[str, Any]) -> str:
    """The subject of a message of one notice: ``Your move: Swapping Black & White``."""
    head = {"turn": "Your move", "low": "Time running low", "late": "Time running low",
            "end": "Match over", "join": "Invitation"}[facts["kind"]]
    return f"{head}: {facts['title']}"


def compose(facts: list[dict[str, Any]], links: list[str], unsubscribe: str) -> Message:
    """The message of a digest: each notice's line and its link, and how to stop them."""
    items = [(line_of(f), link) for f, link in zip(facts, links)]
    about = [{"match": str(f["match"]), "kind": str(f["kind"]), "title": str(f["title"]), "subject": subject_of(f)}
             for f in facts]
    if len(facts) == 1:
        subject = subject_of(facts[0])
    else:
        matches = len({f["match"] for f in facts})
        subject = f"{len(facts)} updates from {matches} matches" if matches > 1 else f"{len(facts)} updates: " \
            f"{facts[0]['title']}"
    lines = []
    for line, link in items:
        lines += [line, f"  Open it: {link}", ""]
    lines += ["You are told this because you chose to be, or your host gave this address for your seat.",
              f"Stop these messages (one click): {unsubscribe}"]
    return Message(subject, "\n".join(lines) + "\n", items, unsubscribe, about)


# --------------------------------------------------------------------------- channels


class Channel(Protocol):
    """A way out: sends one message to one address, or raises (the rows are tried again)."""

    name: str

    async def send(self, address: str, message: Message) -> bool | None:
        """Send; True when the channel marked the message's rows sent itself (with what it did)."""


class Refused(Exception):
    """The destination refused the message for good (a mailbox that does not exist): it
    is not tried again (the rows are ``failed`` with the reason)."""


class Gone(Exception):
    """The destination no longer exists (a push subscription the push service dropped):
    it is forgotten, and what was pending for it is void."""


def dm_of(message: Message) -> dict[str, Any]:
    """What the Discord bridge is handed of a message (``GET /api/notify/discord``, less
    the id, user and time): its subject and text, and per notice its line, link, match,
    kind, game's title and own subject, so that the bridge can leave out the items of the
    matches whose seats it DMs itself and say the rest."""
    about = message.about or [{} for _ in message.items]
    return {"subject": message.subject, "text": message.text,
            "items": [{"text": line, "link": link, **a} for (line, link), a in zip(message.items, about)],
            "unsubscribe": message.unsubscribe}


class DiscordOutbox:
    """The Discord bridge's DMs: a digest is handed to the bridge (``notify_dm``), which
    reads them with ``GET /api/notify/discord``, DMs each to its user (less what it DMs
    that user itself) and marks it delivered; this server sends nothing to Discord itself."""

    name = "discord"

    def __init__(self, store: NotifyStore, now: Callable[[], float]) -> None:
        self.store = store
        self.now = now

    async def send(self, address: str, message: Message) -> bool:
        """Kept for the bridge, and its rows marked sent in the same transaction: the bridge
        never sees a message whose rows are still pending (its "not DMed" mark voids them),
        and a crash cannot leave a message kept and its rows to be sent again."""
        await asyncio.to_thread(self.store.add_dm, address, {**dm_of(message), "rows": list(message.rows)},
                                self.now(), list(message.rows))
        return True


# --------------------------------------------------------------------------- the notifier


@dataclass(frozen=True)
class NotifySettings:
    """How the server tells players (``serve``'s ``--smtp-url``, ``--notify-digest``...)."""

    #: where mail goes out (``smtp://...``, see notify_mail.py); None: no email
    smtp_url: str | None = None
    #: the origin the links in messages start with (default: the public URL, else the listening one)
    base_url: str | None = None
    digest: float = DIGEST
    gather: float = GATHER
    #: send Web Push (VAPID keys kept in the database); False: pages are offered none
    push: bool = True
    #: the push services (host suffixes) a subscription's endpoint may be on (None: the browsers' own)
    push_services: tuple[str, ...] | None = None
    #: accept plain-HTTP push endpoints (a test's local push service; never in production)
    push_plain: bool = False

    def channels(self) -> list["Channel"]:
        """The channels these settings configure (ValueError: a bad SMTP URL)."""
        out: list[Channel] = []
        if self.smtp_url:
            from .notify_mail import Mailer, SmtpConfig

            out.append(Mailer(SmtpConfig.parse(self.smtp_url)))
        return out


@dataclass
class _Seen:
    """What the notifier knows of a match: whether anyone is to be told, the notices
    written, and each awaited step's full time (what "a quarter left" is of)."""

    targets: bool | None = None
    written: set[str] = field(default_factory=set)
    full: dict[str, float] = field(default_factory=dict)
    steps: dict[int, str | None] = field(default_factory=dict)


class Notifier:
    """Finds notices in the matches this process owns, writes them, and (holding the
    sender's lease) sends what is due.  :meth:`step` does one round; :meth:`run` loops."""

    def __init__(self, service: "MatchService", *, base_url: str, channels: list[Channel] | None = None,
                 digest: float = DIGEST, gather: float = GATHER, process: str | None = None,
                 link_ttl: float = LINK_TTL) -> None:
        self.service = service
        self.store = NotifyStore(service.store.engine)
        self.base_url = base_url.rstrip("/")
        self.channels: dict[str, Channel] = {c.name: c for c in (channels or [])}
        self.channels.setdefault("discord", DiscordOutbox(self.store, service.now))
        self.digest = digest
        self.gather = gather
        self.link_ttl = link_ttl
        self.process = process or secrets.token_hex(8)
        self._secret = shared_secret(service.store.engine, "notify").encode()
        self._seen: dict[str, _Seen] = {}
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._last_sweep = float("-inf")
        self._checked_ends = False
        self._holding = False
        self._sending = asyncio.Lock()
        #: the VAPID public key pages subscribe with (None: this server sends no Web Push)
        self.vapid_public: str | None = None
        self.push_services: tuple[str, ...] = ()
        self.push_plain = False
        #: when spent single-use links were last forgotten (hourly, by the sender)
        self._purged = float("-inf")
        #: when the sender's lease was last asked for (it is renewed every few seconds, not every round)
        self._lease_at = float("-inf")
        service.watchers.append(self.observe)
        service.seat_keys = self.seat_of

    # ------------------------------------------------------------- looking at matches

    def observe(self, match: "LiveMatch") -> None:
        """After a commit (on the event loop): look at ``match`` at the next round, soon."""
        seen = self._seen.get(match.id)
        if seen is not None and seen.targets is False:
            if match.started:
                return
            seen.targets = None  # before the start a seat may be bound to a player: look again
        self._dirty.add(match.id)
        self._wake.set()

    def forget(self, match_id: str) -> None:
        """The match's seats were given destinations after the notifier looked (a page's
        push subscription): look again."""
        seen = self._seen.get(match_id)
        if seen is not None:
            seen.targets = None
        self._dirty.add(match_id)

    def _now(self) -> float:
        return self.service.now()

    async def _db(self, work: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(work, *args)

    def _candidates(self, match: "LiveMatch", seen: _Seen) -> tuple[list[tuple[str, str, int, str, dict[str, Any]]],
                                                                     list[tuple[str, int, str | None]]]:
        """The notices ``match`` holds now (written or not) and each seat's open step."""
        notes: list[tuple[str, str, int, str, dict[str, Any]]] = []
        steps: list[tuple[str, int, str | None]] = []
        persons = [i for i, s in enumerate(match.seats) if "bot" not in s]
        if match.status != "running":
            for seat in persons:
                key = f"end:{match.id}:{seat}"
                if key not in seen.written:
                    notes.append((key, match.id, seat, "end", facts_of(match, seat, "end", None)))
                if seen.steps.get(seat, "?") is not None:
                    steps.append((match.id, seat, None))
            return notes, steps
        if match.paused:
            return notes, steps
        pace = match.pace
        readings = clk.charge_between(match.clocks, match.clock_at, self._now(), pace)
        awaited = set(match.state.to_move()) if not match.state.is_over() else set()
        missing = set(match.waiting_for()) if match.waiting() else set()
        for seat in persons:
            step = f"s{match.step_version}" if seat in awaited else None
            if seen.steps.get(seat, "?") != step:
                steps.append((match.id, seat, step))
            if step is None:
                # a seat the match waits for, not to move yet: invited to open it (its clocks
                # start once everyone has); one awaited is told "your move", which says as much
                key = f"join:{match.id}:{seat}"
                if seat in missing and key not in seen.written:
                    notes.append((key, match.id, seat, "join", facts_of(match, seat, "join", None)))
                continue
            left = clk.seat_left(readings, seat)
            full = seen.full.setdefault(step + f":{seat}", left)
            key = f"turn:{match.id}:{seat}:{step}"
            if key not in seen.written:
                notes.append((key, match.id, seat, "turn", facts_of(match, seat, "turn", left, full)))
            if not readings.running:
                continue
            # the pace's marks: a quarter left ("low"), and at slow pace ten minutes left ("late")
            for kind, mark in zip(("low", "late"), pace.low_marks(full)):
                key = f"{kind}:{match.id}:{seat}:{step}"
                if left <= mark and key not in seen.written:
                    notes.append((key, match.id, seat, kind, facts_of(match, seat, kind, left)))
        return notes, steps

    async def look(self) -> int:
        """Write the notices of every match looked at since the last round (and, every
        :data:`SWEEP` seconds, of every running match with someone to tell: time runs
        low without a commit).  Returns the outbox rows added."""
        now = self._now()
        if now - self._last_sweep >= SWEEP:
            self._last_sweep = now
            for mid, live in self.service.matches.items():
                known = self._seen.get(mid)
                if live.status == "running" and (known is None or known.targets is not False):
                    self._dirty.add(mid)
            for mid in [m for m in self._seen if m not in self.service.matches]:
                del self._seen[mid]  # left memory (ended, or another process owns it now)
        dirty, self._dirty = self._dirty, set()
        added = 0
        for mid in dirty:
            match = self.service.matches.get(mid)
            if match is None or match.dropped:
                continue
            seen = self._seen.setdefault(mid, _Seen())
            try:
                if seen.targets is None:
                    seen.targets = await self._db(self.store.has_targets, mid)
                if not seen.targets:
                    continue
                notes, steps = self._candidates(match, seen)
                fresh = [n for n in notes if n[3] == "turn"]
                if fresh:  # written before (a restart): keep the full time the first look measured
                    known = await self._db(self.store.known, [n[0] for n in fresh])
                    for key, facts in known.items():
                        if "full" in facts:
                            seen.full[f"{key.rsplit(':', 1)[1]}:{key.split(':')[2]}"] = float(facts["full"])
                        seen.written.add(key)
                    notes, steps = self._candidates(match, seen)
                if not notes and not steps:
                    continue
                added += await self._db(self.store.write, notes, steps, now, self.gather, frozenset(self.channels))
            except Exception:  # the database is down: look again next round
                log.warning("notices of match %s could not be written yet", mid, exc_info=True)
                self._dirty.add(mid)
                continue
            seen.written.update(n[0] for n in notes)
            for _mid, seat, step in steps:
                seen.steps[seat] = step
        if not self._checked_ends:  # ends a crash kept from being noticed: the matches are read back
            try:
                ended = await self._db(self.store.unnoticed_ends, now - ENDS_LOOKED_BACK)
                self._checked_ends = True
            except Exception:
                ended = []
            for mid in ended:
                with contextlib.suppress(Exception):
                    match = await self.service.find(mid)
                    self._dirty.add(match.id)
        return added

    # ------------------------------------------------------------- sending

    def unsubscribe_url(self, recipient: str, channel: str) -> str:
        return f"{self.base_url}/notify/unsubscribe/{recipient}/{channel}/{self.sign(recipient, channel)}"

    def sign(self, recipient: str, channel: str) -> str:
        """What an unsubscribe link carries to show it was made here (HMAC of the
        recipient and channel with the notifier's secret, kept in ``settings``)."""
        mac = hmac.new(self._secret, f"{recipient}:{channel}".encode(), hashlib.sha256)
        return mac.hexdigest()[:32]

    def signed(self, recipient: str, channel: str, signature: str) -> bool:
        return hmac.compare_digest(self.sign(recipient, channel), signature)

    def _link(self) -> tuple[str, str]:
        """A fresh single-use link that opens a seat's page (its token and its URL)."""
        token = secrets.token_urlsafe(24)
        return token, f"{self.base_url}/notify/open/{token}"

    async def send_due(self) -> int:
        """Send what is due (this process holds the lease): per destination one message,
        no sooner than ``digest`` seconds after its last.  Returns the messages sent."""
        async with self._sending:
            now = self._now()
            due = await self._db(self.store.due, now)
            groups: dict[tuple[str, str, str], list[Pending]] = {}
            for row in due:
                groups.setdefault((row.recipient, row.channel, row.address), []).append(row)
            sent = 0
            for (recipient, channel_name, address), rows in groups.items():
                if min(r.due for r in rows) > now:
                    continue  # another address of the recipient is due; this one's rows wait for theirs
                channel = self.channels.get(channel_name)
                ids = [r.id for r in rows]
                if channel is None:  # written when it was (a restart without --smtp-url): nothing sends them
                    await self._db(self.store.mark, ids, "void", now, f"this server sends no {channel_name}")
                    continue
                if not await self._db(self.store.channel_on, recipient, channel_name):
                    await self._db(self.store.mark, ids, "void", now)
                    continue
                last = await self._db(self.store.last_sent, recipient, channel_name, address)
                if last is not None and now < last + self.digest:
                    continue
                sent += await self._send(channel, recipient, address, rows, now)
            return sent

    async def _send(self, channel: Channel, recipient: str, address: str, rows: list[Pending], now: float) -> int:
        ids = [r.id for r in rows]
        links: dict[tuple[str, int], str] = {}
        for r in rows:
            if (r.match_id, r.seat) not in links:
                token, url = self._link()
                links[(r.match_id, r.seat)] = url
                await self._db(self.store.add_link, token_hash(token), r.match_id, r.seat, now,
                               await self._db(self.store.holder, r.match_id, r.seat))
        message = replace(compose([r.facts for r in rows], [links[(r.match_id, r.seat)] for r in rows],
                                  self.unsubscribe_url(recipient, channel.name)), rows=tuple(ids))
        try:
            marked = await channel.send(address, message)
        except Gone:
            await self._db(self.store.drop_push, _endpoint_of(address))
            await self._db(self.store.mark, ids, "void", now, "the destination is gone")
            return 0
        except Refused as exc:
            log.warning("a %s message was refused for good: %s", channel.name, exc)
            await self._db(self.store.mark, ids, "failed", now, str(exc)[:500])
            return 0
        except Exception as exc:
            attempts = max(r.attempts for r in rows) + 1
            text = f"{type(exc).__name__}: {exc}"[:500]
            if attempts >= MAX_ATTEMPTS:
                log.error("giving up a %s message after %d tries: %s", channel.name, attempts, text)
                await self._db(self.store.mark, ids, "failed", now, text)
            else:
                log.warning("a %s message failed (try %d), tried again later: %s", channel.name, attempts, text)
                await self._db(self.store.retry, ids, now + min(3600.0, 10.0 * 2 ** attempts), text)
            return 0
        if not marked:
            await self._db(self.store.mark, ids, "sent", now)  # after the channel took it: at least once
        return 1

    async def step(self) -> int:
        """One round: write what the matches hold, then (holding the lease) send what is due."""
        await self.look()
        now = self._now()
        if now - self._lease_at >= LEASE / 3 or now < self._lease_at:
            self._lease_at = now
            try:
                self._holding = await self._db(self.store.take_lease, self.process, now, LEASE)
            except Exception:
                self._holding = False
        if not self._holding:
            return 0
        if now - self._purged >= 3600 or now < self._purged:
            self._purged = now
            with contextlib.suppress(Exception):
                await self._db(self.store.purge, now - self.link_ttl)
        return await self.send_due()

    async def run(self, interval: float = 1.0) -> None:
        """Rounds every ``interval`` seconds, or at once after a commit."""
        while True:
            await wait_event(self._wake, interval)
            self._wake.clear()
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("notification round failed")

    def close(self) -> None:
        """A clean stop: another process may send at once."""
        if self._holding:
            with contextlib.suppress(Exception):
                self.store.drop_lease(self.process)

    # ------------------------------------------------------------- links and keys

    async def open_link(self, token: str) -> tuple[str, str] | None:
        """Spend a single-use link for a fresh seat key: (match id, the key), or None."""
        key = secrets.token_urlsafe(24)
        found = await self._db(self.store.use_link, token_hash(token), token_hash(key), self._now(), self.link_ttl)
        if found is None:
            return None
        return found[0], key

    async def seat_of(self, match_id: str, digest: str) -> int | None:
        """The seat a key made by a single-use link speaks for, in ``match_id`` (or None)."""
        return await self._db(self.store.seat_of_key, digest, match_id, self._now(), self.link_ttl)

    def enable_push(self, services: tuple[str, ...] | None = None, plain: bool = False) -> None:
        """Send Web Push with the server's VAPID keys (made once, kept in ``settings``)."""
        from .notify_push import PUSH_SERVICES, Pusher, server_keys

        private, public = server_keys(self.service.store.engine)
        # who the push services may contact about this sender (RFC 8292's "sub"): the
        # mail's sender, else the server's HTTPS origin
        sender = getattr(getattr(self.channels.get("email"), "config", None), "sender", None)
        parts = urlsplit(self.base_url)
        subject = (f"mailto:{sender}" if sender else f"https://{parts.netloc}" if parts.scheme == "https" and
                   "." in (parts.hostname or "") else "mailto:blackwhite@localhost")
        self.push_services = services or PUSH_SERVICES
        self.push_plain = plain
        self.channels["push"] = Pusher(private, subject, self.push_services, plain)
        self.vapid_public = public

    def check_endpoint(self, endpoint: str) -> None:
        """ValueError unless this server would post to ``endpoint``."""
        from .notify_push import check_endpoint

        if self.vapid_public is None:
            raise ValueError("this server sends no Web Push")
        check_endpoint(endpoint, self.push_services, self.push_plain)

    async def dms(self) -> list[dict[str, Any]]:
        """What the Discord bridge is to DM (``GET /api/notify/discord``)."""
        return [d for d in await self._db(self.store.undelivered) if d["created"] > self._now() - DM_TTL]

    async def dm_delivered(self, dm_id: int, dmed: bool = True, host_id: str | None = None) -> bool:
        """The bridge marked a message delivered: whether this call marked it.  ``dmed``
        False: it DMed nothing (every item was one it DMs itself), so the message's rows
        are void, not sent, and hold no later message back in the digest window; only the
        items of ``host_id``'s (the bridge's host's) matches can be so
        (:class:`~blackwhite.server.notify_store.NotBridgeOwn` otherwise, nothing marked)."""
        return bool(await self._db(self.store.delivered, dm_id, self._now(), dmed, host_id))

    async def player_channels(self, player_id: str) -> dict[str, Any]:
        """A player's channels as its page shows them: each on or off."""
        prefs = await self._db(self.store.player_prefs, player_id)
        return {"email": prefs["email"], "push": prefs["push"], "discord": prefs["discord"],
                "push_subscribed": prefs["push_subscriptions"], "push_key": self.vapid_public,
                "email_sent": "email" in self.channels}

    async def set_player_channels(self, player_id: str, choices: dict[str, bool]) -> None:
        rid = recipient_id(f"player:{player_id}")
        for channel, on in choices.items():
            await self._db(self.store.set_pref, rid, channel, on, self._now())
        for mid in await self._db(self.store.matches_of_player, player_id):
            self.forget(mid)
        self._wake.set()

    async def unsubscribe(self, recipient: str, channel: str) -> None:
        """Turn ``channel`` off for ``recipient`` (an unsubscribe link); what is pending for it is void."""
        await self._db(self.store.set_pref, recipient, channel, False, self._now())

    async def subscribe(self, who: str, endpoint: str, p256dh: str, auth: str) -> None:
        """Keep a page's Web Push subscription for ``who`` (``seat:MATCH:N``); its match is looked at again."""
        await self._db(self.store.add_push, secrets.token_hex(16), who, endpoint, p256dh, auth, self._now())
        if who.startswith("seat:"):
            self.forget(who.split(":")[1])
        else:
            for mid in await self._db(self.store.matches_of_player, who.split(":", 1)[1]):
                self.forget(mid)
        self._wake.set()

    async def withdraw(self, endpoint: str, who: str) -> None:
        """A page withdrew its subscription (``who``'s own only): nothing more goes to it."""
        await self._db(self.store.drop_push, endpoint, who)


def _endpoint_of(address: str) -> str:
    import json

    try:
        return str(json.loads(address)["endpoint"])
    except (ValueError, KeyError, TypeError):
        return address


__all__ = ["CHANNELS", "Channel", "Gone", "Message", "Refused", "Notifier", "check_email", "compose", "facts_of",
           "dm_of", "recipient_id", "subject_of"]
