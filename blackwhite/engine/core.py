"""The shared core every game is built on.

A game is a pure state machine.  A :class:`Game` holds validated options and makes
initial states; a :class:`State` knows which seats it awaits, lists and checks
actions, applies them, and reports the result.  Three kinds of step exist:

* a *turn*: one awaited seat acts and the action takes effect at once;
* a *simultaneous* step: several seats are awaited; submissions are held in
  ``pending`` (never visible to another seat) and applied together, by
  :meth:`State._resolve`, when the last one arrives;
* a *chance* step: no seat is awaited; a :class:`ChanceEvent` states what the
  shuffle produced.  Live play draws it from an explicit ``random.Random``; a
  match record states it.

Actions are small tuples whose first item is a tag (``("swap", 6, 3)``), so bots
can list and apply them without building strings.  ``apply`` is the checked path
for people and records; ``apply_fast`` is the trusted path for bots and
simulations.  Everything anyone outside the engine reads about a game comes
through :meth:`State.view`, which filters hidden information for one seat (or, for
seat ``None``, gives what every spectator knows).  The live clock is data
(:class:`ClockRule`); :meth:`State.info_key` names what a seat knows, for search
trees; :meth:`State.resample` draws a world from it.
"""

from __future__ import annotations

import importlib
import json
import random
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Generic, Hashable, Literal, Mapping, NamedTuple, Sequence, TypeVar, cast

from ..views import Colour, CoreView, TileView

Action = tuple[Any, ...]
"""An action: a tuple whose first item is a string tag naming its kind."""

RESIGN: Action = ("resign",)
TIMEOUT: Action = ("timeout",)


# --------------------------------------------------------------------------- errors


class BlackWhiteError(Exception):
    """Base of every error the engine raises on purpose."""


class ActionSyntaxError(BlackWhiteError, ValueError):
    """The text is not an action in this game's notation."""

    def __init__(self, text: str, message: str) -> None:
        self.text = text
        super().__init__(f"{text!r}: {message}")


class IllegalActionError(BlackWhiteError, ValueError):
    """A well-formed action that the rules do not allow now."""

    def __init__(self, text: str, message: str) -> None:
        self.text = text
        self.reason = message
        super().__init__(f"{text}: {message}" if text else message)


class NotYourTurnError(IllegalActionError):
    """The seat is not one the game awaits (or has already submitted)."""


class GameOverError(IllegalActionError):
    """The match has ended; every further event is illegal."""


class IllegalChanceError(IllegalActionError):
    """A stated chance outcome that is impossible here (wrong kind, not a permutation...)."""


class OptionError(BlackWhiteError, ValueError):
    """An option is unknown or has a bad value."""


# --------------------------------------------------------------------------- small shared rules


def is_int(value: Any) -> bool:
    """A whole number given as such: ``True`` is not a number of tiles or chips."""
    return isinstance(value, int) and not isinstance(value, bool)


def more_points(points: Sequence[int], tie: int | None) -> int | None:
    """The winner of two seats by points: the one with more, else ``tie`` (the game's
    tie-break: domino's last placer, joust's favoured seat)."""
    p0, p1 = points
    if p0 != p1:
        return 0 if p0 > p1 else 1
    return tie


#: the "format" of a match record (:meth:`State.to_record` writes it, :mod:`.record` reads it)
RECORD_FORMAT = "blackwhite-record/1"

#: the longest number notation takes: no game counts anywhere near a billion, and
#: Python refuses to read integers of thousands of digits (a crash, not a refusal)
MAX_DIGITS = 9
_LONG_NUMBER = re.compile(r"[0-9]{%d,}" % (MAX_DIGITS + 1))


def _check_digits(text: str) -> None:
    """Refuse a number written with anything but ASCII digits (``٣``, ``３``, ``³``),
    and a number too long for any game."""
    for ch in text:
        if ch.isnumeric() and not ch.isascii():
            raise ActionSyntaxError(
                text, f"{ch!r} is not an ASCII digit; numbers in notation are written with 0-9 only"
            )
    if _LONG_NUMBER.search(text):
        raise ActionSyntaxError(
            text[:60] + ("..." if len(text) > 60 else ""),
            f"a number has more than {MAX_DIGITS} digits; no game uses numbers that large",
        )


def colour(tile: int) -> Colour:
    """A tile's colour: even numbers are black, odd numbers white (every game)."""
    return "black" if tile % 2 == 0 else "white"


def face_up(tile: int) -> TileView:
    """A tile the viewer knows, as a view writes it (the generic boards draw it)."""
    return {"tile": tile, "colour": "black" if tile % 2 == 0 else "white"}


def face_down(shown: Colour | None = None) -> TileView:
    """A tile the viewer does not know, with its colour when that was shown."""
    return {"tile": None, "colour": shown}


# --------------------------------------------------------------------------- data


class Note(NamedTuple):
    """One announcement.  ``to`` is a seat for a private note, ``None`` for everyone.

    A named tuple rather than a frozen dataclass: search copies write thousands of
    these a second and a tuple is several times cheaper to build.
    """

    to: int | None
    text: str


#: builds a Note without the named tuple's Python-level ``__new__`` (search copies
#: write thousands a second)
_new_note = tuple.__new__


