"""The lifecycle part of the match service: a match from its creation (checked,
counted against the quotas, stored) through its start (when everyone joined, at once, or at
a set time), its actions (the one checked path, :meth:`LifecyclePart._commit_action`: apply
to a copy, commit, swap, tell), the host's controls (pause, resume, extra time, start,
cancel) to its end, and what happens when the game's own code fails (the match pauses, its
host is told)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import secrets
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, AsyncIterator

from ..engine import (
    RESIGN,
    ActionSyntaxError,
    Game,
    GameOverError,
    LIVE,
    IllegalActionError,
    NotYourTurnError,
    OptionError,
    Pace,
    State,
    UnknownGameError,
    make_game,
)
from .. import names
from . import bots as botseats
from . import clocks as clk
from .limits import QuotaExceeded, client_key
from .errors import Invalid, Malformed, NotPermitted, OverQuota, StoreUnavailable, Unknown, WrongState
from .notify_store import seat_email_rows
from .store import StaleWrite, token_hash
from .players_store import PlayerStore, resolve_seats
from .service_live import LiveMatch, NewMatch, Role

if TYPE_CHECKING:
    from .service import MatchService

log = logging.getLogger("blackwhite.server")

#: seconds a refused creator is refused again from memory (unless a match ends here first)
FULL_FOR = 1.0
#: when a match's clocks start: once every person's seat has opened its link, at once, or at a set time
START_POLICIES = ("when_joined", "now", "at")


def _chance_rng(seed: int, index: int) -> random.Random:
    """The rng of the chance event at ``index``: a function of the stored seed and position,
    so a restarted server draws what the first would have (there is no rng state to keep)."""
    return random.Random(f"{seed}/{index}")


def _event_row(seat: int | None, action: str | None, chance: dict[str, Any] | None, index: int, now: float,
               readings: dict[str, Any]) -> dict[str, Any]:
    return {"idx": index, "seat": seat, "action": action, "chance": chance, "arrived_at": now, "clocks": readings}


class LifecyclePart:
    """A match from creation to its end (a part of :class:`~blackwhite.server.service.MatchService`)."""

    def __init__(self, svc: MatchService) -> None:
        self.svc = svc
        #: who was refused a new match (a token's hash, an address key, "*": everyone), until when, and how
        self._full: dict[str, tuple[float, OverQuota]] = {}

    async def create(self, host_token: str | None, game_id: str, options: dict[str, Any], seats: list[dict[str, Any]],
                     host_sees_all: bool, paused: bool = False, start: str = "when_joined",
                     start_at: float | None = None, address: str | None = None,
                     emails: dict[int, str] | None = None, pace: Pace = LIVE, seed: int | None = None) -> NewMatch:
        """Make and store a match (its clocks start as ``start`` says): its id, links' tokens, summary.
        ``seed`` draws its chance events and seeds its bots (a season's simulation: the same
        seed, the same match); None: a fresh random one.
        The running matches are counted in the database as it is stored (:attr:`quotas`):
        per host (an anonymous host's few, whichever of its links is used), per client
        ``address`` of anonymous hosts (an IPv6 one by its /64), bot-only ones per host,
        and overall; over a bound, OverQuota ``too_many_matches`` and nothing is stored."""
        self._check_start(start, start_at)
        key = client_key(address)
        # who was just refused is refused again without building a match or a transaction,
        # until a match ends here or a second has passed (one ending on another process)
        asker = token_hash(host_token) if host_token else key
        if seats and all(isinstance(seat, dict) and "bot" in seat for seat in seats):
            asker += "/bots"  # bot-only matches have a bound of their own
        for who in (asker, "*"):
            refusal = self._full.get(who)
            if refusal is not None and self.svc.now() < refusal[0]:
                raise refusal[1]
        try:
            return await self._create(self.svc.new_id(), host_token, game_id, options, seats, host_sees_all,
                                      paused, start, start_at, key, emails or {}, pace, seed)
        except OverQuota as exc:
            if len(self._full) > 10_000:
                self._full.clear()
            self._full["*" if "the server has" in exc.message else asker] = (self.svc.now() + FULL_FOR, exc)
            raise

    async def _create(self, match_id: str, host_token: str | None, game_id: str, options: dict[str, Any],
                      seats: list[dict[str, Any]], host_sees_all: bool, paused: bool, start: str,
                      start_at: float | None, address: str, emails: dict[int, str] | None = None,
                      pace: Pace = LIVE, seed: int | None = None) -> NewMatch:
        new_host = None
        if host_token:
            host_id = (await self.svc.login(host_token)).host_id
            host_hash = token_hash(host_token)
        else:  # a new host, whose first link is this token
            host_token = secrets.token_urlsafe(24)
            host_hash = token_hash(host_token)
            host_id = secrets.token_hex(8)
            new_host = self.svc.now()
        bound: dict[int, str] = {}
        if any(isinstance(s, dict) and s.get("player") is not None for s in seats):
            if new_host is not None:
                raise Unknown("unknown_player", "a match made without a host token seats no players "
                                                "(a host seats the players it made)")
            seats, bound = await self.svc.storage._db(resolve_seats, self.svc.players, host_id, seats)
        game, state = self._make(game_id, options)
        clean_seats = self._check_seats(game_id, game.num_seats, seats, self.svc.quotas.bot_budget)
        now = self.svc.now()
        if seed is None:
            seed = secrets.randbits(62)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
            raise Invalid("bad_seed", f"a match's seed is a whole number 0..2**62-1, got {seed!r}")
        rows: list[dict[str, Any]] = []
        self._draw_chance(state, seed, rows, now)
        joined = ["bot" in s for s in clean_seats]
        ready = (start == "now" or (start == "when_joined" and all(joined))
                 or (start == "at" and start_at is not None and start_at <= now))
        clocks = clk.set_started(clk.set_paused(clk.initial(pace.rule(game.clock_rule()), state, pace.match_seconds), paused), ready)
        for row in rows:
            row["clocks"] = clocks.to_json()
        # A bot's seat gets a watch token (that seat's view; it may not act) only where
        # that tells nobody playing anything new: when every seat is a bot, or when the
        # host sees everything anyway.  Otherwise a host who also plays could read the
        # bot's hand.
        watchable = host_sees_all or all("bot" in s for s in clean_seats)
        seat_tokens: list[str | None] = [
            None if i in bound else secrets.token_urlsafe(24) if watchable or "bot" not in s else None
            for i, s in enumerate(clean_seats)
        ]
        spectator_token = secrets.token_urlsafe(24)
        live = LiveMatch(
            id=match_id, game_id=game.id, options=game.given_options(), seats=clean_seats, host_hash=host_hash,
            seat_hashes=[token_hash(t) if t else None for t in seat_tokens],
            spectator_hash=token_hash(spectator_token), host_sees_all=host_sees_all, status="running",
            seed=seed, created=now, state=state, version=len(rows), clocks=clocks, clock_at=now,
            step_version=len(rows), host_id=host_id, start=start, start_at=start_at if start == "at" else None, joined=joined,
            pace=pace,
        )
        if state.is_over():
            live.status = "finished"
        live.look(step_opened=True, start=True)
        if self.svc.cluster is not None:  # this process owns what it creates (the lock before the row: no one scans it first)
            if self.svc.owning._relock_needed:
                async with self.svc.owning._adopting:
                    await self.svc.owning._relock()
            try:
                try:
                    locked = await self.svc.storage._db(self.svc.cluster.try_lock, match_id)
                except ConnectionError:  # found dead now (its lease was taken, say): the locks again, once
                    self.svc.owning._relock_needed = True
                    async with self.svc.owning._adopting:
                        await self.svc.owning._relock()
                    locked = await self.svc.storage._db(self.svc.cluster.try_lock, match_id)
            except ConnectionError:
                self.svc.owning._relock_needed = True
                raise StoreUnavailable("store_unavailable", "the server lost its database connection; try again") from None
            if not locked:
                raise StoreUnavailable("store_unavailable", "the new match's id is locked by another process; try again")
            self.svc.owning._held.add(match_id)
        try:
            await self.svc.storage._db(self.svc.store.create_match, {
                "id": live.id, "game": live.game_id, "options": live.options, "seats": live.seats,
                "host_hash": host_hash, "seat_hashes": live.seat_hashes, "spectator_hash": live.spectator_hash,
                "host_sees_all": host_sees_all, "status": live.status, "paused": paused, "seed": seed,
                "created": now, "version": live.version, "clocks": clocks.to_json(), "clock_at": now,
                "public_version": live.seen[None][0] if live.ended else None,
                "start": live.start, "start_at": live.start_at, "joined": joined,
                "host_id": host_id, "cohosts": [], "bot_only": all("bot" in s for s in clean_seats),
                "pace": pace.to_json(),
            }, rows, new_host, self.svc.quotas, address, PlayerStore.binding(match_id, bound, now) if bound else None,
                  seat_email_rows(match_id, emails or {}))
        except QuotaExceeded as exc:
            if self.svc.cluster is not None:
                await self.svc.storage._db(self.svc.owning._release_now, match_id)
            raise self._over_quota(exc) from None
        except BaseException:
            if self.svc.cluster is not None:
                with contextlib.suppress(Exception):
                    await self.svc.storage._db(self.svc.owning._release_now, match_id)
            raise
        live.touched = now
        self.svc.matches[live.id] = live
        if self.svc.cluster is not None:
            await self.svc.storage._db(self.svc.cluster.owned, live.id, now)
            if live.ended:
                await self.svc.owning._release(live)
        self.svc.bots._schedule_bots(live)
        self.svc._tell_watchers(live)
        return NewMatch(live.id, host_token, new_host is not None, spectator_token, seat_tokens, self.svc.summary(live),
                        [bound.get(i) for i in range(len(clean_seats))])

    @staticmethod
    def _over_quota(exc: QuotaExceeded) -> OverQuota:
        what = {
            "total": "the server has {n} running matches, the most it takes; try again later",
            "host": "this host has {n} running matches, the most it may; end one first",
            "address": "this address has {n} running matches made by hosts without a link from the operator, "
                       "the most it may; end one, or ask the operator for a host link",
            "bots": "this host has {n} running matches of bots only, the most it may; end one first",
        }[exc.kind]
        return OverQuota("too_many_matches", what.format(n=exc.count))

    @staticmethod
    def _check_start(start: str, start_at: float | None) -> None:
        """Invalid ``bad_start`` unless ``start`` is a policy and ``start_at`` is given exactly for ``at``."""
        if start not in START_POLICIES:
            raise Invalid("bad_start", f"start is one of {', '.join(START_POLICIES)}; got {start[:40]!r}")
        if start == "at":
            if start_at is None or not math.isfinite(start_at) or start_at <= 0:
                raise Invalid("bad_start", "start 'at' needs start_at, a moment in Unix seconds")
        elif start_at is not None:
            raise Invalid("bad_start", f"start_at is given only with start 'at' (start is {start!r})")

    @classmethod
    def default_seats(cls, game_id: str, options: dict[str, Any]) -> list[dict[str, Any]]:
        """A person per seat of the game, named P1, P2...: the seats of a match created
        without any; Invalid ``bad_game`` / ``bad_options`` as :meth:`create` would say."""
        return [{"name": f"P{i + 1}"} for i in range(cls._make(game_id, options)[0].num_seats)]

    @staticmethod
    def _make(game_id: str, options: dict[str, Any]) -> tuple[Game, State]:
        """The game and its first state, or Invalid ``bad_game`` / ``bad_options`` naming the problem."""
        try:
            game = make_game(game_id, options)
            return game, game.new_initial_state()
        except UnknownGameError as exc:
            raise Invalid("bad_game", str(exc)) from None
        except OptionError as exc:
            raise Invalid("bad_options", f"options {options!r} for {game_id}: {exc}") from None
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            # a value of a type the game's own check did not expect: still the caller's options
            raise Invalid("bad_options", f"options {options!r} for {game_id} are not valid: {exc!r}") from None
        except Exception as exc:  # the game's own code failed to set up a match: nothing is made
            log.error("game %s failed to start a match with options %r", game_id, options, exc_info=exc)
            raise Invalid("bad_game", f"the game {game_id} failed to start a match "
                                      f"({type(exc).__name__}: {str(exc)[:200]}); its package needs fixing") from None

    @staticmethod
    def _check_seats(game_id: str, n: int, seats: list[dict[str, Any]], cap: float) -> list[dict[str, str]]:
        """The seats as stored: names cleaned, a bot's spec as it plays under ``cap`` (the
        server's ``--max-bot-budget``: see ``bots.playing_spec``)."""
        if len(seats) != n:
            raise Invalid("bad_seats", f"{game_id} is played by {n} seats; {len(seats)} were given")
        out: list[dict[str, str]] = []
        for i, seat in enumerate(seats):
            name, bot = seat.get("name"), seat.get("bot")
            if (name is None) == (bot is None):
                raise Invalid("bad_seats", f"P{i + 1} must have exactly one of 'name' (a person) or 'bot' (a bot spec)")
            if name is not None:
                wrong = names.problem(name)
                if wrong is not None:
                    raise Invalid("bad_seats", f"P{i + 1}'s name: {wrong}")
                out.append({"name": names.clean(name)})
            else:
                if not isinstance(bot, str) or len(bot) > 200:
                    raise Invalid("bad_seats", f"P{i + 1}: a bot is a spec such as 'ismcts:budget=2', got {bot!r}")
                try:
                    botseats.check_spec(bot)
                except ValueError as exc:
                    raise Invalid("bad_seats", f"P{i + 1}: {exc}") from None
                out.append({"bot": botseats.playing_spec(bot, cap)})
        return out

    def _draw_chance(self, state: State, seed: int, rows: list[dict[str, Any]], now: float) -> None:
        """Draw every chance event now due, each written as an explicit event row."""
        while state.is_chance():
            index = len(state.history)
            event = state.sample_chance(_chance_rng(seed, index))
            state.apply_chance(event, drawn=True)
            rows.append(_event_row(None, None, event.to_json(), index, now, {}))  # readings: once the step is known

    async def _commit_action(self, match: LiveMatch, seat: int, text: str) -> None:
        """The one checked path for persons, bots and timeouts: apply to a copy, commit, swap, tell.
        Called under ``match.lock``: nothing else changes the match while the commit is awaited."""
        now = self.svc.now()
        state = match.state.clone()
        before = clk.awaited_seats(state)
        charged = clk.charge_between(match.clocks, match.clock_at, now, match.pace)
        try:
            action = state.parse(seat, text)
        except ActionSyntaxError as exc:
            raise Invalid("notation", str(exc)) from None
        except Exception as exc:  # a game's parser tripping on odd text: still unreadable notation
            log.warning("parsing %r for %s raised %r", text, match.game_id, exc)
            raise Invalid("notation", f"{text!r} is not notation of {match.game_id}") from None
        try:
            state.apply(seat, action)  # on a copy: whatever it raises, the match is untouched
        except GameOverError as exc:
            raise WrongState("match_over", str(exc)) from None
        except NotYourTurnError as exc:
            raise WrongState("not_your_turn", str(exc)) from None
        except IllegalActionError as exc:
            raise Invalid("illegal", str(exc)) from None
        except Exception as exc:  # not a refusal of the rules: the game's code failed
            raise self._game_failed(match, "apply", exc) from None
        try:  # still the game's code (chance, clock phases, the end, the public view)
            free = state.is_free(action) and action != RESIGN
            index = len(match.state.history)
            rows = [_event_row(seat, botseats.action_text(state, action), None, index, now, {})]
            self._draw_chance(state, match.seed, rows, now)
            clocks = clk.after_event(charged, match.rule(), state, before, set() if free else {seat})
            readings = clocks.to_json()
            for row in rows:
                row["clocks"] = readings
            status = "finished" if state.is_over() else match.status
            version = match.version + len(rows)
            public = match.public_version_after(state, status) if status != "running" else None
        except Exception as exc:
            raise self._game_failed(match, "rules after the action", exc) from None
        if match.dropped:
            raise self.svc.owning._moved(match)
        try:
            await self.svc.storage._db(self.svc.store.append, match.id, rows, {"version": version, "status": status, "clocks": readings,
                                                               "clock_at": now, "public_version": public}, match.version,
                           match.epoch if self.svc.cluster is not None else None)
        except StaleWrite:
            self.svc.owning._drop(match, "another process took it over (its version or epoch moved on)")
            raise self.svc.owning._moved(match) from None
        match.state, match.version, match.clocks, match.clock_at, match.status = state, version, clocks, now, status
        match.touched = now
        opened = not state.pending and not free
        if opened:
            # a side action (an item use, a proposal) opens no new step: answers to the
            # step under way stay valid, and a flood of proposals cannot stall the other seat
            match.step_version = version
        self.svc.metrics.actions.inc()
        self.svc._broadcast(match, match.look(opened))
        self._after_fault(match)
        self.svc.bots._schedule_bots(match)
        if match.ended:
            await self.svc.owning._release(match)
            for hook in self.svc.on_ended:
                hook(match.id)

    async def submit(self, match_id: str, token: str | None, text: str, version: int, *,
                     answer_view: bool = True) -> dict[str, Any]:
        """A seat's action; the answer comes only after it is committed.  A socket's ack
        needs only the version (its view is pushed anyway): ``answer_view=False``."""
        match = self.svc.get(match_id)
        role = await self.svc.role_for(match, token)
        if role.kind != "seat" or role.seat is None:
            raise NotPermitted("wrong_token", f"only a seat's token may act in match {match.id}; this is the {role.kind}'s")
        bot = match.seats[role.seat].get("bot")
        if bot is not None:
            raise NotPermitted("wrong_token", f"P{role.seat + 1} of match {match.id} is played by bot {bot!r}; its link only watches")
        await self.join(match, role)
        async with match.lock:
            if match.dropped:  # let go while this waited: what memory says of it is no longer the match
                raise self.svc.owning._moved(match)
            self._check_open(match)
            mine, began = match.version_for(role), match.seen_step.get(role.seat, match.step_version)
            if not began <= version <= mine:
                raise WrongState("stale_version", f"version {version} is stale: you are at version {mine} of match {match.id} (the step now open began at your version {began}); reload the view")
            if text.strip().lower() == "timeout":
                raise Invalid("illegal", "timeout: only the server's clock applies a timeout; send an action or resign")
            await self._commit_action(match, role.seat, text)
            if not answer_view:
                return {"version": match.version_for(role)}
            payload = self.svc.view_payload(match, role)
        return {"version": payload["version"], "view": payload["view"], "clocks": payload["clocks"]}

    @staticmethod
    def _check_open(match: LiveMatch) -> None:
        if match.status != "running":
            raise WrongState("match_over", f"match {match.id} is {match.status}; no further action is taken")
        if match.paused:
            raise WrongState("paused", f"match {match.id} is paused by its host; actions wait for resume")
        if not match.started:
            raise WrongState("not_started", f"match {match.id} has not started: {match.waiting_text()}")

    async def join(self, match: LiveMatch, role: Role) -> None:
        """A seat opened its link (a page, a view, a socket, an action): note it once,
        and start the clocks of a ``when_joined`` match once every person has.  Once a
        match has started or ended nothing waits on who joined, so nothing is written: a
        seat's first look at it is a pure read, answered at once even while another
        process holds the database's lock."""
        seat = role.seat
        if role.kind != "seat" or seat is None or match.joined_seat(seat) or not match.waiting():
            return
        async with match.lock:
            if match.dropped:
                raise self.svc.owning._moved(match)
            if match.joined_seat(seat) or not match.waiting():
                return
            joined = [match.joined_seat(i) for i in range(len(match.seats))]
            joined[seat] = True
            changes: dict[str, Any] = {"joined": joined}
            now = self.svc.now()
            begin = (match.status == "running" and not match.started and match.start == "when_joined"
                     and all(joined))
            clocks = clk.set_started(match.clocks, True) if begin else match.clocks
            if begin:
                changes.update(clocks=clocks.to_json(), clock_at=now)
            if match.status == "running":
                await self.svc.owning._fenced(match, changes)
            else:  # an ended match is final: no process moves it on, nothing to fence
                await self.svc.storage._db(self.svc.store.update, match.id, changes)
            match.joined = joined
            if begin:
                match.clocks, match.clock_at = clocks, now
            self.svc._broadcast(match)
            if begin:
                self.svc.bots._schedule_bots(match)

    async def _begin(self, match: LiveMatch) -> None:
        """Start the clocks now (the caller holds the match's lock): store, then tell."""
        now = self.svc.now()
        clocks = clk.set_started(match.clocks, True)
        await self.svc.owning._fenced(match, {"clocks": clocks.to_json(), "clock_at": now})
        match.clocks, match.clock_at = clocks, now
        self.svc._broadcast(match)
        self.svc.bots._schedule_bots(match)

    async def start_now(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The host starts a waiting match by hand (whoever has not joined is charged from now)."""
        async with self._controlling(match_id, token, "start it") as match:
            if match.started:
                raise WrongState("already_started", f"the clocks of match {match.id} have already started")
            await self._begin(match)
        return self.svc.summary(match, hosting=True)

    @contextlib.asynccontextmanager
    async def _controlling(self, match_id: str, token: str | None, what: str,
                           over: str = "is") -> AsyncIterator[LiveMatch]:
        """A host's control of a running match: the token is a host's of it, the match's
        lock is held, and an ended match is refused (``match_over``: "match M {over} S")."""
        match = self.svc.get(match_id)
        await self.svc.hosts._host(match, token, what)
        async with match.lock:
            if match.dropped:  # let go while this waited (another process owns it now)
                raise self.svc.owning._moved(match)
            if match.status != "running":
                raise WrongState("match_over", f"match {match.id} {over} {match.status}")
            yield match

    async def cancel(self, match_id: str, token: str | None) -> dict[str, Any]:
        async with self._controlling(match_id, token, "cancel it", over="is already") as match:
            await self._stop(match)
        return self.svc.summary(match, hosting=True)

    async def _stop(self, match: LiveMatch) -> None:
        """Cancel a running match (under its lock): clocks stopped, stored, told, let go."""
        now = self.svc.now()
        charged = clk.charge_between(match.clocks, match.clock_at, now, match.pace)
        stopped = replace(charged, seats=tuple(clk.SeatClock(False, 0.0, s.reserve_left) for s in charged.seats),
                          phase_seconds=0.0)
        await self.svc.owning._fenced(match, {"status": "cancelled", "clocks": stopped.to_json(), "clock_at": now,
                                   "public_version": match.version_for(Role("spectator"))})
        match.status, match.clocks, match.clock_at, match.touched = "cancelled", stopped, now, now
        self.svc._broadcast(match)
        await self.svc.owning._release(match)

    def _game_failed(self, match: LiveMatch, where: str, exc: BaseException) -> WrongState:
        """The game's own code raised on an action (nothing of it was played): the
        match is paused and its host told; the refusal the sender gets."""
        match.faulted(where, exc)
        self._after_fault(match)
        return WrongState("game_fault", f"the game {match.game_id} failed on this action (nothing was played); "
                                        f"match {match.id} is paused and its host told")

    def _after_fault(self, match: LiveMatch) -> None:
        """Pause a match whose game has just failed (once per fault), in a task of its
        own: the caller may hold the match's lock."""
        if match.fault is None or match.fault_paused or match.status != "running":
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        match.fault_paused = True
        task = loop.create_task(self._pause_for_fault(match))
        self.svc._tasks.add(task)
        task.add_done_callback(self.svc._tasks.discard)

    async def _pause_for_fault(self, match: LiveMatch) -> None:
        """Pause the match (stored, like a host's pause) and push it: its host sees the fault."""
        try:
            async with match.lock:
                if match.dropped or match.status != "running":
                    return
                if not match.paused:
                    now = self.svc.now()
                    clocks = clk.set_paused(clk.charge_between(match.clocks, match.clock_at, now, match.pace), True)
                    await self.svc.owning._fenced(match, {"paused": True, "clocks": clocks.to_json(), "clock_at": now})
                    match.clocks, match.clock_at = clocks, now
                self.svc._broadcast(match)
        except Exception:  # the store is down, or the match moved: its host may pause it by hand
            log.exception("pausing match %s after its game failed did not succeed", match.id)

    async def pause(self, match_id: str, token: str | None, paused: bool) -> dict[str, Any]:
        async with self._controlling(match_id, token, "pause or resume it") as match:
            if not paused:  # the host resumes: a new failure of the game pauses it again
                match.fault, match.fault_paused = None, False
            if match.paused != paused:
                now = self.svc.now()
                clocks = clk.set_paused(clk.charge_between(match.clocks, match.clock_at, now, match.pace), paused)
                await self.svc.owning._fenced(match, {"paused": paused, "clocks": clocks.to_json(), "clock_at": now})
                match.clocks, match.clock_at = clocks, now
                self.svc._broadcast(match)
                if not paused:
                    self.svc.bots._schedule_bots(match)
        return self.svc.summary(match, hosting=True)

    async def add_time(self, match_id: str, token: str | None, seat: int | None, seconds: float) -> dict[str, Any]:
        async with self._controlling(match_id, token, "give time") as match:
            now = self.svc.now()
            try:
                clocks = clk.add_time(clk.charge_between(match.clocks, match.clock_at, now, match.pace), seat, seconds, match.pace.extra_time_cap())
            except ValueError as exc:
                raise Malformed("bad_request", str(exc)) from None
            await self.svc.owning._fenced(match, {"clocks": clocks.to_json(), "clock_at": now})
            match.clocks, match.clock_at = clocks, now
            self.svc._broadcast(match)
            return clocks.to_json()

    async def bind_seat(self, match: LiveMatch, seat: int, player_id: str) -> None:
        """Bind a person's seat to a player (players.py checked who asks): only while the
        match waits for its players and that seat has not been opened.  Its seat link opens
        it no more; the row and the binding change in one transaction."""
        async with match.lock:
            if match.dropped:
                raise self.svc.owning._moved(match)
            if not match.waiting() or match.joined_seat(seat):
                raise WrongState("seat_taken", f"P{seat + 1} of match {match.id} can be bound to a player only "
                                               "before it is opened and before the match starts")
            hashes = list(match.seat_hashes)
            hashes[seat] = None
            await self.svc.owning._fenced(match, {"seat_hashes": hashes},
                               PlayerStore.binding(match.id, {seat: player_id}, self.svc.now()))
            match.seat_hashes = hashes
            for sub in list(match.subscribers):  # whoever watched through the seat link watches no more
                if sub.role == Role("seat", seat) and sub.player_digest is None:
                    sub.revoke()
        self.svc._tell_watchers(match)  # the notifier: the seat now has the player's channels
