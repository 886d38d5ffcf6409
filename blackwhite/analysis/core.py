"""Match analysis: where a seat gained or lost win chance, decision by decision.

Every decision of a seat is judged from **that seat's information at that moment**,
never from the record's full state: the state replayed to just before the decision
is only ever used through ``State.resample(seat, rng)`` (a world drawn from what the
seat knows), ``legal_actions(seat)`` and ``view(seat)``.  A player is not blamed for
what it could not know.

For one decision the analysis draws such worlds and, in each, plays a candidate action
followed by a rollout in which every seat plays the game's heuristic policy from its own
view of that world (``blackwhite.bots.heuristic``); in domino and yellow another seat
plays at random instead in as many worlds as its play so far, read from the deciding
seat's view, makes likely (:func:`opponent_shares`).  The actions compared meet the same
worlds and the same rollout seeds (paired comparison).  A *screening* stage picks the
best candidate; a *confirmation* stage on fresh worlds measures the chosen action against
it, so the loss is not the maximum of noisy estimates.  A rollout runs to the end, or
stops after the game's ``horizon`` of moves at a quiet position, where the scores become a
win chance (the chips share, or ``0.5 + 0.5 tanh(lead / scale)``).  See docs/analysis.md
for the candidate sets, the marks and the figures.
"""

from __future__ import annotations

import concurrent.futures
import json
import math
import multiprocessing
import os
import random
import signal
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Collection, Iterator, Mapping, Sequence, cast

from ..bots import decision_for, make_bot
from ..bots.heuristic import Policy, policy_for
from ..bots.opponents import Seen, evidence_for, heuristic_seats, replayed_evidence, seen_for
from ..bots.opponents import shares as model_shares
from ..engine import make_game
from ..engine.core import RESIGN, TIMEOUT, Action, Game, State
from ..engine.record import RecordError, replay
from ..engine.registry import declared
from ..pools import stop_pool

#: a decision's loss (points of win chance, 0-100) above which it is marked
MARKS: tuple[tuple[float, str], ...] = ((20.0, "blunder"), (10.0, "mistake"), (5.0, "inaccuracy"))
#: a mark also needs the loss to exceed this many standard errors of the paired difference
#: (with few worlds a noisy maximum would otherwise be marked)
SIGNIFICANCE = 2.0
#: confirmation worlds per screening world (see :func:`evaluate`)
CONFIRM = 2
#: a doubtful loss gets up to this many times the confirmation worlds
EXTEND = 4
#: early stopping (``Settings.early``): a candidate leaves the screening race once the
#: leader beats it by more than this many standard errors of their paired difference
#: (several looks at the race are taken, so more than the marks' 2)
DROP = 3.0
#: worlds every candidate meets before screening may stop early (a quarter of a fixed
#: count when that is more), and the fresh worlds that confirm a decided position
EARLY_MIN = 4


@dataclass(frozen=True)
class GameEval:
    """How rollouts of one game end: after ``horizon`` moves (None: at the end), at the
    next quiet position, the scores become a win chance.  ``share``: the seat's share of
    all the chips (the chance that a fair game of chips, played on by equal players,
    ends with this seat holding them all: its value is a martingale, so a cut anywhere
    is unbiased and a short horizon only removes noise); otherwise the score lead,
    ``0.5 + 0.5 tanh(lead / scale)`` (a lead of ``scale`` is worth about 88%).
    ``adapt``: in each world every other seat plays on by the heuristic or at random,
    in proportion to how well each explains its announced play so far."""

    horizon: int | None
    scale: float
    share: bool = False
    #: model the other seats from their announced play (see :func:`opponent_shares`)
    adapt: bool = False
    #: screening worlds relative to the other games (see :func:`worlds_for`)
    worlds: float = 1.0


# Per game, from its registry entry's ``analysis`` (keyword arguments of GameEval).
# Short games are played out, long ones cut (measured: a heuristic rollout of a whole
# grouping match takes about 1 s, of swapping 0.03 s).  ``worlds`` scales the screening
# worlds so that a fixed number costs about the same time per decision in every game
# (measured, docs/analysis.md); each game's entry says why its own values were chosen.
#: a game whose entry names no settings
DEFAULT_EVAL = GameEval(40, 5.0)
#: rollouts never run longer than this many moves, whatever the horizon
MAX_ROLLOUT = 4000


