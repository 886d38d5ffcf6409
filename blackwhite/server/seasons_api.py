"""The seasons' HTTP routes (docs/seasons.md): a host runs a season, a player acts for
themselves in it, anyone the season's visibility allows reads it.

A host's routes take a host token of the season's host or a co-host; a player's take
the player's own login (``Authorization: Bearer`` or ``?token=``); a host may act for a
cast member by naming ``player``.  Every refusal is the API's error body and changes
nothing (the ledger appends all of a request's entries or none).
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from .service_seasons import SeasonService


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CastIn(_Body):
    """A player of this server (``player``: its id), or someone without a login here (``name``)."""

    player: Optional[str] = Field(default=None, max_length=32)
    name: Optional[str] = Field(default=None, max_length=200)


class RulesIn(_Body):
    #: the death match's loser's garnets go to its winner
    loser_garnets_to_winner: bool = True
    #: a Token of Life protects for its round only (else for the rest of the season)
    tokens_one_round: bool = True
    #: players left for the final (the finals are two-seat games)
    finalists: int = 2
    #: who reads each player's garnets: everyone who reads the season, or the hosts only
    transfers: Literal["public", "host"] = "public"
    #: seconds the Elimination Candidate has to choose an opponent (then a host chooses)
    choose_seconds: float = Field(default=86_400.0, allow_inf_nan=False)


class SeasonIn(_Body):
    name: str = Field(max_length=100)
    cast: list[CastIn] = Field(max_length=64)
    #: garnets each player starts with
    garnets: int = Field(default=0, ge=0, le=1_000_000)
    rules: RulesIn = Field(default_factory=RulesIn)
    #: who reads the season: anyone with its address, or its cast and hosts only
    visibility: Literal["public", "cast"] = "public"


class CohostIn(_Body):
    host: str = Field(max_length=32)
    add: bool = True


class TransferIn(_Body):
    to: str = Field(max_length=32)
    garnets: int = Field(gt=0, le=1_000_000)
    #: a host giving for a cast member names them; a player gives only their own
    player: Optional[str] = Field(default=None, max_length=32)


class AwardIn(_Body):
    player: str = Field(max_length=32)
    #: above 0 for an award; any non-zero number for a correction
    garnets: int = Field(ge=-1_000_000, le=1_000_000)
    note: str = Field(default="", max_length=200)
    #: a host's correction of a holding (a new ledger entry, never an edit)
    correction: bool = False


class RecordedMainIn(_Body):
    """A main match played elsewhere."""

    tokens: list[str] = Field(max_length=64)
    candidate: str = Field(max_length=32)
    #: who played (left out: everyone still in)
    seats: Optional[list[str]] = Field(default=None, max_length=64)
    #: garnets won, by player
    awards: dict[str, int] = Field(default_factory=dict)
    game: str = Field(default="elsewhere", max_length=32)
    note: str = Field(default="", max_length=200)


class RunMainIn(_Body):
    """A Black and Yellow on the server."""

    #: three players (left out: the three still in)
    players: Optional[list[str]] = Field(default=None, max_length=3)
    #: the game's options (its garnets come from the ledger)
    options: dict[str, Any] = Field(default_factory=dict)
    #: bots standing in for players: {player: bot spec}
    bots: dict[str, str] = Field(default_factory=dict)


class OpponentIn(_Body):
    player: str = Field(max_length=32)


class DuelIn(_Body):
    """A death match or the final: on the server (``game``, ``options``, ``bots``), or
    played elsewhere (``winner``: its result)."""

    game: Optional[str] = Field(default=None, max_length=64)
    options: dict[str, Any] = Field(default_factory=dict)
    bots: dict[str, str] = Field(default_factory=dict)
    winner: Optional[str] = Field(default=None, max_length=32)


class VoidIn(_Body):
    match: str = Field(max_length=40)
    note: str = Field(default="", max_length=200)


class FinalGameIn(_Body):
    game: str = Field(max_length=64)


class DraftIn(_Body):
    items: list[str] = Field(max_length=16)
    player: Optional[str] = Field(default=None, max_length=32)


class ImportIn(_Body):
    """A season's export (its ``records`` may be left out: they are not imported)."""

    model_config = ConfigDict(extra="allow", strict=True)
    format: str = Field(max_length=40)
    ledger: list[dict[str, Any]]


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return request.query_params.get("token") or None


