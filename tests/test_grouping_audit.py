"""Audit of grouping / grouping-final against RULES.md sections 4, 5 and "Match records".

Each test here pins a sentence of RULES.md that a hand-written record can exercise.
Conventions as in ``test_grouping``: groups ``A=0,1 B=2,3,4 C=5,6,7,8``, deal ``UP``
(round r shows tile r-1).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from blackwhite.engine import ActionSyntaxError, OptionError, RecordError, make_game, outcome_json, replay

from .test_grouping import GA, UP, act, deal

FINAL = "grouping-final"


def referee(game: str, events: list[dict[str, Any]], **options: Any) -> tuple[Any, dict[str, Any]]:
    result = replay({"game": game, "options": options, "events": events})
    return result.error, outcome_json(result.state)


# ----------------------------------------------------------------------------- RULES.md s5, "Ante raise"


def test_a_proposal_may_name_any_ante_above_the_current_one() -> None:
    # RULES.md s5: "either seat may `propose ante N` (N above the current ante)" -- no upper
    # bound.  An ante beyond both stacks means neither can pay: equal chips go to sudden death.
    events = [act(0, "propose ante 150"), act(1, "accept"), act(0, GA), act(1, GA),
              deal(0, [0, 1, 2, 4, 3, 5, 6, 7, 8]), deal(1, UP)]
    error, out = referee(FINAL, events)
    assert error is None
    # 0-0, 1-1, 2-2 tie; round 4: P1's 4 beats P2's 3
    assert out == {"game": FINAL, "finished": True, "winner": 0, "scores": [100, 100]}
    # unequal stacks (P2 holds bonus): neither can pay an ante of 500, the larger stack wins
    events = [act(1, "propose ante 500"), act(0, "accept"), act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)]
    error, out = referee(FINAL, events, items={"1": ["bonus"]})
    assert error is None
    assert out == {"game": FINAL, "finished": True, "winner": 1, "scores": [100, 110]}


def test_the_listed_proposals_stay_bounded() -> None:
    # Any ante above both stacks has the same effect, so the listing (for bots) stops at
    # one more than the larger stack even though larger values are accepted.
    error, _ = referee(FINAL, [])
    assert error is None
    state = replay({"game": FINAL, "events": []}).state
    proposals = [a[1] for a in state.legal_actions(0) if a[0] == "propose"]
    assert proposals == list(range(2, 102))


# ----------------------------------------------------------------------------- "Match records": errors, not crashes


@pytest.mark.parametrize("text", ["raise \u00b2", "bet \u00b3", "propose ante \u00b2", "propose \u00b9\u2070"])
def test_a_superscript_number_is_a_syntax_error_not_a_crash(text: str) -> None:
    # str.isdigit() accepts superscripts, which int() cannot read: the referee crashed with a
    # traceback instead of printing {"error": {"event": i, ...}} (RULES.md, "Match records")
    state = make_game(FINAL).new_initial_state()
    with pytest.raises(ActionSyntaxError):
        state.parse(0, text)
    error, _ = referee(FINAL, [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP), act(0, "go first"), act(0, text)])
    assert error is not None and error.event == 5


@pytest.mark.parametrize(
    "text", ["raise \u0663", "raise \uff13", "propose ante \u0663", "group A=\uff10,1 B=2,3,4 C=5,6,7,8",
             "group A=0,1 B=2,3,\u0664 C=5,6,7,8"]
)
def test_numbers_in_notation_are_ascii_digits(text: str) -> None:
    """Arabic-Indic and fullwidth digits are read by int() but are not notation."""
    state = make_game(FINAL).new_initial_state()
    with pytest.raises(ActionSyntaxError):
        state.parse(0, text)


def test_a_fullwidth_seat_in_the_items_option_is_a_bad_option() -> None:
    with pytest.raises(OptionError):
        make_game(FINAL, {"items": {"\uff10": ["peek"]}})


def test_a_superscript_seat_in_the_items_option_is_a_bad_option_not_a_crash() -> None:
    # RULES.md "Match records": a bad option is reported as {"error": {"event": null, ...}}
    with pytest.raises(RecordError) as caught:
        replay({"game": FINAL, "options": {"items": {"\u00b2": ["peek"]}}, "events": []})
    assert caught.value.event is None


# ----------------------------------------------------------------------------- checks that found nothing wrong


def test_the_rules_example_record() -> None:
    # RULES.md "Match records": the DMO (P2) says go second, so P1 starts; 7 beats 0 at 3 each
    events = [act(1, "go second"), act(0, GA), act(1, "group A=7,8 B=0,1,2 C=3,4,5,6"),
              deal(0, [7, 5, 8, 6, 0, 1, 3, 2, 4]), deal(1, [0, 2, 1, 8, 7, 3, 5, 6, 4]),
              act(0, "raise 2"), act(1, "call")]
    error, out = referee("grouping", events, dmo=1)
    assert error is None
    # round 2 has begun: the antes are in the bets, which count in the scores; the winner starts
    assert out == {"game": "grouping", "finished": False, "winner": None, "scores": [33, 27], "to_move": [0]}


def test_a_proposal_in_set_3_is_above_the_risen_ante() -> None:
    # s5: the ante rises at the start of set 3 (to 2), before its grouping; a proposal then
    # must exceed 2, and set 5's scheduled rise adds 1 to the accepted value
    tie_set = [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP), *[act(0, "call")] * 9]
    events = [act(0, "go first"), *tie_set, *tie_set, act(0, "propose ante 2")]
    error, _ = referee(FINAL, events)
    assert error is not None and "above the current ante 2" in error.message
    events[-1] = act(0, "propose ante 3")
    events += [act(1, "accept"), act(0, GA), act(1, GA), deal(0, UP), deal(1, UP), *[act(0, "call")] * 9,
               *tie_set, act(0, GA), act(1, GA), deal(0, UP), deal(1, UP)]
    state = replay({"game": FINAL, "events": events}).state
    # sets 1-2 at 1 (18), set 3 at 3 (27), set 4 at 3 (27), set 5 at 4: 100 - 72 - 4
    assert state.scores() == (28, 28) and state.bets == [4, 4]


@pytest.mark.parametrize("game", ["grouping", FINAL])
@pytest.mark.parametrize("action", [(), None, "fold", ("go",), ("raise",), ("call", 1), ("group", (0, 1))])
def test_a_malformed_action_is_refused_not_a_crash(game: str, action: Any) -> None:
    """Hostile callers of ``apply`` (not the notation): refused with the rule, nothing changes."""
    for state in (make_game(game).new_initial_state(), replay(
        {"game": game, "events": [act(0, GA), act(1, GA), deal(0, UP), deal(1, UP), act(0, "go first")]}
    ).state):
        before = json.dumps([state.view(0), state.view(1), state.view(None)], sort_keys=True)
        with pytest.raises(ValueError):
            state.apply(0, action)
        assert json.dumps([state.view(0), state.view(1), state.view(None)], sort_keys=True) == before
