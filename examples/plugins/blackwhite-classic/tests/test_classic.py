"""The rules of ``classic`` as its rules page states them, played through blackwhite's
public API on the installed game (``pip install --no-deps`` this package first)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from blackwhite.engine import IllegalActionError, State, load, make_game, to_record
from blackwhite.engine.registry import entry, rules_markdown


def play(state: State, moves: list[tuple[int, int]]) -> None:
    for seat, tile in moves:
        state.apply_text(seat, f"play {tile}")


def test_the_game_is_installed_through_its_entry_point() -> None:
    assert entry("classic").rules == "blackwhite_classic.rules:Classic"
    page = rules_markdown("classic")
    assert page is not None and page.startswith("# Black and White")


def test_its_actions_are_worded_for_the_players() -> None:
    game = make_game("classic")
    state = game.new_initial_state()
    assert [game.describe(state.format_action(a)) for a in state.legal_actions(0)] == (
        ["choose a tile to play face down"] * 9)


def test_a_round_shows_colours_and_the_winner_never_the_numbers() -> None:
    state = make_game("classic").new_initial_state()
    assert state.to_move() == [0]
    play(state, [(0, 4)])
    assert state.to_move() == [1]
    assert state.view(1)["led"] == {"tile": None, "colour": "black"}
    assert state.view(0)["led"] == {"tile": 4, "colour": "black"}
    play(state, [(1, 7)])
    public = json.dumps(state.view(None))
    assert "P2 wins round 1." in state.view(None)["log"]
    for seat in (None, 0, 1):
        view = state.view(seat)
        assert view["wins"] == [0, 1]
        assert view["left"][0] == {"black": 4, "white": 4} and view["left"][1] == {"black": 5, "white": 3}
    assert '"tile": 4' not in public and '"tile": 7' not in public
    assert state.view(0)["rounds"][0]["tiles"][1] == {"tile": None, "colour": "white"}  # P1 never learns the 7
    assert state.view(1)["rounds"][0]["tiles"][1] == {"tile": 7, "colour": "white"}
    # the winner leads the next round
    assert state.to_move() == [1]


def test_after_a_tie_the_same_seat_leads_and_nobody_scores() -> None:
    state = make_game("classic").new_initial_state()
    play(state, [(0, 3), (1, 3)])
    assert state.to_move() == [0] and state.scores() == (0, 0)
    assert "Round 1 is a tie." in state.view(1)["log"]


def test_a_tile_is_played_once() -> None:
    state = make_game("classic").new_initial_state()
    play(state, [(0, 3), (1, 3)])
    with pytest.raises(IllegalActionError, match="already played tile 3"):
        state.apply_text(0, "play 3")


def test_nine_rounds_then_more_rounds_won_wins() -> None:
    state = make_game("classic").new_initial_state()
    # P1 plays 8..0 descending; P2 answers 0..8: P1 wins rounds 1-4, round 5 is a tie
    # (4 against 4), P2 wins rounds 6-9 and leads from round 7 on
    for p1, p2 in zip(range(8, -1, -1), range(9)):
        leader = state.to_move()[0]
        order = [(0, p1), (1, p2)] if leader == 0 else [(1, p2), (0, p1)]
        play(state, order)
    assert not state.is_over()  # drawn 4-4: played again from the start
    view = state.view(None)
    assert view["drawn_games"] == ["4-4"] and view["game_no"] == 2 and view["wins"] == [0, 0]
    assert view["round"] == 1 and view["left"] == [{"black": 5, "white": 4}] * 2 and state.to_move() == [0]


def test_a_drawn_game_goes_to_the_advantage_when_no_replay_is_left() -> None:
    state = make_game("classic", {"replays": 0, "dmo": 1}).new_initial_state()
    for tile in range(9):
        play(state, [(0, tile), (1, tile)])
    assert state.is_over() and state.result().winner == 1
    assert "death-match advantage (P2) wins" in state.view(None)["log"][-1]


def test_early_end_stops_once_the_result_cannot_change() -> None:
    state = make_game("classic", {"early_end": True}).new_initial_state()
    # P1 leads and wins every round: 1-0, 3-2, 5-4, 7-6, 8-1; five won, four left
    play(state, [(0, 1), (1, 0), (0, 3), (1, 2), (0, 5), (1, 4), (0, 7), (1, 6)])
    assert not state.is_over()
    play(state, [(0, 8), (1, 1)])
    assert state.is_over() and state.result().winner == 0 and state.scores() == (5, 0)
    assert "P1 wins the game 5-0." in state.view(None)["log"]


def test_timeout_plays_the_lowest_tile_and_tells_only_that_seat() -> None:
    state = make_game("classic").new_initial_state()
    state.apply(0, ("timeout",))
    assert "Your time ran out: play 0 was played for you." in state.view(0)["log"]
    assert "P1 timed out." in state.view(1)["log"]
    assert all("play 0" not in line for line in state.view(1)["log"])


def test_records_replay_through_the_referee(tmp_path: object) -> None:
    rng = random.Random(3)
    state = make_game("classic").new_initial_state()
    while not state.is_over():
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    record = to_record(state)
    assert to_record(load(record)) == record
    done = subprocess.run([sys.executable, "-m", "blackwhite", "referee", "--json", "-"],
                          input=json.dumps(record), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["winner"] == state.result().winner


def test_the_conformance_kit_passes() -> None:
    """blackwhite's kit (``blackwhite check-game classic`` runs the same, with more playouts)."""
    from blackwhite.engine import conformance

    failures = [f for o in conformance.run("classic", playouts=100) for f in o.failures]
    assert not failures, [f"{f.message} ({f.reproduce('classic')})" for f in failures]


