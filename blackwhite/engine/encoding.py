"""Fixed numeric descriptions of the games, for learning libraries and solvers.

Research libraries (PettingZoo, OpenSpiel) want what the rules engine deliberately
does not: actions as integers from a fixed range, observations as fixed-shape
tensors, an honest statement of the game's type and length, and chance steps whose
outcomes can be listed one by one.  An :class:`Encoding` states those facts for one
game with its options fixed.  Each game declares its own beside its rules, in
``blackwhite/games/<module>_encoding.py``; the adapters in :mod:`blackwhite.envs`
are built on this interface alone, so they hold no second copy of any rule.

Everything here is derived from the engine's public surface: an observation is
computed from ``State.view(seat)`` and nothing else, so it cannot tell a seat more
than its view does.
"""

from __future__ import annotations

import json
import operator
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping, Sequence

from .core import Action, ChanceEvent, Game, State
from .registry import entry, load, make_game


@dataclass(frozen=True)
class GameType:
    """What kind of game this is, stated honestly for solvers that rely on it."""

    num_seats: int
    #: whether chance steps occur (a shuffle or a deal)
    chance: bool
    #: whether some seat ever lacks a fact another seat or chance has
    imperfect_information: bool
    #: whether the utilities of all seats always sum to the same constant
    constant_sum: bool
    #: the sum when ``constant_sum`` (0.0 for zero-sum)
    utility_sum: float
    min_utility: float
    max_utility: float
    #: whether some steps collect secret choices from several seats at once
    simultaneous: bool


def win_loss_type(num_seats: int, *, chance: bool, simultaneous: bool) -> GameType:
    """The type every game of blackwhite has: hidden information, utilities from -1
    (a loss, or last place) to +1 (a win, or first place) that always sum to 0.  The
    games differ only in their seats, chance and simultaneous steps."""
    return GameType(
        num_seats=num_seats,
        chance=chance,
        imperfect_information=True,
        constant_sum=True,
        utility_sum=0.0,
        min_utility=-1.0,
        max_utility=1.0,
        simultaneous=simultaneous,
    )


#: how many actions :meth:`Encoding.offered_codes` keeps in the offers it remembers
#: (a few megabytes) before it forgets them all
OFFERS_KEPT = 200_000
#: offers of at most this many actions are remembered by the tuple of their actions
#: (:meth:`Encoding.short_codes`): hashing a few small tuples costs less than the
#: comparisons that find a long offer
SHORT_OFFER = 32
#: how many short offers :meth:`Encoding.short_codes` keeps before it forgets them all
SHORT_OFFERS_KEPT = 50_000