@dataclass(frozen=True, slots=True)
class ChanceEvent:
    """What a shuffle produced.  ``data`` is JSON-ready (``{"seat": 0, "tiles": [...]}``)."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"chance": self.kind, **{k: _jsonable(v) for k, v in self.data.items()}}


def _jsonable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


@dataclass(frozen=True)
class Result:
    """The outcome so far.  ``scores`` is one number per seat, in the game's own unit."""

    finished: bool
    winner: int | None
    scores: tuple[int, ...]
    ranking: tuple[int, ...] | None = None
    reason: str = ""


@dataclass(frozen=True)
class ClockRule:
    """A game's live clock, as data (each game's rules page gives its rule).

    A seat awaited by a step has ``per_action[phase]`` seconds for its action; time
    beyond that comes out of its ``reserve``, which lasts the whole match.  When both
    are spent the clock's keeper (the server, the terminal) applies ``timeout`` for
    the seat, and the engine's :meth:`State.timeout_action` says what that means:
    an action played for the seat, or the loss.  ``on_timeout`` says it in words.
    Free actions (item uses, proposals) are never timed.
    """

    per_action: Mapping[str, float]
    reserve: float = 0.0
    on_timeout: str = ""

    def seconds(self, phase: str) -> float:
        """Seconds per action in ``phase`` (a phase the rule does not name: the longest)."""
        if phase in self.per_action:
            return self.per_action[phase]
        return max(self.per_action.values())

    def describe(self) -> str:
        """The rule in words, for people."""
        # a phase named "action" (joust's only one) would read "30 s per action (action)"
        parts = [f"{_duration(sec)} per action" + ("" if phase == "action" else f" ({phase})")
                 for phase, sec in self.per_action.items()]
        if self.reserve:
            parts.append(f"{_duration(self.reserve)} reserve")
        text = ", ".join(parts)
        return f"{text}; on timeout: {self.on_timeout}" if self.on_timeout else text


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole == seconds and whole % 3600 == 0 and whole:  # a slow pace's hours
        return f"{whole // 3600} h"
    if whole == seconds and whole % 60 == 0 and whole:
        return f"{whole // 60} min"
    return f"{seconds:g} s"


@dataclass(frozen=True)
class OptionInfo:
    """How people see one game option: a label, a one-line help and the input it takes.

    Declared once per option in the game's ``option_info``; the host page's form, the
    rules page and ``blackwhite rules`` all read it, so they say the same thing.
    ``kind`` is one of :data:`OPTION_KINDS`:

    - ``number``: a whole number in ``minimum..maximum``; ``optional`` allows "none" (null);
    - ``bool``: yes or no;
    - ``choice``: one of ``choices``, each ``(value, words)``;
    - ``per_seat``: one whole number per seat, each in ``minimum..maximum`` (a list);
    - ``seat_items``: for each seat, which of ``choices`` it holds (``{"0": [...], ...}``).
    """

    label: str
    help: str
    kind: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[Any, str], ...] = ()
    optional: bool = False

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"option kind {self.kind!r} is not one of {', '.join(OPTION_KINDS)}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label, "help": self.help, "kind": self.kind}
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.choices:
            out["choices"] = [{"value": v, "label": words} for v, words in self.choices]
        if self.optional:
            out["optional"] = True
        return out

    def words(self, value: Any) -> str:
        """``value`` of this option in words (a choice's words, yes/no, "none")."""
        if value is None:
            return "no limit" if self.optional else "none"
        if self.kind == "bool":
            return "yes" if value else "no"
        for v, words in self.choices:
            if v == value and self.kind == "choice":
                return words
        if self.kind == "per_seat" and isinstance(value, list):
            return ", ".join(f"P{i + 1} {v}" for i, v in enumerate(value))
        if self.kind == "seat_items" and isinstance(value, Mapping):
            held = [f"P{int(k) + 1}: {', '.join(v) or 'none'}" for k, v in sorted(value.items())]
            return "; ".join(held) or "none"
        return str(value)


OPTION_KINDS = ("number", "bool", "choice", "per_seat", "seat_items")


def seat_items(
    value: Any, names: Sequence[str], *, merge_repeated: bool = False, option: str = "items"
) -> tuple[frozenset[str], frozenset[str]]:
    """The items each of two seats holds, from an option of kind ``seat_items``
    (``{"0": ["bonus"], "1": []}``): the one check of the games that have items.

    A seat is ``0`` or ``1``, as a whole number or ASCII digits; each lists names from
    ``names``, none twice.  A seat given twice (``"0"`` and ``0``) is refused, or with
    ``merge_repeated`` holds what both lists give (joust's Final has always merged).
    """
    if not isinstance(value, Mapping):
        raise OptionError(
            f'option {option} must map seats to item lists, e.g. {{"0": ["{names[0]}"], "1": []}}'
        )
    held: list[frozenset[str]] = [frozenset(), frozenset()]
    given: set[int] = set()
    for key, listed in value.items():
        seat = key if is_int(key) else None
        if isinstance(key, str) and key.isascii() and key.isdecimal():
            seat = int(key)
        if seat not in (0, 1):
            raise OptionError(f"option {option}: {key!r} is not a seat (use \"0\" or \"1\")")
        if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
            raise OptionError(f"option {option}: seat {key} must have a list of item names")
        unknown = [n for n in listed if n not in names]
        if unknown:
            raise OptionError(f"option {option}: unknown item {unknown[0]!r}; items are {', '.join(names)}")
        if len(set(listed)) != len(listed):
            raise OptionError(f"option {option}: seat {key} lists an item twice (each is held once)")
        if seat in given and not merge_repeated:
            raise OptionError(f"option {option}: seat {seat} is given twice")
        given.add(seat)
        held[seat] = held[seat] | frozenset(listed)
    return held[0], held[1]

