"""Seeded matches the tests drive: under a research encoding's offered actions (the way
the adapters drive a game), and with a game's heuristic policy at some seats.

Under an encoding, the seat asked is the lowest awaited seat that has not submitted; it plays a
uniformly random action among the encoding's offered ones; chance is drawn one small
draw at a time (``chance_outcomes``/``chance_event``), each draw checked to be a
distribution.  The encoding tests of every game share these drivers, so a promise
checked on the way (something is offered, the length bound holds) is checked for all.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any, Callable, Container, Iterator

from blackwhite.bots.heuristic import policy_for
from blackwhite.engine import load, make_game, outcome_json, to_record
from blackwhite.engine.core import Action, ChanceEvent, State
from blackwhite.engine.encoding import Encoding

class _Variants(dict[str, list[dict[str, Any]]]):
    """Options the encoding tests play beside a game's standard ones: its
    ``Game.variants`` (the game declares them; no list of games here)."""

    def __missing__(self, game_id: str) -> list[dict[str, Any]]:
        return [dict(v) for v in type(make_game(game_id)).variants]


#: game id -> the option sets it declares beside its defaults (``Game.variants``)
VARIANTS: dict[str, list[dict[str, Any]]] = _Variants()

#: sees every decision of a match before it is made: (state, seat asked, offered)
Check = Callable[[State, int, list[Action]], None]


def asked(state: State) -> int:
    """The seat the adapters ask: the lowest awaited seat that has not submitted."""
    waiting = [s for s in state.to_move() if s not in state.pending]
    assert waiting, "a state that is neither over nor chance awaits no seat"
    return min(waiting)


def draw_chance(enc: Encoding, state: State, rng: random.Random, weighted: bool = True) -> ChanceEvent:
    """The pending chance event, built from the encoding's small draws.

    ``weighted``: each draw by its probability; otherwise uniformly among the listed
    outcomes (the joust tests' lots, whose outcomes are equally likely anyway).
    """
    top: int | None = getattr(enc, "max_chance_outcomes", None)
    draws: list[int] = []
    while True:
        outcomes = enc.chance_outcomes(state, draws)
        # the adapters' path, which trusts draws taken from the outcomes, answers alike
        assert enc.next_chance_outcomes(state, list(draws)) == outcomes
        if not outcomes:
            return enc.chance_event(state, draws)
        total = sum(p for _, p in outcomes)
        assert math.isclose(total, 1.0, abs_tol=1e-9), (outcomes, total)
        assert all(p > 0 for _, p in outcomes)
        assert len(outcomes) < 1000, "a chance node lists too many outcomes"
        values = [o for o, _ in outcomes]
        assert len(set(values)) == len(values), "a draw is listed twice"
        if top is not None:
            assert all(0 <= v < top for v in values), "a draw outside max_chance_outcomes"
        if weighted:
            draws.append(rng.choices(values, weights=[p for _, p in outcomes])[0])
        else:
            draws.append(rng.choice(values))


def random_match(
    enc: Encoding, seed: int, check: Check | None = None, *, any_seat: bool = False, weighted: bool = True
) -> tuple[State, int]:
    """A match of random offered actions; returns its end and its number of decisions.

    ``check`` sees every decision first; ``any_seat`` asks a random unsubmitted
    awaited seat instead of the lowest (another driver an adapter may be).
    """
    rng = random.Random(seed)
    state = enc.game.new_initial_state()
    decisions = 0
    while not state.is_over():
        if state.is_chance():
            state.apply_chance(draw_chance(enc, state, rng, weighted))
            continue
        seat = asked(state)
        if any_seat:
            seat = rng.choice([s for s in state.to_move() if s not in state.pending])
        offered = enc.offered(state, seat)
        assert offered, f"P{seat + 1} is asked but offered nothing"
        if check is not None:
            check(state, seat, offered)
        state.apply(seat, offered[rng.randrange(len(offered))])
        decisions += 1
        assert decisions <= enc.max_game_length, "the match outlasts max_game_length"
    return state, decisions


def random_states(enc: Encoding, seed: int, check: Check | None = None) -> list[State]:
    """The states of :func:`random_match` before each decision, in order, then its end."""
    seen: list[State] = []

    def keep(state: State, seat: int, offered: list[Action]) -> None:
        seen.append(state.clone())
        if check is not None:
            check(state, seat, offered)

    end, _ = random_match(enc, seed, keep)
    return [*seen, end]


def assert_observations_fit(enc: Encoding, states: list[State], samples: int, unit: bool = True) -> None:
    """About ``samples`` of a match's states (and its end) seen by every seat and the
    public: each observation has the declared length (with ``unit``, values in [0, 1]:
    yellow's counts are not scaled); the layout's blocks add up to that length; the
    match kept to ``max_game_length``."""
    (size,) = enc.observation_shape
    assert sum(n for _, n in enc.layout) == size  # type: ignore[attr-defined]
    for state in states[:: max(1, len(states) // samples)] + states[-1:]:
        for viewer in [*range(state.num_seats), None]:
            obs = enc.observation(state.view(viewer))
            assert len(obs) == size
            assert not unit or all(0.0 <= x <= 1.0 for x in obs)
    assert len(states) - 1 <= enc.max_game_length


def tree_size(enc: Encoding) -> tuple[int, int]:
    """(decision nodes, information states) of the whole game tree under ``offered``,
    the seat asked as in :func:`random_match`: what a solver such as CFR+ enumerates."""
    nodes = 0
    infos: set[tuple[int, str]] = set()
    stack = [enc.game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_over():
            continue
        seat = asked(state)
        nodes += 1
        infos.add((seat, state.info_key(seat)))
        for action in enc.offered(state, seat):
            child = state.clone(track=False)
            child.apply_fast(seat, action)
            stack.append(child)
    return nodes, len(infos)


def replayed(final: State, options: dict[str, Any]) -> State:
    """``final`` replayed from its record sent through JSON: the record states the
    options, and the replay gives every seat and the public the same view and outcome."""
    rec = to_record(final)
    assert rec["options"] == options
    again = load(json.loads(json.dumps(rec)))
    for viewer in [*range(final.num_seats), None]:
        assert again.view(viewer) == final.view(viewer)
    assert outcome_json(again) == outcome_json(final)
    return again


def decisions(state: State, rng: random.Random) -> Iterator[int]:
    """Play ``state`` to its end, drawing each chance event with ``rng``: the first
    awaited seat before each decision, which the caller makes (it must apply an action)."""
    while not state.is_over():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        yield state.to_move()[0]


def random_walk(game_id: str, options: dict[str, Any] | None, seed: int,
                prefer: tuple[str, ...] = ()) -> Iterator[State]:
    """A seeded random match: the state before each event (a chance draw, or the first
    awaited seat's action), then its end.  The seat plays uniformly at random; with
    ``prefer``, nine times in ten one of its actions of those tags when it has any (so
    that matches last).  The state is the live one: clone it to keep it."""
    state = make_game(game_id, options).new_initial_state()
    rng = random.Random(seed)
    while True:
        yield state
        if state.is_over():
            return
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = state.to_move()[0]
        acts = state.legal_actions(seat)
        liked = [a for a in acts if a[0] in prefer]
        state.apply_fast(seat, rng.choice(liked if liked and rng.random() < 0.9 else acts))


def policy_match(
    game_id: str, options: dict[str, Any], seed: int, policy_seats: Container[int] | None = None
) -> tuple[State, set[str]]:
    """A seeded match in which the game's heuristic policy plays ``policy_seats`` (every
    seat: None) and the other seats play uniformly at random, chance drawn by the same
    generator; every action the policy returns must be legal.  Returns the end and the
    kinds (first words) of the actions the policy chose."""
    policy = policy_for(game_id)
    assert policy is not None, f"{game_id} has no heuristic policy"
    rng = random.Random(seed)
    state = make_game(game_id, options).new_initial_state()
    used: set[str] = set()
    for seat in decisions(state, rng):
        legal = state.legal_actions(seat)
        if policy_seats is None or seat in policy_seats:
            action = policy(state.view(seat), legal, rng)
            assert action in legal, (state.format_action(action), state.view(seat).get("phase"))
            used.add(action[0])
        else:
            action = legal[rng.randrange(len(legal))]
        state.apply(seat, action)
    return state, used
