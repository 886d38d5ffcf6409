"""The background loops' waits never lose a cancellation, and a stop never hangs.

A loop woken at the moment it is cancelled is the race that hung the server's shutdown on
Python 3.11 (``asyncio.wait_for`` swallowed the cancellation; the loop went on for ever).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import pytest

from blackwhite.tasks import stop_tasks, wait_event


def _loop_until_cancelled(wait: Callable[[asyncio.Event], Awaitable[object]]) -> bool:
    """Run a loop over ``wait`` on an event, set the event and cancel the loop at the same
    moment, many times over: True if every loop ended within ten seconds (a lost
    cancellation never ends it; a busy machine may be slow to)."""
    async def main() -> bool:
        for _ in range(200):
            event = asyncio.Event()
            started = asyncio.Event()

            async def loop() -> None:
                while True:
                    started.set()
                    await wait(event)
                    event.clear()

            task = asyncio.create_task(loop())
            await started.wait()
            event.set()  # what it waits for completes...
            await asyncio.sleep(0)  # ...its waiter is woken...
            task.cancel()  # ...and the cancellation arrives in the same turn
            done, _ = await asyncio.wait({task}, timeout=10.0)
            if not done:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait({task}, timeout=1.0)
                return False
        return True
    return asyncio.run(main())


def test_a_loop_woken_as_it_is_cancelled_ends() -> None:
    assert _loop_until_cancelled(lambda event: wait_event(event, 10.0))


def test_wait_event_says_whether_the_event_came() -> None:
    async def main() -> tuple[bool, bool]:
        event = asyncio.Event()
        asyncio.get_running_loop().call_later(0.01, event.set)
        came = await wait_event(event, 5.0)
        return came, await wait_event(asyncio.Event(), 0.01)
    assert asyncio.run(main()) == (True, False)


def test_a_stop_gives_up_on_a_task_that_will_not_end(caplog: pytest.LogCaptureFixture) -> None:
    release = [False]

    async def stubborn() -> None:
        while not release[0]:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.05)

    async def failing() -> None:
        raise RuntimeError("boom")

    async def main() -> tuple[list[bool], float, bool]:
        loop = asyncio.get_running_loop()
        bad, quick = asyncio.create_task(stubborn()), asyncio.create_task(failing())
        await asyncio.sleep(0)
        start = loop.time()
        stuck = await stop_tasks([bad, quick, None], within=0.3)
        took = loop.time() - start
        release[0] = True
        await bad
        return [t is bad for t in stuck], took, quick.done()

    stuck, took, quick_done = asyncio.run(main())
    assert stuck == [True] and quick_done
    assert 0.25 <= took < 30.0  # gave up near its bound, not never (a busy machine may be late)
    assert "did not stop" in caplog.text and "boom" in caplog.text
