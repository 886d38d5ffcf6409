"""The best answer to a seat that plays at random, worked out exactly (optional, used by
the heuristic's ``respond`` where the search models the other seat as playing at random).

A seat that plays at random plays its nine tiles in a uniformly random order, whatever
the other seat does.  What a seat knows of that order (its own tiles, the colour of each
tile played against it and who won each round) is a weighting of the sets of tiles the
random seat may still hold: a set's weight is the number of orders of the tiles it has
played that agree with every colour and outcome seen.  With the seat's own tiles, the
score and the leader, that belief is all that matters for what comes, so the best
answer is an expectimax over (own tiles, score difference, leader, belief); beliefs are
interned and the belief after a round is cached, which keeps it small (about 1,000
positions seven rounds from the end, 17,000 eight rounds from it, 800,000 for a whole
game).  So the first two rounds are not worked out during a match: their answers are
:data:`OPENING`, worked out once over the whole game (``python -m
blackwhite_classic.solver``, about ten minutes), and the expectimax runs from the
third round on.
"""

from __future__ import annotations

import sys
from math import gcd
from typing import Any

TILES = 9
ALL = (1 << TILES) - 1
#: what a drawn game that is played again is worth to the seat that answers random play
#: best (benchmarks/classic_best_response.py in the blackwhite repository: 0.74-0.76)
REPLAY_VALUE = 0.75
#: positions remembered between decisions before the memo is dropped (memory)
MEMO_LIMIT = 200_000

Belief = tuple[tuple[int, int], ...]

