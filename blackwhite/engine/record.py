"""Match records: the JSON format of RULES.md, read, replayed and written.

A record is a public contract (hosts write them by hand), so reading is strict
about what it means and forgiving only where RULES.md is (case and spacing of
actions; ``format`` and ``seats`` may be left out).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping

from .core import (
    ActionSyntaxError,
    BlackWhiteError,
    ChanceEvent,
    IllegalActionError,
    OptionError,
    State,
)
from .registry import UnknownGameError, make_game

FORMAT = "blackwhite-record/1"


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


def parse_header(record: Any) -> tuple[State, list[str], int | None, list[Any]]:
    """Check everything but the events; return a fresh state, names, seed, events."""
    if not isinstance(record, Mapping):
        raise RecordError("a match record is a JSON object")
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
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError("'seed' must be an integer")
    events = record.get("events", [])
    if not isinstance(events, list):
        raise RecordError("'events' must be a list")
    return game.new_initial_state(), list(seats), seed, events


def replay(record: Any) -> Replay:
    """Replay ``record`` as far as it is legal.  Raises RecordError only for a bad header."""
    state, seats, seed, events = parse_header(record)
    rng = random.Random(seed) if seed is not None else None
    out = Replay(state, seats, seed)
    for index, event in enumerate(events):
        try:
            _apply_event(state, event, rng)
        except RecordError as exc:
            out.error = RecordError(exc.message, index)
            return out
        except BlackWhiteError as exc:
            out.error = RecordError(str(exc), index)
            return out
    if rng is not None and not state.is_over():
        state.play_chance(rng)
    return out


def _apply_event(state: State, event: Any, rng: random.Random | None) -> None:
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
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise RecordError("the event has no seat number")
    if not 0 <= seat < state.num_seats:
        raise RecordError(f"there is no seat {seat} (seats are 0..{state.num_seats - 1})")
    if not isinstance(text, str):
        raise RecordError("the event has no action text")
    action = state.parse(seat, text)
    if action == ("resign",) or state.is_free(action):
        # resignations and free actions may come while a chance event is due; with a
        # seed, the draw waits for the next action that needs it
        state.apply(seat, action)
        return
    if rng is not None and state.is_chance():
        state.play_chance(rng)
    if state.is_chance():
        raise IllegalActionError(
            text, f"the game awaits a chance event ({state.chance_kind()}) before any action"
        )
    state.apply(seat, action)


def load(record: Any) -> State:
    """Replay a whole record; raise RecordError at the first bad event."""
    result = replay(record)
    if result.error is not None:
        raise result.error
    return result.state


from_record = load
"""Alias: the state a whole record leads to (RecordError at the first bad event)."""


def to_record(state: State, seats: list[str] | None = None, seed: int | None = None) -> dict[str, Any]:
    """The match record of ``state``.  With ``seed``, chance events the project drew
    itself are left out (replaying with the seed draws them again)."""
    game = state.game
    record: dict[str, Any] = {
        "format": FORMAT,
        "game": game.id,
        "options": game.given_options(),
        "seats": list(seats) if seats else [f"P{i + 1}" for i in range(state.num_seats)],
    }
    if seed is not None:
        record["seed"] = seed
    events: list[dict[str, Any]] = []
    for i, event in enumerate(state.history):
        if isinstance(event, ChanceEvent):
            if seed is not None and i in state.drawn:
                continue
            events.append(event.to_json())
        else:
            seat, action = event
            events.append({"seat": seat, "action": state._fmt(action)})
    record["events"] = events
    return record


def outcome_json(state: State) -> dict[str, Any]:
    """The referee's JSON result object (RULES.md, "Match records")."""
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
    return out


__all__ = [
    "FORMAT",
    "RecordError",
    "Replay",
    "replay",
    "load",
    "from_record",
    "to_record",
    "outcome_json",
    "ActionSyntaxError",
]
