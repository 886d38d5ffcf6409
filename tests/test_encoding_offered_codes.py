"""``Encoding.offered_codes``, what the adapters list as legal at every step, is the
sorted set of the codes of ``Encoding.offered``, in every game and variant, for every
seat (an unawaited seat gets nothing), on the state itself and on a copy of it (a
search world), also when the driver asks a seat out of order."""

from __future__ import annotations

from typing import Any

import pytest

from blackwhite.engine.core import Action, State
from blackwhite.engine.encoding import Encoding, encoding
from blackwhite.engine.registry import game_ids

from .random_play import VARIANTS, random_match

CASES = [(g, o) for g in game_ids() for o in [{}, *VARIANTS[g]]]


def _expected(enc: Encoding, state: State, seat: int) -> list[int]:
    return sorted({enc.encode(a) for a in enc.offered(state, seat)})


@pytest.mark.parametrize("game_id,options", CASES, ids=[f"{g} {o}" for g, o in CASES])
@pytest.mark.parametrize("any_seat", [False, True])
def test_offered_codes_are_the_codes_of_the_offer(game_id: str, options: dict[str, Any], any_seat: bool) -> None:
    enc = encoding(game_id, options)
    fresh = encoding(game_id, options)  # nothing remembered from earlier matches
    checked = 0

    def check(state: State, asked: int, offered: list[Action]) -> None:
        nonlocal checked
        assert enc.offered_codes(state, asked) == sorted({enc.encode(a) for a in offered})
        copy = state.clone(track=False)
        for seat in range(state.num_seats):
            want = _expected(enc, state, seat)
            assert enc.offered_codes(state, seat) == want
            assert enc.offered_codes(copy, seat) == want
            assert fresh.offered_codes(copy, seat) == want
        checked += 1

    for seed in range(3):
        end, _ = random_match(enc, seed, check, any_seat=any_seat)
        for seat in range(end.num_seats):
            assert enc.offered_codes(end, seat) == []
    assert checked > 0
