"""One generic test suite run over every registered game.

Whatever a game's rules, the engine's contract is the same: random legal play ends,
every listed action passes the checked path, notation round-trips, a refused action
changes nothing, copies are independent, records replay to the identical state, and
a seat's view carries no other seat's pending choice.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blackwhite.engine import (
    ActionSyntaxError,
    BlackWhiteError,
    IllegalActionError,
    load,
    OptionError,
    make_game,
    to_record,
)
from blackwhite.engine.core import State
from blackwhite.engine.play import play_random, random_step
from blackwhite.engine.registry import game_ids

GAMES = game_ids()


def snapshot(state: State) -> str:
    """Everything observable about a state: its record and every seat's view."""
    views = [state.view(s) for s in range(state.num_seats)]
    return json.dumps([to_record(state), views, state.result().__dict__], sort_keys=True, default=str)


@pytest.mark.parametrize("gid", GAMES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_checked_play_ends_and_round_trips(gid: str, seed: int) -> None:
    rng = random.Random(seed)
    state = make_game(gid).new_initial_state()
    steps = 0
    while not state.is_over():
        assert steps < 20_000, "game did not end"
        if not state.is_chance():
            for seat in state.to_move():
                legal = state.legal_actions(seat)
                assert legal, f"seat {seat} awaited with no legal action"
                for action in rng.sample(legal, min(3, len(legal))):
                    text = state.format_action(action)
                    assert state.parse(seat, text) == action, text
                # a seat not awaited has nothing to do
            for seat in range(state.num_seats):
                if seat not in state.to_move():
                    assert state.legal_actions(seat) == []
        random_step(state, rng, fast=False)
        steps += 1
    result = state.result()
    assert result.finished
    assert len(result.scores) == state.num_seats
    assert result.winner is None or 0 <= result.winner < state.num_seats
    # record -> replay -> record is identical, and the replay is the same position
    record = to_record(state)
    again = load(json.loads(json.dumps(record)))
    assert to_record(again) == record
    assert snapshot(again) == snapshot(state)
    # after the end every event is illegal
    with pytest.raises(IllegalActionError):
        state.apply(0, ("resign",))


@pytest.mark.parametrize("gid", GAMES)
def test_fast_and_checked_paths_agree(gid: str) -> None:
    for seed in range(3):
        fast = make_game(gid).new_initial_state()
        checked = make_game(gid).new_initial_state()
        play_random(fast, random.Random(seed), fast=True)
        play_random(checked, random.Random(seed), fast=False)
        assert fast.result() == checked.result()
        assert to_record(fast) == to_record(checked)


@pytest.mark.parametrize("gid", GAMES)
def test_refused_actions_change_nothing(gid: str) -> None:
    rng = random.Random(7)
    state = make_game(gid).new_initial_state()
    refused = 0
    for _ in range(400):
        if state.is_over():
            break
        if not state.is_chance():
            seat = state.to_move()[0]
            legal = set(state.legal_actions(seat))
            before = snapshot(state)
            # actions legal for another seat, or at another moment, are good probes
            probes = [state.legal_actions(s) for s in state.to_move() if s != seat]
            other = state.clone()
            for _ in range(3):
                if other.is_over():
                    break
                random_step(other, rng)
            if not other.is_over() and not other.is_chance():
                probes.append(other.legal_actions(other.to_move()[0]))
            for action in (a for group in probes for a in group[:20]):
                if action in legal:
                    continue
                try:
                    state.apply(seat, action)
                except IllegalActionError:
                    refused += 1
                    assert snapshot(state) == before
                else:
                    pytest.fail(f"{state.format_action(action)} accepted but not listed as legal")
            for bogus in ("", "xyzzy", "play", "12 13 14"):
                with pytest.raises(ActionSyntaxError):
                    state.parse(seat, bogus)
        random_step(state, rng, fast=False)
    assert refused > 0


@pytest.mark.parametrize("gid", GAMES)
def test_clone_is_independent(gid: str) -> None:
    rng = random.Random(3)
    state = make_game(gid).new_initial_state()
    for _ in range(30):
        if state.is_over():
            break
        random_step(state, rng)
    before = snapshot(state)
    copy = state.clone()
    play_random(copy, random.Random(5))
    assert snapshot(state) == before


@pytest.mark.parametrize("gid", GAMES)
def test_views_are_json_and_hide_pending_choices(gid: str) -> None:
    rng = random.Random(11)
    for seed in range(4):
        state = make_game(gid).new_initial_state()
        rng = random.Random(seed)
        while not state.is_over():
            if state.pending:
                for seat in [*range(state.num_seats), None]:
                    view = state.view(seat)
                    json.dumps(view)
                    assert view["submitted"] == sorted(state.pending)
                    if seat is not None and seat in state.pending:
                        assert view["my_pending"] == state.format_action(state.pending[seat])
                    else:
                        assert view["my_pending"] is None
                    # another seat's pending choice appears nowhere in the view: its
                    # notation is no more frequent than in the view without it (the
                    # same text may have been announced in an earlier round)
                    text = json.dumps(view)
                    for other, action in state.pending.items():
                        if other != seat:
                            written = state.format_action(action)
                            without = state.clone()
                            del without.pending[other]
                            assert text.count(written) == json.dumps(without.view(seat)).count(written), (
                                f"P{other + 1}'s pending {written!r} shows in the view of {seat}"
                            )
            random_step(state, rng)


# 3 in Arabic-Indic, fullwidth, superscript and Devanagari digits; Roman numeral four
NON_ASCII_DIGITS = ["\u0663", "\uff13", "\u00b3", "\u0969", "\u2163"]


@pytest.mark.parametrize("gid", GAMES)
def test_numbers_in_notation_are_ascii_digits_only(gid: str) -> None:
    """Every legal action, with one ASCII digit swapped for another script's digit,
    is refused as a notation error naming the rule, and nothing changes."""
    rng = random.Random(5)
    state = make_game(gid).new_initial_state()
    tried = 0
    for _ in range(60):
        if state.is_over():
            break
        if not state.is_chance():
            seat = state.to_move()[0]
            before = snapshot(state)
            for action in rng.sample(state.legal_actions(seat), min(4, len(state.legal_actions(seat)))):
                text = state.format_action(action)
                spots = [i for i, ch in enumerate(text) if ch.isdigit()]
                if not spots:
                    continue
                i = spots[-1]
                for digit in NON_ASCII_DIGITS:
                    with pytest.raises(ActionSyntaxError, match="ASCII digit"):
                        state.apply_text(seat, text[:i] + digit + text[i + 1 :])
                    tried += 1
            assert snapshot(state) == before
        random_step(state, rng, fast=False)
    assert tried > 0, f"{gid}: no action with a number reached"


@pytest.mark.parametrize("gid", GAMES)
def test_resign_ends_the_match_and_timeout_needs_an_awaited_seat(gid: str) -> None:
    state = make_game(gid).new_initial_state()
    rng = random.Random(1)
    while state.is_chance():
        random_step(state, rng)
    waiting = state.to_move()
    idle = [s for s in range(state.num_seats) if s not in waiting]
    if idle:
        with pytest.raises(IllegalActionError):
            state.apply(idle[0], ("timeout",))
    state.apply(waiting[0], ("resign",))
    result = state.result()
    assert result.finished and result.winner != waiting[0]
    with pytest.raises(BlackWhiteError):
        state.apply(waiting[0], ("resign",))


@pytest.mark.parametrize("gid", GAMES)
def test_resample_keeps_the_seats_own_view(gid: str) -> None:
    """A sampled world looks, to the seat it was drawn for, like the real one."""
    # In a sampled world the other seats' pending choices are unknown, so they are
    # dropped: those seats are awaited again there.  Everything else must match.
    keys_that_may_differ = {"log", "to_move", "submitted"}
    for seed in range(4):
        rng = random.Random(seed)
        state = make_game(gid).new_initial_state()
        for _ in range(rng.randrange(5, 60)):
            if state.is_over():
                break
            random_step(state, rng)
        if state.is_over():
            continue
        for seat in range(state.num_seats):
            world = state.resample(seat, random.Random(seed))
            mine = {k: v for k, v in state.view(seat).items() if k not in keys_that_may_differ}
            theirs = {k: v for k, v in world.view(seat).items() if k not in keys_that_may_differ}
            assert theirs == mine
            assert set(world.to_move()) >= set(state.to_move())
            assert set(world.pending) <= {seat}
            play_random(world, random.Random(seed))


@pytest.mark.parametrize("gid", GAMES)
def test_a_number_of_thousands_of_digits_is_a_notation_error(gid: str) -> None:
    """Python will not read an integer of 5000 digits; notation refuses it first,
    as a notation error, and nothing changes."""
    rng = random.Random(2)
    state = make_game(gid).new_initial_state()
    tried = 0
    for _ in range(40):
        if state.is_over():
            break
        if not state.is_chance():
            seat = state.to_move()[0]
            before = snapshot(state)
            for action in state.legal_actions(seat)[:3]:
                text = state.format_action(action)
                spots = [i for i, ch in enumerate(text) if ch.isdigit()]
                if spots:
                    i = spots[-1]
                    with pytest.raises(ActionSyntaxError, match="more than 9 digits"):
                        state.apply_text(seat, text[:i] + "1" * 5000 + text[i + 1 :])
                    tried += 1
            assert snapshot(state) == before
        random_step(state, rng, fast=False)
    assert tried > 0, f"{gid}: no action with a number reached"


HOSTILE_TUPLES: list[Any] = [
    (), None, ("reveal", -1), ("place", -1, -2, -3), ("place", True, 2, 3), ("swap", 0, 1, 2),
    ("bid", 2.5), ("bid", "3"), ("raise",), (["go"],), ({},), ("propose", 10**12), ("dance",),
    ["bid", 3], ("play", 10**20),
]


@pytest.mark.parametrize("gid", GAMES)
def test_hand_made_tuples_no_notation_writes_are_refused_and_change_nothing(gid: str) -> None:
    """The checked path takes only actions that round-trip through the notation, so
    nothing it accepts fails to replay from the record it writes."""
    rng = random.Random(4)
    state = make_game(gid).new_initial_state()
    for _ in range(30):
        if state.is_over():
            break
        if not state.is_chance():
            for seat in range(state.num_seats):
                before = snapshot(state)
                for action in HOSTILE_TUPLES:
                    with pytest.raises(ValueError):
                        state.apply(seat, action)
                assert snapshot(state) == before
        random_step(state, rng, fast=False)


@pytest.mark.parametrize("gid", GAMES)
def test_info_key_tells_apart_exactly_what_the_view_does(gid: str) -> None:
    """A game may override ``info_key`` with something cheaper than the view's JSON;
    over many positions (and resampled worlds) equal keys must mean equal views and
    different views different keys, for every seat."""
    seen: dict[tuple[int, str], str] = {}
    views: dict[tuple[int, str], str] = {}
    for seed in range(6):
        rng = random.Random(seed)
        state = make_game(gid).new_initial_state()
        for _ in range(80):
            if state.is_over():
                break
            for seat in range(state.num_seats):
                for world in (state, state.resample(seat, random.Random(seed))):
                    view = json.dumps(world._view(seat), sort_keys=True)
                    key = world.info_key(seat)
                    assert seen.setdefault((seat, key), view) == view, f"{gid}: one key, two views"
                    assert views.setdefault((seat, view), key) == key, f"{gid}: one view, two keys"
            random_step(state, rng)


@pytest.mark.parametrize(
    "gid,options",
    [
        ("yellow", {"garnets": [46, 0, 0]}),
        ("yellow", {"round_seconds": 10**400}),
        ("yellow", {"round_seconds": 3601}),
        ("grouping", {"chips": 10001}),
        ("grouping-final", {"chips": 10**12}),
    ],
)
def test_options_past_their_bounds_are_refused(gid: str, options: dict[str, Any]) -> None:
    """Bounds keep one match from listing millions of actions (garnets: every boost
    sequence; chips: every ante proposal) or overflowing a clock."""
    with pytest.raises(OptionError, match=r"\.\."):
        make_game(gid, options)
    make_game("yellow", {"garnets": [45, 45, 45], "round_seconds": 3600})
    make_game("grouping-final", {"chips": 10000})


# --------------------------------------------------------------------------- the kit
# The conformance kit of `blackwhite check-game` (blackwhite/engine/conformance.py),
# the same code a designer runs, on every installed game: a few runs of each check
# here (the command runs thousands); tests/test_check_game.py shows it catching faults.

from blackwhite.engine import conformance  # noqa: E402


@pytest.mark.parametrize("check", list(conformance.CHECKS))
@pytest.mark.parametrize("gid", GAMES)
def test_the_conformance_kit_passes(gid: str, check: str) -> None:
    [outcome] = conformance.run(gid, playouts=8, seed=1000, only=[check])
    assert not outcome.failures, "\n".join(
        f"{f.message} (reproduce: {f.reproduce(gid)})" for f in outcome.failures
    )
