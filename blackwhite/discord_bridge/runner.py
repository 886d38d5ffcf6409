"""The bridge's tasks: per audience of every match not over (the spectator, and each
seat a Discord user holds), a socket task that hands every pushed view to
:meth:`Bridge.on_payload` (which queues its posts in the outbox), and a sender task
that sends the outbox's posts oldest first, marking each once Discord took it.

A post that fails is tried again on a timer (1 s, doubling up to a minute), not only
when another view comes: a waiting seat's last prompt reaches it even if nothing else
happens.  A post Discord refuses for good (:class:`Undeliverable`) is marked given up.
After a restart, every post not marked is sent; each try of a post carries the post's
own nonce, so one Discord took just before the bridge died is answered with the message
it made (within Discord's window of a few minutes), not posted twice.

A seat's socket is opened with ``join=0``: watching a seat for its player is not the
player coming, so the server's clocks wait until the player answers the bridge's DM
(:meth:`Bridge.join`), as they would for a link nobody opened yet."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from ..names import cut
from ..tasks import stop_tasks, wait_event
from .core import Bridge, Outgoing
from .messages import split_lines
from .store import NONCE_MAX, PUBLIC

log = logging.getLogger("blackwhite.discord")

Deliver = Callable[[Outgoing], Awaitable[object]]

#: the kinds of the server's notices the bridge says itself in a seat's DM of its own
#: matches (the invitation with its Ready button, each prompt, the end): not DMed again
OWN_KINDS = ("join", "turn", "end")


T = TypeVar("T")


async def newest(source: AsyncIterator[T]) -> AsyncIterator[T]:
    """The items of ``source``, skipping those a newer one overtook while the consumer
    was busy: views pushed faster than the bridge reads them are not drawn one by one,
    only the newest (a view's log holds every earlier announcement, so none is lost)."""
    slot: list[T] = []
    ended: list[BaseException | None] = []
    ready = asyncio.Event()

    async def pull() -> None:
        try:
            async for item in source:
                slot[:] = [item]
                ready.set()
        except Exception as exc:  # handed to the consumer
            ended.append(exc)
        else:
            ended.append(None)
        finally:
            ready.set()

    task = asyncio.create_task(pull())
    try:
        while True:
            if not slot and not ended:
                await ready.wait()
            ready.clear()
            if slot:
                yield slot.pop()
            elif ended:
                if ended[0] is not None:
                    raise ended[0]
                return
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


class Undeliverable(Exception):
    """Discord refused a post for good (a DM to a user who accepts none, an unknown or
    forbidden channel, a malformed message): trying again would fail the same way."""


class Runner:
    """Keeps a socket task and a sender task per watched audience; ``deliver`` sends one
    message to Discord (raising :class:`Undeliverable`, or anything else for a failure
    worth another try)."""

    #: tries of one post after which, the match being over, it is given up
    GIVE_UP_AFTER = 8

    def __init__(self, bridge: Bridge, deliver: Deliver, retry: float = 0.5,
                 resend: tuple[float, float] = (1.0, 60.0), notify_every: float = 10.0) -> None:
        self.bridge = bridge
        self.deliver = deliver
        self.retry = retry
        self.resend = resend  # the first wait before a failed post is sent again, and the longest
        #: seconds between two readings of the server's notifications (0: never read)
        self.notify_every = notify_every
        self.notifier: asyncio.Task[None] | None = None
        self.tasks: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.senders: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._wake: dict[tuple[str, int], asyncio.Event] = {}

    async def start(self) -> None:
        """Send what the outbox still holds and watch every match of the store not over
        (after a restart: catch up); relay the server's notifications."""
        for match_id, audience in await self.bridge.queued():
            self._sender(match_id, audience)
        for match_id, audience, token in await self.bridge.watched():
            self._spawn(match_id, audience, token)
        if self.notify_every > 0 and self.notifier is None:
            self.notifier = asyncio.create_task(self._notices(), name="bw-notices")

    async def _notices(self) -> None:
        """The server's notifications for players with a Discord id (``GET
        /api/notify/discord``), each DMed to its user as the server wrote it (built from
        the seat's own view), less what the bridge DMs the user itself (:meth:`_unsaid`),
        and marked delivered (with no DM when nothing is left, which the mark says: the
        server's digest window then counts no message).  The server hands one out until it is
        marked, and every try carries the same nonces: a crash between Discord's accept and
        the mark sends nothing twice (within Discord's window).  A user who accepts no DM
        from the bot: given up, marked.  A server without the route: stopped."""
        from .api import BRIDGE_LINK_COMMAND, ServerError, Unreachable

        api, host = self.bridge.api, self.bridge.settings.host_token
        while True:
            try:
                notices = await api.notices(host)
            except ServerError as exc:
                if exc.status == 403 and exc.code == "scope":  # a link made before the bridge had a scope of its own
                    log.warning("the server hands the bot no notifications: BLACKWHITE_HOST_TOKEN is not the bridge's"
                                " own link (scope discord), so it hosts matches but DMs none of the server's notices;"
                                " on the server run `%s`, set BLACKWHITE_HOST_TOKEN to the link it prints, restart"
                                " the bot and revoke the old link (docs/discord.md)", BRIDGE_LINK_COMMAND)
                    return
                if exc.status in (403, 404, 405):
                    log.warning("the server hands the bot no notifications (%s): not asked again", exc)
                    return
                notices = []
            except Exception as exc:  # unreachable, or a bug of ours with one answer: asked again later
                if not isinstance(exc, Unreachable):
                    log.exception("could not read the server's notifications")
                notices = []
            for notice in notices:
                try:
                    dmed = await self._notice(notice)
                    try:
                        await api.notice_delivered(host, int(notice["id"]), dmed)
                    except ServerError as exc:
                        if dmed or exc.status != 403:
                            raise
                        # the server counts an item as not this bridge's to say (another host's
                        # match): a plain mark, or the message would hold back every later one
                        log.warning("the server refused to void notification %s (%s): marked delivered",
                                    notice["id"], exc)
                        await api.notice_delivered(host, int(notice["id"]))
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # Discord or the server down: the server hands it out again
                    log.warning("a notification to Discord user %s failed (%s); tried again later",
                                notice.get("discord_id"), exc or type(exc).__name__)
                    break
            await asyncio.sleep(self.notify_every)

    async def _notice(self, notice: dict[str, Any]) -> bool:
        """DM one notification (False: nothing of it is left to DM)."""
        try:
            user = int(str(notice["discord_id"]))
        except (KeyError, ValueError):
            log.warning("a notification without a Discord user id (%r): dropped", notice.get("discord_id"))
            return True
        said = await self._unsaid(user, notice)
        if said is None:
            return False  # every item is one this bridge DMs the user itself: nothing more to say
        subject, lines = said
        head = f"**{cut(subject or 'blackwhite', 200)}**"
        texts = split_lines([head, *lines])
        prefix = self.bridge.store.nonce_prefix
        for i, text in enumerate(texts):
            nonce = f"bw{prefix}n{int(notice['id'])}.{i}"
            try:
                await self.deliver(Outgoing("dm", user, text, nonce=nonce if len(nonce) <= NONCE_MAX else None))
            except Undeliverable as exc:
                log.warning("Discord refused a notification to user %s for good (%s): not sent", user, exc)
                return True
        return True

    async def _unsaid(self, user: int, notice: dict[str, Any]) -> tuple[str, list[str]] | None:
        """What of ``notice`` the user is not told by this bridge already: (subject, lines),
        or None when nothing is left.  The server writes a notice for each event of each
        seat bound to a player with a Discord id, not knowing that the bridge DMs the seats
        of its own matches their invitation, every prompt and the end (:data:`OWN_KINDS`):
        those items are left out, and the DM is made again of the others (the same at
        every try, so its nonces still answer a retry after a crash).  Time running low
        is not said by the bridge: kept."""
        text = str(notice.get("text") or "").rstrip("\n").split("\n")
        items = [i for i in notice.get("items") or [] if isinstance(i, dict)]
        ours = {str(i["match"]) for i in items if i.get("kind") in OWN_KINDS and i.get("match")}
        ours = await self.bridge.prompted(user, ours) if ours else set()
        kept = [i for i in items if not (i.get("kind") in OWN_KINDS and str(i.get("match")) in ours)]
        if len(kept) == len(items):
            return str(notice.get("subject") or ""), text
        if not kept:
            return None
        if len(kept) == 1:
            subject = str(kept[0].get("subject") or "")
        else:
            matches = len({str(i.get("match")) for i in kept})
            subject = f"{len(kept)} updates from {matches} matches" if matches > 1 else \
                f"{len(kept)} updates: {kept[0].get('title') or ''}"
        lines: list[str] = []
        for item in kept:
            lines += [str(item.get("text") or ""), f"  Open it: {item.get('link') or ''}", ""]
        lines.append(f"Stop these messages (one click): {notice.get('unsubscribe') or ''}")
        return subject, lines

    async def watch(self, match_id: str) -> None:
        """Watch a match just created, and send its opening posts."""
        for mid, audience, token in await self.bridge.audiences(match_id):
            self._spawn(mid, audience, token)

    def send_queued(self, match_id: str, audience: int) -> None:
        """Posts were queued for the audience besides its views (``/bw time``): send them."""
        self._sender(match_id, audience)

    def _spawn(self, match_id: str, audience: int, token: str) -> None:
        key = (match_id, audience)
        if key not in self.tasks or self.tasks[key].done():
            self.tasks[key] = asyncio.create_task(self._watch(match_id, audience, token),
                                                  name=f"bw-watch-{match_id}-{audience}")
        self._sender(match_id, audience)

    def _sender(self, match_id: str, audience: int) -> None:
        key = (match_id, audience)
        self._wake.setdefault(key, asyncio.Event()).set()
        if key not in self.senders or self.senders[key].done():
            self.senders[key] = asyncio.create_task(self._send(match_id, audience),
                                                    name=f"bw-send-{match_id}-{audience}")

    async def _watch(self, match_id: str, audience: int, token: str) -> None:
        try:
            await self._read(match_id, audience, token)
        finally:  # the sender ends once it has sent what is left
            self._wake.setdefault((match_id, audience), asyncio.Event()).set()

    async def _read(self, match_id: str, audience: int, token: str) -> None:
        api = self.bridge.api
        views = api.views(match_id, token, render=audience != PUBLIC, retry=self.retry, join=False)
        async for payload in newest(views):
            try:
                delivery = await self.bridge.on_payload(match_id, audience, payload)
            except Exception:  # a bug of ours with one payload must not end the watch: the next view retries
                log.exception("match %s: could not read a view of audience %s", match_id, audience)
                continue
            if delivery.posts:
                self._sender(match_id, audience)
            if payload.get("status") in ("finished", "cancelled"):
                return

    async def _send(self, match_id: str, audience: int) -> None:
        """Send the audience's posts in order until none is left and its socket task has
        ended (the match is over); a failure waits and tries again."""
        key = (match_id, audience)
        wake = self._wake.setdefault(key, asyncio.Event())
        delay = self.resend[0]
        failures = 0
        while True:
            wake.clear()
            taken = await self.bridge.take(match_id, audience)
            if taken is None:
                watcher = self.tasks.get(key)
                if watcher is None or watcher.done():
                    return
                await wake.wait()
                continue
            post_id, post = taken
            try:
                await self.deliver(post)
            except Undeliverable as exc:
                log.warning("match %s: Discord refused a post to %s for good (%s); not sent", match_id, post.to, exc)
                await self.bridge.sent(post_id, given_up=True)
            except asyncio.CancelledError:
                self.bridge.failed(post_id)
                raise
            except Exception as exc:  # rate limited past discord.py's retries, Discord or the network down
                failures += 1
                watcher = self.tasks.get(key)
                if failures >= self.GIVE_UP_AFTER and (watcher is None or watcher.done()):
                    log.error("match %s is over and a post to %s failed %d times (%s): given up", match_id,
                              post.to, failures, exc or type(exc).__name__)
                    await self.bridge.sent(post_id, given_up=True)
                    failures = 0
                    continue
                self.bridge.failed(post_id)
                log.warning("match %s: a post to %s failed (%s); again in %.0f s", match_id, post.to,
                            exc or type(exc).__name__, delay)
                # a newer view (which may supersede this post) wakes the sender at once
                await wait_event(wake, delay)
                delay = min(self.resend[1], delay * 2)
                continue
            else:
                await self.bridge.sent(post_id)
            delay = self.resend[0]
            failures = 0

    async def wait_idle(self, match_id: str, timeout: float) -> None:
        """Wait until every task of ``match_id`` has stopped (the match is over, all sent)."""
        tasks = [t for (mid, _), t in [*self.tasks.items(), *self.senders.items()] if mid == match_id]
        if tasks:
            await asyncio.wait_for(asyncio.gather(*tasks), timeout)

    async def close(self) -> None:
        everything = [*self.tasks.values(), *self.senders.values(), *([self.notifier] if self.notifier else [])]
        await stop_tasks(everything)
        self.tasks.clear()
        self.senders.clear()
        self.notifier = None