_EVALS: dict[str, GameEval] = {}


def eval_for(game_id: str) -> GameEval:
    """The game's rollout and worlds settings as its registry entry gives them
    (:data:`DEFAULT_EVAL` for a game that gives none); a misspelt key is a
    ``TypeError`` naming the game."""
    found = _EVALS.get(game_id)
    if found is None:
        declared_as = declared(game_id)
        given = dict(declared_as.analysis) if declared_as is not None else {}
        try:
            found = GameEval(**given) if given else DEFAULT_EVAL
        except TypeError as exc:
            raise TypeError(f"game {game_id!r}: its GameEntry's analysis is not GameEval's: {exc}") from None
        _EVALS[game_id] = found
    return found


#: screening worlds of the other games by default (``blackwhite analyse`` and the
#: replay page): the settings whose marks and calibration docs/analysis.md measures
DEFAULT_WORLDS = 8


def default_workers() -> int:
    """One worker process per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def worlds_for(game: str, base: int = 8) -> int:
    """Screening worlds for ``game`` when other games get ``base`` (its ``GameEval.worlds``)."""
    if isinstance(base, bool) or not isinstance(base, int) or base < 1:
        raise ValueError(f"worlds must be a whole number of at least 1, got {base!r}")
    return max(1, round(base * eval_for(game).worlds))


@dataclass(frozen=True)
class Settings:
    """How hard to look.  ``worlds`` fixed makes the analysis time-free and so exactly
    reproducible for a seed; otherwise worlds are drawn until ``budget`` seconds per
    decision are spent (at least ``min_worlds``).  ``candidates``: the most actions
    evaluated at one decision (see :func:`candidates`).  ``search``: iterations of the
    ``ismcts`` bot whose choice joins the candidates of a large decision (0: none)."""

    worlds: int | None = None
    budget: float = 1.0
    min_worlds: int = 4
    max_worlds: int = 400
    candidates: int = 12
    search: int = 200
    seed: int = 0
    #: stop screening early where the race is clear (see :func:`_screen`); False plays
    #: every candidate in every world, as before early stopping was added
    early: bool = True

    def __post_init__(self) -> None:
        if self.worlds is not None and self.worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {self.worlds}")
        if self.budget < 0:
            raise ValueError(f"budget must be at least 0 seconds, got {self.budget}")
        if self.candidates < 2:
            raise ValueError(f"candidates must be at least 2, got {self.candidates}")
        if self.search < 0:
            raise ValueError(f"search iterations must be at least 0, got {self.search}")


@dataclass
class Candidate:
    action: str
    win: float  # estimated win chance of the seat after this action, 0..1


@dataclass
class DecisionReport:
    """One decision of one seat, judged from that seat's information."""

    event: int  # 0-based index of the event in the record
    seat: int
    move: int  # 1-based count of this seat's decisions
    action: str  # the action chosen
    win: float  # estimated win chance after the chosen action (0..1)
    best: str  # the best candidate
    best_win: float
    loss: float  # points of win chance lost (0..100)
    stderr: float  # standard error of that loss (points)
    mark: str | None
    legal: int  # number of legal actions
    worlds: int  # screening worlds
    confirm_worlds: int  # confirmation worlds (the win chances and the loss come from these)
    candidates: list[Candidate] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["candidates"] = [asdict(c) for c in self.candidates]
        return out


@dataclass
class SeatSummary:
    """Where a seat's win chance went: its own decisions (``skill``: the points its
    choices lost against the best candidates where the loss is clear of the noise, 0 or
    less) against everything else (``luck``: deals, reveals and the other seats' play,
    between its decisions and after its last one, up to the outcome when the match is
    over, and the losses too small to tell from the noise)."""

    seat: int
    name: str
    decisions: int
    marks: dict[str, int]
    start: float | None  # win chance at the first decision (best play)
    outcome: float | None  # 1 won, 0 lost, 1/n a draw; None while unfinished
    skill: float  # points
    luck: float  # points


@dataclass
class Analysis:
    game: str
    seats: list[str]
    finished: bool
    winner: int | None
    decisions: list[DecisionReport]
    summaries: list[SeatSummary]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": self.seats,
            "finished": self.finished,
            "winner": self.winner,
            "decisions": [d.to_json() for d in self.decisions],
            "summaries": [asdict(s) for s in self.summaries],
        }


