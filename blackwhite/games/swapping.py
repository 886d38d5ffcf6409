"""Swapping Black & White (docs/rules/swapping.md).

Each seat lays its tiles 0..8 face down on positions 1..9 in three secret rounds,
then nine steps of (secret swap of one black and one white tile, simultaneous reveal
of one tile).  A tied game is replayed; three ties in a row go to the DMO.  The
options ``tiles`` (3, 6 or 9) and ``max_ties`` (1..3) play the same game with fewer
tiles, rounds and replays: a small variant that solvers can enumerate.

Positions are 0-based inside the engine (position 1 is index 0).
"""

from __future__ import annotations

import random
import re
from itertools import permutations
from typing import Any, ClassVar, Final, Mapping

from ..engine.core import (
    Action, ActionSyntaxError, ClockRule, Game, IllegalActionError, OptionError, OptionInfo, State,
    colour, is_int
)
from ..engine.registry import GameEntry, sampler
from ..views.swapping import OwnCell, PublicCell, Reveal, SwappingPart, SwappingPhase, SwappingView

TILES = 9  # in the standard game; ``SwappingState.tiles`` is the option's count
ROUNDS = 3
#: the counts of tiles the option ``tiles`` allows: whole play rounds of three
TILE_COUNTS = (3, 6, 9)
MAX_TIES = 3

#: a tile's colour by its parity (``colour``): even tiles are black
_COLOURS: Final = ("black", "white")

_TIES_TEXT = {1: "a tie", 2: "two ties in a row", 3: "three ties in a row"}

PLAY: Final = "play"
SWAP: Final = "swap"
REVEAL: Final = "reveal"
OVER: Final = "over"

# Every `place` action for a set of unused tiles, built once: the play phase lists
# up to 504 of them, and bots ask for them constantly.
_PLACE_CACHE: dict[tuple[int, ...], tuple[Action, ...]] = {}


def _places(free: tuple[int, ...]) -> tuple[Action, ...]:
    actions = _PLACE_CACHE.get(free)
    if actions is None:
        actions = tuple(("place", a, b, c) for a, b, c in permutations(free, 3))
        _PLACE_CACHE[free] = actions
    return actions


# Every swap or reveal action for a seat's revealed tiles (``shown``, by tile), built
# once: a search lists them at every simulated step.
_HIDDEN_CACHE: dict[tuple[str, tuple[bool, ...]], tuple[Action, ...]] = {}


def _hidden_actions(phase: str, shown: tuple[bool, ...]) -> tuple[Action, ...]:
    """The swaps (each unrevealed black with each unrevealed white, ascending) or the
    reveals (each unrevealed tile, ascending) of a seat whose revealed tiles are ``shown``."""
    actions = _HIDDEN_CACHE.get((phase, shown))
    if actions is None:
        hidden = [t for t, seen in enumerate(shown) if not seen]
        if phase == SWAP:
            blacks = [t for t in hidden if not t & 1]
            whites = [t for t in hidden if t & 1]
            actions = tuple(("swap", b, w) for b in blacks for w in whites)
        else:
            actions = tuple(("reveal", t) for t in hidden)
        _HIDDEN_CACHE[(phase, shown)] = actions
    return actions