#: the option every game has (``dmo``), in people's words
DMO_INFO = OptionInfo(
    "Death-match advantage (DMO)", "The seat holding the death-match advantage; each game's rules say what it decides.",
    "choice",
)


Event = tuple[int, Action] | ChanceEvent
"""One entry of the history: a seat's action (``TIMEOUT`` kept as such) or a chance event."""

EndHow = Literal["resign", "time"]
"""How a seat ended a match before its rules did: it resigned, or lost on time."""


class EndedBy(NamedTuple):
    """Who ended the match outside the rules, and how (a tuple, so it compares and
    unpacks as the ``(how, seat)`` pair it replaced)."""

    how: EndHow
    seat: int


ViewT = TypeVar("ViewT", bound=CoreView)
"""A game's view type (see :mod:`blackwhite.views`): what :meth:`State.view` returns."""


# --------------------------------------------------------------------------- game


class Game(ABC):
    """A game with its options fixed.  Subclasses set ``id``, ``num_seats``, ``state_class``."""

    id: ClassVar[str]
    title: ClassVar[str]
    num_seats: ClassVar[int]
    #: option name -> default value; ``dmo`` is common to all games.
    option_defaults: ClassVar[dict[str, Any]] = {}
    #: the live clock rule; games whose rule depends on options override :meth:`clock_rule`
    clock: ClassVar[ClockRule] = ClockRule({"action": 60.0})
    #: options that only make a smaller variant of the game (for solvers); accounts
    #: written for people name them only when they differ from their defaults, so the
    #: standard game reads exactly as it always has
    variant_options: ClassVar[frozenset[str]] = frozenset()
    #: option name -> how people see it (label, help, input); every option is declared
    #: (``dmo`` by the core), see :class:`OptionInfo`
    option_info: ClassVar[dict[str, OptionInfo]] = {}
    #: options of a smaller game with the same structure (shorter matches: solvers and
    #: quick tests play it); empty when the game has none
    small_options: ClassVar[Mapping[str, Any]] = {}
    #: further option sets worth playing beside the defaults (the encoding tests and
    #: ``check-game``'s playouts check play them too)
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = ()
    #: the sampler module the game's registration names (``GameEntry.sampler``), set by
    #: the registry when it loads the game: the core's ``State.resample`` uses it
    entry_sampler: ClassVar[str | None] = None
    #: what each kind of action does, in the players' words: the start of an action's
    #: notation (usually its first word, e.g. ``"play"``) -> a short phrase that reads
    #: after "Your move:" (``"choose a tile to play"``).  The pages label every legal
    #: action's button with it and join the phrases of what a seat may do now into its
    #: prompt ("raise your bet, call or fold"); empty: the notation alone is shown.
    action_help: ClassVar[dict[str, str]] = {}

    @classmethod
    def describe(cls, notation: str) -> str | None:
        """The :attr:`action_help` phrase of the action written ``notation`` (the
        longest key it starts with, as a whole word or a prefix such as ``"("``);
        ``None`` when the game says nothing about it."""
        best: str | None = None
        for key in cls.action_help:
            fits = notation == key or notation.startswith(key + " ") or (not key[-1:].isalnum() and notation.startswith(key))
            if fits and (best is None or len(key) > len(best)):
                best = key
        return None if best is None else cls.action_help[best]

    @classmethod
    def options_info(cls) -> dict[str, OptionInfo]:
        """Every option of the game (``dmo`` first) with its :class:`OptionInfo`."""
        dmo = OptionInfo(DMO_INFO.label, DMO_INFO.help, "choice",
                         choices=tuple((s, f"P{s + 1}") for s in range(cls.num_seats)))
        out = {"dmo": dmo}
        for name in cls.option_defaults:
            if name not in cls.option_info:
                raise KeyError(f"{cls.id}: option {name!r} has no OptionInfo in option_info")
            out[name] = cls.option_info[name]
        return out

    @classmethod
    def options_markdown(cls) -> str:
        """The options as a Markdown section (label, what it does, default, API name):
        the rules page and ``blackwhite rules`` end with it."""
        defaults = {"dmo": 0, **cls.option_defaults}
        rows = ["## Options at a glance", "",
                "| option (its name in the API) | what it does | default |", "|---|---|---|"]
        for name, info in cls.options_info().items():
            cell = info.help.replace("|", "\\|")
            rows.append(f"| {info.label} (`{name}`) | {cell} | {info.words(defaults[name])} |")
        return "\n".join(rows) + "\n"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        given = dict(options or {})
        defaults = {"dmo": 0, **self.option_defaults}
        unknown = sorted(set(given) - set(defaults))
        if unknown:
            raise OptionError(
                f"unknown option(s) {', '.join(unknown)} for {self.id}; "
                f"known: {', '.join(sorted(defaults))}"
            )
        merged = {**defaults, **given}
        dmo = merged["dmo"]
        if not is_int(dmo) or not 0 <= dmo < self.num_seats:
            raise OptionError(f"option dmo must be a seat number 0..{self.num_seats - 1}, got {dmo!r}")
        self.options: dict[str, Any] = merged
        self._given = given
        self.dmo: int = dmo
        self.validate_options(merged)

    def validate_options(self, options: dict[str, Any]) -> None:
        """Check game-specific options; raise :class:`OptionError` on a bad one."""

    def clock_rule(self) -> ClockRule:
        """The live clock of this game with these options (see :class:`ClockRule`)."""
        return self.clock

    def max_length(self) -> int | None:
        """The most actions (chance events included) a match with these options can
        take, when the rules bound it; ``None`` when they do not say.  The research
        adapters need a bound (OpenSpiel's ``max_game_length``); without one they
        measure random playouts and add a margin."""
        return None

    def action_space(self) -> list[Action] | None:
        """Every action any seat may ever take with these options, in a fixed order,
        when that list is small and fixed (the research adapters number actions by
        their place in it); ``None``: the game does not declare one (an encoding's
        action ids, or the adapters' own numbering of the actions met, are used)."""
        return None

    @abstractmethod
    def new_initial_state(self) -> State:
        """The state before any event."""

    def shown_options(self) -> dict[str, Any]:
        """The options an account for people lists: all, less variant options at their defaults."""
        defaults = self.option_defaults
        return {
            k: v
            for k, v in self.options.items()
            if k not in self.variant_options or k in self._given and v != defaults.get(k)
        }

    def given_options(self) -> dict[str, Any]:
        """The options exactly as they were given (a record keeps what its author wrote)."""
        return dict(self._given)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"


