"""The pace of a match: how long its clocks give, chosen by the host at creation.

The games' own clocks are for live play (swapping: 3 minutes an action).  Many
communities play slowly instead (a death match over a day or two), so a match runs at
one of three paces:

* ``live``: the game's clock rule as written (the default, and the pace of a record
  that names none);
* ``scaled``: every allowance and the reserve multiplied by ``factor``;
* ``slow``: ``action_hours`` for every action whatever its phase, ``reserve_hours`` of
  reserve (none unless given), optionally ``match_hours`` for the whole match (when they
  are spent every seat the game awaits times out, by the game's rule, until it ends), and
  optionally quiet hours: a daily window of local time in a time zone during which the
  clocks do not run (no one is charged for the night).

A pace is data, read and written as JSON (the record's top-level ``pace``, the
create-match request's ``pace``); :meth:`Pace.from_json` refuses anything else with a
:class:`PaceError` naming the field.  The pace turns the game's :class:`ClockRule` into
the match's (:meth:`Pace.rule`); time is measured in Unix seconds, and
:meth:`Pace.running` / :meth:`Pace.advance` convert between the wall clock and the time
the clocks run (all of it, except quiet hours).  Quiet hours are defined on local time
(a moment is quiet when the zone's clock then reads a time inside the window), so a
daylight-saving change makes the night one real hour shorter or longer and never
charges anyone for it.  Nothing here reads a clock.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterator, Mapping
from zoneinfo import ZoneInfo

from .core import BlackWhiteError, ClockRule

PACES = ("live", "scaled", "slow")
#: bounds of what a host may ask (a clear refusal beyond them, never a silent cut)
MIN_FACTOR, MAX_FACTOR = 0.1, 1000.0
MIN_ACTION_HOURS, MAX_ACTION_HOURS = 0.25, 720.0
MAX_RESERVE_HOURS = 2160.0
MAX_MATCH_HOURS = 8760.0
#: quiet hours may take at most this many hours of the 24, so every day has time to play
MAX_QUIET_HOURS = 20
#: the extra time a host may give at once at live pace; :meth:`Pace.stretch` scales it
EXTRA_TIME_CAP = 3600.0
#: at slow pace a seat is also told when this many seconds are left ("ten minutes left")
SLOW_LOW_SECONDS = 600.0

_DAY = 86400.0
_HOUR = 3600.0
_HHMM = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")


class PaceError(BlackWhiteError, ValueError):
    """A pace that cannot be used; the message names the field and the rule."""


@dataclass(frozen=True)
class Quiet:
    """Quiet hours: every day from ``start`` to ``end`` (minutes after local midnight;
    ``end`` before ``start`` wraps past midnight) in the time zone ``tz``."""

    start: int
    end: int
    tz: str

    def to_json(self) -> dict[str, Any]:
        return {"from": _hhmm(self.start), "to": _hhmm(self.end), "tz": self.tz}

    @property
    def minutes(self) -> int:
        """How many minutes of a local day are quiet."""
        return (self.end - self.start) % 1440

    def describe(self) -> str:
        return f"clocks stop {_hhmm(self.start)}–{_hhmm(self.end)} {self.tz} time"

    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    def _windows(self, lo: float, hi: float) -> Iterator[tuple[float, float]]:
        """Quiet windows of local seconds meeting ``[lo, hi)`` (local seconds since the epoch)."""
        day = math.floor(lo / _DAY) - 1
        start, end = self.start * 60.0, self.end * 60.0
        if end <= start:
            end += _DAY
        while day * _DAY + start < hi:
            a, b = day * _DAY + start, day * _DAY + end
            if b > lo:
                yield max(a, lo), min(b, hi)
            day += 1

    def open_spans(self, t0: float, t1: float) -> Iterator[tuple[float, float]]:
        """The moments of ``[t0, t1)`` that are not quiet, as ordered spans of Unix seconds."""
        at = t0
        for a, b, off in _offset_spans(self.zone(), t0, t1):
            for qa, qb in self._windows(a + off, b + off):
                if qa - off > at:
                    yield at, qa - off
                at = max(at, qb - off)
        if at < t1:
            yield at, t1


@dataclass(frozen=True)
class Pace:
    """A match's pace (see the module's docstring); :data:`LIVE` is the default."""

    kind: str = "live"
    factor: float = 1.0
    action_hours: float = 0.0
    reserve_hours: float = 0.0
    match_hours: float | None = None
    quiet: Quiet | None = None

    # ---------------------------------------------------------------- reading and writing

    @staticmethod
    def from_json(data: Any, where: str = "pace") -> Pace:
        """A pace from its JSON (``"live"``, or an object with ``kind``); :class:`PaceError`
        naming ``where`` and the field for anything else."""
        if data is None or data == "live":
            return LIVE
        if isinstance(data, str):
            raise PaceError(f"{where} must be \"live\" or an object with \"kind\" ({', '.join(PACES)}); got {data[:40]!r}")
        if not isinstance(data, Mapping):
            raise PaceError(f"{where} must be an object with \"kind\" ({', '.join(PACES)})")
        kind = data.get("kind")
        allowed = {"live": {"kind"}, "scaled": {"kind", "factor"},
                   "slow": {"kind", "action_hours", "reserve_hours", "match_hours", "quiet"}}
        if not isinstance(kind, str) or kind not in allowed:
            raise PaceError(f"{where}.kind must be one of {', '.join(PACES)}; got {str(kind)[:40]!r}")
        extra = sorted(set(data) - allowed[kind])
        if extra:
            raise PaceError(f"{where}: a {kind} pace has no field {extra[0][:40]!r} "
                            f"(its fields: {', '.join(sorted(allowed[kind] - {'kind'})) or 'none'})")
        if kind == "live":
            return LIVE
        if kind == "scaled":
            factor = _number(data, "factor", where, MIN_FACTOR, MAX_FACTOR, required=True)
            assert factor is not None
            return Pace("scaled", factor=factor)
        action = _number(data, "action_hours", where, MIN_ACTION_HOURS, MAX_ACTION_HOURS, required=True)
        assert action is not None
        reserve = _number(data, "reserve_hours", where, 0.0, MAX_RESERVE_HOURS) or 0.0
        whole = _number(data, "match_hours", where, MIN_ACTION_HOURS, MAX_MATCH_HOURS)
        quiet = _quiet(data.get("quiet"), f"{where}.quiet")
        return Pace("slow", action_hours=action, reserve_hours=reserve, match_hours=whole, quiet=quiet)

    def to_json(self) -> dict[str, Any]:
        """The pace as JSON, as :meth:`from_json` reads it back (fields left at their default omitted)."""
        if self.kind == "scaled":
            return {"kind": "scaled", "factor": _plain(self.factor)}
        if self.kind != "slow":
            return {"kind": "live"}
        out: dict[str, Any] = {"kind": "slow", "action_hours": _plain(self.action_hours)}
        if self.reserve_hours:
            out["reserve_hours"] = _plain(self.reserve_hours)
        if self.match_hours is not None:
            out["match_hours"] = _plain(self.match_hours)
        if self.quiet is not None:
            out["quiet"] = self.quiet.to_json()
        return out

    # ---------------------------------------------------------------- what it means

    def rule(self, live: ClockRule) -> ClockRule:
        """The match's clock rule: the game's ``live`` rule at this pace (what a timeout
        does never changes)."""
        if self.kind == "scaled":
            return ClockRule({k: v * self.factor for k, v in live.per_action.items()},
                             live.reserve * self.factor, live.on_timeout)
        if self.kind == "slow":
            # one allowance whatever the phase (ClockRule.seconds gives it for every phase)
            return ClockRule({"action": self.action_hours * _HOUR}, self.reserve_hours * _HOUR, live.on_timeout)
        return live

    @property
    def match_seconds(self) -> float | None:
        """The clock time the whole match may take (None: no such bound)."""
        return None if self.match_hours is None else self.match_hours * _HOUR

    def stretch(self) -> float:
        """How many times the server's hour-long bounds (the wait for players to join, the
        extra time a host may give at once) are stretched: 1 live, the factor (at least 1)
        scaled, and at slow pace an hour becomes one action's allowance (at least an hour)."""
        if self.kind == "scaled":
            return max(1.0, self.factor)
        if self.kind == "slow":
            return max(1.0, self.action_hours)
        return 1.0

    def extra_time_cap(self) -> float:
        """The most seconds a host may give a seat at once at this pace."""
        return EXTRA_TIME_CAP * self.stretch()

    def low_marks(self, full: float) -> tuple[float, ...]:
        """Seconds left at which a seat awaited with ``full`` seconds in all (allowance
        plus reserve) is running low, latest last: a quarter left, and at slow pace also
        ten minutes left (when that comes after the quarter)."""
        marks = [full / 4] if full > 0 else []
        if self.kind == "slow" and 0 < SLOW_LOW_SECONDS < full / 4:
            marks.append(SLOW_LOW_SECONDS)
        return tuple(marks)

    # ---------------------------------------------------------------- the calendar

    def running(self, t0: float, t1: float) -> float:
        """Seconds the clocks run from Unix time ``t0`` to ``t1``: all of them but quiet
        hours (``t1`` before ``t0``, a wall clock set back, gives its negative unchanged
        so callers refuse it as they always did)."""
        if self.quiet is None or t1 <= t0:
            return t1 - t0
        return sum(b - a for a, b in self.quiet.open_spans(t0, t1))

    def advance(self, t0: float, seconds: float) -> float:
        """The Unix time at which clocks running from ``t0`` have run ``seconds``: the
        first such moment, so a deadline at the start of quiet hours falls there."""
        if self.quiet is None or seconds <= 0:
            return t0 + max(seconds, 0.0)
        left, at = seconds, t0
        while True:
            chunk = at + _DAY
            for a, b in self.quiet.open_spans(at, chunk):
                if b - a >= left:
                    return a + left
                left -= b - a
            at = chunk

    def quiet_state(self, t: float) -> tuple[bool, float] | None:
        """Whether Unix time ``t`` is in quiet hours, and in how many seconds that changes
        (what a page needs to stop its clocks at night); None without quiet hours."""
        if self.quiet is None:
            return None
        spans = list(self.quiet.open_spans(t, t + 2 * _DAY))
        if spans and spans[0][0] <= t:  # playing time now: it lasts to the end of this span
            return False, spans[0][1] - t
        return True, (spans[0][0] - t) if spans else 2 * _DAY

    def quiet_now(self, t: float) -> bool:
        """Whether Unix time ``t`` falls in quiet hours."""
        return self.quiet is not None and self.running(t, t + 1e-3) < 1e-3 / 2

    def describe(self, live: ClockRule | None = None) -> str:
        """The pace in players' words (with the game's ``live`` rule, the clock it gives)."""
        if self.kind == "scaled":
            head = f"scaled: the game's clock × {_plain(self.factor)}"
        elif self.kind == "slow":
            parts = [f"{_hours(self.action_hours)} per action"]
            if self.reserve_hours:
                parts.append(f"{_hours(self.reserve_hours)} reserve")
            if self.match_hours is not None:
                parts.append(f"{_hours(self.match_hours)} for the whole match")
            if self.quiet is not None:
                parts.append(self.quiet.describe())
            return "slow: " + ", ".join(parts)
        else:
            head = "live: the game's own clock"
        return f"{head} ({self.rule(live).describe()})" if live is not None else head


