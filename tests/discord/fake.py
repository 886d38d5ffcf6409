"""A fake Discord for the bridge's tests: discord.py's own objects, no network.

- Out: the client's ``HTTPClient.request`` (every REST call discord.py makes: messages,
  DMs, users, channels) and the webhook adapter that answers interactions are replaced
  by recorders that answer with payloads shaped as Discord's.
- In: gateway events (a slash command, a button press, a DM) are fed to discord.py's
  own parser (``ConnectionState.parse_interaction_create`` / ``parse_message_create``),
  which builds the Interaction and Message objects and dispatches them as the gateway
  would.

Every message the bot sends is a :class:`Sent`: where (``channel:<id>`` or
``dm:<user id>``), its text, its components and its files.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
import discord.webhook.async_ as webhook_async
from discord.http import Route

APP_ID = 900_000_000_000_000_001
BOT_ID = 900_000_000_000_000_002
GUILD_ID = 900_000_000_000_000_003
CHANNEL_ID = 900_000_000_000_000_004
HOST_ROLE_ID = 900_000_000_000_000_005
HOST_ROLE = "bw hosts"
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


class FakeDiscord:
    """The recording transport of one :class:`discord.Client` (patched in place)."""

    def __init__(self, client: discord.Client, users: dict[int, str]) -> None:
        self.client = client
        self.users = dict(users)
        self.sent: list[Sent] = []
        self.responses: list[Response] = []
        self._ids = itertools.count(int(time.time() * 1000) << 22)
        self.dm_of: dict[int, int] = {}  # DM channel id -> user id
        self.threads: dict[int, tuple[int, str]] = {}  # thread id -> (parent channel, name)
        self.closed_dms: set[int] = set()  # users who do not accept DMs from the bot
        self.synced: list[dict[str, Any]] = []  # the slash commands registered with Discord
        self.deferred: set[int] = set()  # interactions answered "thinking...", to be followed up
        client.http.request = self.request  # type: ignore[method-assign]

    def snowflake(self) -> int:
        return next(self._ids)

    async def start(self) -> None:
        """What logging in would have done: the loop, the bot's own user, the guild with its roles."""
        await self.client._async_setup_hook()
        state = self.client._connection
        state.user = discord.ClientUser(state=state, data={**user_payload(BOT_ID, "bridge"), "bot": True})  # type: ignore[arg-type]
        state.application_id = APP_ID
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
        webhook_async.async_context.set(FakeAdapter(self))  # type: ignore[arg-type]

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

    # ------------------------------------------------------------- out: discord.py's REST calls

    async def request(self, route: Route, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        method, path = route.method, route.path
        params = route.__dict__
        if method == "POST" and path == "/users/@me/channels":
            user_id = int(kwargs["json"]["recipient_id"])
            dm = next((c for c, u in self.dm_of.items() if u == user_id), None) or self.snowflake()
            self.dm_of[dm] = user_id
            return {"id": str(dm), "type": 1, "last_message_id": None,
                    "recipients": [user_payload(user_id, self.users.get(user_id, "user"))]}
        if method == "GET" and path == "/users/{user_id}":
            uid = int(route.url.rsplit("/", 1)[1])
            return user_payload(uid, self.users.get(uid, "user"))
        if method == "GET" and path == "/channels/{channel_id}":
            return self.channel_payload(int(route.url.rsplit("/", 1)[1]))
        if method == "PUT" and path in ("/applications/{application_id}/commands",
                                        "/applications/{application_id}/guilds/{guild_id}/commands"):
            self.synced = kwargs["json"]
            return [{**c, "id": str(self.snowflake()), "application_id": str(APP_ID), "version": "1"}
                    for c in self.synced]
        if method == "POST" and path == "/channels/{channel_id}/messages/{message_id}/threads":
            parent = int(route.url.split("/channels/")[1].split("/")[0])
            thread = self.snowflake()
            self.threads[thread] = (parent, kwargs["json"]["name"])
            return self.channel_payload(thread)
        if method == "POST" and path == "/channels/{channel_id}/messages":
            channel_id = int(route.url.split("/channels/")[1].split("/")[0])
            payload = kwargs.get("json")
            got_files: list[tuple[str, bytes]] = []
            if form is not None:
                for part in form:
                    if part["name"] == "payload_json":
                        payload = json.loads(part["value"])
                    else:
                        value = part["value"]
                        got_files.append((part["filename"], value.read() if hasattr(value, "read") else value))
            assert payload is not None
            too_long(payload.get("content"))
            if self.dm_of.get(channel_id) in self.closed_dms:
                raise discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"),  # type: ignore[arg-type]
                                        {"code": 50007, "message": "Cannot send messages to this user"})
            where = f"dm:{self.dm_of[channel_id]}" if channel_id in self.dm_of else f"channel:{channel_id}"
            buttons, select = _components(payload.get("components", []))
            out = self.message_payload(channel_id, payload.get("content") or "",
                                       {**user_payload(BOT_ID, "bridge"), "bot": True}, payload.get("components"))
            self.sent.append(Sent(where, payload.get("content") or "", buttons, select, got_files, int(out["id"])))
            return out
        raise AssertionError(f"the fake Discord does not know {method} {path} ({params.get('url')})")

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


class FakeAdapter(webhook_async.AsyncWebhookAdapter):
    """Interaction answers (they go through discord.py's webhook adapter, not HTTPClient)."""

    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__()
        self.fake = fake

    async def request(self, route: Route, session: Any, *, payload: Any = None, multipart: Any = None,
                      files: Any = None, **kwargs: Any) -> Any:
        if route.method == "POST" and route.path == "/webhooks/{webhook_id}/{webhook_token}":
            # the follow-up of a deferred interaction: its webhook token is the interaction's
            token = route.url.split("/webhooks/")[1].split("/")[1]
            iid = int(token.removeprefix("itok"))
            if iid not in self.fake.deferred:
                raise AssertionError(f"a follow-up to interaction {iid}, which was not deferred")
            if payload is None and multipart:
                payload = json.loads(next(p["value"] for p in multipart if p["name"] == "payload_json"))
            too_long(payload.get("content"))
            self.fake.responses.append(Response(iid, payload.get("content") or "", bool(payload.get("flags", 0) & 64)))
            return self.fake.message_payload(0, payload.get("content") or "", {**user_payload(BOT_ID, "bridge"), "bot": True})
        if route.path != "/interactions/{webhook_id}/{webhook_token}/callback":
            raise AssertionError(f"the fake Discord does not know the webhook call {route.method} {route.path}")
        iid = int(route.url.split("/interactions/")[1].split("/")[0])
        data = payload.get("data") or {}
        if payload["type"] == 5:  # deferred ("thinking..."): the answer comes as a follow-up
            self.fake.deferred.add(iid)
        else:
            self.fake.responses.append(Response(iid, data.get("content") or "", bool(data.get("flags", 0) & 64)))
        return {"interaction": {"id": str(iid), "type": 2, "response_message_ephemeral": True}}


def too_long(content: str | None) -> None:
    """Discord's answer to a message over 2,000 characters: 400, code 50035 (Invalid Form Body)."""
    if content is not None and len(content) > 2000:
        raise discord.HTTPException(SimpleNamespace(status=400, reason="Bad Request"),  # type: ignore[arg-type]
                                    {"code": 50035, "message": "Invalid Form Body",
                                     "errors": {"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                                                                         "message": "Must be 2000 or fewer in length."}]}}})


async def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.02)
