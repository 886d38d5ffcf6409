"""Swapping Black & White (RULES.md section 1).

Each seat lays its tiles 0..8 face down on positions 1..9 in three secret rounds,
then nine steps of (secret swap of one black and one white tile, simultaneous reveal
of one tile).  A tied game is replayed; three ties in a row go to the DMO.

Positions are 0-based inside the engine (position 1 is index 0).
"""

from __future__ import annotations

import random
import re
from itertools import permutations
from typing import Any

from ..engine.core import (
    Action,
    ClockRule,
    ActionSyntaxError,
    Game,
    IllegalActionError,
    OptionError,
    State,
)

TILES = 9
ROUNDS = 3
MAX_TIES = 3

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


def colour(tile: int) -> str:
    return "black" if tile % 2 == 0 else "white"


class Swapping(Game):
    id = "swapping"
    title = "Swapping Black & White"
    num_seats = 2
    option_defaults = {"show_colours": False}
    clock = ClockRule({"play": 180.0, "swap": 120.0}, reserve=300.0, on_timeout="the seat loses")

    def validate_options(self, options: dict[str, Any]) -> None:
        if not isinstance(options["show_colours"], bool):
            raise OptionError("option show_colours must be true or false")

    def new_initial_state(self) -> SwappingState:
        return SwappingState(self)


