"""The server's public API, as the bridge uses it (docs/server.md): httpx for REST,
websockets for the pushed views.  Nothing here knows a game's rules."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger("blackwhite.discord")

#: the command, run on the server, that makes the bot its own link (scope ``discord``: its
#: matches and the Discord notices), said wherever the bot's link is not that
BRIDGE_LINK_COMMAND = "blackwhite hosts new-link --scope discord --label 'discord bot'"


class ServerError(Exception):
    """A refusal of the server: its ``code`` and ``message`` (docs/server.md, "Errors")."""

    def __init__(self, status: int, code: str, message: str, unsure: bool = False) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        #: a 503 marked X-Blackwhite-Unsure: the request reached the match's server process,
        #: which stopped before answering; it may or may not have been applied
        self.unsure = unsure


class Unreachable(Exception):
    """The server did not answer (down, restarting, wrong URL)."""


@dataclass(frozen=True)
class Created:
    """What ``POST /api/matches`` answered, as the bridge keeps it."""

    id: str
    host_token: str | None  # a newly minted host's token, else None
    spectator_token: str
    seat_tokens: list[str | None]
    pages: dict[str, Any]
    summary: dict[str, Any]


class ServerApi:
    """REST calls to one ``blackwhite serve``; every refusal raises :class:`ServerError`."""

    #: waits before repeating a request the server answered 503 (``store_unavailable``, or
    #: ``owner_unavailable`` while the match's server process is taken over: it changed
    #: nothing and says the same request may be repeated; a write answered 503 "unsure"
    #: may have been applied, and is not repeated blindly: see :meth:`act`)
    RETRIES = (0.5, 1.0, 2.0, 4.0)

    def __init__(self, base_url: str, http: httpx.AsyncClient | None = None, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = http or httpx.AsyncClient(base_url=self.base_url, timeout=timeout)

    async def close(self) -> None:
        await self.http.aclose()

    async def _call(self, method: str, path: str, token: str | None = None, body: Any = None,
                    params: dict[str, Any] | None = None) -> Any:
        for wait in self.RETRIES:
            try:
                return await self._once(method, path, token, body, params)
            except ServerError as exc:
                if exc.status != 503 or (exc.unsure and method not in ("GET", "HEAD")):
                    raise
                log.info("%s %s: the server answered 503 %s; again in %.1f s", method, path, exc.code, wait)
                await asyncio.sleep(wait)
        return await self._once(method, path, token, body, params)

    async def _once(self, method: str, path: str, token: str | None, body: Any,
                    params: dict[str, Any] | None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            response = await self.http.request(method, self.base_url + path, headers=headers, json=body, params=params)
        except httpx.HTTPError as exc:
            raise Unreachable(f"{method} {path}: {str(exc) or type(exc).__name__}") from exc
        if response.status_code >= 400:
            try:
                error = response.json()["error"]
                raise ServerError(response.status_code, str(error["code"]), str(error["message"]),
                                  response.headers.get("x-blackwhite-unsure") == "1")
            except (ValueError, KeyError, TypeError):
                raise ServerError(response.status_code, "http_error", response.text[:300]) from None
        try:
            return response.json()
        except ValueError:
            raise ServerError(response.status_code, "not_json", f"{method} {path} answered no JSON") from None

    async def games(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = await self._call("GET", "/api/games")
        return out

    async def host(self, host_token: str) -> dict[str, Any]:
        """``GET /api/host``: the host the token logs in as (refused if it is none's, or revoked)."""
        out: dict[str, Any] = await self._call("GET", "/api/host", host_token)
        return out

    async def check(self, host_token: str) -> None:
        """At start: the server answers as a ``blackwhite serve`` and takes ``host_token``
        as a live host link; else :class:`ConfigError` in one line that names the setting."""
        from .config import ConfigError

        where = f"BLACKWHITE_SERVER_URL={self.base_url}"
        try:
            games = await self._once("GET", "/api/games", None, None, None)
        except Unreachable as exc:
            raise ConfigError(f"the server cannot be reached ({where}): {str(exc.__cause__) or exc}") from None
        except ServerError as exc:
            said = "no JSON" if exc.code == "not_json" else exc.status
            raise ConfigError(f"{where} is not a blackwhite server: GET /api/games answered {said}") from None
        if not isinstance(games, list) or not all(isinstance(g, dict) and "id" in g for g in games):
            raise ConfigError(f"{where} is not a blackwhite server: GET /api/games answered no list of games")
        try:
            host = await self._once("GET", "/api/host", host_token, None, None)
        except Unreachable as exc:
            raise ConfigError(f"the server cannot be reached ({where}): {str(exc.__cause__) or exc}") from None
        except ServerError as exc:
            if exc.status in (401, 403) and exc.code in ("missing_token", "wrong_token", "revoked", "expired"):
                raise ConfigError(f"the server refuses BLACKWHITE_HOST_TOKEN: {exc.message}") from None
            if exc.status not in (401, 403):
                raise ConfigError(f"the server answered GET /api/host with {exc.status}: {exc.message}") from None
            return
        if isinstance(host, dict) and host.get("scope") == "owner":
            # a leaked owner link could make links and revoke the operator's: the bot gets less
            raise ConfigError("BLACKWHITE_HOST_TOKEN is an owner link (it can make and revoke links): give the bot a"
                              f" link of its own limited to matches and its notices, `{BRIDGE_LINK_COMMAND}`"
                              " (docs/discord.md)")
        if isinstance(host, dict) and host.get("scope") == "matches":
            log.warning("BLACKWHITE_HOST_TOKEN is a matches link: the bot hosts matches but the server hands it no"
                        " notices to DM (they are the bridge's link's only); on the server run `%s` and set"
                        " BLACKWHITE_HOST_TOKEN to the link it prints (docs/discord.md)", BRIDGE_LINK_COMMAND)

    async def create(self, host_token: str | None, game: str, seats: list[dict[str, str]],
                     options: dict[str, Any], pace: dict[str, Any] | None = None) -> Created:
        body: dict[str, Any] = {"game": game, "options": options, "seats": seats}
        if pace is not None:
            body["pace"] = pace
        data = await self._call("POST", "/api/matches", host_token, body)
        return Created(
            id=data["id"], host_token=data.get("host_token"), spectator_token=data["tokens"]["spectator"],
            seat_tokens=list(data["tokens"]["seats"]), pages=data.get("pages", {}), summary=data["match"],
        )

    async def player_by_discord(self, host_token: str, discord_id: int) -> dict[str, Any]:
        """``GET /api/players/by-discord/ID``: the host's player with that Discord user id
        (ServerError 404 ``unknown_player`` when it has none)."""
        out: dict[str, Any] = await self._call("GET", f"/api/players/by-discord/{discord_id}", host_token)
        return out

    async def new_player(self, host_token: str, name: str, discord_id: int, label: str) -> tuple[str, str]:
        """``POST /api/players``: a player of the host with that Discord user id; (its id,
        the token of its first login link)."""
        out = await self._call("POST", "/api/players", host_token,
                               {"name": name, "discord_id": str(discord_id), "label": label})
        return str(out["player"]["id"]), str(out["token"])

    async def host_player_link(self, host_token: str, player_id: str, label: str) -> str:
        """``POST /api/players/ID/links``: another login link of the host's player (only
        until the player has logged in once: 409 ``claimed`` after); its token."""
        out = await self._call("POST", f"/api/players/{player_id}/links", host_token, {"label": label})
        return str(out["token"])

    async def player_link(self, player_token: str, label: str) -> tuple[str, str]:
        """``POST /api/player/links``: another login link of the token's player; (token, link)."""
        out = await self._call("POST", "/api/player/links", player_token, {"label": label})
        return str(out["token"]), str(out.get("link") or "")

    async def waiting(self, player_token: str) -> list[dict[str, Any]]:
        """``GET /api/player/waiting``: every match awaiting the player, soonest deadline first."""
        out: list[dict[str, Any]] = await self._call("GET", "/api/player/waiting", player_token)
        return out

    async def notices(self, host_token: str) -> list[dict[str, Any]]:
        """``GET /api/notify/discord``: the server's notifications for players with a Discord
        id, oldest first, each handed out until marked delivered (docs/server.md)."""
        out: list[dict[str, Any]] = await self._call("GET", "/api/notify/discord", host_token)
        return out

    async def notice_delivered(self, host_token: str, notice_id: int, dmed: bool = True) -> None:
        """Mark a notification delivered; ``dmed`` False: the bridge DMed nothing of it (it
        says every item itself), so the server's digest window counts no message."""
        await self._call("POST", f"/api/notify/discord/{notice_id}/delivered", host_token,
                         None if dmed else {"dm": False})

    async def seasons(self, host_token: str) -> list[dict[str, Any]]:
        """``GET /api/seasons``: the seasons the host runs, oldest first (id, name, visibility)."""
        out: list[dict[str, Any]] = await self._call("GET", "/api/seasons", host_token)
        return out

    async def player_seasons(self, player_token: str) -> list[dict[str, Any]]:
        """``GET /api/player/seasons``: the seasons the player is in."""
        out: list[dict[str, Any]] = await self._call("GET", "/api/player/seasons", player_token)
        return out

    async def season(self, season_id: str, token: str | None) -> dict[str, Any]:
        """``GET /api/seasons/ID`` as ``token`` may see it (None: as anyone; a season for
        its cast only refuses that, 403 ``cast_only``)."""
        out: dict[str, Any] = await self._call("GET", f"/api/seasons/{urllib.parse.quote(season_id, safe='')}",
                                               token)
        return out

    async def summary(self, match_id: str, token: str) -> dict[str, Any]:
        out: dict[str, Any] = await self._call("GET", f"/api/matches/{match_id}", token)
        return out

    async def view(self, match_id: str, token: str, render: bool = False, join: bool = True) -> dict[str, Any]:
        """The view payload; with a seat's token it *joins* the seat (counts its player as
        come, docs/server.md "The start") unless ``join=False``."""
        params: dict[str, Any] = {}
        if render:
            params["render"] = 1
        if not join:
            params["join"] = 0
        out: dict[str, Any] = await self._call("GET", f"/api/matches/{match_id}/view", token, params=params or None)
        return out

    async def act(self, match_id: str, token: str, action: str, version: int) -> dict[str, Any]:
        """A seat's action.  One answered 503 "unsure" (its server process stopped while
        answering) is sent again only while the seat's view is still at ``version``: a seat's
        own action taken always moves its version, so it is never taken twice."""
        for wait in self.RETRIES:
            try:
                out: dict[str, Any] = await self._call("POST", f"/api/matches/{match_id}/actions", token,
                                                       {"action": action, "version": version})
                return out
            except ServerError as exc:
                if not exc.unsure:
                    raise
                await asyncio.sleep(wait)
                now = await self.view(match_id, token, join=False)
                if now.get("version") != version:  # it was taken before the answer was lost
                    return {"version": now.get("version"), "view": now.get("view"), "clocks": now.get("clocks")}
        out = await self._call("POST", f"/api/matches/{match_id}/actions", token, {"action": action, "version": version})
        return out

    async def control(self, match_id: str, host_token: str, what: str) -> dict[str, Any]:
        """``pause``, ``resume`` or ``cancel``: the summary after it."""
        out: dict[str, Any] = await self._call("POST", f"/api/matches/{match_id}/{what}", host_token)
        return out

    async def add_time(self, match_id: str, host_token: str, seat: int | None, seconds: float) -> dict[str, Any]:
        """``POST .../time``: ``seconds`` more to the seat's reserve (None: to a slow match's
        hours for the whole match)."""
        out: dict[str, Any] = await self._call("POST", f"/api/matches/{match_id}/time", host_token,
                                               {"seat": seat, "seconds": seconds})
        return out

    async def record(self, match_id: str, token: str) -> dict[str, Any]:
        out: dict[str, Any] = await self._call("GET", f"/api/matches/{match_id}/record", token)
        return out

    def socket_url(self, match_id: str, token: str, render: bool, join: bool = True) -> str:
        parts = urllib.parse.urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        query = urllib.parse.urlencode({"token": token, **({"render": 1} if render else {}),
                                        **({} if join else {"join": 0})})
        return urllib.parse.urlunsplit((scheme, parts.netloc, f"{parts.path}/ws/matches/{match_id}", query, ""))

    async def views(self, match_id: str, token: str, render: bool = False, retry: float = 1.0,
                    max_retry: float = 30.0, join: bool = True) -> AsyncIterator[dict[str, Any]]:
        """Every view payload pushed to ``token``, for ever: the socket is reopened after any
        loss (either side restarting), and the server sends the current view on connect,
        so a consumer that compares versions catches up without missing a state.  Stops
        only when the server refuses the token or the match (4403, 4404).  ``join=False``
        watches a seat without joining it (its player has not come yet)."""
        import websockets

        delay = retry
        while True:
            try:
                async with websockets.connect(self.socket_url(match_id, token, render, join), max_size=None,
                                              open_timeout=10) as sock:
                    delay = retry
                    async for raw in sock:
                        message = json.loads(raw)
                        if message.get("type") == "view":
                            yield message
            except websockets.exceptions.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                if code in (4403, 4404):
                    log.warning("match %s refused the socket (%s): stopping", match_id, code)
                    return
            except (OSError, asyncio.TimeoutError, websockets.exceptions.InvalidHandshake,
                    websockets.exceptions.InvalidURI) as exc:
                log.info("match %s: socket lost (%r); reconnecting in %.1f s", match_id, exc, delay)
            await asyncio.sleep(delay)
            delay = min(max_retry, delay * 2)
