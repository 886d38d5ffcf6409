"""Every installed game, found through one kind of registration: an entry point.

A game is a package.  It registers itself in its own ``pyproject.toml``::

    [project.entry-points."blackwhite.games"]
    classic = "blackwhite_classic:ENTRY"

where ``ENTRY`` is a :class:`GameEntry`: the game's id and, for every layer, the name
of that layer's part of it (``"module"`` or ``"module:NAME"``), or ``None`` when the
package does not ship that part and the layer's generic fallback is used.  The seven
built-in games are registered the same way, from blackwhite's own ``pyproject.toml``,
and take exactly the same path as any outside game.

Each layer imports its own part by name when it first needs it (:func:`load`), so
the engine imports nothing above it, no module keeps a table keyed by game id, and a
missing or broken part affects only its own game.  A registration that cannot be
loaded (an import error, a name that is not a :class:`GameEntry`, an id taken twice,
rules whose id differs) is reported by :func:`broken` and skipped: it never takes
the command line or the server down (docs/designing-a-game.md)."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.resources
import logging
import random
import re
import threading
import traceback
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, TypeVar, cast

from .core import Game, State

T = TypeVar("T")

#: the entry-point group a game package registers in
GROUP = "blackwhite.games"

log = logging.getLogger("blackwhite.engine.registry")

#: what a game id may be: it appears in addresses, file names and commands
GAME_ID = re.compile(r"^[a-z][a-z0-9-]{0,63}$")


@dataclass(frozen=True)
class GameEntry:
    """One game's registration: its id and where every layer finds its part of it.

    Only ``id`` and ``rules`` are required.  Every other part is optional: a layer
    that finds none uses its generic fallback (docs/designing-a-game.md says what each
    part buys).  References are text, never imports: ``"package.module:NAME"`` for an
    object, ``"package.module"`` for a module, ``"package:path/in/package"`` for a
    file shipped inside a package (read with :mod:`importlib.resources`)."""

    #: the game id (lower-case letters, digits and ``-``); the entry point's name
    id: str
    #: "module:Class" of the rules, a :class:`~blackwhite.engine.core.Game` subclass
    rules: str
    #: "package:path" of the rules page in Markdown, shipped inside the package
    rules_page: str | None = None
    #: module whose ``resample(state, seat, rng)`` is the whole of the rules'
    #: ``State.resample`` (reached through :func:`sampler`); ``None``: the rules'
    #: own ``resample``, or the bots' generic sampler when the rules keep the core's
    sampler: str | None = None
    #: "module:Class" of the research encoding (:mod:`blackwhite.engine.encoding`);
    #: ``None``: the adapters observe a string of the seat's view
    encoding: str | None = None
    #: module of the heuristic policy (``choose(view, legal, rng)``; optionally
    #: ``respond``, ``explain``, ``play_evidence``...); ``None``: random play
    heuristic: str | None = None
    #: keyword arguments of the ``ismcts`` bot's ``GameTuning`` (docs/bots.md);
    #: empty: its defaults
    tuning: Mapping[str, Any] = field(default_factory=dict)
    #: keyword arguments of the analysis's ``GameEval`` (rollouts, screening worlds);
    #: empty: its defaults
    analysis: Mapping[str, Any] = field(default_factory=dict)
    #: "module:function" drawing a view for a person at the terminal; ``None``: the
    #: generic text drawing of the view
    drawer: str | None = None
    #: "module:function" drawing the host's view (``State.host_view``) as text for
    #: the referee; ``None`` when the game has no host view
    board: str | None = None
    #: "package:path" of the pages' board partial (a Jinja template); ``None``: the
    #: generic web board drawn from the view
    page_template: str | None = None
    #: "package:path" of a script the pages load with the board partial (served at
    #: ``/games/<id>/board.js``; it may set ``window.bwGame.hint``, docs/pages.md)
    page_script: str | None = None
    #: "package:path" of a style sheet the pages load with the board partial (served at
    #: ``/games/<id>/board.css``)
    page_style: str | None = None
    #: "module:function" drawing a view as lines of plain text, ``(view, names) ->
    #: list[str]`` (the Discord bridge's messages); ``None``: the generic text drawing
    #: of the view, every field in plain words (:mod:`blackwhite.drawing.text`)
    text_drawer: str | None = None
    #: module of hand-written secrecy twins (``TWINS``), run beside the kit's checks
    twins: str | None = None


@dataclass(frozen=True)
class BrokenGame:
    """A registration that could not be loaded, and why (shown, then skipped)."""

    #: the entry point's name (the game id it claims)
    name: str
    #: the entry point's value and the distribution that declares it
    source: str
    #: what went wrong, in one paragraph
    error: str

    def __str__(self) -> str:
        return f"game {self.name!r} ({self.source}) is not loaded: {self.error}"


class UnknownGameError(KeyError):
    """No game with that id is installed (or its registration is broken)."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class _Installed:
    entries: dict[str, GameEntry]
    classes: dict[str, type[Game]]
    broken: dict[str, BrokenGame]
    providers: dict[str, str]


