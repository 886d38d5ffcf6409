"""Soak of the server's bounds: one hostile client beside two people playing.

Starts one ``blackwhite serve`` (default bounds, SQLite in a temporary directory) and,
for ``--seconds`` (60), runs side by side:

* **two people** (from 127.0.0.1) playing matches one after another over their
  sockets, each match created with the link the server printed at its start, an
  action every ``--think`` seconds; every action's ack latency is recorded;
* **one client** (in a process of its own, from 127.0.0.2: its own address, so the bounds it meets are its own)
  that, as fast as the server lets it, creates matches (without a token, then with
  every host token it was given), opens spectators' sockets to them and keeps them
  open, makes handshakes with made-up tokens, and submits replay analysis jobs.

The server's resident memory (VmRSS from /proc) is read every 5 s.  The players' ack
p99 must stay under 100 ms and the memory flat (the last reading under 1.25x the one
at 10 s); the script prints the figures and what the client was answered, and exits 1
if either fails.

    python benchmarks/soak.py                 # 60 s
    python benchmarks/soak.py --seconds 20    # a quicker look
    python benchmarks/soak.py --no-attack     # the players alone: the machine's own baseline
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import random
import re
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import Stats, Window, free_port, percentile, play_matches, start_server  # noqa: E402

ATTACKER = "127.0.0.2"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Tally:
    """What the hostile client was answered, by what it tried."""

    def __init__(self) -> None:
        self.counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    def add(self, what: str, outcome: str) -> None:
        self.counts[what][outcome] += 1

    def lines(self) -> list[str]:
        return [f"  {what}: " + ", ".join(f"{k} x{v}" for k, v in sorted(c.items())) for what, c in sorted(self.counts.items())]


async def creator(http: httpx.AsyncClient, until: float, tally: Tally, hosts: list[str], matches: list[dict[str, Any]]) -> None:
    """Create matches as fast as answered: without a token, and with every host token got."""
    i = 0
    while time.monotonic() < until:
        token = hosts[i % len(hosts)] if hosts and i % 2 else None
        i += 1
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            r = await http.post("/api/matches", json={"game": "swapping"}, headers=headers)
        except httpx.HTTPError as exc:
            tally.add("create", type(exc).__name__)
            continue
        code = r.json().get("error", {}).get("code", "") if r.status_code >= 400 else ""
        tally.add("create", f"{r.status_code} {code}".strip())
        if r.status_code == 201:
            made = r.json()
            matches.append(made)
            if made.get("host_token"):
                hosts.append(made["host_token"])


async def sockets(base: str, until: float, tally: Tally, matches: list[dict[str, Any]]) -> None:
    """Open spectators' sockets (kept open) and made-up-token handshakes, as fast as answered."""
    held: list[Any] = []
    ws_base = base.replace("http://", "ws://", 1)
    i = 0
    try:
        while time.monotonic() < until:
            i += 1
            bogus = i % 2 == 0 or not matches
            mid = matches[i % len(matches)]["id"] if matches else "nosuchmatch"
            token = f"made-up-{i}" if bogus else matches[i % len(matches)]["tokens"]["spectator"]
            try:
                ws = await websockets.connect(f"{ws_base}/ws/matches/{mid}?token={token}", open_timeout=10,
                                              local_addr=(ATTACKER, 0))
            except Exception as exc:  # noqa: BLE001 - counted
                tally.add("socket", type(exc).__name__)
                await asyncio.sleep(0.01)
                continue
            try:
                first = await asyncio.wait_for(ws.recv(), 5)
                tally.add("socket", "open (view)" if json.loads(first).get("type") == "view" else "other")
                held.append(ws)
            except websockets.ConnectionClosed as exc:
                tally.add("socket", f"closed {exc.rcvd.code if exc.rcvd else '?'}")
            except asyncio.TimeoutError:
                tally.add("socket", "no answer in 5 s")
                await ws.close()
    finally:
        for ws in held:
            await ws.close()


