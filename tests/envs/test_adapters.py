"""The research adapters: each library's own conformance test, and the adapters
checked against the engine (observations are the encoding of the view; the
information-state key is the same for a seat's resampled worlds and for twin
records that differ only in what the seat cannot see)."""

from __future__ import annotations

import json

import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from pettingzoo.test import api_test, seed_test

from blackwhite.engine import load
from blackwhite.engine.encoding import encoding
from blackwhite.envs import pettingzoo_env
from blackwhite.engine.infostate import infostate_key, infostate_string, trail_entry
from blackwhite.envs.openspiel import BlackWhiteSpielState, load as spiel_load, register, spiel_name
from tests.test_secrecy_twins import all_twins

from .conftest import GAMES, small_options

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_api(game_id: str) -> None:
    api_test(pettingzoo_env(game_id), num_cycles=60, verbose_progress=False)
    small = small_options(game_id)
    if small:
        api_test(pettingzoo_env(game_id, **small), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_seed(game_id: str) -> None:
    seed_test(lambda: pettingzoo_env(game_id, **small_options(game_id)), num_cycles=40)


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_random_sim_with_serialization(game_id: str) -> None:
    register()
    pyspiel.random_sim_test(spiel_load(game_id), num_sims=1, serialize=True, verbose=False)
    small = small_options(game_id)
    if small:
        pyspiel.random_sim_test(spiel_load(game_id, **small), num_sims=1, serialize=True, verbose=False)


def test_register_names_every_game_with_an_encoding() -> None:
    names = register()
    assert names == [spiel_name(g) for g in GAMES]
    assert "blackwhite_swapping" in names and set(names) <= set(pyspiel.registered_names())
    assert spiel_name("grouping-final") == "blackwhite_grouping_final"
    game = pyspiel.load_game("blackwhite_swapping")
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert "show_colours" in kind.parameter_specification


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_observation_is_the_encoding_of_the_view(game_id: str) -> None:
    env = pettingzoo_env(game_id, **small_options(game_id))
    enc = env.encoding
    rng = random.Random(5)
    env.reset(seed=3)
    steps = 0
    for agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        seat = int(agent.split("_")[1])
        if term or trunc:
            env.step(None)
            continue
        view = env.state_.view(seat)
        if enc.tensor:
            assert np.array_equal(obs["observation"].ravel(), np.asarray(enc.observation(view), np.float32))
        else:  # a game without a tensor encoding: its view's JSON text as ASCII codes, padded
            text = bytes(obs["observation"]).rstrip(b"\0").decode("ascii")
            assert json.loads(text) == json.loads(json.dumps(view))
        offered = enc.offered(env.state_, seat)
        assert sorted(np.flatnonzero(obs["action_mask"])) == sorted(enc.encode(a) for a in offered)
        for a in offered:
            assert enc.decode(enc.encode(a)) == a
        env.step(enc.encode(rng.choice(offered)))
        steps += 1
    assert steps > 0


def test_pettingzoo_refuses_an_action_not_offered_and_changes_nothing() -> None:
    env = pettingzoo_env("swapping")
    env.reset(seed=0)
    before = env.state_.view(None), env.agent_selection
    reveal = env.encoding.encode(("reveal", 0))  # not legal in the play phase
    with pytest.raises(ValueError, match="not offered"):
        env.step(reveal)
    assert (env.state_.view(None), env.agent_selection) == before


def test_pettingzoo_later_seat_is_not_told_the_earlier_choice() -> None:
    """Swapping's placements are simultaneous: P2 is asked after P1 and sees the same
    observation whatever P1 chose."""
    seen = []
    for first in (("place", 0, 1, 2), ("place", 8, 7, 6)):
        env = pettingzoo_env("swapping")
        env.reset(seed=0)
        assert env.agent_selection == "player_0"
        env.step(env.encoding.encode(first))
        assert env.agent_selection == "player_1"
        seen.append(env.observe("player_1")["observation"])
    assert np.array_equal(seen[0], seen[1])


def test_pettingzoo_render_draws_the_public_view() -> None:
    env = pettingzoo_env("swapping", render_mode="ansi")
    env.reset(seed=0)
    env.step(env.encoding.encode(("place", 8, 0, 3)))
    text = env.render()
    assert isinstance(text, str) and "public view" in text
    assert "8 0 3" not in text and "my choice" not in text  # P1's pending placement is secret


def _random_states(game_id: str, options: dict[str, Any], count: int, seed: int) -> list[Any]:
    game = spiel_load(game_id, **options)
    rng = random.Random(seed)
    states = []
    state = game.new_initial_state()
    while len(states) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            states.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return states


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_tensors_and_strings_come_from_the_view(game_id: str) -> None:
    enc = encoding(game_id, small_options(game_id))
    for state in _random_states(game_id, small_options(game_id), 30, 1):
        p = state.current_player()
        view = state.engine.view(p)
        trail, _, key = state.information_state_string(p).rpartition("\n")
        assert key == infostate_key(view)  # the trail, then the current view's key
        own = sum(1 for step in state.full_history() if step.player == p)
        assert (len(trail.split("\n")) if trail else 0) == own
        assert state.observation_string(p) == infostate_key(view)
        assert np.allclose(state.information_state_tensor(p), enc.observation(view))
        assert np.allclose(state.observation_tensor(p), enc.observation(view))


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_resample_keeps_the_information_state(game_id: str) -> None:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for state in _random_states(game_id, small_options(game_id), 25, 2):
        p = state.current_player()
        for _ in range(2):
            world = state.resample_from_infostate(p, sampler)
            assert world.current_player() == p
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.legal_actions() == state.legal_actions()


def test_openspiel_trails_survive_clone_and_serialization() -> None:
    game = spiel_load("joust", sets=1, groups=1, chips=2)
    states = _random_states("joust", {"sets": 1, "groups": 1, "chips": 2}, 12, 3)
    state = max(states, key=lambda s: len(s.information_state_string(s.current_player())))
    p = state.current_player()
    copy = state.clone()
    back = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert copy.information_state_string(p) == back.information_state_string(p) == state.information_state_string(p)
    assert "\n" in state.information_state_string(p)
    with pytest.raises(ValueError, match="without perfect recall"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE))