class Swapping(Game):
    id = "swapping"
    small_options: ClassVar[Mapping[str, Any]] = {"tiles": 3, "max_ties": 1}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = (
        {"show_colours": True}, {"tiles": 6}, {"tiles": 3, "max_ties": 1},
        {"tiles": 3, "show_colours": True, "max_ties": 2},
    )
    title = "Swapping Black & White"
    num_seats = 2
    #: what each kind of action does (the pages' buttons and prompt)
    action_help: ClassVar[dict[str, str]] = {
        'place': 'choose tiles to place in your row, in order',
        'swap': 'choose a black and a white tile of yours to trade positions',
        'reveal': 'choose one of your face-down tiles to reveal',
    }
    option_defaults = {"show_colours": False, "tiles": TILES, "max_ties": MAX_TIES}
    #: the small variant's options (listed by the referee only when given or not at default)
    variant_options: ClassVar[frozenset[str]] = frozenset({"tiles", "max_ties"})
    option_info: ClassVar[dict[str, OptionInfo]] = {
        "show_colours": OptionInfo("Placed tiles show their colour",
                                   "When on, the colour of every placed tile is public.", "bool"),
        "tiles": OptionInfo("Tiles per seat", "A smaller game: 3, 6 or 9 tiles (whole play rounds of three).",
                            "choice", choices=((3, "3"), (6, "6"), (9, "9 (the standard game)"))),
        "max_ties": OptionInfo("Ties before the advantage wins",
                               "Tied games in a row after which the death-match advantage wins the match.",
                               "number", minimum=1, maximum=MAX_TIES),
    }
    clock = ClockRule({"play": 180.0, "swap": 120.0}, reserve=300.0, on_timeout="the seat loses")

    def validate_options(self, options: dict[str, Any]) -> None:
        if not isinstance(options["show_colours"], bool):
            raise OptionError("option show_colours must be true or false")
        tiles = options["tiles"]
        if not is_int(tiles) or tiles not in TILE_COUNTS:
            raise OptionError(
                f"option tiles must be 3, 6 or 9 (whole play rounds of three tiles), got {tiles!r}"
            )
        ties = options["max_ties"]
        if not is_int(ties) or not 1 <= ties <= MAX_TIES:
            raise OptionError(
                f"option max_ties (tied games in a row that give the DMO the win) must be "
                f"1..{MAX_TIES}, got {ties!r}"
            )

    def new_initial_state(self) -> SwappingState:
        return SwappingState(self)


