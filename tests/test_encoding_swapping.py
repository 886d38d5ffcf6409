"""The research encoding of ``swapping`` and its small variant (options ``tiles``,
``max_ties``): codec, observation, length bound, type, secrecy twins."""

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
from blackwhite.games.swapping_sampler import _undo
from blackwhite.games.swapping_encoding import SwappingEncoding

from .random_play import VARIANTS as ALL_VARIANTS
from .random_play import assert_observations_fit, random_states, replayed, tree_size
from .twins.swapping import PLAY, ROUND_A, ROUND_B, record

GAME = "swapping"

VARIANTS: list[dict[str, Any]] = [{}, *ALL_VARIANTS[GAME]]


def _random_match(options: dict[str, Any], seed: int) -> tuple[SwappingEncoding, list[State]]:
    """A random match; every state met before a seat's decision, in order."""
    enc = encoding(GAME, options)
    assert isinstance(enc, SwappingEncoding)
    return enc, random_states(enc, seed)


def test_codes_are_the_documented_ones() -> None:
    enc = encoding("swapping")
    assert enc.num_distinct_actions == 504 + 20 + 9
    assert enc.encode(("place", 0, 1, 2)) == 0
    assert enc.encode(("place", 0, 1, 3)) == 1
    assert enc.encode(("place", 8, 7, 6)) == 503
    assert enc.encode(("swap", 0, 1)) == 504
    assert enc.encode(("swap", 8, 7)) == 523
    # the engine refuses ('swap', 7, 8) (black first), so it has no code either
    with pytest.raises(ValueError, match=r"\('swap', 8, 7\)"):
        enc.encode(("swap", 7, 8))
    assert enc.encode(("reveal", 0)) == 524
    assert enc.decode(532) == ("reveal", 8)
    small = encoding("swapping", {"tiles": 3})
    assert small.num_distinct_actions == 6 + 2 + 3
    assert [small.decode(c) for c in range(6, 11)] == [
        ("swap", 0, 1), ("swap", 2, 1), ("reveal", 0), ("reveal", 1), ("reveal", 2)
    ]


@pytest.mark.parametrize(
    "action",
    [("place", 1, 1, 2), ("place", 0, 1, 9), ("swap", 0, 2), ("swap", 1, 3), ("reveal", 9),
     ("reveal", True), ("reveal", -1), ("place", 0, 1), ("go", "first"), ("reveal", "1")],
)
def test_actions_without_a_code_are_refused_by_name(action: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError, match="has no code") as err:
        encoding("swapping").encode(action)
    assert repr(action) in str(err.value)


def test_the_small_variant_has_no_code_for_big_tiles() -> None:
    small = encoding("swapping", {"tiles": 3})
    with pytest.raises(ValueError, match="3 tiles"):
        small.encode(("reveal", 5))
    with pytest.raises(ValueError, match="0..10"):
        small.decode(11)


@pytest.mark.parametrize("options", VARIANTS, ids=json.dumps)
def test_observation_has_its_shape_and_matches_are_within_the_bound(options: dict[str, Any]) -> None:
    for seed in range(6):
        enc, states = _random_match(options, seed)
        assert_observations_fit(enc, states, 12)


def test_length_bound_is_reached_only_by_long_matches() -> None:
    enc = encoding("swapping", {"tiles": 3, "max_ties": 1})
    # one game: a placement, two swaps and three reveals per seat
    assert enc.max_game_length == 2 * (1 + 2 + 3)
    longest = max(len(_random_match({"tiles": 3, "max_ties": 1}, s)[1]) - 1 for s in range(40))
    assert longest == enc.max_game_length  # revealing a black first keeps both swaps


def test_game_type_is_honest_on_finished_matches() -> None:
    for options in VARIANTS:
        enc = encoding("swapping", options)
        gt = enc.game_type
        assert (gt.num_seats, gt.chance, gt.imperfect_information, gt.simultaneous) == (2, False, True, True)
        for seed in range(5):
            final = _random_match(options, seed)[1][-1]
            u = enc.utilities(final)
            assert sum(u) == gt.utility_sum == 0.0
            assert sorted(u) == [gt.min_utility, gt.max_utility]  # never a draw