_lock = threading.Lock()
_installed: _Installed | None = None


def _why(exc: BaseException) -> str:
    """An exception in one line, with where it was raised (a designer's first question)."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def _discover() -> _Installed:
    """Load every registration in :data:`GROUP`, in the order of the ids (built-in or
    not: every game takes the same path)."""
    found = importlib.metadata.entry_points(group=GROUP)

    def dist_name(ep: importlib.metadata.EntryPoint) -> str:
        dist = getattr(ep, "dist", None)
        return dist.name if dist is not None else "?"

    ordered = sorted(found, key=lambda ep: (ep.name, dist_name(ep) != "blackwhite", dist_name(ep)))
    out = _Installed({}, {}, {}, {})
    if not any(dist_name(ep) == "blackwhite" for ep in ordered):
        out.broken["blackwhite"] = BrokenGame(
            "blackwhite", "blackwhite's own pyproject.toml",
            "the built-in games are not registered in this environment (its installed metadata "
            "predates their entry points): reinstall blackwhite, e.g. pip install -e <checkout>",
        )
    for ep in ordered:
        source = f"{ep.value} from {dist_name(ep)}"

        def refuse(error: str) -> None:
            out.broken[ep.name] = BrokenGame(ep.name, source, error)
            log.warning("%s", out.broken[ep.name])  # skipped: every other game works

        if not GAME_ID.match(ep.name):
            refuse("a game id is a lower-case letter, then up to 63 lower-case letters, digits or '-'")
            continue
        if ep.name in out.entries:
            refuse(f"the id {ep.name!r} is already taken by {out.entries[ep.name].rules}")
            continue
        try:
            entry = ep.load()
        except Exception as exc:  # any failure of a plugin is its own, never the host's
            refuse(f"importing it failed: {_why(exc)}")
            continue
        if not isinstance(entry, GameEntry):
            refuse(f"it names {type(entry).__name__} {entry!r:.80}, not a blackwhite.engine.GameEntry")
            continue
        if entry.id != ep.name:
            refuse(f"the entry point is named {ep.name!r} but its GameEntry's id is {entry.id!r}")
            continue
        try:
            cls = load(entry.rules)
        except Exception as exc:
            refuse(f"its rules {entry.rules!r} failed to import: {_why(exc)}")
            continue
        if not (isinstance(cls, type) and issubclass(cls, Game)):
            refuse(f"its rules {entry.rules!r} are not a blackwhite.engine.Game subclass")
            continue
        if getattr(cls, "id", None) != entry.id:
            refuse(f"its rules {entry.rules!r} say id {getattr(cls, 'id', None)!r}, not {entry.id!r}")
            continue
        out.entries[entry.id] = entry
        out.classes[entry.id] = cls
        cls.entry_sampler = entry.sampler  # the core's State.resample draws with it
        out.providers[entry.id] = dist_name(ep)
    return out


def _state() -> _Installed:
    global _installed
    found = _installed
    if found is None:
        with _lock:
            if _installed is None:
                _installed = _discover()
            found = _installed
    return found


def refresh() -> None:
    """Forget what was found, so the next question looks at the installed packages
    again (after a test puts a package on ``sys.path``)."""
    global _installed
    with _lock:
        _installed = None
        _SAMPLERS.clear()
        importlib.invalidate_caches()


def broken() -> list[BrokenGame]:
    """Registrations that could not be loaded, each with the reason (skipped)."""
    return list(_state().broken.values())


def entries() -> list[GameEntry]:
    """The entries of every installed game that loads, by id."""
    return list(_state().entries.values())


def game_ids() -> list[str]:
    """Ids of every installed game that loads, in alphabetical order."""
    return list(_state().entries)


def provider(gid: str) -> str:
    """The name of the installed distribution that registers game ``gid``
    (``"blackwhite"`` for the built-ins); :class:`UnknownGameError` when none does."""
    found = _state().providers.get(gid)
    if found is None:
        raise _unknown(gid)
    return found


def declared_ids() -> list[str]:
    """Same as :func:`game_ids` (kept for the callers that said "declared")."""
    return game_ids()


def declared(gid: str) -> GameEntry | None:
    """The entry of game ``gid``, or ``None`` when no installed game has that id."""
    return _state().entries.get(gid)


def _unknown(gid: str) -> UnknownGameError:
    state = _state()
    bad = state.broken.get(gid) or state.broken.get("blackwhite")
    if bad is not None and gid not in state.entries:
        return UnknownGameError(f"unknown game {gid!r}: {bad}")
    return UnknownGameError(f"unknown game {gid!r}; games: {', '.join(state.entries) or '(none)'}")


def entry(gid: str) -> GameEntry:
    """The entry of game ``gid``; :class:`UnknownGameError` when no game has that id."""
    found = _state().entries.get(gid)
    if found is None:
        raise _unknown(gid)
    return found


def load(ref: str) -> Any:
    """What a part's name names, imported now: a module (``"pkg.mod"``) or an object
    in one (``"pkg.mod:NAME"``, ``NAME`` may be dotted).  ``ModuleNotFoundError`` or
    ``AttributeError`` when it is not there; the layer that asked decides whether
    that is an error."""
    module_name, _, attribute = ref.partition(":")
    found: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        found = getattr(found, part)
    return found


def load_as(ref: str, kind: type[T]) -> T:
    """What ``ref`` names (see :func:`load`), refused with ``TypeError`` unless it is a ``kind``."""
    found = load(ref)
    if not isinstance(found, kind):
        raise TypeError(f"{ref} is not a {kind.__name__}: {found!r}")
    return found


def read_resource(ref: str) -> str:
    """The text of a file shipped in a package, named ``"package:path/in/it"``.
    ``FileNotFoundError`` when it is not there; ``ModuleNotFoundError`` when the
    package is not."""
    package, _, path = ref.partition(":")
    if not path:
        raise ValueError(f"{ref!r} names no file: write it as 'package:path/in/package'")
    node = importlib.resources.files(package)
    for part in path.split("/"):
        node = node.joinpath(part)
    return node.read_text(encoding="utf-8")


def rules_markdown(gid: str) -> str | None:
    """The Markdown of ``gid``'s rules page as its package ships it (the entry's
    ``rules_page``); ``None`` when the game is not installed or ships none."""
    found = declared(gid)
    if found is None or found.rules_page is None:
        return None
    try:
        return read_resource(found.rules_page)
    except (OSError, ImportError, ValueError) as exc:
        log.error("the rules page %s of %s cannot be read: %s", found.rules_page, gid, exc)
        return None


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


def game_class(gid: str) -> type[Game]:
    """The rules class of game ``gid``; :class:`UnknownGameError` when it is not installed
    or its registration is broken (the error says why)."""
    found = _state().classes.get(gid)
    if found is None:
        raise _unknown(gid)
    return found


def make_game(gid: str, options: Mapping[str, Any] | None = None) -> Game:
    """The game ``gid`` with ``options`` (raises OptionError on a bad one)."""
    return game_class(gid)(options)
