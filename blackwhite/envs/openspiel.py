"""Every game of blackwhite as an OpenSpiel Python game.

:func:`register` registers ``blackwhite_<id>`` (the dash of an id written as an
underscore: ``blackwhite_grouping_final``) for each game whose
:class:`~blackwhite.engine.encoding.Encoding` exists.  Then
``pyspiel.load_game("blackwhite_swapping", {"tiles": 3})`` gives a game whose
parameters are the game's options: an option with a number, true/false or text
default is a parameter of that type; one whose default is a list, a mapping or none
(yellow's ``garnets``, grouping-final's ``items``) is a text parameter holding JSON
(``{"garnets": "[3;0;0]"}``: items separated by ``;`` so that the game's string, which
serialization writes, has no bare comma; plain JSON is read too).

The game type is honest: sequential (a simultaneous step is asked one seat at a time
in seat order, the later seat never told the earlier choice: the same game), imperfect
information, explicit chance when the game has chance, utility from the encoding.  A
shuffle or deal is split by the encoding into one small draw per item.

Information-state string (perfect recall): :func:`blackwhite.engine.infostate.infostate_string`,
the seat's decision trail (the key of its view at each of its earlier decisions and
the action it took there, worked out on demand) then the key of its current
view.  Observation string: the current view's key alone.  Both tensors: the encoding
of the current view (fixed-size, so it holds no trail: the information-state tensor
is an observation, not a perfect-recall record; docs/research.md).
``resample_from_infostate`` is the engine's ``State.resample``, after which the seats
asked earlier in the same simultaneous step get a choice drawn uniformly among their
offered non-free actions (the seat cannot see it).
"""

from __future__ import annotations

import json
import random
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pyspiel

from ..engine.core import Game, State, replay_world
from ..engine.encoding import Encoding, encoding
from ..engine.registry import entry, game_ids, make_game
from ..engine.infostate import infostate_key, infostate_string, trail_entry
from .seats import complete_step, fill, next_seat, render_view

PREFIX = "blackwhite_"


def spiel_name(game_id: str) -> str:
    """``grouping-final`` -> ``blackwhite_grouping_final``."""
    return PREFIX + game_id.replace("-", "_")


def _is_json_option(default: Any) -> bool:
    """Options OpenSpiel has no parameter type for travel as JSON text."""
    return default is None or isinstance(default, (list, tuple, dict))


#: characters with a meaning in OpenSpiel's game strings, ``name(key=value,...)``
_SPECIAL = {",": "\\u002c", ";": "\\u003b", "=": "\\u003d", "(": "\\u0028", ")": "\\u0029"}


def _swap_outside_strings(text: str, swap: Mapping[str, str], inside_swap: Mapping[str, str]) -> str:
    """``text`` (JSON) with the characters of ``swap`` replaced outside JSON strings
    and those of ``inside_swap`` inside them (escape sequences left alone)."""
    out = []
    inside = escaped = False
    for ch in text:
        if inside:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                inside = False
            else:
                ch = inside_swap.get(ch, ch)
        elif ch == '"':
            inside = True
        else:
            ch = swap.get(ch, ch)
        out.append(ch)
    return "".join(out)


def json_param(value: Any) -> str:
    """A list, mapping or null as text for an OpenSpiel parameter: JSON with ``;``
    between items, so that the game's string (``blackwhite_yellow(garnets=[3;0;0])``,
    which serialization writes and reads back) holds no bare comma.  Special
    characters inside JSON strings are written as ``\\uXXXX`` escapes."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return _swap_outside_strings(text, {",": ";"}, _SPECIAL)


def read_json_param(text: str) -> Any:
    """The value of a :func:`json_param` text (plain JSON with commas is read too)."""
    return json.loads(_swap_outside_strings(text, {";": ","}, {}))


def _parameter_spec(game: Game) -> dict[str, Any]:
    """The game's options (with their defaults) as OpenSpiel parameters."""
    return {
        name: json_param(value) if _is_json_option(value) else value
        for name, value in game.options.items()
    }


