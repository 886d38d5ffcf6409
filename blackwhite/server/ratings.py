"""Per-game ratings: OpenSkill (Weng-Lin, Plackett-Luce) over every finished rated match.

The database is the truth.  A finished match's *outcome* (who sat where, as identities,
and the places they finished in) is a function of its stored events: :func:`outcome_of`
replays them.  The ratings of a game are a function of its rated outcomes folded in the
order the matches finished (``finished_at``, then match id): :func:`fold`.  The tables
below only keep those two functions' values so a leaderboard is one query:

* ``match_results``: one row per finished match, its outcome (or why it is not rated);
* ``ratings``: one row per game and identity, the fold's value;
* ``rating_games``: per game, how many outcomes the fold holds and the last one's key.

:class:`Ratings` brings them up to date (:meth:`Ratings.sync`): outcomes of newly
finished matches are written, then each game's fold moves on by the new outcomes, or is
done again from the first match when an outcome arrived that finished before the last
one folded (two processes finishing matches at once, a server that was down).  So the
tables always equal a rebuild from the matches (:meth:`Ratings.rebuild`, ``blackwhite
ratings rebuild``), which a test checks.  Work happens outside the database's write lock
(replays, folds) and is written in one short transaction that first checks that nobody
wrote the same game's fold meanwhile; a sync that loses such a race tries again.

An identity is ``player:ID`` for a seat bound to a player, or ``bot:SPEC`` for a bot
seat (the spec made canonical: ``ismcts:budget=2``), so a bot at one budget is one
entrant and the same bot at another budget is another.  A match is rated when it
finished by its rules (a resignation and a timeout are results; a cancelled match is
not) and every seat is an identity, each a different one; a person's seat with only a
name is nobody the server can follow from match to match.  A season match its host
voids (a correction: it counts for nothing) stops being rated, and its game is folded
again without it.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Mapped, mapped_column

from ..bots import parse_bot_spec
from ..engine.core import ChanceEvent, State
from ..engine.registry import make_game
from .players_store import PlayerRow, PlayerSeatRow
from .store import Base, EventRow, MatchRow

log = logging.getLogger("blackwhite.ratings")

#: the model's starting rating (OpenSkill's defaults: mu 25, sigma 25/3)
MU = 25.0
SIGMA = 25.0 / 3.0
#: how many newly finished matches one sync replays before it writes (then it goes on)
BATCH = 200
#: the most rows a leaderboard answers at once
MAX_LIMIT = 1000


def _model() -> Any:
    from openskill.models import PlackettLuce  # imported when ratings are first computed

    return PlackettLuce(mu=MU, sigma=SIGMA)


# --------------------------------------------------------------------------- tables


class MatchResultRow(Base):
    """A finished match's outcome: each seat's identity and place (1 is first; a tie
    shares a place), or, for a match that is not rated, why not."""

    __tablename__ = "match_results"
    match_id: Mapped[str] = mapped_column(String(32), ForeignKey("matches.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), index=True)
    #: when its last event arrived: the fold's order (then the match id)
    finished_at: Mapped[float] = mapped_column(Float)
    rated: Mapped[bool] = mapped_column(Boolean)
    identities: Mapped[Any] = mapped_column(JSON, nullable=True)  # [identity | null] per seat
    places: Mapped[Any] = mapped_column(JSON, nullable=True)  # [place] per seat
    #: why the match is not rated (null when it is)
    note: Mapped[str | None] = mapped_column(Text, nullable=True)


class RatingRow(Base):
    """One identity's rating in one game, as the fold of that game's outcomes left it."""

    __tablename__ = "ratings"
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    identity: Mapped[str] = mapped_column(String(240), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[float] = mapped_column(Float)


class RatingGameRow(Base):
    """How far a game's fold has gone: the outcomes it holds and the last one's key."""

    __tablename__ = "rating_games"
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    folded: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[float] = mapped_column(Float)
    last_match: Mapped[str] = mapped_column(String(32))


_RESULTS = Base.metadata.tables["match_results"]
_RATINGS = Base.metadata.tables["ratings"]
_GAMES = Base.metadata.tables["rating_games"]


# --------------------------------------------------------------------------- identities


def _canonical_value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return value if isinstance(value, str) else json.dumps(value)


def bot_identity(spec: str) -> str:
    """``bot:`` and the spec with its settings sorted and numbers written one way, so
    ``ismcts:budget=2.0`` and ``ismcts:budget=2`` are one entrant."""
    try:
        name, settings = parse_bot_spec(spec)
    except ValueError:
        return "bot:" + spec.strip()
    parts = [name, *(f"{k}={_canonical_value(v)}" for k, v in sorted(settings.items()))]
    return "bot:" + ":".join(parts)


def identity_of(seat: Any, player: str | None = None) -> str | None:
    """A stored seat's identity: ``player:ID`` for a seat bound to a player (``player``,
    from ``player_seats``), ``bot:SPEC`` for a bot, or None for a person known only by a name."""
    if player:
        return "player:" + player
    if not isinstance(seat, dict):
        return None
    player = seat.get("player")
    if isinstance(player, str) and player:
        return "player:" + player
    bot = seat.get("bot")
    if isinstance(bot, str) and bot.strip():
        return bot_identity(bot)
    return None


def kind_of(identity: str) -> str:
    """``player`` or ``bot``."""
    return identity.partition(":")[0]


def places_of(state: State) -> list[int]:
    """Each seat's place in a finished match (1 is first; seats tied share a place):
    the game's ranking where it gives one (``yellow``), else the winner first and every
    other seat second, else (no winner) every seat first."""
    result = state.result()
    n = state.num_seats
    if result.ranking is not None and sorted(result.ranking) == list(range(n)):
        places = [0] * n
        for place, seat in enumerate(result.ranking):
            places[seat] = place + 1
        return places
    if result.winner is not None and 0 <= result.winner < n:
        return [1 if seat == result.winner else 2 for seat in range(n)]
    return [1] * n


# --------------------------------------------------------------------------- outcomes


@dataclass(frozen=True)
class Outcome:
    """A finished match as the ratings read it."""

    match_id: str
    game: str
    finished_at: float
    identities: tuple[str | None, ...]
    places: tuple[int, ...]
    note: str | None = None

    @property
    def rated(self) -> bool:
        return self.note is None

    @property
    def key(self) -> tuple[float, str]:
        """Its place in the fold's order."""
        return (self.finished_at, self.match_id)

    def row(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "game": self.game, "finished_at": self.finished_at,
                "rated": self.rated, "identities": list(self.identities),
                "places": list(self.places) if self.places else None, "note": self.note}

    @classmethod
    def of_row(cls, row: Any) -> "Outcome":
        return cls(row.match_id, row.game, float(row.finished_at), tuple(row.identities or ()),
                   tuple(int(p) for p in (row.places or ())), row.note)


