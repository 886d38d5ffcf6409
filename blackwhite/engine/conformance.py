"""The conformance kit: every check a game must pass, run on an installed game.

``blackwhite check-game ID`` runs it for a designer; the project's own tests run the
same functions over every installed game (tests/test_conformance.py).  A check is a
function of the game id and a seed that raises :class:`CheckFailed` (or anything the
game's own code raises) on the first thing wrong; :func:`run` calls it for many seeds
and reports each failure with the seed that reproduces it
(``blackwhite check-game ID --only CHECK --seed SEED --playouts 1``).

The checks:

- ``options``: every option declared (``OptionInfo``), its bounds and choices taken,
  the values past them refused; the defaults make a game.
- ``rules-page``: the game ships its rules page (``GameEntry.rules_page``).
- ``playouts``: random matches on the checked path end (within ``Game.max_length``
  when the game declares one); at every step every seat's view and the public view are
  JSON, the awaited seats have legal actions and no other seat does, every action
  listed round-trips through the notation (and lies in ``Game.action_space`` when
  declared), the clock names the phase of each awaited seat; the fast path plays the
  same match; the result is well formed.
- ``records``: a match's record replays through the referee to the same record, views
  and outcome, and its first half to the same position.
- ``refusals``: actions another seat or another moment allows, unreadable text,
  non-ASCII digits and hand-made tuples are refused and change nothing.
- ``clock``: the clock rule is sound; a ``timeout`` of an awaited seat either loses or
  plays a legal action for it, of a seat not awaited is refused; resigning ends it.
- ``clone``: a copy played on leaves the original as it was.
- ``pending``: a seat's view shows no other seat's pending choice.
- ``info-key``: equal ``info_key`` exactly when equal views.
- ``resample``: a world redrawn for a seat leaves that seat's view and legal actions
  as they were, holds no other seat's pending choice, plays on to the end, and is the
  same world for the same seed.
- ``told``: two matches that differ only in what a seat was not told (redrawn from the
  seat's announcements and its own actions, never from its view) give that seat
  identical views; two that show it the same views give it the same announcements.
"""

from __future__ import annotations

import json
import math
import random
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .core import (
    RESIGN,
    TIMEOUT,
    ActionSyntaxError,
    ChanceEvent,
    Game,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
    OptionError,
    SamplingError,
    State,
    replay_world,
    was_shown,
    was_told,
)
from .play import random_step
from .record import load, outcome_json
from .registry import make_game, rules_markdown


class CheckFailed(AssertionError):
    """What a check found wrong, in words a designer can act on."""


@dataclass(frozen=True)
class Failure:
    """One failed run of a check: what, the seed that reproduces it, and why."""

    check: str
    seed: int
    message: str

    def reproduce(self, gid: str) -> str:
        return f"blackwhite check-game {gid} --only {self.check} --seed {self.seed} --playouts 1"


@dataclass(frozen=True)
class Outcome:
    """How one check went: its runs, the seconds they took and the failures found."""

    check: str
    runs: int
    seconds: float
    failures: tuple[Failure, ...]


def _fail(message: str) -> CheckFailed:
    return CheckFailed(message)


def _json(value: Any, what: str) -> str:
    try:
        text = json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _fail(f"{what} is not JSON: {exc}") from None
    if json.loads(text) != value:
        raise _fail(f"{what} does not survive JSON unchanged (a tuple, or a key that is not a string?)")
    return text


def _seat_name(seat: int | None) -> str:
    return "the public view" if seat is None else f"P{seat + 1}"


def _difference(a: Any, b: Any, path: str = "view") -> str:
    """Where two JSON values first differ, as ``view["rounds"][0]: 7 against 5``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return _difference(a.get(key), b.get(key), f"{path}[{key!r}]")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _difference(x, y, f"{path}[{i}]")
    return f"{path}: {json.dumps(a)[:120]} against {json.dumps(b)[:120]}"


def snapshot(state: State) -> str:
    """Everything observable about a state: its record, every seat's view, the result."""
    views = [state.view(s) for s in [*range(state.num_seats), None]]
    return json.dumps([state.to_record(), views, state.result().__dict__], sort_keys=True, default=str)


def _random_match(gid: str, rng: random.Random, stop: int | None = None) -> State:
    """A match of random legal play on the checked path (to ``stop`` events, else the end)."""
    state = make_game(gid).new_initial_state()
    steps = 0
    limit = _limit(state.game)
    while not state.is_over() and (stop is None or steps < stop):
        if steps >= limit:
            raise _fail(f"random play did not end within {limit} events")
        random_step(state, rng, fast=False)
        steps += 1
    return state


