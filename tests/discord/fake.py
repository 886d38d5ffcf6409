"""A fake Discord for the bridge's tests: an HTTP server on 127.0.0.1 that answers
Discord's REST API (v10) as Discord does, and discord.py's own objects around it.

- Out: discord.py is pointed at the fake (``discord.http.Route.BASE``, which the
  webhook adapter answering interactions uses too), so every request goes through
  discord.py's real HTTP client: its login (``GET /users/@me``), its rate limiter
  (buckets from the ``X-RateLimit-*`` headers, 429 waited out for ``retry_after``,
  at most five tries) and its errors.  The bot logs in for real: ``login`` runs
  ``setup_hook``, which registers the commands (``tree.sync()``) and starts the runner.
- Refusals as Discord makes them: 429 with ``retry_after`` (per-channel buckets, and a
  *storm* of extra 429s on demand), 403 code 50007 for a DM to a user who accepts none,
  400 code 50035 for a message over 2,000 characters (or a nonce over 25), 401 for a
  wrong bot token, 400 code 160004 for a second thread on one message.
- A message sent with a ``nonce`` and ``enforce_nonce`` that the bot used within
  ``NONCE_WINDOW`` is answered with the message that nonce created, and none is
  created (Discord's idempotency of message creation); a thread opened on a message
  has the message's id, as on Discord.
- In: gateway events (a slash command, a button press, a DM) are fed to discord.py's
  own parser (``ConnectionState.parse_interaction_create`` / ``parse_message_create``),
  which builds the Interaction and Message objects and dispatches them as the gateway
  would.

Every message Discord accepted is a :class:`Sent`: where (``channel:<id>`` or
``dm:<user id>``), its text, its components and its files.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord
from aiohttp import web
from discord.http import Route

APP_ID = 900_000_000_000_000_001
BOT_ID = 900_000_000_000_000_002
GUILD_ID = 900_000_000_000_000_003
CHANNEL_ID = 900_000_000_000_000_004
HOST_ROLE_ID = 900_000_000_000_000_005
HOST_ROLE = "bw hosts"
BOT_TOKEN = "fake-bot-token"
STAMP = "2026-11-26T00:00:00.000000+00:00"
#: seconds a test waits for the bridge or the server before failing (generous: the machine is shared)
WAIT = 60.0


@dataclass
class Sent:
    where: str  # "channel:<id>" or "dm:<user id>"
    text: str
    buttons: list[tuple[str, str]] = field(default_factory=list)  # (custom_id, label)
    select: tuple[str, list[tuple[str, str]]] | None = None  # (custom_id, [(label, value)])
    files: list[tuple[str, bytes]] = field(default_factory=list)
    id: int = 0


@dataclass
class Response:
    """The answer to an interaction (the bridge answers ephemerally)."""

    interaction: int
    text: str
    ephemeral: bool


@dataclass
class Storm:
    """Extra 429s: each message sent is refused with probability ``p`` (``retry_after``
    drawn in ``wait``), as Discord does under a shared or global limit."""

    p: float
    wait: tuple[float, float] = (0.01, 0.08)
    rng: random.Random = field(default_factory=lambda: random.Random(7))


def user_payload(user_id: int, name: str) -> dict[str, Any]:
    return {"id": str(user_id), "username": name, "discriminator": "0", "avatar": None, "global_name": name}


def _components(raw: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], tuple[str, list[tuple[str, str]]] | None]:
    buttons: list[tuple[str, str]] = []
    select = None
    for row in raw:
        for item in row.get("components", []):
            if item["type"] == 2:
                buttons.append((item["custom_id"], item["label"]))
            elif item["type"] == 3:
                select = (item["custom_id"], [(o["label"], o["value"]) for o in item["options"]])
    return buttons, select


class Refusal(Exception):
    """An error answer of the fake: status and Discord's JSON body."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status} {body}")
        self.status = status
        self.body = body
        self.headers = headers or {}


def _json(data: Any, status: int, headers: dict[str, str]) -> web.Response:
    """JSON as Discord sends it: ``Content-Type: application/json`` exactly (discord.py
    reads any other type as text)."""
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={**headers, "Content-Type": "application/json"})


