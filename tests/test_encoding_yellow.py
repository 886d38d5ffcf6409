"""The research encoding of ``yellow`` and its small variant (options ``rounds``,
``target``): codec with its boost cap, observation, length bound, ranking utilities,
secrecy twins."""

from __future__ import annotations

import json
from typing import Any

import pytest

from blackwhite.bots import make_bot
from blackwhite.bots.match import play_match
from blackwhite.engine import OptionError, load, make_game
from blackwhite.engine.core import Action, State
from blackwhite.engine.encoding import encoding
from blackwhite.games.yellow_encoding import YellowEncoding, canonical, step_strings

from .random_play import assert_observations_fit, random_states, replayed
from .twins.yellow import ROUND_1, record

GAME = "yellow"

VARIANTS: list[dict[str, Any]] = [
    {},
    {"garnets": [9, 3, 45]},
    {"rounds": 4, "target": 2},
    {"rounds": 1, "target": 1, "garnets": [6, 0, 0]},
]


def _random_match(options: dict[str, Any], seed: int) -> tuple[YellowEncoding, list[State]]:
    enc = encoding(GAME, options)
    assert isinstance(enc, YellowEncoding)

    def check(state: State, seat: int, offered: list[Action]) -> None:
        assert ("sub", "", 0) in offered

    return enc, random_states(enc, seed, check)


@pytest.mark.parametrize("options", VARIANTS, ids=json.dumps)
def test_offered_actions_round_trip_and_codes_fit(options: dict[str, Any]) -> None:
    for seed in range(3):
        enc, states = _random_match(options, seed)
        for state in states[:-1:3]:
            seat = min(s for s in state.to_move() if s not in state.pending)
            legal = state.legal_actions(seat)
            offered = enc.offered(state, seat)
            assert len(offered) == len(legal)  # one per outcome, as the engine lists them
            for action in offered:
                state.clone().apply(seat, action)  # legal: raises otherwise
                code = enc.encode(action)
                assert 0 <= code < enc.num_distinct_actions
                assert enc.decode(code) == action
            for action in legal:
                assert ("sub", canonical(action[1]), action[2]) in offered


def test_codes_are_the_documented_ones() -> None:
    enc = encoding("yellow")
    assert enc.num_distinct_actions == 18
    assert enc.decode(0) == ("sub", "", 0)
    assert enc.decode(8) == ("sub", "", 8)
    assert enc.decode(9) == ("sub", "x", 0)
    assert step_strings(1) == ["", "b", "x", "bx", "xb", "xbx"]
    rich = encoding("yellow", {"garnets": [45, 0, 0]})
    assert len(rich.steps) == 8198 and rich.num_distinct_actions == 73782
    four = encoding("yellow", {"garnets": [12, 0, 0]})
    assert len(four.steps) == 56 and four.num_distinct_actions == 504
    assert rich.steps[:6] == ["", "b", "x", "bb", "bx", "xb"]
    assert rich.encode(("sub", "bx", 3)) == 9 * 4 + 3
    mid = encoding("yellow", {"garnets": [7, 0, 0]})  # two boosts at most
    assert mid.boosts == 2


def test_every_legal_submission_of_a_rich_seat_has_a_code() -> None:
    """With 45 garnets a seat can boost 15 times; the old cap of 4 boosts left
    submissions like ('sub', 'bbxbbxbx', 5), met in bots' play, without a code."""
    state = make_game("yellow", {"garnets": [45, 9, 0]}).new_initial_state()
    enc = encoding(state.game)
    legal = state.legal_actions(0)
    assert any(a[1].count("b") == 15 for a in legal)
    for action in legal:
        code = enc.encode(("sub", canonical(action[1]), action[2]))
        assert enc.decode(code) == ("sub", canonical(action[1]), action[2])
    # the reviewer's submission from a heuristic bot's play: coded in its canonical spelling
    assert enc.decode(enc.encode(("sub", "bbxbxbbx", 5))) == ("sub", "bbxbxbbx", 5)
    with pytest.raises(ValueError, match="'bbxbxbbx'"):
        enc.encode(("sub", "bbxbbxbx", 5))
    assert enc.decode(enc.encode(("sub", "b" * 15, 0))) == ("sub", "b" * 15, 0)
    game = make_game("yellow", {"garnets": [45, 9, 0], "rounds": 6})
    final = play_match(game, [make_bot("heuristic"), make_bot("random"), make_bot("heuristic")], 0)
    for round_subs in final.submissions:
        for _, steps, n in round_subs:
            assert enc.decode(enc.encode(("sub", canonical(steps), n))) == ("sub", canonical(steps), n)


