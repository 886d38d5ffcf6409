"""Every game, declared once: its id and where each layer finds its part of it.

A game is one :class:`GameEntry` in :data:`GAMES`.  The engine's own parts (rules,
encoding, sampler) and the parts of the layers above it (the heuristic, the search
tuning, the terminal drawing, the referee's board, the analysis settings, the
secrecy twins of the tests) are named here as text, ``"module"`` or
``"module:NAME"``, and each layer imports its own part by that name when it first
needs it (:func:`load`).  So the engine imports nothing above it, no layer keeps a
table keyed by game id, and a missing or broken module affects only its own game.
Adding a game means writing its modules and one entry here;
``tests/test_registration.py`` checks that every part of every entry is there."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
import random
from typing import Any, Mapping, Protocol, TypeVar, cast

from .core import Game, State

T = TypeVar("T")


@dataclass(frozen=True)
class GameEntry:
    """Where every layer finds its part of one game (names, never imports)."""

    id: str
    #: "module:Class" of the rules, a :class:`~blackwhite.engine.core.Game`
    rules: str
    #: "module:Class" of the research encoding (:mod:`blackwhite.engine.encoding`)
    encoding: str
    #: module that redraws hidden facts for ``State.resample``; ``None`` when the game
    #: hides nothing but pending choices and keeps the engine's default ``resample``
    sampler: str | None
    #: module of the heuristic policy (``choose``; optionally ``respond``, ``explain``,
    #: ``play_evidence``), :mod:`blackwhite.bots.heuristic`
    heuristic: str
    #: "module:NAME" of the ``ismcts`` bot's ``GameTuning``
    tuning: str
    #: "module:function" drawing a view for a person at the terminal
    drawer: str
    #: "module:function" drawing the host's view (``State.host_view``) as text for
    #: the referee; ``None`` when the game has no host view
    board: str | None
    #: "module:NAME" of the analysis's ``GameEval`` (rollouts and screening worlds)
    analysis: str
    #: module of the secrecy twins (``TWINS``), in the tests
    twins: str


#: every game, in the order of the rules pages
GAMES: tuple[GameEntry, ...] = (
    GameEntry(
        id="swapping",
        rules="blackwhite.games.swapping:Swapping",
        encoding="blackwhite.games.swapping_encoding:SwappingEncoding",
        sampler="blackwhite.games.swapping_sampler",
        heuristic="blackwhite.bots.heuristic.swapping",
        tuning="blackwhite.bots.ismcts:SWAPPING_TUNING",
        drawer="blackwhite.terminal.draw:draw_swapping",
        board=None,
        analysis="blackwhite.analysis.core:SWAPPING_EVAL",
        twins="tests.twins.swapping",
    ),
    GameEntry(
        id="domino",
        rules="blackwhite.games.domino:Domino",
        encoding="blackwhite.games.domino_encoding:DominoEncoding",
        sampler="blackwhite.games.domino_sampler",
        heuristic="blackwhite.bots.heuristic.domino",
        tuning="blackwhite.bots.ismcts:DOMINO_TUNING",
        drawer="blackwhite.terminal.draw:draw_domino",
        board="blackwhite.drawing.text:domino_board",
        analysis="blackwhite.analysis.core:DOMINO_EVAL",
        twins="tests.twins.domino",
    ),
    GameEntry(
        id="yellow",
        rules="blackwhite.games.yellow:Yellow",
        encoding="blackwhite.games.yellow_encoding:YellowEncoding",
        sampler=None,
        heuristic="blackwhite.bots.heuristic.yellow",
        tuning="blackwhite.bots.ismcts:YELLOW_TUNING",
        drawer="blackwhite.terminal.draw:draw_yellow",
        board=None,
        analysis="blackwhite.analysis.core:YELLOW_EVAL",
        twins="tests.twins.yellow",
    ),
    GameEntry(
        id="grouping",
        rules="blackwhite.games.grouping:Grouping",
        encoding="blackwhite.games.grouping_encoding:GroupingEncoding",
        sampler="blackwhite.games.grouping_sampler",
        heuristic="blackwhite.bots.heuristic.grouping",
        tuning="blackwhite.bots.ismcts:GROUPING_TUNING",
        drawer="blackwhite.terminal.draw:draw_grouping",
        board=None,
        analysis="blackwhite.analysis.core:GROUPING_EVAL",
        twins="tests.twins.grouping",
    ),
    GameEntry(
        id="grouping-final",
        rules="blackwhite.games.grouping:GroupingFinal",
        encoding="blackwhite.games.grouping_encoding:GroupingFinalEncoding",
        sampler="blackwhite.games.grouping_sampler",
        heuristic="blackwhite.bots.heuristic.grouping",
        tuning="blackwhite.bots.ismcts:GROUPING_FINAL_TUNING",
        drawer="blackwhite.terminal.draw:draw_grouping",
        board=None,
        analysis="blackwhite.analysis.core:GROUPING_FINAL_EVAL",
        twins="tests.twins.grouping_final",
    ),
    GameEntry(
        id="joust",
        rules="blackwhite.games.joust:Joust",
        encoding="blackwhite.games.joust_encoding:JoustEncoding",
        sampler="blackwhite.games.joust_sampler",
        heuristic="blackwhite.bots.heuristic.joust",
        tuning="blackwhite.bots.ismcts:JOUST_TUNING",
        drawer="blackwhite.terminal.draw:draw_joust",
        board=None,
        analysis="blackwhite.analysis.core:JOUST_EVAL",
        twins="tests.twins.joust",
    ),
    GameEntry(
        id="joust-final",
        rules="blackwhite.games.joust:JoustFinal",
        encoding="blackwhite.games.joust_encoding:JoustFinalEncoding",
        sampler="blackwhite.games.joust_sampler",
        heuristic="blackwhite.bots.heuristic.joust",
        tuning="blackwhite.bots.ismcts:JOUST_TUNING",
        drawer="blackwhite.terminal.draw:draw_joust",
        board=None,
        analysis="blackwhite.analysis.core:JOUST_EVAL",
        twins="tests.twins.joust_final",
    ),
)

#: game id -> its entry
_GAMES: dict[str, GameEntry] = {entry.id: entry for entry in GAMES}


class UnknownGameError(KeyError):
    """No game with that id is registered (or its module is not there yet)."""

    def __str__(self) -> str:
        return str(self.args[0])


def declared_ids() -> list[str]:
    """Ids of every declared game, whether its modules are present or not."""
    return list(_GAMES)


def declared(gid: str) -> GameEntry | None:
    """The entry of game ``gid``, or ``None`` when no game has that id."""
    return _GAMES.get(gid)


def entry(gid: str) -> GameEntry:
    """The entry of game ``gid``; :class:`UnknownGameError` when no game has that id."""
    found = _GAMES.get(gid)
    if found is None:
        raise UnknownGameError(f"unknown game {gid!r}; games: {', '.join(_GAMES)}")
    return found


def load(ref: str) -> Any:
    """What a part's name names, imported now: a module (``"pkg.mod"``) or an object
    in one (``"pkg.mod:NAME"``).  ``ModuleNotFoundError`` or ``AttributeError`` when
    it is not there; the layer that asked decides whether that is an error."""
    module_name, _, attribute = ref.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


class Sampler(Protocol):
    """What a game's sampler module offers: ``resample(state, seat, rng)``, the whole of
    its rules' ``State.resample`` (docs/engine.md, "A game's files")."""

    def resample(self, state: Any, seat: int, rng: random.Random) -> State: ...