def too_long(content: str | None) -> None:
    """Discord's answer to a message over 2,000 characters: 400, code 50035 (Invalid Form Body)."""
    if content is not None and len(content) > 2000:
        raise Refusal(400, {"code": 50035, "message": "Invalid Form Body",
                            "errors": {"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                                                                "message": "Must be 2000 or fewer in length."}]}}})


class FakeDiscord:
    """The fake Discord of one :class:`discord.Client`: ``await start()`` serves it and
    logs the client in; ``await stop()`` after."""

    #: a channel's (or DM's) bucket: this many messages per ``WINDOW`` seconds
    LIMIT = 50
    WINDOW = 1.0
    #: seconds a message's nonce is remembered (``enforce_nonce``); Discord says "the past few minutes"
    NONCE_WINDOW = 120.0

    def __init__(self, client: discord.Client, users: dict[int, str], token: str = BOT_TOKEN) -> None:
        self.client = client
        self.users = dict(users)
        self.token = token
        self.sent: list[Sent] = []
        self.responses: list[Response] = []
        self._ids = itertools.count(int(time.time() * 1000) << 22)
        self.dm_of: dict[int, int] = {}  # DM channel id -> user id
        self.threads: dict[int, tuple[int, str]] = {}  # thread id -> (parent channel, name)
        self.closed_dms: set[int] = set()  # users who do not accept DMs from the bot
        self.synced: list[dict[str, Any]] = []  # the slash commands registered with Discord
        self.deferred: set[int] = set()  # interactions answered "thinking...", to be followed up
        self.requests: list[tuple[str, str, int]] = []  # (method, path, status) of every request
        self.storm: Storm | None = None
        self.down = False  # every request answered 503 (Discord unreachable, for the bot)
        self.fault: Callable[[str, str, dict[str, Any]], Refusal | None] | None = None  # any other refusal
        #: called with each message once created; a Refusal it returns is the answer the bot gets
        #: instead of the message (created all the same: an answer lost on the way)
        self.accepted: Callable[[Sent], Refusal | None] | None = None
        self.nonces: dict[str, tuple[float, dict[str, Any]]] = {}  # nonce -> (when, the message it created)
        self.deduplicated = 0  # messages asked again with a recent nonce, answered without a new one
        self._buckets: dict[str, tuple[float, int]] = {}  # key -> (window start, count)
        self._runner: web.AppRunner | None = None
        self._base = Route.BASE

    def snowflake(self) -> int:
        return next(self._ids)

    # ------------------------------------------------------------- serving

    async def serve(self) -> None:
        """Serve the fake and point discord.py at it (not logged in yet)."""
        app = web.Application(client_max_size=16 << 20)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        Route.BASE = f"http://127.0.0.1:{port}/api/v10"

    async def start(self) -> None:
        """Serve, then log the bot in as it starts for real (``login`` runs ``setup_hook``:
        the commands are synced and the runner started); then the guild the gateway
        would have announced, with its roles."""
        await self.serve()
        await self.client.login(self.token)
        state = self.client._connection
        state._add_guild_from_data({  # type: ignore[arg-type]
            "id": str(GUILD_ID), "name": "community", "owner_id": "1", "features": [], "emojis": [], "stickers": [],
            "roles": [
                {"id": str(GUILD_ID), "name": "@everyone", "permissions": "0", "position": 0, "color": 0,
                 "hoist": False, "managed": False, "mentionable": False, "flags": 0},
                {"id": str(HOST_ROLE_ID), "name": HOST_ROLE, "permissions": "0", "position": 1, "color": 0,
                 "hoist": False, "managed": False, "mentionable": False, "flags": 0},
            ],
            "channels": [self.channel_payload(CHANNEL_ID)], "members": [], "member_count": 1,
        })

    def carry_on(self, earlier: "FakeDiscord") -> None:
        """Discord as ``earlier`` left it, for a bot started again: the messages sent, the
        DM channels, the threads and the nonces of the last minutes (the earlier
        messages' ids turned negative, apart from this run's)."""
        for sent in earlier.sent:
            sent.id = -abs(sent.id)
        self.sent[:0] = earlier.sent
        self.dm_of.update(earlier.dm_of)
        self.threads.update(earlier.threads)
        self.nonces.update(earlier.nonces)
        self.closed_dms |= earlier.closed_dms

    async def stop(self) -> None:
        Route.BASE = self._base
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------- payloads

    def channel_payload(self, channel_id: int) -> dict[str, Any]:
        if channel_id in self.threads:
            parent, name = self.threads[channel_id]
            return {"id": str(channel_id), "type": 11, "guild_id": str(GUILD_ID), "parent_id": str(parent),
                    "owner_id": str(BOT_ID), "name": name, "last_message_id": None, "rate_limit_per_user": 0,
                    "message_count": 0, "member_count": 1,
                    "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                                        "archive_timestamp": STAMP, "locked": False}}
        return {"id": str(channel_id), "type": 0, "guild_id": str(GUILD_ID), "name": "games", "position": 0,
                "permission_overwrites": [], "nsfw": False, "topic": None, "last_message_id": None}

    def message_payload(self, channel_id: int, content: str, author: dict[str, Any],
                        components: list[Any] | None = None) -> dict[str, Any]:
        return {"id": str(self.snowflake()), "channel_id": str(channel_id), "content": content, "author": author,
                "attachments": [], "embeds": [], "mentions": [], "mention_roles": [], "pinned": False,
                "mention_everyone": False, "tts": False, "timestamp": STAMP, "edited_timestamp": None,
                "type": 0, "flags": 0, "components": components or []}

    def _bot(self) -> dict[str, Any]:
        return {**user_payload(BOT_ID, "bridge"), "bot": True}

    # ------------------------------------------------------------- out: discord.py's REST calls

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        try:
            if self.down:
                raise Refusal(503, {"message": "upstream connect error", "code": 0})
            if request.headers.get("Authorization") != f"Bot {self.token}" and not path.startswith(
                    ("/interactions/", "/webhooks/")):
                raise Refusal(401, {"message": "401: Unauthorized", "code": 0})
            body, files = await self._body(request)
            if self.fault is not None:
                refusal = self.fault(request.method, path, body)
                if refusal is not None:
                    raise refusal
            out, headers = self._route(request.method, path, body, files, request.query)
        except Refusal as exc:
            self.requests.append((request.method, path, exc.status))
            return _json(exc.body, exc.status, exc.headers)
        self.requests.append((request.method, path, 200 if out is not None else 204))
        if out is None:
            return web.Response(status=204, headers=headers)
        return _json(out, 200, headers)

    async def _body(self, request: web.Request) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
        if request.content_type == "multipart/form-data":
            payload: dict[str, Any] = {}
            files: list[tuple[str, bytes]] = []
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                assert isinstance(part, __import__("aiohttp").BodyPartReader)
                if part.name == "payload_json":
                    payload = json.loads(await part.text())
                else:
                    files.append((part.filename or "", bytes(await part.read())))
            return payload, files
        raw = await request.read()
        return (json.loads(raw) if raw else {}), []

    def _limited(self, key: str) -> dict[str, str]:
        """A message bucket (per channel): its headers; a 429 when it is spent or a storm hits."""
        now = time.monotonic()
        start, count = self._buckets.get(key, (now, 0))
        if now - start >= self.WINDOW:
            start, count = now, 0
        reset_after = max(0.001, self.WINDOW - (now - start))
        headers = {"X-RateLimit-Limit": str(self.LIMIT), "X-RateLimit-Bucket": f"bucket-{key}",
                   "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
                   "X-RateLimit-Reset-After": f"{reset_after:.3f}", "Via": "1.1 google"}
        storm = self.storm
        if count >= self.LIMIT or (storm is not None and storm.rng.random() < storm.p):
            retry = reset_after if count >= self.LIMIT else storm.rng.uniform(*storm.wait)  # type: ignore[union-attr]
            raise Refusal(429, {"message": "You are being rate limited.", "retry_after": round(retry, 3),
                                "global": False, "code": 20028},
                          {**headers, "X-RateLimit-Remaining": "0", "X-RateLimit-Scope": "shared",
                           "Retry-After": str(max(1, int(retry + 0.999)))})
        self._buckets[key] = (start, count + 1)
        return {**headers, "X-RateLimit-Remaining": str(self.LIMIT - count - 1)}

    def _route(self, method: str, path: str, body: dict[str, Any], files: list[tuple[str, bytes]],
               query: Any) -> tuple[Any, dict[str, str]]:
        if method == "GET" and path == "/users/@me":
            return self._bot(), {}
        if method == "GET" and path == "/oauth2/applications/@me":
            return {"id": str(APP_ID), "name": "bridge", "description": "", "icon": None, "bot_public": False,
                    "bot_require_code_grant": False, "owner": user_payload(1, "owner"), "verify_key": "0" * 64,
                    "flags": 0}, {}
        if method == "POST" and path == "/users/@me/channels":
            user_id = int(body["recipient_id"])
            dm = next((c for c, u in self.dm_of.items() if u == user_id), None) or self.snowflake()
            self.dm_of[dm] = user_id
            return {"id": str(dm), "type": 1, "last_message_id": None,
                    "recipients": [user_payload(user_id, self.users.get(user_id, "user"))]}, {}
        if m := re.fullmatch(r"/users/(\d+)", path):
            uid = int(m.group(1))
            return user_payload(uid, self.users.get(uid, "user")), {}
        if method == "GET" and (m := re.fullmatch(r"/channels/(\d+)", path)):
            return self.channel_payload(int(m.group(1))), {}
        if method == "PUT" and re.fullmatch(r"/applications/\d+(/guilds/\d+)?/commands", path):
            self.synced = list(body) if isinstance(body, list) else []
            return [{**c, "id": str(self.snowflake()), "application_id": str(APP_ID), "version": "1"}
                    for c in self.synced], {}
        if method == "POST" and (m := re.fullmatch(r"/channels/(\d+)/messages/(\d+)/threads", path)):
            thread = int(m.group(2))  # a thread opened on a message has the message's id
            if thread in self.threads:
                raise Refusal(400, {"code": 160004, "message": "A thread has already been created for this message"})
            self.threads[thread] = (int(m.group(1)), body["name"])
            return self.channel_payload(thread), {}
        if method == "POST" and (m := re.fullmatch(r"/channels/(\d+)/messages", path)):
            channel_id = int(m.group(1))
            headers = self._limited(f"channel-{channel_id}")
            too_long(body.get("content"))
            nonce = body.get("nonce")
            if nonce is not None and len(str(nonce)) > 25:
                raise Refusal(400, {"code": 50035, "message": "Invalid Form Body", "errors": {"nonce": {"_errors": [
                    {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 25 or fewer in length."}]}}})
            if nonce is not None and body.get("enforce_nonce"):
                # Discord: a nonce the same author used in the past few minutes answers with
                # the message it created then, and creates none
                earlier = self.nonces.get(str(nonce))
                if earlier is not None and time.monotonic() - earlier[0] < self.NONCE_WINDOW:
                    self.deduplicated += 1
                    return earlier[1], headers
            if self.dm_of.get(channel_id) in self.closed_dms:
                raise Refusal(403, {"code": 50007, "message": "Cannot send messages to this user"}, headers)
            where = f"dm:{self.dm_of[channel_id]}" if channel_id in self.dm_of else f"channel:{channel_id}"
            buttons, select = _components(body.get("components") or [])
            out = self.message_payload(channel_id, body.get("content") or "", self._bot(), body.get("components"))
            if nonce is not None:
                out["nonce"] = nonce
                self.nonces[str(nonce)] = (time.monotonic(), out)
            made = Sent(where, body.get("content") or "", buttons, select, files, int(out["id"]))
            self.sent.append(made)
            if self.accepted is not None:
                lost = self.accepted(made)
                if lost is not None:  # the message is created, but its answer never reaches the bot
                    raise lost
            return out, headers
        if method == "POST" and (m := re.fullmatch(r"/interactions/(\d+)/([^/]+)/callback", path)):
            iid = int(m.group(1))
            data = body.get("data") or {}
            too_long(data.get("content"))
            if body["type"] == 5:  # deferred ("thinking..."): the answer comes as a follow-up
                self.deferred.add(iid)
            else:
                self.responses.append(Response(iid, data.get("content") or "", bool(data.get("flags", 0) & 64)))
            if query.get("with_response") in ("true", "True", "1"):
                return {"interaction": {"id": str(iid), "type": 2, "response_message_ephemeral": True}}, {}
            return None, {}
        if method == "POST" and (m := re.fullmatch(r"/webhooks/(\d+)/([^/]+)", path)):
            # the follow-up of a deferred interaction: its webhook token is the interaction's
            iid = int(m.group(2).removeprefix("itok"))
            if iid not in self.deferred:
                raise AssertionError(f"a follow-up to interaction {iid}, which was not deferred")
            too_long(body.get("content"))
            self.responses.append(Response(iid, body.get("content") or "", bool(body.get("flags", 0) & 64)))
            return self.message_payload(0, body.get("content") or "", self._bot()), {}
        raise AssertionError(f"the fake Discord does not know {method} {path}")

    # ------------------------------------------------------------- in: gateway events

    def command(self, user_id: int, sub: str, options: list[dict[str, Any]], roles: list[int] = (),  # type: ignore[assignment]
                resolved_users: list[int] = (), channel: int = CHANNEL_ID,  # type: ignore[assignment]
                guild: int = GUILD_ID) -> int:
        """``/bw <sub> ...`` typed by ``user_id`` in ``channel`` of ``guild``; the interaction's id."""
        iid = self.snowflake()
        member = {"user": user_payload(user_id, self.users[user_id]), "roles": [str(r) for r in roles],
                  "joined_at": STAMP, "deaf": False, "mute": False, "flags": 0, "permissions": "0"}
        resolved = {
            "users": {str(u): user_payload(u, self.users[u]) for u in resolved_users},
            "members": {str(u): {"roles": [], "joined_at": STAMP, "deaf": False, "mute": False, "flags": 0,
                                 "permissions": "0"} for u in resolved_users},
        }
        data = {
            "id": str(iid), "application_id": str(APP_ID), "type": 2, "token": f"itok{iid}", "version": 1,
            "attachment_size_limit": 8 << 20, "guild_id": str(guild), "channel_id": str(channel),
            "channel": self.channel_payload(channel), "member": member, "locale": "en-US",
            "data": {"id": str(self.snowflake()), "name": "bw", "type": 1,
                     "options": [{"name": sub, "type": 1, "options": options}], "resolved": resolved},
        }
        self.client._connection.parse_interaction_create(data)  # type: ignore[arg-type]
        return iid

    def press(self, user_id: int, custom_id: str, values: list[str] | None = None) -> int:
        """``user_id`` presses a button (or picks ``values`` in a select menu) in a DM."""
        iid = self.snowflake()
        dm = next((c for c, u in self.dm_of.items() if u == user_id), None) or self.snowflake()
        data = {
            "id": str(iid), "application_id": str(APP_ID), "type": 3, "token": f"itok{iid}", "version": 1,
            "attachment_size_limit": 8 << 20, "channel_id": str(dm), "locale": "en-US",
            "channel": {"id": str(dm), "type": 1, "recipients": [user_payload(user_id, self.users[user_id])]},
            "user": user_payload(user_id, self.users[user_id]),
            "data": {"custom_id": custom_id, "component_type": 2 if values is None else 3,
                     **({} if values is None else {"values": values})},
        }
        self.client._connection.parse_interaction_create(data)  # type: ignore[arg-type]
        return iid

    def type_dm(self, user_id: int, text: str) -> None:
        """``user_id`` types ``text`` in their DM with the bot."""
        dm = next(c for c, u in self.dm_of.items() if u == user_id)
        data = self.message_payload(dm, text, user_payload(user_id, self.users[user_id]))
        self.client._connection.parse_message_create(data)  # type: ignore[arg-type]

    # ------------------------------------------------------------- reading what was sent

    def to(self, where: str) -> list[Sent]:
        return [s for s in self.sent if s.where == where]

    def response(self, interaction: int) -> Response | None:
        return next((r for r in self.responses if r.interaction == interaction), None)

    async def wait_response(self, interaction: int, timeout: float = WAIT) -> Response:
        await wait_for(lambda: self.response(interaction) is not None, timeout, f"an answer to interaction {interaction}")
        found = self.response(interaction)
        assert found is not None
        return found


async def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)
