"""Bots end every match: side actions (ante proposals and their answers, item uses, early
choices) are free, and the rules bound some of them by nothing, so bots that keep
proposing and declining an ante would never end a step.  A bot is offered at most
``SIDE_ACTIONS`` of them before each of its own moves (``decision_for``)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from blackwhite.bots import Decision, decision_for, make_bot
from blackwhite.bots.base import SIDE_ACTIONS, side_actions_made
from blackwhite.bots.match import play_match
from blackwhite.engine import Action, make_game
from blackwhite.engine.registry import game_ids


class SideActionsFirst:
    """The most stubborn bot: a side action whenever one is offered (a fresh proposal
    rather than an answer), else a random move.  It reads which actions are side
    actions from a fresh state of its game (``is_free`` depends on the action alone)."""

    name = "side-actions-first"

    def choose(self, decision: Decision) -> Action:
        probe = make_game(decision.view["game"], decision.view["options"]).new_initial_state()
        free = [a for a in decision.legal if probe.is_free(a)]
        if free:
            pick = [a for a in free if a[0] == "propose"] or free
            return pick[decision.rng.randrange(len(pick))]
        return decision.legal[decision.rng.randrange(len(decision.legal))]


def item_options(gid: str) -> list[dict[str, Any]]:
    """The game's small options, with every item to both seats and as a final's draft
    splits them (one item to one seat, the rest to the other), where it has items."""
    game = make_game(gid)
    small = dict(type(game).small_options)
    info = type(game).option_info.get("items")
    if info is None or not info.choices:
        return [small]
    names = [c[0] for c in info.choices]
    return [
        {**small, "items": {"0": names, "1": names}},
        {**small, "items": {"0": names[:1], "1": names[1:]}},
        {**small, "items": {"0": names[1:], "1": names[:1]}},
    ]


@pytest.mark.parametrize("gid", game_ids())
def test_bots_that_prefer_side_actions_end_every_match(gid: str) -> None:
    for i, options in enumerate(item_options(gid)):
        game = make_game(gid, options)
        bots = [SideActionsFirst() for _ in range(game.num_seats)]
        state = play_match(game, bots, seed=40 + i, max_actions=5000)
        assert state.is_over(), f"{gid} {options}: bots stalled the match with side actions"


def every_seat_in_turn(gid: str, options: dict[str, Any], seed: int, max_actions: int = 3000) -> Any:
    """A match of ismcts bots, every awaited seat asked in turn as the server's bots and
    the season simulation ask them (``play_match`` asks the first awaited seat until it
    moves, so a proposer has moved before its proposal is answered)."""
    state = make_game(gid, options).new_initial_state()
    chance = random.Random(seed)
    bots = [make_bot("ismcts", iterations=4) for _ in range(state.num_seats)]
    actions = 0
    while not state.is_over() and actions < max_actions:
        state.play_chance(chance)
        for seat in sorted(state.to_move()):
            if state.is_over() or seat not in state.to_move():
                continue
            decision = decision_for(state, seat, random.Random(f"{seed}/{seat}/{actions}"))
            state.apply(seat, bots[seat].choose(decision))
            actions += 1
    return state


@pytest.mark.parametrize("gid", ["grouping-final", "joust-final", "yellow"])
def test_ismcts_bots_asked_in_turn_end_finals_with_items(gid: str) -> None:
    """The season's final that never ended: ismcts on both seats of a grouping final
    with drafted items, P1 proposing an ante of 2 and P2 declining, for ever."""
    for i, options in enumerate(item_options(gid)[1:] or item_options(gid)):
        assert every_seat_in_turn(gid, options, seed=i).is_over(), f"{gid} {options}: the match never ended"


def stalled_grouping() -> Any:
    """A grouping final's first grouping after P1 proposed an ante and P2 declined,
    ``SIDE_ACTIONS`` times each."""
    state = make_game("grouping-final", {"chips": 4}).new_initial_state()
    state.play_chance(random.Random(1))
    for _ in range(SIDE_ACTIONS):
        state.apply_text(0, "propose ante 2")
        state.apply_text(1, "decline")
    return state


def test_a_bot_is_offered_no_side_action_past_its_allowance() -> None:
    state = stalled_grouping()
    assert side_actions_made(state, 0) == SIDE_ACTIONS and side_actions_made(state, 1) == SIDE_ACTIONS
    # the rules still allow both (no proposal_limit): only a bot's offer is bounded
    assert any(state.is_free(a) for a in state.legal_actions(0))
    for seat in (0, 1):
        legal = decision_for(state, seat, random.Random(0)).legal
        assert legal and not any(state.is_free(a) for a in legal)
        assert set(legal) == {a for a in state.legal_actions(seat) if not state.is_free(a)}
    # a seat's own move opens a fresh allowance; the other seat's does not
    grouping = next(a for a in state.legal_actions(0) if not state.is_free(a))
    state.apply(0, grouping)
    assert side_actions_made(state, 0) == 0 and side_actions_made(state, 1) == SIDE_ACTIONS


def test_within_its_allowance_a_bot_is_offered_every_side_action() -> None:
    state = make_game("grouping-final", {"chips": 4}).new_initial_state()
    state.play_chance(random.Random(1))
    state.apply_text(0, "propose ante 2")
    assert decision_for(state, 1, random.Random(0)).legal == state.legal_actions(1)
    assert side_actions_made(state, 0) == 1 and side_actions_made(state, 1) == 0
