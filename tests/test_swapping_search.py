"""The swapping search's helpers (``blackwhite.bots.swapping_search``): the heuristic read
from the state chooses exactly as the heuristic reads the view, and the worlds drawn as if
the other seat played the heuristic fit everything the seat knows."""

from __future__ import annotations

import random

import pytest

from blackwhite.bots import Decision, ISMCTSBot, decision_for
from blackwhite.bots.heuristic.swapping import choose
from blackwhite.bots.ismcts import tuning_for
from blackwhite.engine.registry import game_ids
from blackwhite.bots.swapping_search import draw_worlds, policy
from blackwhite.engine import State
from blackwhite.games.swapping import SwappingState
from blackwhite.games.swapping_sampler import _increments, _undo

from .search_positions import mixed_positions

SWAPPING_TUNING = tuning_for("swapping")


def _states(matches: int, seed: int = 0, random_share: float = 0.5) -> list[SwappingState]:
    """Positions of the swap phase from matches of the heuristic mixed with random moves."""
    out: list[SwappingState] = []
    for state in mixed_positions("swapping", None, matches, seed, random_share, keep=_in_swap_phase):
        assert isinstance(state, SwappingState)
        out.append(state)
    return out


def _in_swap_phase(state: State) -> bool:
    return isinstance(state, SwappingState) and state.phase in ("swap", "reveal")


def test_the_state_policy_chooses_as_the_heuristic_does() -> None:
    checked = 0
    for state in _states(12):
        for seat in state.to_move():
            legal = state.legal_actions(seat)
            view = dict(state._view(seat), game="swapping", seat=seat)
            world = state.clone(track=False)
            world.pending = {}
            for k in range(3):
                a = choose(view, legal, random.Random(k))  # type: ignore[arg-type]
                b = policy(world, seat, legal, random.Random(k))
                assert a == b, (state.phase, state.step, seat, a, b)
                checked += 1
    assert checked > 300


def test_worlds_fit_what_the_seat_knows() -> None:
    drawn = missed = 0
    for state in _states(6, seed=40, random_share=0.0):
        seat = state.to_move()[0]
        opp = 1 - seat
        decision = decision_for(state, seat, random.Random(5))
        worlds = draw_worlds(decision, 8, random.Random(state.step))
        if not state.swaps[opp]:
            assert worlds is None  # no private swap yet: the uniform draw is already exact
            continue
        if worlds is None:  # no replay reached the reveals: the search draws as usual
            missed += 1
            continue
        assert len(worlds) == 8
        mine_first = _undo(state.rows[seat], state.swaps[seat])
        for world in worlds:
            assert isinstance(world, SwappingState)
            drawn += 1
            assert world.rows[seat] == state.rows[seat]  # my own row is mine
            assert world.shown == state.shown and world.reveals == state.reveals
            assert len(world.swaps[opp]) == len(state.swaps[opp])  # one swap per step it could swap
            row = world.rows[opp]
            assert sorted(row) == list(range(state.tiles))
            for t in state.reveals[opp]:
                assert row[state.where[opp][t]] == t  # its reveals where they were shown
            assert all(world.where[opp][t] == p for p, t in enumerate(row))
            # each swap: one black and one white tile not yet revealed, and the first row
            # fits the running totals against mine
            first = _undo(row, world.swaps[opp])
            replay = first[:]
            for j, (pb, pw) in enumerate(world.swaps[opp]):
                assert replay[pb] % 2 == 0 and replay[pw] % 2 == 1
                gone = state.reveals[opp][:j]
                assert replay[pb] not in gone and replay[pw] not in gone
                replay[pb], replay[pw] = replay[pw], replay[pb]
            assert replay == row
            won = []
            for k in range(3):
                cells = range(3 * k, 3 * k + 3)
                won.append(
                    (sum(mine_first[q] > first[q] for q in cells), sum(first[q] > mine_first[q] for q in cells))
                )
            assert tuple(won) == _increments(state.totals, seat)
    assert drawn > 100 and missed * 8 * 10 < drawn


def test_worlds_read_only_what_the_seat_knows() -> None:
    """Two states the seat cannot tell apart (the other seat's hidden tiles swapped
    about) give the same worlds."""
    compared = 0
    for state in _states(4, seed=70, random_share=0.0):
        if state.phase != "reveal" or not state.swaps[1 - state.to_move()[0]]:
            continue
        seat = state.to_move()[0]
        opp = 1 - seat
        hidden = [t for t in range(state.tiles) if not state.shown[opp][t]]
        if len(hidden) < 2:
            continue
        twin = state.clone()
        assert isinstance(twin, SwappingState)
        a, b = hidden[0], hidden[1]
        pa, pb = twin.where[opp][a], twin.where[opp][b]
        twin.rows[opp][pa], twin.rows[opp][pb] = b, a
        twin.where[opp][a], twin.where[opp][b] = pb, pa
        assert twin.view(seat) == state.view(seat)
        first = draw_worlds(decision_for(state, seat, random.Random(1)), 6, random.Random(2))
        second = draw_worlds(decision_for(twin, seat, random.Random(1)), 6, random.Random(2))
        assert (first is None) == (second is None)
        if first is not None and second is not None:
            assert [w.rows for w in first] == [w.rows for w in second]  # type: ignore[attr-defined]
            compared += 1
    assert compared >= 3


def test_only_swapping_draws_its_worlds_this_way() -> None:
    assert SWAPPING_TUNING.worlds_by is not None and SWAPPING_TUNING.state_policy is not None
    for gid in game_ids():
        if gid != "swapping":  # swapping's helpers read swapping's rows: no other game may name them
            tuning = tuning_for(gid)
            assert "swapping_search" not in f"{tuning.worlds_by} {tuning.state_policy}", gid


