"""The bridge against Discord's refusals, through discord.py's own HTTP client and rate
limiter (tests/discord/fake.py): a 429 storm during whole matches, a Discord that fails
the opening posts of ``/bw new``, what the bot asks of Discord (users cached), and a
bridge killed between Discord's accepting a post and its outbox's mark (each post's
nonce: nothing twice)."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from typing import Any

from blackwhite.discord_bridge.store import PUBLIC, TO_SEND

from .checks import STARTED, check_match
from .fake import CHANNEL_ID, WAIT, Refusal, Sent, Storm, wait_for
from .harness import Harness, is_prompt, bridge_link, play_through_dms
from .test_matches import settled


def test_a_429_storm_during_a_match(server: Any, store_path: Path) -> None:
    """Discord refuses 60% of the messages with 429 (and each channel's bucket holds 3 a
    second): discord.py waits each out and tries again up to five times, then the
    bridge's runner tries again on its timer.  No post is sent twice, none is lost, and
    every seat gets its last prompt: the match is played to its end through the DMs,
    each announcement once in the channel and each note once in its DM."""
    async def main() -> None:
        h = Harness(server.base_url, store_path, bridge_link(server))
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
        h = Harness(server.base_url, store_path, bridge_link(server))
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
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
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
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
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


# ------------------------------------------------------------------ killed between Discord's accept and the mark


class Killed:
    """The bridge dies once Discord has taken a post ``pick`` chooses and before the
    outbox marks it: the answer never returns to the sender (so the mark is never
    written) and no other post is sent after; ``await dead.wait()``, then stop it."""

    def __init__(self, h: Harness, pick: Any) -> None:
        self.dead = asyncio.Event()
        self.post: Any = None
        deliver = h.runner.deliver

        async def dying(post: Any) -> Any:
            if self.dead.is_set():
                await asyncio.Event().wait()  # the process is gone: nothing more leaves it
            message = await deliver(post)  # Discord took it (and its thread, for an opening post)
            if pick(post):
                self.post = post
                self.dead.set()
                await asyncio.Event().wait()  # killed here: the mark is never written
            return message

        h.runner.deliver = dying


def opening(post: Any) -> bool:
    return post.kind == "channel" and post.text.startswith("**")


def first_prompt_of(user: int) -> Any:
    def pick(post: Any) -> bool:
        return post.kind == "dm" and post.to == user and (
            any(not b.custom_id.endswith(":ready") for b in post.buttons) or post.select is not None
            or "type it in notation" in post.text)
    return pick


def test_a_bridge_killed_between_discords_accept_and_its_mark(server: Any, store_path: Path) -> None:
    """The bridge is killed twice just after Discord took a post and before the outbox
    marked it (the match's opening post, then a player's first prompt), and started
    again on its store each time: the unmarked post is sent again with its own nonce
    (``enforce_nonce``), Discord answers with the message already made, and the match is
    played to its end with every post once: each announcement once in the channel, each
    note and board once in its DM."""
    users = {0: 101, 1: 102}

    async def main() -> None:
        first = Harness(server.base_url, store_path, bridge_link(server))
        killed = Killed(first, opening)
        await first.start()
        answer, mid = await first.new("swapping", [101, 102], options="tiles=3", ready=False)
        assert mid, answer
        await asyncio.wait_for(killed.dead.wait(), WAIT)
        unmarked = [i for i, audience, state in first.store.states(mid) if audience == PUBLIC and state == TO_SEND]
        await first.stop()
        assert [s.text.startswith("**Swapping") for s in first.channel()].count(True) == 1
        assert unmarked and first.store.nonce(unmarked[0]) == killed.post.nonce  # taken by Discord, not marked

        second = Harness(server.base_url, store_path, bridge_link(server))
        second.fake.carry_on(first.fake)
        killed = Killed(second, first_prompt_of(101))
        await second.start()
        for user in users.values():
            await second.ready(user, mid)
        await asyncio.wait_for(killed.dead.wait(), WAIT)
        await second.stop()
        prompt = killed.post.text
        assert [s.text for s in second.dms(101)].count(prompt) == 1

        third = Harness(server.base_url, store_path, bridge_link(server))
        third.fake.carry_on(second.fake)  # Discord remembers; the bridge starts again
        async with third:
            await wait_for(lambda: third.fake.deduplicated >= 1, WAIT, "the prompt sent again")
            assert [s.text for s in third.dms(101)].count(prompt) == 1
            await play_through_dms(third, server, mid, users, random.Random(5))
            await settled(third, server, mid)
            check_match(third, server, mid, users)  # over the three runs: each line once
            assert [s.text.startswith("**Swapping") for s in third.channel()].count(True) == 1
            for user in users.values():
                views = [s.text for s in third.dms(user) if "```" in s.text]
                assert len(views) == len(set(views)), user
            # (a post sent beside the one killed may have lost its mark too: it is answered the same way)
            assert second.fake.deduplicated >= 1 and third.fake.deduplicated >= 1

    asyncio.run(main())


def test_a_thread_opened_before_the_kill(server: Any, store_path: Path) -> None:
    """``thread:true``, the bridge killed after the opening post and its thread were made
    but before the mark: started again, the post is answered with the first message
    (its nonce), whose thread Discord will not open twice (400, code 160004); the match
    moves to that thread (a message's thread has the message's id) and lives there."""
    async def main() -> None:
        first = Harness(server.base_url, store_path, bridge_link(server))
        killed = Killed(first, opening)
        await first.start()
        answer, mid = await first.new("swapping", [101, 102], options="tiles=3", thread=True, ready=False)
        assert mid, answer
        await asyncio.wait_for(killed.dead.wait(), WAIT)
        await first.stop()
        (thread, _), = first.fake.threads.items()

        second = Harness(server.base_url, store_path, bridge_link(server))
        second.fake.carry_on(first.fake)
        async with second:
            await wait_for(lambda: (m := second.store.match(mid)) is not None and m.channel_id == thread, WAIT,
                           "the match moved to its thread")
            for user in (101, 102):
                await second.ready(user, mid)
            await wait_for(lambda: any(s.text == STARTED for s in second.fake.to(f"channel:{thread}")), WAIT,
                           "the start in the thread")
            assert len(second.channel()) == 1 and len(second.fake.threads) == 1
            assert ("POST", f"/channels/{CHANNEL_ID}/messages/{thread}/threads", 400) in second.fake.requests
            assert (await second.host("status", channel=thread)).startswith(f"Match `{mid}`: running")

    asyncio.run(main())


def test_an_answer_lost_after_discord_took_the_post(server: Any, store_path: Path) -> None:
    """Discord creates a player's first prompt but its answer is lost (a 503 from its
    edge): the runner tries the post again on its timer, with the same nonce, and
    Discord answers with the message made: the prompt is in the DM once."""
    async def main() -> None:
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
            h.runner.resend = (0.05, 0.3)
            lost: list[Sent] = []

            def accepted(sent: Sent) -> Refusal | None:
                if not lost and sent.where == "dm:101" and is_prompt(sent):
                    lost.append(sent)
                    return Refusal(503, {"message": "upstream connect error", "code": 0})
                return None

            h.fake.accepted = accepted
            answer, mid = await h.new("swapping", [101, 102], options="tiles=3")
            assert mid, answer
            await settled(h, server, mid)
            assert lost and h.fake.deduplicated == 1
            assert [s.text for s in h.dms(101)].count(lost[0].text) == 1

    asyncio.run(main())