# --------------------------------------------------------------------------- state


class State(ABC, Generic[ViewT]):
    """A position of a game.  See the module docstring for the step model.

    A game's state class names its view type, ``class SwappingState(State[SwappingView])``,
    so that reads of its views are checked by mypy; code for any game says ``State``
    and reads views as plain mappings.
    """

    game: Game
    num_seats: int
    #: whether mid-game scores are public (in swapping they come from hidden rows)
    scores_public: ClassVar[bool] = True
    pending: dict[int, Action]
    log: list[Note]
    history: list[Event]
    #: chance events drawn by this project (omitted from a record that gives a seed)
    drawn: set[int]
    ended_by: EndedBy | None
    track: bool

    def __init__(self, game: Game) -> None:
        self.game = game
        self.num_seats = game.num_seats
        self.pending = {}
        self.log = []
        self.history = []
        self.drawn = set()
        self.ended_by = None
        #: when False (search copies) no log or history is kept: the fast path
        self.track = True

    # ----------------------------------------------------------- hooks for games

    @abstractmethod
    def awaited(self) -> tuple[int, ...]:
        """Seats the current step needs, including any that already submitted.

        Empty at a chance step and once the game is over.
        """

    def simultaneous(self) -> bool:
        """Whether the current step collects secret submissions from several seats.

        A step awaiting one seat may still be simultaneous in kind (a seat's swap when
        the other seat must pass); the default treats every multi-seat step as such.
        """
        return len(self.awaited()) > 1

    def chance_kind(self) -> str | None:
        """The kind of chance event the game waits for, or ``None``."""
        return None

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now (empty when it is not awaited)."""

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """A uniformly random legal action of ``seat``: the one ``rng.randrange`` picks
        from :meth:`legal_actions`.  A game whose lists are long may pick that same
        action (with the same draw) without building the list, for random play."""
        actions = self.legal_actions(seat)
        return actions[rng.randrange(len(actions))]

    @abstractmethod
    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalActionError` naming the rule if ``action`` is illegal.

        Called for a seat that :meth:`to_move` lists, and for any seat proposing a
        free action (see :meth:`is_free`), even at a chance step.
        """

    @abstractmethod
    def _do(self, seat: int, action: Action) -> None:
        """Apply one seat's turn action (trusted)."""

    def is_free(self, action: Action) -> bool:
        """Whether ``action`` is a side action (an item use, an ante proposal, a choice
        that may come early) that does not fill the seat's part of the current step.

        A free action takes effect at once and the seat's turn or slot stays open.  It
        need not come from an awaited seat, and may come while a chance event is due
        (a choice allowed "any time before" something): :meth:`check` alone decides.
        """
        return False

    def _do_free(self, seat: int, action: Action) -> None:
        """Apply a free action (trusted)."""
        raise AssertionError(f"{self.game.id} declares no free actions")

    def _resolve(self, actions: dict[int, Action]) -> None:
        """Apply a complete simultaneous step (trusted).  Default: one by one, by seat."""
        for seat in sorted(actions):
            self._do(seat, actions[seat])

    def check_chance(self, event: ChanceEvent) -> None:
        """Raise :class:`IllegalChanceError` if ``event`` cannot happen here."""
        raise IllegalChanceError(event.kind, "this game has no chance events")

    def _do_chance(self, event: ChanceEvent) -> None:
        raise IllegalChanceError(event.kind, "this game has no chance events")

    def sample_chance(self, rng: random.Random) -> ChanceEvent:
        """Draw the pending chance event with ``rng``."""
        raise IllegalChanceError("", "this game has no chance events")

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether play has ended by the rules (resignation is handled by the core)."""

    @abstractmethod
    def scores(self) -> tuple[int, ...]:
        """One number per seat, in the unit the game's rules page gives (also mid-game)."""

    @abstractmethod
    def winner(self) -> int | None:
        """The winner of a terminal state (called only when :meth:`is_terminal`)."""

    def quiet(self) -> bool:
        """Whether :meth:`scores` is a fair summary right now, with nothing half done
        that is about to move them (a betting round under way is not quiet).  Searches
        cut their rollouts only at quiet positions."""
        return True

    def ranking(self) -> tuple[int, ...] | None:
        """Seats best first, for games whose result is a ranking (``yellow``)."""
        return None

    def loser_result(self, seat: int, reason: str) -> Result:
        """The result when ``seat`` resigns or loses on time.  Two seats: the other wins."""
        winner = 1 - seat if self.num_seats == 2 else None
        return Result(True, winner, self.scores(), None, reason)

    def timeout_action(self, seat: int) -> Action | None:
        """What a ``timeout`` of ``seat`` means now: an action, or ``None`` (loses)."""
        return None

    def clock_phase(self, seat: int) -> str:
        """The key of :attr:`ClockRule.per_action` that times ``seat``'s action now."""
        return next(iter(self.game.clock_rule().per_action))

    @abstractmethod
    def parse_action(self, seat: int, text: str) -> Action:
        """Read notation (forgiving of case and spacing); :class:`ActionSyntaxError` if unreadable."""

    @abstractmethod
    def format_action(self, action: Action) -> str:
        """The canonical notation of ``action``."""

    @abstractmethod
    def _view(self, seat: int | None) -> Mapping[str, Any]:
        """Game-specific part of :meth:`view`: what ``seat`` knows, and nothing else.

        ``seat=None`` is the public view: what everyone (a spectator) knows.  A game
        declares it as its own part of the view (``SwappingPart``), so mypy checks the
        keys it writes.
        """

    def info_key(self, seat: int) -> str:
        """What ``seat`` knows, as one string: equal for two states the seat cannot
        tell apart.  Search bots key their trees on it.  The core's additions to the
        view (the log, who has submitted) are left out: a search compares worlds
        sampled from one history, where those are the same.  Games may override it
        with something cheaper that tells the same states apart.
        """
        return json.dumps(self._view(seat), sort_keys=True, separators=(",", ":"), default=repr)

    def resample(self, seat: int, rng: random.Random) -> State:
        """A copy in which what ``seat`` was never told is redrawn consistently.

        Used by search bots (information-set sampling).  It must depend only on what
        ``seat`` knows: the distribution (and, for a fixed ``rng``, the very sample)
        may not change when hidden facts change.

        When the game's registration names a sampler (``GameEntry.sampler``), its
        ``resample(state, seat, rng)`` answers.  Otherwise the core's answer works for
        any game and needs the match's history (a tracked state): it replays the seat's
        history from the start, redrawing every chance event and every other seat's
        action among those after which the seat would have seen exactly what it saw
        (:func:`replay_world`).  A game whose only secrets are pending choices may
        override this with :meth:`without_others_pending`.
        """
        ref = type(self.game).entry_sampler
        if ref is not None:
            module = _SAMPLER_MODULES.get(ref)
            if module is None:
                module = _SAMPLER_MODULES[ref] = importlib.import_module(ref)
            world: State[Any] = module.resample(self, seat, rng)
            return world
        return replay_world(self, seat, rng).clone(track=False)

    def without_others_pending(self, seat: int) -> State:
        """A search copy without other seats' pending choices: the whole of
        :meth:`resample` for a game whose only secrets are those choices."""
        copy = self.clone(track=False)
        copy.pending = {s: a for s, a in copy.pending.items() if s == seat}
        return copy

    def _copy_state(self, new: State) -> None:
        """Copy mutable game fields into ``new`` (a shallow copy of ``self``)."""

    # ----------------------------------------------------------- public API

    def to_move(self) -> list[int]:
        """Seats whose action the game awaits now (empty at chance steps and at the end)."""
        if self.ended_by is not None:
            return []
        pend = self.pending
        if not pend:
            return list(self.awaited())
        return [s for s in self.awaited() if s not in pend]

    def is_chance(self) -> bool:
        return self.ended_by is None and self.chance_kind() is not None

    def is_over(self) -> bool:
        return self.ended_by is not None or self.is_terminal()

    def result(self) -> Result:
        if self.ended_by is not None:
            how, seat = self.ended_by
            reason = f"P{seat + 1} resigned" if how == "resign" else f"P{seat + 1} ran out of time"
            return self.loser_result(seat, reason)
        if self.is_terminal():
            return Result(True, self.winner(), self.scores(), self.ranking(), "")
        return Result(False, None, self.scores(), self.ranking(), "")

    def apply(self, seat: int, action: Action) -> None:
        """Checked path: refuse with a specific error, changing nothing, or apply."""
        if self.is_over():
            raise GameOverError(self._fmt(action), "the match is over; no further event is legal")
        if action == RESIGN:
            if not 0 <= seat < self.num_seats:
                raise NotYourTurnError("resign", f"there is no seat {seat}")
            self._record(seat, action)
            self.pending = {}
            self.ended_by = EndedBy("resign", seat)
            self.note(None, f"P{seat + 1} resigns.")
            return
        if action != TIMEOUT:
            self._check_notation(seat, action)
        if self.is_free(action):
            if not 0 <= seat < self.num_seats:
                raise NotYourTurnError(self._fmt(action), f"there is no seat {seat}")
            self.check(seat, action)  # the game alone decides when a free action is open
            self._record(seat, action)
            self._do_free(seat, action)
            return
        waiting = self.to_move()
        if seat not in waiting:
            raise NotYourTurnError(self._fmt(action), self._not_awaited(seat, waiting))
        if action == TIMEOUT:
            replacement = self.timeout_action(seat)
            self._record(seat, action)
            if replacement is None:
                self.pending = {}
                self.ended_by = EndedBy("time", seat)
                self.note(None, f"P{seat + 1} ran out of time and loses.")
            else:
                # The replacement may name a secret (a tile, a grouping): only the seat
                # itself is told what was played for it.
                self.note(None, f"P{seat + 1} timed out.")
                self.note(seat, f"Your time ran out: {self.format_action(replacement)} was played for you.")
                self._submit(seat, replacement)
            return
        self.check(seat, action)
        self._record(seat, action)
        self._submit(seat, action)

    def _check_notation(self, seat: int, action: Action) -> None:
        """Refuse a tuple that no notation of this game writes (``("reveal", -1)``,
        ``("bid", 2.5)``, ``()``): on the checked path an action must round-trip
        through the notation, so every accepted action can be written in a record
        and read back as itself."""
        try:
            same = self.parse(seat, self.format_action(action)) == action
        except Exception:  # a hostile tuple may break formatting in any way
            same = False
        if not same:
            raise ActionSyntaxError(repr(action)[:80], "not an action of this game (see its notation)")

    def apply_text(self, seat: int, text: str) -> Action:
        """Parse and apply; returns the action applied."""
        action = self.parse(seat, text)
        self.apply(seat, action)
        return action

    def parse(self, seat: int, text: str) -> Action:
        """Parse notation, including the core's ``resign`` and ``timeout``.

        Numbers in notation are ASCII digits only, in every game: Python's ``int``
        would read ``٣`` or ``３`` as 3, but two people reading a record must agree
        on every number in it, so other digits are refused here, before any game's
        parser sees the text.
        """
        _check_digits(text)
        words = text.strip().lower()
        if words == "resign":
            return RESIGN
        if words == "timeout":
            return TIMEOUT
        return self.parse_action(seat, text)

    def apply_fast(self, seat: int, action: Action) -> None:
        """Trusted path: no checks.  The caller guarantees legality."""
        if self.track:
            self.history.append((seat, action))
        self._submit(seat, action)

    def apply_chance(self, event: ChanceEvent, drawn: bool = False) -> None:
        """Checked path for a chance event (stated by a record or drawn live)."""
        if self.is_over():
            raise GameOverError(event.kind, "the match is over; no further event is legal")
        kind = self.chance_kind()
        if kind is None:
            raise IllegalChanceError(
                event.kind, f"no chance event is due now; the game awaits {self._awaiting_text()}"
            )
        if event.kind != kind:
            raise IllegalChanceError(event.kind, f"the chance event due now is {kind!r}")
        self.check_chance(event)
        if self.track:
            if drawn:
                self.drawn.add(len(self.history))
            self.history.append(event)
        self._do_chance(event)

    def apply_chance_fast(self, event: ChanceEvent) -> None:
        if self.track:
            self.history.append(event)
        self._do_chance(event)

    def play_chance(self, rng: random.Random) -> None:
        """Draw and apply chance events until a seat is awaited or the game ends."""
        while self.is_chance():
            self.apply_chance(self.sample_chance(rng), drawn=True)

    def clone(self, track: bool | None = None) -> State:
        """A cheap independent copy.  ``track=False`` drops log and history (for search)."""
        new = object.__new__(type(self))
        new.__dict__ = self.__dict__.copy()  # a copy at once, not ~40 inserts into an empty dict
        new.pending = dict(self.pending)
        keep = self.track if track is None else track
        new.track = keep
        if keep:
            new.log = list(self.log)
            new.history = list(self.history)
            new.drawn = set(self.drawn)
        else:
            new.log = []
            new.history = []
            new.drawn = set()
        self._copy_state(new)
        return new

    def view(self, seat: int | None) -> ViewT:
        """Everything ``seat`` knows: its secrets and all that is public, as plain data.
        ``seat=None`` gives the public view: what everyone knows (a spectator).

        This is the single place hidden information is filtered; terminal, bots,
        server and adapters build on it and never on the state itself.
        """
        if seat is not None and not (is_int(seat) and 0 <= seat < self.num_seats):
            raise ValueError(f"there is no seat {seat!r} (seats are 0..{self.num_seats - 1})")
        result = self.result()
        mine = seat is not None and seat in self.pending
        data: dict[str, Any] = {
            "game": self.game.id,
            "seat": seat,
            "options": dict(self.game.options),
            "to_move": self.to_move(),
            "submitted": sorted(self.pending),
            "my_pending": self.format_action(self.pending[seat]) if mine else None,  # type: ignore[index]
            "finished": result.finished,
            "winner": result.winner,
            "scores": list(result.scores) if result.finished or self.scores_public else None,
            "log": [n.text for n in self.log if n.to is None or (seat is not None and n.to == seat)],
        }
        if result.ranking is not None:
            data["ranking"] = list(result.ranking)
        data.update(self._view(seat))
        # the one unchecked step: the core's keys and the game's part make the game's view
        return cast(ViewT, data)

    def to_record(self, seats: list[str] | None = None, seed: int | None = None) -> dict[str, Any]:
        """This match as a record (the README's "Match records"; :mod:`.record` reads
        them back).  With ``seed``, chance events the project drew itself are left
        out (replaying with the seed draws them again)."""
        game = self.game
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "game": game.id,
            "options": game.given_options(),
            "seats": list(seats) if seats else [f"P{i + 1}" for i in range(self.num_seats)],
        }
        if seed is not None:
            record["seed"] = seed
        events: list[dict[str, Any]] = []
        for i, event in enumerate(self.history):
            if isinstance(event, ChanceEvent):
                if seed is not None and i in self.drawn:
                    continue
                events.append(event.to_json())
            else:
                seat, action = event
                events.append({"seat": seat, "action": self._fmt(action)})
        record["events"] = events
        return record

    def note(self, to: int | None, text: str) -> None:
        """Add an announcement (skipped in search copies)."""
        if self.track:
            self.log.append(_new_note(Note, (to, text)))

    # ----------------------------------------------------------- internals

    def _submit(self, seat: int, action: Action) -> None:
        if self.is_free(action):
            self._do_free(seat, action)
        elif self.simultaneous():
            pending = self.pending
            pending[seat] = action
            for s in self.awaited():  # a loop, not all(...): every simultaneous step passes here
                if s not in pending:
                    return
            self.pending = {}
            self._resolve(pending)
        else:
            self._do(seat, action)

    def _record(self, seat: int, action: Action) -> None:
        if self.track:
            self.history.append((seat, action))

    def _fmt(self, action: Action) -> str:
        if action == RESIGN:
            return "resign"
        if action == TIMEOUT:
            return "timeout"
        try:
            return self.format_action(action)
        except Exception:  # a malformed tuple from a caller: show it raw
            return repr(action)

    def _awaiting_text(self) -> str:
        waiting = self.to_move()
        if waiting:
            return " and ".join(f"P{s + 1}" for s in waiting)
        kind = self.chance_kind()
        return f"a chance event ({kind})" if kind else "nothing"

    def _not_awaited(self, seat: int, waiting: Sequence[int]) -> str:
        if not 0 <= seat < self.num_seats:
            return f"there is no seat {seat} (seats are 0..{self.num_seats - 1})"
        if seat in self.pending:
            return f"P{seat + 1} has already submitted this step; the game awaits {self._awaiting_text()}"
        return f"it is not P{seat + 1}'s move; the game awaits {self._awaiting_text()}"


