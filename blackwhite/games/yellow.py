"""Black and Yellow (docs/rules/yellow.md): three seats, one secret submission a round.

Everything a seat owns is public; the only secret is the submission being made in
the current round, which the core keeps in ``pending`` until all three are in.
A submission is a sequence of ``boost`` / ``exchange`` steps ending in ``play N``;
the engine stores it as ``("sub", steps, n)`` where ``steps`` is a string of
``b`` (boost) and ``x`` (exchange).  Every submission is announced once the round
resolves, and the views carry them as data (``submissions``), so the public view
(seat ``None``) is every seat's view: nothing else is secret.  The options ``rounds``
and ``target`` shorten the game (fewer rounds, fewer points to win at once): a
small variant with the same rules.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Any, ClassVar, Collection, Mapping

from ..engine.core import (
    Action, ActionSyntaxError, ClockRule, Game, IllegalActionError, OptionError, OptionInfo, Result,
    State, is_int
)
from ..engine.registry import GameEntry
from ..views.yellow import StepWord, YellowPart, YellowView

VALUES = 9
WIN_POINTS = 9
MAX_ROUNDS = 50
BOOST_COST = 3


def outcome(mine: int, a: int, b: int) -> tuple[int, int]:
    """The scoring rule: (points, yellow gain) of a seat that plays ``mine`` while the
    two others play ``a`` and ``b``.  Strictly highest of three different numbers:
    a point; middle: the gap to the highest; lowest: the gap to the middle.  Two
    highest tied: the lowest gains the gap; two lowest tied: the highest scores."""
    h, m, low = sorted((mine, a, b), reverse=True)
    if h > m > low:
        if mine == h:
            return 1, 0
        return (0, h - m) if mine == m else (0, m - low)
    if h == m > low:
        return (0, m - low) if mine == low else (0, 0)
    if h > m == low:
        return (1, 0) if mine == h else (0, 0)
    return 0, 0


def submissions(tiles: Collection[int], yellow: int, garnets: int) -> list[Action]:
    """One submission per distinct outcome (final yellow, garnets, tiles gained, play) for
    a seat holding ``tiles`` (the values it has at least one of) with that yellow and
    garnets: the seat's legal actions when it is to move, and what another seat could
    submit, for a bot that models it from the public view."""
    out: list[Action] = []
    seen: set[tuple[int, int, tuple[int, ...]]] = set()
    stack: list[tuple[str, int, int, tuple[int, ...]]] = [("", yellow, garnets, ())]
    while stack:
        steps, y, g, gained = stack.pop()
        key = (y, g, gained)
        if key in seen:
            continue
        seen.add(key)
        for n in range(VALUES):
            if n in tiles or n in gained:
                out.append(("sub", steps, n))
        if y > 0:
            stack.append((steps + "x", 0, g, tuple(sorted(gained + (y,)))))
        if g >= BOOST_COST:
            stack.append((steps + "b", (y + 1) % VALUES, g - BOOST_COST, gained))
    return out


@lru_cache(maxsize=65536)
def _offer(inv: tuple[int, ...], yellow: int, garnets: int) -> tuple[Action, ...]:
    """:func:`submissions` of a seat with the tile counts ``inv``, remembered: the same
    few inventories, yellows and garnets come back round after round and match after
    match, and listing them is most of a random step's cost."""
    return tuple(submissions({n for n in range(VALUES) if inv[n]}, yellow, garnets))


def _round_table(plays: tuple[int, int, int]) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """What the scoring rule gives for one round's three plays: the seats that score a
    point, in seat order, and the (seat, yellow gain) of each seat that gains, from the
    higher play down (ties in seat order: the announcements' order)."""
    won = [outcome(plays[s], plays[(s + 1) % 3], plays[(s + 2) % 3]) for s in range(3)]
    points = tuple(s for s in range(3) if won[s][0])
    gains = tuple((s, won[s][1]) for s in sorted(range(3), key=lambda s: -plays[s]) if won[s][1])
    return points, gains


#: :func:`_round_table` of every three plays, by ``81 * p0 + 9 * p1 + p2``
_ROUNDS = [_round_table((a, b, c)) for a in range(VALUES) for b in range(VALUES) for c in range(VALUES)]
_SEATS = (0, 1, 2)

