"""Audit of grouping / grouping-final against RULES.md sections 4, 5 and "Match records".

Each test here pins a sentence of RULES.md that a hand-written record can exercise.
Conventions as in ``test_grouping``: groups ``A=0,1 B=2,3,4 C=5,6,7,8``, deal ``UP``
(round r shows tile r-1).
"""

from __future__ import annotations

from typing import Any

from blackwhite.engine import outcome_json, replay

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