class SwappingState(State):
    game: Swapping
    scores_public = False  # only running totals of the play phase are announced

    def __init__(self, game: Swapping) -> None:
        super().__init__(game)
        self.show_colours: bool = game.options["show_colours"]
        self.ties = 0  # tied games in a row so far
        self.game_no = 1
        self.past: list[tuple[int, int]] = []  # scores of finished (tied) games
        self._new_game()

    def _new_game(self) -> None:
        # rows[s][p]: tile at position p (-1 empty); where[s][t]: position of tile t (-1 unplaced)
        self.rows = [[-1] * TILES, [-1] * TILES]
        self.where = [[-1] * TILES, [-1] * TILES]
        self.shown = [[False] * TILES, [False] * TILES]  # by tile
        self.phase = PLAY
        self.round = 0  # play round 0..2
        self.step = 0  # swap step 0..8
        self.totals: list[tuple[int, int]] = []  # running totals announced after each play round
        self.swappers: tuple[int, ...] = ()
        self.final: tuple[int, int] | None = None
        self.won_by: int | None = None

    def _copy_state(self, new: State) -> None:
        assert isinstance(new, SwappingState)
        new.rows = [self.rows[0][:], self.rows[1][:]]
        new.where = [self.where[0][:], self.where[1][:]]
        new.shown = [self.shown[0][:], self.shown[1][:]]
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
        for t in range(TILES):
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
            return list(_places(tuple(t for t in range(TILES) if where[t] < 0)))
        hidden = [t for t in range(TILES) if not self.shown[seat][t]]
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
                hidden = [str(x) for x in range(TILES) if not self.shown[seat][x]]
                raise IllegalActionError(
                    text, f"tile {t} is already revealed; unrevealed: {' '.join(hidden)}"
                )

    def _phase_hint(self, where: str) -> str:
        need = {PLAY: "place A B C", SWAP: "swap BLACK WHITE", REVEAL: "reveal TILE"}[self.phase]
        return f"the game is at {where}: the action needed is `{need}`"

    def _free_text(self, seat: int) -> str:
        return " ".join(str(t) for t in range(TILES) if self.where[seat][t] < 0)

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
        if self.round == ROUNDS:
            self.step = 0
            self._enter_swap_step()

    def _resolve_swaps(self, actions: dict[int, Action]) -> None:
        for seat, action in actions.items():
            a, b = action[1], action[2]
            row, where = self.rows[seat], self.where[seat]
            pa, pb = where[a], where[b]
            row[pa], row[pb] = b, a
            where[a], where[b] = pb, pa
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
            if self.track:
                self.note(None, f"P{seat + 1} reveals {t} at position {self.where[seat][t] + 1}.")
        self.step += 1
        if self.step < TILES:
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
        final = self._compare(TILES)
        self.final = final
        if final[0] != final[1]:
            self.won_by = 0 if final[0] > final[1] else 1
            self.phase = OVER
            if self.track:
                self.note(None, f"Game {self.game_no}: P1 {final[0]} - P2 {final[1]}; P{self.won_by + 1} wins.")
            return
        self.ties += 1
        self.past.append(final)
        if self.ties >= MAX_TIES:
            self.won_by = self.game.dmo
            self.phase = OVER
            if self.track:
                self.note(
                    None,
                    f"Game {self.game_no} tied {final[0]}-{final[1]}: three ties in a row, "
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
        return self._compare(TILES)

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
        bad = [n for n in nums if n >= TILES]
        if bad:
            raise ActionSyntaxError(text, f"there is no tile {bad[0]}; tiles are 0..8")
        if verb == "swap":
            a, b = nums
            if a & 1 and not b & 1:  # canonical order: black first
                a, b = b, a
            return ("swap", a, b)
        return (verb, *nums)

    def format_action(self, action: Action) -> str:
        return " ".join(str(x) for x in action)

    # ------------------------------------------------------------------ views

    def _view(self, seat: int) -> dict[str, Any]:  # type: ignore[override]  # public view (seat None) to come
        opp = 1 - seat
        end = self.phase == OVER
        mine: list[dict[str, Any] | None] = []
        for p in range(TILES):
            t = self.rows[seat][p]
            mine.append(None if t < 0 else {"tile": t, "revealed": self.shown[seat][t]})
        theirs: list[dict[str, Any] | None] = []
        for p in range(TILES):
            t = self.rows[opp][p]
            if t < 0:
                theirs.append(None)
            elif self.shown[opp][t] or end:
                theirs.append({"tile": t, "colour": colour(t), "revealed": True})
            elif self.show_colours:
                theirs.append({"tile": None, "colour": colour(t), "revealed": False})
            else:
                theirs.append({"tile": None, "colour": None, "revealed": False})
        return {
            "phase": self.phase,
            "game_no": self.game_no,
            "ties": self.ties,
            "past_games": [list(p) for p in self.past],
            "play_round": self.round,
            "swap_step": self.step,
            "totals": [list(t) for t in self.totals],
            "show_colours": self.show_colours,
            "my_row": mine,
            "their_row": theirs,
            "my_unplaced": [t for t in range(TILES) if self.where[seat][t] < 0],
            "their_revealed": sorted(t for t in range(TILES) if self.shown[opp][t]),
            "swappers": list(self.swappers) if self.phase == SWAP else [],
        }

    # ------------------------------------------------------------------ sampling

    def resample(self, seat: int, rng: random.Random) -> State:
        """Redraw the opponent's unrevealed tiles over its unrevealed positions.

        Kept consistent with: revealed tiles, colours when ``show_colours``, and the
        running totals of the play phase (by rejection, falling back to the last
        draw if none fits after a bounded number of tries).  The opponent's swaps
        were private, so any arrangement of its hidden tiles is possible.
        """
        copy = self.clone(track=False)
        assert isinstance(copy, SwappingState)
        copy.pending = {s: a for s, a in copy.pending.items() if s == seat}
        opp = 1 - seat
        row = copy.rows[opp]
        spots = [p for p in range(TILES) if row[p] >= 0 and not copy.shown[opp][row[p]]]
        hidden = sorted(row[p] for p in spots)
        unplaced = [t for t in range(TILES) if copy.where[opp][t] < 0]
        if not spots:
            return copy
        by_colour = self.show_colours
        for _ in range(200):
            if by_colour:
                blacks = [t for t in hidden if t % 2 == 0]
                whites = [t for t in hidden if t % 2 == 1]
                rng.shuffle(blacks)
                rng.shuffle(whites)
                # colours seen at each spot are public
                draw = [blacks.pop() if self.rows[opp][p] % 2 == 0 else whites.pop() for p in spots]
            else:
                draw = hidden[:]
                rng.shuffle(draw)
            for p, t in zip(spots, draw):
                row[p] = t
                copy.where[opp][t] = p
            for t in unplaced:
                copy.where[opp][t] = -1
            if copy._totals_fit():
                break
        return copy

    def _totals_fit(self) -> bool:
        # Only play-phase totals constrain, and only while no swap has happened:
        # after swaps the arrangement has changed and the totals describe the old one.
        if self.phase != PLAY:
            return True
        for r, total in enumerate(self.totals):
            if self._compare(3 * (r + 1)) != total:
                return False
        return True
