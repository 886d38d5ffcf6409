"""The notifications' routes: a message's single-use link, its one-click unsubscribe,
and a page's Web Push subscription (docs/server.md, "Notifications")."""

from __future__ import annotations

import asyncio
import html
import re
from typing import Annotated, Any, Optional

from fastapi import FastAPI, Request
from fastapi import Path as FastPath
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from .errors import Invalid, NotPermitted
from .notify import CHANNELS, Notifier
from .store import token_hash
from .notify_store import NotBridgeOwn

RECIPIENT = re.compile(r"^[0-9a-f]{32}$")


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    """A plain page of a sentence or a form (no script: nothing to trust)."""
    text = (f"<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
            f"<title>{html.escape(title)} · blackwhite</title><body style='font-family:sans-serif;max-width:36em;"
            f"margin:2em auto;padding:0 1em'><h1>{html.escape(title)}</h1>{body}</body></html>")
    return HTMLResponse(text, status_code=status, headers={
        "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"})


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PushKeys(_Body):
    p256dh: str = Field(min_length=40, max_length=200, pattern=r"^[A-Za-z0-9_=-]+$")
    auth: str = Field(min_length=8, max_length=100, pattern=r"^[A-Za-z0-9_=-]+$")


class PushIn(_Body):
    """A page's ``PushSubscription`` as ``toJSON()`` gives it."""

    endpoint: str = Field(min_length=8, max_length=2000, pattern=r"^https?://")
    keys: PushKeys
    expirationTime: Optional[float] = None


class ChannelsIn(_Body):
    email: Optional[bool] = None
    push: Optional[bool] = None
    discord: Optional[bool] = None


class PushOut(_Body):
    endpoint: str = Field(max_length=2000)


class DeliveredIn(_Body):
    """How the bridge delivered a message: ``dm`` false when it DMed nothing (every item
    was one it DMs the user itself)."""

    dm: bool = True


