"""What the match log says is read by people on the pages, in the terminal and in Discord
DMs: plain words, no notation markup (backticks) and no internal 0-based "seat N"."""

from __future__ import annotations

import random
import re

import pytest

from blackwhite.engine import game_ids, make_game


@pytest.mark.parametrize("game", game_ids())
def test_every_log_line_of_random_matches_is_plain_words(game: str) -> None:
    for seed in range(6):
        rng = random.Random(seed)
        state = make_game(game).new_initial_state()
        while not state.is_terminal():
            if state.is_chance():
                state.apply_chance(state.sample_chance(rng))
                continue
            seat = rng.choice([s for s in state.to_move() if s not in state.pending])
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        for note in state.log:
            assert "`" not in note.text and not re.search(r"\bseat \d", note.text), (game, seed, note.text)
