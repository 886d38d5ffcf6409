"""The ``items`` option of both Finals is checked once (``engine.core.seat_items``): the
same bad values are refused with the same reasons, and the one difference between the
games, a seat named twice, is kept (grouping refuses it, joust merges the lists)."""

from __future__ import annotations

from typing import Any

import pytest

from blackwhite.engine import make_game
from blackwhite.engine.core import OptionError

GAMES = {"grouping-final": ("bonus", "peek"), "joust-final": ("inversion", "conceal")}


def _made(gid: str, items: Any) -> Any:
    return make_game(gid, {"items": items})


@pytest.mark.parametrize("gid", GAMES)
@pytest.mark.parametrize(
    "items,reason",
    [
        (["x"], "must map seats to item lists"),
        ({"2": []}, "'2' is not a seat"),
        ({"-1": []}, "'-1' is not a seat"),
        ({True: []}, "True is not a seat"),
        ({"0": "A"}, "seat 0 must have a list of item names"),
        ({"0": [1]}, "seat 0 must have a list of item names"),
        ({"0": ["nothing"]}, "unknown item 'nothing'"),
        ({"1": ["{a}", "{a}"]}, "seat 1 lists an item twice"),
    ],
)
def test_both_games_refuse_the_same_bad_items_for_the_same_reason(gid: str, items: Any, reason: str) -> None:
    a = GAMES[gid][0]
    if isinstance(items, dict):
        items = {k: [n.format(a=a) if isinstance(n, str) else n for n in v] if isinstance(v, list) else v
                 for k, v in items.items()}
    with pytest.raises(OptionError, match=reason):
        _made(gid, items)


@pytest.mark.parametrize("gid", GAMES)
def test_a_seat_is_named_by_number_or_ascii_digits(gid: str) -> None:
    a, b = GAMES[gid]
    for items in ({"0": [a], "1": [b]}, {0: [a], 1: [b]}, {"00": [a], "01": [b]}):
        game = _made(gid, items)
        held = game.items if gid == "grouping-final" else game.item_sets
        assert (held[0], held[1]) == (frozenset([a]), frozenset([b]))


def test_grouping_refuses_a_seat_named_twice() -> None:
    for items in ({"0": ["bonus"], "00": ["peek"]}, {"0": [], "00": ["peek"]}, {"1": ["order"], 1: []}):
        with pytest.raises(OptionError, match="is given twice"):
            _made("grouping-final", items)


def test_joust_merges_the_lists_of_a_seat_named_twice() -> None:
    game = _made("joust-final", {"0": ["inversion"], "00": ["conceal"], 1: []})
    assert game.item_sets == (frozenset({"inversion", "conceal"}), frozenset())
