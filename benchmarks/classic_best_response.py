"""The exact best response to uniformly random play in ``classic`` (the worked example,
examples/plugins/blackwhite-classic): the bound on what any bot can win against the
``random`` bot, which docs/designing-a-game.md compares the ``ismcts`` bot with.

    python benchmarks/classic_best_response.py

The random seat plays a uniformly random tile of those it holds, so every order of its
tiles is equally likely and what the other seat knows of it is a weighting of the sets
of tiles it may still hold (the number of its orders that agree with every colour and
every round's outcome announced).  The best response is an expectimax over those
beliefs, exact (in floating point).  A game is won (1), lost (0) or drawn; a drawn game is
played again (``replays`` times), then the death-match advantage wins it.  The
arena rotates seats: the bot is P1 (leading first, holding the advantage by default)
in half of the matches and P2 in the other half; this prints each and their mean.
Nothing here imports the example: the rules are restated in a few lines, so the
figure is a check of the example, not a copy of it.
"""

from __future__ import annotations

import argparse
from functools import lru_cache
from math import gcd

TILES = 9
ALL = (1 << TILES) - 1


def tiles(mask: int) -> list[int]:
    return [t for t in range(TILES) if mask >> t & 1]


Belief = tuple[tuple[int, int], ...]  # (the random seat's remaining tiles, weight), sorted


def normal(weights: dict[int, int]) -> Belief:
    common = 0
    for w in weights.values():
        common = gcd(common, w)
    return tuple(sorted((r, w // common) for r, w in weights.items() if w))


def solve(draw_value: float) -> tuple[float, float]:
    """(value when the bot leads the first round, value when the random seat does) of
    one game, a draw being worth ``draw_value``."""

    def end(me: int, them: int) -> float:
        return 1.0 if me > them else 0.0 if me < them else draw_value

    @lru_cache(maxsize=None)
    def bot_leads(mine: int, belief: Belief, me: int, them: int) -> float:
        if mine == 0:
            return end(me, them)
        best = -1.0
        for m in tiles(mine):
            # the random seat answers o, uniformly among what it holds: the bot sees the
            # colour of o and who won
            outcomes: dict[tuple[int, int], dict[int, int]] = {}
            for r, w in belief:
                for o in tiles(r):
                    key = (o % 2, (m > o) - (m < o))
                    nxt = outcomes.setdefault(key, {})
                    nxt[r & ~(1 << o)] = nxt.get(r & ~(1 << o), 0) + w
            total = sum(sum(d.values()) for d in outcomes.values())
            value = 0.0
            for (_, result), nxt in outcomes.items():
                p = sum(nxt.values()) / total
                rest = mine & ~(1 << m)
                b = normal(nxt)
                if result > 0:
                    v = bot_leads(rest, b, me + 1, them)
                elif result < 0:
                    v = random_leads(rest, b, me, them + 1)
                else:
                    v = bot_leads(rest, b, me, them)
                value += p * v
            best = max(best, value)
        return best

    @lru_cache(maxsize=None)
    def random_leads(mine: int, belief: Belief, me: int, them: int) -> float:
        if mine == 0:
            return end(me, them)
        # the random seat leads o: the bot sees its colour, then answers
        value = 0.0
        total = sum(w * len(tiles(r)) for r, w in belief)
        for colour in (0, 1):
            led: dict[int, dict[int, int]] = {}  # o -> belief of what is left
            for r, w in belief:
                for o in tiles(r):
                    if o % 2 == colour:
                        d = led.setdefault(o, {})
                        d[r & ~(1 << o)] = d.get(r & ~(1 << o), 0) + w
            mass = sum(sum(d.values()) for d in led.values())
            if not mass:
                continue
            best = -1.0
            for m in tiles(mine):
                rest = mine & ~(1 << m)
                v = 0.0
                for o, d in led.items():
                    p = sum(d.values()) / mass
                    b = normal(d)
                    if m > o:
                        v += p * bot_leads(rest, b, me + 1, them)
                    elif m < o:
                        v += p * random_leads(rest, b, me, them + 1)
                    else:
                        v += p * random_leads(rest, b, me, them)
                best = max(best, v)
            value += mass / total * best
        return value

    start = normal({ALL: 1})
    return bot_leads(ALL, start, 0, 0), random_leads(ALL, start, 0, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replays", type=int, default=2, help="the game's option replays (default 2)")
    args = parser.parse_args()
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
    print(f"  as P1 (leads first, holds the advantage): {float(p1):.4f}")
    print(f"  as P2:                                    {float(p2):.4f}")
    print(f"  seats rotated (the arena's mean):         {(p1 + p2) / 2:.4f}")
    single_lead, single_follow = solve(0.5)
    print(f"one game, a draw counted half: leading {float(single_lead):.4f}, following "
          f"{float(single_follow):.4f}, mean {float((single_lead + single_follow) / 2):.4f}")


if __name__ == "__main__":
    main()