def outcome_of(row: Any, events: Sequence[Any], players: dict[int, str] | None = None) -> Outcome:
    """The outcome of a finished match (a ``matches`` row, its ``events`` rows in order,
    and the players bound to its seats), by replaying its events; never raises (a match
    that cannot be replayed is an outcome that is not rated, saying why)."""
    bound = players or {}
    identities = tuple(identity_of(seat, bound.get(i)) for i, seat in enumerate(row.seats or []))
    finished_at = max((float(ev.arrived_at) for ev in events), default=float(row.created))

    def unrated(note: str) -> Outcome:
        return Outcome(row.id, row.game, finished_at, identities, (), note)

    try:
        state = make_game(row.game, row.options).new_initial_state()
        for ev in events:
            if ev.chance is not None:
                data = dict(ev.chance)
                state.apply_chance(ChanceEvent(data.pop("chance"), data), drawn=True)
            else:
                assert ev.seat is not None and ev.action is not None
                state.apply(ev.seat, state.parse(ev.seat, ev.action))
        if not state.is_over():
            return unrated("its events do not end the match")
        places = tuple(places_of(state))
    except Exception as exc:  # a game uninstalled or changed since: the match is left out, saying so
        return unrated(f"its events cannot be replayed ({type(exc).__name__}: {str(exc)[:200]})")
    if len(identities) != len(places):
        return unrated(f"it has {len(identities)} seats but its game {len(places)}")
    if any(i is None for i in identities):
        return Outcome(row.id, row.game, finished_at, identities, places,
                       "a seat is a person known only by a name (no player)")
    if len(set(identities)) != len(identities):
        return Outcome(row.id, row.game, finished_at, identities, places,
                       "one player or bot sat in two seats")
    return Outcome(row.id, row.game, finished_at, identities, places)


