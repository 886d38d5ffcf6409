"""The bridge's logic as plain async code: events in (a slash command, a button, a DM,
a pushed view), messages out (:class:`Outgoing`).  The discord.py layer (:mod:`.bot`)
only turns Discord's objects into these calls and these messages into Discord's.

Who sees what:

- the match's channel gets only what the *spectator* payload says (its announcement
  log, its status, the result): the bridge reads it with the spectator token;
- a seat's DM gets only what that seat's payload says, read with that seat's token;
- the bridge watches each seat without *joining* it (``join=0``): the server starts a
  match's clocks once every player has come, and a player has come when they press
  the Ready button of their DM, type anything to the bot, or open their page;
- an action is the same request the page sends (``POST .../actions`` with the seat's
  token and the version the seat was shown), so every rule and clock applies; only the
  Discord user stored for a seat can act for it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, TypeVar

from ..names import bad_character, cut
from .api import ServerApi, ServerError, Unreachable
from .draw import clock_text, draw_view, result_text
from .messages import compose, compose_noted, split_lines
from .store import GIVEN_UP, PUBLIC, SENT, BridgeStore, MatchRow, PlayerRow, Posted, Queued, SeatRow

log = logging.getLogger("blackwhite.discord")

#: a seat with at most this many legal actions gets buttons; up to SELECT_MAX a select menu
BUTTONS_MAX = 10
SELECT_MAX = 25
#: what the components' custom ids start with (the bridge answers only its own)
PREFIX = "bw"
#: the ``what`` of the Ready button's custom id (a player says they have come)
READY = "ready"
#: the labels of the login links the bridge makes of a player: its own, and the one given to the user
BRIDGE_LINK = "Discord bot"
USER_LINK = "from the Discord bot"


@dataclass(frozen=True)
class Button:
    custom_id: str
    label: str


@dataclass(frozen=True)
class Select:
    custom_id: str
    options: list[tuple[str, str]]  # (label, value)
    placeholder: str = "Choose your action"


@dataclass(frozen=True)
class Outgoing:
    """One message to send: to a channel (``kind="channel"``, ``to`` its id) or to a
    user's DM (``kind="dm"``, ``to`` the user id); an optional file and components."""

    kind: str
    to: int
    text: str
    buttons: tuple[Button, ...] = ()
    select: Select | None = None
    file: tuple[str, bytes] | None = None
    #: a DM that cannot be delivered (the user does not accept DMs) is said here, without its content
    fallback: int | None = None
    #: the match's opening post, to open a thread of this name on (``/bw new thread:true``)
    thread: str | None = None
    #: the outbox post's own nonce (:meth:`BridgeStore.nonce`), the same at every try; not kept in the post
    nonce: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The post as the outbox keeps it."""
        return {"kind": self.kind, "to": self.to, "text": self.text,
                "buttons": [[b.custom_id, b.label] for b in self.buttons],
                "select": None if self.select is None else
                {"custom_id": self.select.custom_id, "options": [list(o) for o in self.select.options],
                 "placeholder": self.select.placeholder},
                "file": None if self.file is None else [self.file[0], base64.b64encode(self.file[1]).decode()],
                "fallback": self.fallback, "thread": self.thread}

    @staticmethod
    def from_json(data: dict[str, Any]) -> "Outgoing":
        select = data.get("select")
        file = data.get("file")
        return Outgoing(
            str(data["kind"]), int(data["to"]), str(data["text"]),
            tuple(Button(str(c), str(label)) for c, label in data.get("buttons", [])),
            None if select is None else Select(str(select["custom_id"]),
                                               [(str(a), str(b)) for a, b in select["options"]],
                                               str(select["placeholder"])),
            None if file is None else (str(file[0]), base64.b64decode(file[1])),
            data.get("fallback"), data.get("thread"))


@dataclass
class Reply:
    """The answer to the person who invoked a command or pressed a button (shown only
    to them); what others are told is queued in the outbox."""

    text: str
    ok: bool = True
    more: list[str] = field(default_factory=list)  # what did not fit ``text``'s message, in order
    match_id: str | None = None  # a match just created (to watch)


@dataclass
class Delivery:
    """Messages caused by a pushed view, queued in the outbox with what the audience was
    given; ``notes``: the announcement lines each post carries; ``view``: the posts are
    a seat's view, which a newer one supersedes while they are unsent."""

    posts: list[Outgoing]
    match_id: str
    audience: int
    posted: Posted | None  # None: nothing changes
    notes: list[list[str]] = field(default_factory=list)
    view: bool = False
    superseded: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Player:
    """A Discord user named in ``/bw new``."""

    user_id: int
    name: str


@dataclass(frozen=True)
class Settings:
    """What the bridge needs besides the server's API (see :mod:`.config`)."""

    public_url: str  # the server's address as players reach it (links in messages)
    host_token: str  # the token of the server's host link made for the bot (it creates and runs matches)
    guild: int  # the Discord server (guild) the bot hosts in
    host_roles: frozenset[int]  # ids of that guild's roles allowed to start matches; empty: nobody


def seat_name(name: str, seat: int) -> str:
    """A Discord display name as a seat name the server takes (:mod:`blackwhite.names`):
    what a name may not hold dropped, line breaks and odd spaces read as spaces, and cut
    to the limit without splitting an emoji."""
    spaced = "".join(" " if unicodedata.category(ch) in ("Zs", "Zl", "Zp") or ch in "\t\n\r" else ch
                     for ch in unicodedata.normalize("NFC", name))
    kept = "".join(ch for ch in spaced if bad_character(ch) is None)
    return cut(" ".join(kept.split())) or f"P{seat + 1}"


