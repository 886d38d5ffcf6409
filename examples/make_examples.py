"""Write one seeded random-play record of each built-in game into examples/.

    python examples/make_examples.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from blackwhite.engine import game_ids, make_game, to_record
from blackwhite.engine.registry import provider
from blackwhite.engine.play import play_random


def main() -> None:
    here = Path(__file__).parent
    for gid in game_ids():
        if provider(gid) != "blackwhite":
            continue  # an outside game keeps its examples in its own package
        state = make_game(gid).new_initial_state()
        play_random(state, random.Random(2026), fast=False)
        path = here / f"{gid}.json"
        path.write_text(json.dumps(to_record(state), indent=1) + "\n")
        print(path, state.result())


if __name__ == "__main__":
    main()
