"""A whole season played by bots through the season and match services (``blackwhite
season simulate``): the season's own end-to-end check and a demonstration for hosts.

Every match is made by :class:`~blackwhite.server.service_seasons.SeasonService` and
played through :meth:`MatchService.submit`, each move chosen by a bot at a fixed number
of iterations from a seed derived from the season's seed, one seat after another: the
same seed gives the same season (ids, moments and every move), on any database.  Main
matches alternate between results a host enters (tokens, garnets, a candidate) and a
Black and Yellow played on the server; death matches go round every installed two-seat
game without items; the final is drafted and played.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import itertools
import random
from typing import Any, Callable

from ..engine import game_class, game_ids
from . import bots as botseats
from .errors import Refused
from .service import MatchService
from .service_seasons import SeasonService
from .store import Store, make_engine, migrate, token_hash

#: the moment a simulated season starts (its clock moves a millisecond per reading)
EPOCH = 1_767_225_600.0


class StepClock:
    """A clock that moves on a millisecond each time it is read: moments in the ledger
    and the matches are the same on every run."""

    def __init__(self, start: float = EPOCH) -> None:
        self.t = start

    def __call__(self) -> float:
        self.t += 0.001
        return self.t


def duel_games() -> list[str]:
    """Every installed two-seat game without items: the death matches' games, in turn."""
    out = []
    for gid in game_ids():
        cls = game_class(gid)
        if cls.num_seats == 2 and "items" not in cls.option_info:
            out.append(gid)
    return out


def final_games() -> list[str]:
    """Every installed two-seat game with items: a final's game."""
    out = []
    for gid in game_ids():
        cls = game_class(gid)
        info = cls.option_info.get("items")
        if cls.num_seats == 2 and info is not None and info.kind == "seat_items":
            out.append(gid)
    return out