def parse_options(text: str) -> dict[str, Any]:
    """``"tiles=3 show_colours=true"`` -> ``{"tiles": 3, "show_colours": True}`` (JSON
    values where they parse, text otherwise)."""
    out: dict[str, Any] = {}
    for pair in text.split():
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"bad option {pair!r}: write key=value")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def parse_bots(text: str, num_seats: int) -> dict[int, str]:
    """``"2=heuristic 3=ismcts:budget=1"`` (1-based seats) or ``"random"`` (the last free
    seats, in order) -> ``{seat: spec}``."""
    placed: dict[int, str] = {}
    loose: list[str] = []
    for part in text.replace(",", " ").split():
        m = re.fullmatch(r"(\d+)=(.+)", part)
        if m:
            seat = int(m.group(1)) - 1
            if not 0 <= seat < num_seats:
                raise ValueError(f"there is no seat {m.group(1)}: seats are 1-{num_seats}")
            if seat in placed:
                raise ValueError(f"seat {m.group(1)} is given two bots")
            placed[seat] = m.group(2)
        else:
            loose.append(part)
    free = [s for s in range(num_seats) if s not in placed]
    if len(loose) > len(free):
        raise ValueError(f"more bots than seats ({num_seats})")
    for seat, spec in zip(free[len(free) - len(loose):], loose):
        placed[seat] = spec
    return placed


def status_line(old: str | None, new: str, waiting: str | None = None) -> str | None:
    """What the channel is told when the public status moves from ``old`` (None: the
    first payload seen) to ``new`` (``waiting``: the payload's words for what a waiting
    match waits for); None when nothing is worth a line."""
    if old == new:
        return None
    if new == "waiting":
        what = waiting or "waiting for its players"
        return (f"The match is {what}: the clocks start once every player has pressed Ready in their DM"
                f" (or opened their page).")
    if new == "running" and old == "waiting":
        return "The match has started: the clocks run."
    if new == "paused":
        return "The host paused the match: no clock runs."
    if new == "cancelled":
        return "The host cancelled the match."
    if new == "running" and old == "paused":
        return "The host resumed the match."
    return None


#: the units ``/bw time`` reads, in seconds
UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "min": 60.0, "s": 1.0}


def parse_duration(text: str) -> float:
    """``"30"`` (seconds), ``"90s"``, ``"10m"``, ``"2h"``, ``"1h30m"``, ``"1d"`` -> seconds;
    ValueError for anything else (or no time at all)."""
    compact = text.strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+(\.\d+)?", compact):
        seconds = float(compact)
    else:
        parts = re.findall(r"(\d+(?:\.\d+)?)(min|d|h|m|s)", compact)
        if not parts or "".join(n + u for n, u in parts) != compact:
            raise ValueError(f"{text.strip()[:40]!r} is no duration: write 30s, 10m, 2h or 1h30m (a bare number is seconds)")
        seconds = sum(float(n) * UNITS[u] for n, u in parts)
    if not 0 < seconds < 1e9:
        raise ValueError("give more than no time")
    return seconds


def duration_text(seconds: float) -> str:
    """Seconds in players' words: ``30 s``, ``10 min``, ``2 h 30 min``, ``1 d 2 h``."""
    left = round(seconds)
    if left < 60:
        return f"{seconds:g} s"
    out = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        if left >= size:
            out.append(f"{left // size} {unit}")
            left %= size
    return " ".join(out)


PACE_USAGE = ("write the pace as `live`, `scaled 3` (the game's clock times 3), or `slow 24h` (hours per action)"
              " with optional `reserve 12h`, `match 72h` and `quiet 23:00-07:00 Europe/Paris`")


def parse_pace(text: str) -> dict[str, Any] | None:
    """``/bw new``'s ``pace`` in players' words as the create-match request's ``pace``
    (docs/server.md, "Pace"): None for live; ValueError saying how to write one.  The
    bounds are the server's (a refusal names the field)."""
    words = text.split()
    if not words or words == ["live"]:
        return None
    kind, rest = words[0].lower(), words[1:]
    try:
        if kind in ("scaled", "x") or (kind.startswith("x") and not rest):
            factor = rest[0] if rest else kind[1:]
            if len(rest) > 1:
                raise ValueError
            return {"kind": "scaled", "factor": float(factor.lstrip("x×"))}
        if kind != "slow" or not rest:
            raise ValueError
        pace: dict[str, Any] = {"kind": "slow", "action_hours": parse_duration(rest[0]) / 3600}
        rest = rest[1:]
        while rest:
            key = rest[0].lower()
            if key in ("reserve", "match") and len(rest) >= 2:
                pace[f"{key}_hours"] = parse_duration(rest[1]) / 3600
                rest = rest[2:]
            elif key == "quiet" and len(rest) >= 3 and re.fullmatch(r"\d\d?:\d\d-\d\d?:\d\d", rest[1]):
                start, end = rest[1].split("-")
                pace["quiet"] = {"from": start.zfill(5), "to": end.zfill(5), "tz": rest[2]}
                rest = rest[3:]
            else:
                raise ValueError
        return pace
    except (ValueError, IndexError):
        raise ValueError(f"bad pace {text.strip()[:60]!r}: {PACE_USAGE}") from None


def pace_text(pace: dict[str, Any] | None) -> str | None:
    """A pace as the server's summary gives it, in players' words; None for live."""
    if not pace or pace.get("kind") in (None, "live"):
        return None
    if pace.get("kind") == "scaled":
        return f"scaled: the game's clock × {float(pace.get('factor', 1)):g}"
    parts = [f"{duration_text(float(pace.get('action_hours', 0)) * 3600)} per action"]
    if pace.get("reserve_hours"):
        parts.append(f"{duration_text(float(pace['reserve_hours']) * 3600)} reserve")
    if pace.get("match_hours"):
        parts.append(f"{duration_text(float(pace['match_hours']) * 3600)} for the whole match")
    quiet = pace.get("quiet")
    if isinstance(quiet, dict):
        parts.append(f"no clock runs {quiet.get('from')}-{quiet.get('to')} ({quiet.get('tz')})")
    return "slow: " + ", ".join(parts)


