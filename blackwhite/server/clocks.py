"""Match clocks as pure functions over readings: the server is the only clock.

A reading says, per seat, whether the game awaits it now, what is left of its
allowance for the current action and what is left of its reserve.  Time is charged
only by :func:`charge`, with an elapsed time the server measured itself (never a
client's), first from the action allowance, then from the reserve.  A seat whose
allowance and reserve are both spent is :func:`expired`; the server then applies the
engine's ``timeout`` for it through the same checked path as any action.

A match's clocks may not have *started* yet (it waits for its players; the service
decides when it is ready), and until then nothing is charged, exactly as while paused.

A match runs at a pace (:class:`blackwhite.engine.Pace`): the service passes
``pace.rule(game.clock_rule())`` wherever a rule is taken, and charges the time between
two moments with :func:`charge_between`, which leaves out the pace's quiet hours;
:func:`next_deadline` finds the moment a seat runs out on the same calendar.  A slow
match may also have clock time for the whole match (``match_left``): when it is spent,
every awaited seat has run out.

Nothing here reads a wall clock, so tests drive clocks with made-up times; the
service keeps the moment the current readings started counting and stores readings
with every event, which is how down time after a restart is charged to no one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from ..engine import LIVE, ClockRule, Pace, State


@dataclass(frozen=True)
class SeatClock:
    """One seat's reading: awaited now, seconds left for this action, reserve left."""

    awaited: bool
    action_left: float
    reserve_left: float

    @property
    def left(self) -> float:
        """Seconds until this seat's timeout, if it stays awaited."""
        return self.action_left + self.reserve_left

    def to_json(self) -> dict[str, Any]:
        return {
            "awaited": self.awaited,
            "action_left": round(self.action_left, 3),
            "reserve_left": round(self.reserve_left, 3),
        }


@dataclass(frozen=True)
class Clocks:
    """Every seat's reading, whether the host paused the match, the step's allowance,
    and whether the clocks have started (a match waiting for its players charges no one)."""

    seats: tuple[SeatClock, ...]
    paused: bool = False
    phase_seconds: float = 0.0
    started: bool = True
    #: clock time left for the whole match (a slow pace's ``match_hours``; None: no such bound)
    match_left: float | None = None

    @property
    def running(self) -> bool:
        """Whether time is charged now: started and not paused."""
        return self.started and not self.paused

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "paused": self.paused,
            "started": self.started,
            "seats": [s.to_json() for s in self.seats],
            "phase_seconds": self.phase_seconds,
        }
        if self.match_left is not None:
            out["match_left"] = round(self.match_left, 3)
        return out

    @staticmethod
    def from_json(data: Any) -> Clocks:
        """Readings as stored; raises ``ValueError`` naming what is malformed."""
        try:
            seats = tuple(
                SeatClock(bool(s["awaited"]), float(s["action_left"]), float(s["reserve_left"]))
                for s in data["seats"]
            )
            # readings stored before matches waited for their players have no "started": they ran
            whole = data.get("match_left")
            return Clocks(seats, bool(data["paused"]), float(data.get("phase_seconds", 0.0)),
                          bool(data.get("started", True)), None if whole is None else float(whole))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed clock readings {data!r}: {exc}") from None


def awaited_seats(state: State) -> set[int]:
    """Seats the clock charges: those whose action the game awaits and has not got."""
    return set(state.to_move()) if not state.is_over() else set()


def _allowance(rule: ClockRule, state: State, seat: int) -> float:
    return rule.seconds(state.clock_phase(seat))


def _phase_seconds(rule: ClockRule, state: State, awaited: Iterable[int]) -> float:
    return max((_allowance(rule, state, s) for s in awaited), default=0.0)


def initial(rule: ClockRule, state: State, match_seconds: float | None = None) -> Clocks:
    """Readings at the start: the full reserve for everyone, a fresh allowance for awaited
    seats, and ``match_seconds`` for the whole match (a slow pace's; None: no such bound)."""
    waiting = awaited_seats(state)
    seats = tuple(
        SeatClock(s in waiting, _allowance(rule, state, s) if s in waiting else 0.0, float(rule.reserve))
        for s in range(state.num_seats)
    )
    return Clocks(seats, False, _phase_seconds(rule, state, waiting), match_left=match_seconds)


def charge(clocks: Clocks, elapsed: float) -> Clocks:
    """Readings ``elapsed`` seconds later: each awaited seat spends its allowance, then its reserve.

    A paused match, one not started yet, and a negative ``elapsed`` (a wall clock set
    back) charge nothing.  The whole match's time, if it has some, runs down with it.
    """
    if not clocks.running or elapsed <= 0:
        return clocks
    whole = None if clocks.match_left is None else max(0.0, clocks.match_left - elapsed)
    seats = []
    for s in clocks.seats:
        if not s.awaited:
            seats.append(s)
            continue
        from_action = min(s.action_left, elapsed)
        from_reserve = min(s.reserve_left, elapsed - from_action)
        seats.append(replace(s, action_left=s.action_left - from_action, reserve_left=s.reserve_left - from_reserve))
    return replace(clocks, seats=tuple(seats), match_left=whole)