def _options_from(params: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """OpenSpiel parameters back to the game's options (JSON text read back)."""
    options: dict[str, Any] = {}
    for name, value in params.items():
        if name in defaults and _is_json_option(defaults[name]) and isinstance(value, str):
            try:
                value = read_json_param(value)
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"parameter {name}={value!r} is not JSON ({exc}); write e.g. {json_param(defaults[name])!r}"
                ) from None
        options[name] = value
    return options


@dataclass
class _Setup:
    """The engine side of one loaded game: the game with its options, its encoding
    (which remembers the action codes) and the initial position."""

    game: Game
    enc: Encoding
    max_chance: int
    #: the settled initial position, shared by every new initial state until it
    #: moves (OpenSpiel's ``clone`` makes a new initial state, then copies the state's
    #: attributes over it: a copy made there would be thrown away at once)
    initial: _Position | None = None
    #: the codes applied from the initial position -> the known point they reach:
    #: a solver walks the same tree at every iteration, with new states each time, and
    #: finds each point's trails and keys here instead of replaying and viewing again
    #: (forgotten past :data:`POINTS_KEPT`)
    points: dict[tuple[int, ...], _Known] = field(default_factory=dict)
    #: whether engine states keep their history (see :func:`_needs_history`)
    history: bool = False


def _needs_history(game: Game) -> bool:
    """Whether the game's worlds are drawn by the generic sampler, which replays the
    match's history: its engine states are then tracked (slower, as search copies
    keep no history), so that ``resample_from_infostate`` works."""
    state = game.new_initial_state()
    return type(game).entry_sampler is None and type(state).resample is State.resample


#: how many known points a game's setup remembers before it forgets them all.  Each
#: holds a copy of the engine and the keys asked there: measured 5 to 21 KiB (yellow
#: to joust-final), so at most about 100 to 400 MiB; CFR+ on swapping ``tiles=3,
#: max_ties=1`` asks for about 16,700 points, which all fit
POINTS_KEPT = 20_000


#: str(pyspiel game) -> its setup.  States keep only this key, so that OpenSpiel's
#: clone (a deep copy of the state's attributes) and pickling copy no encoding.
_SETUPS: dict[str, _Setup] = {}


@dataclass
class _Known:
    """A point where every seat's decision trail is worked out: a private copy of the
    engine there (never changed: a replay starts from a clone of it), the chance draws
    made so far, the trails, and the information-state keys computed there (per seat,
    ``None`` for the public view; a memo, filled on demand), and the codes applied to
    reach it from the game's initial position (``None`` for a point not reached that
    way: a resampled world, whose other seats' trails start empty)."""

    engine: State
    draws: tuple[int, ...]
    trails: tuple[tuple[str, ...], ...]
    keys: dict[int | None, str]
    path: tuple[int, ...] | None = None


class _Position:
    """The engine state, what is offered now, and how to work out the trails.

    Random play and rollouts never read a trail, so a step only appends its code to
    ``since``; the trails are worked out on demand by replaying ``since`` from the
    last known point (:meth:`catch_up`).  Copied by the engine's cheap ``clone``; what
    is offered and the known point are never changed in place, so copies share them.
    A copy is made only after the original catches up: a tree of states (a solver's,
    or OpenSpiel's enumeration of every state) then replays one step per state
    whenever its strings are asked, never a whole path.

    A ``shared`` position (a game's initial one) belongs to every state that has not
    moved from it: a state copies it before its first step, and copying it gives
    itself."""

    __slots__ = ("key", "engine", "draws", "outcomes", "codes", "player", "known", "since", "shared")

    def __init__(self, key: str, engine: State, known: _Known) -> None:
        #: the key of the game's setup in ``_SETUPS``
        self.key = key
        self.engine = engine
        self.draws: list[int] = list(known.draws)
        self.outcomes: list[tuple[int, float]] = []
        #: the codes offered to the current seat, in increasing order (shared: never
        #: changed in place)
        self.codes: list[int] = []
        #: OpenSpiel's current player (a seat, or its chance/terminal id)
        self.player: int = 0
        self.known = known
        #: the codes applied since ``known`` (decisions and chance draws)
        self.since: list[int] = []
        self.shared = False

    def catch_up(self) -> _Known:
        """The known point moved to now (a replay of the codes applied since, unless
        the setup remembers the point)."""
        if self.since:
            setup, known = _SETUPS[self.key], self.known
            if known.path is None:
                self.known = _replay(setup, known, self.since)
            else:
                path = known.path + tuple(self.since)
                found = setup.points.get(path)
                if found is None:
                    found = _replay(setup, known, self.since)
                    found.path = path
                    if len(setup.points) >= POINTS_KEPT:
                        setup.points.clear()
                    setup.points[path] = found
                self.known = found
            self.since = []
        return self.known

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return self if self.shared else self.copy()

    def copy(self) -> _Position:
        """A copy of its own (never shared), with a clone of the engine."""
        self.catch_up()
        new = object.__new__(_Position)
        new.key = self.key
        new.engine = self.engine.clone()
        new.draws = list(self.draws)
        new.outcomes = self.outcomes
        new.codes = self.codes
        new.player = self.player
        new.known = self.known
        new.since = []
        new.shared = False
        return new

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, data: tuple[Any, ...]) -> None:
        for name, value in zip(self.__slots__, data):
            setattr(self, name, value)


