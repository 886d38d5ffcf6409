"""Every game's observation tensor, written straight at its blocks' offsets, is the
tensor of the first, plainer code (``tests/encoding_reference.py``) element for
element: on every seat's and the public view after every step of seeded random
matches, in the standard game and its small variant."""

from __future__ import annotations

import random

import pytest

from blackwhite.engine import game_ids, make_game
from blackwhite.engine.encoding import encoding
from blackwhite.engine.registry import entry
from blackwhite.engine.play import random_step

from .encoding_reference import reference

#: the games with a research encoding of their own (the reference is of those)
ENCODED = [gid for gid in game_ids() if entry(gid).encoding is not None]


@pytest.mark.parametrize("small", [False, True], ids=["standard", "small"])
@pytest.mark.parametrize("game_id", ENCODED)
def test_observation_is_the_reference_tensor_at_every_step(game_id: str, small: bool) -> None:
    small_options = dict(type(make_game(game_id)).small_options)
    if small and not small_options:
        pytest.skip(f"{game_id} declares no small variant")
    game = make_game(game_id, small_options if small else None)
    enc = encoding(game)
    ref = reference(enc)
    size = enc.observation_shape[0]
    compared = 0
    for seed in range(12 if small else 4):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while True:
            for seat in (None, *range(game.num_seats)):
                view = state.view(seat)
                entries = enc.observation_entries(view)
                assert all(0 <= i < size for i in entries), (seed, seat)  # a negative index would wrap
                assert enc.observation(view) == ref.observation(view), (seed, seat)
                compared += 1
            if state.is_over():
                break
            random_step(state, rng)
    assert compared > 100
