"""Secrecy twins, one module per game (``tests/twins/<game id with _>.py``).

Each module defines ``TWINS``: a list of :class:`Twin`.  A twin is two match records
written by hand, independently of the code under test, that differ in a hidden fact
(a folded tile, another grouping, another hidden domino number, another lot...) but
must look identical to ``seat`` (``None``: to everyone, the public view).  The
generic test (tests/test_secrecy_twins.py) replays both and demands the same view,
the same resampled worlds and the same bot decisions; the encoding suite
(tests/test_encoding_conformance.py) demands the same observation tensor.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blackwhite.engine import State


@dataclass(frozen=True)
class Twin:
    name: str  # what differs, e.g. "the folded tile in round 3"
    seat: int | None  # who must not tell them apart (None: the public view)
    a: dict[str, Any]  # a match record (the public record format)
    b: dict[str, Any]


def twin_modules() -> list[ModuleType]:
    """Every module of this package, in name order (one per game id)."""
    names = sorted(info.name for info in pkgutil.iter_modules([str(Path(__file__).parent)]))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


def all_twins() -> list[tuple[str, Twin]]:
    """(game id, twin) for every twin of every registered game, from the module its
    registration names: what the generic suites (tests/test_secrecy_twins.py,
    tests/test_encoding_conformance.py, tests/web/test_pages_boards.py) run over."""
    from blackwhite.engine.registry import entry, game_ids

    return [
        (gid, twin)
        for gid in game_ids()
        if (ref := entry(gid).twins) is not None
        for twin in importlib.import_module(ref).TWINS
    ]


def seat_twins() -> list[tuple[str, Twin]]:
    """The twins a seat must not tell apart (a twin hidden only from the public may
    differ to a seat): what a test of one seat's messages or pages runs over."""
    return [(g, t) for g, t in all_twins() if t.seat is not None]


def replayed(record: dict[str, Any]) -> State:
    """The state at the end of ``record``, replayed event by event."""
    from blackwhite.engine import ChanceEvent
    from blackwhite.engine.record import parse_header

    state, _names, _seed, events = parse_header(record)
    for event in events:
        if "chance" in event:
            state.apply_chance(ChanceEvent(event["chance"], {k: v for k, v in event.items() if k != "chance"}))
        else:
            state.apply(event["seat"], state.parse(event["seat"], event["action"]))
    return state


class ViewOnly:
    """A state that answers only its game, its views and the ``public`` attributes named:
    anything else ``reader`` (what is under test, "a notice") reads fails the test."""

    def __init__(self, state: State, reader: str, *public: str) -> None:
        self._state = state
        self._reader = reader
        self.game = state.game
        for name in public:
            setattr(self, name, getattr(state, name))

    def view(self, seat: int | None) -> Any:
        return self._state.view(seat)

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"{self._reader} read the state's {name!r}, not the seat's view")


def act(seat: int, text: str) -> dict[str, Any]:
    """A seat's action event of a record, in the notation."""
    return {"seat": seat, "action": text}


def deal(seat: int, tiles: list[int]) -> dict[str, Any]:
    """A grouping deal event: ``seat``'s nine tiles in the order of its groups."""
    return {"chance": "deal", "seat": seat, "tiles": tiles}


def lots(groups: list[list[int]], leftover: list[int]) -> dict[str, Any]:
    """A joust lots event: the groups of three in group order, then the leftovers."""
    return {"chance": "lots", "groups": groups, "leftover": leftover}


def record(game: str, options: dict[str, Any], events: list[dict[str, Any]],
           seats: list[str] | None = None) -> dict[str, Any]:
    """A match record in the public format (``seats`` left out when not given)."""
    out: dict[str, Any] = {"format": "blackwhite-record/1", "game": game, "options": options}
    if seats is not None:
        out["seats"] = seats
    out["events"] = events
    return out
