"""The hosts-and-links part of the match service: who a token is (a seat, the
spectators, a host by one of its login links), the host's links (made, listed, revoked,
scoped, expiring), co-hosts, a host's list of matches (asking other processes for those they
own), and the host sockets closed once their link no longer gives them the match.  Rights
are decided on what is stored, whichever process or command changed them."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ..engine import Pace
from .errors import Invalid, NotPermitted, Refused, Unauthenticated, Unknown
from .store import LINK_ID, LINK_SCOPES, HostLogin, HostRow, MatchRow, token_hash
from .service_live import LiveMatch, Role

if TYPE_CHECKING:
    from .service import MatchService

log = logging.getLogger("blackwhite.server")

#: per request, the links that expire unless used (a start's) it logged in with: marked
#: used only once it is answered without a refusal (``app.UsedLinks``, :meth:`HostsPart.settle_uses`),
#: so a refused request changes nothing.  ``None`` outside a request: marked at once.
PENDING_USES: ContextVar[set[str] | None] = ContextVar("blackwhite_pending_uses", default=None)

__all__ = ["BRIDGE_LINK_COMMAND", "LINK_SCOPES", "PENDING_USES", "HostsPart"]

#: the one command that makes the Discord bridge a link of its own (said where one is refused)
BRIDGE_LINK_COMMAND = "blackwhite hosts new-link --scope discord --label 'discord bot'"


class HostsPart:
    """Hosts, their links and rights (a part of :class:`~blackwhite.server.service.MatchService`)."""

    def __init__(self, svc: MatchService) -> None:
        self.svc = svc

    async def login(self, token: str | None, what: str = "this request") -> HostLogin:
        """The host ``token`` logs in as: Unauthenticated without a token, NotPermitted
        ``wrong_token`` if it is no host's, ``revoked`` if its link was revoked."""
        if not token:
            raise Unauthenticated("missing_token", f"{what} needs a host token (Authorization: Bearer <token> or ?token=)")
        digest = token_hash(token)
        login = await self.svc.storage._db(self.svc.store.host_of, digest)
        if login is None:
            raise NotPermitted("wrong_token", "the token is not a host token of this server")
        self._check_login(login)
        if login.until_used:  # the link a start printed: used once answered, so it stays (and this browser logged in)
            await self._use(digest)
        return login

    async def _use(self, digest: str) -> None:
        """A link that expires unless used logged in: used once the request is answered
        (see :data:`PENDING_USES`); outside a request, now."""
        pending = PENDING_USES.get()
        if pending is None:
            await self.svc.storage._db(self.svc.store.mark_used, digest)
        else:
            pending.add(digest)

    async def settle_uses(self, digests: set[str]) -> None:
        """Mark used the links an answered request logged in with (before its answer goes out)."""
        for digest in sorted(digests):
            await self.svc.storage._db(self.svc.store.mark_used, digest)

    def _check_login(self, login: HostLogin) -> None:
        if login.revoked:
            raise NotPermitted("revoked", "this host link was revoked; log in with another link of the host")
        if login.expired(self.svc.now()):
            raise NotPermitted("expired", "this host link has expired; ask the host for a new one "
                               "(or, on the server, run: blackwhite hosts new-link)")

    @staticmethod
    def _owner_scope(login: HostLogin, what: str) -> None:
        """Only a link of scope ``owner`` manages links and co-hosts."""
        if login.scope != "owner":
            raise NotPermitted("scope", f"this host link may create and run matches only; {what} needs an owner link")

    async def bridge_login(self, token: str | None, what: str) -> HostLogin:
        """A link that reads the Discord bridge's notices: the server's own host's, of scope
        ``discord`` (the bridge's) or ``owner`` (the operator's, who could make the other
        anyway).  The notices hold every Discord player's fresh login links, so any other
        link (a co-organiser's ``matches`` link of the same host) is refused 403 ``scope``."""
        login = await self.login(token, what)
        own = await self.svc.storage._db(self.svc.store.owner_host)
        if login.host_id != own:
            raise NotPermitted("scope", f"{what} is for the server's own host (its Discord bridge) only")
        if login.scope not in ("owner", "discord"):
            raise NotPermitted("scope", f"{what} needs the Discord bridge's own link (scope discord), not a "
                                        f"{login.scope} link; on the server, run: {BRIDGE_LINK_COMMAND}")
        return login

    async def role_for(self, match: LiveMatch, token: str | None) -> Role:
        """The role ``token`` has in ``match``: a seat, the spectators, or a host (its
        owner's or a co-host's login link, not revoked); Unauthenticated or NotPermitted if none."""
        if not token:
            raise Unauthenticated("missing_token", "this request needs a token (Authorization: Bearer <token> or ?token=)")
        digest = token_hash(token)
        role = match.guest_role(digest)
        if role is not None:
            return role
        login = await self._host_login(match, digest)
        if login is not None:
            self._check_login(login)
        if login is not None and match.hosted_by(login.host_id):
            if login.until_used:  # the link a start printed, opened on a match page: used once answered
                await self._use(digest)
            return Role("host")
        if login is None:  # a player's login plays the seat bound to it (players.py), read from the database
            player, seat = await self.svc.storage._db(self.svc.players.seat_rights, digest, match.id)
            if player is not None:
                if player.revoked:
                    raise NotPermitted("revoked", "this player link was revoked; log in with another link of yours")
                if player.expired(self.svc.now()):
                    raise NotPermitted("expired", "this player link has expired; ask your host for a new one")
                if seat is not None:  # a read only: the link counts as used when its player's page or API answers
                    return Role("seat", seat)
        if self.svc.seat_keys is not None:
            seat = await self.svc.seat_keys(match.id, digest)
            if seat is not None:
                return Role("seat", seat)
        raise NotPermitted("wrong_token", f"the token is not valid for match {match.id}")

    async def _host_login(self, match: LiveMatch, digest: str) -> HostLogin | None:
        """What a token logs in as, with who controls ``match`` read afresh beside it (one
        round trip): rights are decided on what is stored, whichever process or command
        changed them (a merge, a co-host dropped on another process)."""
        seen = match.hosts_changed
        login, stored = await self.svc.storage._db(self.svc.store.host_rights, digest, match.id)
        if stored is not None:
            match.stored_hosts(stored, seen)
        return login

    async def host_matches(self, token: str | None) -> list[dict[str, Any]]:
        """The summaries of the matches the token's host owns or co-hosts, oldest first:
        those in memory as they are, ended ones from their stored rows (no replay)."""
        login = await self.login(token, "listing matches")
        rows = await self.svc.storage._db(self.svc.store.host_rows, login.host_id)
        out = []
        remote = await self._remote_summaries([r.id for r in rows if r.status == "running" and r.id not in self.svc.matches],
                                              token or "")
        for row in rows:
            if row.id in remote:
                out.append(remote[row.id])
                continue
            live = self.svc.matches.get(row.id)
            if live is None and row.status != "running" and row.public_version is None:
                try:  # ended before public versions were stored: replayed once, here
                    live = await self.svc.find(row.id)
                except Refused:
                    continue
            if live is not None:
                out.append(self.svc.summary(live, hosting=True))
            elif row.status != "running":
                out.append(self._row_summary(row))
        return out

    def owner_login(self, label: str, expires_in: float | None = None) -> str:
        """A fresh login link (its token) of the server's own host, made at the first
        start: every start prints one, and every earlier match stays that host's.
        ``expires_in``: the link stops logging in after that many seconds unless it is
        used first (so restarts do not pile up live links); None: it never expires."""
        token = secrets.token_urlsafe(24)
        now = self.svc.now()
        self.svc.store.owner_link(secrets.token_hex(8), token_hash(token), now, label,
                              None if expires_in is None else now + expires_in)
        return token

    @staticmethod
    def link_entry(row: HostRow, digest: str | None = None) -> dict[str, Any]:
        """How the API shows a login link (never its token)."""
        return {"id": row.link_id, "label": row.label, "created": row.created, "revoked": row.revoked,
                "scope": row.scope or "owner", "expires": row.expires, "until_used": bool(row.until_used),
                "this": row.token_hash == digest}

    async def host_info(self, token: str | None) -> dict[str, Any]:
        """The token's host: its id (what a co-host is named by), what this link may do, and
        the host's login links (a link of scope ``matches`` sees only itself)."""
        login = await self.login(token)
        digest = token_hash(token or "")
        links = await self.svc.storage._db(self.svc.store.links, login.host_id)
        if login.scope != "owner":
            links = [r for r in links if r.token_hash == digest]
        return {"id": login.host_id, "scope": login.scope, "links": [self.link_entry(r, digest) for r in links]}

    async def new_link(self, token: str | None, label: str | None, scope: str = "owner",
                       expires_in: float | None = None) -> dict[str, Any]:
        """Another login link of the token's host (its token is shown only now): only an
        owner link makes links; ``scope`` ``matches`` limits the new one to creating and
        running matches, ``discord`` to that and the bridge's notices; ``expires_in``
        seconds from now it stops logging in."""
        login = await self.login(token)
        self._owner_scope(login, "making a link")
        if scope not in LINK_SCOPES:
            raise Invalid("bad_scope", f"a link's scope is one of {', '.join(LINK_SCOPES)}; got {scope[:20]!r}")
        if scope == "discord" and login.host_id != await self.svc.storage._db(self.svc.store.owner_host):
            raise Invalid("bad_scope", "a discord link is the server's Discord bot's, a link of the server's own "
                                       "host: this host's bots take a matches link")
        fresh = secrets.token_urlsafe(24)
        digest = token_hash(fresh)
        now = self.svc.now()
        expires = None if expires_in is None else now + expires_in
        await self.svc.storage._db(self.svc.store.add_link, login.host_id, digest, now, label, scope, expires)
        return {"id": digest[:LINK_ID], "label": label, "token": fresh, "scope": scope, "expires": expires}

    async def revoke_link(self, token: str | None, link_id: str) -> dict[str, Any]:
        """Revoke one of the host's links (the one in use too: the request after is refused,
        and every socket opened with it is closed within a second, on every process)."""
        login = await self.login(token)
        self._owner_scope(login, "revoking a link")
        row = await self.svc.storage._db(self.svc.store.revoke, login.host_id, link_id, self.svc.now())
        if row is None:
            shown = link_id if len(link_id) <= 40 else link_id[:40] + "..."
            raise Unknown("unknown_link", f"host {login.host_id} has no link {shown!r}")
        await self.recheck_hosts()
        return self.link_entry(row)

    async def set_cohost(self, match_id: str, token: str | None, host_id: str, add: bool) -> dict[str, Any]:
        """Name (or drop) a co-host of a match: only its owner may."""
        match = await self.svc.find(match_id)
        login = await self.login(token)
        self._owner_scope(login, "naming co-hosts")
        await self._host_login(match, token_hash(token or ""))  # who owns it now, as stored
        if login.host_id != match.host_id:
            raise NotPermitted("wrong_token", f"only the owner of match {match.id} may name its co-hosts")
        if add and host_id == match.host_id:
            raise Invalid("bad_cohost", f"host {host_id} owns match {match.id} already")
        if add and not await self.svc.storage._db(self.svc.store.host_known, host_id):
            shown = host_id if len(host_id) <= 40 else host_id[:40] + "..."
            raise Unknown("unknown_host", f"there is no host {shown!r} on this server")
        async with match.lock:
            if match.dropped:
                raise self.svc.owning._moved(match)
            cohosts = [h for h in match.cohosts if h != host_id] + ([host_id] if add else [])
            if cohosts != match.cohosts:
                if match.status == "running":  # fenced like every write of a running match
                    await self.svc.owning._fenced(match, {"cohosts": cohosts})
                else:  # an ended match is final: no process moves it on, nothing to fence
                    await self.svc.storage._db(self.svc.store.update, match.id, {"cohosts": cohosts})
                match.cohosts = cohosts
                match.hosts_changed += 1
        if not add:  # a dropped co-host's sockets close now
            await self.recheck_hosts(match.id)
        return self.svc.summary(match, hosting=True)

    async def _remote_summaries(self, match_ids: list[str], token: str) -> dict[str, dict[str, Any]]:
        """The summaries of running matches other processes own, asked of each owner with
        the same token (one that nobody holds is taken over here and summarised)."""
        if self.svc.cluster is None or not match_ids:
            return {}

        async def one(match_id: str) -> tuple[str, dict[str, Any] | None]:
            owner = await self.svc.owner_of(match_id)
            if owner is None:
                await self.svc.adopt(match_id)
                live = self.svc.matches.get(match_id)
                return match_id, None if live is None else self.svc.summary(live, hosting=True)
            if owner.url is None or self.svc.relay is None:
                return match_id, None
            try:
                status, _headers, body = await self.svc.relay.request(
                    owner.url, "GET", f"/api/matches/{match_id}", [(b"authorization", f"Bearer {token}".encode())], b"")
            except (ConnectionError, OSError) as exc:  # OwnerGone is one
                log.warning("the summary of match %s could not be asked of its owner: %r", match_id, exc)
                return match_id, None
            return match_id, json.loads(body) if status == 200 else None

        found = await asyncio.gather(*(one(m) for m in match_ids))
        return {m: summary for m, summary in found if summary is not None}

    @staticmethod
    def _row_summary(row: MatchRow) -> dict[str, Any]:
        """The summary of an ended match from its row: what :meth:`summary` says of it."""
        return {
            "id": row.id, "game": row.game, "options": row.options, "seats": row.seats, "status": row.status,
            "to_move": [], "version": row.public_version, "created": row.created, "host_sees_all": row.host_sees_all,
            "start": HostsPart._row_start(row), "waiting": None,
            "pace": Pace.from_json(row.pace).to_json(),
            "host": row.host_id, "cohosts": list(row.cohosts or []),
        }

    @staticmethod
    def _row_start(row: MatchRow) -> dict[str, Any]:
        """:meth:`LiveMatch.start_info` of an ended match, from its row."""
        started = bool((row.clocks or {}).get("started", True))
        joined = list(row.joined or [])
        waiting = [i for i, s in enumerate(row.seats) if "bot" not in s and not (i < len(joined) and joined[i])]
        return {"policy": row.start or "now", "at": row.start_at, "started": started,
                "waiting_for": [] if started else waiting}

    async def recheck_hosts(self, match_id: str | None = None) -> int:
        """Close every host socket whose token no longer gives it its match (the link was
        revoked or expired, the co-host dropped, the host merged away): the rights a socket
        was opened with are checked again, here on the process that pushes to it, whichever
        process or command changed them.  ``match_id``: that match's sockets only.  How many
        were closed."""
        if match_id is None:
            scope = list(self.svc.matches.values())
        else:
            scope = [self.svc.matches[match_id]] if match_id in self.svc.matches else []
        held = [(m, sub) for m in scope for sub in list(m.subscribers) if sub.digest is not None and not sub.revoked]
        if not held:
            return 0
        seen = {m.id: m.hosts_changed for m, _sub in held}
        logins = await self.svc.storage._db(self.svc.store.logins_of, sorted({sub.digest for _m, sub in held if sub.digest}))
        # who controls each match as the database says now (`blackwhite hosts merge` moves
        # matches between hosts and drops co-hosts, straight on the database)
        stored = await self.svc.storage._db(self.svc.store.match_hosts, sorted(seen))
        for match, _sub in held:
            if match.id in stored:
                match.stored_hosts(stored[match.id], seen[match.id])
        now = self.svc.now()
        closed = 0
        for match, sub in held:
            login = logins.get(sub.digest or "")
            if login is None or not login.valid(now) or not match.hosted_by(login.host_id):
                sub.revoke()
                closed += 1
                log.info("a host socket of match %s closed: its link no longer gives it the match", match.id)
        return closed

    async def _host(self, match: LiveMatch, token: str | None, what: str) -> None:
        if (await self.role_for(match, token)).kind != "host":
            raise NotPermitted("wrong_token", f"only the host of match {match.id} may {what}")

    async def recheck_players(self) -> int:
        """Close every socket opened with a player's login whose link was revoked or has
        expired, or whose seat is no longer bound to that player, and every socket opened
        with a message's seat key (no player's login) that no longer plays its seat (the
        key's own check: its time, its player's revoked links, the seat's binding); how
        many were closed."""
        held = [(m, sub) for m in self.svc.matches.values() for sub in list(m.subscribers)
                if sub.player_digest is not None and not sub.revoked]
        if not held:
            return 0
        logins = await self.svc.storage._db(self.svc.players.logins_of, sorted({sub.player_digest for _m, sub in held
                                                                 if sub.player_digest}))
        bound = await self.svc.storage._db(self.svc.players.seats_of_matches, sorted({m.id for m, _sub in held}))
        now = self.svc.now()
        closed = 0
        for match, sub in held:
            login = logins.get(sub.player_digest or "")
            if login is None and sub.player_digest and self.svc.seat_keys is not None and sub.role.seat is not None:
                if await self.svc.seat_keys(match.id, sub.player_digest) == sub.role.seat:
                    continue  # a message's key that still plays the seat
            if (login is None or not login.valid(now) or sub.role.seat is None
                    or bound.get(match.id, {}).get(sub.role.seat) != login.player_id):
                sub.revoke()
                closed += 1
                log.info("a player socket of match %s closed: its link no longer gives it the seat", match.id)
        return closed
