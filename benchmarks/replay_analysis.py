"""How long the replay page's "Analyse" takes (issue 28: every record in examples/ in at
most 30 s on 2 cores, the replay page alike).

Starts ``blackwhite serve`` on a throwaway SQLite database (loopback, no rate limit),
then, for each record, does what the page does: ``POST /replay/analysis`` with the
record, and ``GET /replay/analysis/{job}`` every ``--poll`` seconds until the job is
done.  Printed per record: the seconds from the request to the finished chart (wall
clock: what the person waits), the decisions analysed, and the CPU seconds the server
and its workers used meanwhile (from /proc, every process below the server).

The first record also pays the analysis worker's start (a spawned process importing the
engine and bots); ``--warm`` first analyses a small record that is not timed, so every
row is a job on a started server.  Records are analysed one after another, as one
person at a time would; the settings are the server's defaults (docs/analysis.md).

    python benchmarks/replay_analysis.py
    python benchmarks/replay_analysis.py --records examples/joust.json --warm
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from server import _cpu_of, _descendants, free_port, start_server  # noqa: E402

from blackwhite.engine import make_game, to_record  # noqa: E402
from blackwhite.engine.play import play_random  # noqa: E402

TARGET_S = 30.0


def analyse(http: httpx.Client, record: dict[str, Any], poll: float, timeout: float) -> dict[str, Any]:
    """One job from request to finished chart: its last state, as the page reads it."""
    answer = http.post("/replay/analysis", content=json.dumps(record))
    if answer.status_code not in (200, 202):
        raise RuntimeError(f"POST /replay/analysis answered {answer.status_code}: {answer.text[:300]}")
    job = answer.json()
    deadline = time.monotonic() + timeout
    while job["state"] in ("queued", "running"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"job {job['job']} still {job['state']} after {timeout:.0f} s")
        time.sleep(poll)
        got = http.get(f"/replay/analysis/{job['job']}")
        got.raise_for_status()
        job = got.json()
    if job["state"] != "done":
        raise RuntimeError(f"job {job['job']} {job['state']}: {job.get('error')}")
    return job


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", nargs="*", type=Path,
                        default=sorted((ROOT / "examples").glob("*.json")), help="records to analyse (default: examples/)")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between the page's status requests")
    parser.add_argument("--timeout", type=float, default=600.0, help="give up on a job after this many seconds")
    parser.add_argument("--warm", action="store_true",
                        help="first analyse a random grouping match untimed, so the worker's start is not counted")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bw-replay-bench-") as tmp:
        port = free_port()
        log = Path(tmp) / "server.log"
        server = start_server(f"sqlite:///{tmp}/bench.db", port, log, ("--rate", "0"))
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
                if args.warm:  # a match no timed record is (a repeated record is answered from memory)
                    state = make_game("grouping").new_initial_state()
                    play_random(state, random.Random(1), fast=False)
                    analyse(http, to_record(state), args.poll, args.timeout)
                print("| record | decisions | wall s | CPU s (server and its workers) | within 30 s |")
                print("|---|---:|---:|---:|---|")
                worst = 0.0
                for path in args.records:
                    record = json.loads(path.read_text())
                    cpu0 = _cpu_of(_descendants(server.pid))
                    start = time.monotonic()
                    job = analyse(http, record, args.poll, args.timeout)
                    wall = time.monotonic() - start
                    cpu = _cpu_of(_descendants(server.pid)) - cpu0
                    worst = max(worst, wall)
                    print(f"| {path.stem} | {job['total']} | {wall:.1f} | {cpu:.1f} | "
                          f"{'yes' if wall <= TARGET_S else 'NO'} |", flush=True)
                print(f"\nslowest: {worst:.1f} s (target {TARGET_S:.0f} s)"
                      f"{'' if args.warm else '; the first row includes the analysis worker start'}")
        finally:
            server.terminate()
            try:
                server.wait(30)
            except Exception:
                server.kill()


if __name__ == "__main__":
    main()
