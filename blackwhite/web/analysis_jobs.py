"""The replay page's match analysis, run in the background.

``blackwhite.analysis.analyse`` costs about 1-3 s per decision (a whole match: minutes),
so the server never runs it in its own process: each job goes to a pool of its own
(one spawned worker by default, apart from the bots' pool, so bots in live matches are
never kept waiting), and the worker reports each decision it finishes on a queue that
the server reads whenever a job's state is asked for.  Jobs are kept in memory, keyed
by a keyed hash (a random secret of this server) of the record's canonical JSON and the
settings: the same record is analysed once on one server, and nobody can compute a
job's id from a record they guess.  A finished job's chart is kept (the last
:data:`KEEP` of them).  At most :data:`MAX_PENDING` jobs wait or run at once; the
server hands a job to the pool only when a worker is free, so the jobs that wait are
its own to re-run.  A watchdog thread ends a worker whose job runs past ``max_seconds``
(one decision can take very long, and the worker checks the clock only between
decisions); that job fails, a fresh worker runs the next one.  A worker that dies fails
only the job it ran.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import hashlib
import hmac
import json
import logging
import multiprocessing
import os
import queue
import secrets
import signal
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..analysis import Settings, analyse, chart_data, default_workers, worlds_for
from ..server.workers import detach, signals_blocked, stop_pool
from .replay import step_before, step_cuts

if TYPE_CHECKING:
    from ..server.store import AnalysisJobRow

log = logging.getLogger("blackwhite.web.analysis")

#: the replay page's analysis: fixed worlds (reproducible), no ismcts candidate (cheap)
DEFAULT_SETTINGS = Settings(worlds=8, search=0)
#: jobs that may wait or run at once; the next one is refused (503 ``busy``)
MAX_PENDING = 4
#: jobs one client (address, IPv6 by /64) may have waiting or running at once (429 beyond)
PER_CLIENT = 1
#: how much lower than the server (and its bot workers) the analysis workers run (``nice``):
#: a live match's bots think first, the replay page's analysis takes what is left
NICE = 10
#: finished (or failed) jobs kept for the page to fetch and for a repeated request
KEEP = 64
#: a job that runs longer than this fails: the worker stops itself between decisions, and
#: the server ends it (a huge upload cannot hold the worker)
MAX_SECONDS = 900.0
#: how long past ``max_seconds`` the server lets a worker stop by itself before ending it
KILL_GRACE = 2.0
#: how long a worker may take to start a job (spawning, imports) before its clock runs anyway
START_GRACE = 60.0
#: how often the watchdog looks at the running jobs when nothing else wakes it
WATCH_INTERVAL = 0.5
#: environment variables that override :data:`DEFAULT_SETTINGS` for ``blackwhite serve``
ENV_WORLDS = "BLACKWHITE_REPLAY_ANALYSIS_WORLDS"
ENV_CANDIDATES = "BLACKWHITE_REPLAY_ANALYSIS_CANDIDATES"

STATES = ("queued", "running", "done", "failed")


class Busy(Exception):
    """Too many analyses are waiting: the request is refused and nothing is started."""


class TooMany(Busy):
    """This client already has as many analyses waiting or running as it may."""


def default_cores() -> int:
    """The cores analysis may take by default: half of this process's, at least one (the
    rest stay for the live matches and their bots)."""
    return max(1, default_workers() // 2)


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
        # Settings checks the range
        settings = replace(settings, worlds=value) if field_ == "worlds" else replace(settings, candidates=value)
    return settings


def job_key(record: Mapping[str, Any], settings: Settings, salt: bytes) -> str:
    """The job id of ``record`` under ``settings``: the same record (whatever its key
    order or spacing), settings and ``salt`` always give the same id.  The salt is a
    secret of the server: without it, anyone could hash the completions of a record they
    half know and ask which one has a job (an oracle for the hidden part)."""
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = canonical + "\n" + repr(settings)
    return hmac.new(salt, text.encode("utf-8"), hashlib.sha256).hexdigest()[:32]


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


_judges = 1  # processes one analysis judges its decisions in (set by _init_worker)
#: the signal that asks a worker to end its analysis (and its judges) now, and how long
#: the server waits for that before it kills the worker anyway
STOP_JUDGING = signal.SIGUSR1
STOP_GRACE = 3.0


#: whether this worker is running an analysis now (a stop request ends only that)
_analysing = False


class _Stopping(BaseException):
    """Raised in a worker's analysis when the server stops: its judges are ended and
    their pool freed on the way out, before the server kills the worker."""


def _stop_judging(signum: int, frame: Any) -> None:
    if _analysing:
        raise _Stopping("the server is stopping")


def _init_worker(progress: Any, parent: int, judges: int = 1, nice: int = NICE) -> None:
    global _progress, _judges
    _progress = progress
    _judges = judges
    if nice > 0:  # below the live bots; the judging processes this worker starts inherit it
        with contextlib.suppress(OSError):
            os.nice(nice)
    detach(parent)  # the server ends its workers; Ctrl-C or systemd's SIGTERM to all must not
    signal.signal(STOP_JUDGING, _stop_judging)


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

    global _analysing
    if _progress is not None:
        _progress.put((job, 0, -1))  # started
    # the judging processes exit when this worker is gone (killed at its deadline or at
    # the server's stop), and a deadline raised from ``progress`` or the server's stop
    # request (STOP_JUDGING) ends them at once
    _analysing = True
    try:
        return chart_data(analyse(record, settings=settings, progress=progress, workers=_judges))
    finally:
        _analysing = False


Work = Callable[[str, dict[str, Any], Settings, float], dict[str, Any]]


# ---------------------------------------------------------------------- the server side


@dataclass
class Job:
    """One analysis: its state, progress, and its chart once done (or why it failed).
    ``seats`` is known from the start, so an audience is checked before the chart exists;
    ``record`` is kept only until the job ends (a job may have to be re-run)."""

    id: str
    state: str
    events: list[Any]
    seats: int = 0
    done: int = 0
    total: int = 0
    chart: dict[str, Any] | None = None
    error: str | None = None
    record: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    settings: Settings | None = field(default=None, repr=False, compare=False)
    #: who asked for it (:func:`~blackwhite.server.limits.client_key`), counted against :data:`PER_CLIENT`
    client: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def stored(cls, row: AnalysisJobRow) -> Job:
        """A job as the process that ran it stored it (several processes, docs/server.md)."""
        return cls(row.id, row.state, [], seats=row.seats, done=row.done, total=row.total, chart=row.chart,
                   error=row.error)

    def to_json(self, seat: int | None = None, full: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"job": self.id, "state": self.state, "done": self.done, "total": self.total}
        if self.state == "done" and self.chart is not None:
            out["chart"] = for_audience(self.chart, seat, full)
        if self.state == "failed":
            out["error"] = self.error
        return out


@dataclass
class _Run:
    """A job handed to a pool: which pool, its future, when it was handed over and when
    its worker reported the start (the clock of ``max_seconds``)."""

    job: Job
    pool: concurrent.futures.ProcessPoolExecutor
    future: concurrent.futures.Future[dict[str, Any]]
    sent: float
    started: float | None = None


class AnalysisJobs:
    """The analysis jobs of one server (see the module's docstring)."""

    def __init__(self, settings: Settings = DEFAULT_SETTINGS, *, workers: int = 1, max_pending: int = MAX_PENDING,
                 keep: int = KEEP, max_seconds: float = MAX_SECONDS, kill_grace: float = KILL_GRACE,
                 work: Work = run_analysis, per_game: bool = False, prefix: str = "",
                 publish: Callable[[list[dict[str, Any]]], None] | None = None,
                 per_client: int = PER_CLIENT, max_cores: int | None = None, nice: int = NICE) -> None:
        if per_client < 0 or (max_cores is not None and max_cores < 1):
            raise ValueError(f"analysis jobs need per_client >= 0 and max_cores >= 1; got {per_client}, {max_cores}")
        if workers < 1 or max_pending < 1 or keep < 1 or max_seconds <= 0 or kill_grace < 0:
            raise ValueError(f"analysis jobs need workers, max_pending, keep >= 1, max_seconds > 0 and "
                             f"kill_grace >= 0; got {workers}, {max_pending}, {keep}, {max_seconds}, {kill_grace}")
        self.settings = settings
        #: scale the worlds by game (``worlds_for``): the same time per decision in every
        #: game, and enough worlds for swapping's small but real losses
        self.per_game = per_game
        #: the cores analysis may take (jobs at once times the processes each judges in)
        self.max_cores = default_cores() if max_cores is None else max_cores
        self.workers = min(workers, self.max_cores)
        #: processes each analysis judges its decisions in: the cores shared among the jobs
        self.judges = max(1, min(default_workers(), self.max_cores) // self.workers)
        self.per_client = per_client
        self.nice = nice
        self.max_pending = max_pending
        self.keep = keep
        self.max_seconds = max_seconds
        self.kill_grace = kill_grace
        self.work = work
        #: what every job id of this server starts with: with several server processes, the
        #: process's id and a dot, so any process knows which one runs a job (docs/server.md)
        self.prefix = prefix
        #: where the jobs' states are written as they change (several processes: the
        #: database, so any process answers for a job whose process is gone); called
        #: outside the lock, in the submitting thread or the watchdog's
        self.publish = publish
        self._published: dict[str, tuple[str, int, int]] = {}
        self._salt = secrets.token_bytes(32)  # made once per server: ids are not computable from a record
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._waiting: deque[Job] = deque()  # queued jobs not yet handed to a pool
        self._running: dict[str, _Run] = {}  # at most ``workers`` jobs handed to the pool
        self._lock = threading.RLock()
        #: held from reading the jobs' states to having stored them (several processes): a
        #: reader is told a state (``done``, above all) only once it is in the database, so
        #: another process never finds a job that was reported done missing or failed there
        self._told = threading.Lock()
        self._context = multiprocessing.get_context("spawn")
        self._queue: Any = None
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._doomed: list[concurrent.futures.ProcessPoolExecutor] = []  # pools to end (outside the lock)
        self._closed = False
        self._ended: deque[_Run] = deque()
        self._wake = threading.Event()
        self._watchdog: threading.Thread | None = None

    # ------------------------------------------------------------------ pool

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            # a new queue with each pool: a worker killed while writing may leave the old one locked
            self._queue = self._context.Queue()
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=self._context, initializer=_init_worker,
                initargs=(self._queue, os.getpid(), self.judges, self.nice))
        return self._pool

    def _retire(self, pool: concurrent.futures.ProcessPoolExecutor) -> None:
        """``pool`` takes no more work (it broke, or it runs a job past its time): the next
        job gets a fresh one, and the watchdog ends this one's workers."""
        if self._pool is pool:
            self._read_progress()
            self._pool = None
        if pool not in self._doomed:
            self._doomed.append(pool)
        self._wake.set()

    def close(self) -> None:
        """Stop: waiting jobs are dropped and running workers are ended (a job can take
        minutes, and the server's shutdown must not wait for it)."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
            doomed, self._doomed = self._doomed, []
            watchdog = self._watchdog
            runs = list(self._running.values())
        self._wake.set()
        if watchdog is not None and watchdog is not threading.current_thread():
            watchdog.join(timeout=5)
        for old in doomed + ([pool] if pool is not None else []):
            _stop_pool(old, [run.future for run in runs if run.pool is old and not run.future.done()])

    # ------------------------------------------------------------------ jobs

    def settings_for(self, record: Mapping[str, Any]) -> Settings:
        """The settings ``record`` is analysed with (its game's worlds with ``per_game``)."""
        if not self.per_game or self.settings.worlds is None:
            return self.settings
        return replace(self.settings, worlds=worlds_for(str(record.get("game", "")), self.settings.worlds))

    def pending(self) -> int:
        with self._lock:
            return sum(1 for job in self._jobs.values() if job.state in ("queued", "running"))

    def submit(self, record: dict[str, Any], client: str | None = None) -> Job:
        """The job of ``record`` (a record already checked to replay to its end): the
        existing one when the same record was asked for before (a failed one is tried
        again), else a new queued job.  Raises :class:`Busy` when :data:`MAX_PENDING`
        jobs wait or run, :class:`TooMany` when ``client`` has :attr:`per_client` of them."""
        settings = self.settings_for(record)
        key = self.prefix + job_key(record, settings, self._salt)
        with self._told:
            job, changed = self._submit(key, record, settings, client)
            self._publish(changed)
        return job

    def _submit(self, key: str, record: dict[str, Any], settings: Settings,
                client: str | None = None) -> tuple[Job, list[dict[str, Any]]]:
        with self._lock:
            self._drain()
            if self._closed:
                raise Busy("the server is stopping; no analysis starts now")
            job = self._jobs.get(key)
            if job is not None and job.state != "failed":
                self._jobs.move_to_end(key)
                return job, self._changes()
            mine = sum(1 for j in self._jobs.values() if j.client == client and j.state in ("queued", "running"))
            if client is not None and self.per_client and mine >= self.per_client:
                raise TooMany(f"this address has {mine} analyses waiting or running, the most it may; "
                              "try again when one has finished")
            if self.pending() >= self.max_pending:
                raise Busy(f"{self.max_pending} analyses are already waiting or running; "
                           "try again when one has finished")
            job = Job(key, "queued", list(record.get("events", [])), seats=len(record.get("seats", [])),
                      record=record, settings=settings, client=client)
            self._jobs[key] = job
            self._jobs.move_to_end(key)
            self._waiting.append(job)
            self._dispatch()
            self._forget_old()
            if self._watchdog is None:
                self._watchdog = threading.Thread(target=self._watch, name="replay-analysis-watchdog", daemon=True)
                self._watchdog.start()
            return job, self._changes()

    def _changes(self) -> list[dict[str, Any]]:
        """The jobs whose state or progress moved since they were last published (under the lock)."""
        if self.publish is None:
            return []
        out = []
        for job in self._jobs.values():
            mark = (job.state, job.done, job.total)
            if self._published.get(job.id) != mark:
                self._published[job.id] = mark
                out.append({"id": job.id, "state": job.state, "done": job.done, "total": job.total,
                            "seats": job.seats, "chart": job.chart if job.state == "done" else None,
                            "error": job.error})
        self._published = {k: v for k, v in self._published.items() if k in self._jobs}
        return out

    def _publish(self, changed: list[dict[str, Any]]) -> None:
        if changed and self.publish is not None:
            try:
                self.publish(changed)
            except Exception:  # noqa: BLE001 - the job goes on; the next change is written again
                log.exception("the analysis jobs' states could not be written")
                with self._lock:
                    for job in changed:
                        self._published.pop(job["id"], None)

    def get(self, job_id: str) -> Job | None:
        """The job ``job_id`` as it stands, its state stored first (see ``_told``; this
        may write to the database, so call it off the event loop)."""
        with self._told:
            with self._lock:
                self._drain()
                job = self._jobs.get(job_id)
                changed = self._changes()
            self._publish(changed)
        return job

    # ------------------------------------------------------------------ the watchdog

    def _watch(self) -> None:
        """Until closed: read what the workers reported, end a job past its time, and hand
        the waiting jobs to free workers."""
        while not self._closed:
            self._wake.wait(WATCH_INTERVAL)
            self._wake.clear()
            if self._closed:
                return
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - the watchdog must outlive one bad turn
                log.exception("the replay analysis watchdog failed a turn")

    def tick(self, now: float | None = None) -> None:
        """One turn of the watchdog (see :meth:`_watch`)."""
        with self._told:
            with self._lock:
                self._drain()
                self._enforce_deadlines(time.monotonic() if now is None else now)
                if not self._closed:
                    self._dispatch()
                doomed, self._doomed = self._doomed, []
                changed = self._changes()
            self._publish(changed)
        for pool in doomed:  # outside the lock: polls go on while a worker is being ended
            _stop_pool(pool)

    def _dispatch(self) -> None:
        """Hand waiting jobs to the pool while a worker is free (under the lock)."""
        with signals_blocked():  # a worker the submit starts ignores the stop signals from its start
            while self._waiting and len(self._running) < self.workers:
                job = self._waiting.popleft()
                if job.state != "queued" or job.record is None:
                    continue
                try:
                    pool = self._executor()
                    future = pool.submit(self.work, job.id, job.record, job.settings or self.settings, self.max_seconds)
                except (BrokenProcessPool, RuntimeError):  # the pool broke since: start a new one
                    if self._pool is not None:
                        self._retire(self._pool)
                    pool = self._executor()
                    future = pool.submit(self.work, job.id, job.record, job.settings or self.settings, self.max_seconds)
                run = _Run(job, pool, future, time.monotonic())
                self._running[job.id] = run
                # the callback runs in the pool's own thread, perhaps while that thread holds the
                # pool's locks: it only notes the run and wakes the watchdog
                future.add_done_callback(functools.partial(self._note_ended, run))

    def _note_ended(self, run: _Run, _future: concurrent.futures.Future[dict[str, Any]]) -> None:
        """A future's callback (in the pool's thread): note the run, wake the watchdog."""
        self._ended.append(run)
        self._wake.set()

    def _enforce_deadlines(self, now: float) -> None:
        """Fail a job past ``max_seconds`` (counted from its worker's start) and end its
        pool; the pool's other jobs, innocent, wait again for a fresh worker."""
        for run in list(self._running.values()):
            if run.started is not None:
                limit = run.started + self.max_seconds + self.kill_grace
            else:
                limit = run.sent + self.max_seconds + START_GRACE
            if now <= limit or self._running.get(run.job.id) is not run:
                continue
            job = run.job
            log.warning("a replay analysis ran past %.0f s; its worker is ended", self.max_seconds)
            del self._running[job.id]
            where = f" (after {job.done} of {job.total} decisions)" if job.total > 0 else ""
            self._end(job, "failed", f"the analysis took longer than {self.max_seconds:.0f} s{where}, "
                                     "so its worker was stopped; a record this costly is not analysed here")
            self._requeue_others(run.pool)
            self._retire(run.pool)

    def _requeue_others(self, pool: concurrent.futures.ProcessPoolExecutor) -> None:
        """The jobs still running on ``pool`` (about to be ended) go back to the queue's front."""
        for other in [r for r in self._running.values() if r.pool is pool]:
            del self._running[other.job.id]
            other.job.state, other.job.done, other.job.total = "queued", 0, 0
            self._waiting.appendleft(other.job)

    # ------------------------------------------------------------------ reports

    def _drain(self) -> None:
        """Read the workers' progress reports that have arrived, then the jobs that ended
        (under the lock)."""
        self._read_progress()
        while self._ended:
            self._finished(self._ended.popleft())

    def _read_progress(self) -> None:
        if self._queue is None:
            return
        while True:
            try:
                key, done, total = self._queue.get_nowait()
            except (queue.Empty, OSError, ValueError, EOFError):
                return
            run = self._running.get(key)
            if run is None or run.job.state not in ("queued", "running"):
                continue
            if run.started is None:
                run.started = time.monotonic()
            job = run.job
            job.state = "running"
            if total >= 0:
                job.total = total
                job.done = max(job.done, min(done, total))

    def _finished(self, run: _Run) -> None:
        """A run's future is done: keep its chart (with replay steps) or its error.  A run
        the server has already ended (past its time, or re-queued) is ignored."""
        job = run.job
        if self._running.get(job.id) is not run:
            return
        del self._running[job.id]
        try:
            chart = run.future.result()
        except concurrent.futures.CancelledError:
            self._end(job, "failed", "the analysis was cancelled: the server is stopping")
        except BrokenProcessPool:
            # a worker died under this job (crashed or killed): the jobs running on that pool
            # fail (with several workers nobody can tell which one it killed, and re-running
            # the culprit would fail another); the queued ones were never handed to it and
            # run on a fresh pool
            reason = "the analysis worker stopped (it crashed or was killed); ask again to retry"
            self._end(job, "failed", reason)
            for other in [r for r in self._running.values() if r.pool is run.pool]:
                del self._running[other.job.id]
                self._end(other.job, "failed", reason)
            self._retire(run.pool)
        except Exception as exc:  # noqa: BLE001 - the page shows why, the server goes on
            log.warning("a replay analysis failed: %r", exc)
            self._end(job, "failed", f"the analysis failed: {str(exc)[:300]}")
        else:
            try:
                job.chart = with_steps(chart, job.events)
            except Exception as exc:  # noqa: BLE001 - a chart of an unexpected shape
                log.exception("the chart of a replay analysis could not be mapped to steps")
                self._end(job, "failed", f"the analysis's chart could not be read: {str(exc)[:200]}")
            else:
                decisions = sum(int(s.get("decisions", 0)) for s in chart.get("summaries", []))
                job.total = max(job.total, decisions)
                job.done = job.total
                self._end(job, "done", None)

    def _end(self, job: Job, state: str, error: str | None) -> None:
        job.state, job.error = state, error
        job.events, job.record = [], None  # the record is not needed any more
        self._forget_old()
        self._wake.set()  # a worker is free: the watchdog hands it the next job

    def _forget_old(self) -> None:
        """Keep at most ``keep`` finished or failed jobs (the oldest go first)."""
        over = sum(1 for job in self._jobs.values() if job.state in ("done", "failed")) - self.keep
        for key in [k for k, job in self._jobs.items() if job.state in ("done", "failed")]:
            if over <= 0:
                break
            del self._jobs[key]
            over -= 1


def _stop_pool(pool: concurrent.futures.ProcessPoolExecutor,
               running: Sequence[concurrent.futures.Future[Any]] = ()) -> None:
    """Shut ``pool`` down without waiting for a running analysis: each worker is asked
    to end its analysis and its judging processes (``STOP_JUDGING``; the ``running``
    futures answer once it has, for at most ``STOP_GRACE`` seconds), then the workers
    (which ignore SIGTERM, see :mod:`blackwhite.server.workers`) are killed and reaped."""
    if running:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):  # already gone
                os.kill(process.pid, STOP_JUDGING)
        concurrent.futures.wait(running, timeout=STOP_GRACE)
    stop_pool(pool)