@dataclass
class Point:
    """A decision to analyse: the state just before it, replayed from the record."""

    event: int
    seat: int
    action: Action
    before: State
    #: the seat's own count of its decisions before this one.  Every seed of the
    #: analysis of this decision is drawn from it, never from ``event``: the index of an
    #: event counts the other seats' unannounced actions (a secret item use), so a seed
    #: taken from it would make the report depend on what the seat was not told.
    ordinal: int = 0


def mark_for(loss: float, stderr: float) -> str | None:
    """The mark of a loss in points, or None (see :data:`MARKS`, :data:`SIGNIFICANCE`)."""
    if loss <= SIGNIFICANCE * stderr:
        return None
    for threshold, name in MARKS:
        if loss > threshold:
            return name
    return None


# ---------------------------------------------------------------------- replaying


def decision_points(record: Mapping[str, Any]) -> tuple[list[Point], State, list[str]]:
    """Replay ``record`` (strictly: a bad record raises :class:`RecordError` naming the
    event) and keep a copy of the state before every seat action that was a choice.

    ``resign`` and ``timeout`` are not choices among the legal actions and are not
    analysed.  With a ``seed``, chance is drawn as the referee draws it.
    """
    points: list[Point] = []
    ordinals: dict[int, int] = {}

    def keep(index: int, seat: int, action: Action, before: State) -> None:
        if action in (RESIGN, TIMEOUT):
            return
        if before.is_free(action) and (before.is_over() or before.is_chance()):
            return  # a side action while no choice is open: nothing to weigh it against
        ordinal = ordinals.get(seat, 0)
        ordinals[seat] = ordinal + 1
        # a game without a sampler of its own is redrawn by the generic sampler, which
        # replays the match's history: keep it (a tracked copy) for that game only
        tracked = type(before.game).entry_sampler is None
        points.append(Point(index, seat, action, before.clone(track=tracked), ordinal))

    result = replay(record, keep)
    if result.error is not None:
        raise result.error
    return points, result.state, result.seats


# ---------------------------------------------------------------------- evaluating


def outcome_for(state: State, seat: int) -> float:
    """1 for the winner, 0 for a loser, 1/n for everyone when nobody wins."""
    winner = state.result().winner
    if winner is None:
        return 1.0 / state.num_seats
    return 1.0 if winner == seat else 0.0


def _cut_value(state: State, seat: int, rule: GameEval) -> float:
    """The win chance at a cut rollout (see :class:`GameEval`)."""
    scores = state.scores()
    if rule.share:
        total = sum(scores)
        return scores[seat] / total if total > 0 else 1.0 / state.num_seats
    scale = rule.scale
    lead = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
    return 0.5 + 0.5 * math.tanh(lead / scale)


def rollout(
    world: State, seat: int, rng: random.Random, rule: GameEval, at_random: Collection[int] = (),
) -> float:
    """Play ``world`` on by the heuristic of every seat (each from its own view of the
    world; the seats in ``at_random`` uniformly at random) and return ``seat``'s win
    chance at the end or at the cut."""
    game = world.game
    policy = policy_for(game.id)
    moves = 0
    while True:
        if world.is_over():
            return outcome_for(world, seat)
        if world.is_chance():
            world.apply_chance_fast(world.sample_chance(rng))
            continue
        if moves >= MAX_ROLLOUT or (rule.horizon is not None and moves >= rule.horizon and world.quiet()):
            return _cut_value(world, seat, rule)
        for mover in world.to_move():
            legal = world.legal_actions(mover)
            if len(legal) == 1 or policy is None or mover in at_random:
                action = legal[rng.randrange(len(legal))]
            else:
                action = policy(_policy_view(world, mover, game), legal, rng)
                if action not in legal:
                    action = legal[rng.randrange(len(legal))]
            world.apply_fast(mover, action)
            moves += 1
            if world.is_over():
                break


def _policy_view(world: State, seat: int, game: Game) -> dict[str, Any]:
    """``seat``'s view of ``world`` as a policy reads it: the game's part of the view
    (``_view``, where secrets are filtered) and the fields a policy view has beside it
    (``game``, ``seat``, ``options``: ``blackwhite.views.Seated``), without the rest
    of ``State.view`` (the result, the log, who is to move), which a rollout's policy
    never reads and which cost yellow's rollouts a tenth of their time."""
    view = cast("dict[str, Any]", world._view(seat))  # a fresh dict on every call
    view["game"] = game.id
    view["seat"] = seat
    view["options"] = dict(game.options)
    return view


