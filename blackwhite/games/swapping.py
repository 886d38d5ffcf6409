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
from bisect import bisect_right
from functools import lru_cache
from itertools import permutations
from typing import Any, ClassVar

from ..engine.core import (
    Action,
    ActionSyntaxError,
    ClockRule,
    Game,
    IllegalActionError,
    OptionError,
    OptionInfo,
    State,
    colour,
    is_int,
)

TILES = 9  # in the standard game; ``SwappingState.tiles`` is the option's count
ROUNDS = 3
#: the counts of tiles the option ``tiles`` allows: whole play rounds of three
TILE_COUNTS = (3, 6, 9)
MAX_TIES = 3

_TIES_TEXT = {1: "a tie", 2: "two ties in a row", 3: "three ties in a row"}

PLAY, SWAP, REVEAL, OVER = "play", "swap", "reveal", "over"

# Every `place` action for a set of unused tiles, built once: the play phase lists
# up to 504 of them, and bots ask for them constantly.
_PLACE_CACHE: dict[tuple[int, ...], tuple[Action, ...]] = {}


def _places(free: tuple[int, ...]) -> tuple[Action, ...]:
    actions = _PLACE_CACHE.get(free)
    if actions is None:
        actions = tuple(("place", a, b, c) for a, b, c in permutations(free, 3))
        _PLACE_CACHE[free] = actions
    return actions


class Swapping(Game):
    id = "swapping"
    title = "Swapping Black & White"
    num_seats = 2
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