# --------------------------------------------------------------------------- the fold


@dataclass
class Standing:
    """One identity's rating in a game and its record there."""

    identity: str
    mu: float = MU
    sigma: float = SIGMA
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_at: float = 0.0

    @property
    def rating(self) -> float:
        """What the leaderboard orders by: ``mu - 3 sigma`` (OpenSkill's ordinal), a
        rating the identity is very likely above, so a newcomer starts at 0 and climbs."""
        return self.mu - 3.0 * self.sigma

    def row(self, game: str) -> dict[str, Any]:
        return {"game": game, "identity": self.identity, "mu": self.mu, "sigma": self.sigma,
                "matches": self.matches, "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "last_at": self.last_at}

    @classmethod
    def of_row(cls, row: Any) -> "Standing":
        return cls(row.identity, float(row.mu), float(row.sigma), int(row.matches), int(row.wins),
                   int(row.draws), int(row.losses), float(row.last_at))


def fold(outcomes: Iterable[Outcome], standings: dict[str, Standing] | None = None,
         model: Any = None) -> dict[str, Standing]:
    """``standings`` (default: nobody rated yet) moved on by each rated outcome in the
    order given: one Plackett-Luce update per match, every seat a team of one, ranked by
    place (a three-seat match is one update of three).  Returns the same dict."""
    out = {} if standings is None else standings
    model = model or _model()
    for outcome in outcomes:
        if not outcome.rated:
            continue
        seats = [out.setdefault(i, Standing(i)) for i in outcome.identities if i is not None]
        teams = [[model.create_rating([s.mu, s.sigma], name=s.identity)] for s in seats]
        rated = model.rate(teams, ranks=list(outcome.places))
        first = min(outcome.places)
        shared = outcome.places.count(first) > 1
        for standing, [new], place in zip(seats, rated, outcome.places):
            standing.mu, standing.sigma = float(new.mu), float(new.sigma)
            standing.matches += 1
            if place != first:
                standing.losses += 1
            elif shared:
                standing.draws += 1
            else:
                standing.wins += 1
            standing.last_at = max(standing.last_at, outcome.finished_at)
    return out


def ranked(standings: Iterable[Standing]) -> list[Standing]:
    """Best first: by rating, then more matches, then identity (a stable order)."""
    return sorted(standings, key=lambda s: (-s.rating, -s.matches, s.identity))


# --------------------------------------------------------------------------- the database


def _insert_ignoring(conn: Connection, table: Any, rows: list[dict[str, Any]], keys: list[str]) -> None:
    """Insert ``rows``, skipping any whose key is already there (another process wrote it)."""
    if not rows:
        return
    if conn.dialect.name in ("postgresql", "sqlite"):
        dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
        conn.execute(dialect_insert(table).on_conflict_do_nothing(index_elements=keys), rows)
        return
    have = {tuple(r) for r in conn.execute(select(*(table.c[k] for k in keys)))}
    rows = [r for r in rows if tuple(r[k] for k in keys) not in have]
    if rows:
        conn.execute(insert(table), rows)


def _lock(conn: Connection) -> None:
    """Take the ratings' write lock for this transaction: over PostgreSQL an advisory
    lock; over SQLite the database's own, taken now by a write (not at the first real
    write, where a transaction that read first could find its snapshot stale)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended('blackwhite ratings', 0))"))
    else:
        conn.execute(update(_GAMES).where(_GAMES.c.game == "").values(folded=0))


@dataclass
class _Plan:
    """What one game's fold writes: from scratch or on top of what is stored."""

    game: str
    seen: tuple[int, float, str] | None  # the rating_games row it was computed from
    folded: int
    last: tuple[float, str]
    standings: dict[str, Standing] = field(default_factory=dict)
    fresh: bool = False


@dataclass(frozen=True)
class Leaderboard:
    """A page of a game's leaderboard and how many identities it has in all."""

    game: str
    total: int
    rows: list[tuple[int, Standing]]  # (place from 1, standing)


class Ratings:
    """The ratings tables over one database: bring them up to date, rebuild them, read them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._model = _model()
        #: one sync at a time in this process (others are kept apart by the lock)
        self._syncing = threading.Lock()

    # ----------------------------------------------------------- writing

    def sync(self, batch: int = BATCH) -> int:
        """Write the outcome of every finished match that has none yet, then move each
        game's fold on; returns how many outcomes were written."""
        with self._syncing:
            written = 0
            while True:
                outcomes = self._new_outcomes(batch)
                if outcomes:
                    with self.engine.begin() as conn:
                        _insert_ignoring(conn, _RESULTS, [o.row() for o in outcomes], ["match_id"])
                    written += len(outcomes)
                self._unrate_voided()
                self._fold_games()
                if len(outcomes) < batch:
                    return written

    def _unrate_voided(self) -> None:
        """A season match its host voided (a correction: it counts for nothing) is not
        rated either, nor is a match of a season its cast alone may read (a public
        leaderboard would tell who played whom in it, and who won): its outcome is marked
        so and its game folded again from the first match if it was folded already."""
        from .season_store import SeasonEntryRow, SeasonMatchRow, SeasonRow

        with self.engine.connect() as conn:
            voided = {str(d.get("match")) for d in conn.execute(
                select(SeasonEntryRow.data).where(SeasonEntryRow.kind == "void")).scalars()
                if isinstance(d, dict) and d.get("match")}
            # fail closed: any visibility but "public" keeps the season's matches off the boards
            hidden = {str(m) for m in conn.execute(
                select(SeasonMatchRow.match_id).join(SeasonRow, SeasonRow.id == SeasonMatchRow.season_id)
                .where(or_(SeasonRow.visibility.is_(None), SeasonRow.visibility != "public"))).scalars()}
            if not voided and not hidden:
                return
            hit = {str(m): str(g) for m, g in conn.execute(select(_RESULTS.c.match_id, _RESULTS.c.game).where(
                _RESULTS.c.rated.is_(True), _RESULTS.c.match_id.in_(sorted(voided | hidden))))}
        if not hit:
            return
        with self.engine.begin() as conn:
            _lock(conn)
            for which, note in ((voided, "its season's host voided it (a correction)"),
                                (hidden - voided, "its season is read by its cast only")):
                ids = sorted(set(hit) & which)
                if ids:
                    conn.execute(update(_RESULTS).where(_RESULTS.c.match_id.in_(ids)).values(rated=False, note=note))
        for game in sorted(set(hit.values())):
            self._fold_game(game, fresh=True)

    def _new_outcomes(self, batch: int) -> list[Outcome]:
        """Finished matches without an outcome, replayed (outside any write lock)."""
        with self.engine.connect() as conn:
            done = select(_RESULTS.c.match_id).where(_RESULTS.c.match_id == MatchRow.id)
            rows = list(conn.execute(select(MatchRow.__table__).where(MatchRow.status == "finished", ~done.exists())
                                     .order_by(MatchRow.id).limit(batch)))
            out = []
            for row in rows:
                events = list(conn.execute(select(EventRow.__table__).where(EventRow.match_id == row.id)
                                           .order_by(EventRow.index)))
                players = {int(seat): str(player) for seat, player in conn.execute(
                    select(PlayerSeatRow.seat, PlayerSeatRow.player_id).where(PlayerSeatRow.match_id == row.id))}
                out.append(outcome_of(row, events, players))
        return out

    def _fold_games(self) -> None:
        """Each game whose rated outcomes are not all folded: folded on, or again."""
        with self.engine.connect() as conn:
            counts = {str(g): int(n) for g, n in conn.execute(
                select(_RESULTS.c.game, func.count()).where(_RESULTS.c.rated.is_(True)).group_by(_RESULTS.c.game))}
            folded = {r.game: int(r.folded) for r in conn.execute(select(_GAMES)) if r.game}
        for game, count in sorted(counts.items()):
            if folded.get(game) != count:
                self._fold_game(game)

    def _fold_game(self, game: str, fresh: bool = False) -> None:
        for _ in range(5):
            plan = self._plan(game, fresh)
            if plan is None or self._write(plan):
                return
        log.warning("the ratings of %s kept changing under this process's fold; a later sync goes on", game)

    def _plan(self, game: str, fresh: bool) -> _Plan | None:
        """Compute what ``game``'s fold becomes (no lock held): the new outcomes on top of
        the stored ratings when every outcome folded so far is still all that came before
        the last one folded, else every outcome from the first."""
        with self.engine.connect() as conn:
            stored = conn.execute(select(_GAMES).where(_GAMES.c.game == game)).first()
            seen = None if stored is None else (int(stored.folded), float(stored.last_at), str(stored.last_match))
            rated = _RESULTS.c.rated.is_(True) & (_RESULTS.c.game == game)
            order = (_RESULTS.c.finished_at, _RESULTS.c.match_id)
            if seen is not None and not fresh:
                after = or_(_RESULTS.c.finished_at > seen[1],
                            and_(_RESULTS.c.finished_at == seen[1], _RESULTS.c.match_id > seen[2]))
                newer = [Outcome.of_row(r) for r in conn.execute(select(_RESULTS).where(rated, after).order_by(*order))]
                total = int(conn.execute(select(func.count()).select_from(_RESULTS).where(rated)).scalar() or 0)
                if seen[0] + len(newer) == total:
                    if not newer:
                        return None
                    names = {i for o in newer for i in o.identities if i is not None}
                    standings = {r.identity: Standing.of_row(r) for r in conn.execute(
                        select(_RATINGS).where(_RATINGS.c.game == game, _RATINGS.c.identity.in_(sorted(names))))}
                    fold(newer, standings, self._model)
                    return _Plan(game, seen, seen[0] + len(newer), newer[-1].key,
                                 {n: standings[n] for n in names})
            every = [Outcome.of_row(r) for r in conn.execute(select(_RESULTS).where(rated).order_by(*order))]
        if not every:
            return _Plan(game, seen, 0, (0.0, ""), {}, fresh=True)
        return _Plan(game, seen, len(every), every[-1].key, fold(every, None, self._model), fresh=True)

    def _write(self, plan: _Plan) -> bool:
        """Write ``plan`` if the game's fold is still the one it was computed from."""
        with self.engine.begin() as conn:
            _lock(conn)
            stored = conn.execute(select(_GAMES).where(_GAMES.c.game == plan.game)).first()
            now = None if stored is None else (int(stored.folded), float(stored.last_at), str(stored.last_match))
            if now != plan.seen:
                return False
            if plan.fresh:
                conn.execute(delete(_RATINGS).where(_RATINGS.c.game == plan.game))
            else:
                conn.execute(delete(_RATINGS).where(_RATINGS.c.game == plan.game,
                                                    _RATINGS.c.identity.in_(sorted(plan.standings))))
            rows = [s.row(plan.game) for s in plan.standings.values()]
            if rows:
                conn.execute(insert(_RATINGS), rows)
            values = {"folded": plan.folded, "last_at": plan.last[0], "last_match": plan.last[1]}
            if stored is None:
                conn.execute(insert(_GAMES).values(game=plan.game, **values))
            else:
                conn.execute(update(_GAMES).where(_GAMES.c.game == plan.game).values(**values))
        return True

    def rebuild(self, games: Sequence[str] | None = None) -> int:
        """Every outcome replayed again from the matches and every fold done again from
        the first match (``games``: those only).  Returns the outcomes written."""
        with self._syncing:
            with self.engine.begin() as conn:
                _lock(conn)
                results = delete(_RESULTS)
                folds = delete(_GAMES).where(_GAMES.c.game != "")
                ratings = delete(_RATINGS)
                if games is not None:
                    results = results.where(_RESULTS.c.game.in_(list(games)))
                    folds = folds.where(_GAMES.c.game.in_(list(games)))
                    ratings = ratings.where(_RATINGS.c.game.in_(list(games)))
                conn.execute(results)
                conn.execute(folds)
                conn.execute(ratings)
        return self.sync()

    # ----------------------------------------------------------- reading

    def games(self) -> list[dict[str, Any]]:
        """Each game with rated matches: its id, rated matches and rated identities."""
        with self.engine.connect() as conn:
            matches = {str(g): int(n) for g, n in conn.execute(
                select(_GAMES.c.game, _GAMES.c.folded).where(_GAMES.c.game != ""))}
            people = {str(g): int(n) for g, n in conn.execute(
                select(_RATINGS.c.game, func.count()).group_by(_RATINGS.c.game))}
        return [{"game": g, "matches": int(matches[g]), "rated": int(people.get(g, 0))}
                for g in sorted(matches) if matches[g]]

    def leaderboard(self, game: str, limit: int = 100, offset: int = 0) -> Leaderboard:
        """``limit`` rows of ``game``'s leaderboard from place ``offset + 1``."""
        limit = max(0, min(int(limit), MAX_LIMIT))
        offset = max(0, int(offset))
        ordinal = _RATINGS.c.mu - 3.0 * _RATINGS.c.sigma
        with self.engine.connect() as conn:
            total = int(conn.execute(select(func.count()).select_from(_RATINGS)
                                     .where(_RATINGS.c.game == game)).scalar() or 0)
            rows = conn.execute(select(_RATINGS).where(_RATINGS.c.game == game)
                                .order_by(ordinal.desc(), _RATINGS.c.matches.desc(), _RATINGS.c.identity)
                                .limit(limit).offset(offset))
            standings = [Standing.of_row(r) for r in rows]
        return Leaderboard(game, total, [(offset + i + 1, s) for i, s in enumerate(standings)])

    def place_of(self, game: str, identity: str) -> int | None:
        """``identity``'s place on ``game``'s leaderboard (as :meth:`leaderboard` orders it), or None."""
        ordinal = _RATINGS.c.mu - 3.0 * _RATINGS.c.sigma
        with self.engine.connect() as conn:
            me = conn.execute(select(ordinal, _RATINGS.c.matches).where(
                _RATINGS.c.game == game, _RATINGS.c.identity == identity)).first()
            if me is None:
                return None
            mine, matches = float(me[0]), int(me[1])
            ahead = or_(ordinal > mine, and_(ordinal == mine, or_(
                _RATINGS.c.matches > matches, and_(_RATINGS.c.matches == matches, _RATINGS.c.identity < identity))))
            return 1 + int(conn.execute(select(func.count()).select_from(_RATINGS)
                                        .where(_RATINGS.c.game == game, ahead)).scalar() or 0)

    def of_identity(self, identity: str) -> dict[str, Standing]:
        """An identity's standing in every game it is rated in, by game."""
        with self.engine.connect() as conn:
            return {r.game: Standing.of_row(r)
                    for r in conn.execute(select(_RATINGS).where(_RATINGS.c.identity == identity))}

    def outcomes(self, game: str | None = None) -> list[Outcome]:
        """Stored outcomes (of ``game``), in the fold's order."""
        with self.engine.connect() as conn:
            query = select(_RESULTS).order_by(_RESULTS.c.finished_at, _RESULTS.c.match_id)
            if game is not None:
                query = query.where(_RESULTS.c.game == game)
            return [Outcome.of_row(r) for r in conn.execute(query)]

    def names(self, identities: Sequence[str]) -> dict[str, str]:
        """The display names of the players among ``identities`` (a bot's name is its spec)."""
        ids = sorted({i.partition(":")[2] for i in identities if kind_of(i) == "player"})
        if not ids:
            return {}
        with self.engine.connect() as conn:
            return {"player:" + str(pid): str(name) for pid, name in conn.execute(
                select(PlayerRow.id, PlayerRow.name).where(PlayerRow.id.in_(ids)))}

    def pending(self) -> int:
        """Finished matches whose outcome is not written yet (a sync is due)."""
        with self.engine.connect() as conn:
            done = select(_RESULTS.c.match_id).where(_RESULTS.c.match_id == MatchRow.id)
            return int(conn.execute(select(func.count()).select_from(MatchRow)
                                    .where(MatchRow.status == "finished", ~done.exists())).scalar() or 0)


def standing_json(place: int | None, standing: Standing, names: dict[str, str] | None = None) -> dict[str, Any]:
    """A leaderboard row as the API answers it."""
    identity = standing.identity
    kind, _, ref = identity.partition(":")
    name = (names or {}).get(identity) or ref
    return {
        "place": place, "identity": identity, "kind": kind, "name": name,
        "rating": round(standing.rating, 3), "mu": round(standing.mu, 4), "sigma": round(standing.sigma, 4),
        "matches": standing.matches, "wins": standing.wins, "draws": standing.draws, "losses": standing.losses,
        "last_at": standing.last_at if math.isfinite(standing.last_at) else None,
    }
