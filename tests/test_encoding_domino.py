"""The research encoding of ``domino`` and its small variant (options ``board``,
``numbers``): codec, observation, length bound, type, secrecy twins."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from blackwhite.bots import make_bot
from blackwhite.bots.match import play_match
from blackwhite.engine import OptionError, load, make_game
from blackwhite.engine.core import State
from blackwhite.engine.encoding import encoding
from blackwhite.games.domino import INDEX
from blackwhite.drawing.text import domino_board
from blackwhite.games.domino_encoding import DominoEncoding

from .random_play import VARIANTS as ALL_VARIANTS
from .random_play import assert_observations_fit, random_states, replayed, tree_size
from .twins.domino import _record

GAME = "domino"

VARIANTS: list[dict[str, Any]] = [{}, *ALL_VARIANTS[GAME]]


def _random_match(options: dict[str, Any], seed: int) -> tuple[DominoEncoding, list[State]]:
    enc = encoding(GAME, options)
    assert isinstance(enc, DominoEncoding)
    return enc, random_states(enc, seed)


def test_codes_are_the_documented_ones() -> None:
    enc = encoding("domino")
    # 108 spots, each with 15 non-doubles (4 placements) and 6 doubles (2)
    assert enc.num_distinct_actions == 2 + 108 * 72
    assert enc.decode(0) == ("go", "first") and enc.decode(1) == ("go", "second")
    ar, br = INDEX["AR"], INDEX["BR"]
    assert enc.decode(2) == ("place", 0, 0, ar, br, ar)
    assert enc.decode(3) == ("place", 0, 0, ar, br, br)
    assert enc.decode(4) == ("place", 0, 1, ar, br, ar)
    assert enc.decode(6) == ("place", 0, 1, br, ar, br)
    small = encoding("domino", {"board": "5x1", "numbers": 3})
    # CZ:DZ, DZ:EZ, EZ:FZ, FZ:GZ; 10 dominoes: 4 doubles, 6 others
    assert small.num_distinct_actions == 2 + 4 * (4 * 2 + 6 * 4)
    cz, dz = INDEX["CZ"], INDEX["DZ"]
    assert small.decode(2) == ("place", 0, 0, cz, dz, cz)


@pytest.mark.parametrize(
    "action",
    [("go", "third"), ("place", 1, 0, 72, 73, 72), ("place", 0, 1, 0, 10, 0), ("place", 0, 6, 0, 1, 0),
     ("place", 0, 1, 0, 1, 5), ("place", 0, 0, 1, 0, 0), ("place", True, 1, 0, 1, 0), ("reveal", 1)],
)
def test_actions_without_a_code_are_refused_by_name(action: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError, match="has no code") as err:
        encoding("domino").encode(action)
    assert repr(action) in str(err.value)


def test_the_variant_has_no_code_off_its_board_or_set() -> None:
    small = encoding("domino", {"board": "5x1", "numbers": 3})
    cz, dz = INDEX["CZ"], INDEX["DZ"]
    assert small.encode(("place", 0, 3, cz, dz, cz)) >= 2
    with pytest.raises(ValueError, match="has no code"):
        small.encode(("place", 0, 4, cz, dz, cz))  # 4 is above numbers
    with pytest.raises(ValueError, match="has no code"):
        small.encode(("place", 0, 1, INDEX["CY"], cz, cz))  # CY is off the rectangle
    with pytest.raises(ValueError, match="out of range"):
        small.decode(small.num_distinct_actions)


@pytest.mark.parametrize("options", VARIANTS, ids=json.dumps)
def test_observation_shape_bound_and_type(options: dict[str, Any]) -> None:
    for seed in range(4):
        enc, states = _random_match(options, seed)
        assert_observations_fit(enc, states, 8)
        u = enc.utilities(states[-1])
        gt = enc.game_type
        assert sum(u) == gt.utility_sum and sorted(u) == [gt.min_utility, gt.max_utility]
        assert (gt.chance, gt.simultaneous, gt.imperfect_information) == (False, False, True)


def test_the_length_bound_is_tight_on_a_line() -> None:
    enc = encoding("domino", {"board": "4x1", "numbers": 2})
    assert enc.max_game_length == 3
    lengths = {len(_random_match({"board": "4x1", "numbers": 2}, s)[1]) - 1 for s in range(30)}
    assert lengths == {2, 3}  # the middle spot first leaves no room for a second domino


def test_the_placer_sees_its_own_hidden_number() -> None:
    a = load(_record([(0, "go first"), (0, "(3,1) DY:DZ hide DZ")]))
    b = load(_record([(0, "go first"), (0, "(3,5) DY:DZ hide DZ")]))
    enc = encoding(a.game)
    assert enc.observation(a.view(0)) != enc.observation(b.view(0))
    assert enc.observation(a.view(1)) == enc.observation(b.view(1))
    assert enc.observation(a.view(None)) == enc.observation(b.view(None))


@pytest.mark.parametrize(
    "options",
    [{"board": "1x4"}, {"board": "6x2"}, {"board": "3x0"}, {"board": "3X2"}, {"board": 32},
     {"numbers": 0}, {"numbers": 6}, {"numbers": True}, {"numbers": "3"}],
)
def test_bad_variant_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(OptionError, match="board|numbers"):
        make_game("domino", options)


def test_the_variant_refuses_moves_off_its_board_and_set() -> None:
    state = make_game("domino", {"board": "5x1", "numbers": 3}).new_initial_state()
    state.apply_text(0, "go first")
    before = json.dumps(state.view(None))
    with pytest.raises(ValueError, match="no such domino; halves are 0..3"):
        state.apply_text(0, "(0,4) CZ:DZ hide CZ")
    with pytest.raises(ValueError, match="off the board"):
        state.apply_text(0, "(0,1) CY:CZ hide CZ")
    assert json.dumps(state.view(None)) == before
    assert len(state.view(0)["my_unused"]) == 10
    assert state.view(1)["their_unused_count"] == 10
    assert sorted(state.view(None)["board"]) == ["CZ", "DZ", "EZ", "FZ", "GZ"]


def test_a_variant_record_states_its_options_and_replays() -> None:
    _, states = _random_match({"board": "3x2", "numbers": 2}, 5)
    again = replayed(states[-1], {"board": "3x2", "numbers": 2})
    assert domino_board(again.view(None)).count("\n") == 4  # header, Y, link, Z, points


@pytest.mark.parametrize("options", [{"board": "3x2", "numbers": 2}, {"board": "5x4", "numbers": 3}], ids=json.dumps)
def test_resampled_worlds_stay_in_the_variant(options: dict[str, Any]) -> None:
    top = options["numbers"]
    for seed in range(4):
        _, states = _random_match(options, seed)
        for state in states[:-1]:
            seat = state.to_move()[0]
            world = state.resample(seat, random.Random(seed))
            view = world.view(seat)
            assert view["my_unused"] == state.view(seat)["my_unused"]
            assert view["their_unused_count"] == state.view(seat)["their_unused_count"]
            opp = 1 - seat
            for action in world.legal_actions(opp) if world.to_move() == [opp] else []:
                assert action[0] == "go" or action[2] <= top
            for cell in world.host_view()["board"].values():  # every number, hidden too
                assert cell is None or cell["number"] <= top


@pytest.mark.parametrize("bots", [("heuristic", "random"), ("ismcts", "heuristic")])
def test_bots_play_the_variants(bots: tuple[str, str]) -> None:
    players = [make_bot(b, **({"iterations": 60} if b == "ismcts" else {})) for b in bots]
    for options in ({"board": "5x1", "numbers": 3}, {"board": "3x2", "numbers": 2}):
        assert play_match(make_game("domino", options), players, 1).is_over()


def test_the_smallest_variant_is_small_enough_to_solve() -> None:
    nodes, infos = tree_size(encoding("domino", {"board": "5x1", "numbers": 3}))
    assert nodes < 1000 and infos < nodes  # hidden halves merge histories