#: the most garnets a seat may start with: 15 boosts, more than a full turn of yellow's
#: nine values; more only multiplies the submissions to list (20k at 45 each)
MAX_GARNETS = 45
#: the longest round timer: an hour
MAX_ROUND_SECONDS = 3600

class Yellow(Game):
    id = "yellow"
    small_options: ClassVar[Mapping[str, Any]] = {"rounds": 2, "target": 2}
    variants: ClassVar[tuple[Mapping[str, Any], ...]] = (
        {"garnets": [9, 3, 45]}, {"rounds": 4, "target": 2}, {"rounds": 2, "target": 2, "garnets": [3, 0, 0]},
    )
    title = "Black and Yellow"
    num_seats = 3
    #: what each kind of action does (the pages' buttons and prompt)
    action_help: ClassVar[dict[str, str]] = {
        'play': 'choose the black tile to play this round',
        'exchange': 'boost or exchange before you play',
        'boost': 'boost or exchange before you play',
    }
    option_defaults = {
        "garnets": [0, 0, 0],
        "garnet_priority": [0, 1, 2],
        "round_seconds": 60,
        "rounds": MAX_ROUNDS,
        "target": WIN_POINTS,
    }
    #: the small variant's options (listed by the referee only when given or not at default)
    variant_options: ClassVar[frozenset[str]] = frozenset({"rounds", "target"})
    option_info: ClassVar[dict[str, OptionInfo]] = {
        "garnets": OptionInfo("Starting garnets", "Garnets each seat starts with.", "per_seat",
                              minimum=0, maximum=MAX_GARNETS),
        "garnet_priority": OptionInfo("Last tie-break", "The seat order that breaks a tie nothing else breaks.",
                                      "choice", choices=tuple(
                                          (list(order), ", ".join(f"P{s + 1}" for s in order))
                                          for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)))),
        "round_seconds": OptionInfo("Seconds per round", "How long each seat has to choose, each round.",
                                    "number", minimum=1, maximum=MAX_ROUND_SECONDS),
        "rounds": OptionInfo("Rounds", "The last round (a shorter game plays fewer).", "number",
                             minimum=1, maximum=MAX_ROUNDS),
        "target": OptionInfo("Points that win", "The points that win at once.", "number",
                             minimum=1, maximum=WIN_POINTS),
    }

    def clock_rule(self) -> ClockRule:
        return ClockRule(
            {"round": float(self.options["round_seconds"])},
            on_timeout="the seat plays 0, with no boost or exchange",
        )

    def validate_options(self, options: dict[str, Any]) -> None:
        garnets = options["garnets"]
        if (
            not isinstance(garnets, list)
            or len(garnets) != 3
            or not all(is_int(g) and 0 <= g <= MAX_GARNETS for g in garnets)
        ):
            raise OptionError(
                f"option garnets must be three whole numbers 0..{MAX_GARNETS}, got {garnets!r}"
            )
        prio = options["garnet_priority"]
        # types first: sorting a list that mixes numbers with other JSON values would crash
        if not isinstance(prio, list) or not all(is_int(p) for p in prio) or sorted(prio) != [0, 1, 2]:
            raise OptionError(f"option garnet_priority must be an order of the seats 0, 1, 2, got {prio!r}")
        secs = options["round_seconds"]
        if not is_int(secs) or not 0 < secs <= MAX_ROUND_SECONDS:
            raise OptionError(
                f"option round_seconds must be a whole number 1..{MAX_ROUND_SECONDS}, got {secs!r}"
            )
        rounds = options["rounds"]
        if not is_int(rounds) or not 1 <= rounds <= MAX_ROUNDS:
            raise OptionError(f"option rounds (the last round) must be a whole number 1..{MAX_ROUNDS}, got {rounds!r}")
        target = options["target"]
        if not is_int(target) or not 1 <= target <= WIN_POINTS:
            raise OptionError(
                f"option target (the points that win at once) must be a whole number 1..{WIN_POINTS}, got {target!r}"
            )

    def new_initial_state(self) -> YellowState:
        return YellowState(self)