class Simulation:
    """One season of ``players`` bot players over ``service``, seeded by ``seed``."""

    def __init__(self, matches: MatchService, seasons: SeasonService, host: str, players: int, seed: int,
                 iterations: int = 30, small: bool = False, progress: Callable[[str], None] | None = None) -> None:
        self.matches, self.seasons, self.host = matches, seasons, host
        self.players, self.seed, self.iterations, self.small = players, seed, iterations, small
        self.rng = random.Random(seed)
        self.say = progress or (lambda _line: None)
        self.duels = duel_games()
        self.finals = final_games()
        self.season_id = ""
        self.deaths = 0

    def options(self, game: str) -> dict[str, Any]:
        return dict(game_class(game).small_options) if self.small else {}

    async def run(self) -> dict[str, Any]:
        cast = [{"name": f"Player {i + 1}"} for i in range(self.players)]
        made = await self.seasons.create(self.host, f"Simulated season {self.seed}", cast, garnets=6, rules={})
        self.season_id = made["id"]
        self.say(f"season {self.season_id}: {self.players} players, seed {self.seed}")
        while True:
            view = await self.seasons.view(self.season_id, self.host)
            phase = view["phase"]
            if phase == "over":
                break
            if phase == "main":
                await self.transfers(view)
                await self.main(view)
            elif phase == "choose":
                pick = self.rng.choice(sorted(view["eligible_opponents"]))
                await self.seasons.choose_opponent(self.season_id, self.host, pick)
            elif phase == "death":
                game = self.duels[self.deaths % len(self.duels)]
                self.deaths += 1
                made = await self.seasons.death_match(self.season_id, self.host, game, self.options(game),
                                                      seed=self.rng.randrange(2**62))
                await self.play(made["made"], f"round {view['round']}: death match {game}")
            elif phase == "draft":
                if view["final_game"] is None:
                    await self.seasons.final_game(self.season_id, self.host, self.rng.choice(self.finals))
                    continue
                who = view["draft_order"][len(view["drafted"])]
                left = view["items_left"]
                pick = [self.rng.choice(left)] if not view["drafted"] else list(left)
                await self.seasons.draft(self.season_id, self.host, pick, player=who)
            elif phase == "final":
                made = await self.seasons.final(self.season_id, self.host, self.options(view["final_game"]),
                                                seed=self.rng.randrange(2**62))
                await self.play(made["made"], f"final {view['final_game']}")
            else:
                raise RuntimeError(f"the simulation does not expect phase {phase!r}")
        await self.seasons.settle_all()
        export = await self.seasons.export(self.season_id, self.host)
        champion = export["standings"][0]["player"]
        self.say(f"champion: {champion}; {self.deaths} death matches; {len(export['ledger'])} ledger entries")
        return export

    async def transfers(self, view: dict[str, Any]) -> None:
        """Now and then a player gives another a few garnets (as from their page)."""
        holders = [r for r in view["standings"] if r["eliminated_round"] is None and r["garnets"]]
        alive = [r["player"] for r in view["standings"] if r["eliminated_round"] is None]
        if holders and self.rng.random() < 0.5:
            giver = self.rng.choice(holders)
            to = self.rng.choice([p for p in alive if p != giver["player"]])
            n = self.rng.randint(1, giver["garnets"])
            try:
                await self.seasons.transfer(self.season_id, self.host, to, n, player=giver["player"])
            except Refused:
                pass

    async def main(self, view: dict[str, Any]) -> None:
        alive = sorted(r["player"] for r in view["standings"] if r["eliminated_round"] is None)
        if len(alive) == 3 or view["round"] % 2 == 0:
            three = alive if len(alive) == 3 else sorted(self.rng.sample(alive, 3))
            made = await self.seasons.run_main(self.season_id, self.host, three, self.options("yellow"),
                                               seed=self.rng.randrange(2**62))
            await self.play(made["made"], f"round {view['round']}: Black and Yellow")
            return
        tokens = sorted(self.rng.sample(alive, self.rng.choice([1, 2])))
        candidate = self.rng.choice([p for p in alive if p not in tokens])
        awards = {p: self.rng.randint(1, 3) for p in tokens}
        await self.seasons.record_main(self.season_id, self.host, tokens, candidate, awards=awards,
                                       game="played elsewhere")
        self.say(f"round {view['round']}: main match recorded; tokens {', '.join(tokens)}, candidate {candidate}")

    async def play(self, made: dict[str, Any], what: str) -> None:
        """Play a season match to its end, every seat a bot moving in seat order."""
        match_id, tokens = made["match"], made["seats"]
        live = self.matches.get(match_id)
        by_seat = {i: tokens[p] for i, p in enumerate(made["players"])}
        spec = f"ismcts:iterations={self.iterations}:budget=30"
        moves = 0
        while not live.ended:
            seats = sorted(live.state.to_move())
            if not seats:
                raise RuntimeError(f"match {match_id} waits on nobody")
            for seat in seats:
                if live.ended or seat not in live.state.to_move():
                    continue
                role = await self.matches.role_for(live, by_seat[seat])
                version = live.version_for(role)
                # a bot makes a bounded number of side actions before each move (``decision_for``)
                text = botseats.decide(live.state.clone(), seat, spec, f"sim/{live.seed}/{seat}/{live.version}",
                                       None, 30.0)
                await self.matches.submit(match_id, by_seat[seat], text, version, answer_view=False)
                moves += 1
        # the match's end settled it (a task of its own): waited for, so the moments the
        # ledger reads are in one order on every run; settling again finds it done
        await asyncio.gather(*self.seasons._tasks)
        await self.seasons.settle(match_id)
        result = live.state.result()
        self.say(f"{what}: {match_id} over after {moves} moves ({result.reason or 'by the rules'})")


async def simulate(players: int, seed: int, db_url: str, iterations: int = 30, small: bool = False,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play a whole season and return its export (``blackwhite season simulate``)."""
    engine = make_engine(db_url)
    migrate(engine)
    store = Store(engine)
    matches = MatchService(store, now=StepClock(), bot_workers=0)
    numbers = itertools.count(1)
    matches.new_id = lambda: f"sim{seed}-{next(numbers):04d}"
    seasons = SeasonService(matches)
    seasons.start_policy = "now"
    if await matches._db(seasons.store.row, f"sim{seed}-0001") is not None:
        raise ValueError(f"this database already holds the simulated season of seed {seed}; use a fresh database "
                         "or another seed")
    # the server's own host, made with an id from the seed on a fresh database (the ledger names it)
    host = secrets.token_urlsafe(24)
    store.owner_link(hashlib.sha256(f"sim/{seed}".encode()).hexdigest()[:16], token_hash(host), EPOCH,
                     "season simulation")
    try:
        return await Simulation(matches, seasons, host, players, seed, iterations, small, progress).run()
    finally:
        if seasons._tasks:
            await asyncio.gather(*seasons._tasks, return_exceptions=True)
        await matches.close()
        store.close()
        engine.dispose()