class SwappingState(State):
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
        self.phase = PLAY
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
        # A lone swapper still acts in secret, but nobody else is waited for.
        return self.phase != OVER and len(self.awaited()) > 1

    def _can_swap(self, seat: int) -> bool:
        shown = self.shown[seat]
        black = white = False
        for t in range(self.tiles):
            if not shown[t]:
                if t & 1:
                    white = True
                else:
                    black = True
        return black and white

    def _enter_swap_step(self) -> None:
        self.swappers = tuple(s for s in (0, 1) if self._can_swap(s))
        if self.swappers:
            self.phase = SWAP
        else:
            self.phase = REVEAL
            if self.track:
                self.note(None, f"Step {self.step + 1}: neither seat can swap; both pass.")

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_move():
            return []
        if self.phase == PLAY:
            where = self.where[seat]
            return list(_places(tuple(t for t in range(self.tiles) if where[t] < 0)))
        hidden = [t for t in range(self.tiles) if not self.shown[seat][t]]
        if self.phase == SWAP:
            blacks = [t for t in hidden if not t & 1]
            whites = [t for t in hidden if t & 1]
            return [("swap", b, w) for b in blacks for w in whites]
        return [("reveal", t) for t in hidden]

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
        for seat in (0, 1):
            t = actions[seat][1]
            self.shown[seat][t] = True
            self.reveals[seat].append(t)
            if self.track:
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

    def _public_row(self, seat: int) -> list[dict[str, Any] | None]:
        """``seat``'s row as others see it: revealed tiles (every tile at the end), and
        colours when ``show_colours``."""
        end = self.phase == OVER
        row: list[dict[str, Any] | None] = []
        for p in range(self.tiles):
            t = self.rows[seat][p]
            if t < 0:
                row.append(None)
            elif self.shown[seat][t] or end:
                row.append({"tile": t, "colour": colour(t), "revealed": True})
            elif self.show_colours:
                row.append({"tile": None, "colour": colour(t), "revealed": False})
            else:
                row.append({"tile": None, "colour": None, "revealed": False})
        return row

    def _swaps_of(self, seat: int) -> list[list[int]]:
        return [[a + 1, b + 1] for a, b in self.swaps[seat]]

    def _reveals_of(self, seat: int) -> list[dict[str, int]]:
        return [{"tile": t, "position": self.where[seat][t] + 1} for t in self.reveals[seat]]

    def _view(self, seat: int | None) -> dict[str, Any]:
        """Positions in ``*_swaps`` and ``*reveals`` are 1-based, as announced; rows
        are lists indexed from 0 (position 1 is index 0)."""
        data: dict[str, Any] = {
            "phase": self.phase,
            "game_no": self.game_no,
            "ties": self.ties,
            "past_games": [list(p) for p in self.past],
            "play_round": self.round,
            "swap_step": self.step,
            "totals": [list(t) for t in self.totals],
            "show_colours": self.show_colours,
            "swappers": list(self.swappers) if self.phase == SWAP else [],
        }
        if seat is None:  # a spectator: both rows as the seats see each other's
            data["rows"] = [self._public_row(0), self._public_row(1)]
            data["revealed"] = [sorted(self.reveals[0]), sorted(self.reveals[1])]
            data["reveals"] = [self._reveals_of(0), self._reveals_of(1)]
            data["swaps"] = [self._swaps_of(0), self._swaps_of(1)] if self.show_colours else None
            return data
        opp = 1 - seat
        mine: list[dict[str, Any] | None] = []
        for p in range(self.tiles):
            t = self.rows[seat][p]
            mine.append(None if t < 0 else {"tile": t, "revealed": self.shown[seat][t]})
        data.update(
            {
                "my_row": mine,
                "their_row": self._public_row(opp),
                "my_unplaced": [t for t in range(self.tiles) if self.where[seat][t] < 0],
                "their_revealed": sorted(self.reveals[opp]),
                "my_reveals": self._reveals_of(seat),
                "their_reveals": self._reveals_of(opp),
                "my_swaps": self._swaps_of(seat),
                "their_swaps": self._swaps_of(opp) if self.show_colours else None,
            }
        )
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
        :func:`_draw_hidden_swaps`).  Every world fits the totals, the colours, the
        reveals and the swap rule; nothing of the real opponent's row but those
        public facts is read, and the world's rows, positions and swaps agree with
        one another.
        """
        copy = self.clone(track=False)
        assert isinstance(copy, SwappingState)
        copy.pending = {s: a for s, a in copy.pending.items() if s == seat}
        if self.phase == OVER:
            return copy  # every tile is face up
        opp = 1 - seat
        placed = 3 * self.round if self.phase == PLAY else self.tiles
        if placed == 0:
            return copy
        mine = _undo(self.rows[seat], self.swaps[seat])
        incs = _increments(self.totals, seat)
        swaps_known = self.show_colours or not self.swaps[opp]
        if swaps_known:
            # the opponent's first row is its row now with its (public) swaps undone
            first = _undo(self.rows[opp], self.swaps[opp])
            colours = tuple(first[q] & 1 if self.show_colours else -1 for q in range(placed))
            fixed = [-1] * placed
            for t in self.reveals[opp]:
                fixed[_back(self.where[opp][t], self.swaps[opp])] = t
            table = _placements(tuple(mine[:placed]), incs, colours, tuple(fixed), self.tiles)
            drawn = table.draw(rng)
            if drawn is None:  # cannot happen for a reachable state; stay leak-free anyway
                drawn = _shuffled_rest(self, opp, placed, rng)
                copy._set_row(opp, drawn, list(self.swaps[opp]), redo=False)
            else:
                copy._set_row(opp, drawn, list(self.swaps[opp]), redo=True)
            return copy
        row, swaps = _draw_hidden_swaps(self, opp, tuple(mine), incs, rng)
        copy._set_row(opp, row, swaps, redo=False)
        return copy

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


# ---------------------------------------------------------------------------- worlds
#
# Helpers of ``resample``: they read only what the sampling seat knows.


def _undo(row: list[int], swaps: list[tuple[int, int]]) -> list[int]:
    """The row as it was before ``swaps`` (positions exchanged, in reverse order)."""
    first = row[:]
    for a, b in reversed(swaps):
        first[a], first[b] = first[b], first[a]
    return first


def _back(position: int, swaps: list[tuple[int, int]]) -> int:
    """Where the tile now at ``position`` stood before ``swaps``."""
    for a, b in reversed(swaps):
        if position == a:
            position = b
        elif position == b:
            position = a
    return position


def _increments(totals: list[tuple[int, int]], seat: int) -> tuple[tuple[int, int], ...]:
    """Per play round: (positions ``seat`` won, positions its opponent won) in it."""
    out = []
    prev = (0, 0)
    for t in totals:
        out.append((t[seat] - prev[seat], t[1 - seat] - prev[1 - seat]))
        prev = t
    return tuple(out)


class _PlacementTable:
    """Every placement of the opponent that fits what the seat knows, counted so that
    one can be drawn uniformly.  Per round, the fitting triples grouped by their set of
    tiles (a bit mask); per round and set of tiles used before it, the sets still open,
    each weighed by its triples times the ways to complete the later rounds after it
    (cumulated, for a draw by bisection).  Built whole in ``__init__`` and read-only
    after, so threads may share it."""

    def __init__(self, rounds: list[dict[int, list[tuple[int, int, int]]]]) -> None:
        self.rounds = rounds
        #: (round, tiles used before it) -> (cumulated weights, the tile sets they weigh)
        self.choices: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
        self.total = self._count(0, 0)

    def _count(self, k: int, used: int) -> int:
        if k == len(self.rounds):
            return 1
        found = self.choices.get((k, used))
        if found is not None:
            return found[0][-1] if found[0] else 0
        cum: list[int] = []
        masks: list[int] = []
        total = 0
        for mask, triples in self.rounds[k].items():
            if not used & mask:
                ways = len(triples) * self._count(k + 1, used | mask)
                if ways:
                    total += ways
                    cum.append(total)
                    masks.append(mask)
        self.choices[(k, used)] = (cum, masks)
        return total

    def draw(self, rng: random.Random) -> list[int] | None:
        """One placement, uniformly among all that fit (``None`` if none does)."""
        if not self.total:
            return None
        used = 0
        out: list[int] = []
        for k, groups in enumerate(self.rounds):
            cum, masks = self.choices[(k, used)]
            mask = masks[bisect_right(cum, rng.randrange(cum[-1]))]
            triples = groups[mask]
            out += triples[rng.randrange(len(triples))]
            used |= mask
        return out


@lru_cache(maxsize=512)
def _placements(
    mine: tuple[int, ...],
    incs: tuple[tuple[int, int], ...],
    colours: tuple[int, ...],
    fixed: tuple[int, ...],
    tiles: int = TILES,
) -> _PlacementTable:
    """The table for one state of knowledge: the seat's tiles as placed, the round
    results, colours (-1 unknown) and revealed tiles (-1 unknown) per first position.
    Cached: a search asks for the same one many times (thread-safe; read-only)."""
    rounds: list[dict[int, list[tuple[int, int, int]]]] = []
    for k, (won, lost) in enumerate(incs):
        # per position of the round: (tile, +1 the seat wins / -1 loses / 0) allowed there
        cells = []
        for q in range(3 * k, 3 * k + 3):
            allowed = []
            for x in range(tiles):
                if (fixed[q] >= 0 and x != fixed[q]) or (colours[q] >= 0 and x & 1 != colours[q]):
                    continue
                allowed.append((x, (mine[q] > x) - (x > mine[q])))
            cells.append(allowed)
        groups: dict[int, list[tuple[int, int, int]]] = {}
        for a, ra in cells[0]:
            for b, rb in cells[1]:
                if b == a:
                    continue
                for c, rc in cells[2]:
                    if c == a or c == b:
                        continue
                    w = (ra > 0) + (rb > 0) + (rc > 0)
                    if w == won and (ra < 0) + (rb < 0) + (rc < 0) == lost:
                        groups.setdefault((1 << a) | (1 << b) | (1 << c), []).append((a, b, c))
        rounds.append(groups)
    return _PlacementTable(rounds)


def _shuffled_rest(state: SwappingState, opp: int, placed: int, rng: random.Random) -> list[int]:
    """A last resort that reads nothing secret: the opponent's revealed tiles where they
    are, the other positions filled with a random draw of its unrevealed tiles."""
    row = [-1] * placed
    for t in state.reveals[opp]:
        row[state.where[opp][t]] = t
    rest = sorted(t for t in range(state.tiles) if t not in state.reveals[opp])
    rng.shuffle(rest)
    return [t if t >= 0 else rest.pop() for t in row]


class _SwapChains:
    """The opponent's private swaps, counted backwards from what was shown.

    Before its swap of step ``j`` a seat may exchange any black with any white tile
    it has not revealed yet (``reveals[:j]`` are out), and after it ``reveals[j]``
    must stand at ``targets[j]``, where it was shown and stays.  Whether a sequence
    of swaps fits depends only on which tiles stand at the target positions of the
    reveals still to come: a swap of tiles ``b`` and ``w`` relabels those tiles and
    leaves the rest alone.  ``count(j, y)`` is the number of swap sequences from
    step ``j`` on that fit, ``y`` being the tiles now at ``targets[j:]``; swaps that
    touch none of ``y`` are counted together, so few states are ever visited.
    Memoised lazily (counts, step choices, :func:`_origins`' tables): every entry is
    a pure function of its key, so threads sharing it at worst compute one twice."""

    def __init__(
        self, reveals: tuple[int, ...], targets: tuple[int, ...], count: int, tiles: int = TILES
    ) -> None:
        self.tiles = tiles
        self.reveals = reveals
        self.targets = targets
        self.made = count  # swaps made (one per step the seat could swap: public)
        self.pools: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for j in range(count):
            gone = set(reveals[:j])
            self.pools.append(
                (
                    tuple(t for t in range(0, tiles, 2) if t not in gone),
                    tuple(t for t in range(1, tiles, 2) if t not in gone),
                )
            )
        self._memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self._steps: dict[
            tuple[int, tuple[int, ...]], tuple[list[int], list[tuple[int, int, int, tuple[int, ...]]]]
        ] = {}
        #: (the seat's first row, round results) -> :func:`_origins`' table
        self.origins: dict[
            tuple[tuple[int, ...], tuple[tuple[int, int], ...]], tuple[list[int], list[list[bytes]]]
        ] = {}

    def moves(self, j: int, y: tuple[int, ...]) -> list[tuple[int, int, int, tuple[int, ...]]]:
        """The swaps of step ``j`` that can still fit, grouped: (``b``, ``w``, how
        many pairs, the next ``y``).  ``b == w == -1`` stands for every pair of
        tiles that touches none of ``y`` (then the next ``y`` is ``y[1:]``)."""
        blacks, whites = self.pools[j]
        if j >= len(self.reveals):  # a swap whose reveal is still to come: any pair
            return [(-1, -1, len(blacks) * len(whites), y)]
        r, y0 = self.reveals[j], y[0]
        if y0 != r:  # the one swap that brings r to its position
            if (y0 ^ r) & 1 == 0 or y0 not in blacks + whites or r not in blacks + whites:
                return []
            b, w = (y0, r) if y0 % 2 == 0 else (r, y0)
            return [(b, w, 1, tuple(r if x == y0 else y0 if x == r else x for x in y[1:]))]
        out: list[tuple[int, int, int, tuple[int, ...]]] = []
        seen = set(y)
        free_b = sum(1 for b in blacks if b not in seen)
        free_w = sum(1 for w in whites if w not in seen)
        if free_b and free_w:
            out.append((-1, -1, free_b * free_w, y[1:]))
        for b in blacks:
            for w in whites:
                if r in (b, w) or (b not in seen and w not in seen):
                    continue
                out.append((b, w, 1, tuple(w if x == b else b if x == w else x for x in y[1:])))
        return out

    def count(self, j: int, y: tuple[int, ...]) -> int:
        key = (j, y)
        found = self._memo.get(key)
        if found is not None:
            return found
        if j == self.made:  # reveals after the last swap: those tiles never moved
            total = int(y == self.reveals[j:])
        else:
            total = sum(n * self.count(j + 1, nxt) for _, _, n, nxt in self.moves(j, y))
        self._memo[key] = total
        return total

    def _choices(
        self, j: int, y: tuple[int, ...]
    ) -> tuple[list[int], list[tuple[int, int, int, tuple[int, ...]]]]:
        """The moves of step ``j`` from ``y`` that lead on, with cumulated weights
        (the sequences each leads to), memoised like ``count``."""
        found = self._steps.get((j, y))
        if found is None:
            cum: list[int] = []
            options = []
            total = 0
            for move in self.moves(j, y):
                weight = move[2] * self.count(j + 1, move[3])
                if weight:
                    total += weight
                    cum.append(total)
                    options.append(move)
            found = (cum, options)
            self._steps[(j, y)] = found
        return found

    def bound(self) -> int:
        """A ceiling on ``count(0, y)`` for any ``y``: per step, the pairs that leave
        the tile revealed after it alone (or the one pair that brings it in)."""
        out = 1
        for j, (blacks, whites) in enumerate(self.pools):
            n = len(blacks) * len(whites)
            if j < len(self.reveals):
                n -= len(whites) if self.reveals[j] % 2 == 0 else len(blacks)
            out *= max(n, 1)
        return out

    def draw(self, first: list[int], rng: random.Random) -> list[tuple[int, int]]:
        """Swaps from the first row ``first`` (whose chains must count > 0), each step
        drawn in proportion to the sequences it leads to: uniform over those that fit."""
        row = first[:]
        where = [0] * self.tiles
        for p, t in enumerate(row):
            where[t] = p
        swaps: list[tuple[int, int]] = []
        for j in range(self.made):
            y = tuple(row[q] for q in self.targets[j:])
            cum, options = self._choices(j, y)
            b, w, _, _ = options[bisect_right(cum, rng.randrange(cum[-1]))]
            if b < 0:  # one pair, uniformly, among those touching none of y
                seen = set(y)
                blacks, whites = self.pools[j]
                fb = [t for t in blacks if t not in seen]
                fw = [t for t in whites if t not in seen]
                b, w = fb[rng.randrange(len(fb))], fw[rng.randrange(len(fw))]
            pb, pw = where[b], where[w]
            row[pb], row[pw] = w, b
            where[b], where[w] = pw, pb
            swaps.append((pb, pw))
        return swaps


@lru_cache(maxsize=32)
def _chains(
    reveals: tuple[int, ...], targets: tuple[int, ...], count: int, tiles: int = TILES
) -> _SwapChains:
    return _SwapChains(reveals, targets, count, tiles)


def _origins(
    mine: tuple[int, ...], incs: tuple[tuple[int, int], ...], chains: _SwapChains
) -> tuple[list[int], list[list[bytes]]]:
    """Every first row that fits the totals, grouped by the tiles it holds at the
    reveals' positions, each group weighed by its rows times the swap sequences
    that fit from it (cumulated, for a draw by bisection; rows packed as bytes):
    the exact law of the first row.  Built once per state of knowledge and kept on
    ``chains``."""
    key = (mine, incs)
    found = chains.origins.get(key)
    if found is not None:
        return found
    n = chains.tiles
    table = _placements(mine, incs, (-1,) * n, (-1,) * n, n)
    rows: dict[tuple[int, ...], list[bytes]] = {}
    targets = chains.targets

    def walk(k: int, used: int, row: list[int]) -> None:
        if k == len(table.rounds):
            rows.setdefault(tuple(row[q] for q in targets), []).append(bytes(row))
            return
        for mask in table.choices[(k, used)][1]:
            for triple in table.rounds[k][mask]:
                walk(k + 1, used | mask, row + list(triple))

    if table.total:
        walk(0, 0, [])
    cum: list[int] = []
    groups: list[list[bytes]] = []
    total = 0
    for o, group in rows.items():
        weight = len(group) * chains.count(0, o)
        if weight:
            total += weight
            cum.append(total)
            groups.append(group)
    chains.origins[key] = (cum, groups)
    return cum, groups


#: uniform first rows the quick forward draw weighs (only while at most
#: ``_FORWARD_REVEALS`` tiles are revealed: later it keeps too few), then whole
#: histories the quick backward draw tries, before a draw turns to the exact table
_FORWARD_TRIES = 8
_FORWARD_REVEALS = 2
_BACKWARD_TRIES = 300
#: first rows the totals must allow for the backward draw to be tried: it keeps
#: about that many in 9! (362880) histories, while the exact table costs about as
#: much to build as it has rows, so with fewer the table is the cheaper way
_BACKWARD_MIN_ROWS = 7000


def _draw_hidden_swaps(
    state: SwappingState,
    opp: int,
    mine: tuple[int, ...],
    incs: tuple[tuple[int, int], ...],
    rng: random.Random,
) -> tuple[list[int], list[tuple[int, int]]]:
    """The opponent's row now and its swaps, when the swaps were private.

    Drawn uniformly among every history that fits what the seat was told: a first
    row that fits the totals, then one swap per swap step of one black and one white
    tile not yet revealed, bringing each revealed tile to where it was shown.  Three
    exact draws, cheapest first, each kept only if it fits (so the mix is exact too):

    - forward (while few tiles are revealed): a first row drawn uniformly from the
      totals' table, kept with probability the number of swap sequences that fit
      from it (which depends only on the tiles it holds at the reveals' positions:
      :class:`_SwapChains`) over a ceiling;
    - backward (when the totals allow many first rows): the unrevealed tiles
      shuffled over the unrevealed positions, then each swap undone with a random
      pair of the tiles it could have been made of, latest first (every history
      that fits the reveals equally likely), kept if its first row fits the totals;
    - exact, when both miss: every first row of the totals' table weighed by its
      swap sequences (:func:`_origins`), built once per state of knowledge (up to
      about half a second late in the swap phase) and cached.

    The swaps are then drawn in proportion to the sequences each leads to.  Which
    draws are tried depends only on what the seat knows, never on what is cached,
    so a world is a function of that and the rng.  The true history fits, so a
    world always exists; none that misses the totals, the reveals or the swap rule
    is ever returned.
    """
    reveals = tuple(state.reveals[opp])
    targets = tuple(state.where[opp][t] for t in reveals)
    chains = _chains(reveals, targets, len(state.swaps[opp]), state.tiles)
    # the same draws are tried whatever is cached, so that a world is a function of
    # what the seat knows and the rng alone
    found = _draw_quick(chains, mine, incs, rng)
    if found is not None:
        return found
    exact = _origins(mine, incs, chains)
    cum, groups = exact
    if not cum:  # cannot happen for a reachable state: the true history fits
        raise ValueError(
            f"no history of P{opp + 1} fits totals {state.totals} and reveals {list(reveals)}"
        )
    group = groups[bisect_right(cum, rng.randrange(cum[-1]))]
    first = list(group[rng.randrange(len(group))])
    swaps = chains.draw(first, rng)
    return _replay(first, swaps), swaps


def _draw_quick(
    chains: _SwapChains,
    mine: tuple[int, ...],
    incs: tuple[tuple[int, int], ...],
    rng: random.Random,
) -> tuple[list[int], list[tuple[int, int]]] | None:
    """The forward then the backward rejection draw of :func:`_draw_hidden_swaps`
    (``None`` when every try missed)."""
    n = chains.tiles
    table = _placements(mine, incs, (-1,) * n, (-1,) * n, n)
    targets = chains.targets
    ceiling = chains.bound()
    for _ in range(_FORWARD_TRIES if len(chains.reveals) <= _FORWARD_REVEALS else 0):
        first = table.draw(rng)
        if first is None:
            return None
        weight = chains.count(0, tuple(first[q] for q in targets))
        if weight and rng.randrange(ceiling) < weight:
            swaps = chains.draw(first, rng)
            return _replay(first, swaps), swaps
    if table.total < _BACKWARD_MIN_ROWS:
        return None
    fixed = dict(zip(targets, chains.reveals))
    rest_positions = [p for p in range(n) if p not in fixed]
    hidden = [t for t in range(n) if t not in chains.reveals]
    pools = [(b, len(b), w, len(w)) for b, w in reversed(chains.pools)]
    rounds = [(3 * k, won, lost) for k, (won, lost) in enumerate(incs)]
    rand = rng.random
    start = [-1] * n
    for p, t in fixed.items():
        start[p] = t
    for _ in range(_BACKWARD_TRIES):
        row = start[:]
        rng.shuffle(hidden)
        for p, t in zip(rest_positions, hidden):
            row[p] = t
        now = row[:]
        where = [0] * n
        for p, t in enumerate(row):
            where[t] = p
        back: list[tuple[int, int]] = []
        for blacks, nb, whites, nw in pools:
            b = blacks[int(rand() * nb)]
            w = whites[int(rand() * nw)]
            pb, pw = where[b], where[w]
            row[pb], row[pw] = w, b
            where[b], where[w] = pw, pb
            back.append((pw, pb))  # before this swap b stood at pw, w at pb
        fits = True
        for base, won, lost in rounds:
            wins = losses = 0
            for q in range(base, base + 3):
                if mine[q] > row[q]:
                    wins += 1
                elif row[q] > mine[q]:
                    losses += 1
            if wins != won or losses != lost:
                fits = False
                break
        if fits:
            return now, back[::-1]
    return None


def _replay(first: list[int], swaps: list[tuple[int, int]]) -> list[int]:
    row = first[:]
    for a, b in swaps:
        row[a], row[b] = row[b], row[a]
    return row
