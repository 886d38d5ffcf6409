"""Player identities: a player's login, links, seats, page and waiting list.

A player is made by a host (or by the operator, ``blackwhite players new``) and gets a
login link, as a host does; a match's seat may be bound to a player, who then plays
it from their own page with their own login instead of a seat link.  Who may do what
(docs/server.md, "Players"), failing closed:

* a host makes players (its own: only it seats them), within a bound: an anonymous
  host (made by its first match) and the anonymous hosts of one address together
  :data:`~blackwhite.server.players_store.MAX_ANONYMOUS_PLAYERS`, a host the operator
  made :data:`~blackwhite.server.players_store.MAX_HOST_PLAYERS`;
* the link a host gets logs in for a week unless used first; until the player has
  logged in once (*claimed* itself) the host may make it another, revoke the ones it
  made, and set its Discord id; after that, only the player (or the operator on the
  server's machine) manages the player's links;
* a player renames itself, sets or clears its email, clears (never sets) its Discord
  id, makes and revokes its own links, and acts only for the seats bound to it.

A player's page is built only from each of its seats' views (:meth:`MatchService.view_payload`
with the seat's role): what a seat link would be shown, nothing more.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from typing import Any

from ..engine import Pace, PaceError
from . import clocks as clk
from .errors import Invalid, NotPermitted, OverQuota, Refused, Unauthenticated, Unknown, WrongState
from .limits import client_key, idle_expiry
from .players_store import (
    PlayerConflict,
    PlayerLinkRow,
    PlayerLogin,
    PlayerQuota,
    PlayerRow,
    PlayerStore,
    check_discord,
    check_email,
    check_name,
    resolve_seats,
)
from .service import MatchService, Role
from .store import LINK_ID, HostLogin, MatchRow, token_hash

log = logging.getLogger("blackwhite.server")

#: seconds a link a host makes for its player logs in unless it is used first (a week)
INVITE_TTL = 7 * 86400.0
#: the longest expiry a link may be given (ten years, as a host's)
MAX_EXPIRES = 10 * 365 * 86400.0
def player_entry(row: PlayerRow, own: bool) -> dict[str, Any]:
    """How the API shows a player: to itself (``own``) its email too; to its host only whether it has one."""
    out: dict[str, Any] = {"id": row.id, "name": row.name, "discord_id": row.discord_id, "host": row.host_id,
                           "created": row.created, "claimed": row.claimed}
    if own:
        out["email"] = row.email
    else:
        out["has_email"] = row.email is not None
    return out


def link_entry(row: PlayerLinkRow, digest: str | None = None) -> dict[str, Any]:
    """How the API shows a player's login link (never its token)."""
    return {"id": row.link_id, "label": row.label, "created": row.created, "revoked": row.revoked,
            "expires": row.expires, "until_used": bool(row.until_used), "made_by": row.made_by,
            "this": row.token_hash == digest}


@dataclass(frozen=True)
class NewPlayer:
    """A player just made: the player and its first login link's token (shown only now)."""

    player: dict[str, Any]
    token: str
    link_id: str


