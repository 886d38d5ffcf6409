"""Match records: the project's JSON record format, read, replayed and written.

A record is a public contract (hosts write them by hand), so reading is strict
about what it means and forgiving only where the format is (case and spacing of
actions; ``format`` and ``seats`` may be left out; a UTF-8 byte-order mark, which
editors such as Notepad write, is skipped).  Anything else that cannot be read is
a :class:`RecordError` with a reason, never another exception.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .core import (
    Action,
    ActionSyntaxError,
    BlackWhiteError,
    ChanceEvent,
    IllegalActionError,
    RECORD_FORMAT,
    OptionError,
    State,
)
from .pace import LIVE, Pace, PaceError
from .registry import UnknownGameError, make_game

FORMAT = RECORD_FORMAT
#: a record nests a few levels (events, chance data, lists of tiles); deeper is not a record
MAX_DEPTH = 64
_BOM = "\ufeff"


class RecordError(BlackWhiteError, ValueError):
    """A record that cannot be replayed.  ``event`` is the 0-based index of the
    first bad event, or ``None`` for a problem with the record as a whole."""

    def __init__(self, message: str, event: int | None = None) -> None:
        self.event = event
        self.message = message
        where = "record" if event is None else f"event {event}"
        super().__init__(f"{where}: {message}")


@dataclass
class Replay:
    """A replayed record: the state after the last good event, and the first error."""

    state: State
    seats: list[str]
    seed: int | None
    error: RecordError | None = None
    #: the pace the match ran at (the record's ``pace``; live when it names none)
    pace: Pace = LIVE


def parse_record(data: bytes | str, source: str = "the record") -> Any:
    """The JSON value of a record file's contents: UTF-8 (a leading byte-order mark is
    skipped), standard JSON (no NaN or Infinity), nested at most :data:`MAX_DEPTH` deep.

    Raises :class:`RecordError` (for the record as a whole) naming ``source`` and the
    rule it breaks; the value is not checked as a record here (:func:`replay` does).
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(
                f"{source} is not UTF-8 text (byte {exc.start} is {data[exc.start:exc.start + 1]!r}); "
                "a record is a JSON file in UTF-8"
            ) from None
    else:
        text = data
    if text.startswith(_BOM):
        text = text[1:]

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    try:
        value = json.loads(text, parse_constant=no_constant)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{source} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise RecordError(f"{source} is not a record: JSON nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # NaN/Infinity, or an integer too long to read
        if "digits" in str(exc):
            limit = sys.get_int_max_str_digits()
            raise RecordError(f"{source} holds a number of more than {limit} digits; no field of a record needs one") from None
        raise RecordError(f"{source} is not standard JSON: {exc}") from None
    _check_json(value)
    return value


def _check_json(value: Any) -> None:
    """Refuse values nested deeper than :data:`MAX_DEPTH` (without recursing), and text
    that is not Unicode: JSON can escape a lone surrogate (``"\\udc80"``), which is no
    character, cannot be written out as UTF-8 and so could not be shown or stored."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                raise RecordError(f"a record nests JSON at most {MAX_DEPTH} levels deep; this one is deeper")
            if isinstance(item, dict):
                for key in item:
                    _check_text(key)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecordError(
            f"a record's text is Unicode; this one escapes a lone surrogate "
            f"({ascii(text[exc.start])[1:-1]}), which is not a character"
        ) from None


def record_pace(record: Any) -> Pace:
    """The pace a record's match ran at: its top-level ``pace`` (``engine/pace.py``), or
    live when it has none (hand-written records may leave it out).  RecordError if bad."""
    if not isinstance(record, Mapping) or "pace" not in record:
        return LIVE
    try:
        return Pace.from_json(record["pace"])
    except PaceError as exc:
        raise RecordError(str(exc)) from None


def parse_header(record: Any) -> tuple[State, list[str], int | None, list[Any]]:
    """Check everything but the events (the pace too); return a fresh state, names, seed, events."""
    if not isinstance(record, Mapping):
        raise RecordError("a match record is a JSON object")
    _check_json(record)
    if "format" in record and record["format"] != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, got {record['format']!r}")
    gid = record.get("game")
    if not isinstance(gid, str):
        raise RecordError("the record names no game (field 'game')")
    options = record.get("options", {})
    if not isinstance(options, Mapping):
        raise RecordError("'options' must be a JSON object")
    try:
        game = make_game(gid, options)
    except UnknownGameError as exc:
        raise RecordError(str(exc)) from None
    except OptionError as exc:
        raise RecordError(f"bad option: {exc}") from None
    n = game.num_seats
    if "seats" in record:
        seats = record["seats"]
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise RecordError("'seats' must be a list of names")
        if len(seats) != n:
            raise RecordError(f"{gid} is played by {n} seats; the record names {len(seats)}")
    else:
        seats = [f"P{i + 1}" for i in range(n)]
    record_pace(record)
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError("'seed' must be an integer")
    events = record.get("events", [])
    if not isinstance(events, list):
        raise RecordError("'events' must be a list")
    return game.new_initial_state(), list(seats), seed, events


#: called with (event index, seat, action, state) just before a seat's action applies
Observer = Callable[[int, int, Action, State], None]


def replay(record: Any, observe: Observer | None = None) -> Replay:
    """Replay ``record`` as far as it is legal.  Raises RecordError only for a bad header.

    ``observe`` sees the state before every seat action (an analysis keeps copies)."""
    state, seats, seed, events = parse_header(record)
    rng = random.Random(seed) if seed is not None else None
    out = Replay(state, seats, seed, pace=record_pace(record))
    for index, event in enumerate(events):
        try:
            _apply_event(state, event, rng, index, observe)
        except RecordError as exc:
            out.error = RecordError(exc.message, index)
            return out
        except BlackWhiteError as exc:
            out.error = RecordError(str(exc), index)
            return out
    if rng is not None and not state.is_over():
        state.play_chance(rng)
    return out


def _apply_event(
    state: State, event: Any, rng: random.Random | None, index: int = 0, observe: Observer | None = None
) -> None:
    if not isinstance(event, Mapping):
        raise RecordError("an event is a JSON object with 'seat' and 'action', or 'chance'")
    if "chance" in event:
        if state.is_over():
            raise RecordError("the match is over; no further event is legal")
        kind = event["chance"]
        if not isinstance(kind, str):
            raise RecordError("'chance' must name the kind of chance event")
        data = {k: v for k, v in event.items() if k != "chance"}
        state.apply_chance(ChanceEvent(kind, data))
        return
    seat = event.get("seat")
    text = event.get("action")
    if seat is None:
        raise RecordError("the event has no seat number ('seat')")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise RecordError(
            f"'seat' must be a whole number (0..{state.num_seats - 1}), not {json.dumps(seat)[:40]}"
        )
    if not 0 <= seat < state.num_seats:
        raise RecordError(f"there is no seat {seat} (seats are 0..{state.num_seats - 1})")
    if not isinstance(text, str):
        raise RecordError("the event has no action text")
    action = state.parse(seat, text)
    if action == ("resign",) or state.is_free(action):
        # resignations and free actions may come while a chance event is due; with a
        # seed, the draw waits for the next action that needs it
        if observe is not None:
            observe(index, seat, action, state)
        state.apply(seat, action)
        return
    if rng is not None and state.is_chance():
        state.play_chance(rng)
    if state.is_chance():
        raise IllegalActionError(
            text, f"the game awaits a chance event ({state.chance_kind()}) before any action"
        )
    if observe is not None:
        observe(index, seat, action, state)
    state.apply(seat, action)


def load(record: Any) -> State:
    """Replay a whole record; raise RecordError at the first bad event."""
    result = replay(record)
    if result.error is not None:
        raise result.error
    return result.state


from_record = load
"""Alias: the state a whole record leads to (RecordError at the first bad event)."""


def to_record(state: State, seats: list[str] | None = None, seed: int | None = None,
              pace: Pace | None = None) -> dict[str, Any]:
    """The match record of ``state`` (:meth:`State.to_record`, which writes it), with
    its ``pace`` when one is given (a server's records always say theirs)."""
    record = state.to_record(seats, seed)
    if pace is not None:
        record["pace"] = pace.to_json()
    return record


def outcome_json(state: State, pace: Pace | None = None) -> dict[str, Any]:
    """The referee's JSON result object (the README's "The command line"); with a
    ``pace`` (a record played at one other than live) also ``"pace"`` and ``"clock"``,
    the clock rule its timeouts were ruled by."""
    res = state.result()
    out: dict[str, Any] = {
        "game": state.game.id,
        "finished": res.finished,
        "winner": res.winner,
        "scores": list(res.scores),
    }
    if not res.finished:
        out["to_move"] = state.to_move()
    if res.ranking is not None:
        out["ranking"] = list(res.ranking)
    if pace is not None:
        rule = pace.rule(state.game.clock_rule())
        out["pace"] = pace.to_json()
        out["clock"] = {"per_action": dict(rule.per_action), "reserve": rule.reserve,
                        "match": pace.match_seconds, "on_timeout": rule.on_timeout}
    return out


__all__ = [
    "FORMAT",
    "RecordError",
    "Replay",
    "replay",
    "parse_record",
    "record_pace",
    "load",
    "from_record",
    "to_record",
    "outcome_json",
    "ActionSyntaxError",
]
