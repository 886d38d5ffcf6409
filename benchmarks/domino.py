"""How fast domino is: whole random games, listing, checking, resampling, the bot.

Run from the repository root: ``python benchmarks/domino.py [games]``.  Prints figures;
it asserts nothing (timing belongs here, not in the unit tests).
"""

from __future__ import annotations

import random
import sys
import time
from statistics import median
from typing import Any, Callable

from blackwhite.bots.heuristic import domino as bot
from blackwhite.engine import make_game
from blackwhite.games.domino import DominoState


def new_state() -> DominoState:
    state = make_game("domino").new_initial_state()
    assert isinstance(state, DominoState)
    return state


def random_game(rng: random.Random, checked: bool) -> tuple[DominoState, int, int]:
    """One game of uniformly random legal moves; returns state, placements, actions listed."""
    state = new_state()
    if not checked:
        clone = state.clone(track=False)
        assert isinstance(clone, DominoState)
        state = clone
    listed = 0
    while not state.is_over():
        seat = state.to_move()[0]
        legal = state.legal_actions(seat)
        listed += len(legal)
        action = rng.choice(legal)
        if checked:
            state.apply(seat, action)
        else:
            state.apply_fast(seat, action)
    return state, len(state.placements), listed


def timed(label: str, runs: int, fn: Callable[[int], Any]) -> None:
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - t0)
    print(f"{label:<52} median {median(times) * 1e3:8.3f} ms   max {max(times) * 1e3:8.3f} ms   ({runs} runs)")


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    stats = []

    def fast(i: int) -> None:
        _, placed, listed = random_game(random.Random(i), checked=False)
        stats.append((placed, listed))

    timed("random game, legal_actions + apply_fast", games, fast)
    placed = [p for p, _ in stats]
    listed = [n for _, n in stats]
    print(f"  placements per game: min {min(placed)} median {median(placed)} max {max(placed)};"
          f" actions listed per game: median {median(listed)}")
    timed("random game, legal_actions + checked apply (log kept)", games,
          lambda i: random_game(random.Random(i), checked=True))

    mid = new_state()
    rng = random.Random(7)
    while len(mid.placements) < 16:
        s = mid.to_move()[0]
        mid.apply_fast(s, rng.choice(mid.legal_actions(s)))
    seat = mid.to_move()[0]
    print(f"  mid-game position: {len(mid.legal_actions(seat))} legal placements")
    timed("legal_actions once, mid-game (16 placed)", games, lambda i: mid.legal_actions(seat))
    timed("resample once, mid-game (16 placed)", games, lambda i: mid.resample(seat, random.Random(i)))
    view, legal = mid.view(seat), mid.legal_actions(seat)
    timed("heuristic bot choose once, mid-game", min(games, 100),
          lambda i: bot.choose(view, legal, random.Random(i)))

    def bot_game(i: int) -> None:
        g = new_state()
        r = random.Random(i)
        while not g.is_over():
            s = g.to_move()[0]
            g.apply_fast(s, bot.choose(g.view(s), g.legal_actions(s), r))

    timed("whole game, heuristic bot both seats", min(games, 20), bot_game)


if __name__ == "__main__":
    main()