class Encoding(ABC):
    """The fixed codec, type, length bound and observation layout of one game.

    Subclasses are per game; ``game`` carries the options (a small variant may have
    a smaller action range or tensor than the standard game).
    """

    #: whether observations are tensors; ``False`` (:class:`ViewEncoding`): the
    #: adapters observe the seat's view as a string
    tensor: bool = True

    def __init__(self, game: Game) -> None:
        self.game = game
        #: action -> code, remembered by :meth:`offered_codes` (a code never changes)
        self._code_memo: dict[Action, int] = {}
        #: the last offer :meth:`offered_codes` coded, and its codes
        self._last_offer: tuple[list[Action], list[int]] = ([], [])
        #: (length, first, last action) -> offers coded so far with their codes, and
        #: how many actions they hold (all are forgotten past :data:`OFFERS_KEPT`)
        self._offers: dict[tuple[int, Action, Action], list[tuple[list[Action], list[int]]]] = {}
        self._offers_size = 0
        #: id of an action tuple the engine keeps -> the tuple and its codes
        #: (:meth:`kept_codes`; forgotten past :data:`OFFERS_KEPT` actions)
        self._kept: dict[int, tuple[tuple[Action, ...], list[int]]] = {}
        self._kept_size = 0
        #: a short offer (its actions, and facts its rule reads) -> its codes
        #: (:meth:`short_codes`; forgotten past :data:`SHORT_OFFERS_KEPT` offers)
        self._short: dict[tuple[Any, ...], list[int]] = {}

    # ------------------------------------------------------------ actions

    @property
    @abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the action range: every code is in ``range(num_distinct_actions)``."""

    def encode(self, action: Action) -> int:
        """The code of a seat action; ``ValueError`` naming the action if it has none.

        Every game shares the input rule (:func:`check_action_form`): a malformed
        tuple or an item of the wrong type (``True`` for 1, ``2.0`` for 2) is refused
        here, never looked up, so ``decode(encode(a)) == a`` for every coded action.
        """
        check_action_form(action, self.game.id)
        return self._encode(action)

    def decode(self, code: int) -> Action:
        """The action of a code; ``ValueError`` naming the code if it is not a whole
        number (NumPy integers are; bools, floats and strings are not) or out of range."""
        return self._decode(code_index(code, self.num_distinct_actions, self.game.id))

    @abstractmethod
    def _encode(self, action: Action) -> int:
        """The game's codec on a well-formed action (see :meth:`encode`)."""

    @abstractmethod
    def _decode(self, code: int) -> Action:
        """The game's codec on a code already checked to be in range (a plain int)."""

    def offered(self, state: State, seat: int) -> list[Action]:
        """The actions the adapters offer ``seat`` now: its legal actions, with free
        actions (item uses, proposals, early choices) restricted by the game's
        documented rule so that every match ends within :attr:`max_game_length`.
        Nothing for a seat the state does not await (:meth:`awaited_offer` says the rest).
        """
        if seat not in state.to_move():
            return []
        return self.awaited_offer(state, seat)

    def awaited_offer(self, state: State, seat: int) -> list[Action]:
        """:meth:`offered` for a seat the caller knows the state awaits.

        The default offers the legal actions as the engine lists them; games with
        free actions override it.
        """
        return list(state.legal_actions(seat))

    def offered_codes(self, state: State, seat: int) -> list[int]:
        """The codes of :meth:`offered`, each once, in increasing order: what the
        adapters list as the seat's legal actions at every step.  The list may be
        shared between calls: read it, never change it."""
        if seat not in state.to_move():
            return []
        return self.awaited_codes(state, seat)

    def awaited_codes(self, state: State, seat: int) -> list[int]:
        """:meth:`offered_codes` for a seat the caller knows the state awaits (the
        adapters ask the seat they found awaited, and skip asking again).

        The default codes the offered actions, remembering every code and every
        offer coded (up to a bound): consecutive steps often offer the very same
        actions (a grouping phase offers 1260 groupings to each seat in turn), a game
        offers the same few hundred lists again and again (swapping's placements of
        each set of unplaced tiles), and comparing two lists of the same action
        objects costs far less than coding every action again.  A game whose offer
        has a regular shape, or comes from a tuple the engine keeps
        (:meth:`kept_codes`), overrides this to build the same list without making
        the actions.
        """
        actions = self.awaited_offer(state, seat)
        if len(actions) <= SHORT_OFFER:
            return self.short_codes(tuple(actions))
        last = self._last_offer
        if last[0] == actions:
            return last[1]
        key = (len(actions), actions[0], actions[-1])
        seen = self._offers.get(key)
        if seen is None:
            if self._offers_size > OFFERS_KEPT:
                self._offers.clear()
                self._offers_size = 0
            seen = self._offers[key] = []
        for known, codes in seen:
            if known == actions:
                self._last_offer = (known, codes)
                return codes
        codes = self._sorted_codes(actions)
        kept = list(actions)  # the caller's list is not ours to keep
        seen.append((kept, codes))
        self._offers_size += len(kept)
        self._last_offer = (kept, codes)
        return codes

    def short_codes(self, key: tuple[Any, ...], actions: Sequence[Action] | None = None) -> list[int]:
        """The sorted codes (each once) of a short offer, remembered by ``key``: the
        offer's actions as a tuple, whose hash costs less than comparing lists when
        there are few, or that tuple with the facts a game's rule for offering them
        reads (then ``actions`` are the offered actions).  Shared between calls."""
        codes = self._short.get(key)
        if codes is None:
            if len(self._short) > SHORT_OFFERS_KEPT:
                self._short.clear()
            codes = self._short[key] = self._sorted_codes(key if actions is None else actions)
        return codes

    def kept_codes(self, actions: tuple[Action, ...]) -> list[int]:
        """The sorted codes (each once) of ``actions``, a tuple the engine keeps and
        offers again and again (grouping's 1260 groupings, a yellow seat's
        submissions, remembered by the engine): remembered by the tuple's identity,
        which costs one dictionary lookup however long the tuple.  The tuple is kept
        with its codes, so its id cannot be reused while they are remembered.  Shared
        between calls: read it, never change it."""
        hit = self._kept.get(id(actions))
        if hit is not None and hit[0] is actions:
            return hit[1]
        # a new tuple may still hold a known offer (yellow remembers its submissions per
        # tile counts, and many counts have the same submissions)
        codes = self.short_codes(actions) if len(actions) <= SHORT_OFFER else self._sorted_codes(actions)
        if self._kept_size > OFFERS_KEPT:
            self._kept.clear()
            self._kept_size = 0
        self._kept[id(actions)] = (actions, codes)
        self._kept_size += len(actions)
        return codes

    def _sorted_codes(self, actions: Sequence[Action]) -> list[int]:
        """The codes of ``actions``, each once, in increasing order (every action's
        code remembered: a code never changes)."""
        memo = self._code_memo
        try:
            return sorted(set(map(memo.__getitem__, actions)))
        except KeyError:
            for action in actions:
                if action not in memo:
                    memo[action] = self.encode(action)
            return sorted(set(map(memo.__getitem__, actions)))

    # ------------------------------------------------------------ the game

    @property
    @abstractmethod
    def game_type(self) -> GameType:
        """The game's type (seats, chance, information, utility)."""

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of seat decisions in one match when seats
        choose only among :meth:`offered` actions (simultaneous choices counted one
        per seat, chance draws not counted)."""

    def utilities(self, state: State) -> tuple[float, ...]:
        """The payoff of each seat at a finished state, summing to 0 as
        :func:`win_loss_type` says: +1 win, -1 loss, 0 draw for two seats.  With more
        seats a draw is 0 for all; else by the ranking when there is one, from +1 for
        the first to -1 for the last in equal steps, otherwise +1 for the winner and
        -1/(n-1) for each other seat.  Games with another scale override it (and
        ``game_type``)."""
        result = state.result()
        n = state.num_seats
        if result.winner is None:
            return tuple(0.0 for _ in range(n))
        if n == 2:
            return tuple(1.0 if s == result.winner else -1.0 for s in range(n))
        if result.ranking is not None and sorted(result.ranking) == list(range(n)):
            out = [0.0] * n
            for place, seat in enumerate(result.ranking):
                out[seat] = 1.0 - 2.0 * place / (n - 1)
            return tuple(out)
        return tuple(1.0 if s == result.winner else -1.0 / (n - 1) for s in range(n))

    # ------------------------------------------------------------ observations

    @property
    @abstractmethod
    def layout(self) -> Sequence[tuple[str, int]]:
        """The blocks of the flat observation, in order: (name, size).  Fixed by the
        options, documented on the game's rules page."""

    @cached_property
    def observation_shape(self) -> tuple[int, ...]:
        """Shape of the observation tensor: the layout's total (worked out once)."""
        return (sum(size for _, size in self.layout),)

    def observation(self, view: Mapping[str, Any]) -> list[float]:
        """The tensor, flattened row-major, of one seat's view (``State.view(seat)``).

        It encodes exactly what the view says and nothing else: two states whose
        views for a seat are equal give equal tensors.  Built from
        :meth:`observation_entries`; the list also carries them (:class:`Floats`).
        """
        return Floats(self.observation_shape[0], self.observation_entries(view))

    @abstractmethod
    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        """The same tensor as its non-zero entries, flat index -> value (every other
        entry is 0.0).  Observations are mostly zeros, so adapters fill their arrays
        from these instead of converting every float of :meth:`observation`."""

    # ------------------------------------------------------------ chance

    def chance_outcomes(self, state: State, draws: Sequence[int]) -> list[tuple[int, float]]:
        """The next small chance draw at a chance step, after the draws made so far.

        A shuffle or deal is split into one draw per item (a tile, a group) so that no
        single chance node lists factorially many outcomes.  Returns the possible
        outcomes of the next draw with their probabilities (summing to 1), or an
        empty list when ``draws`` determine the whole event; then
        :meth:`chance_event` builds it.  Games without chance never get here.
        """
        raise NotImplementedError(f"{self.game.id} has no chance steps")

    def next_chance_outcomes(self, state: State, draws: list[int]) -> list[tuple[int, float]]:
        """:meth:`chance_outcomes` for draws that are plain ints each taken from the
        outcomes listed before it, at a chance step of ``state`` (the adapters' own
        draws): a game may skip checking them again at every draw.  Read the list, never
        change it."""
        return self.chance_outcomes(state, draws)

    def chance_event(self, state: State, draws: Sequence[int]) -> ChanceEvent:
        """The full chance event that ``draws`` (complete, see above) describe."""
        raise NotImplementedError(f"{self.game.id} has no chance steps")