# --------------------------------------------------------------------------- worlds from a history


#: sampler modules by name, imported when first used
_SAMPLER_MODULES: dict[str, Any] = {}


class SamplingError(BlackWhiteError, RuntimeError):
    """No world agreeing with what a seat saw was found (the game should ship a sampler)."""


Observation = Callable[["State[Any]", int | None, int], Hashable]
"""What a seat observes after one event: ``observe(state, seat, start)``, where the
seat's announcements of that event are ``state.log[start:]``."""


def _told(state: State[Any], seat: int | None, start: int) -> tuple[str, ...]:
    return tuple(n.text for n in state.log[start:] if n.to is None or n.to == seat)


def _key(state: State[Any], seat: int | None) -> str:
    """The seat's ``info_key`` (the public view's JSON for ``None``, a spectator)."""
    if seat is None:
        return json.dumps(state._view(None), sort_keys=True, separators=(",", ":"), default=repr)
    return state.info_key(seat)


def saw(state: State[Any], seat: int | None, start: int) -> Hashable:
    """Everything the seat saw after an event: its view's own part (``info_key``), the
    announcements made to it, and who is awaited."""
    return _key(state, seat), tuple(state.to_move()), state.is_over(), _told(state, seat, start)


def was_told(state: State[Any], seat: int | None, start: int) -> Hashable:
    """What the seat was told after an event: the announcements made to it, and who
    is awaited (not the view: the secrecy checks compare views of such worlds)."""
    return tuple(state.to_move()), state.is_over(), _told(state, seat, start)


