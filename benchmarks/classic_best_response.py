"""The exact best response to uniformly random play in ``classic`` (the worked example,
examples/plugins/blackwhite-classic): the bound on what any bot can win against the
``random`` bot, which docs/designing-a-game.md compares the ``ismcts`` bot with.

    python benchmarks/classic_best_response.py     # 12 minutes on a loaded core, 0.8 GB
    python benchmarks/classic_best_response.py --check 6   # against a brute force

Its answer (2026-11-29): 0.7496 with seats rotated and the default options (0.7410
as P1, 0.7583 as P2); one game alone, a draw counted half: 0.6851.

The random seat plays a uniformly random tile of those it holds, so its plays are a
uniformly random order of its nine tiles, whatever the other seat does.  What the bot
knows of that order after some rounds (its own tiles, the colour of each tile the random
seat played and who won each round) is a weighting of the sets of tiles the random seat
may still hold: a set's weight is the number of orders of the tiles played that agree
with every colour and outcome seen.  That belief is all that matters of the past for
what comes (with the bot's own tiles left, the score and who leads), so the best
response is an expectimax over (own tiles, score difference, leader, belief), exact in
floating point.

What keeps it small: beliefs are interned (about 8,400 distinct ones over all the
information states of a game, against ~330,000 states at the widest round), so the
memo is keyed on a belief's number; the belief that follows a round is cached per
(belief, tile played, colour seen, outcome); and a score difference past the rounds left
is cut to that (the game is decided).  (The first version kept each belief as a tuple
inside every memo key and ran out of memory.)

A game is won (1), lost (0) or drawn; a drawn game is played again (``replays``
times), then the death-match advantage wins it.  The arena rotates seats: the bot is
P1 (leading first, holding the advantage by default) in half of the matches and P2
in the other half; this prints each and their mean.  Nothing here imports the
example: the rules are restated in a few lines, so the figure is a check of the
example, not a copy of it.
"""

from __future__ import annotations

import argparse
import sys
import time
from math import gcd

TILES = 9
ALL = (1 << TILES) - 1

Belief = tuple[tuple[int, int], ...]  # (the random seat's remaining tiles, weight), sorted


def tiles(mask: int) -> list[int]:
    return [t for t in range(TILES) if mask >> t & 1]


def compare(mine: int, theirs: int) -> int:
    """1: the bot's tile wins the round, -1: it loses, 0: a tie."""
    return (mine > theirs) - (mine < theirs)


class Beliefs:
    """Interned beliefs and the transitions between them (shared by every solve)."""

    def __init__(self) -> None:
        self.ids: dict[Belief, int] = {}
        self.table: list[Belief] = []
        #: per belief: the weight of each tile being the random seat's next play
        self.mass: list[list[int]] = []
        self.next: dict[tuple[int, int, int, int], tuple[float, int]] = {}

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
                for o in tiles(r):
                    mass[o] += w
            self.mass.append(mass)
        return found

    def after(self, bid: int, m: int, colour: int, result: int) -> tuple[int, int]:
        """(weight, next belief) when the bot plays ``m`` and sees the random seat's tile of
        ``colour`` give ``result``; weight 0 when that cannot happen."""
        key = (bid, m, colour, result)
        found = self.next.get(key)
        if found is None:
            weights: dict[int, int] = {}
            total = 0
            for r, w in self.table[bid]:
                for o in tiles(r):
                    if o % 2 == colour and compare(m, o) == result:
                        rest = r & ~(1 << o)
                        weights[rest] = weights.get(rest, 0) + w
                        total += w
            found = (total, self.intern(weights) if total else -1)
            self.next[key] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]


def brute(count: int, draw_value: float) -> tuple[float, float]:
    """:func:`solve` another way, for a check on ``count`` tiles: the belief kept as the
    list of the random seat's orders that agree with what was seen (no interning, no
    weights, no cut): exponential, so only for a handful of tiles."""
    from itertools import permutations

    def value(orders: list[tuple[int, ...]], mine: tuple[int, ...], k: int, diff: int, bot_leads: bool) -> float:
        if not mine:
            return 1.0 if diff > 0 else 0.0 if diff < 0 else draw_value

        def after(m: int, group: list[tuple[int, ...]]) -> float:
            by: dict[tuple[int, int], list[tuple[int, ...]]] = {}
            for order in group:
                by.setdefault((order[k] % 2, compare(m, order[k])), []).append(order)
            rest = tuple(t for t in mine if t != m)
            return sum(len(g) / len(group) * value(g, rest, k + 1, diff + r, bot_leads if r == 0 else r > 0)
                       for (_, r), g in by.items())

        if bot_leads:
            return max(after(m, orders) for m in mine)
        out = 0.0
        for colour in (0, 1):
            seen = [o for o in orders if o[k] % 2 == colour]
            if seen:
                out += len(seen) / len(orders) * max(after(m, seen) for m in mine)
        return out

    orders = list(permutations(range(count)))
    everything = tuple(range(count))
    return value(orders, everything, 0, 0, True), value(orders, everything, 0, 0, False)