LIVE = Pace()


# -------------------------------------------------------------------------- helpers


def _number(data: Mapping[str, Any], name: str, where: str, lo: float, hi: float,
            required: bool = False) -> float | None:
    value = data.get(name)
    if value is None:
        if required:
            raise PaceError(f"{where}.{name} is required for a {data.get('kind')} pace")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise PaceError(f"{where}.{name} must be a number, got {str(value)[:40]!r}")
    if not lo <= value <= hi:  # (an int of any size compares with a float; float() of it may overflow)
        shown = value if isinstance(value, float) else (value if abs(value) < 10**15 else f"{str(value)[:12]}...")
        raise PaceError(f"{where}.{name} must be from {_plain(lo)} to {_plain(hi)}, got {shown}")
    return float(value)


def _quiet(data: Any, where: str) -> Quiet | None:
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise PaceError(f"{where} must be an object {{\"from\": \"HH:MM\", \"to\": \"HH:MM\", \"tz\": zone}}")
    extra = sorted(set(data) - {"from", "to", "tz"})
    if extra:
        raise PaceError(f"{where} has no field {extra[0][:40]!r} (its fields: from, to, tz)")
    start, end = _clock_time(data.get("from"), f"{where}.from"), _clock_time(data.get("to"), f"{where}.to")
    tz = data.get("tz")
    if not isinstance(tz, str) or not tz:
        raise PaceError(f"{where}.tz must name a time zone such as \"Europe/London\" or \"UTC\"")
    try:
        ZoneInfo(tz)
    except Exception:  # ZoneInfoNotFoundError, or ValueError/TypeError for a key that is no zone name
        raise PaceError(f"{where}.tz: {tz[:60]!r} is not a time zone this server knows "
                        "(an IANA name such as \"Europe/London\", \"America/New_York\" or \"UTC\")") from None
    quiet = Quiet(start, end, tz)
    if quiet.minutes == 0:
        raise PaceError(f"{where}: from and to are the same time; quiet hours need a window")
    if quiet.minutes > MAX_QUIET_HOURS * 60:
        raise PaceError(f"{where}: quiet hours may take at most {MAX_QUIET_HOURS} hours of the day, "
                        f"these take {quiet.minutes // 60} h {quiet.minutes % 60:02d} min")
    return quiet


