"""The research encoding of ``yellow`` (docs/rules/yellow.md, "For researchers").

A submission is boost/exchange steps ending in ``play N``.  Boosts are bounded by
garnets (``B`` = the richest seat's garnets // 3, at most 15).  Every step string has
the form ``b^a0 x b^a1 x ... x b^am``; the *middle* runs ``a1..a(m-1)`` (boosts between
two exchanges) can be reordered without changing anything (each exchange gains the
tile its run reaches from 0), so only the *canonical* strings, middle runs in
non-decreasing order, get codes: one per outcome, every outcome coded, 73,782 codes
at 45 garnets where all strings would need over a million.  Canonical strings with at
most ``B`` boosts and never two exchanges in a row are listed by length, then ``b``
before ``x``; a submission's code is ``9 * (index of its steps) + N``.  With no
garnets (the default) the steps are ``""`` or ``"x"``: 18 codes.

The adapters offer the engine's legal submissions (one per distinct outcome), each
written canonically; ``play 0`` with no step is always among them, so a seat is never
offered nothing.  Utilities follow the ranking: +1 first, 0 second, -1 third.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, Sequence

from ..engine.core import Action, Game, State, is_int
from ..engine.encoding import Encoding, win_loss_type
from .yellow import BOOST_COST, MAX_GARNETS, VALUES, YellowState

#: the most boosts in one submission: every garnet a seat may hold (45) spent
BOOST_CAP = MAX_GARNETS // BOOST_COST
#: utility by place in the ranking
PLACE_UTILITY = (1.0, 0.0, -1.0)


def canonical(steps: str) -> str:
    """``steps`` with its middle runs of boosts (between two exchanges) sorted
    shortest first: the same boosts, the same tiles gained, the same final yellow."""
    runs = steps.split("x")
    if len(runs) <= 3:
        return steps
    middle = sorted(runs[1:-1], key=len)
    return "x".join([runs[0], *middle, runs[-1]])


def step_strings(boosts: int, canonical_only: bool = True) -> list[str]:
    """Every step string with at most ``boosts`` boosts and no two exchanges in a row
    (only canonical ones unless told otherwise), by length then ``b`` before ``x``."""
    return list(_step_strings(boosts, canonical_only))


@lru_cache(maxsize=None)
def _step_strings(boosts: int, canonical_only: bool) -> tuple[str, ...]:
    out: list[str] = []
    layer = [""]
    while layer:
        out.extend(layer)
        nxt = []
        for s in layer:
            if s.count("b") < boosts:
                nxt.append(s + "b")
            if not s.endswith("x") and (not canonical_only or _may_close_run(s)):
                nxt.append(s + "x")
        layer = nxt
    return tuple(out)


def _may_close_run(s: str) -> bool:
    """Whether an exchange after ``s`` keeps it canonical: the run it closes (a middle
    run, when an exchange came before it) is at least as long as the previous one."""
    runs = s.split("x")
    if len(runs) < 3:
        return True  # the run closed is the first or the first middle one
    return len(runs[-1]) >= len(runs[-2])


@lru_cache(maxsize=None)
def _step_index(boosts: int) -> dict[str, int]:
    return {s: i for i, s in enumerate(_step_strings(boosts, True))}


class YellowEncoding(Encoding):
    """Codec, type, length bound and observation of ``yellow`` with its options."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.rounds: int = game.options["rounds"]
        self.target: int = game.options["target"]
        self.boosts = min(BOOST_CAP, max(game.options["garnets"]) // BOOST_COST)
        # the cached tuple, shared by every encoding of these options (up to 8,198 strings)
        self.steps = list(_step_strings(self.boosts, True))
        self._step_index = _step_index(self.boosts)
        #: step string -> the index of its canonical form (:meth:`offered_codes`)
        self._canonical_index: dict[str, int] = {}
        #: a submission's steps -> their features in the observation (``_steps_features``)
        self._steps_memo: dict[tuple[str, ...], tuple[float, float, float]] = {}

    # ------------------------------------------------------------ actions

    @property
    def num_distinct_actions(self) -> int:
        return VALUES * len(self.steps)

    def _encode(self, action: Action) -> int:
        if (
            isinstance(action, tuple)
            and len(action) == 3
            and action[0] == "sub"
            and isinstance(action[1], str)
            and is_int(action[2])
            and 0 <= action[2] < VALUES
        ):
            index = self._step_index.get(action[1])
            if index is not None:
                return VALUES * index + action[2]
            if canonical(action[1]) in self._step_index:
                raise ValueError(
                    f"action {action!r} has no code in yellow: its runs of boosts between "
                    f"exchanges are not shortest first; ('sub', {canonical(action[1])!r}, "
                    f"{action[2]}) has the same outcome and a code"
                )
        raise ValueError(
            f"action {action!r} has no code in yellow: codes exist for submissions "
            f"('sub', steps, N) with N 0..{VALUES - 1}, at most {self.boosts} boosts "
            "(b), never two exchanges (x) in a row and runs of boosts between exchanges "
            "shortest first"
        )

    def _decode(self, code: int) -> Action:
        return ("sub", self.steps[code // VALUES], code % VALUES)

    def awaited_offer(self, state: State, seat: int) -> list[Action]:
        """The legal submissions, one per outcome, each written canonically (the same
        outcome, so still legal: every exchange meets the same yellow)."""
        out = dict.fromkeys(("sub", canonical(a[1]), a[2]) for a in state.legal_actions(seat))
        return list(out)

    def awaited_codes(self, state: State, seat: int) -> list[int]:
        """The codes of :meth:`offered` straight from the submissions the engine keeps
        for the seat (:meth:`YellowState.offer`, remembered by identity:
        :meth:`~blackwhite.engine.encoding.Encoding.kept_codes`)."""
        assert isinstance(state, YellowState)
        return self.kept_codes(state.offer(seat))

    def _sorted_codes(self, actions: Sequence[Action]) -> list[int]:
        """The codes of the canonical forms of ``actions`` (legal submissions), each
        once, in increasing order: the canonical index of each step string is
        remembered, so no action is rewritten."""
        index = self._canonical_index
        try:
            return sorted({VALUES * index[a[1]] + a[2] for a in actions})
        except KeyError:
            pass
        for a in actions:
            if a[1] not in index:  # the code of the canonical form (encode says why if none)
                index[a[1]] = self.encode(("sub", canonical(a[1]), a[2])) // VALUES
        return sorted({VALUES * index[a[1]] + a[2] for a in actions})

    # ------------------------------------------------------------ the game

    #: Three seats, no chance; secret simultaneous submissions make it imperfect
    #: information.  Utilities by rank (+1, 0, -1) always sum to 0.
    game_type = win_loss_type(3, chance=False, simultaneous=True)

    @property
    def max_game_length(self) -> int:
        """One submission per seat per round."""
        return 3 * self.rounds

    def utilities(self, state: State) -> tuple[float, ...]:
        """+1 to the first of the ranking, 0 to the second, -1 to the third (a seat
        that resigned is ranked last)."""
        ranking = state.result().ranking
        assert ranking is not None
        out = [0.0, 0.0, 0.0]
        for place, seat in enumerate(ranking):
            out[seat] = PLACE_UTILITY[place]
        return tuple(out)

    # ------------------------------------------------------------ observations

    @property
    def layout(self) -> list[tuple[str, int]]:
        """Blocks of the observation: (name, size).  Sides are seat-relative: A the
        seat itself, then the next seat (B) and the one after (C); P1, P2, P3 for a
        spectator."""
        r, t, a = self.rounds, self.target, self.num_distinct_actions
        per_seat = VALUES + VALUES + (t + 1) + 1 + 3 + 1 + 1
        return [
            ("seat: P1, P2, P3, spectator", 4),
            (f"rounds done 0..{r}", r + 1),
            (
                f"per side A, B, C: inventory count of each value 0..8, yellow one-hot 0..8, "
                f"points one-hot 0..{t}, garnets / {MAX_GARNETS}, place in garnet_priority one-hot, "
                "awaited, submitted",
                3 * per_seat,
            ),
            ("last round's plays: per side, one-hot 0..8", 3 * VALUES),
            ("A's own pending submission, one-hot over action codes", a),
            ("finished", 1),
            ("final ranking: per side, place one-hot 1st..3rd", 9),
            (
                f"every round's submissions ({r}): per side, played, canonical steps code / "
                f"{len(self.steps)} (1 if none), boosts / {max(self.boosts, 1)}, exchanges / {self.boosts + 1}, "
                "play one-hot 0..8",
                r * 3 * (4 + VALUES),
            ),
        ]

    def observation_entries(self, view: Mapping[str, Any]) -> dict[int, float]:
        """Written straight at each block's offset (the blocks of :attr:`layout`, in
        order); every index read from the view is checked against its block."""
        seat = view["seat"]
        a = 0 if seat is None else seat
        sides = (a, (a + 1) % 3, (a + 2) % 3)
        t = self.target
        out: dict[int, float] = {3 if seat is None else seat: 1.0}
        out[4 + _index(view["round"], self.rounds + 1)] = 1.0
        at = 5 + self.rounds
        per_seat = 2 * VALUES + t + 7
        inventories, yellow, points = view["inventories"], view["yellow"], view["points"]
        garnets, priority = view["garnets"], view["garnet_priority"]
        to_move, submitted = view["to_move"], view["submitted"]
        for s in sides:
            for v in inventories[s]:
                i = at + _index(v, VALUES)
                out[i] = out.get(i, 0.0) + 1.0
            if yellow[s] is not None:
                out[at + VALUES + _index(yellow[s], VALUES)] = 1.0
            out[at + 2 * VALUES + _index(min(points[s], t), t + 1)] = 1.0
            if garnets[s]:
                out[at + 2 * VALUES + t + 1] = garnets[s] / MAX_GARNETS
            out[at + 2 * VALUES + t + 2 + priority.index(s)] = 1.0
            if s in to_move:
                out[at + 2 * VALUES + t + 5] = 1.0
            if s in submitted:
                out[at + 2 * VALUES + t + 6] = 1.0
            at += per_seat
        last = view["last_plays"]
        if last is not None:
            for j, s in enumerate(sides):
                if last[s] is not None:
                    out[at + VALUES * j + _index(last[s], VALUES)] = 1.0
        at += 3 * VALUES
        pending = view["my_pending"]
        code = None if pending is None else self._pending_code(pending)
        if code is not None:
            out[at + _index(code, self.num_distinct_actions)] = 1.0
        at += self.num_distinct_actions
        if view["finished"]:
            out[at] = 1.0
            ranking = view.get("ranking")
            if ranking is not None:
                for j, s in enumerate(sides):
                    out[at + 1 + 3 * j + ranking.index(s)] = 1.0
        at += 10
        subs = view["submissions"]
        per_sub = 4 + VALUES
        memo = self._steps_memo
        for k in range(min(len(subs), self.rounds)):
            for s in sides:
                sub = subs[k][s]
                if sub is not None:
                    out[at] = 1.0
                    words = tuple(sub["steps"])
                    features = memo.get(words)
                    if features is None:
                        features = memo[words] = self._steps_features(words)
                    index, boosts, exchanges = features
                    out[at + 1] = index
                    if boosts:
                        out[at + 2] = boosts
                    if exchanges:
                        out[at + 3] = exchanges
                    out[at + 4 + _index(sub["play"], VALUES)] = 1.0
                at += per_sub
        return out

    def _steps_features(self, words: tuple[str, ...]) -> tuple[float, float, float]:
        """A submission's steps as the observation gives them: its canonical steps code
        / the number of codes (1.0 for steps the options cannot make), its boosts and
        its exchanges, each scaled (a few step lists recur all match: remembered)."""
        steps = "".join("b" if w == "boost" else "x" for w in words)
        index = self._step_index.get(canonical(steps))
        return (
            1.0 if index is None else (index + 1) / len(self.steps),
            steps.count("b") / max(self.boosts, 1),
            steps.count("x") / (self.boosts + 1),
        )

    def _pending_code(self, text: str) -> int | None:
        """The code of the seat's own pending submission, written canonically (``None``
        only for a submission the options could not make, e.g. a hand-written record)."""
        words = text.split()
        steps = "".join("b" if w == "boost" else "x" for w in words[:-2])
        try:
            return self.encode(("sub", canonical(steps), int(words[-1])))
        except ValueError:
            return None


def _index(index: int, n: int) -> int:
    """``index`` of a one-hot block of ``n``; ``ValueError`` outside it."""
    if not 0 <= index < n:
        raise ValueError(f"index {index} outside a one-hot block of {n}")
    return index
