"""The analysis never reads hidden state, checked in every game with the secrecy twins.

Each twin (``tests/twins/<game>.py``) is two match records written by hand that differ
in a fact one seat was never told.  The analysis of that seat's decisions must be the
same for both, with fixed seeds and world counts.  The decisions judged are the
seat's last decisions from the first event where the twins differ, and one more decision
appended at the end when the seat is awaited there (the same notation for both: its
legal actions are the same, since its view is).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from blackwhite.analysis import Settings, analyse, decision_points, opponent_shares
from blackwhite.engine import load
from tests.test_secrecy_twins import all_twins
from tests.twins import Twin

SETTINGS = Settings(worlds=2, candidates=3, search=0, seed=5)
#: at most this many of the seat's decisions per twin (the last ones), to keep it quick
MOST = 3

SEAT_TWINS = [pytest.param(game, twin, id=f"{game}-{twin.name}") for game, twin in all_twins() if twin.seat is not None]


def extended(twin: Twin) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both records, with the seat's next decision appended when it is awaited at the end."""
    a, b = copy.deepcopy(twin.a), copy.deepcopy(twin.b)
    state = load(a)
    seat = twin.seat
    assert seat is not None
    if not state.is_over() and not state.is_chance() and seat in state.to_move():
        legal = sorted(state.format_action(x) for x in state.legal_actions(seat))
        if legal:
            for record in (a, b):
                record["events"].append({"seat": seat, "action": legal[0]})
    return a, b


def judged_events(a: dict[str, Any], b: dict[str, Any], seat: int) -> tuple[list[int], list[int]]:
    """The seat's last decisions (event indices in a, in b) after the first event where
    the twins differ (a twin may hold a hidden side action the other lacks, so the
    same decision can sit at different indices)."""
    first = next(
        (i for i, (x, y) in enumerate(zip(a["events"], b["events"])) if x != y),
        min(len(a["events"]), len(b["events"])),
    )
    mine = []
    for record in (a, b):
        points, _, _ = decision_points(record)
        mine.append([p.event for p in points if p.seat == seat and p.event >= first])
    count = min(MOST, len(mine[0]), len(mine[1]))
    return (mine[0][len(mine[0]) - count:], mine[1][len(mine[1]) - count:]) if count else ([], [])


def lines(record: dict[str, Any], seat: int, events: list[int]) -> list[dict[str, Any]]:
    """The seat's report lines, without the event index (it may differ between twins)."""
    result = analyse(record, seat, SETTINGS, events=events)
    return [{k: v for k, v in d.to_json().items() if k != "event"} for d in result.decisions]


@pytest.mark.parametrize("game,twin", SEAT_TWINS)
def test_the_seat_gets_the_same_analysis_from_both_twins(game: str, twin: Twin) -> None:
    assert twin.seat is not None
    a, b = extended(twin)
    in_a, in_b = judged_events(a, b, twin.seat)
    if not in_a:
        pytest.skip("the seat makes no decision after the hidden fact in this twin")
    first, second = lines(a, twin.seat, in_a), lines(b, twin.seat, in_b)
    assert len(first) == len(in_a), "every chosen decision is judged"
    assert first == second


@pytest.mark.parametrize("game,twin", SEAT_TWINS)
def test_the_model_of_the_others_is_the_same_in_both_twins(game: str, twin: Twin) -> None:
    """How the worlds play the other seats (read from their play, in domino and yellow)
    is the same for every decision of the seat in both twins: the analysis above may
    hide a difference in the model when both twins' rollouts happen to agree."""
    assert twin.seat is not None
    models = []
    for record in extended(twin):
        points, _, _ = decision_points(record)
        mine = [p for p in points if p.seat == twin.seat]
        models.append([(p.ordinal, shares) for p, shares in zip(mine, opponent_shares(points, mine, SETTINGS))])
    assert models[0] == models[1]


def test_most_twins_have_a_decision_to_judge() -> None:
    """The test above skips a twin only when the seat never decides after the hidden
    fact; in every game at least one twin must be judged, so no game goes unchecked."""
    judged: dict[str, int] = {}
    for game, twin in all_twins():
        if twin.seat is None:
            continue
        a, b = extended(twin)
        judged.setdefault(game, 0)
        if judged_events(a, b, twin.seat)[0]:
            judged[game] += 1
    assert len(judged) == 7
    assert all(count >= 1 for count in judged.values()), judged