class YellowState(State[YellowView]):
    game: Yellow

    def __init__(self, game: Yellow) -> None:
        super().__init__(game)
        self.inv = [[1] * VALUES for _ in range(3)]  # counts of each black value
        self.yellow = [0, 0, 0]
        self.points = [0, 0, 0]
        self.garnets = list(game.options["garnets"])
        self.priority: list[int] = list(game.options["garnet_priority"])
        self.max_rounds: int = game.options["rounds"]
        self.target: int = game.options["target"]
        self.round = 0  # rounds completed
        self.last_plays: list[int] | None = None
        self.champion: int | None = None
        #: every round's three submissions, in order; copied on write (a new list per
        #: round), so clones share it safely
        self.submissions: list[tuple[Action, Action, Action]] = []
        #: ``submissions`` as the view shows them, per round and seat (step words, play),
        #: kept beside it (copied on write too) so a view does not spell them out again
        self.shown: list[tuple[tuple[tuple[StepWord, ...], int], ...]] = []

    def resample(self, seat: int, rng: random.Random) -> State:
        """Everything owned is public and every submission is announced: a world hides
        only the other seats' pending submissions."""
        return self.without_others_pending(seat)

    def _copy_state(self, new: State) -> None:
        assert isinstance(new, YellowState)
        new.inv = [row[:] for row in self.inv]
        new.yellow = self.yellow[:]
        new.points = self.points[:]
        new.garnets = self.garnets[:]

    # ------------------------------------------------------------------ steps

    def awaited(self) -> tuple[int, ...]:
        return () if self.is_terminal() else (0, 1, 2)

    def simultaneous(self) -> bool:
        return True

    def legal_actions(self, seat: int) -> list[Action]:
        """One submission per distinct outcome (final yellow, garnets, tiles gained, play).

        Sequences with the same outcome are interchangeable, so bots need only one of them.
        """
        if not self._awaits(seat):
            return []
        return list(self.offer(seat))

    def offer(self, seat: int) -> tuple[Action, ...]:
        """The legal submissions of an awaited ``seat``, as the remembered tuple
        :meth:`legal_actions` copies (the research encoding remembers its codes)."""
        return _offer(tuple(self.inv[seat]), self.yellow[seat], self.garnets[seat])

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """The draw of :meth:`State.random_action` from the remembered offer, without
        copying it into a list."""
        if not self._awaits(seat):
            return super().random_action(seat, rng)
        actions = _offer(tuple(self.inv[seat]), self.yellow[seat], self.garnets[seat])  # offer(), inlined
        return actions[rng.randrange(len(actions))]

    def _awaits(self, seat: int) -> bool:
        """``seat in self.to_move()``, without building the list: every seat is awaited
        every round until the end, less those that have submitted."""
        return (
            self.ended_by is None and self.champion is None and self.round < self.max_rounds
            and seat in _SEATS and seat not in self.pending
        )

    def check(self, seat: int, action: Action) -> None:
        text = self.format_action(action)
        if action[0] != "sub":
            raise IllegalActionError(text, "yellow needs a submission: steps ending in `play N`")
        y, g = self.yellow[seat], self.garnets[seat]
        inv = self.inv[seat][:]
        for i, step in enumerate(action[1]):
            if step == "b":
                if g < BOOST_COST:
                    raise IllegalActionError(
                        text,
                        f"boost {self._nth(action[1], i)} needs {BOOST_COST} garnets; "
                        f"P{seat + 1} has {g} left at that point",
                    )
                g -= BOOST_COST
                y = (y + 1) % VALUES
            else:
                if y == 0:
                    raise IllegalActionError(
                        text, "exchange needs a yellow number above 0; it is 0 at that point"
                    )
                inv[y] += 1
                y = 0
        n = action[2]
        if not inv[n]:
            have = " ".join(str(v) for v in range(VALUES) for _ in range(inv[v]))
            raise IllegalActionError(
                text, f"black {n} is not in P{seat + 1}'s inventory at that point; it holds {have}"
            )

    @staticmethod
    def _nth(steps: str, i: int) -> str:
        k = steps[: i + 1].count("b")
        return f"number {k}"

    # ------------------------------------------------------------------ applying

    def _do(self, seat: int, action: Action) -> None:  # every step is simultaneous
        raise AssertionError("yellow has no turn steps")

    def _submit(self, seat: int, action: Action) -> None:
        """The core's simultaneous step spelled out for yellow (no free actions, all
        three seats awaited every round), since it runs on every step."""
        if self.champion is not None or self.round >= self.max_rounds:
            super()._submit(seat, action)  # over: nothing is awaited; as the core does
            return
        pending = self.pending
        pending[seat] = action
        if 0 in pending and 1 in pending and 2 in pending:
            self.pending = {}
            self._resolve(pending)

    def _resolve(self, actions: dict[int, Action]) -> None:
        plays = [0, 0, 0]
        for seat in range(3):
            _, steps, n = actions[seat]
            y, g, inv = self.yellow[seat], self.garnets[seat], self.inv[seat]
            for step in steps:
                if step == "b":
                    g -= BOOST_COST
                    y = (y + 1) % VALUES
                else:
                    inv[y] += 1
                    y = 0
            self.yellow[seat], self.garnets[seat] = y, g
            plays[seat] = n
        self.round += 1
        self.last_plays = plays
        self.submissions = [*self.submissions, (actions[0], actions[1], actions[2])]
        self.shown = [*self.shown, tuple((_step_words(actions[s][1]), actions[s][2]) for s in range(3))]
        if self.track:
            for seat in range(3):
                self.note(None, f"Round {self.round}: P{seat + 1} submitted {self.format_action(actions[seat])}.")
        # points, then yellow from the higher play down (the announcements' order)
        points, gains = _ROUNDS[81 * plays[0] + 9 * plays[1] + plays[2]]
        for seat in points:
            self._point(seat)
        for seat, gain in gains:
            self._add_yellow(seat, gain)
        # discard: played tiles leave the inventory, except 0
        for seat in range(3):
            n = plays[seat]
            if n:
                self.inv[seat][n] -= 1
        # replenish
        for seat in range(3):
            inv = self.inv[seat]
            if not any(inv[1:]):
                self.inv[seat] = [1] * VALUES
                if self.track:
                    self.note(None, f"P{seat + 1} has only 0 left and takes a fresh 0..8.")
        # end
        for seat in range(3):
            if self.points[seat] >= self.target:
                self.champion = seat
                if self.track:
                    self.note(None, f"P{seat + 1} reaches {self.target} points and wins.")
                return
        if self.round >= self.max_rounds and self.track:
            self.note(None, f"Round {self.max_rounds} is over; the seats are ranked.")

    def _point(self, seat: int) -> None:
        self.points[seat] += 1
        if self.track:
            self.note(None, f"P{seat + 1} scores a point ({self.points[seat]}).")

    def _add_yellow(self, seat: int, amount: int) -> None:
        self.yellow[seat] = (self.yellow[seat] + amount) % VALUES
        if self.track:
            self.note(None, f"P{seat + 1}'s yellow goes up by {amount} to {self.yellow[seat]}.")

    # ------------------------------------------------------------------ results

    def is_terminal(self) -> bool:
        return self.champion is not None or self.round >= self.max_rounds

    def scores(self) -> tuple[int, ...]:
        return tuple(self.points)

    def _key(self, seat: int) -> tuple[int, int, int, int, int]:
        inv = self.inv[seat]
        total = sum(v * inv[v] for v in range(VALUES))
        return (self.points[seat], total, self.yellow[seat], self.garnets[seat], -self.priority.index(seat))

    def _rank(self, seats: list[int]) -> list[int]:
        return sorted(seats, key=self._key, reverse=True)

    def ranking(self) -> tuple[int, ...]:
        if self.champion is not None:
            rest = [s for s in range(3) if s != self.champion]
            return (self.champion, *self._rank(rest))
        return tuple(self._rank([0, 1, 2]))

    def winner(self) -> int | None:
        return self.ranking()[0]

    def loser_result(self, seat: int, reason: str) -> Result:
        rest = self._rank([s for s in range(3) if s != seat])
        ranking = (*rest, seat)
        return Result(True, ranking[0], self.scores(), ranking, reason)

    def timeout_action(self, seat: int) -> Action | None:
        return ("sub", "", 0)

    # ------------------------------------------------------------------ notation

    _WORD = re.compile(r"[\s,;]+")

    def parse_action(self, seat: int, text: str) -> Action:
        words = [w for w in self._WORD.split(text.strip().lower()) if w]
        steps = []
        i = 0
        while i < len(words):
            w = words[i]
            if w == "boost":
                steps.append("b")
            elif w == "exchange":
                steps.append("x")
            elif w == "play":
                if i + 2 != len(words):
                    raise ActionSyntaxError(text, "`play N` must be the last step, with one number")
                arg = words[i + 1]
                if not arg.isdecimal() or int(arg) >= VALUES:
                    raise ActionSyntaxError(text, f"there is no black tile {arg}; tiles are 0..8")
                return ("sub", "".join(steps), int(arg))
            else:
                raise ActionSyntaxError(
                    text, f"unknown step {w!r}; a submission is boost/exchange steps ending in `play N`"
                )
            i += 1
        raise ActionSyntaxError(text, "a submission must end with `play N`")

    def format_action(self, action: Action) -> str:
        words = ["boost" if s == "b" else "exchange" for s in action[1]]
        words.append(f"play {action[2]}")
        return " ".join(words)

    # ------------------------------------------------------------------ views

    def _view(self, seat: int | None) -> YellowPart:
        """The same for every seat and for spectators: all that is owned is public,
        and the one secret (a submission not yet resolved) is never in ``_view``."""
        return {
            "round": self.round,
            "max_rounds": self.max_rounds,
            "target": self.target,  # points that win at once
            "inventories": [list(_tiles(tuple(row))) for row in self.inv],
            "yellow": self.yellow[:],
            "points": self.points[:],
            "garnets": self.garnets[:],
            "garnet_priority": self.priority[:],
            "last_plays": None if self.last_plays is None else self.last_plays[:],
            # per round, per seat: the steps taken (in order) and the black tile played
            "submissions": [
                [{"steps": list(w0), "play": p0}, {"steps": list(w1), "play": p1}, {"steps": list(w2), "play": p2}]
                for (w0, p0), (w1, p1), (w2, p2) in self.shown
            ],
        }