def install(app: FastAPI, seasons: SeasonService) -> None:
    """Add the seasons' routes to the API."""
    app.state.seasons = seasons

    @app.post("/api/seasons", status_code=201, tags=["seasons"])
    async def create_season(body: SeasonIn, request: Request) -> dict[str, Any]:
        """A host creates a season: its cast, starting garnets, rules and visibility."""
        cast = [m.model_dump(exclude_none=True) for m in body.cast]
        return await seasons.create(_token(request), body.name, cast, body.garnets, body.rules.model_dump(),
                                    body.visibility)

    @app.get("/api/seasons", tags=["seasons"])
    async def list_seasons(request: Request) -> list[dict[str, Any]]:
        """The seasons the token's host runs or co-hosts."""
        return await seasons.seasons(_token(request))

    @app.get("/api/player/seasons", tags=["seasons"])
    async def my_seasons(request: Request) -> list[dict[str, Any]]:
        """The seasons the player's login is in: each with their own standing and ``your_turn``
        (the opponent to choose, or an item to pick)."""
        return await seasons.player_seasons(_token(request))

    @app.post("/api/seasons/import", status_code=201, tags=["seasons"])
    async def import_season(body: ImportIn, request: Request) -> dict[str, Any]:
        """A season exported from another server, as a new season of the token's host (its
        ledger replayed and checked whole)."""
        return await seasons.import_season(_token(request), body.model_dump())

    @app.get("/api/seasons/{season_id}", tags=["seasons"])
    async def get_season(season_id: str, request: Request) -> dict[str, Any]:
        """The season as the token may see it: phase, round, standings, matches."""
        return await seasons.view(season_id, _token(request))

    @app.get("/api/seasons/{season_id}/ledger", tags=["seasons"])
    async def season_ledger(season_id: str, request: Request) -> list[dict[str, Any]]:
        """Every ledger entry, in order (with host-only transfers, others' garnets hidden)."""
        return await seasons.ledger(season_id, _token(request))

    @app.get("/api/seasons/{season_id}/standings.csv", tags=["seasons"],
             responses={200: {"content": {"text/csv": {}}}})
    async def season_csv(season_id: str, request: Request) -> Response:
        """The standings as CSV: place, player, name, garnets, tokens, eliminated_round."""
        return Response(await seasons.standings_csv(season_id, _token(request)), media_type="text/csv")

    @app.get("/api/seasons/{season_id}/export", tags=["seasons"])
    async def export_season(season_id: str, request: Request) -> dict[str, Any]:
        """The whole season (hosts): ``ledger``, ``standings``, ``records``."""
        return await seasons.export(season_id, _token(request))

    @app.post("/api/seasons/{season_id}/cohosts", tags=["seasons"])
    async def season_cohost(season_id: str, body: CohostIn, request: Request) -> dict[str, Any]:
        """The season's own host names (or drops) a co-host."""
        return await seasons.set_cohost(season_id, _token(request), body.host, body.add)

    @app.post("/api/seasons/{season_id}/transfers", tags=["seasons"])
    async def season_transfer(season_id: str, body: TransferIn, request: Request) -> dict[str, Any]:
        """A player gives garnets to another, at once, never below zero."""
        return await seasons.transfer(season_id, _token(request), body.to, body.garnets, body.player)

    @app.post("/api/seasons/{season_id}/awards", tags=["seasons"])
    async def season_award(season_id: str, body: AwardIn, request: Request) -> dict[str, Any]:
        """A host awards garnets, or corrects a holding (``correction``)."""
        return await seasons.award(season_id, _token(request), body.player, body.garnets, body.note,
                                   body.correction)

    @app.post("/api/seasons/{season_id}/main", tags=["seasons"])
    async def season_recorded_main(season_id: str, body: RecordedMainIn, request: Request) -> dict[str, Any]:
        """A host records a main match played elsewhere: tokens, garnets won, the candidate."""
        return await seasons.record_main(season_id, _token(request), body.tokens, body.candidate, body.seats,
                                         body.awards, body.game, body.note)

    @app.post("/api/seasons/{season_id}/main/run", tags=["seasons"])
    async def season_run_main(season_id: str, body: RunMainIn, request: Request) -> dict[str, Any]:
        """A host runs the round's Black and Yellow on the server (garnets from the ledger)."""
        return await seasons.run_main(season_id, _token(request), body.players, body.options, body.bots)

    @app.post("/api/seasons/{season_id}/opponent", tags=["seasons"])
    async def season_opponent(season_id: str, body: OpponentIn, request: Request) -> dict[str, Any]:
        """The candidate (with their own login, before the deadline) or a host chooses the opponent."""
        return await seasons.choose_opponent(season_id, _token(request), body.player)

    @app.post("/api/seasons/{season_id}/death", tags=["seasons"])
    async def season_death(season_id: str, body: DuelIn, request: Request) -> dict[str, Any]:
        """A host makes the death match (any installed two-seat game), or enters its result."""
        return await seasons.death_match(season_id, _token(request), body.game or "elsewhere", body.options,
                                         body.bots, winner=body.winner)

    @app.post("/api/seasons/{season_id}/void", tags=["seasons"])
    async def season_void(season_id: str, body: VoidIn, request: Request) -> dict[str, Any]:
        """A host voids the season's newest match and all that followed it (a correction)."""
        return await seasons.void(season_id, _token(request), body.match, body.note)

    @app.post("/api/seasons/{season_id}/final/game", tags=["seasons"])
    async def season_final_game(season_id: str, body: FinalGameIn, request: Request) -> dict[str, Any]:
        """A host sets the final's game (a two-seat game with items)."""
        return await seasons.final_game(season_id, _token(request), body.game)

    @app.post("/api/seasons/{season_id}/draft", tags=["seasons"])
    async def season_draft(season_id: str, body: DraftIn, request: Request) -> dict[str, Any]:
        """A finalist's pick of the final's items, in turn."""
        return await seasons.draft(season_id, _token(request), body.items, body.player)

    @app.post("/api/seasons/{season_id}/final", tags=["seasons"])
    async def season_final(season_id: str, body: DuelIn, request: Request) -> dict[str, Any]:
        """A host makes the final with the drafted items, or enters its result."""
        return await seasons.final(season_id, _token(request), body.options, body.bots, winner=body.winner)