def test_the_search_draws_its_worlds_there_unless_told_not_to(monkeypatch: pytest.MonkeyPatch) -> None:
    import blackwhite.bots.swapping_search as module

    calls: list[int] = []

    def counted(decision: Decision, count: int, rng: random.Random) -> list[State] | None:
        calls.append(count)
        return draw_worlds(decision, count, rng)

    monkeypatch.setattr(module, "draw_worlds", counted)
    state = next(s for s in _states(2, seed=9, random_share=0.0) if s.phase == "reveal" and s.swaps[1])
    seat = 0
    for posterior, expected in ((False, 0), (True, 1)):
        calls.clear()
        bot = ISMCTSBot(iterations=40, posterior=posterior)
        action = bot.choose(decision_for(state, seat, random.Random(3)))
        assert action in state.legal_actions(seat)
        assert len(calls) == expected


def test_the_base_world_is_the_sampled_world_but_for_the_other_row() -> None:
    """``_base_world`` builds from the view what ``sample_world`` gives, every field
    alike once the other seat's row, positions and swaps are set to the same."""
    from blackwhite.bots.swapping_search import _base_world

    checked = 0
    for state in _states(6, seed=90) + _states(2, seed=95, random_share=0.0):
        for seat in state.to_move():
            opp = 1 - seat
            decision = decision_for(state, seat, random.Random(0))
            sampled = decision.sample_world(random.Random(1))
            built = _base_world(decision.view, seat)
            assert isinstance(sampled, SwappingState)
            for t in range(state.tiles):  # what the seat was told of the other row
                if not state.shown[opp][t]:
                    assert t not in built.rows[opp] and built.where[opp][t] == -1
            built._set_row(opp, list(sampled.rows[opp]), list(sampled.swaps[opp]), redo=False)
            mine, theirs = dict(built.__dict__), dict(sampled.__dict__)
            assert mine.pop("game").options == theirs.pop("game").options
            assert mine == theirs, (state.phase, state.step)
            checked += 1
    assert checked > 200


def test_the_search_plays_its_later_moves_by_the_heuristic_on_paired_worlds() -> None:
    """Swapping's tuning: the searcher's tree is its root alone (its later moves in a
    simulation are the heuristic's, as the other seat's are), and each challenger is
    scored on the champion's world."""
    from blackwhite.bots.ismcts import _Search

    assert SWAPPING_TUNING.depth == 1 and SWAPPING_TUNING.paired
    state = next(s for s in _states(2, seed=9, random_share=0.0) if s.phase == "swap")
    seat = state.to_move()[0]
    search = _Search(ISMCTSBot(iterations=40), decision_for(state, seat, random.Random(3)))
    assert search.step == search._iterate_root and search.pairing
    for _ in range(40):
        search.step()
    assert search.root.visits == 40 and sum(search.pair_n.values()) > 0


def test_the_state_policy_scores_a_part_of_the_list_afresh() -> None:
    """``policy`` keeps its best actions for the whole legal list; given a part of it (or the
    whole list after that part), it chooses as the heuristic does among what it is given."""
    checked = 0
    for state in _states(6, seed=50):
        for seat in state.to_move():
            legal = state.legal_actions(seat)
            if len(legal) < 3:
                continue
            view = dict(state._view(seat), game="swapping", seat=seat)
            world = state.clone(track=False)
            world.pending = {}
            for part in (legal, legal[1:], legal[:-1], legal):
                for k in range(2):
                    a = choose(view, part, random.Random(k))  # type: ignore[arg-type]
                    assert policy(world, seat, part, random.Random(k)) == a
                    checked += 1
    assert checked > 200


def test_legal_actions_are_a_fresh_list_in_the_listed_order() -> None:
    """Swaps and reveals are kept per set of revealed tiles; each call still returns a new
    list, the swaps as each unrevealed black with each unrevealed white, ascending."""
    for state in _states(4, seed=80):
        for seat in state.to_move():
            hidden = [t for t in range(state.tiles) if not state.shown[seat][t]]
            if state.phase == "swap":
                want = [("swap", b, w) for b in hidden if b % 2 == 0 for w in hidden if w % 2]
            else:
                want = [("reveal", t) for t in hidden]
            got = state.legal_actions(seat)
            assert got == want
            got.clear()
            assert state.legal_actions(seat) == want
        for seat in (0, 1):
            if seat not in state.to_move():
                assert state.legal_actions(seat) == []


def test_worlds_are_drawn_by_flattened_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    """Late in the swap phase the replays' plain weights rest on a few replays; drawn by
    the weights raised to ``TEMPER`` the worlds hold more of the other seat's rows, and
    the same rows as the plain weights would give when ``TEMPER`` is 1."""
    import blackwhite.bots.swapping_search as search

    assert 0 < search.TEMPER < 1
    late = [s for s in _states(8, seed=120, random_share=0.0) if s.step >= 4 and s.swaps[1 - s.to_move()[0]]]
    assert len(late) >= 20

    def distinct(state: SwappingState) -> int:
        seat = state.to_move()[0]
        worlds = draw_worlds(decision_for(state, seat, random.Random(1)), 32, random.Random(state.step))
        if worlds is None:  # no replay reached the reveals (the same replays either way)
            return 0
        return len({tuple(w.rows[1 - seat]) for w in worlds})  # type: ignore[attr-defined]

    flattened = sum(distinct(s) for s in late)
    monkeypatch.setattr(search, "TEMPER", 1.0)
    plain = sum(distinct(s) for s in late)
    assert flattened > plain