def was_shown(state: State[Any], seat: int | None, start: int) -> Hashable:
    """What the seat's view showed after an event (its own part, and who is awaited)."""
    return _key(state, seat), tuple(state.to_move()), state.is_over()


def _apply_event(state: State[Any], event: Event) -> None:
    if isinstance(event, ChanceEvent):
        state.apply_chance(event)
    else:
        state.apply(event[0], event[1])


def _observations(state: State[Any], seat: int | None, observe: Observation) -> list[Hashable]:
    """What ``seat`` observed after each event of ``state``'s history (kept on the
    state for the next world drawn from it, while its history is the same list)."""
    cache = state.__dict__.get("_observed")
    key = (seat, observe)
    if cache is not None and cache[0] is state.history and cache[1] == len(state.history) and key in cache[2]:
        found: list[Hashable] = cache[2][key]
        return found
    if cache is None or cache[0] is not state.history or cache[1] != len(state.history):
        cache = (state.history, len(state.history), dict[tuple[int | None, Observation], list[Hashable]]())
        state.__dict__["_observed"] = cache
    replay = state.game.new_initial_state()
    out: list[Hashable] = []
    for event in state.history:
        start = len(replay.log)
        _apply_event(replay, event)
        out.append(observe(replay, seat, start))
    cache[2][key] = out
    return out