def candidates(point: Point, settings: Settings, rng: random.Random) -> tuple[list[Action], int]:
    """The actions to evaluate at ``point``, and how many were legal.

    All legal actions when there are at most ``settings.candidates``; otherwise the
    chosen action, the heuristic's choices (four draws of its rng), the ``ismcts``
    bot's choice after ``settings.search`` iterations, then a seeded random sample of
    the rest up to ``settings.candidates``.  Everything is drawn from the seat's view.
    """
    state, seat = point.before, point.seat
    legal = state.legal_actions(seat)
    chosen = point.action
    pool = list(legal)
    if chosen not in pool:
        pool.append(chosen)  # a free action the game lists separately
    if len(pool) <= settings.candidates:
        return pool, len(legal)
    picked: list[Action] = [chosen]
    policy = policy_for(state.game.id)
    if policy is not None:
        view = state.view(seat)
        for k in range(4):
            choice = policy(view, legal, random.Random(f"{settings.seed}/heuristic/{k}"))
            if choice in legal and choice not in picked:
                picked.append(choice)
    if settings.search > 0:
        bot = make_bot("ismcts", iterations=settings.search)
        decision = decision_for(state, seat, random.Random(f"{settings.seed}/search/{point.seat}/{point.ordinal}"))
        choice = bot.choose(decision)
        if choice not in picked:
            picked.append(choice)
    rest = [a for a in legal if a not in picked]
    rng.shuffle(rest)
    picked.extend(rest[: max(0, settings.candidates - len(picked))])
    return picked, len(legal)


def opponent_shares(points: Sequence[Point], chosen: Sequence[Point], settings: Settings) -> list[list[float] | None]:
    """For each point of ``chosen``: per seat, the chance that a world plays that seat
    on by the heuristic rather than at random, from how well each explains the seat's
    play so far **as the analysed seat saw it**; the analysed seat itself always plays
    by the heuristic.  None where the game's rule does not adapt.

    The model is the bots' own (:mod:`blackwhite.bots.opponents`).  Yellow announces
    every submission, and its heuristic module reads the view's past rounds
    (``play_evidence``, as the ``ismcts`` bot does).  Domino hides one number of every
    placement: each earlier action of another seat, as the analysed seat's view showed
    it, is weighed in worlds drawn from what that seat knew at that moment
    (``resample``), as the chance the heuristic, playing from the other seat's view of
    the world, makes a placement that looks the same (the module's ``seen``), against
    the chance a random placement does.
    """
    if not chosen:
        return []
    game_id = chosen[0].before.game.id
    rule = eval_for(game_id)
    if not rule.adapt:
        return [None] * len(chosen)
    seen = seen_for(game_id)
    policy = policy_for(game_id)
    evidence = evidence_for(game_id)
    if seen is None or policy is None:
        if evidence is None:
            return [None] * len(chosen)
        out: list[list[float] | None] = []
        memo: dict[Any, Any] = {}  # the replay cache of the module's evidence: its answer depends on the view only
        for point in chosen:
            out.append(model_shares(evidence(point.before.view(point.seat), memo), point.seat))
        return out
    wanted = {id(p) for p in chosen}
    found: dict[int, list[float]] = {}
    for seat in sorted({p.seat for p in chosen}):
        llr = [0.0] * chosen[0].before.num_seats
        for point in points:
            if point.seat == seat:
                if id(point) in wanted:
                    found[id(point)] = model_shares(llr, seat)
                continue
            llr[point.seat] += _replayed_evidence(point, seat, settings, policy, seen)
    return [found[id(p)] for p in chosen]


def _replayed_evidence(point: Point, seat: int, settings: Settings, policy: Policy, seen: Seen) -> float:
    """The log-likelihood ratio, heuristic against random play, of another seat's
    action at ``point`` as ``seat`` saw it: read from ``seat``'s view just after it
    (see :func:`opponent_shares`)."""
    after = point.before.clone(track=False)
    after.apply_fast(point.seat, point.action)
    target = seen.in_view(after.view(seat))
    tag = f"evidence/{settings.seed}/{seat}/{point.seat}/{point.ordinal}"
    return replayed_evidence(point.before, seat, point.seat, target, policy, seen.action, tag)