#: the best first tile: leading (``None``), or answering a tile of that colour
FIRST: dict[str | None, int] = {None: 3, "black": 2, "white": 5}
#: the best second tile, by (the seat led round 1, its tile, the colour it met (0 black,
#: 1 white), its result (1 won, 0 tie, -1 lost), the colour it answers now (``None``:
#: it leads)); worked out by :func:`opening` with a drawn game worth :data:`REPLAY_VALUE`
OPENING: dict[tuple[bool, int, int, int, int | None], int] = {
    (True, 0, 0, 0, None): 5, (True, 0, 0, -1, 0): 2, (True, 0, 0, -1, 1): 7,
    (True, 0, 1, -1, 0): 2, (True, 0, 1, -1, 1): 7, (True, 1, 0, 1, None): 6,
    (True, 1, 0, -1, 0): 2, (True, 1, 0, -1, 1): 7, (True, 1, 1, 0, None): 5,
    (True, 1, 1, -1, 0): 4, (True, 1, 1, -1, 1): 5, (True, 2, 0, 1, None): 7,
    (True, 2, 0, 0, None): 6, (True, 2, 0, -1, 0): 4, (True, 2, 0, -1, 1): 7,
    (True, 2, 1, 1, None): 5, (True, 2, 1, -1, 0): 0, (True, 2, 1, -1, 1): 5,
    (True, 3, 0, 1, None): 6, (True, 3, 0, -1, 0): 2, (True, 3, 0, -1, 1): 7,
    (True, 3, 1, 1, None): 5, (True, 3, 1, 0, None): 5, (True, 3, 1, -1, 0): 0,
    (True, 3, 1, -1, 1): 5, (True, 4, 0, 1, None): 1, (True, 4, 0, 0, None): 6,
    (True, 4, 0, -1, 0): 2, (True, 4, 0, -1, 1): 7, (True, 4, 1, 1, None): 5,
    (True, 4, 1, -1, 0): 0, (True, 4, 1, -1, 1): 5, (True, 5, 0, 1, None): 6,
    (True, 5, 0, -1, 0): 2, (True, 5, 0, -1, 1): 7, (True, 5, 1, 1, None): 3,
    (True, 5, 1, 0, None): 6, (True, 5, 1, -1, 0): 0, (True, 5, 1, -1, 1): 6,
    (True, 6, 0, 1, None): 3, (True, 6, 0, 0, None): 3, (True, 6, 0, -1, 0): 2,
    (True, 6, 0, -1, 1): 3, (True, 6, 1, 1, None): 3, (True, 6, 1, -1, 0): 0,
    (True, 6, 1, -1, 1): 5, (True, 7, 0, 1, None): 3, (True, 7, 0, -1, 0): 2,
    (True, 7, 0, -1, 1): 3, (True, 7, 1, 1, None): 3, (True, 7, 1, 0, None): 3,
    (True, 8, 0, 1, None): 3, (True, 8, 0, 0, None): 4, (True, 8, 1, 1, None): 3,
    (False, 0, 0, 0, 0): 6, (False, 0, 0, 0, 1): 3, (False, 0, 0, -1, 0): 2,
    (False, 0, 0, -1, 1): 7, (False, 0, 1, -1, 0): 2, (False, 0, 1, -1, 1): 7,
    (False, 1, 0, 1, None): 6, (False, 1, 0, -1, 0): 2, (False, 1, 0, -1, 1): 7,
    (False, 1, 1, 0, 0): 2, (False, 1, 1, 0, 1): 7, (False, 1, 1, -1, 0): 4,
    (False, 1, 1, -1, 1): 5, (False, 2, 0, 1, None): 7, (False, 2, 0, 0, 0): 0,
    (False, 2, 0, 0, 1): 5, (False, 2, 0, -1, 0): 4, (False, 2, 0, -1, 1): 7,
    (False, 2, 1, 1, None): 5, (False, 2, 1, -1, 0): 0, (False, 2, 1, -1, 1): 5,
    (False, 3, 0, 1, None): 6, (False, 3, 0, -1, 0): 2, (False, 3, 0, -1, 1): 7,
    (False, 3, 1, 1, None): 5, (False, 3, 1, 0, 0): 4, (False, 3, 1, 0, 1): 1,
    (False, 3, 1, -1, 0): 0, (False, 3, 1, -1, 1): 5, (False, 4, 0, 1, None): 1,
    (False, 4, 0, 0, 0): 2, (False, 4, 0, 0, 1): 7, (False, 4, 0, -1, 0): 2,
    (False, 4, 0, -1, 1): 7, (False, 4, 1, 1, None): 5, (False, 4, 1, -1, 0): 0,
    (False, 4, 1, -1, 1): 5, (False, 5, 0, 1, None): 6, (False, 5, 0, -1, 0): 2,
    (False, 5, 0, -1, 1): 7, (False, 5, 1, 1, None): 3, (False, 5, 1, 0, 0): 0,
    (False, 5, 1, 0, 1): 3, (False, 5, 1, -1, 0): 0, (False, 5, 1, -1, 1): 6,
    (False, 6, 0, 1, None): 3, (False, 6, 0, 0, 0): 2, (False, 6, 0, 0, 1): 7,
    (False, 6, 0, -1, 0): 2, (False, 6, 0, -1, 1): 3, (False, 6, 1, 1, None): 3,
    (False, 6, 1, -1, 0): 0, (False, 6, 1, -1, 1): 5, (False, 7, 0, 1, None): 3,
    (False, 7, 0, -1, 0): 2, (False, 7, 0, -1, 1): 3, (False, 7, 1, 1, None): 3,
    (False, 7, 1, 0, 0): 0, (False, 7, 1, 0, 1): 5, (False, 8, 0, 1, None): 3,
    (False, 8, 0, 0, 0): 2, (False, 8, 0, 0, 1): 5, (False, 8, 1, 1, None): 3,
}


def _tiles(mask: int) -> list[int]:
    return [t for t in range(TILES) if mask >> t & 1]


def _compare(mine: int, theirs: int) -> int:
    return (mine > theirs) - (mine < theirs)