async def analyses(http: httpx.AsyncClient, until: float, tally: Tally) -> None:
    """Submit analysis jobs of distinct records as fast as answered."""
    record = json.loads((ROOT / "examples" / "swapping.json").read_text())
    i = 0
    while time.monotonic() < until:
        i += 1
        body = dict(record, events=record["events"][: 1 + i % len(record["events"])], seats=[f"A{i}", f"B{i}"])
        try:
            r = await http.post("/replay/analysis", content=json.dumps(body))
        except httpx.HTTPError as exc:
            tally.add("analysis", type(exc).__name__)
            continue
        code = r.json().get("error", {}).get("code", "") if r.status_code >= 400 else ""
        tally.add("analysis", f"{r.status_code} {code}".strip())


async def attack(base: str, until: float, tally: Tally) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    async with httpx.AsyncClient(base_url=base, timeout=30, transport=transport) as http:
        hosts: list[str] = []
        matches: list[dict[str, Any]] = []
        await asyncio.gather(
            *(creator(http, until, tally, hosts, matches) for _ in range(3)),
            sockets(base, until, tally, matches),
            analyses(http, until, tally),
        )


def attacker_process(base: str, seconds: float, out: Any) -> None:
    """The hostile client in a process of its own: its busy loop must not delay the
    players' client (one event loop would add its own lag to their measured acks)."""
    tally = Tally()
    asyncio.run(attack(base, time.monotonic() + seconds, tally))
    out.put({k: dict(v) for k, v in tally.counts.items()})


async def watch_memory(pid: int, until: float, readings: list[tuple[float, float]], start: float) -> None:
    while time.monotonic() < until:
        readings.append((time.monotonic() - start, rss_mb(pid)))
        await asyncio.sleep(5.0)
    readings.append((time.monotonic() - start, rss_mb(pid)))


async def soak(base: str, pid: int, owner: str, seconds: float, think: float, hostile: bool = True) -> tuple[Stats, Tally, list[tuple[float, float]]]:
    stats, tally, readings = Stats(), Tally(), []  # type: ignore[var-annotated]
    start = time.monotonic()
    until = start + seconds
    clock = Window(1, seconds)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        players = play_matches(base, http, "swapping", owner, clock, think, random.Random(1), stats)
        results: Any = multiprocessing.get_context("spawn").Queue()
        other = multiprocessing.get_context("spawn").Process(target=attacker_process, args=(base, seconds, results))
        if hostile:
            other.start()
        await asyncio.gather(players, watch_memory(pid, until, readings, start))
        if hostile:
            for what, counts in (await asyncio.to_thread(results.get, True, 60)).items():
                tally.counts[what].update(counts)
            other.join(30)
    return stats, tally, readings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the client attacks (60)")
    parser.add_argument("--think", type=float, default=0.3, help="mean seconds between the players' actions (0.3)")
    parser.add_argument("--no-attack", action="store_true",
                        help="the two players alone (a baseline of the same machine's load)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "serve.log"
        port = free_port()
        proc = start_server(f"sqlite:///{tmp}/soak.db", port, log)
        try:
            found = re.search(r"\?token=(\S+)", log.read_text())
            if found is None:
                raise SystemExit("the server printed no host link")
            base = f"http://127.0.0.1:{port}"
            load = os.getloadavg()
            stats, tally, readings = asyncio.run(soak(base, proc.pid, found.group(1), args.seconds, args.think,
                                                    not args.no_attack))
            load_after = os.getloadavg()
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
    p50, p99 = percentile(stats.ack, 50) * 1000, percentile(stats.ack, 99) * 1000
    print(f"players: {len(stats.ack)} actions acknowledged, {stats.finished} matches finished, "
          f"{len(stats.errors)} errors; ack p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(stats.ack, default=0) * 1000:.1f} ms")
    for err in stats.errors[:5]:
        print("  error:", err)
    print("the client was answered:")
    print("\n".join(tally.lines()))
    print("server RSS (MB) by second: " + ", ".join(f"{t:.0f}s {mb:.1f}" for t, mb in readings))
    print(f"load average (1, 5, 15 min) before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    reference = next((mb for t, mb in readings if t >= 9.0), readings[0][1])
    flat = readings[-1][1] < 1.25 * reference
    fast = p99 < 100.0 and not stats.errors
    print(f"ack p99 under 100 ms: {'yes' if fast else 'NO'}; memory flat (last < 1.25x the 10 s reading): "
          f"{'yes' if flat else 'NO'}")
    sys.exit(0 if fast and flat else 1)


if __name__ == "__main__":
    main()
