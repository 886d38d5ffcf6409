"""Seasons: a cast, garnets, tokens of life, death matches and a final, kept in a ledger.

The service decides who may do what and turns requests into ledger entries; the
ledger's fold (:mod:`.season_ledger`) decides whether an entry fits the season, and the
store (:mod:`.season_store`) appends it under the season's lock.  Matches are made by the
match service (:class:`~blackwhite.server.service.MatchService`) like any other; when a
season's match ends, :meth:`SeasonService.settle` writes its result and what follows
(tokens, elimination, garnets moved, the next round), once, whichever process sees it
first; a loop settles whatever a crash left unsettled.

Who is who: a host token (the season's host or a co-host) may do everything a host does;
a player token (:attr:`SeasonService.player_login`) acts only for its own player: its
transfers, its choice of opponent as the candidate, its pick of the final's items.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping

from ..engine import UnknownGameError, game_class, make_game, to_record
from . import bots as botseats
from .errors import Invalid, NotPermitted, Refused, Unauthenticated, Unknown, WrongState
from .. import names
from .players import check_login
from .season_ledger import (
    MAX_CAST,
    STAGES,
    LedgerError,
    Season,
    entry,
    recorded_main,
    replay,
    result_entries,
)
from .season_store import SeasonRow, SeasonStore
from .store import token_hash

if TYPE_CHECKING:
    from .service import LiveMatch, MatchService

log = logging.getLogger("blackwhite.server.seasons")

EXPORT_FORMAT = "blackwhite-season/1"
VISIBILITY = ("public", "cast")
#: seconds between looks for season matches that ended without their result in the ledger
SETTLE_EVERY = 2.0
#: ledger entries that say how many garnets someone holds (hidden with host-only transfers)
GARNET_KINDS = ("award", "adjust", "spend", "transfer", "garnets_moved")
#: wrong codes of the ledger that mean "not now" rather than "never"
_STATE_CODES = {"wrong_phase", "season_over", "too_late", "not_your_turn", "token_holder", "eliminated",
                "not_eligible", "not_enough_garnets", "too_many_transfers", "too_many_entries"}


@dataclass(frozen=True)
class Actor:
    """Who a request comes from: a host of the season, a player, or nobody (no token)."""

    host_id: str | None = None
    player: str | None = None
    #: the host token itself (matches are made through it)
    token: str | None = None

    @property
    def by(self) -> str:
        return f"host:{self.host_id}" if self.host_id else f"player:{self.player}" if self.player else "server"


def _refusal(exc: LedgerError) -> Refused:
    return (WrongState if exc.code in _STATE_CODES else Invalid)(exc.code, exc.message)


class SeasonService:
    """Seasons over the match service's store and matches."""

    def __init__(self, matches: "MatchService") -> None:
        self.matches = matches
        self.store = SeasonStore(matches.store)
        self.now = matches.now
        self._settling: set[str] = set()
        #: when a season match's clocks start (``when_joined``: once both players opened it)
        self.start_policy = "when_joined"
        self._tasks: set[asyncio.Task[bool]] = set()
        matches.on_ended.append(self._ended)

    def tasks(self) -> list[asyncio.Task[bool]]:
        """Settlements under way (the server ends them at its stop; the loop finishes them later)."""
        return list(self._tasks)

    def _ended(self, match_id: str) -> None:
        """A match ended here: settle it now if it is a season's (the loop would, later)."""
        task = asyncio.get_running_loop().create_task(self._settle_quietly(match_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _settle_quietly(self, match_id: str) -> bool:
        try:
            return await self.settle(match_id)
        except Exception as exc:  # the loop tries again
            log.warning("settling season match %s failed: %r", match_id, exc)
            return False

    # ------------------------------------------------------------------ who is asking

    async def _season(self, season_id: str) -> tuple[SeasonRow, Season]:
        row = await self.matches._db(self.store.row, season_id)
        ledger = await self.matches._db(self.store.ledger, season_id) if row is not None else None
        if row is None or ledger is None:
            raise Unknown("unknown_season", f"no season {season_id[:40]!r}")
        return row, replay(ledger)

    async def actor(self, row: SeasonRow, token: str | None) -> Actor:
        """The host (season owner or co-host) or player a token is; Actor() without one."""
        if not token:
            return Actor()
        login = await self.matches._db(self.matches.store.host_of, token_hash(token))
        if login is not None:
            self.matches._check_login(login)
            cohosts = row.cohosts if isinstance(row.cohosts, list) else []
            if login.host_id == row.host_id or login.host_id in cohosts:
                return Actor(host_id=login.host_id, token=token)
            raise NotPermitted("wrong_token", "this host token is not a host of the season")
        plogin = await self.matches._db(self.matches.players.login_of, token_hash(token))
        if plogin is None:
            raise NotPermitted("wrong_token", "the token is neither a host's nor a player's of this server")
        check_login(plogin, self.now())
        return Actor(player=plogin.player_id)

    async def _host(self, season_id: str, token: str | None, what: str) -> tuple[SeasonRow, Season, Actor]:
        if not token:
            raise Unauthenticated("missing_token", f"{what} needs a host token of the season")
        row, season = await self._season(season_id)
        who = await self.actor(row, token)
        if who.host_id is None:
            raise NotPermitted("not_host", f"{what} is for the season's hosts")
        return row, season, who

    async def _player(self, season_id: str, token: str | None, what: str,
                      player: str | None = None) -> tuple[SeasonRow, Season, Actor]:
        """A player of the cast acting for themselves, or a host acting for ``player``."""
        if not token:
            raise Unauthenticated("missing_token", f"{what} needs a player's login (or a host's token)")
        row, season = await self._season(season_id)
        who = await self.actor(row, token)
        if who.host_id is not None:
            if player is None:
                raise Invalid("bad_request", f"a host doing {what} names the player")
            return row, season, Actor(host_id=who.host_id, player=player, token=token)
        if who.player not in season.players:
            raise NotPermitted("not_in_cast", f"{what} is for the season's cast")
        if player is not None and player != who.player:
            raise NotPermitted("not_yourself", "a player acts only for themselves")
        return row, season, who

    async def _append(self, season_id: str, build: Callable[[Season, int], list[dict[str, Any]]], who: Actor,
                      matches: dict[str, dict[str, int]] | None = None) -> Season:
        try:
            done = await self.matches._db(self.store.append, season_id, build, self.now(), who.by, matches)
        except LedgerError as exc:
            raise _refusal(exc) from None
        except KeyError:
            raise Unknown("unknown_season", f"no season {season_id[:40]!r}") from None
        return done.season

    # ------------------------------------------------------------------ creating

    async def create(self, token: str | None, name: str, cast: list[Any], garnets: int = 0,
                     rules: Mapping[str, Any] | None = None, visibility: str = "public") -> dict[str, Any]:
        """A new season hosted by the token's host: its cast, starting garnets and rules.
        Its first ledger entry holds all of it.

        A cast member is ``{"player": id}``, a player of this server (who then acts for
        themselves with their own login, and whose seats are bound to them), or
        ``{"name": display name}``, someone without a login here, for whom the hosts act
        (named ``c01``, ``c02``... in the ledger)."""
        login = await self.matches.login(token, "creating a season")
        if visibility not in VISIBILITY:
            raise Invalid("bad_visibility", f"visibility is one of {', '.join(VISIBILITY)}")
        if not isinstance(cast, list) or len(cast) > MAX_CAST:
            raise Invalid("bad_cast", f"a cast is a list of at most {MAX_CAST} players")
        members = []
        for i, member in enumerate(cast):
            if not isinstance(member, Mapping) or set(member) - {"player", "name"} or not member:
                raise Invalid("bad_cast", f"cast member {i + 1} is {{\"player\": id}} or {{\"name\": name}}")
            if member.get("player") is not None:
                pid = member["player"]
                row = await self.matches._db(self.matches.players.get, pid) if _plain_id(pid) else None
                if row is None or row.host_id != login.host_id:  # as a match seats only its host's players
                    raise Unknown("unknown_player", f"cast member {i + 1}: this host has no player {str(pid)[:40]!r} "
                                                    "(a season's cast are players its host made, or names)")
                members.append({"player": pid, "name": row.name, "login": True})
            else:
                wrong = names.problem(member.get("name"))
                if wrong is not None:
                    raise Invalid("bad_cast", f"cast member {i + 1}'s name: {wrong}")
                members.append({"player": f"c{i + 1:02d}", "name": names.clean(str(member["name"]))})
        data = {"name": name, "cast": members, "garnets": garnets, "rules": dict(rules or {}), "host": login.host_id}
        season_id = self.matches.new_id()
        ledger = [{"seq": 1, "kind": "created", "data": data, "at": self.now(), "by": f"host:{login.host_id}"}]
        try:
            season = replay(ledger)  # checks it all before anything is written
            await self.matches._db(self.store.create, season_id, season.name, login.host_id, visibility, self.now(),
                                   ledger)
        except LedgerError as exc:
            raise _refusal(exc) from None
        return {"id": season_id, **await self.view(season_id, token)}

    async def set_cohost(self, season_id: str, token: str | None, host_id: str, add: bool) -> dict[str, Any]:
        """Name (or drop) a co-host: another host who may run the season."""
        row, _season, who = await self._host(season_id, token, "naming co-hosts")
        if who.host_id != row.host_id:
            raise NotPermitted("not_owner", "only the season's own host names co-hosts")
        # as for a match's co-hosts: a `matches` link (a bot's, the bridge's) names none, so a
        # leaked one cannot make a stranger a co-host who reads every garnet
        self.matches.hosts._owner_scope(await self.matches.login(token, "naming co-hosts"), "naming co-hosts")
        cohosts = [h for h in (row.cohosts or []) if h != host_id]
        if add:
            if not isinstance(host_id, str) or len(host_id) > 32 or host_id == row.host_id:
                raise Invalid("bad_cohost", "a co-host is another host's id")
            cohosts.append(host_id)
        await self.matches._db(lambda: self.store.set_row(season_id, cohosts=cohosts))
        for mid in _season.order:  # the season's matches under way follow its hosts
            m = _season.matches[mid]
            if not m.external and not m.finished:
                await self._hosted_by_season(mid, row.host_id, cohosts)
        return {"cohosts": cohosts}

    async def _hosted_by_season(self, match_id: str, owner: str, cohosts: list[str]) -> None:
        """A season's match is the season's, whoever of its hosts made it: the season's own
        host owns it and its co-hosts co-host it (so a co-host it drops runs it no more, and
        its host's void cancels it).  Stored, which every process reads for each request."""
        cohosts = [h for h in cohosts if h != owner]
        live = self.matches.matches.get(match_id)
        try:
            if live is not None and not live.ended:
                async with live.lock:
                    await self.matches.owning._fenced(live, {"host_id": owner, "cohosts": cohosts})
                    live.host_id, live.cohosts = owner, cohosts
                    live.hosts_changed += 1
            else:
                await self.matches._db(self.matches.store.update, match_id, {"host_id": owner, "cohosts": cohosts})
                if live is not None:
                    live.host_id, live.cohosts = owner, cohosts
                    live.hosts_changed += 1
        except Refused as exc:  # another process took it over meanwhile: its row, as stored, says
            log.warning("season match %s: its hosts were not updated here: %s", match_id, exc.message)
            await self.matches._db(self.matches.store.update, match_id, {"host_id": owner, "cohosts": cohosts})
        await self.matches.hosts.recheck_hosts(match_id)

    # ------------------------------------------------------------------ reading

    def _may_read(self, row: SeasonRow, season: Season, who: Actor) -> None:
        if row.visibility == "cast" and who.host_id is None and who.player not in season.players:
            raise NotPermitted("cast_only", "this season is visible to its cast and hosts only")

    @staticmethod
    def _sees_garnets(season: Season, who: Actor, player: str) -> bool:
        return season.rules.transfers == "public" or who.host_id is not None or who.player == player

    def _standings(self, season: Season, who: Actor) -> list[dict[str, Any]]:
        rows = season.standings()
        for r in rows:
            if not self._sees_garnets(season, who, r["player"]):
                r["garnets"] = None
        if season.rules.transfers == "host" and who.host_id is None:
            # the places among players still in are by garnets: keep them from telling
            alive = [r for r in rows if r["eliminated_round"] is None and season.champion is None]
            cast = list(season.players)
            first = min((r["place"] for r in alive), default=0)
            for i, r in enumerate(sorted(alive, key=lambda r: cast.index(r["player"]))):
                r["place"] = first + i
            rows.sort(key=lambda r: r["place"])
        return rows

    def _entries(self, season: Season, ledger: list[dict[str, Any]], who: Actor) -> list[dict[str, Any]]:
        """The ledger as ``who`` may read it.  With host-only transfers, a garnet entry that
        is not about the reader is left out altogether, and what is left is numbered
        again from 1 (each ``cause`` with it): neither a kind, an author, a moment nor a gap
        in the numbers says that a transfer was made, how many, or that an award or a
        death match moved garnets (only its presence would tell that the loser held some).
        Staked garnets of others are left out of ``match_created``."""
        if season.rules.transfers == "public" or who.host_id is not None:
            return ledger
        out: list[dict[str, Any]] = []
        renumbered: dict[int, int] = {}
        for e in ledger:
            data = e.get("data") or {}
            touched = {data.get(k) for k in ("player", "from", "to")} - {None}
            if e["kind"] in GARNET_KINDS and who.player not in touched:
                continue
            if e["kind"] == "match_created" and "garnets" in data:
                data = {**data, "garnets": {p: n for p, n in data["garnets"].items() if p == who.player}}
            renumbered[e["seq"]] = len(out) + 1
            e = {**e, "seq": len(out) + 1, "data": data}
            if e.get("cause") is not None:
                e["cause"] = renumbered.get(e["cause"])
            out.append(e)
        return out

    async def view(self, season_id: str, token: str | None) -> dict[str, Any]:
        """The season as ``token`` may see it: its state, standings and matches."""
        row, season = await self._season(season_id)
        who = await self.actor(row, token)
        self._may_read(row, season, who)
        matches = [{"match": m.match, "stage": m.stage, "game": m.game, "round": m.round, "seats": list(m.seats),
                    "external": m.external, "finished": m.finished, "ranking": list(m.ranking or []) or None}
                   for m in (season.matches[mid] for mid in season.order)]
        out = {"id": season_id, "host": row.host_id, "cohosts": row.cohosts or [], "visibility": row.visibility,
               **season.summary(), "cast": [{"player": p, "name": s.name} for p, s in season.players.items()],
               "standings": self._standings(season, who), "matches": matches,
               "you": {"host": who.host_id is not None, "player": who.player}}
        if season.rules.transfers == "host" and who.host_id is None:  # as many entries as its reader reads
            stored: list[dict[str, Any]] | None = await self.matches._db(self.store.ledger, season_id)
            out["seq"] = len(self._entries(season, stored or [], who))
        if who.player in season.players and not who.host_id:
            out["you"]["garnets"] = season.players[who.player].garnets
            out["you"]["items"] = list(season.players[who.player].items)
        return out

    async def ledger(self, season_id: str, token: str | None) -> list[dict[str, Any]]:
        row, season = await self._season(season_id)
        who = await self.actor(row, token)
        self._may_read(row, season, who)
        ledger = await self.matches._db(self.store.ledger, season_id) or []
        return self._entries(season, ledger, who)

    async def seasons(self, token: str | None) -> list[dict[str, Any]]:
        """The seasons the token's host runs, oldest first (id, name, visibility)."""
        login = await self.matches.login(token, "listing seasons")
        rows = await self.matches._db(self.store.rows, login.host_id)
        return [{"id": r.id, "name": r.name, "visibility": r.visibility, "entries": r.seq} for r in rows]

    async def player_seasons(self, token: str | None) -> list[dict[str, Any]]:
        """The seasons the token's player is in (their page and profile), oldest first:
        each with the player's own row of the standings and what the season waits for."""
        if not token:
            raise Unauthenticated("missing_token", "a player's seasons need the player's login")
        plogin = await self.matches._db(self.matches.players.login_of, token_hash(token))
        if plogin is None:
            raise NotPermitted("wrong_token", "the token is not a player token of this server")
        check_login(plogin, self.now())
        me = plogin.player_id
        if not isinstance(me, str) or not me.isalnum():
            return []
        out = []
        for row in await self.matches._db(self.store.rows_of_player, me):
            ledger = await self.matches._db(self.store.ledger, row.id) or []
            season = replay(ledger)
            if me not in season.players:
                continue
            # the row the season page shows this player: with host-only transfers its place
            # among players still in must not follow the garnets of the others
            mine = next(r for r in self._standings(season, Actor(player=me)) if r["player"] == me)
            out.append({"id": row.id, "name": row.name, "round": season.round, "phase": season.phase,
                        "champion": season.champion, "standing": mine,
                        "your_turn": (season.phase == "choose" and season.candidate == me)
                        or (season.phase == "draft" and season.final_game is not None
                            and len(season.drafted) < 2 and season.draft_order()[len(season.drafted)] == me)})
        return out

    # ------------------------------------------------------------------ garnets

    async def transfer(self, season_id: str, token: str | None, to: str, garnets: int,
                       player: str | None = None) -> dict[str, Any]:
        """A player gives garnets to another: at once, never below zero (what a running
        main match holds of theirs cannot be given)."""
        _row, _season, who = await self._player(season_id, token, "a transfer", player)
        src = who.player
        await self._append(season_id, lambda s, seq: [entry("transfer", {"from": src, "to": to, "garnets": garnets})],
                           who)
        return await self.view(season_id, token)

    async def award(self, season_id: str, token: str | None, player: str, garnets: int, note: str = "",
                    correction: bool = False) -> dict[str, Any]:
        """A host gives garnets (``award``), or corrects a holding by a signed amount (``adjust``)."""
        _row, _season, who = await self._host(season_id, token, "awarding garnets")
        kind = "adjust" if correction else "award"
        await self._append(season_id, lambda s, seq: [entry(kind, {"player": player, "garnets": garnets,
                                                                    "note": str(note)[:200]})], who)
        return await self.view(season_id, token)

    # ------------------------------------------------------------------ main matches

    async def record_main(self, season_id: str, token: str | None, tokens: list[str], candidate: str,
                          seats: list[str] | None = None, awards: Mapping[str, int] | None = None,
                          game: str = "elsewhere", note: str = "") -> dict[str, Any]:
        """A main match played elsewhere: its token winners, garnets won and candidate."""
        _row, _season, who = await self._host(season_id, token, "recording a main match")
        if not isinstance(tokens, list) or not isinstance(candidate, str):
            raise Invalid("bad_request", "tokens is a list of players; candidate is a player")
        match_id = "x-" + self.matches.new_id()

        def build(s: Season, seq: int) -> list[dict[str, Any]]:
            played = list(seats) if seats else s.alive()
            return recorded_main(s, seq, match_id, str(game)[:32], played, tokens, candidate, dict(awards or {}),
                                 str(note)[:200])

        await self._append(season_id, build, who)
        return await self.view(season_id, token)

    async def run_main(self, season_id: str, token: str | None, players: list[str] | None = None,
                       options: Mapping[str, Any] | None = None, bots: Mapping[str, str] | None = None,
                       seed: int | None = None) -> dict[str, Any]:
        """A season's Black and Yellow on the server among three players (the three left,
        or three chosen): each brings their garnets from the ledger up to the game's bound;
        what they spend is written back when it ends, its winner gets the token and the
        other two go to the death match."""
        _row, season, who = await self._host(season_id, token, "running a main match")
        chosen = list(players) if players else season.alive()
        if len(chosen) != 3:
            raise Invalid("bad_seats", f"Black and Yellow seats three players; {len(chosen)} were given")
        bound = self._garnet_bound()
        stakes = {p: min(season.players[p].garnets - season.players[p].staked, bound)
                  for p in chosen if p in season.players}
        opts = {**dict(options or {}), "garnets": [stakes.get(p, 0) for p in chosen]}
        return await self._make(season_id, who, "main", "yellow", chosen, opts, bots, seed,
                                lambda mid: {"match": mid, "stage": "main", "game": "yellow", "seats": chosen,
                                             "garnets": {p: n for p, n in stakes.items() if n}})

    @staticmethod
    def _garnet_bound() -> int:
        info = game_class("yellow").option_info.get("garnets")
        return int(info.maximum) if info is not None and info.maximum is not None else 45

    # ------------------------------------------------------------------ death matches

    async def choose_opponent(self, season_id: str, token: str | None, opponent: str) -> dict[str, Any]:
        """The candidate (before the deadline) or a host names the death match's opponent."""
        row, season = await self._season(season_id)
        who = await self.actor(row, token)
        if who.host_id is None and (who.player is None or who.player != season.candidate):
            if not token:
                raise Unauthenticated("missing_token", "choosing the opponent needs the candidate's login")
            raise NotPermitted("not_candidate", "only the Elimination Candidate (or a host) chooses the opponent")
        by = "host" if who.host_id else "candidate"
        await self._append(season_id, lambda s, seq: [entry("opponent", {"player": opponent, "by": by})], who)
        return await self.view(season_id, token)

    async def death_match(self, season_id: str, token: str | None, game: str, options: Mapping[str, Any] | None = None,
                          bots: Mapping[str, str] | None = None, seed: int | None = None,
                          winner: str | None = None) -> dict[str, Any]:
        """The death match between the candidate (seat P1) and the opponent (P2, who holds
        the advantage: option ``dmo``).  With ``winner``, it was played elsewhere and this
        is its result."""
        _row, season, who = await self._host(season_id, token, "making the death match")
        if season.phase != "death" or season.candidate is None or season.opponent is None:
            raise WrongState("wrong_phase", f"the season is at {season.phase!r}: the death match is made once "
                                            "the opponent is chosen")
        seats = [season.candidate, season.opponent]
        if winner is not None:
            return await self._external(season_id, who, "death", game, seats, winner, token)
        opts = {**dict(options or {})}
        if "dmo" in make_game_defaults(game):
            opts["dmo"] = 1
        return await self._make(season_id, who, "death", game, seats, opts, bots, seed,
                                lambda mid: {"match": mid, "stage": "death", "game": game, "seats": seats})

    async def _external(self, season_id: str, who: Actor, stage: str, game: str, seats: list[str], winner: str,
                        token: str | None) -> dict[str, Any]:
        if winner not in seats:
            raise Invalid("bad_result", "the winner is one of the match's two players")
        match_id = "x-" + self.matches.new_id()
        ranking = [winner, *[p for p in seats if p != winner]]

        def build(s: Season, seq: int) -> list[dict[str, Any]]:
            created = entry("match_created", {"match": match_id, "stage": stage, "game": str(game)[:32],
                                              "seats": seats, "external": True})
            after = replay_with(s, created)
            return [created, *result_entries(after, seq + 1, match_id, ranking)]

        await self._append(season_id, build, who)
        return await self.view(season_id, token)

    # ------------------------------------------------------------------ finals

    async def final_game(self, season_id: str, token: str | None, game: str) -> dict[str, Any]:
        """A host sets the final's game; its items are what the finalists draft."""
        _row, _season, who = await self._host(season_id, token, "setting the final")
        try:
            cls = game_class(game)
        except UnknownGameError as exc:
            raise Invalid("bad_game", str(exc)) from None
        info = cls.option_info.get("items")
        if cls.num_seats != 2 or info is None or info.kind != "seat_items":
            raise Invalid("bad_final", f"{game} is not a two-seat game with items")
        items = [str(value) for value, _words in info.choices]
        await self._append(season_id, lambda s, seq: [entry("final_game", {"game": game, "items": items})], who)
        return await self.view(season_id, token)

    async def draft(self, season_id: str, token: str | None, items: list[str], player: str | None = None
                    ) -> dict[str, Any]:
        """A finalist's pick of the final's items, in turn (the first picks one, the other
        takes the rest)."""
        _row, _season, who = await self._player(season_id, token, "a pick of the final's items", player)
        me = who.player
        await self._append(season_id, lambda s, seq: [entry("draft", {"player": me, "items": list(items)})], who)
        return await self.view(season_id, token)

    async def final(self, season_id: str, token: str | None, options: Mapping[str, Any] | None = None,
                    bots: Mapping[str, str] | None = None, seed: int | None = None,
                    winner: str | None = None) -> dict[str, Any]:
        """The final, with the drafted items: the first picker at P1, the other at P2
        (who holds the advantage, having had the smaller choice)."""
        _row, season, who = await self._host(season_id, token, "making the final")
        if season.phase != "final" or season.final_game is None:
            raise WrongState("wrong_phase", f"the season is at {season.phase!r}: the final is made after the draft")
        seats = list(season.drafted)
        game = season.final_game
        if winner is not None:
            return await self._external(season_id, who, "final", game, seats, winner, token)
        opts = {**dict(options or {}), "items": {str(i): list(season.players[p].items) for i, p in enumerate(seats)}}
        if "dmo" in make_game_defaults(game):
            opts["dmo"] = 1
        return await self._make(season_id, who, "final", game, seats, opts, bots, seed,
                                lambda mid: {"match": mid, "stage": "final", "game": game, "seats": seats})

    # ------------------------------------------------------------------ making and settling matches

    async def _make(self, season_id: str, who: Actor, stage: str, game: str, seats: list[str],
                    options: dict[str, Any], bots: Mapping[str, str] | None, seed: int | None,
                    created: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
        """Make a season match on the server (seats by player), then write it to the ledger.

        The match is made first (its id is new), then the ledger entry under the season's
        lock; if the entry no longer fits (the season moved on meanwhile), the match is
        cancelled and the refusal stands."""
        assert stage in STAGES
        row, season = await self._season(season_id)
        for p in seats:
            if p not in season.players:
                raise Invalid("not_in_cast", f"{p!r} is not in the season's cast")
        bots = dict(bots or {})
        for p, spec in bots.items():
            if p not in seats or not isinstance(spec, str):
                raise Invalid("bad_seats", "bots are {player: bot spec} for seated players")
        try:  # the ledger's own check first: nothing is made for a match the season refuses
            replay_with(season, entry("match_created", created("probe")))
        except LedgerError as exc:
            raise _refusal(exc) from None
        seat_specs: list[dict[str, Any]] = [{"bot": bots[p]} if p in bots else {"name": season.players[p].name}
                                            for p in seats]
        made = await self.matches.create(who.token, game, options, seat_specs, host_sees_all=False,
                                         start=self.start_policy, seed=seed)
        try:
            await self._append(season_id, lambda s, seq: [entry("match_created", created(made.id))], who,
                               matches={made.id: {p: i for i, p in enumerate(seats)}})
        except Refused:
            await self.matches.cancel(made.id, who.token)
            raise
        await self._hosted_by_season(made.id, row.host_id, list(row.cohosts or []))
        tokens = list(made.seat_tokens)
        live = self.matches.matches.get(made.id)
        for i, p in enumerate(seats):  # a player with a login plays the seat from their own page
            if season.logins.get(p) and p not in bots and live is not None:
                await self.matches.bind_seat(live, i, p)
                tokens[i] = None
        if self.matches.matches.get(made.id) is not None and self.matches.matches[made.id].ended:
            await self.settle(made.id)
        view = await self.view(season_id, who.token)
        view["made"] = {"match": made.id, "players": seats, "seats": {p: tokens[i] for i, p in enumerate(seats)
                                                                      if tokens[i] is not None},
                        "spectator": made.spectator_token}
        return view

    async def settle(self, match_id: str) -> bool:
        """Write a season match's result to its ledger if it has ended (once: a second
        call, here or on another process, finds it written and writes nothing)."""
        found = await self.matches._db(self.store.season_of, match_id)
        if found is None or found[2]:
            return False
        season_id, seats, _settled = found
        if match_id not in self.matches.matches:  # a look at its status first: no replay of a running match
            status = await self.matches._db(self.matches.store.status_of, match_id)
            if status != "finished":
                return False
        try:
            match = await self.matches.find(match_id)
        except Refused:
            return False
        if match.status != "finished":
            return False
        ranking = self._ranking(match, seats)
        if ranking is None:
            log.warning("season match %s ended without a winner; its host voids it and plays again", match_id)
            return False
        spent = self._spent(match, seats)

        def build(s: Season, seq: int) -> list[dict[str, Any]]:
            m = s.matches.get(match_id)
            if m is None or m.finished:
                return []
            return result_entries(s, seq, match_id, ranking, spent)

        await self._append(season_id, build, Actor())
        return True

    @staticmethod
    def _ranking(match: "LiveMatch", seats: Mapping[str, int]) -> list[str] | None:
        by_seat = {seat: p for p, seat in seats.items()}
        result = match.state.result()
        if result.ranking is not None:
            return [by_seat[s] for s in result.ranking]
        if result.winner is None:
            return None
        return [by_seat[result.winner], *[by_seat[s] for s in sorted(by_seat) if s != result.winner]]

    @staticmethod
    def _spent(match: "LiveMatch", seats: Mapping[str, int]) -> dict[str, int]:
        start = match.options.get("garnets")
        left = getattr(match.state, "garnets", None)
        if not isinstance(start, list) or not isinstance(left, list):
            return {}
        return {p: int(start[s]) - int(left[s]) for p, s in seats.items() if int(start[s]) > int(left[s])}

    async def settle_all(self) -> int:
        """Settle every season match that ended without its result in the ledger."""
        n = 0
        for match_id, _season_id in await self.matches._db(self.store.unsettled):
            if match_id in self._settling:
                continue
            self._settling.add(match_id)
            try:
                n += await self.settle(match_id)
            except Refused as exc:
                log.warning("settling season match %s: %s", match_id, exc.message)
            finally:
                self._settling.discard(match_id)
        return n

    async def run(self, every: float = SETTLE_EVERY) -> None:
        """Settle ended season matches for as long as the server runs."""
        while True:
            try:
                await self.settle_all()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database away a moment: the next look tries again
                log.warning("settling season matches failed: %r", exc)
            await asyncio.sleep(every)

    async def void(self, season_id: str, token: str | None, match_id: str, note: str = "") -> dict[str, Any]:
        """A host voids a season match (its result and all that followed); the round is as
        before the match was made, to make it again.  A running server match is cancelled."""
        _row, _season, who = await self._host(season_id, token, "voiding a match")
        await self._append(season_id, lambda s, seq: [entry("void", {"match": match_id, "note": str(note)[:200]})],
                           who)
        live = self.matches.matches.get(match_id)
        if live is not None and not live.ended:
            try:
                await self.matches.cancel(match_id, token)
            except Refused as exc:
                log.info("voided season match %s was not cancelled: %s", match_id, exc.message)
        return await self.view(season_id, token)

    # ------------------------------------------------------------------ export and import

    async def export(self, season_id: str, token: str | None) -> dict[str, Any]:
        """The whole season (hosts only): its ledger, standings and every server match's record."""
        await self._host(season_id, token, "exporting a season")
        return await self.export_unchecked(season_id)

    async def export_unchecked(self, season_id: str) -> dict[str, Any]:
        """The export, for whoever already may (a host, or the operator on the database)."""
        row, season = await self._season(season_id)
        ledger = await self.matches._db(self.store.ledger, season_id) or []
        records = []
        for mid in season.order:
            m = season.matches[mid]
            if m.external:
                continue
            try:
                live = await self.matches.find(mid)
            except Refused:
                continue
            records.append({"match": mid, "stage": m.stage, "round": m.round,
                            "record": to_record(live.state, [season.players[p].name for p in m.seats], seed=None)})
        return {"format": EXPORT_FORMAT, "name": row.name, "visibility": row.visibility, "ledger": ledger,
                "standings": standings_rows(season), "records": records}

    async def import_season(self, token: str | None, data: Any) -> dict[str, Any]:
        """A season exported elsewhere, as a new season of the token's host: its ledger is
        replayed (refused whole if any entry does not fit); its records are kept in the
        ledger's export only (its server matches are not made here)."""
        login = await self.matches.login(token, "importing a season")
        if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT or not isinstance(data.get("ledger"),
                                                                                                   list):
            raise Invalid("bad_import", f"a season export has format {EXPORT_FORMAT!r} and a ledger")
        try:  # what the database stores is JSON: no NaN or infinity, nothing nested without end
            ledger = json.loads(json.dumps(data["ledger"], allow_nan=False))
            season = replay(ledger)
        except (ValueError, TypeError, RecursionError) as exc:
            raise Invalid("bad_import", exc.message if isinstance(exc, LedgerError)
                          else f"the ledger is not plain JSON: {type(exc).__name__}") from None
        if isinstance(data.get("standings"), list) and data["standings"] != standings_rows(season):
            raise Invalid("bad_import", "the export's standings are not what its ledger replays to")
        # the cast as a creation checks it: a player of this server is the importing host's
        # own (else a stranger's season would name them: their page, profile, seats and
        # mail); a login whose player is not here is a name here, acted for by the hosts
        for i, member in enumerate(ledger[0]["data"]["cast"]):
            pid = member["player"]
            row = await self.matches._db(self.matches.players.get, pid) if _plain_id(pid) else None
            if row is not None and row.host_id != login.host_id:
                raise Unknown("unknown_player", f"cast member {i + 1}: this host has no player {pid[:40]!r} "
                                                "(a season's cast are players its host made, or names)")
            if row is None and member.get("login"):
                member["login"] = False
        season = replay(ledger)
        visibility = data.get("visibility", "public")
        if visibility not in VISIBILITY:
            raise Invalid("bad_import", f"visibility is one of {', '.join(VISIBILITY)}")
        season_id = self.matches.new_id()
        await self.matches._db(self.store.create, season_id, season.name, login.host_id, visibility, self.now(),
                               ledger)
        return {"id": season_id, **await self.view(season_id, token)}

    async def standings_csv(self, season_id: str, token: str | None) -> str:
        rows = (await self.view(season_id, token))["standings"]
        return standings_csv(rows)


def _plain_id(pid: Any) -> bool:
    """Whether ``pid`` could be a player's id (short, letters and digits): anything else is
    no player's, and is not sent to the database (a NUL byte fails PostgreSQL's query)."""
    return isinstance(pid, str) and 0 < len(pid) <= 32 and pid.isascii() and pid.isalnum()


def replay_with(season: Season, new: dict[str, Any]) -> Season:
    """``season`` with one more entry applied (a check made before something is built on it)."""
    import copy

    from .season_ledger import _apply

    after = copy.deepcopy(season)
    _apply(after, {**new, "seq": season.seq + 1, "at": 0.0})
    return after


def make_game_defaults(game: str) -> dict[str, Any]:
    """A game's default options (Invalid ``bad_game`` if it is not installed)."""
    try:
        return dict(make_game(game, {}).options)
    except UnknownGameError as exc:
        raise Invalid("bad_game", str(exc)) from None
    except Exception as exc:
        raise Invalid("bad_game", f"{game}: {exc}") from None


def standings_rows(season: Season) -> list[dict[str, Any]]:
    """The export's standings: ``player``, ``garnets``, ``tokens``, ``eliminated_round``, ``place``."""
    return [{k: r[k] for k in ("player", "garnets", "tokens", "eliminated_round", "place")}
            for r in season.standings()]


def standings_csv(rows: list[dict[str, Any]]) -> str:
    """Standings as CSV: place, player, name, garnets, tokens, eliminated_round."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["place", "player", "name", "garnets", "tokens", "eliminated_round"])
    for r in rows:
        writer.writerow([r["place"], r["player"], _cell(r.get("name", "")), "" if r["garnets"] is None else r["garnets"],
                         r["tokens"], "" if r["eliminated_round"] is None else r["eliminated_round"]])
    return out.getvalue()


def _cell(text: Any) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


__all__ = ["Actor", "SeasonService", "botseats", "standings_csv", "standings_rows"]