def _play(
    point: Point, actions: Sequence[Action], settings: Settings, stage: str, first: int, count: int,
    shares: Sequence[float] | None = None,
) -> list[list[float]]:
    """Each action's rollout values in worlds ``first .. first + count - 1`` of ``stage``:
    every action meets the same worlds, the same rollout seeds and the same model of
    the other seats (``shares``, see :func:`opponent_shares`; drawn once per world)."""
    state, seat = point.before, point.seat
    rule = eval_for(state.game.id)
    values: list[list[float]] = [[] for _ in actions]
    for k in range(first, first + count):
        tag = f"{stage}/{settings.seed}/{point.seat}/{point.ordinal}/{k}"
        world = state.resample(seat, random.Random(tag))
        at_random: frozenset[int] = frozenset()
        if shares is not None:
            kinds = random.Random(f"model/{tag}")
            at_random = frozenset(s for s, h in enumerate(heuristic_seats(shares, kinds.random)) if not h)
        for i, action in enumerate(actions):
            trial = world.clone(track=False)
            trial.apply_fast(seat, action)
            values[i].append(rollout(trial, seat, random.Random(f"roll/{tag}"), rule, at_random))
    return values


def evaluate(point: Point, settings: Settings, shares: Sequence[float] | None = None) -> DecisionReport:
    """Judge one decision from its seat's information (see the module docstring);
    ``shares``: how the worlds model the other seats (see :func:`opponent_shares`).

    Two stages, so that the loss is not the best of several noisy estimates (which is
    biased upwards: measured in one step with 8 candidates and 8 worlds, the heuristic's
    own decisions were marked 10-20% of the time in five games): *screening* evaluates every candidate on ``n`` worlds and
    picks the best; *confirmation* plays only the chosen action and that best one on
    fresh worlds (``CONFIRM * n``; with a budget, as many rollouts as screening played
    when they differ), and the win chances, the loss and its
    standard error come from those worlds alone.  A loss large enough to mark but within twice its
    standard error is doubtful: its confirmation worlds are doubled until it is clear
    either way or they number ``EXTEND`` times the first count.

    With ``settings.early`` screening stops paying for what is already clear (see
    :func:`_screen`), and a decided position (every rollout so far ended the same) is
    confirmed on :data:`EARLY_MIN` worlds when they end that way too.
    """
    state, seat = point.before, point.seat
    rng = random.Random(f"analyse/{settings.seed}/{point.seat}/{point.ordinal}")
    actions, legal_count = candidates(point, settings, rng)
    chosen_index = actions.index(point.action)
    screen, count, alive = _screen(point, actions, settings, shares)
    means = [sum(v) / len(v) for v in screen]
    # on a tie the chosen action is the best: no loss, no other action named
    best_index = max(alive, key=lambda i: (means[i], i == chosen_index, -i))
    pair = [point.action] if best_index == chosen_index else [point.action, actions[best_index]]
    nominal = settings.worlds if settings.worlds is not None else count
    first = CONFIRM * nominal
    if settings.worlds is None and len(pair) == 2:  # as many rollouts as screening: the other half
        first = max(first, sum(len(v) for v in screen) // 2)
    settled = _constant(screen[i] for i in alive) if settings.early and count >= _early_floor(settings) else None
    if settled is not None and first > EARLY_MIN:
        # decided so far: a few fresh worlds that end the same way confirm it
        confirm = _play(point, pair, settings, "confirm", 0, EARLY_MIN, shares)
        if _constant(confirm) != settled:
            for i, v in enumerate(_play(point, pair, settings, "confirm", EARLY_MIN, first - EARLY_MIN, shares)):
                confirm[i].extend(v)
            settled = None
    else:
        settled = None
        confirm = _play(point, pair, settings, "confirm", 0, first, shares)
    while settled is None:
        win, best, best_win, loss, stderr = _confirmed(pair, confirm)
        played = len(confirm[0])
        # a doubtful loss (large enough to mark, not yet clear of the noise) is looked at
        # harder: the confirmation worlds double, up to EXTEND times their first number
        if mark_for(loss, stderr) is not None or loss <= MARKS[-1][0] or played >= EXTEND * first:
            break
        for i, v in enumerate(_play(point, pair, settings, "confirm", played, played, shares)):
            confirm[i].extend(v)
    win, best, best_win, loss, stderr = _confirmed(pair, confirm)
    fmt = state.format_action
    return DecisionReport(
        event=point.event,
        seat=seat,
        move=0,
        action=fmt(point.action),
        win=win,
        best=fmt(best),
        best_win=best_win,
        loss=loss,
        stderr=stderr,
        mark=mark_for(loss, stderr),
        legal=legal_count,
        worlds=count,
        confirm_worlds=len(confirm[0]),
        candidates=[Candidate(fmt(a), m) for a, m in sorted(zip(actions, means), key=lambda x: -x[1])],
    )


def _screen(
    point: Point, actions: Sequence[Action], settings: Settings, shares: Sequence[float] | None,
) -> tuple[list[list[float]], int, list[int]]:
    """Screening: each candidate's rollout values, the worlds played, and the candidates
    still in the race (indices into ``actions``).

    Worlds are played one at a time, ``settings.worlds`` of them or until half the
    budget is spent.  With ``settings.early``, from :func:`_early_floor` worlds on:

    - a candidate is dropped once the leader beats it by more than :data:`DROP`
      standard errors of their paired difference (the rest of the race never plays it);
    - screening stops when one candidate is left, or when no world played has told the
      candidates left apart (every one of them ended every world the same way) and half
      the worlds are played.

    A world's rollouts do not depend on which candidates meet it (its seeds come from the
    decision and the world's number), so the values kept are those the full screening
    would have had: early stopping only leaves out worlds and candidates.
    """
    screen: list[list[float]] = [[] for _ in actions]
    alive = list(range(len(actions)))
    fixed = settings.worlds
    floor = _early_floor(settings)
    start = time.perf_counter()
    count = 0
    while True:
        if fixed is not None:
            if count >= fixed:
                break
        elif count >= settings.max_worlds or (
            count >= settings.min_worlds and time.perf_counter() - start >= settings.budget / 2
        ):
            break
        for i, v in zip(alive, _play(point, [actions[i] for i in alive], settings, "world", count, 1, shares)):
            screen[i].extend(v)
        count += 1
        if not settings.early or count < floor:
            continue
        alive = _survivors(screen, alive)
        if len(alive) == 1:
            break
        if count >= max(floor, (fixed or 0) // 2) and _alike(screen[i] for i in alive):
            break
    return screen, count, alive


def _early_floor(settings: Settings) -> int:
    """Worlds every candidate meets before screening may stop early or drop one."""
    return max(EARLY_MIN, (settings.worlds or 0) // 4)


def _survivors(screen: Sequence[Sequence[float]], alive: list[int]) -> list[int]:
    """``alive`` without the candidates the leader beats by more than :data:`DROP`
    standard errors of the paired difference.  The standard error is never taken below
    ``span / (2 k)`` after ``k`` worlds (``span``: the range of the values seen): with
    0/1 outcomes a few identical differences have none, and one world's surprise must
    not settle a race."""
    leader = max(alive, key=lambda i: sum(screen[i]))
    top = screen[leader]
    k = len(top)
    seen = [x for i in alive for x in screen[i]]
    least = (max(seen) - min(seen)) / (2 * k)
    keep = []
    for i in alive:
        if i != leader:
            diffs = [a - b for a, b in zip(top, screen[i])]
            mean = sum(diffs) / k
            if mean - DROP * max(_stderr(diffs), least) > 0:
                continue
        keep.append(i)
    return keep


def _alike(values: Iterator[Sequence[float]]) -> bool:
    """Whether every candidate's values are the same world by world."""
    rows = list(values)
    return all(row == rows[0] for row in rows[1:])


def _constant(values: Any) -> float | None:
    """The one value of every rollout in ``values`` (lists of floats), or None."""
    seen = {x for row in values for x in row}
    return seen.pop() if len(seen) == 1 else None


def _confirmed(pair: list[Action], confirm: list[list[float]]) -> tuple[float, Action, float, float, float]:
    """The chosen action's win chance, the best action, its win chance, the loss and its
    standard error (points), from the confirmation worlds (``pair[0]`` is the chosen)."""
    win = sum(confirm[0]) / len(confirm[0])
    if len(pair) < 2 or sum(confirm[1]) <= sum(confirm[0]):
        return win, pair[0], win, 0.0, 0.0
    best_win = sum(confirm[1]) / len(confirm[1])
    diffs = [b - c for b, c in zip(confirm[1], confirm[0])]
    return win, pair[1], best_win, 100.0 * (best_win - win), 100.0 * _stderr(diffs)


def _stderr(diffs: Sequence[float]) -> float:
    n = len(diffs)
    if n < 2:
        return 0.0
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return math.sqrt(var / n)


# ---------------------------------------------------------------------- the whole match


def analyse(
    record: Mapping[str, Any],
    seat: int | None = None,
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
    events: Collection[int] | None = None,
    workers: int = 1,
) -> Analysis:
    """Analyse every decision of ``seat`` (every seat when None) in ``record``.

    ``events``: only the decisions at these event indices (0-based; the others are
    left out of the report and of the summaries).  ``progress(done, total)`` is
    called after each decision.  ``workers``: processes judging decisions side by side
    (the report is the same for any number: every seed comes from the decision).  A bad
    record raises :class:`RecordError`; a seat that does not exist raises ``ValueError``.
    """
    settings = settings or Settings()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number of at least 1, got {workers!r}")
    points, final, names = decision_points(record)
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < final.num_seats):
        raise ValueError(f"there is no seat {seat!r} in {final.game.id} (seats are 0..{final.num_seats - 1})")
    chosen = [p for p in points if (seat is None or p.seat == seat) and (events is None or p.event in events)]
    models = opponent_shares(points, chosen, settings)
    if workers > 1 and len(chosen) > 1:
        reports = _judge_in_workers(record, points, chosen, models, settings, workers, progress)
    else:
        reports = []
        for done, (point, shares) in enumerate(zip(chosen, models), 1):
            reports.append(evaluate(point, settings, shares))
            if progress is not None:
                progress(done, len(chosen))
    for point, report in zip(chosen, reports):
        report.move = point.ordinal + 1  # counted over all its decisions, judged or not
    over = final.is_over()
    seats = range(final.num_seats) if seat is None else [seat]
    summaries = [_summary(s, names[s], reports, final if over else None) for s in seats]
    return Analysis(final.game.id, names, over, final.result().winner if over else None, reports, summaries)


#: a worker's decision points, replayed once from the record it was started with
_worker_points: list[Point] = []


#: how often a judging worker looks whether the process that started it is still there
PARENT_POLL = 0.5


def _init_judge(record: Mapping[str, Any], parent: int) -> None:
    """A judging worker: replay the record once; leave Ctrl-C to the process that
    started it (which ends its workers), and exit once that process is gone (killed
    by the server's deadline or by ``kill -9``), since nobody waits for its answers."""
    global _worker_points
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
    _worker_points = decision_points(record)[0]


def _judge(index: int, settings: Settings, shares: Sequence[float] | None) -> DecisionReport:
    """In a worker: :func:`evaluate` of the ``index``-th decision point of the record."""
    return evaluate(_worker_points[index], settings, shares)


def _judge_in_workers(
    record: Mapping[str, Any], points: list[Point], chosen: list[Point], models: list[list[float] | None],
    settings: Settings, workers: int, progress: Callable[[int, int], None] | None,
) -> list[DecisionReport]:
    """:func:`evaluate` of every chosen point in ``workers`` processes (each replays the
    record once), the reports in the order of ``chosen``.  The largest decisions (most
    legal actions) go first, so that the last one to finish is a short one."""
    index = {id(p): i for i, p in enumerate(points)}
    order = sorted(range(len(chosen)), key=lambda k: -len(chosen[k].before.legal_actions(chosen[k].seat)))
    reports: list[DecisionReport | None] = [None] * len(chosen)
    # spawned, not forked: a progress bar's thread may hold a lock at the moment of a fork
    context = multiprocessing.get_context("spawn")
    pool = concurrent.futures.ProcessPoolExecutor(
        min(workers, len(chosen)), mp_context=context, initializer=_init_judge, initargs=(dict(record), os.getpid()),
    )
    try:
        futures = {pool.submit(_judge, index[id(chosen[k])], settings, models[k]): k for k in order}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            reports[futures[future]] = future.result()
            if progress is not None:
                progress(done, len(chosen))
    except BaseException:
        # Ctrl-C, a progress callback's deadline, the server's stop request, a failed
        # decision: the other decisions' answers are not wanted, so their workers are
        # ended rather than waited for.  stop_pool also lets go of the pool's queues, so
        # their semaphores are freed before the server kills this process (one still
        # registered then is reported as leaked), though the traceback keeps ``pool``
        stop_pool(pool)
        raise
    pool.shutdown()
    return [r for r in reports if r is not None]


def _summary(seat: int, name: str, reports: list[DecisionReport], final: State | None) -> SeatSummary:
    """Skill and luck telescope: start + skill + luck = the last estimate (or outcome)."""
    mine = [r for r in reports if r.seat == seat]
    marks = {name_: sum(1 for r in mine if r.mark == name_) for _, name_ in MARKS}
    outcome = None if final is None else outcome_for(final, seat)
    if not mine:
        return SeatSummary(seat, name, 0, marks, None, outcome, 0.0, 0.0)
    # only losses above SIGNIFICANCE standard errors: each loss is the best of two noisy
    # estimates minus the chosen one, floored at 0, so summing every one adds up noise
    # (8 worlds a decision gave a 19-decision swapping match -166 points of "skill")
    skill = 100 * sum(r.win - r.best_win for r in mine if r.loss > SIGNIFICANCE * r.stderr)
    end = outcome if outcome is not None else mine[-1].win
    luck = 100 * (end - mine[0].best_win) - skill
    return SeatSummary(seat, name, len(mine), marks, mine[0].best_win, outcome, skill, luck)


def curve(analysis: Analysis, seat: int) -> list[tuple[int, float]]:
    """(event, win chance) points of one seat: before each decision (best play), after
    it (the chosen action), and the outcome at the end of a finished match."""
    points: list[tuple[int, float]] = []
    last = -1
    for r in analysis.decisions:
        if r.seat != seat:
            continue
        points.append((r.event, r.best_win))
        points.append((r.event, r.win))
        last = r.event
    summary = next((s for s in analysis.summaries if s.seat == seat), None)
    if summary is not None and summary.outcome is not None and points:
        points.append((last + 1, summary.outcome))
    return points


def chart_data(analysis: Analysis) -> dict[str, Any]:
    """What a replay page needs to draw the curves and the marks (JSON-able).

    ``{"game", "seats", "finished", "winner",
    "curves": [{"seat", "name", "points": [{"event", "win", "kind"}]}],
    "marks": [{"event", "seat", "move", "action", "mark", "loss", "win", "best", "best_win"}],
    "summaries": [SeatSummary as a dict]}``.  ``event`` is the 0-based index of the
    record's event (a replay step); ``win`` is 0..1; ``kind`` is ``"before"`` (the
    seat's chance with its best play, before its decision at ``event``), ``"after"``
    (after the action it chose) or ``"outcome"`` (the end of a finished match, placed
    one event after the seat's last decision).  ``marks`` holds only marked decisions.
    """
    curves = []
    for summary in analysis.summaries:
        kinds = ["before", "after"] * (len(curve(analysis, summary.seat)) // 2) + ["outcome"]
        points = [
            {"event": event, "win": win, "kind": kind}
            for (event, win), kind in zip(curve(analysis, summary.seat), kinds)
        ]
        curves.append({"seat": summary.seat, "name": summary.name, "points": points})
    marks = [
        {
            "event": d.event, "seat": d.seat, "move": d.move, "action": d.action, "mark": d.mark,
            "loss": d.loss, "win": d.win, "best": d.best, "best_win": d.best_win,
        }
        for d in analysis.decisions
        if d.mark is not None
    ]
    return {
        "game": analysis.game,
        "seats": analysis.seats,
        "finished": analysis.finished,
        "winner": analysis.winner,
        "curves": curves,
        "marks": marks,
        "summaries": [asdict(s) for s in analysis.summaries],
    }


def iter_json_lines(analysis: Analysis) -> Iterator[str]:
    """``--json``: one object per decision, then one summary object per seat."""
    for report in analysis.decisions:
        yield json.dumps(report.to_json())
    for summary in analysis.summaries:
        yield json.dumps({"summary": asdict(summary)})


def load_record(text: str, source: str) -> dict[str, Any]:
    """Parse a record's JSON text; ``ValueError`` naming the file and position."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if not isinstance(record, dict):
        raise RecordError("a match record is a JSON object")
    return record


def new_state(game: str, options: Mapping[str, Any] | None = None) -> State:
    """A fresh state (a convenience for tests and the benchmark)."""
    return make_game(game, dict(options or {})).new_initial_state()