_STEP_WORD: dict[str, StepWord] = {"b": "boost", "x": "exchange"}


@lru_cache(maxsize=1024)
def _step_words(steps: str) -> tuple[StepWord, ...]:
    """``"bx"`` -> ``("boost", "exchange")`` (cached: views list every round's steps)."""
    return tuple(_STEP_WORD[c] for c in steps)


@lru_cache(maxsize=4096)
def _tiles(inv: tuple[int, ...]) -> tuple[int, ...]:
    """The tiles of the counts ``inv``, sorted: ``(1, 0, 2, ...)`` -> ``(0, 2, 2, ...)``."""
    return tuple(v for v in range(VALUES) for _ in range(inv[v]))


# --------------------------------------------------------------------------- registration
# Named by the entry point in blackwhite's pyproject.toml (group ``blackwhite.games``);
# ``tuning`` is the ``ismcts`` bot's, ``analysis`` the analysis's settings for this game
# (docs/bots.md, docs/analysis.md give the figures they were chosen by).

#: everything owned is public and every submission is announced, so each other
#: seat's past play says whether it plays like the heuristic or at random, and the
#: search models it so (a wrong model cost 20-25 points either way); with a sharp
#: model the search may overrule the heuristic on less evidence (trust 1.0).
#: Analysis: judged against heuristic play only, a seat facing random players was
#: blamed for not answering a heuristic (``adapt``); a decision rarely moves the match
#: by more than a few points, and at 8 worlds 3 of the heuristic's 69 decisions were
#: marked where 32 worlds found no loss
ENTRY = GameEntry(
    id="yellow",
    rules="blackwhite.games.yellow:Yellow",
    rules_page="blackwhite:_rules/yellow.md",
    encoding="blackwhite.games.yellow_encoding:YellowEncoding",
    heuristic="blackwhite.bots.heuristic.yellow",
    tuning=dict(horizon=10, scale=2.0, model=1.0, adapt=True, trust=1.0),
    analysis=dict(horizon=None, scale=2.0, adapt=True, worlds=3.0),
    drawer="blackwhite.terminal.draw:draw_yellow",
    twins="tests.twins.yellow",
    page_template="blackwhite.web:templates/games/yellow.html",
    page_script="blackwhite.web:static/games/yellow.js",
    page_style="blackwhite.web:static/games/yellow.css",
    text_drawer="blackwhite.discord_bridge.draw:draw_yellow",
)