def test_the_seat_that_knows_the_difference_sees_it() -> None:
    """Twins differ in P1's own tiles or swaps: P1's own tensor must tell them apart."""
    pairs = [
        (record(ROUND_A), record(ROUND_B)),
        (record(PLAY + [(0, "swap 8 1"), (1, "swap 2 1")]), record(PLAY + [(0, "swap 0 3"), (1, "swap 2 1")])),
    ]
    for ra, rb in pairs:
        a, b = load(ra), load(rb)
        enc = encoding(a.game)
        assert enc.observation(a.view(0)) != enc.observation(b.view(0))
        assert enc.observation(a.view(1)) == enc.observation(b.view(1))


def test_own_pending_choice_is_in_the_tensor_and_hidden_from_the_other() -> None:
    game = make_game("swapping")
    enc = encoding(game)
    a, b = game.new_initial_state(), game.new_initial_state()
    a.apply_text(0, "place 8 0 3")
    b.apply_text(0, "place 4 1 3")
    assert enc.observation(a.view(0)) != enc.observation(b.view(0))
    assert enc.observation(a.view(1)) == enc.observation(b.view(1))
    assert enc.observation(a.view(None)) == enc.observation(b.view(None))


@pytest.mark.parametrize("bad", [0, 2, 4, 12, True, "9", 9.0, None])
def test_bad_tile_counts_are_refused(bad: Any) -> None:
    with pytest.raises(OptionError, match="tiles"):
        make_game("swapping", {"tiles": bad})


@pytest.mark.parametrize("bad", [0, 4, True, "1"])
def test_bad_tie_limits_are_refused(bad: Any) -> None:
    with pytest.raises(OptionError, match="max_ties"):
        make_game("swapping", {"max_ties": bad})


def test_a_variant_record_states_its_options_and_replays() -> None:
    enc, states = _random_match({"tiles": 3, "max_ties": 1}, 11)
    final = states[-1]
    replayed(final, {"tiles": 3, "max_ties": 1})
    # a 3-tile game ends after one game at most: a tie goes straight to the DMO
    assert final.view(None)["game_no"] == 1


def test_variant_notation_names_the_smaller_range() -> None:
    state = make_game("swapping", {"tiles": 6}).new_initial_state()
    with pytest.raises(ValueError, match="0..5"):
        state.apply_text(0, "place 0 1 7")


def _totals_of(world: Any) -> list[tuple[int, int]]:
    """The running totals the world's first rows (swaps undone) would have announced."""
    firsts = [_undo(world.rows[s], world.swaps[s]) for s in (0, 1)]
    out = []
    for k in range(1, world.round + 1):
        won = [0, 0]
        for p in range(3 * k):
            a, b = firsts[0][p], firsts[1][p]
            if a >= 0 and b >= 0 and a != b:
                won[0 if a > b else 1] += 1
        out.append((won[0], won[1]))
    return out


@pytest.mark.parametrize(
    "options", [{"tiles": 3}, {"tiles": 6}, {"tiles": 6, "show_colours": True}], ids=json.dumps
)
def test_resampled_worlds_of_a_variant_agree_with_the_view(options: dict[str, Any]) -> None:
    for seed in range(4):
        _, states = _random_match(options, seed)
        for state in states[:-1]:
            for seat in (0, 1):
                world = state.resample(seat, random.Random(seed))
                assert _totals_of(world) == [tuple(t) for t in state.totals]
                opp = 1 - seat
                assert sorted(t for t in world.rows[opp] if t >= 0) == sorted(
                    t for t in state.rows[opp] if t >= 0
                ) or state.phase == "play"
                mine, theirs = state.view(seat), world.view(seat)
                # the world drops the other seat's pending choice (and the log)
                for key in ("log", "to_move", "submitted"):
                    mine.pop(key)
                    theirs.pop(key)
                assert mine == theirs


@pytest.mark.parametrize("bots", [("heuristic", "random"), ("ismcts", "heuristic")])
def test_bots_play_the_variants(bots: tuple[str, str]) -> None:
    game = make_game("swapping", {"tiles": 3})
    players = [make_bot(b, **({"iterations": 60} if b == "ismcts" else {})) for b in bots]
    for seed in range(2):
        assert play_match(game, players, seed).is_over()
    six = make_game("swapping", {"tiles": 6, "show_colours": True})
    assert play_match(six, players, 0).is_over()


def test_the_smallest_variant_is_small_enough_to_solve() -> None:
    """CFR+ enumerates the whole tree: keep it to thousands of information states."""
    nodes, infos = tree_size(encoding("swapping", {"tiles": 3, "max_ties": 1}))
    assert nodes < 20_000
    assert infos < 12_000
