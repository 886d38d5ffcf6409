"""Worker processes (bots, replay analysis) that stop when the server says so, and only then.

A terminal's Ctrl-C and systemd's stop (``KillMode=control-group``) signal every process
of the server at once.  A worker that died of that signal mid-decision broke its pool
while the server was still stopping: the server logged the death, started new workers
for the bots still due, and, exiting, left those orphans behind (they lived on for
minutes: a worker's copy of the pool's queue holds its write end too, so it never reads
end-of-file) with the pool's queues never closed (the resource tracker warns of "leaked
semaphore objects" when their semaphores outlive the server).  So a worker ignores SIGINT and SIGTERM,
the server ends its workers itself (:func:`stop_pool`: SIGKILL, then joined), and a
worker whose server is gone (``kill -9``) exits by itself within a second.  A worker is
started with the stop signals blocked (:func:`signals_blocked` around the submit that
starts it), so one that arrives while it is still starting waits for :func:`detach` and is
ignored there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from multiprocessing import resource_tracker

from ..pools import stop_pool

__all__ = ["detach", "signals_blocked", "stop_pool"]

#: the signals meant for the server alone
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}

#: how often a worker checks that the server that started it is still there (seconds)
PARENT_POLL = 1.0


def detach(parent: int) -> None:
    """In a worker, first thing: ignore the stop signals meant for the server, and exit
    once ``parent`` (the server's pid) is gone."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by the starter (pending ones are dropped)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(0)  # the server is gone: nobody waits for this worker's answer

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """Block the stop signals in this thread for the body: a process started in it (a
    pool's submit starts workers) inherits the mask until :func:`detach` clears it.  The
    server itself still gets the signals, in its other threads, and acts on them after."""
    # the resource tracker, started with a pool's first semaphore, unblocks these two
    # signals once it is up: started first, it leaves the mask alone
    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