class Floats(list[float]):
    """A dense observation (a plain list of floats for every reader) that also carries
    the entries written: ``written`` maps an index to its value; every other entry is 0.0."""

    def __init__(self, size: int, written: dict[int, float]) -> None:
        data = [0.0] * size
        for i, v in written.items():
            data[i] = v
        super().__init__(data)
        self.written = written


def code_index(code: object, size: int, game_id: str) -> int:
    """``code`` as a plain int in ``range(size)``, the rule every decoder shares.

    Any integer type is accepted through ``operator.index`` (action spaces hand back
    NumPy integers); a bool is refused although it is an int, because ``True`` is not
    a code anyone means.  ``ValueError`` names the input and the range.
    """
    if isinstance(code, bool):
        raise ValueError(f"action code {code!r} is a bool, not a whole number: {game_id} has codes 0..{size - 1}")
    try:
        index = operator.index(code)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(
            f"action code {code!r} is not a whole number: {game_id} has codes 0..{size - 1}"
        ) from None
    if not 0 <= index < size:
        raise ValueError(f"action code {code!r} is out of range: {game_id} has codes 0..{size - 1}")
    return index


def _well_formed_item(item: object) -> bool:
    """An action item is a string, a plain int (not a bool), or a tuple of those."""
    if isinstance(item, tuple):
        return all(isinstance(x, str) or (isinstance(x, int) and not isinstance(x, bool)) for x in item)
    return isinstance(item, str) or (isinstance(item, int) and not isinstance(item, bool))


