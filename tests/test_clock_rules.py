"""Each game's clock, as the engine states it (RULES.md's clock line of every game)."""

from __future__ import annotations

import pytest

from blackwhite.engine import ClockRule, game_ids, make_game

from .random_play import random_walk


def _phase_seconds(gid: str, options: dict | None = None, steps: int = 400) -> dict[str, float]:
    """Seconds per action of every phase met in a random game."""
    rule = make_game(gid, options).clock_rule()
    seen: dict[str, float] = {}
    for _, state in zip(range(steps), random_walk(gid, options, 3)):
        if state.is_over():
            break
        if not state.is_chance():
            seat = state.to_move()[0]
            seen[state.clock_phase(seat)] = rule.seconds(state.clock_phase(seat))
    return seen


@pytest.mark.parametrize("gid", game_ids())
def test_every_phase_met_is_named_by_the_rule(gid: str) -> None:
    rule = make_game(gid).clock_rule()
    assert isinstance(rule, ClockRule) and rule.on_timeout
    for phase in _phase_seconds(gid):
        assert phase in rule.per_action, (gid, phase)


def test_the_rules_figures() -> None:
    assert _phase_seconds("swapping") == {"play": 180.0, "swap": 120.0}
    assert make_game("swapping").clock_rule().reserve == 300.0
    assert _phase_seconds("domino")["turn"] == 120.0
    assert make_game("domino").clock_rule().reserve == 600.0
    grouping = _phase_seconds("grouping")
    assert grouping["group"] == 120.0 and grouping["bet"] == 60.0
    assert make_game("grouping").clock_rule().reserve == 0
    assert _phase_seconds("joust") == {"action": 30.0}
    assert _phase_seconds("yellow", {"round_seconds": 45}) == {"round": 45.0}
    assert "reserve" in make_game("swapping").clock_rule().describe()


def test_a_clock_rule_in_words_names_a_phase_only_when_it_says_something() -> None:
    """Joust's one phase is called "action": it read "30 s per action (action)"."""
    joust = make_game("joust").clock_rule().describe()
    assert joust.startswith("30 s per action; on timeout:") and "(action)" not in joust, joust
    swapping = make_game("swapping").clock_rule().describe()
    assert swapping.startswith("3 min per action (play), 2 min per action (swap), 5 min reserve"), swapping
