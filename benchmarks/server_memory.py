"""Benchmark of ``blackwhite serve``'s memory and start-up over many ended matches.

Starts one ``blackwhite serve`` process on a fresh SQLite file (loopback, request budget
lifted) and, from a few concurrent clients, makes ``--matches`` cheap ended matches: each
is created without a host token (so under the per-address quota of running matches),
takes one action of its first seat, and is cancelled by its host.  The server's
resident memory (VmRSS of its process, from /proc) is printed at checkpoints, each taken
once the sweep of ended matches has run; memory is flat when the last reading is under
2x the one after the first 1,000 matches.  Then the server is stopped and started again
on the same database, ``--starts`` times, alternating with starts on an empty database:
the time from launch to the first answer of ``/health`` is the start-up time (its median
is checked under 2 s), and the empty database's median says how much of it is Python and
the web framework starting (on a shared machine both vary with its load, printed too).
The part of start-up that depends on the stored matches, the service's load (a query
for the running matches, their replay, the settled clocks stored), is also timed on its
own, in this process.  After a restart an early match is read back (its record) to show
that ended matches are served from the database.

    python benchmarks/server_memory.py                    # 10,000 matches (a few minutes)
    python benchmarks/server_memory.py --matches 2000     # a quicker look
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
FIRST = 1_000  # the reference reading: after this many matches
SWEEP_WAIT = 6.0  # seconds: the server sweeps ended matches every 5 s


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``python -m blackwhite.cli serve`` on a database, as a child process."""

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start_cpu = 0.0  # CPU seconds the process had used when /health first answered

    def start(self) -> float:
        """Launch it; the seconds until ``/health`` first answers."""
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        began = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "blackwhite.cli", "serve", "--db", self.db_url, "--host", "127.0.0.1",
             "--port", str(self.port), "--rate", "0"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"blackwhite serve exited: {self.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if httpx.get(self.base + "/health", timeout=1).status_code == 200:
                    took = time.monotonic() - began
                    self.start_cpu = self.cpu_seconds()
                    return took
            except httpx.HTTPError:
                pass
            if time.monotonic() - began > 120:
                raise RuntimeError("blackwhite serve did not answer /health in 120 s")
            time.sleep(0.01)

    def cpu_seconds(self) -> float:
        """User and system CPU seconds of the process so far (/proc/PID/stat): unlike the wall
        time, this hardly depends on how busy the rest of the machine is."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float:
        assert self.proc is not None
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        assert found, "no VmRSS in /proc/PID/status"
        return int(found.group(1)) / 1024

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


async def one_match(http: httpx.AsyncClient) -> dict[str, Any]:
    """Create, play one action, cancel: a cheap ended match; its ids and tokens."""
    # clocks from creation (no seat opens its link here; the fair start is not what is measured)
    r = await http.post("/api/matches", json={"game": "swapping", "start": "now"})
    r.raise_for_status()
    made: dict[str, Any] = r.json()
    mid = made["id"]
    r = await http.post(f"/api/matches/{mid}/actions", params={"token": made["tokens"]["seats"][0]},
                        json={"action": "place 8 0 3", "version": 0})
    r.raise_for_status()
    r = await http.post(f"/api/matches/{mid}/cancel", params={"token": made["host_token"]})
    r.raise_for_status()
    return made


async def make_matches(base: str, count: int, clients: int) -> dict[str, Any]:
    """``count`` ended matches from ``clients`` concurrent clients; the first one made."""
    first: dict[str, Any] = {}
    left = count

    async def worker() -> None:
        nonlocal left
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            while left > 0:
                left -= 1
                made = await one_match(http)
                first.setdefault("made", made)

    await asyncio.gather(*(worker() for _ in range(clients)))
    return first["made"]


def time_load(db_url: str) -> float:
    """Seconds :meth:`MatchService.load` takes on ``db_url`` (the database is migrated already)."""
    sys.path.insert(0, str(ROOT))
    from blackwhite.server.service import MatchService
    from blackwhite.server.store import Store, make_engine

    engine = make_engine(db_url)
    service = MatchService(Store(engine), bot_workers=0)
    began = time.monotonic()
    service.load()
    took = time.monotonic() - began
    assert not service.matches, "every match made was ended; none should be loaded"
    service.store.close()
    engine.dispose()
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients making matches")
    parser.add_argument("--starts", type=int, default=5, help="restarts timed on each database")
    args = parser.parse_args()
    checkpoints = sorted({c for c in (FIRST, 2_000, 5_000, args.matches) if c <= args.matches})
    with tempfile.TemporaryDirectory(prefix="bw-memory-") as tmp:
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        empty = Server(f"sqlite:///{Path(tmp) / 'empty.db'}")
        empty.start()  # migrated once, as the full one was
        empty.stop()
        server = Server(db)
        server.start()
        print(f"RSS at start: {server.rss_mb():.1f} MB")
        readings: dict[int, float] = {}
        made = 0
        began = time.monotonic()
        early: dict[str, Any] = {}
        try:
            for checkpoint in checkpoints:
                got = asyncio.run(make_matches(server.base, checkpoint - made, args.clients))
                early = early or got
                made = checkpoint
                time.sleep(SWEEP_WAIT)
                readings[checkpoint] = server.rss_mb()
                print(f"RSS after {checkpoint:>6,} ended matches: {readings[checkpoint]:.1f} MB"
                      f"  ({time.monotonic() - began:.0f} s)")
        finally:
            server.stop()
        full_starts: list[float] = []
        empty_starts: list[float] = []
        full_cpu: list[float] = []
        empty_cpu: list[float] = []
        for _ in range(args.starts):
            empty_starts.append(empty.start())
            empty_cpu.append(empty.start_cpu)
            empty.stop()
            full_starts.append(server.start())  # the same database, now holding every match made
            full_cpu.append(server.start_cpu)
            try:
                record = httpx.get(f"{server.base}/api/matches/{early['id']}/record",
                                   params={"token": early["host_token"]}, timeout=30)
                record.raise_for_status()
                rss_after_start = server.rss_mb()
            finally:
                server.stop()
        start, empty_start = statistics.median(full_starts), statistics.median(empty_starts)
        loading = time_load(db)
    ratio = readings[max(readings)] / readings[min(readings)]
    flat = ratio < 2.0
    print(f"flat: {flat} (RSS after {max(readings):,} is {ratio:.2f}x the RSS after {min(readings):,}; limit 2x)")
    print(f"start-up with {made:,} stored ended matches: median {start:.2f} s to the first /health over "
          f"{args.starts} starts ({', '.join(f'{t:.2f}' for t in full_starts)}); empty database: median "
          f"{empty_start:.2f} s ({', '.join(f'{t:.2f}' for t in empty_starts)}); RSS after start-up "
          f"{rss_after_start:.1f} MB; under 2 s: {start < 2.0}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")
    print(f"CPU seconds the server used until its first /health (what the start costs, apart from the machine's "
          f"load): median {statistics.median(full_cpu):.2f} s with {made:,} stored matches "
          f"({', '.join(f'{t:.2f}' for t in full_cpu)}), {statistics.median(empty_cpu):.2f} s on the empty database")
    print(f"the service's load of the {made:,}-match database (start-up's part that grows with stored matches): "
          f"{loading * 1000:.0f} ms")
    print(f"an early match read back after the restart: {len(record.json()['events'])} event(s) in its record")
    return 0 if flat and start < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