_SAMPLERS: dict[str, Sampler] = {}


def sampler(gid: str) -> Sampler:
    """The sampler module of game ``gid``, imported when first asked for.  A rules
    module's ``State.resample`` reaches its sampler here, so the rules never import
    the sampler (which imports them); :class:`UnknownGameError` when the game names none."""
    found = _SAMPLERS.get(gid)
    if found is None:
        ref = entry(gid).sampler
        if ref is None:
            raise UnknownGameError(f"game {gid!r} names no sampler")
        found = _SAMPLERS[gid] = cast(Sampler, load(ref))
    return found


def load_as(ref: str, kind: type[T]) -> T:
    """What ``ref`` names (see :func:`load`), refused with ``TypeError`` unless it is a ``kind``."""
    found = load(ref)
    if not isinstance(found, kind):
        raise TypeError(f"{ref} is not a {kind.__name__}: {found!r}")
    return found


def game_ids() -> list[str]:
    """Ids of the games whose modules are present, in the order of the rules pages."""
    return [gid for gid in _GAMES if _try_class(gid) is not None]


def _try_class(gid: str) -> type[Game] | None:
    module_name, _, class_name = _GAMES[gid].rules.partition(":")
    try:
        module = load(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise
    cls = getattr(module, class_name, None)
    return cls if isinstance(cls, type) and issubclass(cls, Game) else None


def game_class(gid: str) -> type[Game]:
    entry(gid)
    cls = _try_class(gid)
    if cls is None:
        raise UnknownGameError(f"game {gid!r} is not implemented yet")
    return cls


def make_game(gid: str, options: Mapping[str, Any] | None = None) -> Game:
    """The game ``gid`` with ``options`` (raises OptionError on a bad one)."""
    return game_class(gid)(options)
