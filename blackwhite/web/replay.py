"""Steps of a finished match for the replay page, built with the engine's record replay.

Step 0 is the match before any seat acts (the opening deals done); step k is the
match just after the k-th seat event and the chance events that follow it.  Each step
is drawn as one seat sees it (``State.view(seat)``), as the public sees it, or as the
full record (every seat's view, and every note with whom it was for).
"""

from __future__ import annotations

import copy
import re
from bisect import bisect_right
from typing import Any, Mapping, Sequence

from ..engine import State
from ..engine.record import RecordError, record_pace, replay
from .render import display_names, game_asset, render_board, seat_label

#: who a step is seen as: a seat number as text, "public" or "full"
AUDIENCES = ("public", "full")
#: a seat as text: ASCII digits only (``str.isdigit`` also takes "²" and "١")
SEAT_TEXT = re.compile(r"[0-9]{1,6}")


def step_cuts(events: Sequence[Any]) -> list[int]:
    """For each step, how many events of the record it includes (step 0: the opening
    chance events; step k: up to the k-th seat event and the chance events after it)."""
    cuts = []
    i = 0
    n = len(events)
    while i < n and isinstance(events[i], Mapping) and "chance" in events[i]:
        i += 1
    cuts.append(i)
    while i < n:
        i += 1  # a seat event
        while i < n and isinstance(events[i], Mapping) and "chance" in events[i]:
            i += 1
        cuts.append(i)
    return cuts


def step_before(cuts: Sequence[int], event: int) -> int:
    """The step that shows the match just before event ``event`` (0-based) of the record:
    the last step that does not include it."""
    return max(0, bisect_right(cuts, event) - 1)


def _state_at(record: Mapping[str, Any], cut: int) -> tuple[State, list[str]]:
    partial = copy.deepcopy(dict(record))
    partial["events"] = list(record.get("events", []))[:cut]
    result = replay(partial)
    if result.error is not None:
        raise result.error
    return result.state, result.seats


def outline(record: Mapping[str, Any]) -> dict[str, Any]:
    """What the page needs before any step: the game, the seats and how many steps."""
    state, seats = _state_at(record, 0)
    events = list(record.get("events", []))
    return {
        "game": state.game.id, "title": state.game.title, "seats": seats, "names": display_names(seats),
        "num_seats": state.num_seats, "steps": len(step_cuts(events)),
        "css": game_asset(state.game.id, "css"), "js": game_asset(state.game.id, "js"),
        # the pace the match was played at, in words (a record that names none was live)
        "pace": record_pace(record).describe(),
    }


def step(record: Mapping[str, Any], n: int, audience: str) -> dict[str, Any]:
    """Step ``n`` of ``record`` seen by ``audience`` (a seat as text, "public" or "full")."""
    events = list(record.get("events", []))
    cuts = step_cuts(events)
    if not 0 <= n < len(cuts):
        raise RecordError(f"there is no step {n}; this record has steps 0..{len(cuts) - 1}")
    state, seats = _state_at(record, cuts[n])
    who: int | None
    if audience in AUDIENCES:
        who = None
    elif SEAT_TEXT.fullmatch(audience) and int(audience) < state.num_seats:
        who = int(audience)
    else:
        raise RecordError(f"a replay is seen as a seat (0..{state.num_seats - 1}), 'public' or 'full'; got {audience[:20]!r}")
    last = events[cuts[n] - 1] if n > 0 else None
    label = "the start"
    if isinstance(last, Mapping) and "seat" in last:
        # which seat acted is public; what it played is shown only where the audience saw it
        label = f"{seat_label(last['seat'], seats)} acted"
        if audience == "full" or who == last["seat"]:
            label = f"{seat_label(last['seat'], seats)}: {last.get('action')}"
    boards: list[dict[str, Any]] = []
    if audience == "full":
        for s in range(state.num_seats):
            boards.append({"title": seat_label(s, seats),
                           "html": render_board(state.game.id, state.view(s), seat=s, names=seats, you=False)})
        log = [{"text": note.text, "to": None if note.to is None else seat_label(note.to, seats)} for note in state.log]
    else:
        view = state.view(who)
        boards.append({"title": seat_label(who, seats) if who is not None else "public view",
                       "html": render_board(state.game.id, view, seat=who, names=seats, you=False)})
        log = [{"text": text, "to": None} for text in view["log"]]
    result = state.result()
    return {
        "step": n, "steps": len(cuts), "label": label, "boards": boards, "log": log,
        "finished": result.finished, "winner": result.winner,
        "scores": list(result.scores) if result.finished else None,
    }
