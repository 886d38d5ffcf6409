"""Ratings order a population of bots of known strength correctly (#40 item 6).

Bots play whole matches through the engine (as the arena does), each match's outcome is
made as the server makes it (:func:`~blackwhite.server.ratings.places_of`, identities
by :func:`~blackwhite.server.ratings.bot_identity`) and folded by the server's own
:func:`~blackwhite.server.ratings.fold`; the leaderboard's order is
:func:`~blackwhite.server.ratings.ranked`, the one ``GET /api/ratings/{game}`` gives.
Fixed seeds and iteration counts make every run the same.  ``benchmarks/ratings.py``
runs larger populations over many seeds and says after how many matches each is ordered.
"""

from __future__ import annotations

import itertools

from blackwhite.bots import make_bot_spec
from blackwhite.bots.match import play_match
from blackwhite.engine.registry import make_game
from blackwhite.server.ratings import Outcome, bot_identity, fold, places_of, ranked


def leaderboard_after(game_id: str, weakest_first: list[str], matches: int, seed: int = 0) -> list[str]:
    """Play ``matches`` matches among the bots (every group of the game's seat count in
    turn, seats rotated), fold them, and return the leaderboard's bots, best first."""
    game = make_game(game_id)
    n = game.num_seats
    groups = list(itertools.combinations(weakest_first, n))
    outcomes = []
    for i in range(matches):
        group = groups[i % len(groups)]
        turn = (i // len(groups)) % n
        seats = [group[(j + turn) % n] for j in range(n)]
        state = play_match(game, [make_bot_spec(s) for s in seats], seed=seed + i)
        assert state.is_over()
        outcomes.append(Outcome(f"m{i:04d}", game_id, float(i), tuple(bot_identity(s) for s in seats),
                                tuple(places_of(state))))
    return [s.identity for s in ranked(fold(outcomes).values())]


def test_three_seat_black_and_yellow_orders_random_heuristic_and_ismcts_after_9_matches() -> None:
    bots = ["random", "heuristic", "ismcts:iterations=10"]
    assert leaderboard_after("yellow", bots, 9) == [bot_identity(b) for b in reversed(bots)]


def test_a_search_at_rising_budgets_is_ordered_by_its_budget_after_12_matches() -> None:
    """Without the heuristic's default answer (``prior=false``) the search's strength is
    its budget alone: random < 4 iterations < 64 iterations a decision, in swapping."""
    bots = ["random", "ismcts:prior=false:iterations=4", "ismcts:prior=false:iterations=64"]
    assert leaderboard_after("swapping", bots, 12) == [bot_identity(b) for b in reversed(bots)]