class PlayerService:
    """Players over the match service: its store threads, its clock and its matches' views."""

    def __init__(self, matches: MatchService) -> None:
        self.matches = matches
        self.store: PlayerStore = matches.players
        #: (an anonymous host's and its address's, an operator-made host's): ``serve --max-...-players``
        self.limits = (matches.quotas.anonymous_players, matches.quotas.host_players)

    def now(self) -> float:
        return self.matches.now()

    # ------------------------------------------------------------- logins

    async def login(self, token: str | None, what: str = "this request") -> tuple[PlayerLogin, PlayerRow]:
        """The player ``token`` logs in as (and its row): Unauthenticated without a token,
        NotPermitted ``wrong_token`` / ``revoked`` / ``expired`` otherwise.  Nothing is
        written: a request that succeeds then calls :meth:`_used` (a refused one changes nothing)."""
        if not token:
            raise Unauthenticated("missing_token", f"{what} needs a player token (Authorization: Bearer <token> or ?token=)")
        digest = token_hash(token)
        login = await self.matches._db(self.store.login_of, digest)
        if login is None:
            raise NotPermitted("wrong_token", "the token is not a player token of this server")
        check_login(login, self.now())
        row = await self.matches._db(self.store.get, login.player_id)
        if row is None:  # a link whose player is gone: no one to log in as
            raise NotPermitted("wrong_token", "the token is not a player token of this server")
        return login, row

    async def player_of(self, token: str) -> str | None:
        """The player id a token logs in as (None: no player's token), for other parts of
        the server that take a player's token (a season's transfers and choices): a
        revoked or expired link is refused as everywhere (NotPermitted)."""
        login = await self.matches._db(self.store.login_of, token_hash(token)) if token else None
        if login is None:
            return None
        check_login(login, self.now())
        await self._used(login, token)
        return login.player_id

    async def _used(self, login: PlayerLogin, token: str | None) -> None:
        """A request with the link succeeded: an invitation's expiry ends (it was used),
        and the player has claimed itself (its host makes it no more links)."""
        if token and (login.until_used or login.claimed is None):
            await self.matches._db(self.store.mark_used, token_hash(token), self.now())

    async def _host(self, token: str | None, what: str) -> HostLogin:
        return await self.matches.login(token, what)

    async def _names_discord(self, host: HostLogin) -> None:
        """Only the server's own host (whose link the Discord bridge is given) names a
        player's Discord id: it says where the bridge DMs the player's notices, and is the
        server's one mapping of that Discord user, so another host (anyone, with a match)
        naming someone's would have the bot DM them its links, and take the id for good."""
        owner = await self.matches._db(self.matches.store.owner_host)
        if host.host_id != owner:
            raise NotPermitted("scope", "only the server's own host (its Discord bridge) names a player's "
                                        "Discord user id")
        self._bridge_scope(host, "names a player's Discord user id")

    @staticmethod
    def _bridge_scope(host: HostLogin, what: str) -> None:
        """The Discord mapping is the bridge's: a ``matches`` link of the own host (a
        co-organiser's) naming or looking up Discord ids could have the bot DM a player's
        notices, and the fresh links in them, to anyone, or give it a player's login."""
        if host.scope not in ("owner", "discord"):
            raise NotPermitted("scope", f"only the Discord bot's link (scope discord) or an owner link {what}")

    async def _own_player(self, host: HostLogin, player_id: str) -> PlayerRow:
        row = await self.matches._db(self.store.get, player_id) if len(player_id) <= 32 else None
        if row is None or row.host_id != host.host_id:
            raise Unknown("unknown_player", f"this host has no player {player_id[:40]!r}")
        return row

    # ------------------------------------------------------------- a host's players

    async def create(self, host_token: str | None, name: str, discord_id: str | None = None,
                     email: str | None = None, label: str | None = None, address: str | None = None) -> NewPlayer:
        """A host makes a player: the player and its first login link (shown once), which
        logs in for :data:`INVITE_TTL` unless used first.  Counted against the host's bound
        (and its address's, for an anonymous host) in the transaction that stores it."""
        host = await self._host(host_token, "making a player")
        clean = check_name(name)
        discord = None if discord_id is None else check_discord(discord_id)
        mail = None if email is None else check_email(email)
        if discord is not None:
            await self._names_discord(host)
        anonymous = await self.matches._db(self._anonymous, host.host_id)
        now = self.now()
        player_id = secrets.token_hex(8)
        token = secrets.token_urlsafe(24)
        digest = token_hash(token)
        player = {"id": player_id, "name": clean, "discord_id": discord, "email": mail, "host_id": host.host_id,
                  "creator": client_key(address) if anonymous else None, "created": now, "claimed": None}
        link = {"token_hash": digest, "player_id": player_id, "label": label or "made by the host", "created": now,
                "revoked": None, "expires": now + INVITE_TTL, "until_used": True, "made_by": f"host:{host.host_id}"}
        try:
            await self.matches._db(self.store.create, player, link, anonymous, self.limits)
        except PlayerConflict:
            raise WrongState("discord_taken", f"another player has Discord user id {discord}") from None
        except PlayerQuota as exc:
            where = "this host has" if exc.kind == "host" else "the hosts of this address (without a link from the operator) have"
            raise OverQuota("too_many_players", f"{where} made {exc.limit} players, the most they may") from None
        row = await self.matches._db(self.store.get, player_id)
        assert row is not None
        return NewPlayer(player_entry(row, own=False), token, digest[:LINK_ID])

    def _anonymous(self, host_id: str) -> bool:
        from sqlalchemy import select

        from .store import HostIdRow

        with self.store.engine.connect() as conn:
            return bool(conn.execute(select(HostIdRow.anonymous).where(HostIdRow.id == host_id)).scalar())

    async def host_players(self, host_token: str | None) -> list[dict[str, Any]]:
        """The players the token's host made, oldest first."""
        host = await self._host(host_token, "listing players")
        rows = await self.matches._db(self.store.players, host.host_id)
        return [player_entry(r, own=False) for r in rows]

    async def host_player(self, host_token: str | None, player_id: str) -> dict[str, Any]:
        host = await self._host(host_token, "looking a player up")
        return player_entry(await self._own_player(host, player_id), own=False)

    async def by_discord(self, host_token: str | None, discord_id: str) -> dict[str, Any]:
        """The token's host's player with that Discord user id (the bridge's mapping)."""
        host = await self._host(host_token, "looking a player up")
        self._bridge_scope(host, "looks a player up by Discord user id")
        row = await self.matches._db(self.store.by_discord, check_discord(discord_id))
        if row is None or row.host_id != host.host_id:
            raise Unknown("unknown_player", f"this host has no player with Discord user id {discord_id.strip()}")
        return player_entry(row, own=False)

    async def host_change(self, host_token: str | None, player_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """A host changes its player's name, Discord id or email: only until the player
        has logged in (then the player's own page does)."""
        host = await self._host(host_token, "changing a player")
        row = await self._own_player(host, player_id)
        if row.claimed is not None:
            raise WrongState("claimed", f"player {row.id} has logged in: only the player changes itself now")
        if changes.get("discord_id") is not None:
            await self._names_discord(host)
        await self._change(row, changes, discord_allowed=True)
        return player_entry(await self._own_player(host, player_id), own=False)

    async def host_link(self, host_token: str | None, player_id: str, label: str | None) -> dict[str, Any]:
        """Another login link of the host's player (a lost invitation): only until the
        player has logged in.  It logs in for :data:`INVITE_TTL` unless used first."""
        host = await self._host(host_token, "making a player's link")
        row = await self._own_player(host, player_id)
        if row.claimed is not None:
            raise WrongState("claimed", f"player {row.id} has logged in: only the player makes its links now")
        return await self._new_link(row.id, label or "made by the host", self.now() + INVITE_TTL, True,
                                    f"host:{host.host_id}")

    async def host_revoke(self, host_token: str | None, player_id: str, link_id: str) -> dict[str, Any]:
        """Revoke a link the host made for its player (an invitation sent to the wrong person)."""
        host = await self._host(host_token, "revoking a player's link")
        row = await self._own_player(host, player_id)
        found = await self.matches._db(self.store.revoke, row.id, link_id, self.now(), f"host:{host.host_id}")
        if found is None:
            raise Unknown("unknown_link", f"this host made no link {link_id[:40]!r} of player {row.id}")
        await self.matches.recheck_players()
        return link_entry(found)

    # ------------------------------------------------------------- a player's own

    async def me(self, token: str | None) -> dict[str, Any]:
        """The token's player: id, name, Discord id, email, and its login links."""
        login, row = await self.login(token)
        await self._used(login, token)
        fresh = await self.matches._db(self.store.get, row.id)
        row = fresh if fresh is not None else row
        links = await self.matches._db(self.store.links, row.id)
        digest = token_hash(token or "")
        return {**player_entry(row, own=True), "links": [link_entry(r, digest) for r in links]}

    async def change(self, token: str | None, changes: dict[str, Any]) -> dict[str, Any]:
        """The player renames itself, sets or clears its email, clears its Discord id."""
        login, row = await self.login(token)
        await self._change(row, changes, discord_allowed=False)
        await self._used(login, token)
        return await self.me(token)

    async def _change(self, row: PlayerRow, changes: dict[str, Any], discord_allowed: bool) -> None:
        values: dict[str, Any] = {}
        if "name" in changes:
            values["name"] = check_name(changes["name"])
        if "email" in changes:
            values["email"] = None if changes["email"] is None else check_email(changes["email"])
        if "discord_id" in changes:
            if changes["discord_id"] is None:
                values["discord_id"] = None
            elif not discord_allowed:
                raise NotPermitted("scope", "a player clears its Discord user id but does not set one: the host "
                                            "(the Discord bridge, which knows who you are on Discord) or the operator does")
            else:
                values["discord_id"] = check_discord(changes["discord_id"])
        if not values:
            return
        try:
            await self.matches._db(self.store.change, row.id, values)
        except PlayerConflict:
            raise WrongState("discord_taken", f"another player has Discord user id {values.get('discord_id')}") from None

    async def new_link(self, token: str | None, label: str | None, expires_in: float | None) -> dict[str, Any]:
        """Another login link of the token's player (a phone, the Discord bridge)."""
        login, row = await self.login(token)
        if expires_in is not None and not 0 < expires_in <= MAX_EXPIRES:
            raise Invalid("bad_request", f"expires_in is seconds, more than 0 and at most {MAX_EXPIRES:g}")
        expires = None if expires_in is None else self.now() + expires_in
        made = await self._new_link(row.id, label, expires, False, "player")
        await self._used(login, token)
        return made

    async def _new_link(self, player_id: str, label: str | None, expires: float | None, until_used: bool,
                        made_by: str) -> dict[str, Any]:
        fresh = secrets.token_urlsafe(24)
        digest = token_hash(fresh)
        if label is not None:
            label = check_name(label)
        await self.matches._db(self.store.add_link, {
            "token_hash": digest, "player_id": player_id, "label": label, "created": self.now(), "revoked": None,
            "expires": expires, "until_used": until_used, "made_by": made_by})
        return {"id": digest[:LINK_ID], "label": label, "token": fresh, "expires": expires, "until_used": until_used,
                "made_by": made_by}

    async def revoke(self, token: str | None, link_id: str) -> dict[str, Any]:
        """Revoke one of the player's links (the one in use too: the next request is refused,
        and its open sockets close within a second)."""
        login, row = await self.login(token)
        found = await self.matches._db(self.store.revoke, row.id, link_id, self.now())
        if found is None:
            raise Unknown("unknown_link", f"player {row.id} has no link {link_id[:40]!r}")
        await self._used(login, token)
        await self.matches.recheck_players()
        return link_entry(found, token_hash(token or ""))

    # ------------------------------------------------------------- seats

    async def bind(self, host_token: str | None, match_id: str, seat: int, player_id: str) -> dict[str, Any]:
        """The match's host binds a person's seat to a player it made, while the match
        waits for its players and nobody has opened that seat yet: its seat link then
        opens it no more (the player plays it from their page).  Answers the bindings."""
        match = await self.matches.find(match_id)
        role = await self.matches.role_for(match, host_token)
        if role.kind != "host":
            raise NotPermitted("wrong_token", f"only the host of match {match.id} may bind its seats")
        host = await self._host(host_token, "binding a seat")
        row = await self._own_player(host, player_id)
        if not 0 <= seat < len(match.seats):
            raise Invalid("bad_seat", f"match {match.id} has seats 0 to {len(match.seats) - 1}; got {seat}")
        if "bot" in match.seats[seat]:
            raise Invalid("bad_seat", f"P{seat + 1} of match {match.id} is a bot's")
        bound = await self.matches._db(self.store.seats_of_match, match.id)
        if any(p == row.id and s != seat for s, p in bound.items()):
            raise Invalid("bad_seat", f"player {row.id} already holds another seat of match {match.id}")
        await self.matches.bind_seat(match, seat, row.id)
        return {"match": match.id, "seats": await self.bindings(match.id)}

    async def bindings(self, match_id: str) -> list[str | None]:
        """Per seat of a match, the player bound to it (None: none)."""
        match = await self.matches.find(match_id)
        bound = await self.matches._db(self.store.seats_of_match, match.id)
        return [bound.get(s) for s in range(len(match.seats))]

    # ------------------------------------------------------------- the player's page

    async def matches_of(self, token: str | None) -> dict[str, Any]:
        """The player's page as data: the player, every match it is in ("your move" first,
        then the rest by most recent), its invitations (seats of matches waiting for it
        to join), and the waiting list.  Every running match's entry is built from that
        seat's own view payload, nothing else."""
        login, row = await self.login(token)
        await self._used(login, token)
        return await self._page(row, token or "")

    async def host_waiting(self, host_token: str | None, player_id: str) -> list[dict[str, Any]]:
        """The waiting list of one of the host's players (the Discord bridge's ``/bw moves``
        for a Discord user it mapped): every match on it is one its host owns or co-hosts,
        and an entry holds nothing a host's own view of the match does not."""
        host = await self._host(host_token, "reading a player's waiting list")
        row = await self._own_player(host, player_id)
        return list((await self._page(row, host_token or ""))["waiting"])

    async def _page(self, row: PlayerRow, token: str) -> dict[str, Any]:
        seats = await self.matches._db(self.store.seats_of_player, row.id)
        entries = []
        for match_row, seat in seats:
            try:
                entries.append(await self._entry(match_row, seat, token))
            except Refused as exc:  # a match that cannot be read now (its owner away): said so, not hidden
                entries.append({"id": match_row.id, "game": match_row.game, "seat": seat, "status": "unavailable",
                                "your_move": False, "invited": False, "deadline": None, "note": exc.message,
                                "names": _names(match_row.seats), "created": match_row.created,
                                "page": f"/play/{match_row.id}"})
        entries.sort(key=lambda e: (not e["your_move"], e["deadline"] is None, e["deadline"] or 0.0, -e["created"]))
        seasons = await self.matches._db(self.store.seasons_of_player, row.id)
        return {"player": player_entry(row, own=True), "matches": entries,
                "invitations": [e for e in entries if e["invited"]], "waiting": _waiting(entries),
                "seasons": seasons}

    async def waiting(self, token: str | None) -> list[dict[str, Any]]:
        """Every match awaiting the player (its move, or its joining), soonest deadline first."""
        return list((await self.matches_of(token))["waiting"])

    async def _entry(self, row: MatchRow, seat: int, token: str) -> dict[str, Any]:
        base = {"id": row.id, "game": row.game, "seat": seat, "names": _names(row.seats), "created": row.created,
                "page": f"/play/{row.id}"}
        if row.status != "running":
            return {**base, "status": row.status, "your_move": False, "invited": False, "deadline": None,
                    "waiting": None, "start": None}
        payload = await self._seat_payload(row.id, seat, token)
        pace = Pace.from_json(row.pace)  # a slower pace waits longer for its players
        return {**base, **entry_from_payload(payload, seat, self.now(),
                                             idle_expiry(self.matches.quotas, row.created, pace.stretch()))}

    async def _seat_payload(self, match_id: str, seat: int, token: str) -> dict[str, Any]:
        """The seat's view payload, as its seat link would get it (without joining): from
        this process, or asked of the process that owns the match (several processes)."""
        cluster = self.matches.cluster
        if cluster is not None and match_id not in self.matches.matches:
            owner = await self.matches.owner_of(match_id)
            relay = self.matches.relay
            if owner is not None and owner.url is not None and relay is not None:
                try:
                    status, _headers, body = await relay.request(
                        owner.url, "GET", f"/api/matches/{match_id}/view?join=0",
                        [(b"authorization", f"Bearer {token}".encode())], b"")
                except (ConnectionError, OSError) as exc:  # OwnerGone is one: the entry says so
                    raise WrongState("unavailable", f"match {match_id}'s server process cannot be reached now") from exc
                if status != 200:
                    raise WrongState("unavailable", f"match {match_id} could not be read from its server process")
                payload: dict[str, Any] = json.loads(body)
                return payload
        match = await self.matches.find(match_id)
        return self.matches.view_payload(match, Role("seat", seat))


def check_login(login: PlayerLogin, now: float) -> None:
    """NotPermitted ``revoked`` / ``expired`` for a link that logs in no more."""
    if login.revoked:
        raise NotPermitted("revoked", "this player link was revoked; log in with another link of yours")
    if login.expired(now):
        raise NotPermitted("expired", "this player link has expired; ask your host for a new one")


def _names(seats: Any) -> list[str]:
    return [s["name"] if "name" in s else f"bot {s.get('bot')}" for s in (seats or [])]


def entry_from_payload(payload: dict[str, Any], seat: int, now: float, idle_end: float | None) -> dict[str, Any]:
    """A running match's entry on its player's page, from the seat's view payload only:
    whether it awaits the seat's move, by when (the seat's own clock), and whether the
    match still waits for the player to join (an invitation)."""
    clocks = payload.get("clocks") or {}
    readings = (clocks.get("seats") or [])
    mine = readings[seat] if seat < len(readings) else {}
    status = payload.get("status")
    start = payload.get("start") or {}
    your_move = status == "running" and bool(mine.get("awaited")) and bool(clocks.get("started", True))
    deadline = None
    if your_move:
        # on the match's calendar: a slow pace's quiet hours and its hours for the whole match count
        try:
            deadline = clk.seat_deadline(clk.Clocks.from_json(clocks), seat, now, Pace.from_json(payload.get("pace")))
        except (ValueError, PaceError):  # readings of an older server: its clock ran all the time
            deadline = now + float(mine.get("action_left") or 0.0) + float(mine.get("reserve_left") or 0.0)
    invited = status == "waiting" and seat in (start.get("waiting_for") or [])
    if invited:
        deadline = start.get("at") if start.get("policy") == "at" else idle_end if start.get("policy") == "when_joined" else None
    return {"status": status, "your_move": your_move, "invited": invited, "deadline": deadline,
            "waiting": payload.get("waiting"), "start": start,
            "finished": bool((payload.get("view") or {}).get("finished"))}


def _waiting(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The matches awaiting the player, soonest deadline first (none last)."""
    out = [{"id": e["id"], "game": e["game"], "seat": e["seat"], "kind": "move" if e["your_move"] else "join",
            "deadline": e["deadline"], "names": e["names"], "page": e["page"]}
           for e in entries if e["your_move"] or e["invited"]]
    out.sort(key=lambda w: (w["deadline"] is None, w["deadline"] or 0.0))
    return out