class SwappingState(State[SwappingView]):
    game: Swapping
    scores_public = False  # only running totals of the play phase are announced

    def __init__(self, game: Swapping) -> None:
        super().__init__(game)
        self.show_colours: bool = game.options["show_colours"]
        self.tiles: int = game.options["tiles"]
        self.ties = 0  # tied games in a row so far
        self.game_no = 1
        self.past: list[tuple[int, int]] = []  # scores of finished (tied) games
        self._new_game()

    def _new_game(self) -> None:
        # rows[s][p]: tile at position p (-1 empty); where[s][t]: position of tile t (-1 unplaced)
        n = self.tiles
        self.rows = [[-1] * n, [-1] * n]
        self.where = [[-1] * n, [-1] * n]
        self.shown = [[False] * n, [False] * n]  # by tile
        # swaps[s]: (position of the black tile, position of the white tile) before each
        # of s's swaps, in order: private, unless show_colours announces the positions
        self.swaps: list[list[tuple[int, int]]] = [[], []]
        # reveals[s]: s's revealed tiles in the order shown (public); they never move again
        self.reveals: list[list[int]] = [[], []]
        self.phase: SwappingPhase = PLAY
        self.round = 0  # play round 0..2
        self.step = 0  # swap step 0..tiles-1
        self.totals: list[tuple[int, int]] = []  # running totals announced after each play round
        self.swappers: tuple[int, ...] = ()
        self.final: tuple[int, int] | None = None
        self.won_by: int | None = None

    def _copy_state(self, new: State) -> None:
        assert isinstance(new, SwappingState)
        new.rows = [self.rows[0][:], self.rows[1][:]]
        new.where = [self.where[0][:], self.where[1][:]]
        new.shown = [self.shown[0][:], self.shown[1][:]]
        new.swaps = [self.swaps[0][:], self.swaps[1][:]]
        new.reveals = [self.reveals[0][:], self.reveals[1][:]]
        new.totals = self.totals[:]
        new.past = self.past[:]

    # ------------------------------------------------------------------ steps

    def awaited(self) -> tuple[int, ...]:
        if self.phase == PLAY or self.phase == REVEAL:
            return (0, 1)
        if self.phase == SWAP:
            return self.swappers
        return ()

    def clock_phase(self, seat: int) -> str:
        return "play" if self.phase == PLAY else "swap"  # the swap phase: swaps and reveals

    def simultaneous(self) -> bool:
        # A lone swapper still acts in secret, but nobody else is waited for.  Asked at
        # every step of a search, so read from the phase directly (``awaited`` above).
        phase = self.phase
        if phase == SWAP:
            return len(self.swappers) > 1
        return phase == PLAY or phase == REVEAL

    def _can_swap(self, seat: int) -> bool:
        # an unrevealed black (even tile) and an unrevealed white (odd tile) remain
        shown = self.shown[seat]
        return False in shown[0::2] and False in shown[1::2]

    def _enter_swap_step(self) -> None:
        first, second = self._can_swap(0), self._can_swap(1)
        self.swappers = (0, 1) if first and second else (0,) if first else (1,) if second else ()
        if self.swappers:
            self.phase = SWAP
        else:
            self.phase = REVEAL
            if self.track:
                self.note(None, f"Step {self.step + 1}: neither seat can swap; both pass.")

    def legal_actions(self, seat: int) -> list[Action]:
        # ``seat not in self.to_move()``, without building that list
        if self.ended_by is not None or seat in self.pending or seat not in self.awaited():
            return []
        return list(self.offer(seat))

    def offer(self, seat: int) -> tuple[Action, ...]:
        """The legal actions of an awaited ``seat``, as the remembered tuple
        :meth:`legal_actions` copies (the research encoding remembers its codes)."""
        phase = self.phase
        if phase == PLAY:
            where = self.where[seat]
            return _places(tuple(t for t in range(self.tiles) if where[t] < 0))
        return _hidden_actions(phase, tuple(self.shown[seat]))

    def check(self, seat: int, action: Action) -> None:
        text = self.format_action(action)
        tag = action[0]
        if self.phase == PLAY:
            if tag != "place":
                raise IllegalActionError(text, self._phase_hint(f"round {self.round + 1} of the play phase"))
            tiles = action[1:]
            if len(set(tiles)) != 3:
                raise IllegalActionError(text, "the three tiles must be different")
            used = [t for t in tiles if self.where[seat][t] >= 0]
            if used:
                raise IllegalActionError(
                    text,
                    f"tile {used[0]} is already placed; unused tiles: {self._free_text(seat)}",
                )
            return
        if self.phase == SWAP:
            if tag != "swap":
                raise IllegalActionError(
                    text,
                    self._phase_hint(f"the swap of step {self.step + 1}")
                    + "; a seat with unrevealed tiles of both colours must swap",
                )
            a, b = action[1], action[2]
            if a == b:
                raise IllegalActionError(text, "a swap needs two different tiles")
            for t in (a, b):
                if self.shown[seat][t]:
                    raise IllegalActionError(
                        text, f"tile {t} is revealed; only unrevealed tiles can be swapped"
                    )
            if (a & 1) == (b & 1):
                raise IllegalActionError(
                    text,
                    f"both tiles are {colour(a)}; a swap needs one unrevealed black "
                    "and one unrevealed white tile",
                )
            return
        if self.phase == REVEAL:
            if tag != "reveal":
                raise IllegalActionError(text, self._phase_hint(f"the reveal of step {self.step + 1}"))
            t = action[1]
            if self.shown[seat][t]:
                hidden = [str(x) for x in range(self.tiles) if not self.shown[seat][x]]
                raise IllegalActionError(
                    text, f"tile {t} is already revealed; unrevealed: {' '.join(hidden)}"
                )

    def _phase_hint(self, where: str) -> str:
        need = {PLAY: "place A B C", SWAP: "swap BLACK WHITE", REVEAL: "reveal TILE"}[self.phase]
        return f"the game is at {where}: the action needed is `{need}`"

    def _free_text(self, seat: int) -> str:
        return " ".join(str(t) for t in range(self.tiles) if self.where[seat][t] < 0)

    # ------------------------------------------------------------------ applying

    def _do(self, seat: int, action: Action) -> None:
        # Only a lone swapper acts by turn.
        self._resolve({seat: action})

    def _resolve(self, actions: dict[int, Action]) -> None:
        if self.phase == PLAY:
            self._resolve_play(actions)
        elif self.phase == SWAP:
            self._resolve_swaps(actions)
        else:
            self._resolve_reveals(actions)

    def _resolve_play(self, actions: dict[int, Action]) -> None:
        base = 3 * self.round
        for seat, action in actions.items():
            row, where = self.rows[seat], self.where[seat]
            for i in range(3):
                t = action[1 + i]
                row[base + i] = t
                where[t] = base + i
        self.round += 1
        won = self._compare(3 * self.round)
        self.totals.append(won)
        if self.track:
            self.note(None, f"Play round {self.round}: running total P1 {won[0]} - P2 {won[1]}.")
            if self.show_colours:
                for s in (0, 1):
                    cols = " ".join(
                        "B" if self.rows[s][p] % 2 == 0 else "W" for p in range(base, base + 3)
                    )
                    self.note(None, f"P{s + 1} positions {base + 1}-{base + 3} colours: {cols}.")
        if self.round == self.tiles // 3:
            self.step = 0
            self._enter_swap_step()

    def _resolve_swaps(self, actions: dict[int, Action]) -> None:
        for seat, action in actions.items():
            a, b = action[1], action[2]
            row, where = self.rows[seat], self.where[seat]
            pa, pb = where[a], where[b]
            row[pa], row[pb] = b, a
            where[a], where[b] = pb, pa
            self.swaps[seat].append((pa, pb))
            if self.track:
                self.note(seat, f"You swapped tiles {a} and {b} (positions {pb + 1} and {pa + 1} now).")
                if self.show_colours:
                    self.note(None, f"P{seat + 1} swapped positions {pa + 1} and {pb + 1}.")
        if self.track:
            for s in (0, 1):
                if s not in actions:
                    self.note(None, f"P{s + 1} passes the swap (only one colour left unrevealed).")
        self.phase = REVEAL

    def _resolve_reveals(self, actions: dict[int, Action]) -> None:
        shown, reveals, track = self.shown, self.reveals, self.track
        for seat in (0, 1):
            t = actions[seat][1]
            shown[seat][t] = True
            reveals[seat].append(t)
            if track:
                self.note(None, f"P{seat + 1} reveals {t} at position {self.where[seat][t] + 1}.")
        self.step += 1
        if self.step < self.tiles:
            self._enter_swap_step()
            return
        self._end_game()

    def _compare(self, upto: int) -> tuple[int, int]:
        w0 = w1 = 0
        r0, r1 = self.rows
        for p in range(upto):
            a, b = r0[p], r1[p]
            if a < 0 or b < 0:
                continue
            if a > b:
                w0 += 1
            elif b > a:
                w1 += 1
        return (w0, w1)

    def _end_game(self) -> None:
        final = self._compare(self.tiles)
        self.final = final
        if final[0] != final[1]:
            self.won_by = 0 if final[0] > final[1] else 1
            self.phase = OVER
            if self.track:
                self.note(None, f"Game {self.game_no}: P1 {final[0]} - P2 {final[1]}; P{self.won_by + 1} wins.")
            return
        self.ties += 1
        self.past.append(final)
        if self.ties >= self.game.options["max_ties"]:
            self.won_by = self.game.dmo
            self.phase = OVER
            if self.track:
                self.note(
                    None,
                    f"Game {self.game_no} tied {final[0]}-{final[1]}: {_TIES_TEXT[self.ties]}, "
                    f"the DMO (P{self.won_by + 1}) wins.",
                )
            return
        if self.track:
            self.note(None, f"Game {self.game_no} tied {final[0]}-{final[1]}: it is replayed from scratch.")
        self.game_no += 1
        self._new_game()

    # ------------------------------------------------------------------ results

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def scores(self) -> tuple[int, ...]:
        if self.final is not None and self.phase == OVER:
            return self.final
        return self._compare(self.tiles)

    def winner(self) -> int | None:
        return self.won_by

    # ------------------------------------------------------------------ notation

    _WORD = re.compile(r"[\s,]+")

    def parse_action(self, seat: int, text: str) -> Action:
        words = [w for w in self._WORD.split(text.strip().lower()) if w]
        if not words:
            raise ActionSyntaxError(text, "empty action; expected place/swap/reveal")
        verb, args = words[0], words[1:]
        want = {"place": 3, "swap": 2, "reveal": 1}
        if verb not in want:
            raise ActionSyntaxError(
                text, "unknown action; swapping knows `place A B C`, `swap B W`, `reveal T`"
            )
        if len(args) != want[verb] or not all(a.isdecimal() for a in args):
            raise ActionSyntaxError(text, f"`{verb}` takes {want[verb]} tile number(s)")
        nums = tuple(int(a) for a in args)
        bad = [n for n in nums if n >= self.tiles]
        if bad:
            raise ActionSyntaxError(text, f"there is no tile {bad[0]}; tiles are 0..{self.tiles - 1}")
        if verb == "swap":
            a, b = nums
            if a & 1 and not b & 1:  # canonical order: black first
                a, b = b, a
            return ("swap", a, b)
        return (verb, *nums)

    def format_action(self, action: Action) -> str:
        return " ".join(str(x) for x in action)

    # ------------------------------------------------------------------ views

    def _public_row(self, seat: int) -> list[PublicCell | None]:
        """``seat``'s row as others see it: revealed tiles (every tile at the end), and
        colours when ``show_colours``."""
        row = self.rows[seat]
        if self.phase == OVER:
            return [None if t < 0 else {"tile": t, "colour": _COLOURS[t & 1], "revealed": True} for t in row]
        shown = self.shown[seat]
        if self.show_colours:
            return [
                None if t < 0
                else {"tile": t, "colour": _COLOURS[t & 1], "revealed": True} if shown[t]
                else {"tile": None, "colour": _COLOURS[t & 1], "revealed": False}
                for t in row
            ]
        return [
            None if t < 0
            else {"tile": t, "colour": _COLOURS[t & 1], "revealed": True} if shown[t]
            else {"tile": None, "colour": None, "revealed": False}
            for t in row
        ]

    def _swaps_of(self, seat: int) -> list[list[int]]:
        return [[a + 1, b + 1] for a, b in self.swaps[seat]]

    def _reveals_of(self, seat: int) -> list[Reveal]:
        where = self.where[seat]
        return [{"tile": t, "position": where[t] + 1} for t in self.reveals[seat]]

    def _view(self, seat: int | None) -> SwappingPart:
        """Positions in ``*_swaps`` and ``*reveals`` are 1-based, as announced; rows
        are lists indexed from 0 (position 1 is index 0)."""
        phase = self.phase
        data: SwappingPart = {
            "phase": phase,
            "game_no": self.game_no,
            "ties": self.ties,
            "past_games": [list(p) for p in self.past],
            "play_round": self.round,
            "swap_step": self.step,
            "totals": [list(t) for t in self.totals],
            "show_colours": self.show_colours,
            "swappers": list(self.swappers) if phase == SWAP else [],
        }
        reveals = self.reveals
        if seat is None:  # a spectator: both rows as the seats see each other's
            data["rows"] = [self._public_row(0), self._public_row(1)]
            data["revealed"] = [sorted(reveals[0]), sorted(reveals[1])]
            data["reveals"] = [self._reveals_of(0), self._reveals_of(1)]
            data["swaps"] = [self._swaps_of(0), self._swaps_of(1)] if self.show_colours else None
            return data
        opp = 1 - seat
        shown = self.shown[seat]
        where = self.where[seat]
        data["my_row"] = [None if t < 0 else {"tile": t, "revealed": shown[t]} for t in self.rows[seat]]
        data["their_row"] = self._public_row(opp)
        data["my_unplaced"] = [t for t, p in enumerate(where) if p < 0]
        data["their_revealed"] = sorted(reveals[opp])
        data["my_reveals"] = [{"tile": t, "position": where[t] + 1} for t in reveals[seat]]
        data["their_reveals"] = self._reveals_of(opp)
        data["my_swaps"] = [[a + 1, b + 1] for a, b in self.swaps[seat]]
        data["their_swaps"] = self._swaps_of(opp) if self.show_colours else None
        return data

    # ------------------------------------------------------------------ sampling

    def resample(self, seat: int, rng: random.Random) -> State:
        """A world in which the opponent's secret tiles are redrawn.

        What the seat knows of the opponent's row: the running totals of the play
        phase (against its own tiles as they were placed), the colours when
        ``show_colours`` (and then where each swap went), and every reveal.  The
        opponent's placement is drawn afresh, *which* tiles it placed and where:
        uniformly among those that fit all of that while its swaps are known (none
        yet, or shown); once it has made private swaps, placement and swaps are
        drawn together, uniformly among the histories that fit (see
        :func:`.swapping_sampler._draw_hidden_swaps`).  Every world fits the totals, the colours, the
        reveals and the swap rule; nothing of the real opponent's row but those
        public facts is read, and the world's rows, positions and swaps agree with
        one another.
        """
        return sampler(self.game.id).resample(self, seat, rng)

    def _set_row(self, seat: int, tiles: list[int], swaps: list[tuple[int, int]], redo: bool) -> None:
        """Put ``tiles`` on ``seat``'s first positions (its first row when ``redo``:
        then ``swaps`` are replayed on it) and record ``swaps`` as its swaps."""
        row = tiles + [-1] * (self.tiles - len(tiles))
        if redo:
            for a, b in swaps:
                row[a], row[b] = row[b], row[a]
        where = [-1] * self.tiles
        for p, t in enumerate(row):
            if t >= 0:
                where[t] = p
        self.rows[seat] = row
        self.where[seat] = where
        self.swaps[seat] = swaps


