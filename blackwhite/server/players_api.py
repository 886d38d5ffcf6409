"""The players' HTTP routes (docs/server.md, "Players"): a host's players, a player's own
identity, links, matches and waiting list, and binding a match's seat to a player.

A host's routes take a host token, a player's a player token (``Authorization: Bearer``
or ``?token=``); every refusal is the API's error body, changing nothing.
"""

from __future__ import annotations

from typing import Any, Optional

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from .errors import NotPermitted
from .players import PlayerService


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PlayerIn(_Body):
    #: the player's display name (1-64 printable characters)
    name: str = Field(max_length=200)
    #: the player's Discord user id (a snowflake), so the Discord bridge maps them; unique on the server
    discord_id: Optional[str] = Field(default=None, max_length=40)
    #: where the player's notifications go (the player may change it)
    email: Optional[str] = Field(default=None, max_length=300)
    #: what the first login link is for, as the player's list of links shows it
    label: Optional[str] = Field(default=None, max_length=64)


class PlayerChangeIn(_Body):
    """Only the fields given change; ``null`` clears ``email`` or ``discord_id``."""

    name: Optional[str] = Field(default=None, max_length=200)
    email: Optional[str] = Field(default=None, max_length=300)
    discord_id: Optional[str] = Field(default=None, max_length=40)


class PlayerLinkIn(_Body):
    label: Optional[str] = Field(default=None, max_length=64)
    #: seconds from now after which it logs in no more (left out: never)
    expires_in: Optional[float] = Field(default=None, gt=0, le=10 * 365 * 86400, allow_inf_nan=False)


class HostPlayerLinkIn(_Body):
    label: Optional[str] = Field(default=None, max_length=64)


class BindIn(_Body):
    #: the player (its id) the seat is bound to: one the host made
    player: str = Field(max_length=32)


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return request.query_params.get("token") or None


def install(app: FastAPI, players: PlayerService, public: str | None) -> None:
    """Add the players' routes to the API (``public``: the server's public origin, for links)."""
    app.state.players = players

    def base(request: Request) -> str:
        return public or str(request.base_url).rstrip("/")

    def with_link(request: Request, made: dict[str, Any]) -> dict[str, Any]:
        made["link"] = f"{base(request)}/me?token={made['token']}"
        return made

    # ----------------------------------------------------------- a host's players

    @app.post("/api/players", status_code=201, tags=["players"])
    async def create_player(body: PlayerIn, request: Request) -> dict[str, Any]:
        """A host makes a player: 201 ``{"player", "token", "link", "link_id"}``; the token (the
        player's first login link, shown only here) logs in for a week unless used first."""
        made = await players.create(_token(request), body.name, body.discord_id, body.email, body.label,
                                    request.client.host if request.client else None)
        return with_link(request, {"player": made.player, "token": made.token, "link_id": made.link_id})

    @app.get("/api/players", tags=["players"])
    async def list_players(request: Request) -> list[dict[str, Any]]:
        """The players the token's host made, oldest first."""
        return await players.host_players(_token(request))

    @app.get("/api/players/by-discord/{discord_id}", tags=["players"])
    async def player_by_discord(discord_id: str, request: Request) -> dict[str, Any]:
        """The host's player with that Discord user id (404 ``unknown_player`` if none)."""
        return await players.by_discord(_token(request), discord_id)

    @app.get("/api/players/{player_id}", tags=["players"])
    async def get_player(player_id: str, request: Request) -> dict[str, Any]:
        """One of the host's players."""
        return await players.host_player(_token(request), player_id)

    @app.patch("/api/players/{player_id}", tags=["players"])
    async def change_player(player_id: str, body: PlayerChangeIn, request: Request) -> dict[str, Any]:
        """The host changes its player's name, Discord id or email, until the player has logged in (409 ``claimed``)."""
        return await players.host_change(_token(request), player_id, body.model_dump(exclude_unset=True))

    @app.get("/api/players/{player_id}/waiting", tags=["players"])
    async def host_player_waiting(player_id: str, request: Request) -> list[dict[str, Any]]:
        """The waiting list of one of the host's players, as the player's own (the Discord bridge's ``/bw moves``)."""
        return await players.host_waiting(_token(request), player_id)

    @app.post("/api/players/{player_id}/links", status_code=201, tags=["players"])
    async def host_player_link(player_id: str, request: Request,
                               body: Optional[HostPlayerLinkIn] = None) -> dict[str, Any]:
        """Another login link of the host's player, until the player has logged in (409 ``claimed``)."""
        made = await players.host_link(_token(request), player_id, body.label if body else None)
        return with_link(request, made)

    @app.post("/api/players/{player_id}/links/{link_id}/revoke", tags=["players"])
    async def host_revoke_player_link(player_id: str, link_id: str, request: Request) -> dict[str, Any]:
        """Revoke a link the host made for its player."""
        return await players.host_revoke(_token(request), player_id, link_id)

    @app.post("/api/matches/{match_id}/seats/{seat}/player", tags=["players"])
    async def bind_seat(match_id: str, seat: int, body: BindIn, request: Request) -> dict[str, Any]:
        """The host binds a person's seat to one of its players, before the seat is opened and
        the match starts (409 ``seat_taken`` after); the seat's link opens it no more.
        Answers ``{"match", "seats": [player id or null]}``."""
        return await players.bind(_token(request), match_id, seat, body.player)

    @app.get("/api/matches/{match_id}/players", tags=["players"])
    async def match_players(match_id: str, request: Request) -> dict[str, Any]:
        """Per seat, the player bound to it (null: none); for the match's host only (who
        plays whom across matches is no spectator's business)."""
        match = await players.matches.find(match_id)
        if (await players.matches.role_for(match, _token(request))).kind != "host":
            raise NotPermitted("wrong_token", f"only the host of match {match.id} sees who its players are")
        return {"match": match.id, "seats": await players.bindings(match.id)}

    # ----------------------------------------------------------- a player's own

    @app.get("/api/player", tags=["player"])
    async def me(request: Request) -> dict[str, Any]:
        """The token's player: ``{"id", "name", "discord_id", "email", "host", "created", "claimed", "links"}``."""
        return await players.me(_token(request))

    @app.patch("/api/player", tags=["player"])
    async def change_me(body: PlayerChangeIn, request: Request) -> dict[str, Any]:
        """Rename yourself, set or clear your email, clear your Discord id (setting one: 403 ``scope``)."""
        return await players.change(_token(request), body.model_dump(exclude_unset=True))

    @app.post("/api/player/links", status_code=201, tags=["player"])
    async def my_new_link(request: Request, body: Optional[PlayerLinkIn] = None) -> dict[str, Any]:
        """Another login link of yours (its token is shown only here)."""
        made = await players.new_link(_token(request), body.label if body else None, body.expires_in if body else None)
        return with_link(request, made)

    @app.post("/api/player/links/{link_id}/revoke", tags=["player"])
    async def my_revoke(link_id: str, request: Request) -> dict[str, Any]:
        """Revoke one of your links (the one in use too)."""
        return await players.revoke(_token(request), link_id)

    @app.get("/api/player/matches", tags=["player"])
    async def my_matches(request: Request) -> dict[str, Any]:
        """Your page as data: ``{"player", "matches", "invitations", "waiting", "seasons"}``, "your move" first."""
        return await players.matches_of(_token(request))

    @app.get("/api/player/waiting", tags=["player"])
    async def my_waiting(request: Request) -> list[dict[str, Any]]:
        """Every match awaiting you (your move, or your joining), soonest deadline first."""
        return await players.waiting(_token(request))