def _spiel_type(game: Game, enc: Encoding) -> pyspiel.GameType:
    kind = enc.game_type
    if kind.constant_sum:
        utility = pyspiel.GameType.Utility.ZERO_SUM if kind.utility_sum == 0 else pyspiel.GameType.Utility.CONSTANT_SUM
    else:
        utility = pyspiel.GameType.Utility.GENERAL_SUM
    return pyspiel.GameType(
        short_name=spiel_name(game.id),
        long_name=f"blackwhite {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(
            pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if kind.chance else pyspiel.GameType.ChanceMode.DETERMINISTIC
        ),
        information=(
            pyspiel.GameType.Information.IMPERFECT_INFORMATION
            if kind.imperfect_information
            else pyspiel.GameType.Information.PERFECT_INFORMATION
        ),
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=kind.num_seats,
        min_num_players=kind.num_seats,
        provides_information_state_string=True,
        provides_information_state_tensor=enc.tensor,
        provides_observation_string=True,
        provides_observation_tensor=enc.tensor,
        parameter_specification=_parameter_spec(game),
    )


def _max_chance_outcomes(enc: Encoding) -> int:
    """The size of the chance outcome range (0 without chance): the encoding's
    ``max_chance_outcomes`` where it states one, else its action range (the draws
    of every game are item numbers far below it; the adapter checks each draw)."""
    if not enc.game_type.chance:
        return 0
    bound = getattr(enc, "max_chance_outcomes", None)
    if isinstance(bound, int) and bound > 0:
        return bound
    return enc.num_distinct_actions


def _make_game_class(game_id: str, spiel_type: pyspiel.GameType) -> type:
    defaults = make_game(game_id).options

    class BlackWhiteSpielGame(pyspiel.Game):
        """One blackwhite game, with the options given as OpenSpiel parameters."""

        def __init__(self, params: Mapping[str, Any] | None = None) -> None:
            options = _options_from(params or {}, defaults)
            game = make_game(game_id, options)
            enc = encoding(game)
            kind = enc.game_type
            info = pyspiel.GameInfo(
                num_distinct_actions=enc.num_distinct_actions,
                max_chance_outcomes=_max_chance_outcomes(enc),
                num_players=kind.num_seats,
                min_utility=kind.min_utility,
                max_utility=kind.max_utility,
                utility_sum=kind.utility_sum if kind.constant_sum else None,
                max_game_length=enc.max_game_length,
            )
            super().__init__(spiel_type, info, dict(params or {}))
            self.key = str(self)
            self.setup = _SETUPS.setdefault(self.key, _Setup(game, enc, _max_chance_outcomes(enc),
                                                                  history=_needs_history(game)))

        def new_initial_state(self) -> BlackWhiteSpielState:
            return BlackWhiteSpielState(self)

        def make_py_observer(
            self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
        ) -> BlackWhiteObserver:
            return BlackWhiteObserver(self.setup.enc, iig_obs_type, params)

    BlackWhiteSpielGame.__name__ = f"BlackWhiteSpielGame_{game_id.replace('-', '_')}"
    return BlackWhiteSpielGame


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def _settle_chance(setup: _Setup, engine: State, draws: list[int]) -> tuple[list[int], list[tuple[int, float]]]:
    """Apply chance events as soon as their draws determine them.  Returns the draws
    still open and the outcomes of the next draw (empty when no chance step is due)."""
    enc = setup.enc
    top = setup.max_chance
    while engine.is_chance():
        # every draw so far was taken from the outcomes listed before it
        outcomes = enc.next_chance_outcomes(engine, draws)
        if outcomes:
            for o, _ in outcomes:
                if not 0 <= o < top:
                    bad = [o for o, _ in outcomes if not 0 <= o < top]
                    raise ValueError(f"chance outcomes {bad} of {setup.game.id} are outside 0..{top - 1}")
            return draws, outcomes
        engine.apply_chance_fast(enc.chance_event(engine, draws))
        draws = []
    return draws, []