class _Beliefs:
    """Interned beliefs and the transitions between them."""

    def __init__(self) -> None:
        self.ids: dict[Belief, int] = {}
        self.table: list[Belief] = []
        self.mass: list[list[int]] = []
        self.next: dict[tuple[int, int, int, int], tuple[int, int]] = {}

    def intern(self, weights: dict[int, int]) -> int:
        common = 0
        for w in weights.values():
            common = gcd(common, w)
        belief = tuple(sorted((r, w // common) for r, w in weights.items() if w))
        found = self.ids.get(belief)
        if found is None:
            found = self.ids[belief] = len(self.table)
            self.table.append(belief)
            mass = [0] * TILES
            for r, w in belief:
                for o in _tiles(r):
                    mass[o] += w
            self.mass.append(mass)
        return found

    def after(self, bid: int, m: int, colour: int, result: int) -> tuple[int, int]:
        """(weight, next belief) when the seat plays ``m`` against a tile of ``colour``
        with ``result`` (1 won, 0 tie, -1 lost); weight 0 when that cannot be."""
        key = (bid, m, colour, result)
        found = self.next.get(key)
        if found is None:
            weights: dict[int, int] = {}
            total = 0
            for r, w in self.table[bid]:
                for o in _tiles(r):
                    if o % 2 == colour and _compare(m, o) == result:
                        rest = r & ~(1 << o)
                        weights[rest] = weights.get(rest, 0) + w
                        total += w
            found = (total, self.intern(weights) if total else -1)
            self.next[key] = found
        return found


_BELIEFS = _Beliefs()
_MEMO: dict[tuple[int, int, bool, int, float], float] = {}


def _value(mine: int, diff: int, leads: bool, bid: int, draw: float) -> float:
    """The game's value to the seat (1 won, 0 lost, ``draw`` drawn) under best play."""
    left = bin(mine).count("1")
    if diff > left:
        return 1.0
    if -diff > left:
        return 0.0
    if left == 0:
        return draw
    key = (mine, diff, leads, bid, draw)
    found = _MEMO.get(key)
    if found is None:
        if leads:
            found = max(_lead_value(mine, diff, bid, m, draw) for m in _tiles(mine))
        else:
            mass = _BELIEFS.mass[bid]
            total = sum(mass)
            found = 0.0
            for colour in (0, 1):
                seen = sum(mass[colour::2])
                if seen:
                    best = max(_answer_value(mine, diff, bid, colour, m, draw) for m in _tiles(mine))
                    found += best * seen / total
        _MEMO[key] = found
    return found


def _follow(mine: int, diff: int, result: int, leads: bool, nid: int, draw: float) -> float:
    return _value(mine, diff + result, leads if result == 0 else result > 0, nid, draw)


def _lead_value(mine: int, diff: int, bid: int, m: int, draw: float) -> float:
    rest = mine & ~(1 << m)
    v = 0.0
    total = sum(_BELIEFS.mass[bid])
    for colour in (0, 1):
        for result in (1, 0, -1):
            weight, nid = _BELIEFS.after(bid, m, colour, result)
            if weight:
                v += weight * _follow(rest, diff, result, True, nid, draw)
    return v / total


def _answer_value(mine: int, diff: int, bid: int, colour: int, m: int, draw: float) -> float:
    rest = mine & ~(1 << m)
    seen = sum(_BELIEFS.mass[bid][colour::2])
    v = 0.0
    for result in (1, 0, -1):
        weight, nid = _BELIEFS.after(bid, m, colour, result)
        if weight:
            v += weight * _follow(rest, diff, result, False, nid, draw)
    return v / seen


def belief(view: dict[str, Any]) -> dict[int, int]:
    """From a seat's view: the weight of each set of tiles the other seat may still hold
    (before any tile it has just led), as the number of orders of its plays so far that
    agree with what the seat saw."""
    me = view["seat"]
    other = 1 - me
    rounds = []
    for r in view["rounds"]:
        mine = r["tiles"][me]["tile"]
        colour = 0 if r["tiles"][other]["colour"] == "black" else 1
        result = 0 if r["winner"] is None else (1 if r["winner"] == me else -1)
        rounds.append([t for t in range(colour, TILES, 2) if _compare(mine, t) == result])
    weights: dict[int, int] = {}

    def place(i: int, used: int) -> None:
        if i == len(rounds):
            weights[ALL & ~used] = weights.get(ALL & ~used, 0) + 1
            return
        for t in rounds[i]:
            if not used >> t & 1:
                place(i + 1, used | 1 << t)

    place(0, 0)
    return weights


def best_tile(view: dict[str, Any], legal_tiles: list[int]) -> int:
    """The tile that wins the match most often against a seat playing at random, from
    ``view`` (ties: the smallest); the first two rounds from the opening tables."""
    if len(_MEMO) > MEMO_LIMIT:
        _MEMO.clear()
    me = view["seat"]
    led = view.get("led")
    answering = None if led is None or view["leader"] == me else led["colour"]
    rounds = view["rounds"]
    if not rounds and FIRST[answering] in legal_tiles:
        return FIRST[answering]
    if len(rounds) == 1:
        first = rounds[0]
        met = 0 if first["tiles"][1 - me]["colour"] == "black" else 1
        result = 0 if first["winner"] is None else (1 if first["winner"] == me else -1)
        key = (first["leader"] == me, first["tiles"][me]["tile"], met, result,
               None if answering is None else (0 if answering == "black" else 1))
        if OPENING.get(key) in legal_tiles:
            return OPENING[key]
    mine = sum(1 << t for t in legal_tiles)
    wins = view["wins"]
    diff = wins[me] - wins[1 - me]
    options = view["options"]
    last_game = len(view["drawn_games"]) >= options["replays"]
    draw = (1.0 if options["dmo"] == me else 0.0) if last_game else REPLAY_VALUE
    bid = _BELIEFS.intern(belief(view))
    if answering is not None:
        colour = 0 if answering == "black" else 1
        scores = {m: _answer_value(mine, diff, bid, colour, m, draw) for m in legal_tiles}
    else:
        scores = {m: _lead_value(mine, diff, bid, m, draw) for m in legal_tiles}
    return max(sorted(legal_tiles), key=lambda m: scores[m] - 1e-12 * m)


def opening(draw: float = REPLAY_VALUE) -> tuple[dict[str | None, int], dict[tuple[bool, int, int, int, int | None], int]]:
    """:data:`FIRST` and :data:`OPENING` worked out again (the whole game: minutes)."""
    sys.setrecursionlimit(10_000)
    start = _BELIEFS.intern({ALL: 1})

    def pick(values: dict[int, float]) -> int:
        return max(sorted(values), key=lambda m: values[m] - 1e-12 * m)

    first: dict[str | None, int] = {None: pick({m: _lead_value(ALL, 0, start, m, draw) for m in range(TILES)})}
    for colour, word in ((0, "black"), (1, "white")):
        first[word] = pick({m: _answer_value(ALL, 0, start, colour, m, draw) for m in range(TILES)})
    second: dict[tuple[bool, int, int, int, int | None], int] = {}
    for led_first in (True, False):
        for m in range(TILES):
            for colour in (0, 1):
                for result in (1, 0, -1):
                    weight, nid = _BELIEFS.after(start, m, colour, result)
                    if not weight:
                        continue
                    mine = ALL & ~(1 << m)
                    if (led_first if result == 0 else result > 0):
                        second[(led_first, m, colour, result, None)] = pick(
                            {x: _lead_value(mine, result, nid, x, draw) for x in _tiles(mine)})
                    else:
                        for now in (0, 1):
                            second[(led_first, m, colour, result, now)] = pick(
                                {x: _answer_value(mine, result, nid, now, x, draw) for x in _tiles(mine)})
    return first, second


if __name__ == "__main__":
    found_first, found_second = opening()
    print("FIRST =", found_first)
    print("OPENING =", found_second)
    print("the tables shipped:", "the same" if (found_first, found_second) == (FIRST, OPENING) else "DIFFERENT")
