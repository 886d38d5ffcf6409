"""The bridge against Discord's refusals, through discord.py's own HTTP client and rate
limiter (tests/discord/fake.py): a 429 storm during whole matches, a Discord that fails
the opening posts of ``/bw new``, and what the bot asks of Discord (users cached)."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from typing import Any

from blackwhite.discord_bridge.store import PUBLIC

from .checks import check_match
from .fake import CHANNEL_ID, WAIT, Refusal, Storm, wait_for
from .harness import Harness, is_prompt, matches_link, play_through_dms
from .test_matches import settled


def test_a_429_storm_during_a_match(server: Any, store_path: Path) -> None:
    """Discord refuses 60% of the messages with 429 (and each channel's bucket holds 3 a
    second): discord.py waits each out and tries again up to five times, then the
    bridge's runner tries again on its timer.  No post is sent twice, none is lost, and
    every seat gets its last prompt: the match is played to its end through the DMs,
    each announcement once in the channel and each note once in its DM."""
    async def main() -> None:
        h = Harness(server.base_url, store_path, matches_link(server))
        h.runner.resend = (0.05, 0.4)
        h.fake.LIMIT, h.fake.WINDOW = 3, 0.25
        failures: list[str] = []
        deliver = h.runner.deliver

        async def counted(post: Any) -> Any:
            try:
                return await deliver(post)
            except Exception as exc:
                failures.append(type(exc).__name__)
                raise

        h.runner.deliver = counted
        await h.start()
        try:
            h.fake.storm = Storm(0.6)
            answer, mid = await h.new("yellow", [101, 102, 103])
            assert mid, answer
            users = {0: 101, 1: 102, 2: 103}
            await play_through_dms(h, server, mid, users, random.Random(13), timeout=300)
            await settled(h, server, mid, timeout=120)
            check_match(h, server, mid, users)
            # every outbox post sent once: no two identical view posts in a row to one DM
            for user in users.values():
                views = [s.text for s in h.dms(user) if "```" in s.text]
                assert all(a != b for a, b in zip(views, views[1:])), user
            statuses = Counter(status for _, _, status in h.fake.requests)
            assert statuses[429] > 50, statuses  # a storm indeed
            assert "HTTPException" in failures  # five 429s in a row: the runner's own retry was needed
            # every seat's last view (the end) reached its DM
            for user in users.values():
                assert h.dms(user)[-1].text.endswith("The match is over."), h.dms(user)[-1].text[-80:]
        finally:
            await h.stop()

    asyncio.run(main())


def test_new_watches_first_then_posts_and_retries(server: Any, store_path: Path) -> None:
    """Discord fails the opening post and the invitations of ``/bw new`` (503) for a
    while: the match is stored and watched at once, and its posts are sent once Discord
    answers again, each once."""
    async def main() -> None:
        h = Harness(server.base_url, store_path, matches_link(server))
        h.runner.resend = (0.05, 0.3)
        await h.start()
        try:
            failing = {"left": 6}

            def fault(method: str, path: str, body: dict[str, Any]) -> Refusal | None:
                if method == "POST" and path.endswith("/messages") and failing["left"] > 0:
                    failing["left"] -= 1
                    return Refusal(503, {"message": "Service Unavailable", "code": 0})
                return None

            h.fake.fault = fault
            answer, mid = await h.new("swapping", [101, 102], options="tiles=3", ready=False)
            assert answer == f"Match `{mid}` created."
            assert (mid, PUBLIC) in h.runner.tasks and (mid, 0) in h.runner.tasks  # watched before any post
            await wait_for(lambda: failing["left"] == 0, WAIT, "the failures")
            for user in (101, 102):
                await h.ready(user, mid)
            await wait_for(lambda: all(any(is_prompt(s) for s in h.dms(u)) for u in (101, 102)), WAIT,
                           "the first prompts")
            await settled(h, server, mid)
            openings = [s for s in h.channel() if s.text.startswith("**Swapping")]
            assert len(openings) == 1 and h.channel()[0] is openings[0]
            for user in (101, 102):
                assert [s.text.startswith("You hold seat") for s in h.dms(user)].count(True) == 1
        finally:
            await h.stop()

    asyncio.run(main())


def test_the_bot_asks_discord_only_what_it_needs(server: Any, store_path: Path) -> None:
    """Users cached: each player's DM channel is opened once, and no user is fetched
    before a DM; the commands are registered once, in the configured guild."""
    async def main() -> None:
        async with Harness(server.base_url, store_path, matches_link(server)) as h:
            answer, mid = await h.new("swapping", [101, 102], options="tiles=3")
            assert mid, answer
            await play_through_dms(h, server, mid, {0: 101, 1: 102}, random.Random(3))
            await settled(h, server, mid)
            asked = Counter((m, p) for m, p, _ in h.fake.requests)
            assert asked[("POST", "/users/@me/channels")] == 2
            assert not [p for m, p in asked if m == "GET" and p.startswith("/users/") and p != "/users/@me"]
            assert [p for m, p in asked if m == "PUT"] == [f"/applications/{h.fake.client.application_id}/guilds/"
                                                           f"{h.bridge.settings.guild}/commands"]
            assert len(h.channel()) > 3 and all(s.where == f"channel:{CHANNEL_ID}" for s in h.channel())

    asyncio.run(main())


def test_a_thread_that_cannot_be_opened(server: Any, store_path: Path) -> None:
    """``thread:true`` without the permission to open threads (403, code 50013): the
    opening post is sent once, the match is announced in the channel instead, and its
    players get their prompts."""
    async def main() -> None:
        async with Harness(server.base_url, store_path, matches_link(server)) as h:
            h.fake.fault = lambda method, path, body: (
                Refusal(403, {"code": 50013, "message": "Missing Permissions"}) if path.endswith("/threads") else None)
            answer, mid = await h.new("swapping", [101, 102], options="tiles=3", thread=True)
            assert mid, answer
            await wait_for(lambda: all(any(is_prompt(s) for s in h.dms(u)) for u in (101, 102)), WAIT,
                           "the first prompts")
            await settled(h, server, mid)
            assert not h.fake.threads
            assert [s.text.startswith("**Swapping") for s in h.channel()].count(True) == 1
            assert any(s.text.startswith("The match has started") for s in h.channel())
            assert (await h.host("status")).startswith(f"Match `{mid}`: running")  # the channel's match

    asyncio.run(main())