def install(app: FastAPI, notifier: Notifier) -> None:
    """Add the routes to ``app`` (the API's)."""
    service = notifier.service

    @app.get("/notify/open/{token}", include_in_schema=False)
    async def open_link(token: str) -> Response:
        """A message's link: spent once, it gives the seat a fresh key and opens its page."""
        found = await notifier.open_link(token) if len(token) <= 64 else None
        if found is None:
            return _page("This link was used already", "<p>Each link in a message opens its page once, and for "
                         "two weeks at most. The next message brings a fresh one; your host has your seat's own "
                         "link too.</p>", 403)
        match_id, key = found
        return RedirectResponse(f"/play/{match_id}?token={key}", status_code=303,
                                headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    def _check(recipient: str, channel: str, signature: str) -> bool:
        return bool(RECIPIENT.match(recipient)) and channel in CHANNELS and notifier.signed(recipient, channel,
                                                                                            signature)

    @app.get("/notify/unsubscribe/{recipient}/{channel}/{signature}", include_in_schema=False)
    async def unsubscribe_page(recipient: str, channel: str, signature: str) -> Response:
        if not _check(recipient, channel, signature):
            return _page("Not a link of this server", "<p>This unsubscribe link is not one this server made.</p>", 404)
        what = {"email": "emails", "push": "browser notifications", "discord": "Discord messages"}[channel]
        return _page("Stop these messages?", f"<form method=post><p>No more {what} about your matches from this "
                     f"server.</p><button type=submit>Unsubscribe</button></form>")

    @app.post("/notify/unsubscribe/{recipient}/{channel}/{signature}", include_in_schema=False)
    async def unsubscribe(recipient: str, channel: str, signature: str) -> Response:
        """One click (RFC 8058: a mail program posts ``List-Unsubscribe=One-Click`` here)."""
        if not _check(recipient, channel, signature):
            return _page("Not a link of this server", "<p>This unsubscribe link is not one this server made.</p>", 404)
        await notifier.unsubscribe(recipient, channel)
        what = {"email": "emails", "push": "browser notifications", "discord": "Discord messages"}[channel]
        return _page("Unsubscribed", f"<p>You will get no more {what} about your matches from this server.</p>")

    @app.get("/api/notify/push")
    async def push_key() -> dict[str, Any]:
        """The server's VAPID public key (``applicationServerKey``), or null without Web Push."""
        return {"key": notifier.vapid_public}

    def _endpoint(endpoint: str) -> None:
        try:
            notifier.check_endpoint(endpoint)
        except ValueError as exc:
            raise Invalid("bad_push", str(exc)) from None

    async def _seat(match_id: str, request: Request) -> int:
        from .app import request_token

        match = await service.find(match_id)
        role = await service.role_for(match, request_token(request))
        if role.kind != "seat" or role.seat is None:
            raise NotPermitted("wrong_token", "only a seat's own token subscribes its notifications")
        if "bot" in match.seats[role.seat]:
            raise NotPermitted("wrong_token", "a bot's seat is told nothing")
        return role.seat

    @app.post("/api/matches/{match_id}/push", status_code=201)
    async def subscribe(match_id: str, body: PushIn, request: Request) -> dict[str, Any]:
        """The seat's page subscribes this browser to Web Push (the player said yes)."""
        _endpoint(body.endpoint)
        seat = await _seat(match_id, request)
        # a seat bound to a player is the player's: this browser is told of all its matches,
        # so only the player's own login subscribes it (a message's key is one seat's: it
        # must not become a link to every seat of the player)
        holder = await asyncio.to_thread(notifier.store.holder, match_id, seat)
        if holder is not None:
            from .app import request_token

            players = getattr(app.state, "players", None)
            login = None if players is None else await asyncio.to_thread(
                players.store.login_of, token_hash(request_token(request) or ""))
            if login is None or login.player_id != holder:
                raise NotPermitted("wrong_token", "a player's seat is told in the player's own browsers: subscribe "
                                                  "with the player's login (their page), not a message's link")
        who = f"player:{holder}" if holder is not None else f"seat:{match_id}:{seat}"
        await notifier.subscribe(who, body.endpoint, body.keys.p256dh, body.keys.auth)
        return {"seat": seat, "subscribed": True}

    # ----------------------------------------------------------- a player's channels

    async def _player(request: Request) -> str:
        from .app import request_token

        players = getattr(app.state, "players", None)
        if players is None:
            raise Invalid("no_players", "this server has no players")
        token = request_token(request)
        login, row = await players.login(token)
        await players._used(login, token)
        return str(row.id)

    @app.get("/api/player/notify", tags=["player"])
    async def my_channels(request: Request) -> dict[str, Any]:
        """Your channels: ``{"email", "push", "discord"}`` each on or off (on unless you
        turned it off), whether this server sends email, and the Web Push key."""
        return await notifier.player_channels(await _player(request))

    @app.patch("/api/player/notify", tags=["player"])
    async def set_my_channels(body: ChannelsIn, request: Request) -> dict[str, Any]:
        """Turn channels on or off (an unsubscribe link turns one off too)."""
        player = await _player(request)
        await notifier.set_player_channels(player, body.model_dump(exclude_none=True))
        return await notifier.player_channels(player)

    @app.post("/api/player/push", status_code=201, tags=["player"])
    async def player_subscribe(body: PushIn, request: Request) -> dict[str, Any]:
        """Your page subscribes this browser to Web Push (you said yes)."""
        _endpoint(body.endpoint)
        player = await _player(request)
        await notifier.subscribe(f"player:{player}", body.endpoint, body.keys.p256dh, body.keys.auth)
        await notifier.set_player_channels(player, {"push": True})
        return await notifier.player_channels(player)

    @app.post("/api/player/push/delete", tags=["player"])
    async def player_unsubscribe(body: PushOut, request: Request) -> dict[str, Any]:
        player = await _player(request)
        await notifier.withdraw(body.endpoint, f"player:{player}")
        return await notifier.player_channels(player)

    # ----------------------------------------------------------- the Discord bridge

    async def _bridge(request: Request) -> str:
        """The bridge's host (the server's own) by the bridge's link (scope ``discord``) or
        an owner link, or refused (:meth:`~.service_hosts.HostsPart.bridge_login`)."""
        from .app import request_token

        return (await service.hosts.bridge_login(request_token(request), "reading the Discord notices")).host_id

    @app.get("/api/notify/discord", tags=["notify"])
    async def discord_dms(request: Request) -> list[dict[str, Any]]:
        """Notifications for the Discord bridge to DM, oldest first: ``[{"id", "discord_id",
        "subject", "text", "items": [{"text", "link", "match", "kind", "title", "subject"}],
        "unsubscribe", "created"}]``; each stays here until marked delivered (for two days
        at most).  An item's ``match`` and ``kind`` let the bridge leave out what it DMs
        the user itself (the prompts of its own matches)."""
        await _bridge(request)
        return await notifier.dms()

    @app.post("/api/notify/discord/{dm_id}/delivered", tags=["notify"])
    async def discord_delivered(dm_id: Annotated[int, FastPath(ge=1, le=2**31 - 1)], request: Request,
                                body: Optional[DeliveredIn] = None) -> dict[str, Any]:
        """The bridge DMed it: it is not handed out again.  ``{"dm": false}``: the bridge
        DMed nothing of it (it says every item itself), so it holds no later message back
        in the digest window; only a message of the invitations, prompts and ends of the
        bridge's host's matches can be (403 ``scope`` otherwise, nothing marked).
        ``delivered``: whether this call marked it."""
        host_id = await _bridge(request)
        try:
            return {"id": dm_id, "delivered": await notifier.dm_delivered(dm_id, body is None or body.dm, host_id)}
        except NotBridgeOwn:
            raise NotPermitted("scope", f"message {dm_id} says more than the bridge DMs itself (the invitation, "
                                        "prompts and end of its host's matches): mark it delivered without "
                                        '{"dm": false}') from None

    @app.post("/api/matches/{match_id}/push/delete")
    async def unsubscribe_push(match_id: str, body: PushOut, request: Request) -> dict[str, Any]:
        """The page withdraws this browser's subscription."""
        seat = await _seat(match_id, request)
        holder = await asyncio.to_thread(notifier.store.holder, match_id, seat)
        await notifier.withdraw(body.endpoint, f"player:{holder}" if holder is not None else f"seat:{match_id}:{seat}")
        return {"subscribed": False}
