"""The input rule every game's encoding shares (blackwhite/engine/encoding.py).

Adapters hand codes back as NumPy integers; hostile callers hand in lists, bools and
floats.  One rule decides for all seven games: a code is any integer type but a bool,
an action is a tuple of strings, plain ints and tuples of those, chance draws are
whole numbers; everything else is a ``ValueError`` naming the input, never a
``TypeError`` and never a code for a non-action.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from blackwhite.engine import OptionError, make_game
from blackwhite.engine.core import State
from blackwhite.engine.encoding import Encoding, encoding
from blackwhite.engine.registry import game_ids

GAMES = game_ids()

MALFORMED: list[Any] = [
    ([],),
    ({},),
    ("place", [1], 2, 3),
    ("go", ["first"]),
    ("sub", ["b"], 1),
    ("group", [0, 1], (2, 3, 4), (5, 6, 7, 8)),
    ("raise", [1]),
    ("bid", {}),
    ("play", [1], 1, 1),
    ("raise", True),
    ("propose", 2.0),
    ("bid", True),
    ("next", True),
    ("swap", 1.0, 2),
    ("sub", "", True),
    ("group", (0, True), (2, 3, 4), (5, 6, 7, 8)),
    (float("nan"),),
    None,
    5,
    "call",
    (),
    (1, 2),
]


@pytest.mark.parametrize("gid", GAMES)
@pytest.mark.parametrize("action", MALFORMED, ids=repr)
def test_encode_refuses_a_malformed_action_with_a_value_error_naming_it(gid: str, action: Any) -> None:
    with pytest.raises(ValueError) as err:
        encoding(gid).encode(action)
    assert repr(action) in str(err.value)


def _a_state_with_offers(enc: Encoding, seed: int) -> list[tuple[State, int]]:
    """A few positions of a random match under ``offered``, with the asked seat."""
    rng = random.Random(seed)
    state = enc.game.new_initial_state()
    out: list[tuple[State, int]] = []
    for _ in range(40):
        if state.is_over():
            break
        if state.is_chance():
            state.play_chance(rng)
            continue
        seat = min(s for s in state.to_move() if s not in state.pending)
        out.append((state.clone(), seat))
        offered = enc.offered(state, seat)
        state.apply(seat, offered[rng.randrange(len(offered))])
    return out


@pytest.mark.parametrize("gid", GAMES)
def test_offered_actions_round_trip_and_numpy_codes_decode(gid: str) -> None:
    enc = encoding(gid)
    for state, seat in _a_state_with_offers(enc, 1):
        for action in enc.offered(state, seat):
            code = enc.encode(action)
            assert enc.decode(code) == action
            assert enc.decode(np.int64(code)) == action
            assert enc.decode(np.int32(code)) == action


@pytest.mark.parametrize("gid", GAMES)
@pytest.mark.parametrize("code", [True, False, 1.0, "1", None, [1], float("nan"), -1, 10**7, np.int64(-1), np.float64(1.0)], ids=repr)
def test_decode_refuses_what_is_not_a_code_naming_it(gid: str, code: Any) -> None:
    with pytest.raises(ValueError) as err:
        encoding(gid).decode(code)
    assert repr(code) in str(err.value)


def test_options_with_a_game_object_are_refused_not_ignored() -> None:
    game = make_game("swapping")
    with pytest.raises(ValueError, match="tiles"):
        encoding(game, {"tiles": 3})
    assert encoding(game).num_distinct_actions == 533
    assert encoding("swapping", {"tiles": 3}).num_distinct_actions == 11


@pytest.mark.parametrize("board", ["5x1\n", "5x1\r", " 5x1", "5x1 ", "\n5x1"])
def test_domino_board_option_must_match_whole(board: str) -> None:
    with pytest.raises(OptionError) as err:
        make_game("domino", {"board": board, "numbers": 3})
    assert repr(board) in str(err.value)


def _grouping_at_a_deal() -> State:
    state = make_game("grouping").new_initial_state()
    state.apply_text(0, "group A=0,1 B=2,3,4 C=5,6,7,8")
    state.apply_text(1, "group A=0,1 B=2,3,4 C=5,6,7,8")
    assert state.chance_kind() == "deal"
    return state


@pytest.mark.parametrize("draws", [[True], [0.0], ["0"], [None], [[1]], [0, True], [0, 1.0]], ids=repr)
def test_grouping_draws_must_be_whole_numbers(draws: list[Any]) -> None:
    state = _grouping_at_a_deal()
    enc = encoding("grouping")
    for method in (enc.chance_outcomes, enc.chance_event):
        with pytest.raises(ValueError) as err:
            method(state, draws)
        assert "is not a whole number" in str(err.value)


def test_grouping_draws_accept_numpy_integers() -> None:
    state = _grouping_at_a_deal()
    enc = encoding("grouping")
    assert enc.chance_outcomes(state, [np.int64(0)]) == enc.chance_outcomes(state, [0])


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
@pytest.mark.parametrize("draws", [[True], [1.0], ["x"], [None], [[1]], [2, True]], ids=repr)
def test_joust_draws_must_be_whole_numbers(gid: str, draws: list[Any]) -> None:
    state = make_game(gid).new_initial_state()
    enc = encoding(gid)
    with pytest.raises(ValueError) as err:
        enc.chance_outcomes(state, draws)
    assert "is not a whole number" in str(err.value)


def test_grouping_not_at_a_deal_says_what_the_state_awaits() -> None:
    state = make_game("grouping").new_initial_state()
    with pytest.raises(ValueError) as err:
        encoding("grouping").chance_outcomes(state, [])
    message = str(err.value)
    assert "object at 0x" not in message and "awaits seat(s) P1, P2" in message


def test_domino_variant_that_runs_out_of_dominoes_says_so() -> None:
    """With numbers 1 each player owns 3 dominoes; on a 5x9 board the spots outlast
    them, so the end note must say who ran out, not that no placement remains."""
    from blackwhite.bots import make_bot
    from blackwhite.bots.match import play_match

    game = make_game("domino", {"board": "5x9", "numbers": 1})
    final = play_match(game, [make_bot("random"), make_bot("random")], 0)
    notes = [text for _seat, text in final.log if "the game is over" in text]
    assert len(notes) == 1
    assert "has no domino left to place" in notes[0]
    assert "No legal placement remains" not in notes[0]