def test_the_sampler_redraws_only_what_the_seat_was_not_told() -> None:
    rng = random.Random(8)
    state = make_game("classic").new_initial_state()
    for _ in range(9):
        state.apply(state.to_move()[0], rng.choice(state.legal_actions(state.to_move()[0])))
    seat = state.to_move()[0]
    hands = set()
    for i in range(40):
        world = state.resample(seat, random.Random(i))
        assert world.info_key(seat) == state.info_key(seat)
        hands.add(tuple(world.hands[1 - seat]))  # type: ignore[attr-defined]
    assert len(hands) > 1  # the other seat's tiles are redrawn, not copied


def test_analysis_judges_a_classic_record(tmp_path: object) -> None:
    """blackwhite analyse reads a record of classic: one judgement per decision."""
    rng = random.Random(4)
    state = make_game("classic", {"replays": 0, "early_end": True}).new_initial_state()
    while not state.is_over():
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    done = subprocess.run(
        [sys.executable, "-m", "blackwhite", "analyse", "-", "--json", "--worlds", "2", "--workers", "1",
         "--seat", "0"],
        input=json.dumps(to_record(state)), capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    decided = [line for line in lines if line.get("seat") == 0 and "move" in line]
    assert decided and all(line["action"].startswith("play ") and 0 <= line["win"] <= 1 for line in decided)
    assert all(line["legal"] == 9 - line["move"] + 1 for line in decided)  # one tile fewer each round


def test_the_solver_reads_what_the_seat_knows_and_answers_random_play_from_it() -> None:
    """The optional solver (the heuristic's ``respond`` where the other seat is modelled
    as playing at random): its belief is the other seat's tiles that agree with every
    colour and outcome seen, and its first tiles are the opening table's."""
    from blackwhite_classic import heuristic, solver

    state = make_game("classic").new_initial_state()
    play(state, [(0, 4), (1, 6)])  # P1 led 4 and lost to a black tile: 6 or 8
    everything = (1 << 9) - 1
    assert solver.belief(state.view(0)) == {everything & ~(1 << 6): 1, everything & ~(1 << 8): 1}
    fresh = make_game("classic").new_initial_state()
    legal = fresh.legal_actions(0)
    as_random = heuristic.respond(fresh.view(0), legal, random.Random(1), [0.5, 0.1])
    assert as_random == ("play", solver.FIRST[None])
    as_policy = heuristic.respond(fresh.view(0), legal, random.Random(1), [0.5, 0.9])
    assert as_policy == heuristic.choose(fresh.view(0), legal, random.Random(1))
    # late in a game the expectimax answers: a legal tile, the same from the same view
    late = make_game("classic").new_initial_state()
    play(late, [(0, t) if i % 2 == 0 else (1, t) for i, t in enumerate([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5])])
    tiles = [a[1] for a in late.legal_actions(late.to_move()[0])]
    chosen = solver.best_tile(late.view(late.to_move()[0]), tiles)
    assert chosen in tiles and chosen == solver.best_tile(late.view(late.to_move()[0]), tiles)
