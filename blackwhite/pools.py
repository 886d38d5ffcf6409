"""Ending a process pool at once, for the analysis command and the server alike.

``ProcessPoolExecutor.shutdown`` waits for running work and, with ``wait=False``, leaves
the pool's queues open, so their semaphores outlive the process and the resource tracker
reports them as leaked at exit.  Killing the workers first lets the pool's manager thread
end, and joining it closes the queues.
"""

from __future__ import annotations

import concurrent.futures


def stop_pool(pool: concurrent.futures.Executor) -> None:
    """End ``pool`` now: queued work is dropped, running work is abandoned (a worker
    process is killed: a server's worker ignores SIGTERM) and every process is reaped, so nothing
    of the pool outlives the call."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        try:
            process.kill()
        except Exception:  # noqa: BLE001 - already gone
            pass
    # with the workers gone the pool's manager thread ends at once, and wait=True joins it,
    # closing the pool's queues (their semaphores go with them)
    pool.shutdown(wait=bool(processes), cancel_futures=True)
    for process in processes:
        try:
            process.join(timeout=5.0)
        except Exception:  # noqa: BLE001 - already reaped
            pass