def solve(beliefs: Beliefs, draw_value: float) -> tuple[float, float]:
    """(value when the bot leads the first round, value when the random seat does) of
    one game, a draw being worth ``draw_value``."""
    memo: dict[tuple[int, int, bool, int], float] = {}

    def value(mine: int, diff: int, bot_leads: bool, bid: int) -> float:
        left = bin(mine).count("1")
        if diff > left:
            return 1.0
        if -diff > left:
            return 0.0
        if left == 0:
            return draw_value
        key = (mine, diff, bot_leads, bid)
        found = memo.get(key)
        if found is not None:
            return found
        mass = beliefs.mass[bid]
        total = sum(mass)
        if bot_leads:
            # the bot leads m; the random seat answers: the bot sees its colour and who won
            best = -1.0
            for m in tiles(mine):
                v = 0.0
                for colour in (0, 1):
                    for result in (1, 0, -1):
                        weight, nid = beliefs.after(bid, m, colour, result)
                        if weight:
                            v += weight * follow(mine & ~(1 << m), diff, result, bot_leads, nid)
                best = max(best, v / total)
            out = best
        else:
            # the random seat leads: the bot sees the colour, then answers
            out = 0.0
            for colour in (0, 1):
                seen = sum(mass[o] for o in range(colour, TILES, 2))
                if not seen:
                    continue
                best = -1.0
                for m in tiles(mine):
                    v = 0.0
                    for result in (1, 0, -1):
                        weight, nid = beliefs.after(bid, m, colour, result)
                        if weight:
                            v += weight * follow(mine & ~(1 << m), diff, result, bot_leads, nid)
                    best = max(best, v / seen)
                out += best * seen / total
        memo[key] = out
        return out

    def follow(mine: int, diff: int, result: int, bot_leads: bool, nid: int) -> float:
        # the winner of a round leads the next; after a tie the same leader
        return value(mine, diff + result, bot_leads if result == 0 else result > 0, nid)

    start = beliefs.intern({ALL: 1})
    return value(ALL, 0, True, start), value(ALL, 0, False, start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replays", type=int, default=2, help="the game's option replays (default 2)")
    parser.add_argument("--check", type=int, metavar="N", default=0,
                        help="instead: compare with a brute force over every order on N tiles (N <= 7)")
    args = parser.parse_args()
    global TILES, ALL
    if args.check:
        TILES, ALL = args.check, (1 << args.check) - 1
        for draw in (0.0, 0.5, 1.0):
            fast, slow = solve(Beliefs(), draw), brute(args.check, draw)
            agree = all(abs(a - b) < 1e-9 for a, b in zip(fast, slow))
            print(f"{args.check} tiles, a draw worth {draw}: solve {fast[0]:.6f} {fast[1]:.6f}, "
                  f"brute force {slow[0]:.6f} {slow[1]:.6f}: {'agree' if agree else 'DIFFER'}")
            if not agree:
                sys.exit(1)
        return
    sys.setrecursionlimit(10_000)
    began = time.perf_counter()
    beliefs = Beliefs()
    results = {}
    for holds_advantage in (True, False):
        # the last game: a draw is the advantage's; each earlier one: a draw is worth the
        # next game's value (the same game again, from the start)
        value = 1.0 if holds_advantage else 0.0
        for _ in range(args.replays + 1):
            lead, follow = solve(beliefs, value)
            value = lead if holds_advantage else follow  # P1 holds the advantage and leads
        results[holds_advantage] = value
    p1, p2 = results[True], results[False]
    print(f"best response to random play, replays={args.replays}:")
    print(f"  as P1 (leads first, holds the advantage): {p1:.4f}")
    print(f"  as P2:                                    {p2:.4f}")
    print(f"  seats rotated (the arena's mean):         {(p1 + p2) / 2:.4f}")
    single_lead, single_follow = solve(beliefs, 0.5)
    print(f"one game, a draw counted half: leading {single_lead:.4f}, following "
          f"{single_follow:.4f}, mean {(single_lead + single_follow) / 2:.4f}")
    print(f"({len(beliefs.table)} distinct beliefs; {time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
