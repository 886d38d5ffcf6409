"""The exact best response to uniformly random play in ``classic`` (the worked example,
examples/plugins/blackwhite-classic): the bound on what any bot can win against the
``random`` bot, which docs/designing-a-game.md compares the ``ismcts`` bot with.

    python benchmarks/classic_best_response.py     # 12 minutes on a loaded core, 0.8 GB
    python benchmarks/classic_best_response.py --check 6   # against a brute force

Its answer (2026-11-29, computed before it used the example's solver, by the same
expectimax written here): 0.7496 with seats rotated and the default options (0.7410
as P1, 0.7583 as P2); one game alone, a draw counted half: 0.6851.

The random seat plays a uniformly random tile of those it holds, so its plays are a
uniformly random order of its nine tiles, whatever the other seat does.  What the bot
knows of that order after some rounds (its own tiles, the colour of each tile the random
seat played and who won each round) is a weighting of the sets of tiles the random seat
may still hold: a set's weight is the number of orders of the tiles played that agree
with every colour and outcome seen.  That belief is all that matters of the past for
what comes (with the bot's own tiles left, the score and who leads), so the best
response is an expectimax over (own tiles, score difference, leader, belief), exact in
floating point.  It is the example's own solver (``blackwhite_classic/solver.py``, which
its heuristic answers random play with), so this checks it independently the one way
that does not share its code: ``--check N`` compares it with a brute force over every
order of N tiles.

What keeps it small: beliefs are interned (about 8,400 distinct ones over all the
information states of a game, against ~330,000 states at the widest round), so the
memo is keyed on a belief's number; the belief that follows a round is cached per
(belief, tile played, colour seen, outcome); and a score difference past the rounds left
is cut to that (the game is decided).  (The first version kept each belief as a tuple
inside every memo key and ran out of memory.)

A game is won (1), lost (0) or drawn; a drawn game is played again (``replays``
times), then the death-match advantage wins it.  The arena rotates seats: the bot is
P1 (leading first, holding the advantage by default) in half of the matches and P2
in the other half; this prints each and their mean.
"""

from __future__ import annotations

import argparse
import sys
import time

try:
    from blackwhite_classic import solver
except ImportError:  # pragma: no cover - said plainly instead of a traceback
    raise SystemExit("install the example first: pip install --no-deps ./examples/plugins/blackwhite-classic")


def compare(mine: int, theirs: int) -> int:
    """1: the bot's tile wins the round, -1: it loses, 0: a tie."""
    return (mine > theirs) - (mine < theirs)


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


def solve(draw_value: float) -> tuple[float, float]:
    """(value when the bot leads the first round, value when the random seat does) of
    one game, a draw being worth ``draw_value``: the example's solver."""
    start = solver._BELIEFS.intern({solver.ALL: 1})
    return (solver._value(solver.ALL, 0, True, start, draw_value),
            solver._value(solver.ALL, 0, False, start, draw_value))


def shrink(count: int) -> None:
    """The solver on ``count`` tiles (for ``--check``): its tables start afresh."""
    solver.TILES, solver.ALL = count, (1 << count) - 1
    solver._BELIEFS = solver._Beliefs()
    solver._MEMO.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replays", type=int, default=2, help="the game's option replays (default 2)")
    parser.add_argument("--check", type=int, metavar="N", default=0,
                        help="instead: compare with a brute force over every order on N tiles (N <= 7)")
    args = parser.parse_args()
    if args.check:
        shrink(args.check)
        for draw in (0.0, 0.5, 1.0):
            fast, slow = solve(draw), brute(args.check, draw)
            agree = all(abs(a - b) < 1e-9 for a, b in zip(fast, slow))
            print(f"{args.check} tiles, a draw worth {draw}: solve {fast[0]:.6f} {fast[1]:.6f}, "
                  f"brute force {slow[0]:.6f} {slow[1]:.6f}: {'agree' if agree else 'DIFFER'}")
            if not agree:
                sys.exit(1)
        return
    sys.setrecursionlimit(10_000)
    began = time.perf_counter()
    results = {}
    for holds_advantage in (True, False):
        # the last game: a draw is the advantage's; each earlier one: a draw is worth the
        # next game's value (the same game again, from the start)
        value = 1.0 if holds_advantage else 0.0
        for _ in range(args.replays + 1):
            lead, follow = solve(value)
            value = lead if holds_advantage else follow  # P1 holds the advantage and leads
        results[holds_advantage] = value
    p1, p2 = results[True], results[False]
    print(f"best response to random play, replays={args.replays}:")
    print(f"  as P1 (leads first, holds the advantage): {p1:.4f}")
    print(f"  as P2:                                    {p2:.4f}")
    print(f"  seats rotated (the arena's mean):         {(p1 + p2) / 2:.4f}")
    single_lead, single_follow = solve(0.5)
    print(f"one game, a draw counted half: leading {single_lead:.4f}, following "
          f"{single_follow:.4f}, mean {(single_lead + single_follow) / 2:.4f}")
    print(f"({len(solver._BELIEFS.table)} distinct beliefs; {time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