def check_action_form(action: object, game_id: str) -> None:
    """Refuse what cannot be an engine action, the rule every encoder shares.

    An action is a non-empty tuple: a string tag, then items that are strings, plain
    ints or tuples of those.  Anything else (a list, a float, a bool standing for a
    number, a dict) is a ``ValueError`` naming the input, before any lookup.
    """
    if not isinstance(action, tuple) or not action or not isinstance(action[0], str):
        raise ValueError(f"{action!r} has no code in {game_id}: an action is a tuple starting with its tag")
    for item in action[1:]:
        if not _well_formed_item(item):
            raise ValueError(
                f"{action!r} has no code in {game_id}: item {item!r} is not a string, "
                "a whole number (bools and floats are not) or a tuple of those"
            )


#: the one type a draw has when it needs no conversion (not bool, a subclass)
_PLAIN = {int}


def plain_draws(draws: object, game_id: str) -> list[int]:
    """The chance draws made so far as plain ints, the rule every game's chance
    methods share: a sequence of whole numbers (NumPy integers too), never a bool,
    a float, a string or a nested list; ``ValueError`` names the offending draw."""
    if isinstance(draws, (list, tuple)) and set(map(type, draws)) <= _PLAIN:
        return list(draws)  # plain ints already (an adapter's, at every draw)
    if isinstance(draws, (str, bytes)) or not isinstance(draws, Sequence):
        raise ValueError(f"draws {draws!r} are not a sequence of whole numbers ({game_id})")
    out: list[int] = []
    for k, d in enumerate(draws):
        index: int | None = None
        if not isinstance(d, bool):
            try:
                index = operator.index(d)
            except TypeError:
                index = None
        if index is None:
            raise ValueError(
                f"draw {d!r} at position {k} of {list(draws)!r} is not a whole number "
                f"(bools and floats are not draws of {game_id})"
            )
        out.append(index)
    return out


def encoding(game: Game | str, options: Mapping[str, Any] | None = None) -> Encoding:
    """The encoding of ``game`` (a game, or an id with ``options``).

    A game object already carries its options, so options given with one are
    refused rather than silently ignored.
    """
    if isinstance(game, str):
        game = make_game(game, options)
    elif options is not None:
        raise ValueError(
            f"options {dict(options)!r} given with a {game.id} game object: the game already "
            "carries its options; pass the game id with the options instead"
        )
    ref = entry(game.id).encoding
    if ref is None:
        return ViewEncoding(game)
    cls = load(ref)
    enc: Encoding = cls(game)
    return enc


#: random matches :class:`ViewEncoding` plays to learn what a game does not declare
PROBES = 64
#: the bytes of the seed of a chance event of a game that ships no encoding
SEED_DRAWS = 4
_BYTE_OUTCOMES = tuple((b, 1 / 256) for b in range(256))


