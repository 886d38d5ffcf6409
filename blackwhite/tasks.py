"""Waiting and stopping in asyncio without losing a cancellation.

Python 3.11's ``asyncio.wait_for`` can swallow a cancellation that arrives just as what it
waits for completes (CPython gh-86296, fixed in 3.12): a loop of
``wait_for(event.wait(), t)`` that is woken at the moment it is cancelled goes on for ever,
and a server that awaits such a loop at shutdown never stops.  ``asyncio.wait`` has no
such race, so every background loop here waits with :func:`wait_event`, and every shutdown
ends its loops with :func:`stop_tasks`, which gives up after a bound instead of hanging.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

log = logging.getLogger(__name__)


async def wait_event(event: asyncio.Event, timeout: float | None) -> bool:
    """Wait until ``event`` is set or ``timeout`` seconds pass; True if it was set.
    A cancellation of the caller is never lost."""
    waiter = asyncio.ensure_future(event.wait())
    try:
        done, _ = await asyncio.wait({waiter}, timeout=timeout)
    finally:
        waiter.cancel()
    return bool(done)


async def stop_tasks(tasks: Iterable[asyncio.Future[Any] | None], within: float = 5.0) -> list[asyncio.Future[Any]]:
    """Cancel ``tasks`` and wait up to ``within`` seconds for them to end (their errors are
    logged, not raised); returns those that did not end, so a caller's stop never hangs on
    one loop that will not."""
    pending = {t for t in tasks if t is not None and not t.done()}
    for task in pending:
        task.cancel()
    if not pending:
        return []
    done, stuck = await asyncio.wait(pending, timeout=within)
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            log.warning("a background task ended with %r while stopping", task.exception())
    for task in stuck:
        log.error("a background task did not stop within %g s of its cancellation: %r", within, task)
    return list(stuck)