def _clock_time(value: Any, where: str) -> int:
    match = _HHMM.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise PaceError(f"{where} must be a time of day \"HH:MM\" (00:00 to 23:59), got {str(value)[:40]!r}")
    return int(match.group(1)) * 60 + int(match.group(2))


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _plain(x: float) -> float | int:
    """A whole number as an int (so JSON says ``24``, not ``24.0``)."""
    return int(x) if float(x).is_integer() else x


def _hours(h: float) -> str:
    if h < 1 and (h * 60).is_integer():
        return f"{int(h * 60)} min"
    return f"{_plain(h)} h"


def _offset(zone: ZoneInfo, t: float) -> float:
    offset = datetime.fromtimestamp(t, timezone.utc).astimezone(zone).utcoffset()
    return offset.total_seconds() if offset is not None else 0.0


def _offset_spans(zone: ZoneInfo, t0: float, t1: float) -> Iterator[tuple[float, float, float]]:
    """``[t0, t1)`` cut where the zone's offset from UTC changes: (from, to, offset) spans.

    Offsets are sampled daily and each change is found to the second (zones change
    offset at whole seconds, and never twice within a day): a deadline a year of quiet
    nights away costs a few hundred lookups, not thousands, on the server's event loop."""
    at, off = t0, _offset(zone, t0)
    probe = t0
    while probe < t1:
        nxt = min(probe + _DAY, t1)
        if _offset(zone, nxt) != off:
            lo, hi = math.floor(probe), math.ceil(nxt)  # the change is in (lo, hi]
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if _offset(zone, mid) == off:
                    lo = mid
                else:
                    hi = mid
            change = min(max(float(hi), at), t1)
            if change > at:
                yield at, change, off
            at, off = change, _offset(zone, change)
        probe = nxt
    if at < t1:
        yield at, t1, off
