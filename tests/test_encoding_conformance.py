"""One generic test of every game's research encoding (blackwhite/engine/encoding.py).

Whatever the game, the adapters rely on the same promises: the seat they ask (the
lowest awaited seat that has not submitted) is always offered something; every
offered action has a code in range that decodes back to it; the observation has the
declared length for every seat and for a spectator; a match never outlasts
``max_game_length``; utilities stay in the declared range (and sum to the declared
constant when the type says so); chance events built from split draws are accepted
by the engine; two different views never give one tensor; the secrecy twins
(tests/twins/) give their seat the same tensor and offer.  A game whose encoding
module is not written yet is skipped.
"""

from __future__ import annotations

import importlib
import json
import math
from typing import Any

import pytest

from blackwhite.engine import load
from blackwhite.engine.core import Action, State
from blackwhite.engine.encoding import Encoding, encoding
from blackwhite.engine.registry import entry, game_ids, make_game
from tests.random_play import VARIANTS, random_match, random_states
from tests.twins import Twin, all_twins

GAMES = game_ids()
CASES = [(gid, options) for gid in GAMES for options in [{}, *VARIANTS[gid]]]
TWINS = all_twins()
#: games whose legal actions include several spellings of one action, only one of
#: which has a code (yellow's submissions; test_encoding_yellow checks the offered ones)
SPELLINGS = {"yellow"}
CODEC_CASES = [(gid, options) for gid, options in CASES if gid not in SPELLINGS]


def _encoding_or_skip(gid: str) -> Encoding:
    ref = entry(gid).encoding
    if ref is None:  # the game's view observed as text (ViewEncoding), when the adapters take it
        try:
            return encoding(make_game(gid))
        except LookupError as exc:
            pytest.skip(str(exc))
    module = ref.partition(":")[0]
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            pytest.skip(f"{module} is not written yet")
        raise
    return encoding(make_game(gid))


def _play(enc: Encoding, seed: int, check_every: bool) -> tuple[State, int]:
    """A random match under ``offered`` (tests/random_play.py); with ``check_every``,
    every decision's observations and codes are checked too."""

    def check(state: State, seat: int, offered: list[Action]) -> None:
        size = math.prod(enc.observation_shape)
        for viewer in [*range(state.num_seats), None]:
            assert len(enc.observation(state.view(viewer))) == size
        codes = [enc.encode(a) for a in offered]
        assert all(0 <= c < enc.num_distinct_actions for c in codes)
        assert len(set(codes)) == len(codes), "two offered actions share a code"
        assert [enc.decode(c) for c in codes] == offered

    return random_match(enc, seed, check if check_every else None)


@pytest.mark.parametrize("gid", GAMES)
def test_random_play_keeps_every_promise(gid: str) -> None:
    enc = _encoding_or_skip(gid)
    gt = enc.game_type
    assert gt.num_seats == enc.game.num_seats
    assert gt.min_utility <= gt.max_utility
    for seed in range(6):
        state, _ = _play(enc, seed, check_every=seed < 2)
        utilities = enc.utilities(state)
        assert len(utilities) == gt.num_seats
        assert all(gt.min_utility <= u <= gt.max_utility for u in utilities)
        if gt.constant_sum:
            assert math.isclose(sum(utilities), gt.utility_sum, abs_tol=1e-9)


@pytest.mark.parametrize("gid", GAMES)
def test_codes_out_of_range_and_foreign_actions_are_refused(gid: str) -> None:
    enc = _encoding_or_skip(gid)
    n = enc.num_distinct_actions
    for bad in (-1, n, n + 7, True, 1.5, "3"):
        with pytest.raises(ValueError) as err:
            enc.decode(bad)  # type: ignore[arg-type]
        assert str(bad) in str(err.value), "the error names the code"
    for bad_action in [("no-such-action",), ("resign",), ()]:
        with pytest.raises(ValueError):
            enc.encode(bad_action)


@pytest.mark.parametrize("gid", GAMES)
def test_the_spectator_view_encodes_too(gid: str) -> None:
    enc = _encoding_or_skip(gid)
    state = enc.game.new_initial_state()
    size = math.prod(enc.observation_shape)
    assert len(enc.observation(state.view(None))) == size
    observations = [enc.observation(state.view(s)) for s in range(state.num_seats)]
    assert all(len(o) == size for o in observations)
    assert all(isinstance(x, float) for x in observations[0])


@pytest.mark.parametrize("gid,options", CASES, ids=[f"{g}{json.dumps(o)}" for g, o in CASES])
def test_the_tensor_loses_nothing_of_the_view(gid: str, options: dict[str, Any]) -> None:
    """Two different views (the narrative log aside) never give one tensor."""
    _encoding_or_skip(gid)
    enc = encoding(gid, options)
    if not enc.tensor:
        pytest.skip(f"{gid} has no tensor: its observations are its views as text")
    seen: dict[tuple[float, ...], str] = {}
    for seed in range(3):
        for state in random_states(enc, seed):
            for viewer in [*range(state.num_seats), None]:
                view = state.view(viewer)
                view.pop("log")
                key = json.dumps(view, sort_keys=True)
                assert seen.setdefault(tuple(enc.observation(view)), key) == key


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_give_the_seat_the_same_tensor(game: str, twin: Twin) -> None:
    """Two records that differ in a fact hidden from the seat, replayed independently,
    give it one tensor and one offer; where a view does tell them apart (another
    seat's, or the spectator's), so does its tensor: it holds every fact of the view."""
    a, b = load(twin.a), load(twin.b)
    _encoding_or_skip(a.game.id)
    enc = encoding(a.game)
    assert enc.observation(a.view(twin.seat)) == enc.observation(b.view(twin.seat))
    if twin.seat is not None:
        assert enc.offered(a, twin.seat) == enc.offered(b, twin.seat)
    for seat in [*range(a.num_seats), None]:
        va, vb = a.view(seat), b.view(seat)
        differs = {k for k in va if va[k] != vb[k]} - {"log"}
        if differs:
            assert enc.observation(va) != enc.observation(vb), f"seat {seat}: {sorted(differs)}"


@pytest.mark.parametrize("gid,options", CODEC_CASES, ids=[f"{g}{json.dumps(o)}" for g, o in CODEC_CASES])
def test_every_legal_action_of_random_play_round_trips(gid: str, options: dict[str, Any]) -> None:
    """Not only the offered actions: every legal action of every awaited seat has its
    own code in range, which decodes back to it."""
    _encoding_or_skip(gid)
    enc = encoding(gid, options)
    for seed in range(4):
        for state in random_states(enc, seed)[:-1]:
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                codes = [enc.encode(a) for a in legal]
                assert all(0 <= c < enc.num_distinct_actions for c in codes)
                assert len(set(codes)) == len(codes)
                assert [enc.decode(c) for c in codes] == legal