def replay_world(
    state: State[Any],
    seat: int | None,
    rng: random.Random,
    observe: Observation = saw,
    *,
    particles: int = 4,
    budget: int = 20_000,
    chance_draws: int = 16,
    truth_as_candidate: bool = False,
) -> State[Any]:
    """A tracked world in which every chance event and every other seat's action of
    ``state``'s history is redrawn, and after each event ``seat`` observes exactly what
    it observed in the real match (``observe``): the generic sampler.

    Events are replayed in order from the game's initial state.  The seat's own actions
    are its own; another seat's action is drawn among its legal actions that keep the
    observation (a chance event among ``chance_draws`` draws that keep it, drawing
    ``chance_draws`` more while none does, as a private deal needs), in a random
    order, backing up to an earlier event when none is left (a depth-first search of
    at most ``budget`` events applied).  Other seats' pending choices are left out.
    Each world carries the importance weight of uniformly random play against the
    search's proposal (the share of candidates kept at each step), and one of
    ``particles`` worlds is returned in proportion to it.  The real events are never
    candidates (``truth_as_candidate`` is for the secrecy checks, which look for any
    other world).  :class:`SamplingError` when no world is found."""
    if not state.track:
        raise SamplingError(
            f"{state.game.id}: the generic sampler replays the match's history, and this is a "
            "search copy without one (resample a tracked state, or ship a sampler)"
        )
    history = state.history
    real = _observations(state, seat, observe)
    skip = {
        max(i for i, e in enumerate(history) if not isinstance(e, ChanceEvent) and e[0] == s)
        for s in state.pending if s != seat
    }
    chosen: State[Any] | None = None
    total = 0.0
    spent = [0]
    for _ in range(max(1, particles)):
        drawn = _search_world(state, seat, rng, observe, real, skip, chance_draws, truth_as_candidate,
                              spent, budget)
        if drawn is None:
            if chosen is not None:
                break  # the budget ran out after a world was found: keep what there is
            raise SamplingError(
                f"{state.game.id}: no world agreeing with what {'everyone' if seat is None else f'P{seat + 1}'} "
                f"saw was found in {spent[0]} replayed events (the budget is {budget}; "
                "ship a sampler: docs/designing-a-game.md)"
            )
        world, weight = drawn
        total += weight
        if chosen is None or (total > 0 and rng.random() * total < weight):
            chosen = world
    assert chosen is not None
    return chosen