# --------------------------------------------------------------------------- registration
# Named by the entry point in blackwhite's pyproject.toml (group ``blackwhite.games``);
# ``tuning`` is the ``ismcts`` bot's, ``analysis`` the analysis's settings for this game
# (docs/bots.md, docs/analysis.md give the figures they were chosen by).

#: the other seat swapping and revealing by the heuristic from its own view of
#: each world, six steps ahead (the answer to a reveal and its lock, and one more swap
#: and reveal: with the flattened worlds 68.2% of 800 against the heuristic at equal
#: CPU, where four steps won 64.1%), this seat's later
#: moves by the heuristic too (``depth`` 1: from a node of its own they were nearly
#: random), read from the state (``swapping_search.policy``: the view cost more than the
#: choice); the champion and a challenger on the same world (``paired``: unpaired, they
#: were scored on the two halves of the pool); the other seat's hidden row drawn as if
#: it had played the heuristic (``swapping_search.draw_worlds``).  Analysis: played out;
#: its single swaps and reveals need the most worlds (at 6-8 worlds their 5-20 point
#: losses hid under 8-15 points of noise)
ENTRY = GameEntry(
    id="swapping",
    rules="blackwhite.games.swapping:Swapping",
    rules_page="blackwhite:_rules/swapping.md",
    sampler="blackwhite.games.swapping_sampler",
    encoding="blackwhite.games.swapping_encoding:SwappingEncoding",
    heuristic="blackwhite.bots.heuristic.swapping",
    tuning=dict(
        horizon=6, scale=1.5, rollout=1.0, model=1.0, trust=1.0, depth=1, paired=True,
        worlds_by="blackwhite.bots.swapping_search:draw_worlds",
        state_policy="blackwhite.bots.swapping_search:policy",
    ),
    analysis=dict(horizon=None, scale=1.5, worlds=5.0),
    drawer="blackwhite.terminal.draw:draw_swapping",
    twins="tests.twins.swapping",
    page_template="blackwhite.web:templates/games/swapping.html",
    page_script="blackwhite.web:static/games/swapping.js",
    page_style="blackwhite.web:static/games/swapping.css",
    text_drawer="blackwhite.discord_bridge.draw:draw_swapping",
)