def _limit(game: Game) -> int:
    declared = game.max_length()
    return declared if declared is not None else 100_000


def _positions(gid: str, rng: random.Random, count: int) -> Iterator[State]:
    """``count`` positions of one random match (tracked, checked path), the start included."""
    state = make_game(gid).new_initial_state()
    length = _random_match(gid, random.Random(rng.random())).history
    marks = sorted(rng.sample(range(len(length) + 1), min(count, len(length) + 1)))
    steps = 0
    for mark in marks:
        while steps < mark and not state.is_over():
            random_step(state, rng, fast=False)
            steps += 1
        yield state


# --------------------------------------------------------------------------- the checks


def check_options(gid: str, seed: int) -> None:
    game = make_game(gid)
    cls = type(game)
    try:
        infos = cls.options_info()
    except KeyError as exc:
        raise _fail(str(exc.args[0])) from None
    if not isinstance(cls.options_markdown(), str):
        raise _fail("options_markdown() is not text")
    with_dmo = {"dmo": 0, **cls.option_defaults}
    for name, info in infos.items():
        if info.kind == "number":
            for value in (info.minimum, info.maximum):
                if value is not None:
                    _takes(gid, name, value)
            for value in ((info.maximum + 1) if info.maximum is not None else None,
                          (info.minimum - 1) if info.minimum is not None else None):
                if value is not None:
                    _refuses(gid, name, value)
        elif info.kind == "choice":
            for value, _words in info.choices:
                _takes(gid, name, value)
            _refuses(gid, name, "no-such-choice")
        elif info.kind == "bool":
            _takes(gid, name, not with_dmo[name])
            _refuses(gid, name, "yes")
    try:
        make_game(gid, {"no_such_option": 1})
    except OptionError:
        pass
    else:
        raise _fail("an unknown option was accepted")


def _takes(gid: str, name: str, value: Any) -> None:
    try:
        make_game(gid, {name: value}).new_initial_state()
    except OptionError as exc:
        raise _fail(f"option {name}={value!r}, which its OptionInfo offers, is refused: {exc}") from None


def _refuses(gid: str, name: str, value: Any) -> None:
    try:
        make_game(gid, {name: value})
    except OptionError:
        return
    raise _fail(f"option {name}={value!r}, outside what its OptionInfo offers, is accepted")


def check_rules_page(gid: str, seed: int) -> None:
    text = rules_markdown(gid)
    if text is None:
        raise _fail("no rules page: name one in the GameEntry (rules_page='package:rules.md') and ship it")
    if not text.lstrip().startswith("# "):
        raise _fail("the rules page does not start with its title ('# ...')")