def view_text(view: Mapping[str, Any]) -> str:
    """A seat's view as canonical JSON text (ASCII): the observation of a game that
    ships no tensor encoding (``Encoding.tensor`` false)."""
    return json.dumps(view, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


class TabledEncoding(Encoding):
    """An encoding whose action codes are places in a fixed list: ``_actions`` (code ->
    action) and ``_codes`` (action -> code), set by the subclass's ``__init__``.  An
    action off the list is refused with :meth:`_no_code`'s message."""

    _actions: Sequence[Action]
    _codes: Mapping[Action, int]

    @property
    def num_distinct_actions(self) -> int:
        return len(self._actions)

    def _encode(self, action: Action) -> int:
        code = self._codes.get(action)
        if code is None:
            raise ValueError(self._no_code(action))
        return code

    def _decode(self, code: int) -> Action:
        return self._actions[code]

    def _no_code(self, action: Action) -> str:
        """Why ``action`` (well formed) has no code: the game's words."""
        return f"{self.game.id}: {action!r} has no action code"


class ViewEncoding(TabledEncoding):
    """The encoding of a game that ships none: action codes are places in the game's
    declared ``Game.action_space()``, the length bound is ``Game.max_length()`` (or
    twice the longest of :data:`PROBES` random matches), and there is no tensor: the
    adapters observe the seat's view as a string (``tensor`` is false).  A chance step
    is drawn as :data:`SEED_DRAWS` bytes of a seed, each a chance node of 256 equally
    likely outcomes, and the event is the game's own ``sample_chance`` from a
    ``random.Random`` of that seed: the game's distribution up to the 2**32 seeds, with
    no outcome listed one by one (an encoding of the game's own lists them exactly).
    ``LookupError`` for a game that declares no action space."""

    tensor = False
    #: the outcomes of one chance draw (a byte of the seed)
    max_chance_outcomes = 256

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        space = game.action_space()
        if space is None:
            raise LookupError(
                f"game {game.id!r} ships no research encoding and declares no Game.action_space(): "
                "the adapters need one or the other (docs/designing-a-game.md)"
            )
        self._actions = list(space)
        self._codes = {a: i for i, a in enumerate(self._actions)}
        if len(self._codes) != len(self._actions):
            raise LookupError(f"game {game.id!r}: Game.action_space() lists an action twice")
        chance = simultaneous = False
        longest = 0
        widest = 0
        for seed in range(PROBES):
            state = game.new_initial_state()
            rng = random.Random(seed)
            steps = 0
            while not state.is_over():
                if state.is_chance():
                    chance = True
                    state.apply_chance_fast(state.sample_chance(rng))
                    continue
                movers = state.to_move()
                simultaneous = simultaneous or state.simultaneous()
                seat = movers[0]
                for s in range(game.num_seats):
                    widest = max(widest, len(view_text(state.view(s))))
                legal = state.legal_actions(seat)
                state.apply_fast(seat, legal[rng.randrange(len(legal))])
                steps += 1
            longest = max(longest, steps)
        self._type = win_loss_type(game.num_seats, chance=chance, simultaneous=simultaneous)
        declared = game.max_length()
        self._length = declared if declared is not None else 2 * longest + 16
        #: the length of the text observations (a view's JSON, padded): twice the widest
        #: view the probes met, and room to spare
        self.view_chars = 2 * widest + 1024

    def _no_code(self, action: Action) -> str:
        return f"{self.game.id}: {action!r} is not in Game.action_space()"

    def chance_outcomes(self, state: State, draws: Sequence[int]) -> list[tuple[int, float]]:
        """The next byte of the seed, or none once :data:`SEED_DRAWS` are drawn."""
        bytes_ = plain_draws(draws, self.game.id)
        if any(not 0 <= b < 256 for b in bytes_) or len(bytes_) > SEED_DRAWS:
            raise ValueError(f"{self.game.id}: draws {bytes_!r} are not at most {SEED_DRAWS} bytes of a seed")
        return [] if len(bytes_) == SEED_DRAWS else list(_BYTE_OUTCOMES)

    def chance_event(self, state: State, draws: Sequence[int]) -> ChanceEvent:
        """The game's own draw from the seed those bytes spell."""
        bytes_ = plain_draws(draws, self.game.id)
        if len(bytes_) != SEED_DRAWS or any(not 0 <= b < 256 for b in bytes_):
            raise ValueError(f"{self.game.id}: draws {bytes_!r} are not the {SEED_DRAWS} bytes of a seed")
        return state.sample_chance(random.Random(int.from_bytes(bytes(bytes_), "big")))

    @property
    def game_type(self) -> GameType:
        return self._type

    @property
    def max_game_length(self) -> int:
        return self._length

    @property
    def layout(self) -> Sequence[tuple[str, int]]:
        return ()

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        return {}
