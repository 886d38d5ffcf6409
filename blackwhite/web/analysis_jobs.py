"""The replay page's match analysis, run in the background.

``blackwhite.analysis.analyse`` costs about 1-3 s per decision (a whole match: minutes),
so the server never runs it in its own process: each job goes to a pool of its own
(one spawned worker by default, apart from the bots' pool, so bots in live matches are
never kept waiting), and the worker reports each decision it finishes on a queue that
the server reads whenever a job's state is asked for.  Jobs are kept in memory, keyed
by a hash of the record's canonical JSON and the settings: the same record is analysed
once, and a finished job's chart is kept (the last :data:`KEEP` of them).  At most
:data:`MAX_PENDING` jobs wait or run at once; a job whose worker dies fails with an
error instead of hanging, and a job longer than ``max_seconds`` stops itself.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from ..analysis import Settings, analyse, chart_data
from .replay import step_before, step_cuts

log = logging.getLogger("blackwhite.web.analysis")

#: the replay page's analysis: fixed worlds (reproducible), no ismcts candidate (cheap)
DEFAULT_SETTINGS = Settings(worlds=8, search=0)
#: jobs that may wait or run at once; the next one is refused (503 ``busy``)
MAX_PENDING = 4
#: finished (or failed) jobs kept for the page to fetch and for a repeated request
KEEP = 64
#: a job that runs longer than this stops itself and fails (a huge upload cannot hold the worker)
MAX_SECONDS = 900.0
#: environment variables that override :data:`DEFAULT_SETTINGS` for ``blackwhite serve``
ENV_WORLDS = "BLACKWHITE_REPLAY_ANALYSIS_WORLDS"
ENV_CANDIDATES = "BLACKWHITE_REPLAY_ANALYSIS_CANDIDATES"

STATES = ("queued", "running", "done", "failed")


class Busy(Exception):
    """Too many analyses are waiting: the request is refused and nothing is started."""


def settings_from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """:data:`DEFAULT_SETTINGS`, with worlds and candidates taken from :data:`ENV_WORLDS` and
    :data:`ENV_CANDIDATES` when set (tests make the analysis cheap this way)."""
    env = os.environ if environ is None else environ
    settings = DEFAULT_SETTINGS
    for name, field_ in ((ENV_WORLDS, "worlds"), (ENV_CANDIDATES, "candidates")):
        raw = env.get(name, "").strip()
        if not raw:
            continue
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r} is not a whole number") from None
        settings = replace(settings, **{field_: value})  # Settings checks the range
    return settings


def job_key(record: Mapping[str, Any], settings: Settings) -> str:
    """The job id of ``record`` under ``settings``: the same record (whatever its key
    order or spacing) and settings always give the same id."""
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = canonical + "\n" + repr(settings)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# ---------------------------------------------------------------------- events and steps


def with_steps(chart: dict[str, Any], events: Sequence[Any]) -> dict[str, Any]:
    """``chart`` (as :func:`blackwhite.analysis.chart_data` gives it) with replay steps:
    each point gets ``step`` (``before``: the step before the decision, ``after``: the
    step just after it, ``outcome``: the last step), each mark ``before_step`` and
    ``step`` (just after the decision, where the page draws it), and the chart
    ``steps`` (how many steps the replay has)."""
    cuts = step_cuts(events)
    last = len(cuts) - 1
    out = dict(chart)
    out["steps"] = len(cuts)
    curves = []
    for curve in chart.get("curves", []):
        points = []
        for point in curve.get("points", []):
            if point["kind"] == "outcome":
                step = last
            elif point["kind"] == "after":
                step = min(last, step_before(cuts, point["event"]) + 1)
            else:
                step = step_before(cuts, point["event"])
            points.append({**point, "step": step})
        curves.append({**curve, "points": points})
    out["curves"] = curves
    out["marks"] = [
        {**mark, "before_step": step_before(cuts, mark["event"]),
         "step": min(last, step_before(cuts, mark["event"]) + 1)}
        for mark in chart.get("marks", [])
    ]
    return out


def for_audience(chart: Mapping[str, Any], seat: int | None, full: bool) -> dict[str, Any]:
    """``chart`` as ``seat`` (or the public, ``seat=None``) may read it: a mark of another
    seat keeps its move number, mark and loss but loses its action and best action,
    which name that seat's secret choices.  ``full``: the whole record's audience."""
    if full:
        return dict(chart)
    out = dict(chart)
    out["marks"] = [
        mark if mark["seat"] == seat else {**mark, "action": None, "best": None}
        for mark in chart.get("marks", [])
    ]
    return out


# ---------------------------------------------------------------------- the worker side

_progress: Any = None  # the worker's end of the progress queue (set by _init_worker)


def _init_worker(progress: Any) -> None:
    global _progress
    _progress = progress


def run_analysis(job: str, record: dict[str, Any], settings: Settings, max_seconds: float) -> dict[str, Any]:
    """In a worker process: the analysis of ``record`` as :func:`chart_data`, reporting
    ``(job, done, total)`` after each decision; past ``max_seconds`` it stops (raising)."""
    start = time.monotonic()

    def progress(done: int, total: int) -> None:
        if _progress is not None:
            _progress.put((job, done, total))
        if time.monotonic() - start > max_seconds and done < total:
            raise TimeoutError(f"the analysis stopped after {done} of {total} decisions: "
                               f"it took longer than {max_seconds:.0f} s")

    if _progress is not None:
        _progress.put((job, 0, -1))  # started
    return chart_data(analyse(record, settings=settings, progress=progress))


Work = Callable[[str, dict[str, Any], Settings, float], dict[str, Any]]


# ---------------------------------------------------------------------- the server side


@dataclass
class Job:
    """One analysis: its state, progress, and its chart once done (or why it failed)."""

    id: str
    state: str
    events: list[Any]
    done: int = 0
    total: int = 0
    chart: dict[str, Any] | None = None
    error: str | None = None

    def to_json(self, seat: int | None = None, full: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"job": self.id, "state": self.state, "done": self.done, "total": self.total}
        if self.state == "done" and self.chart is not None:
            out["chart"] = for_audience(self.chart, seat, full)
        if self.state == "failed":
            out["error"] = self.error
        return out


class AnalysisJobs:
    """The analysis jobs of one server (see the module's docstring)."""

    def __init__(self, settings: Settings = DEFAULT_SETTINGS, *, workers: int = 1, max_pending: int = MAX_PENDING,
                 keep: int = KEEP, max_seconds: float = MAX_SECONDS, work: Work = run_analysis) -> None:
        if workers < 1 or max_pending < 1 or keep < 1 or max_seconds <= 0:
            raise ValueError(f"analysis jobs need workers, max_pending, keep >= 1 and max_seconds > 0; "
                             f"got {workers}, {max_pending}, {keep}, {max_seconds}")
        self.settings = settings
        self.workers = workers
        self.max_pending = max_pending
        self.keep = keep
        self.max_seconds = max_seconds
        self.work = work
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.RLock()
        self._context = multiprocessing.get_context("spawn")
        self._queue: Any = None
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False
        self._ended: deque[tuple[str, Any, concurrent.futures.Future[dict[str, Any]]]] = deque()

    # ------------------------------------------------------------------ pool

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            # a new queue with each pool: a worker killed while writing may leave the old one locked
            self._queue = self._context.Queue()
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=self._context, initializer=_init_worker, initargs=(self._queue,))
        return self._pool

    def close(self) -> None:
        """Stop: waiting jobs are dropped and running workers are ended (a job can take
        minutes, and the server's shutdown must not wait for it)."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            _stop_pool(pool)

    # ------------------------------------------------------------------ jobs

    def pending(self) -> int:
        with self._lock:
            return sum(1 for job in self._jobs.values() if job.state in ("queued", "running"))

    def submit(self, record: dict[str, Any]) -> Job:
        """The job of ``record`` (a record already checked to replay to its end): the
        existing one when the same record was asked for before (a failed one is tried
        again), else a new queued job.  Raises :class:`Busy` when :data:`MAX_PENDING`
        jobs wait or run."""
        key = job_key(record, self.settings)
        with self._lock:
            self._drain()
            if self._closed:
                raise Busy("the server is stopping; no analysis starts now")
            job = self._jobs.get(key)
            if job is not None and job.state != "failed":
                self._jobs.move_to_end(key)
                return job
            if self.pending() >= self.max_pending:
                raise Busy(f"{self.max_pending} analyses are already waiting or running; "
                           "try again when one has finished")
            job = Job(key, "queued", list(record.get("events", [])))
            self._jobs[key] = job
            self._jobs.move_to_end(key)
            try:
                future = self._executor().submit(self.work, key, record, self.settings, self.max_seconds)
            except (BrokenProcessPool, RuntimeError):  # the pool broke since: start a new one
                self._pool = None
                future = self._executor().submit(self.work, key, record, self.settings, self.max_seconds)
            pool = self._pool
            self._forget_old()
        # the callback runs in the pool's own thread, perhaps while that thread holds the
        # pool's locks: it only notes the future; the next request reads it (under our lock)
        future.add_done_callback(lambda f: self._ended.append((key, pool, f)))
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            self._drain()
            return self._jobs.get(job_id)

    def _drain(self) -> None:
        """Read the workers' progress reports that have arrived, then the jobs that ended
        (under the lock)."""
        self._read_progress()
        while self._ended:
            self._finished(*self._ended.popleft())

    def _read_progress(self) -> None:
        if self._queue is None:
            return
        while True:
            try:
                key, done, total = self._queue.get_nowait()
            except (queue.Empty, OSError, ValueError, EOFError):
                return
            job = self._jobs.get(key)
            if job is None or job.state not in ("queued", "running"):
                continue
            job.state = "running"
            if total >= 0:
                job.total = total
                job.done = max(job.done, min(done, total))

    def _finished(self, key: str, pool: Any, future: concurrent.futures.Future[dict[str, Any]]) -> None:
        """A job's future is done: keep its chart (with replay steps) or its error."""
        job = self._jobs.get(key)
        if job is None:
            return
        try:
            chart = future.result()
        except concurrent.futures.CancelledError:
            job.state, job.error = "failed", "the analysis was cancelled: the server is stopping"
        except BrokenProcessPool:
            job.state, job.error = "failed", ("the analysis worker stopped (it crashed or was killed); "
                                              "ask again to retry")
            if self._pool is pool:
                self._pool = None  # a broken pool takes no more work: the next job starts a new one
                self._read_progress()
                if pool is not None:
                    pool.shutdown(wait=False, cancel_futures=True)
        except Exception as exc:  # noqa: BLE001 - the page shows why, the server goes on
            log.warning("a replay analysis failed: %r", exc)
            job.state, job.error = "failed", f"the analysis failed: {str(exc)[:300]}"
        else:
            try:
                job.chart = with_steps(chart, job.events)
            except Exception as exc:  # noqa: BLE001 - a chart of an unexpected shape
                log.exception("the chart of a replay analysis could not be mapped to steps")
                job.state, job.error = "failed", f"the analysis's chart could not be read: {str(exc)[:200]}"
            else:
                job.state = "done"
                decisions = sum(int(s.get("decisions", 0)) for s in chart.get("summaries", []))
                job.total = max(job.total, decisions)
                job.done = job.total
        job.events = []  # the record's events are not needed any more
        self._forget_old()

    def _forget_old(self) -> None:
        """Keep at most ``keep`` finished or failed jobs (the oldest go first)."""
        over = sum(1 for job in self._jobs.values() if job.state in ("done", "failed")) - self.keep
        for key in [k for k, job in self._jobs.items() if job.state in ("done", "failed")]:
            if over <= 0:
                break
            del self._jobs[key]
            over -= 1


def _stop_pool(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Shut ``pool`` down without waiting for a running analysis: its workers are ended."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        try:
            process.terminate()
        except Exception:  # noqa: BLE001 - already gone
            pass