def test_a_reordered_submission_is_refused_naming_its_coded_twin() -> None:
    """Middle runs of boosts in another order give the same outcome; only the
    shortest-first spelling has a code, so decode(encode(a)) == a always holds."""
    enc = encoding("yellow", {"garnets": [45, 0, 0]})
    with pytest.raises(ValueError, match=r"'xbxbbx'") as err:
        enc.encode(("sub", "xbbxbx", 2))
    assert "('sub', 'xbbxbx', 2)" in str(err.value)
    assert canonical("xbbxbx") == "xbxbbx"
    assert canonical("bbbxbbxbxb") == "bbbxbxbbxb"


@pytest.mark.parametrize(
    "action",
    [("sub", "xx", 0), ("sub", "", 9), ("sub", "", -1), ("sub", "q", 1), ("sub", "", True),
     ("sub", "b", 1), ("play", 1), ("sub", 1, 1)],
)
def test_actions_without_a_code_are_refused_by_name(action: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError, match="has no code") as err:
        encoding("yellow").encode(action)
    assert repr(action) in str(err.value)


@pytest.mark.parametrize("options", VARIANTS, ids=json.dumps)
def test_observation_shape_bound_and_ranking_utilities(options: dict[str, Any]) -> None:
    for seed in range(3):
        enc, states = _random_match(options, seed)
        assert_observations_fit(enc, states, 10, unit=False)
        final = states[-1]
        u = enc.utilities(final)
        ranking = final.result().ranking
        assert ranking is not None
        assert [u[s] for s in ranking] == [1.0, 0.0, -1.0]
        assert sum(u) == enc.game_type.utility_sum


def test_a_resigned_seat_is_last_in_utilities() -> None:
    state = make_game("yellow").new_initial_state()
    state.apply_text(0, "play 4")
    state.apply_text(1, "resign")
    enc = encoding(state.game)
    assert enc.utilities(state)[1] == -1.0
    assert sum(enc.utilities(state)) == 0.0


def test_the_submitting_seat_sees_its_own_pending_choice() -> None:
    a, b = load(record(ROUND_1 + [(0, "exchange play 2")])), load(record(ROUND_1 + [(0, "play 8")]))
    enc = encoding(a.game)
    assert enc.observation(a.view(0)) != enc.observation(b.view(0))
    for other in (1, 2, None):
        assert enc.observation(a.view(other)) == enc.observation(b.view(other))


def test_views_are_seat_relative() -> None:
    state = load(record(ROUND_1))
    enc = encoding(state.game)
    # P3 scored in round 1: its own points block says 1 from its seat, not from P1's
    obs = {s: enc.observation(state.view(s)) for s in (0, 2)}
    assert obs[0] != obs[2]


@pytest.mark.parametrize(
    "options", [{"rounds": 0}, {"rounds": 51}, {"rounds": True}, {"target": 0}, {"target": 10}, {"target": "3"}]
)
def test_bad_variant_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(OptionError, match="rounds|target"):
        make_game("yellow", options)


def test_the_variant_ends_early_and_its_record_replays() -> None:
    state = make_game("yellow", {"rounds": 3, "target": 1}).new_initial_state()
    for seat, text in ROUND_1:
        state.apply_text(seat, text)
    assert state.is_over() and state.result().winner == 2  # one point wins at once
    replayed(state, {"rounds": 3, "target": 1})
    long = make_game("yellow", {"rounds": 2}).new_initial_state()
    for _ in range(2):
        for seat in range(3):
            long.apply_text(seat, "play 0")
    assert long.is_over() and long.view(None)["max_rounds"] == 2


@pytest.mark.parametrize("bots", [("heuristic", "random", "ismcts")])
def test_bots_play_the_variant(bots: tuple[str, ...]) -> None:
    players = [make_bot(b, **({"iterations": 40} if b == "ismcts" else {})) for b in bots]
    game = make_game("yellow", {"rounds": 6, "target": 3, "garnets": [3, 3, 3]})
    for seed in range(2):
        assert play_match(game, players, seed).is_over()
