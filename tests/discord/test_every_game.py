"""Every game through the bridge: the opening of a match of each, played a few steps
through the DMs (buttons, menus or notation, whichever each prompt offers), then
cancelled by the host: every prompt fits a Discord message and offers what the seat
may play, every DM board is drawn from that seat's view, and the channel gets the
public announcements and the record."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from blackwhite.engine import game_ids, make_game

from .checks import announcements, board_of, engine_boards
from .fake import WAIT, wait_for
from .harness import Harness, is_prompt, bridge_link

#: every installed game (an outside game's package included)
GAMES = game_ids()
#: prompts answered per seat before the host cancels
STEPS = 6


@pytest.mark.parametrize("game", GAMES)
def test_a_few_steps_of_every_game(server: Any, store_path: Path, game: str) -> None:
    async def main() -> None:
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
            players = [101 + s for s in range(make_game(game).num_seats)]
            users = dict(enumerate(players))
            answer, mid = await h.new(game, players)
            assert mid, answer
            tokens = {s.seat: s.token for s in h.store.seats(mid)}
            rng = random.Random(game)
            answered: set[int] = set()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 120
            while min(sum(1 for s in h.dms(u) if s.id in answered) for u in players) < STEPS:
                assert loop.time() < deadline, f"{game}: the prompts stopped coming"
                if any(s.text.startswith("**Result**") for s in h.channel()):
                    break
                acted = False
                for seat, user in users.items():
                    prompts = [s for s in h.dms(user) if is_prompt(s)]
                    if not prompts or prompts[-1].id in answered:
                        continue
                    last = prompts[-1]
                    answered.add(last.id)
                    acted = True
                    legal = server.view(mid, tokens[seat], render=True)["legal"]
                    assert len(last.text) <= 2000
                    if last.buttons:
                        assert [label for _, label in last.buttons] == legal
                        answer_ = await h.fake.wait_response(h.fake.press(user, rng.choice(last.buttons)[0]))
                    elif last.select is not None:
                        assert [label for label, _ in last.select[1]] == legal
                        pick = rng.choice(last.select[1])[1]
                        answer_ = await h.fake.wait_response(h.fake.press(user, last.select[0], [pick]))
                    else:
                        assert len(legal) > 25
                        before = len(h.dms(user))
                        h.fake.type_dm(user, rng.choice(legal))
                        await wait_for(lambda: any(s.text.startswith(("Sent", "Refused")) for s in h.dms(user)[before:]),
                                       WAIT, "the answer to typed notation")
                        answer_ = next(s for s in h.dms(user)[before:] if s.text.startswith(("Sent", "Refused")))
                    assert answer_.text.startswith("Sent"), answer_.text
                if not acted:
                    await asyncio.sleep(0.05)
            if not any(s.text.startswith("**Result**") for s in h.channel()):
                assert (await h.host("cancel")).endswith("is cancelled.")
            await wait_for(lambda: any(s.text.startswith("**Result**") for s in h.channel()), WAIT, "the record")
            row = h.store.match(mid)
            record = httpx.get(f"{server.base_url}/api/matches/{mid}/record", params={"token": row.spectator_token}).json()
            public = server.view(mid, row.spectator_token)["view"]["log"]
            lines = [line for line in announcements(h.channel()) if line != "The host cancelled the match."]
            assert lines == public
            for seat, user in users.items():
                allowed = engine_boards(record, seat, record["seats"])
                boards = [b for b in (board_of(s) for s in h.dms(user)) if b is not None]
                assert boards and all(b in allowed for b in boards)

    asyncio.run(main())