def _search_world(
    state: State[Any], seat: int | None, rng: random.Random, observe: Observation, real: list[Hashable],
    skip: set[int], chance_draws: int, truth: bool, spent: list[int], budget: int,
) -> tuple[State[Any], float] | None:
    """One world by a depth-first search over the history's events (see :func:`replay_world`)."""
    history = state.history
    first_skip = min(skip, default=len(history))
    final_key = _key(state, seat) if observe is not was_told else None
    # the stack holds, per event, the worlds after it still to try, the weight so far,
    # and for a chance event the world before it and its weight, to draw again from
    stack: list[tuple[int, list[State[Any]], float, State[Any] | None, float]] = []

    def children(world: State[Any], i: int) -> tuple[list[State[Any]], float]:
        """The worlds after event ``i`` that keep the observation, shuffled, and the
        share of candidates they are."""
        event = history[i]
        compare = i < first_skip
        start = len(world.log)
        kept: list[State[Any]] = []
        tried = 0

        def attempt(tries: list[tuple[int | None, Any]]) -> None:
            nonlocal tried
            for who_, what in tries:
                trial = world.clone()
                spent[0] += 1
                tried += 1
                try:
                    if who_ is None:
                        trial.apply_chance(what)
                    else:
                        trial.apply(who_, what)
                except IllegalActionError:
                    continue
                if not compare or observe(trial, seat, start) == real[i]:
                    kept.append(trial)

        if isinstance(event, ChanceEvent):
            draws = [world.sample_chance(rng) for _ in range(chance_draws)]
            attempt([(None, d) for d in ([*draws, event] if truth else draws)])
            # A private deal agrees with what the seat saw once in hundreds of draws:
            # when backing up has nothing else to try, draw again, within the budget.
            while not kept and stuck() and spent[0] <= budget:
                attempt([(None, world.sample_chance(rng)) for _ in range(chance_draws)])
        else:
            who, action = event
            if who == seat or action == TIMEOUT or action == RESIGN:
                attempt([(who, action)])
            else:
                legal = world.legal_actions(who)
                if truth and action not in legal:
                    legal = [*legal, action]
                attempt([(who, a) for a in legal])
        rng.shuffle(kept)
        return kept, (len(kept) / tried if tried else 0.0)

    def next_index(i: int) -> int:
        while i < len(history) and i in skip:
            i += 1
        return i

    start_world = state.game.new_initial_state()

    def stuck() -> bool:
        """Whether no earlier event has a world left to try."""
        return not any(entry[1] for entry in stack)

    def push(world: State[Any], i: int, weight: float) -> None:
        kept, share = children(world, i)
        again = world if isinstance(history[i], ChanceEvent) else None
        stack.append((i, kept, weight * share, again, weight))

    i = next_index(0)
    if i == len(history):
        return (start_world, 1.0) if final_key is None or _key(start_world, seat) == final_key else None
    push(start_world, i, 1.0)
    while stack:
        if spent[0] > budget:
            return None
        i, kept, weight, before, before_weight = stack[-1]
        if not kept:
            stack.pop()
            if before is not None and stuck():
                # every world after this deal failed later on and nothing earlier is
                # left: deal again (a chance event has more outcomes than the draws
                # tried), within the budget
                push(before, i, before_weight)
            continue
        world = kept.pop()
        j = next_index(i + 1)
        if j == len(history):
            if final_key is None or _key(world, seat) == final_key:
                return world, weight
            continue
        push(world, j, weight)
    return None