def charge_between(clocks: Clocks, since: float, now: float, pace: Pace = LIVE) -> Clocks:
    """Readings taken at ``since`` charged up to ``now`` (Unix seconds) on the pace's
    calendar: quiet hours are charged to no one."""
    return charge(clocks, pace.running(since, now))


def after_event(clocks: Clocks, rule: ClockRule, state: State, before: set[int], restart: set[int]) -> Clocks:
    """Readings once an event is applied (``clocks`` already charged up to it).

    ``before`` is who was awaited before the event; ``restart`` the seats whose
    allowance starts afresh even if awaited before and after (the seat that just
    completed a turn).  A seat newly awaited gets the allowance of its phase; a seat
    still awaited at the same step keeps what is left of it (its opponent's secret
    submission does not reset its clock); a seat no longer awaited stops.
    """
    waiting = awaited_seats(state)
    seats = []
    for seat, s in enumerate(clocks.seats):
        if seat not in waiting:
            seats.append(SeatClock(False, 0.0, s.reserve_left))
        elif seat in before and seat not in restart:
            seats.append(replace(s, awaited=True))
        else:
            seats.append(SeatClock(True, _allowance(rule, state, seat), s.reserve_left))
    return replace(clocks, seats=tuple(seats), phase_seconds=_phase_seconds(rule, state, waiting))


def expired(clocks: Clocks) -> list[int]:
    """Awaited seats with no time left (none while paused or not started); once the whole
    match's time is spent, every awaited seat."""
    if not clocks.running:
        return []
    over = clocks.match_left is not None and clocks.match_left <= 0
    return [i for i, s in enumerate(clocks.seats) if s.awaited and (over or s.left <= 0)]


def seat_left(clocks: Clocks, seat: int) -> float:
    """Clock time until ``seat`` runs out if it stays awaited: its allowance and reserve,
    or what is left of the whole match if that is less."""
    left = clocks.seats[seat].left
    return left if clocks.match_left is None else min(left, clocks.match_left)


def next_deadline(clocks: Clocks, since: float, pace: Pace = LIVE) -> float | None:
    """The earliest moment (Unix seconds, on the pace's calendar) a seat runs out, given
    readings taken at ``since`` (None: no one runs)."""
    if not clocks.running:
        return None
    lefts = [seat_left(clocks, i) for i, s in enumerate(clocks.seats) if s.awaited]
    return pace.advance(since, min(lefts)) if lefts else None


def seat_deadline(clocks: Clocks, seat: int, since: float, pace: Pace = LIVE) -> float | None:
    """When ``seat`` runs out (Unix seconds), given readings taken at ``since``, if it stays
    awaited and the clocks keep running (None: it is not awaited, or no clock runs).  What
    a player's "you have until ..." says (``/bw time``, the waiting list, notifications)."""
    if not clocks.running or not clocks.seats[seat].awaited:
        return None
    return pace.advance(since, seat_left(clocks, seat))


def low_time_at(clocks: Clocks, seat: int, since: float, full: float, pace: Pace = LIVE) -> list[tuple[float, float]]:
    """When ``seat``, awaited with ``full`` seconds in all, reaches each of the pace's
    low-time marks (:meth:`Pace.low_marks`: a quarter left; at slow pace also ten minutes):
    ``(mark, moment)`` pairs, latest last, for the marks not passed yet at ``since``."""
    if not clocks.running or not clocks.seats[seat].awaited:
        return []
    left = seat_left(clocks, seat)
    return [(mark, pace.advance(since, left - mark)) for mark in pace.low_marks(full) if left > mark]


def add_time(clocks: Clocks, seat: int | None, seconds: float, cap: float = 3600.0) -> Clocks:
    """The host gives ``seat`` more time: added to its reserve, which lasts the whole match;
    ``seat`` None: to the whole match's hours (a slow match that has some).  At most
    ``cap`` seconds at once (:meth:`Pace.extra_time_cap`: an hour at live pace)."""
    if seat is not None and not 0 <= seat < len(clocks.seats):
        raise ValueError(f"there is no seat {seat} (seats are 0..{len(clocks.seats) - 1})")
    if not 0 < seconds <= cap:
        raise ValueError(f"extra time must be more than 0 and at most {cap:g} seconds at this pace, got {seconds}")
    if seat is None:
        if clocks.match_left is None:
            raise ValueError("this match has no hours for the whole match (a slow pace's match_hours); "
                             "give a seat time instead")
        return replace(clocks, match_left=clocks.match_left + seconds)
    seats = list(clocks.seats)
    seats[seat] = replace(seats[seat], reserve_left=seats[seat].reserve_left + seconds)
    return replace(clocks, seats=tuple(seats))


def set_paused(clocks: Clocks, paused: bool) -> Clocks:
    return replace(clocks, paused=paused)


def set_started(clocks: Clocks, started: bool) -> Clocks:
    """Readings of a match waiting for its players (``False``), or once it starts
    (``True``): every awaited seat keeps its full allowance until then."""
    return replace(clocks, started=started)