def _replay(setup: _Setup, known: _Known, codes: list[int]) -> _Known:
    """The known point after ``codes``: a clone of ``known.engine`` plays them, and
    each decision adds its trail entry (the key of the deciding seat's own view, as
    :func:`~blackwhite.engine.infostate.trail_entry` writes it) to that seat's trail."""
    engine = known.engine.clone(track=setup.history)
    draws = list(known.draws)
    trails = list(known.trails)
    keys = known.keys
    for code in codes:
        if engine.is_chance():
            draws = draws + [code]
        else:
            seat = next_seat(engine)
            assert seat is not None, "a replayed decision needs an awaited seat"
            action = setup.enc.decode(code)
            key = keys.get(seat)
            if key is None:
                key = infostate_key(engine.view(seat))
            trails[seat] = trails[seat] + (trail_entry(key, action),)
            engine.apply_fast(seat, action)
        keys = {}
        draws, _ = _settle_chance(setup, engine, draws)
    return _Known(engine, tuple(draws), tuple(trails), keys)


class BlackWhiteSpielState(pyspiel.State):
    """An engine state (without log or history: the fast path), the chance draws
    made so far at a split chance step, and what it takes to work out each seat's
    decision trail on demand."""

    def __init__(
        self, game: Any, engine: State | None = None, trails: tuple[tuple[str, ...], ...] | None = None
    ) -> None:
        """The position of ``engine`` (whose seats have decided as ``trails`` say),
        or without it the game's initial position."""
        super().__init__(game)
        self.key: str = game.key
        setup = self.setup
        if engine is None:
            if setup.initial is None:
                first = BlackWhiteSpielState(game, setup.game.new_initial_state().clone(track=setup.history))
                setup.initial = first.pos
                first.pos.shared = True
                first.pos.known.path = ()
            self.pos: _Position = setup.initial
            return
        draws, _ = _settle_chance(setup, engine, [])
        known = _Known(engine.clone(track=setup.history), tuple(draws), trails or ((),) * engine.num_seats, {})
        self.pos = _Position(self.key, engine, known)
        self._settle()

    @property
    def setup(self) -> _Setup:
        return _SETUPS[self.key]

    @property
    def engine(self) -> State:
        """The engine state (read it through ``view``; do not change it)."""
        return self.pos.engine

    # ------------------------------------------------------------ the step model

    def _settle(self, setup: _Setup | None = None) -> None:
        """Apply a chance event as soon as its draws determine it; remember who is
        to play and what is offered now (chance outcomes or the seat's action codes).
        ``setup``: the state's, when the caller has it at hand."""
        pos = self.pos
        if setup is None:
            setup = _SETUPS[pos.key]
        engine = pos.engine
        # to_move(), without building its list when nothing is pending (random_step's way)
        waiting = engine.awaited() if not engine.pending and engine.ended_by is None else engine.to_move()
        if not waiting:  # a chance step or the end (the engine awaits no seat at either)
            if engine.is_chance():
                pos.draws, pos.outcomes = _settle_chance(setup, engine, pos.draws)
                if pos.outcomes:
                    pos.player, pos.codes = _CHANCE, []
                    return
                waiting = engine.to_move()
            # else no draw is open and no outcome listed: a chance step is always
            # settled here, by the step that reaches it
            if not waiting:
                pos.player, pos.codes = _TERMINAL, []
                return
        seat = pos.player = min(waiting)  # next_seat's choice, from the list at hand
        pos.codes = setup.enc.awaited_codes(engine, seat)

    def trails(self) -> tuple[tuple[str, ...], ...]:
        """Per seat, its decision trail (:func:`~blackwhite.engine.infostate.trail_entry` of
        each of its decisions so far)."""
        return self.pos.catch_up().trails

    def view_key(self, seat: int | None, recall: bool) -> str:
        """The key of ``seat``'s current view (``None``: the public view), after its
        trail when ``recall``.  Keys are remembered per seat at the known point, so a
        seat is only ever given a key of its own view."""
        pos = self.pos
        if pos.since and not recall:
            return infostate_key(pos.engine.view(seat))
        known = pos.catch_up()
        key = known.keys.get(seat)
        if key is None:
            key = known.keys[seat] = infostate_key(pos.engine.view(seat))
        if not recall or seat is None:
            return key
        return infostate_string(known.trails[seat], key)

    def current_player(self) -> int:
        return self.pos.player

    def _legal_actions(self, player: int) -> list[int]:
        pos = self.pos
        return pos.codes if player == pos.player else []

    # Asked from Python, these are answered here.  OpenSpiel's own versions would go
    # into C++ and call back into Python (``current_player``, ``_legal_actions``, the
    # observer), and ``legal_actions`` would convert every code to C++ and back: more
    # than the engine's whole step.  C++ callers still reach the methods above.  Each
    # answers as OpenSpiel's would; a call OpenSpiel refuses goes to OpenSpiel for its
    # error.

    def legal_actions(self, player: int | None = None) -> list[int]:
        """OpenSpiel's ``LegalActions``: the offered codes of the seat to play, the
        outcomes at a chance node, nothing for another seat or at the end."""
        pos = self.pos
        current = pos.player
        if current == _TERMINAL:
            return []
        if current == _CHANCE:
            return [o for o, _ in pos.outcomes]
        if player is None or player == current:
            return list(pos.codes)
        if player < 0:
            return list(super().legal_actions(player))
        return []

    def is_chance_node(self) -> bool:
        return self.pos.player == _CHANCE

    def is_player_node(self) -> bool:
        return self.pos.player >= 0

    def is_simultaneous_node(self) -> bool:
        return False  # a simultaneous step is asked one seat at a time

    def information_state_string(self, player: int | None = None) -> str:
        """The seat's information-state string (its trail, then its view's key), as
        the information-state observer writes it."""
        if player is None:
            player = self.pos.player
        if not 0 <= player < self.pos.engine.num_seats:
            return str(super().information_state_string(player))
        return self.view_key(player, True)

    def observation_string(self, player: int | None = None) -> str:
        """The key of the seat's current view, as the default observer writes it."""
        if player is None:
            player = self.pos.player
        if not 0 <= player < self.pos.engine.num_seats:
            return str(super().observation_string(player))
        return self.view_key(player, False)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.pos.outcomes)

    def _apply_action(self, action: int) -> None:
        pos = self.pos
        if pos.shared:
            pos = self.pos = pos.copy()
        code = int(action)
        setup = _SETUPS[pos.key]
        if pos.player == _CHANCE:
            for o, _ in pos.outcomes:
                if o == code:
                    break
            else:
                raise ValueError(f"chance outcome {action} is not possible now: {[o for o, _ in pos.outcomes]}")
            pos.draws = pos.draws + [code]
        else:
            codes = pos.codes
            k = bisect_left(codes, code)
            if k == len(codes) or codes[k] != code:
                raise ValueError(f"action {action} is not offered to P{pos.player + 1} now")
            pos.engine.apply_fast(pos.player, setup.enc._decode(code))  # an offered code
        pos.since.append(code)
        self._settle(setup)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {action}"
        try:
            return self.pos.engine.format_action(self.setup.enc.decode(action))
        except (ValueError, TypeError, KeyError, IndexError):
            return f"code {action}"

    def is_terminal(self) -> bool:
        return self.pos.player == _TERMINAL

    def returns(self) -> list[float]:
        engine = self.pos.engine
        if not engine.is_over():
            return [0.0] * engine.num_seats
        return [float(u) for u in self.setup.enc.utilities(engine)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BlackWhiteSpielState:
        """A state the seat cannot tell from this one: the engine's ``resample``, then
        the seats asked before it in this step get uniform offered choices.  The seat
        keeps its decision trail (its own knowledge); the other seats' trails start
        empty (their earlier decisions in the sampled world are not known)."""
        if self.pos.draws:
            raise ValueError("cannot resample in the middle of a split chance draw")
        rng = random.Random(int(probability_sampler() * 2**53))
        if self.setup.history:  # the generic sampler's world, kept tracked to be resampled again
            world = replay_world(self.pos.engine, player_id, rng)
        else:
            world = self.pos.engine.resample(player_id, rng)
        if not world.is_over() and not world.is_chance():
            complete_step(world, player_id, self.setup.enc, rng)
        own = self.trails()[player_id]
        trails = tuple(own if s == player_id else () for s in range(world.num_seats))
        return BlackWhiteSpielState(self.get_game(), world, trails)

    def __str__(self) -> str:
        """Debug text of the whole state: every seat's view (so hidden facts too)."""
        engine = self.pos.engine
        parts = [render_view(engine.view(s), f"P{s + 1}'s view") for s in range(engine.num_seats)]
        if self.pos.draws:
            parts.append(f"chance draws so far: {self.pos.draws}")
        return "\n\n".join(parts)


class BlackWhiteObserver:
    """OpenSpiel's Python observer: the encoding of a seat's view, and its key.

    Tensor: the encoding of the current view, for every type.  String: with perfect
    recall (the information-state type), :func:`~blackwhite.engine.infostate.infostate_string`
    of the seat's trail and current key; without, the current key alone.  The
    public-only type (``private_info`` none) uses the public view ``State.view(None)``
    and is offered without perfect recall only (a public trail is not kept).
    Observing for all players at once is not offered: it would need every seat's
    secrets in one observation.
    """

    def __init__(self, enc: Encoding, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {dict(params)}")
        self.enc = enc
        self.public = False
        #: no type means the observation (as in OpenSpiel's own Python games)
        self.recall = iig_obs_type is not None and bool(iig_obs_type.perfect_recall)
        if iig_obs_type is not None:
            if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
                raise ValueError("blackwhite offers no observation with every seat's private information")
            self.public = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
            if self.public and self.recall:
                raise ValueError("blackwhite offers the public observation without perfect recall only")
        shape = enc.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: BlackWhiteSpielState, player: int) -> None:
        fill(self.tensor, self.enc.observation(state.pos.engine.view(None if self.public else player)))

    def string_from(self, state: BlackWhiteSpielState, player: int) -> str:
        return state.view_key(None if self.public else player, self.recall)


def available_games() -> list[str]:
    """The ids of the games the adapters take: those with an encoding of their own, and
    those without whose rules declare an action space and have no chance steps
    (observed as strings, :class:`~blackwhite.engine.encoding.ViewEncoding`)."""
    out = []
    for game_id in game_ids():
        try:
            encoding(game_id)
        except (LookupError, ImportError):
            continue
        out.append(game_id)
    return out


def register(games: list[str] | None = None) -> list[str]:
    """Register ``blackwhite_<id>`` with OpenSpiel for each game (default: every game
    with an encoding); returns the names.  Registering again is harmless."""
    names = []
    known = set(pyspiel.registered_names())
    for game_id in games if games is not None else available_games():
        name = spiel_name(game_id)
        if name not in known:
            game = make_game(game_id)
            spiel_type = _spiel_type(game, encoding(game))
            pyspiel.register_game(spiel_type, _make_game_class(game_id, spiel_type))
        names.append(name)
    return names


def load(game_id: str, **options: Any) -> Any:
    """Register and load ``game_id`` with ``options`` (JSON options may be given as
    Python values here)."""
    register([game_id])
    defaults = make_game(game_id).options
    params = {k: json_param(v) if k in defaults and _is_json_option(defaults[k]) else v for k, v in options.items()}
    return pyspiel.load_game(spiel_name(game_id), params)
