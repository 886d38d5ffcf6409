"""The bridge's sockets: one per audience of every match not over (the spectator, and
each seat a Discord user holds), each a task that hands every pushed view to
:meth:`Bridge.on_payload`, sends what it returns, then marks it posted.

A seat's socket is opened with ``join=0``: watching a seat for its player is not the
player coming, so the server's clocks wait until the player answers the bridge's DM
(:meth:`Bridge.join`), as they would for a link nobody opened yet."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from .core import Bridge, Outgoing
from .store import PUBLIC

log = logging.getLogger("blackwhite.discord")

Deliver = Callable[[Outgoing], Awaitable[object]]


class Runner:
    """Keeps a socket task per watched audience; ``deliver`` sends one message to Discord."""

    def __init__(self, bridge: Bridge, deliver: Deliver, retry: float = 0.5) -> None:
        self.bridge = bridge
        self.deliver = deliver
        self.retry = retry
        self.tasks: dict[tuple[str, int], asyncio.Task[None]] = {}

    def start(self) -> None:
        """Watch every match of the store not over (after a restart: catch up)."""
        for match_id, audience, token in self.bridge.watched():
            self._spawn(match_id, audience, token)

    def watch(self, match_id: str) -> None:
        """Watch a match just created."""
        for mid, audience, token in self.bridge.audiences(match_id):
            self._spawn(mid, audience, token)

    def _spawn(self, match_id: str, audience: int, token: str) -> None:
        key = (match_id, audience)
        if key in self.tasks and not self.tasks[key].done():
            return
        self.tasks[key] = asyncio.create_task(self._watch(match_id, audience, token),
                                              name=f"bw-watch-{match_id}-{audience}")

    async def _watch(self, match_id: str, audience: int, token: str) -> None:
        api = self.bridge.api
        async for payload in api.views(match_id, token, render=audience != PUBLIC, retry=self.retry, join=False):
            try:
                delivery = await self.bridge.on_payload(match_id, audience, payload)
            except Exception:  # a bug of ours with one payload must not end the watch: the next view retries
                log.exception("match %s: could not read a view of audience %s", match_id, audience)
                continue
            try:
                for post in delivery.posts:
                    await self.deliver(post)
            except Exception:  # Discord refused or is unreachable: not marked, so the next view repeats it
                log.exception("match %s: could not deliver to audience %s", match_id, audience)
                continue
            self.bridge.mark(delivery)
            if payload.get("status") in ("finished", "cancelled"):
                return

    async def wait_idle(self, match_id: str, timeout: float) -> None:
        """Wait until every watcher of ``match_id`` has stopped (the match is over)."""
        tasks = [t for (mid, _), t in self.tasks.items() if mid == match_id]
        if tasks:
            await asyncio.wait_for(asyncio.gather(*tasks), timeout)

    async def close(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        self.tasks.clear()
