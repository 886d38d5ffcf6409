"""Several joust matches in one process, in threads (as the server runs them).

The module-level tables (bids, tile names) and the heuristic's label cache are
shared by every match; a lazily grown bid table was corrupted under threads.
"""

from __future__ import annotations

import random
import sys
import threading
from typing import Any, Callable

import pytest

from blackwhite.bots.heuristic import joust as policy
from blackwhite.engine import make_game, outcome_json, to_record


def _in_threads(work: Callable[[int], Any], n: int) -> list[Any]:
    """``work(i)`` for i < n, all started together; exceptions re-raised."""
    results: list[Any] = [None] * n
    errors: list[BaseException] = []
    start = threading.Barrier(n)

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    if errors:
        raise errors[0]
    return results


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_bid_lists_are_right_when_many_threads_ask_at_once(gid: str) -> None:
    # chip counts never asked for before in this process, so a lazily grown table
    # would grow now, in every round, with all threads asking at once
    for rnd in range(2):
        base = 10_000 + 30_000 * rnd + 15_000 * (gid == "joust-final")

        def bids(i: int) -> list[Any]:
            out = []
            for j in range(3):
                chips = base + 1000 * i + 300 * j
                state = make_game(gid, {"chips": chips}).new_initial_state()
                state.play_chance(random.Random(i))
                legal = state.legal_actions(state.to_move()[0])
                out.append((chips, legal))
            return out

        for got in _in_threads(bids, 8):
            for chips, legal in got:
                assert legal == [("bid", n) for n in range(chips + 1)] + [("fold",)]


def _match(gid: str, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A heuristic-against-heuristic match: its record and outcome."""
    items = {"0": ["inversion", "conceal"], "1": ["equaliser", "inversion"]}
    options = {"items": items} if gid == "joust-final" else {}
    rng = random.Random(seed)
    state = make_game(gid, options).new_initial_state()
    while not state.is_over():
        if state.is_chance():
            state.play_chance(rng)
            continue
        seat = state.to_move()[0]
        state.apply(seat, policy.choose(state.view(seat), state.legal_actions(seat), rng))
    return to_record(state), outcome_json(state)


def test_matches_in_threads_play_as_they_do_alone() -> None:
    jobs = [("joust", s) for s in range(3)] + [("joust-final", s) for s in range(3)]
    alone = [_match(gid, seed) for gid, seed in jobs]
    together = _in_threads(lambda i: _match(*jobs[i]), len(jobs))
    assert together == alone
