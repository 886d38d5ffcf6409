"""The domino search's champion: the heuristic's stage 2 weighed over sampled worlds
(``choose_in_worlds``), and how ``ismcts`` takes it (``champion_worlds``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from blackwhite.bots import ismcts as ismcts_module
from blackwhite.bots.base import decision_for
from blackwhite.bots.heuristic import domino as heuristic
from blackwhite.bots.ismcts import ISMCTSBot, tuning_for
from blackwhite.engine import make_game
from blackwhite.games.domino import DominoState


def positions(seeds: range, every: int = 3) -> list[tuple[DominoState, int]]:
    """Positions of heuristic self-play where the seat to move has a choice and the
    opponent has hidden at least one number."""
    game = make_game("domino", {})
    out = []
    for seed in seeds:
        state = game.new_initial_state()
        rng = random.Random(seed)
        step = 0
        while not state.is_over():
            seat = state.to_move()[0]
            view = state.view(seat)
            legal = state.legal_actions(seat)
            hides = any(p.seat != seat for p in state.placements)
            if len(legal) > 1 and hides and step % every == 0:
                out.append((state.clone(), seat))
            state.apply(seat, heuristic.choose(view, legal, rng))
            step += 1
    return out


def worlds_of(state: DominoState, seat: int, count: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    return [state.resample(seat, rng) for _ in range(count)]


def test_only_the_numbers_hidden_from_the_seat_are_read_from_a_world() -> None:
    """A world's other cells may hold anything: the seat's own knowledge comes from its view."""
    for state, seat in positions(range(2))[:6]:
        view, legal = state.view(seat), state.legal_actions(seat)
        worlds = worlds_of(state, seat, 4, 1)
        answer = heuristic.choose_in_worlds(view, legal, worlds, random.Random(0))
        scrambled = []
        for world in worlds:
            copy = world.clone(track=False)
            for pl in state.placements:
                for g in (pl.cell_a, pl.cell_b):
                    if g != pl.hidden or pl.seat == seat:
                        copy.num[g] = 5 - copy.num[g]  # a cell the seat can read: never looked at
            scrambled.append(copy)
        assert heuristic.choose_in_worlds(view, legal, scrambled, random.Random(0)) == answer
        assert answer in legal


def test_the_worlds_decide_the_choice_somewhere() -> None:
    """Weighing by worlds is not the plain policy in disguise: the truth as the only world
    and worlds drawn from the seat's knowledge give different answers in some positions,
    and the plain policy is what it answers without worlds."""
    found = []
    for state, seat in positions(range(4)):
        view, legal = state.view(seat), state.legal_actions(seat)
        assert heuristic.choose_in_worlds(view, legal, [], random.Random(3)) == heuristic.choose(
            view, legal, random.Random(3)
        )
        truth = heuristic.choose_in_worlds(view, legal, [state], random.Random(0))
        drawn = heuristic.choose_in_worlds(view, legal, worlds_of(state, seat, 8, 2), random.Random(0))
        found.append(truth != drawn)
    assert any(found) and not all(found)


def test_a_number_read_from_the_worlds_is_scored() -> None:
    """With the truth as the only world, the answer scores at least as many points now as
    the plain policy's answer does, over a run of positions, and more in some."""
    more = fewer = 0
    for state, seat in positions(range(4)):
        view, legal = state.view(seat), state.legal_actions(seat)
        mine = heuristic.choose_in_worlds(view, legal, [state], random.Random(0))
        plain = heuristic.choose(view, legal, random.Random(0))
        scored = []
        for action in (mine, plain):
            after = state.clone(track=False)
            before = after.points[seat]
            after.apply_fast(seat, action)
            scored.append(after.points[seat] - before)
        more += scored[0] > scored[1]
        fewer += scored[0] < scored[1]
    assert more > fewer


def test_ismcts_takes_the_champion_from_its_first_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    """In domino the champion is ``choose_in_worlds`` over the search's first 32 worlds,
    which then start its pool; a search that never overrules answers with it."""
    assert tuning_for("domino").champion_worlds == 32
    seen: list[list[Any]] = []

    def fake(view: Any, legal: list[Any], worlds: list[Any], rng: random.Random) -> Any:
        seen.append(worlds)
        return legal[-1]

    monkeypatch.setattr(ismcts_module, "in_worlds_for", lambda gid: fake)
    state, seat = positions(range(1))[2]
    bot = ISMCTSBot(iterations=40, trust=1e9)
    decision = decision_for(state, seat, random.Random(5))
    assert bot.choose(decision) == decision.legal[-1]
    assert len(seen) == 1 and len(seen[0]) == 32
    known = state.info_key(seat)
    assert all(world.info_key(seat) == known for world in seen[0])
    # without champion worlds (every other game's tuning) it is not asked
    seen.clear()
    ISMCTSBot(iterations=5, champion_worlds=0).choose(decision_for(state, seat, random.Random(5)))
    assert not seen
    assert all(tuning_for(g).champion_worlds == 0 for g in ("swapping", "yellow", "grouping", "joust"))
