"""The OpenSpiel information-state string is perfect recall: two positions where a
seat holds the same string were reached by the same sequence of its own earlier
information states and actions.  The walks also run the same check on the
observation string (the current view's key alone, the old information state) and
require it to fail there, so the check can fail."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from blackwhite.envs.openspiel import load

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

Key = Callable[[Any, int], str]


def _infostate(state: Any, seat: int) -> str:
    return str(state.information_state_string(seat))


def _observation(state: Any, seat: int) -> str:
    return str(state.observation_string(seat))


def _prefix(game: Any, texts: list[str]) -> Any:
    """The state after the actions and draws named by their strings."""
    state = game.new_initial_state()
    for text in texts:
        seat = state.current_player()
        codes = [o for o, _ in state.chance_outcomes()] if seat < 0 else state.legal_actions()
        state.apply_action(next(c for c in codes if state.action_to_string(seat, c) == text))
    return state


def violations(root: Any, keys: dict[str, Key], cap: int, stop: Callable[[Any], bool] = lambda s: False) -> dict[str, int]:
    """Walk every history below ``root`` (at most ``cap`` nodes; the walks below stay
    under it, which the test checks) and count, per key function, the (seat, key)
    pairs reached after two different own trails (earlier keys and actions).  Where
    ``stop`` holds, a decision is checked but not expanded and a chance node follows
    its first outcome only."""
    seen: dict[str, dict[tuple[int, str], tuple[Any, ...]]] = {name: {} for name in keys}
    bad = {name: 0 for name in keys}
    nodes = 0
    seats = root.num_players()
    stack: list[tuple[Any, dict[str, tuple[tuple[Any, ...], ...]]]] = [
        (root, {name: ((),) * seats for name in keys})
    ]
    while stack:
        state, trails = stack.pop()
        nodes += 1
        assert nodes <= cap, f"the tree under {state.history()[:8]} has more than {cap} nodes"
        if state.is_terminal():
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            for code, _ in outcomes[:1] if stop(state) else outcomes:
                child = state.clone()
                child.apply_action(code)
                stack.append((child, trails))
            continue
        seat = state.current_player()
        now = {name: fn(state, seat) for name, fn in keys.items()}
        for name in keys:
            first = seen[name].setdefault((seat, now[name]), trails[name][seat])
            if first != trails[name][seat]:
                bad[name] += 1
        if stop(state):
            continue
        for code in state.legal_actions():
            child = state.clone()
            child.apply_action(code)
            new = {}
            for name in keys:
                t = list(trails[name])
                t[seat] = t[seat] + ((now[name], code),)
                new[name] = tuple(t)
            stack.append((child, new))
    return bad


KEYS: dict[str, Key] = {"infostate": _infostate, "observation": _observation}


def test_joust_bidding_is_remembered() -> None:
    """The reviewer's joust ``sets=1, groups=1, chips=2``: P1 bids 0 or 1, P2 bids 2;
    the view alone is the same, the information state is not.  The whole subtree
    after the first group's giants is walked."""
    game = load("joust", sets=1, groups=1, chips=2)
    root = _prefix(game, ["draw 1", "draw 2", "draw 3", "fold", "next minute", "fold"])
    bad = violations(root, KEYS, cap=200_000)
    assert bad["observation"] > 0
    assert bad["infostate"] == 0
    a = _prefix(game, ["draw 1", "draw 2", "draw 3", "fold", "next minute", "fold", "bid 0", "bid 2"])
    b = _prefix(game, ["draw 1", "draw 2", "draw 3", "fold", "next minute", "fold", "bid 1", "bid 2"])
    assert a.current_player() == b.current_player() == 0
    assert a.observation_string(0) == b.observation_string(0)
    assert a.information_state_string(0) != b.information_state_string(0)


def test_joust_full_tree_is_perfect_recall() -> None:
    """The smallest joust (``chips=0``, 19,121 nodes), walked whole."""
    bad = violations(load("joust", sets=1, groups=1, chips=0).new_initial_state(), KEYS, cap=30_000)
    assert bad["infostate"] == 0


def _next_deal(state: Any) -> bool:
    return bool(state.is_chance_node() or len(state.legal_actions()) > 100)


def test_grouping_raising_is_remembered() -> None:
    """Grouping ``chips=4, rounds=1, max_raise=2``: every history of the betting of
    one deal and grouping is walked (later deals: their first outcome), up to the
    next grouping (checked, not expanded: 1260 of them); the view forgets who raised, the information state does not."""
    game = load("grouping", chips=4, rounds=1, max_raise=2)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.legal_actions()) > 100:  # one deal and grouping
        state.apply_action((state.chance_outcomes()[0][0]) if state.is_chance_node() else state.legal_actions()[0])
    bad = violations(state, KEYS, cap=20_000, stop=_next_deal)
    assert bad["observation"] > 0
    assert bad["infostate"] == 0