#: a season's phase in players' words (docs/seasons.md)
PHASES = {"main": "the round's main match is next", "main_running": "the main match is being played",
          "choose": "the candidate chooses an opponent", "death": "the death match is next",
          "death_running": "the death match is being played", "draft": "the finalists draft the final's items",
          "final": "the final is next", "over": "the season is over"}


def custom_id(match_id: str, seat: int, version: int, what: str) -> str:
    return f"{PREFIX}:{match_id}:{seat}:{version}:{what}"


def parse_custom_id(text: str) -> tuple[str, int, int, str] | None:
    parts = text.split(":")
    if len(parts) != 5 or parts[0] != PREFIX or not parts[2].isdigit() or not parts[3].isdigit():
        return None
    return parts[1], int(parts[2]), int(parts[3]), parts[4]


P = ParamSpec("P")
T = TypeVar("T")


class Bridge:
    """The logic of the bot: one instance over one server and one store.

    What each audience (the channel, each seat's DM) is to be sent goes through the
    store's outbox: a pushed view queues its posts together with what the audience was
    given (one transaction), and the runner sends them oldest first, marking each once
    Discord took it.  A seat's view still unsent when a newer one is queued is
    superseded by it, its notes carried into the newer post: only the newest board and
    prompt are sent."""

    def __init__(self, api: ServerApi, store: BridgeStore, settings: Settings) -> None:
        self.api = api
        self.store = store
        self.settings = settings
        self._games: dict[str, dict[str, Any]] | None = None
        #: per (match, audience): held while a view is queued and while a post is taken to send
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        #: outbox posts being sent now (never superseded)
        self.inflight: set[int] = set()
        #: per Discord user: held while the user's player is looked up or made
        self._player_locks: dict[int, asyncio.Lock] = {}

    async def _db(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A store call in a worker thread: sqlite3 (and a slow disk) never blocks the
        event loop that serves Discord's gateway and the server's sockets."""
        return await asyncio.to_thread(fn, *args, **kwargs)

    def _lock(self, match_id: str, audience: int) -> asyncio.Lock:
        return self._locks.setdefault((match_id, audience), asyncio.Lock())

    # ------------------------------------------------------------- links

    def _link(self, kind: str, match_id: str, token: str) -> str:
        return f"{self.settings.public_url.rstrip('/')}/{kind}/{match_id}?token={token}"

    def rules_link(self, game: str) -> str:
        return f"{self.settings.public_url.rstrip('/')}/rules/{game}"

    async def games(self) -> dict[str, dict[str, Any]]:
        if self._games is None:
            self._games = {g["id"]: g for g in await self.api.games()}
        return self._games

    def may_host(self, guild_id: int | None, role_ids: Sequence[int]) -> bool:
        """A member of the configured guild holding one of its host roles, by id: a role
        of the same name elsewhere, or the same id read in another guild, is nothing."""
        return guild_id == self.settings.guild and any(r in self.settings.host_roles for r in role_ids)

    # ------------------------------------------------------------- /bw new

    async def new_match(self, host: Player, guild_id: int | None, role_ids: Sequence[int], channel_id: int,
                        game: str, players: Sequence[Player], options: str = "", bots: str = "",
                        thread: bool = False, pace: str = "") -> Reply:
        """Create a match as the bridge's host and file it under ``channel_id`` with its
        opening posts queued (the announcement there, each player's link by DM) in one
        transaction: the caller watches the match, whose runner sends them (and retries)."""
        if not self.may_host(guild_id, role_ids):
            if guild_id != self.settings.guild:
                return Reply("This bot starts matches only in the Discord server it was set up for.", ok=False)
            roles = ", ".join(f"<@&{r}>" for r in sorted(self.settings.host_roles)) or "(none configured)"
            return Reply(f"Only members with a host role may start matches (host roles: {roles}).", ok=False)
        try:
            games = await self.games()
        except (ServerError, Unreachable) as exc:
            return Reply(f"The server cannot be reached: {exc}", ok=False)
        info = games.get(game)
        if info is None:
            return Reply(f"There is no game {game!r}; the games are {', '.join(sorted(games))}.", ok=False)
        n = int(info["num_seats"])
        try:
            opts = parse_options(options)
            bot_seats = parse_bots(bots, n)
            paced = parse_pace(pace)
        except ValueError as exc:
            return Reply(str(exc), ok=False)
        if len({p.user_id for p in players}) != len(players):
            return Reply("A player can hold only one seat of a match.", ok=False)
        if len(players) + len(bot_seats) != n:
            return Reply(f"{info['title']} has {n} seats: {len(players)} players and {len(bot_seats)} bots"
                         f" were given.", ok=False)
        people = iter(players)
        seats: list[dict[str, str]] = []
        holders: list[Player | None] = []
        logins: dict[int, PlayerRow] = {}  # seat -> the player it is bound to
        for s in range(n):
            if s in bot_seats:
                seats.append({"bot": bot_seats[s]})
                holders.append(None)
            else:
                p = next(people)
                seats.append({"name": seat_name(p.name, s)})
                holders.append(p)
                login = await self._player(p)
                if login is not None:
                    seats[-1]["player"] = login.player_id
                    logins[s] = login
        try:
            made = await self.api.create(self.settings.host_token, game, seats, opts, paced)
        except ServerError as exc:
            return Reply(f"The server refused the match: {exc.message}", ok=False)
        except Unreachable as exc:
            return Reply(f"The server cannot be reached: {exc}", ok=False)
        names = [seat.get("name") or f"bot {seat['bot']}" for seat in seats]
        # the host token is the configured link's, read from the settings at each use (a new
        # link given after a revocation controls the older matches too): not kept per match
        row = MatchRow(made.id, game, channel_id, host.user_id, "", made.spectator_token, names, {}, False)
        clock = info.get("clock", {})
        per_action = ", ".join(f"{k} {v:g} s" for k, v in clock.get("per_action", {}).items())
        lines = [
            f"**{info['title']}**: match `{made.id}` hosted by <@{host.user_id}>",
            *(f"Seat {s + 1}: " + (f"<@{p.user_id}> ({names[s]})" if p is not None else names[s])
              for s, p in enumerate(holders)),
        ]
        if opts:
            lines.append("Options: " + ", ".join(f"{k}={json.dumps(v)}" for k, v in opts.items()))
        paced_text = pace_text(made.summary.get("pace") or paced)
        if paced_text:  # the game's own clock is not this match's
            lines.append(f"Pace: {paced_text}; on timeout: {clock.get('on_timeout', '-')}")
        elif clock:
            lines.append(f"Clock: per action {per_action or '-'}; reserve {clock.get('reserve', 0):g} s;"
                         f" on timeout: {clock.get('on_timeout', '-')}")
        lines.append(f"Rules: {self.rules_link(game)}")
        lines.append(f"Watch: {self._link('watch', made.id, made.spectator_token)}")
        opening = split_lines(lines)
        posts = [(PUBLIC, Outgoing("channel", channel_id, text,
                                   thread=f"{game} {made.id}"[:100] if thread and i == 0 else None))
                 for i, text in enumerate(opening)]
        tokens: list[str | None] = [logins[s].token if s in logins else made.seat_tokens[s] for s in range(n)]
        for s, holder in enumerate(holders):
            if holder is None:
                continue
            page = logins[s].page_token if s in logins else tokens[s]
            posts.append((s, Outgoing("dm", holder.user_id, (
                f"You hold seat {s + 1} ({names[s]}) of {info['title']}, match `{made.id}`.\n"
                + (f"Your private page (keep it to yourself): {self._link('play', made.id, page)}\n" if page else "")
                + ("It is also on your player page, with every match awaiting you (`/bw moves` lists them here).\n"
                   if s in logins else "") +
                f"You can also play here: press a button, pick from the menu, or type your move in notation"
                f" (rules: {self.rules_link(game)}).\n"
                f"The match waits for you: its clocks start once every player is here. Press **Ready** (or"
                f" send me any message, or open your page) when you are."),
                buttons=(Button(custom_id(made.id, s, 0, READY), "Ready"),), fallback=channel_id)))
        # a seat bound to a player is watched and played with the bridge's login of the player
        await self._db(self.store.add_match, row, [
            SeatRow(made.id, s, None if p is None else p.user_id, tokens[s] if p is not None else None)
            for s, p in enumerate(holders)
        ], [(audience, post.to_json()) for audience, post in posts])
        return Reply(f"Match `{made.id}` created.", match_id=made.id)

    # ------------------------------------------------------------- players

    async def _player(self, user: Player) -> PlayerRow | None:
        """The server's player the Discord user is (docs/server.md, "Players"), with a login
        of the bridge's own: the one it holds; else the host's player with that Discord id,
        given a link while it has not logged in yet; else a player made for the user.  None
        when the server will not (a player that logged in already and whose login the
        bridge does not hold, the host's bound of players, an id that is no snowflake): the
        seat is then a plain seat with its own link, as before players existed."""
        async with self._player_locks.setdefault(user.user_id, asyncio.Lock()):
            known = await self._db(self.store.player, user.user_id)
            if known is not None:
                return known
            host = self.settings.host_token
            try:
                try:
                    found = await self.api.player_by_discord(host, user.user_id)
                except ServerError as exc:
                    if exc.code != "unknown_player":
                        raise
                    player_id, token = await self.api.new_player(host, seat_name(user.name, 0), user.user_id,
                                                                 BRIDGE_LINK)
                else:
                    player_id = str(found["id"])
                    token = await self.api.host_player_link(host, player_id, BRIDGE_LINK)
                # the user's own link for their pages, apart from the bridge's (either may be revoked alone)
                page_token, _link = await self.api.player_link(token, USER_LINK)
            except (ServerError, Unreachable) as exc:
                log.info("Discord user %s is played with a seat link (no player: %s)", user.user_id, exc)
                return None
            row = PlayerRow(user.user_id, player_id, token, page_token)
            await self._db(self.store.set_player, row)
            return row

    async def moves(self, user_id: int) -> Reply:
        """``/bw moves``: every match awaiting the user's player, soonest deadline first, as
        the server's waiting list gives it (built from each seat's own view: only the user
        sees the answer)."""
        login = await self._db(self.store.player, user_id)
        if login is None:
            return Reply("You have no player on this server through this bot yet: your seats of `/bw new` make"
                         " one.", ok=False)
        try:
            waiting = await self.api.waiting(login.token)
        except ServerError as exc:
            if exc.code in ("revoked", "expired", "wrong_token"):
                await self._db(self.store.forget_player, user_id)
            return Reply(f"Refused: {exc.message}", ok=False)
        except Unreachable as exc:
            return Reply(f"The server cannot be reached; try again in a moment ({exc}).", ok=False)
        if not waiting:
            return Reply("No match awaits you now.")
        games = await self.games()
        lines = [f"{len(waiting)} match{'es' if len(waiting) > 1 else ''} await{'' if len(waiting) > 1 else 's'}"
                 f" you, soonest deadline first:"]
        for item in waiting:
            title = str(games.get(str(item.get("game")), {}).get("title", item.get("game")))
            names = [str(x) for x in item.get("names") or []]
            seat = int(item.get("seat", 0))
            others = ", ".join(x for i, x in enumerate(names) if i != seat)
            what = "your move" if item.get("kind") == "move" else "waits for you to join (press Ready in its DM)"
            deadline = item.get("deadline")
            due = f", by <t:{int(deadline)}:f> (<t:{int(deadline)}:R>)" if isinstance(deadline, (int, float)) else ""
            lines.append(f"- `#{str(item.get('id'))[:8]}` {title}, seat {seat + 1}"
                         + (f" against {others}" if others else "") + f": {what}{due}")
        texts = split_lines(lines)
        return Reply(texts[0], more=texts[1:])

    # ------------------------------------------------------------- seasons

    async def _season(self, user_id: int, season_id: str | None) -> dict[str, Any] | Reply:
        """The season (the one named, by its id or the start of it; else the user's newest,
        else the host's newest) as the *user* may read it: with the bridge's login of their
        player, or as anyone when they have none, never with the host's link (which reads
        garnets a season's cast may not), so what the answer shows is what the user's
        own season page would."""
        login = await self._db(self.store.player, user_id)
        token = login.token if login is not None else None
        try:
            if season_id and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", season_id):
                return Reply(f"There is no season {season_id[:40]!r}.", ok=False)
            # the seasons this user may read: their own, and the host's public ones; a
            # cast-only season of others is never named, nor found by the start of its id
            # (asking for starts one letter at a time would spell out its id)
            mine = await self.api.player_seasons(token) if token is not None else []
            public = [r for r in await self.api.seasons(self.settings.host_token) if r.get("visibility") == "public"]
            if not season_id:
                listed = mine or public
                if not listed:
                    return Reply("No season is run here yet.", ok=False)
                season_id = str(listed[-1].get("id") or listed[-1].get("season"))
            else:  # an id, or the start of one of those
                ids = {str(r.get("id")) for r in [*mine, *public]}
                found = [i for i in ids if i.startswith(season_id)]
                if len(found) == 1:
                    season_id = found[0]
            return await self.api.season(season_id, token)
        except ServerError as exc:
            return Reply(f"Refused: {exc.message}", ok=False)
        except Unreachable as exc:
            return Reply(f"The server cannot be reached; try again in a moment ({exc}).", ok=False)

    async def season(self, user_id: int, season_id: str | None = None) -> Reply:
        """``/bw season``: where the season stands (round, phase, candidate and opponent,
        the match being played, the champion), as the user may read it; only they see it."""
        got = await self._season(user_id, season_id)
        if isinstance(got, Reply):
            return got
        names = {str(c.get("player")): str(c.get("name")) for c in got.get("cast", [])}

        def who(p: Any) -> str:
            return names.get(str(p), str(p))

        lines = [f"**{got.get('name')}** (season `{got.get('id')}`): round {got.get('round')},"
                 f" {PHASES.get(str(got.get('phase')), str(got.get('phase')))}"]
        if got.get("champion"):
            lines.append(f"Champion: {who(got['champion'])}")
        if got.get("candidate"):
            lines.append(f"Elimination candidate: {who(got['candidate'])}"
                         + (f"; opponent: {who(got['opponent'])}" if got.get("opponent") else ""))
        if got.get("eligible_opponents"):
            deadline = got.get("candidate_deadline")
            lines.append("May be chosen: " + ", ".join(who(p) for p in got["eligible_opponents"])
                         + (f" (the choice is due <t:{int(deadline)}:R>)" if isinstance(deadline, (int, float))
                            else ""))
        if got.get("running_match"):
            lines.append(f"Being played: match `{got['running_match']}`"
                         f" ({self.settings.public_url.rstrip('/')}/watch/{got['running_match']})")
        alive = [r for r in got.get("standings", []) if r.get("eliminated_round") is None]
        lines.append(f"Still in: {len(alive)} of {len(got.get('standings', []))}; `/bw standings` lists them.")
        you = got.get("you") or {}
        if you.get("garnets") is not None:
            lines.append(f"You hold {you['garnets']} garnets.")
        texts = split_lines(lines)
        return Reply(texts[0], more=texts[1:])

    async def standings(self, user_id: int, season_id: str | None = None) -> Reply:
        """``/bw standings``: the season's standings as the user may read them (garnets the
        season keeps from its cast show as hidden); only they see it."""
        got = await self._season(user_id, season_id)
        if isinstance(got, Reply):
            return got
        lines = [f"**{got.get('name')}**: standings after round {got.get('round')}"]
        for r in got.get("standings", []):
            garnets = "garnets hidden" if r.get("garnets") is None else f"{r['garnets']} garnets"
            tokens = f", {r['tokens']} token{'s' if r.get('tokens') != 1 else ''}" if r.get("tokens") else ""
            out = f", eliminated in round {r['eliminated_round']}" if r.get("eliminated_round") is not None else ""
            lines.append(f"{r.get('place')}. {r.get('name') or r.get('player')}: {garnets}{tokens}{out}")
        texts = split_lines(lines)
        return Reply(texts[0], more=texts[1:])

    # ------------------------------------------------------------- pushed views

    async def on_payload(self, match_id: str, audience: int, payload: dict[str, Any]) -> Delivery:
        """A view payload pushed to the spectator token (``audience=PUBLIC``) or to a
        seat's token: what it adds to what the audience was given, queued in the outbox
        (a seat's unsent older view superseded by it)."""
        async with self._lock(match_id, audience):
            match = await self._db(self.store.match, match_id)
            if match is None:
                return Delivery([], match_id, audience, None)
            before = await self._db(self.store.posted, match_id, audience)
            version = int(payload["version"])
            status = str(payload.get("status"))
            if before is not None and version <= before.version and status == before.extra.get("status"):
                return Delivery([], match_id, audience, None)  # seen already (a reconnect, a restart)
            if audience == PUBLIC:
                delivery = await self._public(match, payload, before)
            else:
                older = [q for q in await self._db(self.store.unsent, match_id, audience)
                         if q.view and q.id not in self.inflight]
                delivery = await self._seat(match, audience, payload, before, older)
            if delivery.posted is not None or delivery.posts:
                over = audience == PUBLIC and delivery.posted is not None and bool(delivery.posted.extra.get("over"))
                notes = delivery.notes or [[] for _ in delivery.posts]
                await self._db(self.store.queue, match_id, audience, delivery.posted,
                               [(p.to_json(), n, delivery.view) for p, n in zip(delivery.posts, notes)],
                               delivery.superseded, over)
            return delivery

    async def _public(self, match: MatchRow, payload: dict[str, Any], before: Posted | None) -> Delivery:
        view = payload["view"]
        log: list[str] = list(view.get("log", []))
        done = 0 if before is None else before.log_count
        extra = dict(before.extra) if before is not None else {}
        status = str(payload.get("status"))
        lines = [str(line) for line in log[done:]]
        line = status_line(extra.get("status"), status, payload.get("waiting"))
        if line:
            lines.append(line)
        extra["status"] = status
        posts = [Outgoing("channel", match.channel_id, text) for text in split_lines(lines)]
        if (view.get("finished") or status in ("finished", "cancelled")) and not extra.get("result"):
            posts.extend(await self._result(match, view, cancelled=status == "cancelled" and not view.get("finished")))
            extra["result"] = True
        if status in ("finished", "cancelled"):
            extra["over"] = True
        return Delivery(posts, match.id, PUBLIC, Posted(int(payload["version"]), len(log), [], extra))

    async def _result(self, match: MatchRow, view: dict[str, Any], cancelled: bool = False) -> list[Outgoing]:
        """The result, the record file (fetched with the spectator token, which gets it
        only once the match is over) and the replay link."""
        outcome = "cancelled by the host, unfinished" if cancelled else result_text(view, match.names)
        text = f"**Result** of match `{match.id}`: {outcome}\n" \
               f"Replay: {self._link('replay', match.id, match.spectator_token)}"
        try:
            record = await self.api.record(match.id, match.spectator_token)
        except (ServerError, Unreachable) as exc:
            return [Outgoing("channel", match.channel_id, text + f"\n(The record could not be fetched: {exc})")]
        data = (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode()
        return [Outgoing("channel", match.channel_id, text, file=(f"{match.game}-{match.id}.json", data))]

    async def _seat(self, match: MatchRow, seat: int, payload: dict[str, Any], before: Posted | None,
                    older: list[Queued]) -> Delivery:
        holder = next((s for s in await self._db(self.store.seats, match.id) if s.seat == seat), None)
        if holder is None or holder.user_id is None:
            return Delivery([], match.id, seat, None)
        view = payload["view"]
        log: list[str] = list(view.get("log", []))
        done = 0 if before is None else before.log_count
        legal: list[str] = list(payload.get("legal") or [])
        extra = dict(before.extra) if before is not None else {}
        status = str(payload.get("status"))
        version = int(payload["version"])
        new_lines = [str(line) for line in log[done:]]
        changed = (before is None or new_lines or legal != before.legal or status != extra.get("status")
                   or bool(view.get("finished")) != bool(extra.get("finished")))
        if status == "waiting":
            # the clocks wait for the players to come (the opening DM asked this one for Ready):
            # say nothing more yet (the notes stay unposted until the view after the start)
            extra["status"] = status
            extra["awaited"] = seat in (payload.get("start") or {}).get("waiting_for", [])
            return Delivery([], match.id, seat, Posted(version, done, before.legal if before else [], extra))
        extra["awaited"] = False
        extra["status"] = status
        extra["finished"] = bool(view.get("finished"))
        if not changed:
            # another seat's secret submission: nothing this seat can read changed but the list of who submitted
            return Delivery([], match.id, seat, Posted(version, len(log), legal, extra))
        extra["prompt"] = version
        board = draw_view(view, match.names)
        parts: list[str] = []  # what follows the board: the clock and the prompt, never cut
        clocks = clock_text(payload.get("clocks"), match.names, seat)
        if clocks and not view.get("finished") and status == "running":
            parts.append(clocks)
        buttons: tuple[Button, ...] = ()
        select: Select | None = None
        if status in ("finished", "cancelled") or view.get("finished"):
            parts.append("The match is over." if status != "cancelled" else "The host cancelled the match.")
        elif status == "paused":
            parts.append("The match is paused.")
        elif legal:
            if len(legal) <= BUTTONS_MAX:
                buttons = tuple(Button(custom_id(match.id, seat, version, str(i)), a[:80]) for i, a in enumerate(legal))
                parts.append("Your move: press one.")
            elif len(legal) <= SELECT_MAX:
                select = Select(custom_id(match.id, seat, version, "menu"),
                                [(a[:100], str(i)) for i, a in enumerate(legal)])
                parts.append("Your move: pick it from the menu.")
            else:
                parts.append(f"Your move: type it in notation ({len(legal)} legal, e.g. `{legal[0]}`, "
                             f"`{legal[-1]}`; `help` lists them).")
        # the notes of older views not sent yet come first, then this view's: each once
        carried = [line for q in older for line in q.notes]
        noted = compose_noted(carried + new_lines, board, "\n".join(parts))
        posts = [Outgoing("dm", holder.user_id, text) for text, _ in noted[:-1]]
        posts.append(Outgoing("dm", holder.user_id, noted[-1][0], buttons=buttons, select=select))
        return Delivery(posts, match.id, seat, Posted(version, len(log), legal, extra),
                        notes=[n for _, n in noted], view=True, superseded=[q.id for q in older])

    # ------------------------------------------------------------- the outbox

    async def take(self, match_id: str, audience: int) -> tuple[int, Outgoing] | None:
        """The audience's oldest post still to send, now being sent (a newer view does
        not supersede it): None when there is none."""
        async with self._lock(match_id, audience):
            queued = await self._db(self.store.unsent, match_id, audience)
            if not queued:
                return None
            first = queued[0]
            self.inflight.add(first.id)
        post = replace(Outgoing.from_json(first.post), nonce=self.store.nonce(first.id))
        if post.kind == "channel" and post.thread is None:
            # the match's channel now: its thread once opened, though the post was queued before
            match = await self._db(self.store.match, match_id)
            if match is not None:
                post = replace(post, to=match.channel_id)
        elif post.fallback is not None:
            match = await self._db(self.store.match, match_id)
            if match is not None:
                post = replace(post, fallback=match.channel_id)
        return first.id, post

    async def sent(self, post_id: int, given_up: bool = False) -> None:
        """Discord took the post (or refused it for good): marked, never sent again."""
        try:
            await self._db(self.store.set_state, post_id, GIVEN_UP if given_up else SENT)
        finally:
            self.inflight.discard(post_id)

    def failed(self, post_id: int) -> None:
        """Sending the post failed for now: it stays to send (a newer view may supersede it)."""
        self.inflight.discard(post_id)

    async def queued(self) -> list[tuple[str, int]]:
        """Every (match, audience) with posts still to send."""
        return await self._db(self.store.queued)

    async def move_to_thread(self, match_id: str, thread_id: int) -> None:
        """Announce the match in the thread opened on its opening post (host commands work there)."""
        await self._db(self.store.set_channel, match_id, thread_id)

    # ------------------------------------------------------------- acting for a seat

    async def press(self, user_id: int, custom: str, values: Sequence[str] = ()) -> Reply:
        """A button or a select menu of a seat's DM: acts only for the seat's own user."""
        parsed = parse_custom_id(custom)
        if parsed is None:
            return Reply("This control is not one of the bridge's.", ok=False)
        match_id, seat, version, what = parsed
        holder = next((s for s in await self._db(self.store.seats, match_id) if s.seat == seat), None)
        if holder is None or holder.token is None:
            return Reply("That seat is not played through this bot.", ok=False)
        if holder.user_id != user_id:
            return Reply(f"Only <@{holder.user_id}> can act for seat {seat + 1}.", ok=False)
        if what == READY:
            return await self.join(holder)
        posted = await self._db(self.store.posted, match_id, seat)
        if posted is None or posted.extra.get("prompt") != version:
            return Reply("That prompt is out of date: use the newest one.", ok=False)
        index = values[0] if what == "menu" and values else what
        if not index.isdigit() or int(index) >= len(posted.legal):
            return Reply("That choice is not on the prompt.", ok=False)
        return await self._act(holder, posted.legal[int(index)], version)

    async def typed(self, user_id: int, text: str) -> Reply | None:
        """Notation typed in a DM.  ``#<match id prefix> <action>`` picks the match when
        the user holds seats in several; None when the user holds no seat (not for us)."""
        seats = [s for s in await self._db(self.store.seats_of_user, user_id) if s.token is not None]
        text = text.strip()
        if not seats:
            return Reply("You hold no seat in a running match of this bot.", ok=False) \
                if text.lower() in ("help", "?") else None
        m = re.fullmatch(r"#(\S+)\s+(.+)", text, re.S)
        if m:
            seats = [s for s in seats if s.match_id.startswith(m.group(1))]
            text = m.group(2).strip()
            if not seats:
                return Reply(f"You hold no seat in a running match starting `{m.group(1)}`.", ok=False)
        given = {(s.match_id, s.seat): await self._db(self.store.posted, s.match_id, s.seat) for s in seats}
        if len(seats) > 1:
            waiting = [s for s in seats if (p := given[s.match_id, s.seat]) is not None and p.legal]
            if len(waiting) == 1:
                seats = waiting
            else:
                ids = ", ".join(f"`#{s.match_id[:8]}`" for s in seats)
                return Reply(f"You hold seats in several matches ({ids}): start with the match, e.g."
                             f" `#{seats[0].match_id[:8]} {text}`.", ok=False)
        awaited = [s for s in seats if (p := given[s.match_id, s.seat]) is None or p.extra.get("awaited")]
        if awaited:  # any word from a player not yet come is their Ready (never a move: nothing is prompted yet)
            replies = [await self.join(s) for s in awaited]
            return Reply("\n".join(r.text for r in replies), ok=all(r.ok for r in replies))
        holder = seats[0]
        posted = given[holder.match_id, holder.seat]
        if posted is None:
            return Reply("Your seat's view has not arrived yet; try again in a moment.", ok=False)
        if text.lower() in ("help", "?"):
            if not posted.legal:
                return Reply(f"Nothing to play now in match `{holder.match_id}`.")
            listed = ", ".join(f"`{a}`" for a in posted.legal)
            if len(listed) > 1800:
                listed = listed[:1800].rsplit(", ", 1)[0] + f", ... ({len(posted.legal)} in all)"
            return Reply(f"What you may play now in match `{holder.match_id}`: {listed}")
        return await self._act(holder, text, int(posted.extra.get("prompt", posted.version)))

    async def join(self, holder: SeatRow) -> Reply:
        """The seat's player has come (pressed Ready, wrote to the bot): open the seat's view
        once *with* joining, as their page would, so the server counts them; the clocks
        start once every player has."""
        assert holder.token is not None
        try:
            payload = await self.api.view(holder.match_id, holder.token)
        except ServerError as exc:
            return Reply(f"Refused: {exc.message}", ok=False)
        except Unreachable as exc:
            return Reply(f"The server cannot be reached; try again in a moment ({exc}).", ok=False)
        status = payload.get("status")
        if status == "waiting":
            return Reply(f"You are in (match `{holder.match_id}`); it is {payload.get('waiting') or 'waiting'}.")
        if status in ("finished", "cancelled"):
            return Reply(f"Match `{holder.match_id}` is over.")
        return Reply(f"You are in (match `{holder.match_id}`): the clocks have started; your prompts come here.")

    async def _act(self, holder: SeatRow, action: str, version: int) -> Reply:
        assert holder.token is not None
        try:
            await self.api.act(holder.match_id, holder.token, action, version)
        except ServerError as exc:
            return Reply(f"Refused: {exc.message}", ok=False)
        except Unreachable as exc:
            return Reply(f"The server cannot be reached; nothing was sent ({exc}).", ok=False)
        return Reply(f"Sent: `{action}`")

    # ------------------------------------------------------------- host controls

    async def _hosted(self, user_id: int, channel_id: int, match_id: str | None) -> MatchRow | str:
        """The match a host command is about: the one named, else the newest running in
        this channel; an error text when there is none or the user is not its host."""
        if match_id:
            found = [m for m in await self._db(self.store.matches) if m.id.startswith(match_id)]
        else:
            found = await self._db(self.store.matches, running_only=True, channel_id=channel_id)
        if not found:
            return "No running match of this bot here" + (f" starting `{match_id}`." if match_id else ".")
        match = found[-1]
        if match.host_user_id != user_id:
            return f"Only the match's host (<@{match.host_user_id}>) can do that."
        return match

    async def control(self, user_id: int, channel_id: int, what: str, match_id: str | None = None) -> Reply:
        """``pause``, ``resume`` or ``cancel`` for the match's host (the channel hears it
        from the spectator payload, as everyone else does)."""
        match = await self._hosted(user_id, channel_id, match_id)
        if isinstance(match, str):
            return Reply(match, ok=False)
        try:
            summary = await self.api.control(match.id, self.settings.host_token, what)
        except (ServerError, Unreachable) as exc:
            return Reply(f"Refused: {exc}", ok=False)
        return Reply(f"Match `{match.id}` is {summary['status']}.")

    async def add_time(self, user_id: int, channel_id: int, player_id: int | None, seconds: float,
                       match_id: str | None = None) -> Reply:
        """``/bw time``: more reserve for a player's seat, or (no player) more of a slow
        match's hours for the whole match; the server bounds it by the match's pace."""
        match = await self._hosted(user_id, channel_id, match_id)
        if isinstance(match, str):
            return Reply(match, ok=False)
        seat: int | None = None
        if player_id is not None:
            seat = next((s.seat for s in await self._db(self.store.seats, match.id) if s.user_id == player_id), None)
            if seat is None:
                return Reply(f"<@{player_id}> holds no seat in match `{match.id}`.", ok=False)
        try:
            await self.api.add_time(match.id, self.settings.host_token, seat, seconds)
        except (ServerError, Unreachable) as exc:
            return Reply(f"Refused: {exc}", ok=False)
        text = (f"The host gave the whole match {duration_text(seconds)} more." if seat is None else
                f"The host gave <@{player_id}> (seat {seat + 1}) {duration_text(seconds)} more.")
        # through the channel's outbox, in order with the announcements (the caller wakes its sender)
        async with self._lock(match.id, PUBLIC):
            await self._db(self.store.queue, match.id, PUBLIC, None,
                           [(Outgoing("channel", match.channel_id, text).to_json(), [], False)], [], False)
        return Reply(text, match_id=match.id)

    async def status(self, user_id: int, channel_id: int, match_id: str | None = None) -> Reply:
        """The public board, status and clocks of the match (read with the spectator token)."""
        match = await self._hosted(user_id, channel_id, match_id)
        if isinstance(match, str):
            return Reply(match, ok=False)
        try:
            payload = await self.api.view(match.id, match.spectator_token)
        except (ServerError, Unreachable) as exc:
            return Reply(f"Refused: {exc}", ok=False)
        texts = compose([f"Match `{match.id}`: {payload['status']}, version {payload['version']}"],
                        draw_view(payload["view"], match.names), clock_text(payload.get("clocks"), match.names))
        return Reply(texts[0], more=texts[1:])

    # ------------------------------------------------------------- watching

    async def watched(self) -> list[tuple[str, int, str]]:
        """Every (match, audience, token) whose socket the bridge keeps open: the spectator
        and each person's seat of every match not over."""
        out: list[tuple[str, int, str]] = []
        for match in await self._db(self.store.matches, running_only=True):
            out.extend(await self.audiences(match.id))
        return out

    async def prompted(self, user_id: int, match_ids: Sequence[str] | set[str]) -> set[str]:
        """Those of ``match_ids`` whose seat of ``user_id`` this bridge DMs itself (its own
        matches: the invitation, every prompt, the end), over or not."""
        return await self._db(self.store.prompted, user_id, sorted(match_ids))

    async def audiences(self, match_id: str) -> list[tuple[str, int, str]]:
        match = await self._db(self.store.match, match_id)
        if match is None:
            return []
        out = [(match.id, PUBLIC, match.spectator_token)]
        out.extend((match.id, s.seat, s.token) for s in await self._db(self.store.seats, match.id)
                   if s.user_id is not None and s.token is not None)
        return out
