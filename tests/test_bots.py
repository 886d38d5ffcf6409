"""Bots: always legal in every game, blind to what their seat cannot see, sound at
simultaneous steps.  Fast settings only (ISMCTS on a small iteration cap)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from blackwhite.bots import (
    Bot,
    Decision,
    HeuristicBot,
    ISMCTSBot,
    UnknownBotError,
    bot_names,
    decision_for,
    make_bot,
    make_bot_spec,
    parse_bot_spec,
)
from blackwhite.bots.heuristic import policy_for
from blackwhite.bots.match import play_match
from blackwhite.engine import Action, State, make_game
from blackwhite.engine.play import random_step
from blackwhite.engine.registry import game_ids

GAMES = game_ids()


class Checked:
    """Wraps a bot and fails the test the moment it returns an action not listed legal."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.decisions = 0

    def choose(self, decision: Decision) -> Action:
        action = self.bot.choose(decision)
        assert action in decision.legal, f"{self.name} chose {action!r}, not legal"
        self.decisions += 1
        return action


def fast(name: str) -> Bot:
    return make_bot("ismcts", iterations=6) if name == "ismcts" else make_bot(name)


def lineups(seats: int) -> list[list[str]]:
    """Every bot against every other, in every seat, with few matches."""
    names = ["random", "heuristic", "ismcts"]
    out = []
    for r in range(len(names)):
        row = [names[(r + s) % len(names)] for s in range(seats)]
        out.append(row)
    return out


@pytest.mark.parametrize("gid", GAMES)
def test_every_bot_plays_only_legal_actions(gid: str) -> None:
    game = make_game(gid)
    for index, names in enumerate(lineups(game.num_seats) * 2):
        bots = [Checked(fast(n)) for n in names]
        state = play_match(game, bots, seed=1000 + index)  # checked apply: illegal raises
        assert state.is_over(), f"{gid} {names}: match did not end"
        assert all(b.decisions > 0 for b in bots)
        for b in bots:
            if isinstance(b.bot, HeuristicBot):
                assert b.bot.stats["illegal"] == 0, f"{gid} policy returned an illegal action"


def test_registry() -> None:
    assert bot_names() == ["random", "heuristic", "ismcts"]
    assert parse_bot_spec("ismcts:budget=0.1:prior=false") == ("ismcts", {"budget": 0.1, "prior": False})
    bot = make_bot_spec("ismcts:iterations=3", budget=2)
    assert isinstance(bot, ISMCTSBot) and bot.iterations == 3 and bot.budget == 2
    with pytest.raises(UnknownBotError):
        make_bot("alphazero")
    with pytest.raises(TypeError):
        make_bot("random", depth=3)


def test_every_game_that_names_a_heuristic_has_its_policy() -> None:
    from blackwhite.engine.registry import entry

    for gid in GAMES:  # a game that names none is played at random by the heuristic bot
        assert (policy_for(gid) is not None) == (entry(gid).heuristic is not None), gid


# --------------------------------------------------------------------------- fairness


def positions(gid: str, count: int, seed: int) -> list[State]:
    """Mid-game positions reached by random play, at the start of a step (nothing pending)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        state = make_game(gid).new_initial_state()
        stop = rng.randrange(0, 40)
        steps = 0
        while not state.is_over() and (steps < stop or state.pending):
            random_step(state, rng, fast=False)  # ends at the start of a step
            steps += 1
        state.play_chance(rng)
        if not state.is_over() and state.to_move():
            out.append(state)
    return out


BOT_SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("random", {}),
    ("heuristic", {}),
    ("ismcts", {"iterations": 25}),
    # the other seats played by the heuristic (in the tree and rollouts), and the
    # searcher's own rollouts too: the policies see sampled worlds, never the real one
    ("ismcts", {"iterations": 8, "model": 1.0, "rollout": 1.0}),
]


# "Same view, same decision" is tested with hand-written twin records in
# tests/test_secrecy_twins.py: a twin built here with ``resample`` would test the
# sampler with itself.


@pytest.mark.parametrize("gid", GAMES)
def test_simultaneous_choice_ignores_pending_choices(gid: str) -> None:
    """At a simultaneous step, another seat having submitted (anything) changes nothing."""
    found = 0
    for state in [make_game(gid).new_initial_state(), *positions(gid, 30, seed=7)]:
        movers = state.to_move()
        if not state.simultaneous() or len(movers) < 2:
            continue
        seat, first = movers[-1], movers[0]
        submitted = state.clone()
        legal = submitted.legal_actions(first)
        submitted.apply(first, legal[len(legal) // 2])
        if seat not in submitted.to_move():
            continue
        for name, settings in BOT_SETTINGS[1:]:
            a = make_bot(name, **settings).choose(decision_for(state, seat, random.Random(3)))
            b = make_bot(name, **settings).choose(decision_for(submitted, seat, random.Random(3)))
            assert a == b, f"{gid} {name}: choice depended on P{first + 1}'s pending submission"
        found += 1
        if found >= 3:
            break
    if found == 0:
        pytest.skip(f"{gid}: no simultaneous step with two seats reached")


def test_ismcts_is_deterministic_under_an_iteration_cap() -> None:
    state = positions("swapping", 1, seed=3)[0]
    seat = state.to_move()[0]
    picks = {
        make_bot("ismcts", iterations=40).choose(decision_for(state, seat, random.Random(11)))
        for _ in range(3)
    }
    assert len(picks) == 1


def test_ismcts_respects_its_time_budget() -> None:
    state = make_game("swapping").new_initial_state()
    bot = make_bot("ismcts")
    decision = decision_for(state, 0, random.Random(1), budget=0.05)

    start = time.perf_counter()
    action = bot.choose(decision)
    assert time.perf_counter() - start < 0.5
    assert action in decision.legal
    assert isinstance(bot, ISMCTSBot) and bot.stats["iterations"] >= 1


def test_ismcts_beats_random_at_swapping() -> None:
    """A smoke check of strength, not a benchmark: a handful of matches, paired seats."""
    game = make_game("swapping")
    wins = 0
    for seed in range(3):
        for me in (0, 1):
            bots: list[Bot] = [make_bot("random"), make_bot("random")]
            bots[me] = make_bot("ismcts", iterations=60)
            wins += play_match(game, bots, seed).result().winner == me
    assert wins >= 5


def test_adapt_models_the_others_by_their_play_even_where_no_move_is_modelled_otherwise() -> None:
    """``adapt`` asked alone (``model`` and ``rollout`` 0: a game package's tuning
    ``{"adapt": True}``) models the other seats from their play, by the heuristic or at
    random; it used to leave them to their own search trees, as if they played like the
    searcher (the worked example's ``ismcts`` then won about half its matches against
    random play)."""
    from blackwhite.bots.ismcts import _Search

    state = make_game("yellow").new_initial_state()
    while not state.to_move():
        state.play_chance(random.Random(1))
    seat = state.to_move()[0]
    bot = ISMCTSBot(iterations=4, adapt=True, model=0.0, rollout=0.0)
    search = _Search(bot, decision_for(state, seat, random.Random(2)))
    assert search.share is not None and search.model_p == 1.0
    assert 0.0 < search.share[1 - seat] < 1.0