def test_openspiel_refuses_an_illegal_action_and_changes_nothing() -> None:
    state = spiel_load("swapping").new_initial_state()
    before = str(state)
    with pytest.raises(Exception, match="not offered"):
        state.apply_action(spiel_load("swapping").num_distinct_actions() - 1)  # a reveal
    assert str(state) == before


def test_openspiel_ismcts_plays_through_the_adapter() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = spiel_load("swapping", **small_options("swapping"))
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 8, random_state=np.random.RandomState(0))
    state = game.new_initial_state()
    for _ in range(6):  # its resampling asserts the information state is kept
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


TWINS = [(g, t) for g, t in all_twins() if g.replace("_", "-") in GAMES]
PUBLIC = pyspiel.IIGObservationType(perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE)


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_look_the_same_through_the_adapters(game: str, twin: Any) -> None:
    """Two records that differ in a hidden fact look the same, in both adapters, to
    the seat they hide it from (or to a spectator, for public twins): strings,
    tensors, legal actions, the PettingZoo observation and action mask, the public
    observer and ``render()``."""
    a, b = load(twin.a), load(twin.b)
    seat = twin.seat
    game_id, options = a.game.id, a.game.options
    spiel_game = spiel_load(game_id, **options)
    public = spiel_game.make_py_observer(PUBLIC)
    sa = BlackWhiteSpielState(spiel_game, a.clone(track=False))
    sb = BlackWhiteSpielState(spiel_game, b.clone(track=False))
    assert public.string_from(sa, 0) == public.string_from(sb, 0)
    seen = []
    for state in (a, b):
        env = pettingzoo_env(game_id, render_mode="ansi", **options)
        env.reset(seed=0)
        env.state_ = state
        got: list[Any] = [env.render()]
        if seat is not None:
            env.agent_selection = f"player_{seat}"
            obs = env.observe(f"player_{seat}")
            got += [obs["observation"].tobytes(), obs["action_mask"].tobytes()]
        seen.append(got)
    assert seen[0] == seen[1]
    if seat is None:
        return
    assert sa.information_state_string(seat) == sb.information_state_string(seat)
    assert sa.observation_string(seat) == sb.observation_string(seat)
    assert sa.information_state_tensor(seat) == sb.information_state_tensor(seat)
    assert sa.observation_tensor(seat) == sb.observation_tensor(seat)
    if not (sa.is_terminal() or sa.is_chance_node()) and sa.current_player() == seat:
        assert sa.legal_actions() == sb.legal_actions()


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_trails_worked_out_late_match_trails_kept_as_played(game_id: str) -> None:
    """A state asked for its strings only now and then (here every few steps, never
    copied) replays the steps since it was last asked: the strings equal those of
    trails written down at every decision from the deciding seat's own view."""
    options = small_options(game_id)
    game = spiel_load(game_id, **options)
    rng = random.Random(11)
    for _ in range(3):
        state = game.new_initial_state()
        trails: list[list[str]] = [[] for _ in range(game.num_players())]
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            p = state.current_player()
            if steps % 4 == 3:
                for seat in range(game.num_players()):
                    key = infostate_key(state.engine.view(seat))
                    assert state.information_state_string(seat) == infostate_string(trails[seat], key)
            code = rng.choice(state.legal_actions())
            action = encoding(game_id, options).decode(code)
            trails[p].append(trail_entry(infostate_key(state.engine.view(p)), action))
            state.apply_action(code)
            steps += 1