def check_playouts(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    probe = random.Random(~seed)  # the probes' own draws, so the fast path can replay rng's
    state = make_game(gid).new_initial_state()
    game = state.game
    space = game.action_space()
    space_set = None if space is None else set(space)
    rule = game.clock_rule()
    limit = _limit(game)
    steps = 0
    while not state.is_over():
        if steps >= limit:
            raise _fail(f"random play did not end within {limit} events"
                        + (" (Game.max_length)" if game.max_length() is not None else ""))
        for seat in [*range(state.num_seats), None]:
            _json(state.view(seat), f"{_seat_name(seat)}'s view")
        if not state.is_chance():
            movers = state.to_move()
            if not movers:
                raise _fail("no seat is awaited, no chance event is due, and the match is not over")
            for seat in range(state.num_seats):
                legal = state.legal_actions(seat)
                if seat in movers and not legal:
                    raise _fail(f"P{seat + 1} is awaited but has no legal action")
                if seat not in movers and any(not state.is_free(a) for a in legal):
                    if seat in state.pending:
                        raise _fail(f"P{seat + 1} has already submitted to this simultaneous step but "
                                    "still lists legal actions: list none for a seat not in to_move()")
                    raise _fail(f"P{seat + 1} is not awaited but lists legal actions (list none for a "
                                "seat not in to_move())")
                if seat in movers:
                    phase = state.clock_phase(seat)
                    if phase not in rule.per_action:
                        raise _fail(f"clock_phase({seat}) is {phase!r}, which the clock rule does not name")
                for action in probe.sample(legal, min(4, len(legal))):
                    text = state.format_action(action)
                    back = state.parse(seat, text)
                    if back != action:
                        raise _fail(f"{action!r} is written {text!r}, which reads back as {back!r}")
                    if space_set is not None and action not in space_set:
                        raise _fail(f"{action!r} is legal but not in Game.action_space()")
        random_step(state, rng, fast=False)
        steps += 1
    result = state.result()
    if not result.finished or len(result.scores) != state.num_seats:
        raise _fail(f"the result of a finished match is malformed: {result}")
    if result.winner is not None and not 0 <= result.winner < state.num_seats:
        raise _fail(f"the winner {result.winner!r} is not a seat")
    for seat in range(state.num_seats):
        if state.legal_actions(seat):
            raise _fail(f"P{seat + 1} has legal actions after the end")
        _json(state.view(seat), f"{_seat_name(seat)}'s final view")
    try:
        state.apply(0, RESIGN)
    except GameOverError:
        pass
    else:
        raise _fail("an event was accepted after the end")
    fast = make_game(gid).new_initial_state()
    rng = random.Random(seed)
    while not fast.is_over():
        random_step(fast, rng, fast=True)
    if fast.to_record() != state.to_record() or fast.result() != result:
        raise _fail("the fast path (apply_fast) and the checked path (apply) played different matches "
                    "from the same draws")


def check_records(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    state = _random_match(gid, rng)
    record = state.to_record()
    again = load(json.loads(_json(record, "the record")))
    if again.to_record() != record:
        raise _fail("the record read back through the referee writes a different record")
    if snapshot(again) != snapshot(state):
        raise _fail("the record read back through the referee gives different views or result")
    if outcome_json(again) != outcome_json(state):
        raise _fail("the referee's outcome of the record differs from the match's")
    half = dict(record, events=record["events"][: len(record["events"]) // 2])
    part = load(half)
    same = make_game(gid, record["options"]).new_initial_state()
    for event in state.history[: len(part.history)]:
        if isinstance(event, ChanceEvent):
            same.apply_chance(event)
        else:
            same.apply(*event)
    if snapshot(part) != snapshot(same):
        raise _fail("the first half of a record replays to another position than the match had")


NON_ASCII_DIGITS = ["\u0663", "\uff13", "\u00b3", "\u0969"]
HOSTILE_TUPLES: list[Any] = [
    (), None, ("reveal", -1), ("place", -1, -2, -3), ("play", True), ("swap", 0, 1, 2),
    ("bid", 2.5), ("bid", "3"), ("raise",), (["go"],), ({},), ("propose", 10**12), ("dance",),
    ["bid", 3], ("play", 10**20), ("play", -1),
]


def check_refusals(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    refused = 0
    for state in _positions(gid, rng, 6):
        if state.is_over() or state.is_chance():
            continue
        seat = state.to_move()[0]
        legal = set(state.legal_actions(seat))
        before = snapshot(state)
        probes = [a for s in range(state.num_seats) if s != seat for a in state.legal_actions(s)[:20]]
        later = state.clone()
        for _ in range(3):
            if later.is_over():
                break
            random_step(later, rng)
        if not later.is_over() and not later.is_chance():
            probes += later.legal_actions(later.to_move()[0])[:20]
        for action in probes:
            if action in legal or state.is_free(action):
                continue
            try:
                state.apply(seat, action)
            except IllegalActionError:
                refused += 1
            else:
                raise _fail(f"{state.format_action(action)} was accepted from P{seat + 1} but is not "
                            "among its legal actions")
            if snapshot(state) != before:
                raise _fail(f"refusing {state.format_action(action)} changed the match")
        for text in ("", "xyzzy", "12 13 14 15", "-1", "1" * 5000):
            try:
                state.apply_text(seat, text)
            except (ActionSyntaxError, IllegalActionError):
                pass
            else:
                raise _fail(f"the text {text[:20]!r} was accepted as an action")
        for action in rng.sample(sorted(legal, key=repr), min(2, len(legal))):
            text = state.format_action(action)
            spots = [i for i, ch in enumerate(text) if ch.isdigit()]
            for digit in NON_ASCII_DIGITS if spots else ():
                bad = text[: spots[-1]] + digit + text[spots[-1] + 1:]
                try:
                    state.apply_text(seat, bad)
                except ActionSyntaxError:
                    pass
                else:
                    raise _fail(f"{bad!r} (a digit of another script) was accepted")
        for action in HOSTILE_TUPLES:
            if any(action == a for a in legal):
                continue
            try:
                state.apply(seat, action)
            except ValueError:
                pass
            else:
                raise _fail(f"the hand-made tuple {action!r} was accepted")
        if snapshot(state) != before:
            raise _fail("refused text or tuples changed the match")


def check_clock(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    game = make_game(gid)
    rule = game.clock_rule()
    if not rule.per_action:
        raise _fail("the clock rule names no phase")
    for phase, seconds in rule.per_action.items():
        if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
            raise _fail(f"the clock gives phase {phase!r} {seconds!r} seconds")
    if not (math.isfinite(rule.reserve) and rule.reserve >= 0):
        raise _fail(f"the clock's reserve is {rule.reserve!r}")
    if not isinstance(rule.describe(), str):
        raise _fail("ClockRule.describe() is not text")
    for state in _positions(gid, rng, 5):
        if state.is_over() or state.is_chance():
            continue
        movers = state.to_move()
        seat = movers[0]
        timed = state.clone()
        replacement = timed.timeout_action(seat)
        try:
            timed.apply(seat, TIMEOUT)
        except IllegalActionError as exc:
            raise _fail(f"a timeout of P{seat + 1}, who is awaited, was refused: {exc} "
                        f"(timeout_action gives {replacement!r})") from None
        if replacement is None:
            if not timed.is_over() or timed.result().winner == seat:
                raise _fail(f"P{seat + 1} timed out with no action played for it, and did not lose")
        idle = [s for s in range(state.num_seats) if s not in movers]
        if idle:
            before = snapshot(state)
            try:
                state.clone().apply(idle[0], TIMEOUT)
            except NotYourTurnError:
                pass
            else:
                raise _fail(f"a timeout of P{idle[0] + 1}, who is not awaited, was accepted")
            if snapshot(state) != before:
                raise _fail("a refused timeout changed the match")
        gone = state.clone()
        gone.apply(seat, RESIGN)
        result = gone.result()
        if not result.finished or result.winner == seat:
            raise _fail(f"P{seat + 1} resigned and the match did not end with it losing")


def check_clone(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    for state in _positions(gid, rng, 3):
        before = snapshot(state)
        copy = state.clone()
        while not copy.is_over():
            random_step(copy, rng, fast=False)
        if snapshot(state) != before:
            raise _fail("playing on a clone changed the original (a list or dict shared: _copy_state)")


def check_pending(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    state = make_game(gid).new_initial_state()
    while not state.is_over():
        if state.pending:
            for seat in [*range(state.num_seats), None]:
                view = state.view(seat)
                text = json.dumps(view)
                for other, action in state.pending.items():
                    if other == seat:
                        continue
                    written = state.format_action(action)
                    without = state.clone()
                    del without.pending[other]
                    if text.count(written) != json.dumps(without.view(seat)).count(written):
                        raise _fail(f"P{other + 1}'s pending {written!r} shows in {_seat_name(seat)}")
        random_step(state, rng, fast=False)


def check_info_key(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    keys: dict[tuple[int, str], str] = {}
    views: dict[tuple[int, str], str] = {}
    for state in _positions(gid, rng, 12):
        for seat in range(state.num_seats):
            for world in (state, state.resample(seat, random.Random(seed))):
                view = json.dumps(world._view(seat), sort_keys=True, default=repr)
                key = world.info_key(seat)
                if keys.setdefault((seat, key), view) != view:
                    raise _fail(f"one info_key for two different views of P{seat + 1}")
                if views.setdefault((seat, view), key) != key:
                    raise _fail(f"two info_keys for one view of P{seat + 1}")


#: core parts of a view that a redrawn world may change: the other seats' pending
#: choices are dropped there, so they are awaited again
_MAY_DIFFER = {"log", "to_move", "submitted"}


def check_resample(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    for state in _positions(gid, rng, 4):
        if state.is_over():
            continue
        for seat in range(state.num_seats):
            world = state.resample(seat, random.Random(seed))
            again = state.resample(seat, random.Random(seed))
            mine = {k: v for k, v in state.view(seat).items() if k not in _MAY_DIFFER}
            theirs = {k: v for k, v in world.view(seat).items() if k not in _MAY_DIFFER}
            if mine != theirs:
                raise _fail(f"a world redrawn for P{seat + 1} changes what it sees: "
                            f"{_difference(mine, theirs)}")
            if seat in state.to_move() and sorted(world.legal_actions(seat), key=repr) != sorted(
                    state.legal_actions(seat), key=repr):
                raise _fail(f"a world redrawn for P{seat + 1} changes its legal actions")
            if set(world.pending) - {seat}:
                raise _fail(f"a world redrawn for P{seat + 1} keeps another seat's pending choice")
            if [world.view(s) for s in range(state.num_seats)] != [again.view(s) for s in range(state.num_seats)]:
                raise _fail(f"two worlds redrawn for P{seat + 1} with the same seed differ (resample must "
                            "draw only from rng, after sorting what it redraws)")
            while not world.is_over():
                random_step(world, rng)


#: events the ``told`` check may replay looking for another world (a long match of a
#: game with hundreds of actions a step finds one less often: that run compares nothing)
TOLD_BUDGET = 3000


def check_told(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    for state in _positions(gid, rng, 3):
        for seat in [*range(state.num_seats), None]:
            pending_open = any(s != seat for s in state.pending)
            skip = {"to_move", "submitted", "my_pending"} if pending_open else set()
            try:
                world = replay_world(state, seat, rng, was_told, particles=1, budget=TOLD_BUDGET,
                                     truth_as_candidate=True)
            except SamplingError:
                continue  # the search found nothing else in its budget: nothing to compare
            mine = {k: v for k, v in state.view(seat).items() if k not in skip}
            theirs = {k: v for k, v in world.view(seat).items() if k not in skip}
            if mine != theirs:
                raise _fail(
                    f"{_seat_name(seat)} differs between two matches in which it was told the same "
                    f"things (same announcements, same own actions): {_difference(theirs, mine)}.  A "
                    "view may show only what the seat was told: a leak, or an announcement missing"
                )
            try:
                shown = replay_world(state, seat, rng, was_shown, particles=1, budget=TOLD_BUDGET,
                                     truth_as_candidate=True)
            except SamplingError:
                continue
            heard = [n.text for n in state.log if n.to is None or n.to == seat]
            other = [n.text for n in shown.log if n.to is None or n.to == seat]
            if not pending_open and heard != other:
                first = next((a, b) for a, b in zip([*heard, ""], [*other, ""]) if a != b)
                raise _fail(
                    f"{_seat_name(seat)} is told different things in two matches that show it the same "
                    f"views: {first[1]!r} against {first[0]!r}.  An announcement may tell only what the "
                    "view shows: a leak, or a view field missing"
                )


#: name -> (check, runs per 100 playouts): the cheap checks run often, the dear ones less
CHECKS: dict[str, tuple[Callable[[str, int], None], float]] = {
    "options": (check_options, 0.0),
    "rules-page": (check_rules_page, 0.0),
    "playouts": (check_playouts, 100.0),
    "records": (check_records, 10.0),
    "refusals": (check_refusals, 2.0),
    "clock": (check_clock, 5.0),
    "clone": (check_clone, 2.0),
    "pending": (check_pending, 5.0),
    "info-key": (check_info_key, 1.0),
    "resample": (check_resample, 3.0),
    "told": (check_told, 1.0),
}


def runs_of(name: str, playouts: int) -> int:
    """How many seeds check ``name`` runs when the playouts check runs ``playouts``."""
    return max(1, round(playouts * CHECKS[name][1] / 100))


def explain(exc: BaseException) -> str:
    """A failure in one line: a check's finding, or what the game raised and where."""
    if isinstance(exc, CheckFailed):
        return str(exc)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    if isinstance(exc, SamplingError) and frames and frames[-1].name in ("replay_world", "_search_world"):
        # not the game's code: the generic sampler ran out of its budget (a private
        # deal that later rounds rule out time and again)
        return (f"blackwhite's generic sampler gave up: {exc}; a game with a private deal "
                "needs a sampler of its own (docs/designing-a-game.md, section 8)")
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"the game's code raised {type(exc).__name__}: {exc}{where}"


def run(
    gid: str,
    *,
    playouts: int = 2000,
    seed: int = 0,
    only: list[str] | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
    max_failures: int = 3,
) -> list[Outcome]:
    """Run the checks (``only`` those named) on game ``gid``; a check stops after
    ``max_failures`` failing seeds.  Seeds run from ``seed`` up."""
    make_game(gid)  # UnknownGameError (or OptionError from its defaults) before anything
    names = only or list(CHECKS)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"unknown check {', '.join(unknown)}; checks: {', '.join(CHECKS)}")
    out = []
    for name in names:
        check, _ = CHECKS[name]
        runs = runs_of(name, playouts)
        failures: list[Failure] = []
        start = time.perf_counter()
        for i in range(runs):
            try:
                check(gid, seed + i)
            except Exception as exc:  # a game's own bug is a finding, never a crash of the kit
                failures.append(Failure(name, seed + i, explain(exc)))
                if len(failures) >= max_failures:
                    break
        outcome = Outcome(name, runs, time.perf_counter() - start, tuple(failures))
        if on_outcome is not None:
            on_outcome(outcome)
        out.append(outcome)
    return out
