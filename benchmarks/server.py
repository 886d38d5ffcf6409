"""Benchmark of ``blackwhite serve``: N concurrent matches of scripted clients over real
WebSockets against one server process on this machine (loopback only).

Each match has a socket per seat.  Its driver knows every action it submits, so in a
game without chance events (``swapping`` by default) it mirrors the match with the
engine and picks a random legal action for the seat to move.  It sends the action on
that seat's socket, times the ``ack``, then times the push of the new version to every
other seat, waits ``--think`` seconds (a stand-in for a person), and goes on; a finished
match is replaced by a new one.  Each measured step runs N matches for ``--seconds``.

Printed per step: p50/p99 of submit→ack and submit→other seats' pushes, acknowledged
actions per second, and whether p99 (of both) stays under 100 ms; then the largest N
of the search that did.  At the end the records of the last step's matches are read
back: every acknowledged action must be in its match's record (committed before the
acknowledgement).  Bounded: every step stops by itself after ``--seconds``.

    python benchmarks/server.py                  # 200 matches, then the search (a few minutes)
    python benchmarks/server.py --matches 50 --search none --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from blackwhite.engine import State, make_game  # noqa: E402

TARGET_MS = 100.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Stats:
    """Latencies (seconds) and counts of one step."""

    ack: list[float] = field(default_factory=list)
    push: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    finished: int = 0
    #: match id -> (host token, [(seat, action)] acknowledged)
    acked: dict[str, tuple[str, list[tuple[int, str]]]] = field(default_factory=dict)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(q / 100 * (len(ordered) - 1)))))
    return ordered[index]


class Seat:
    """One seat's socket: the newest version it was pushed, and a wake-up on each push."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.version = -1
        self.closed = False
        self.close_reason = ""
        #: version -> when its first push arrived
        self.arrivals: dict[int, float] = {}
        self.changed = asyncio.Event()
        self.acks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def pump(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "view":
                    version = int(message["version"])
                    self.arrivals.setdefault(version, time.monotonic())
                    self.version = max(self.version, version)
                    self.changed.set()
                elif kind in ("ack", "error"):
                    await self.acks.put(message)
        except websockets.ConnectionClosed as exc:
            self.close_reason = f"closed {exc.rcvd.code if exc.rcvd else 'without a frame'}" + (
                f" ({exc.rcvd.reason})" if exc.rcvd and exc.rcvd.reason else "")
        finally:
            self.closed = True
            await self.acks.put({"type": "error", "error": {"code": "closed", "message": "socket closed"}})
            self.changed.set()

    async def seen(self, version: int) -> float:
        """Wait for a push of ``version`` or newer; when the first such push arrived."""
        while self.version < version:
            if self.closed:
                raise ConnectionError(f"socket {self.close_reason or 'closed'} before the push of version {version}")
            self.changed.clear()
            await self.changed.wait()
        return min(at for v, at in self.arrivals.items() if v >= version)


async def polite(http: httpx.AsyncClient, method: str, path: str, token: str | None, body: Any = None) -> httpx.Response:
    """A request that waits and retries while the server's rate limit (429) refuses it."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for attempt in range(100):
        response = await http.request(method, path, json=body, headers=headers)
        if response.status_code != 429:
            return response
        await asyncio.sleep(min(1.0, 0.05 * (attempt + 1)))
    raise RuntimeError(f"{method} {path} kept being refused with 429")


async def create_match(http: httpx.AsyncClient, game: str, seats: int, host: str | None) -> dict[str, Any]:
    # clocks from creation, as before matches waited for every seat to join: a driver may act
    # before the other seats' sockets are open, and the start is not what is measured
    body = {"game": game, "options": {}, "seats": [{"name": f"P{i + 1}"} for i in range(seats)], "start": "now"}
    response = await polite(http, "POST", "/api/matches", host, body)
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    return data


class Window:
    """The measured window: it opens a second after the last of N matches is connected
    (60 s at most) and closes ``seconds`` later."""

    def __init__(self, matches: int, seconds: float) -> None:
        self.waiting = matches
        self.seconds = seconds
        self.limit = time.monotonic() + 60
        self.measure_from = float("inf")

    def connected(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.measure_from = time.monotonic() + 1.0

    def measuring(self, at: float) -> bool:
        return at >= min(self.measure_from, self.limit)

    def over(self) -> bool:
        return time.monotonic() >= min(self.measure_from, self.limit) + self.seconds


async def play_matches(
    base: str, http: httpx.AsyncClient, game: str, host: str | None, clock: Window,
    think: float, rng: random.Random, stats: Stats,
) -> None:
    """Play matches one after another until the window closes."""
    num_seats = make_game(game).num_seats
    ws_base = base.replace("http://", "ws://", 1)
    first = True
    while not clock.over():
        created = await create_match(http, game, num_seats, host)
        mid, tokens = created["id"], created["tokens"]["seats"]
        host = host or created["host_token"]
        acked: list[tuple[int, str]] = []
        stats.acked[mid] = (host or "", acked)
        sockets = [
            await websockets.connect(f"{ws_base}/ws/matches/{mid}?token={t}", max_size=None, open_timeout=60)
            for t in tokens
        ]
        seats = [Seat(ws) for ws in sockets]
        pumps = [asyncio.create_task(s.pump()) for s in seats]
        try:
            for s in seats:
                await s.seen(0)
            if first:
                first = False
                clock.connected()
            version = max(s.version for s in seats)
            state: State = make_game(game).new_initial_state()
            while not state.is_over() and not clock.over():
                seat = state.to_move()[0]
                action = rng.choice(state.legal_actions(seat))
                text = state.format_action(action)
                sent = time.monotonic()
                await sockets[seat].send(json.dumps({"type": "action", "action": text, "version": version}))
                reply = await seats[seat].acks.get()
                got = time.monotonic()
                if reply.get("type") != "ack":
                    stats.errors.append(f"{mid} {text!r}: {reply.get('error')}")
                    return
                version = int(reply["version"])
                acked.append((seat, text))
                state.apply(seat, action)
                pushes = []
                for other, s in enumerate(seats):
                    if other != seat:
                        pushes.append(await s.seen(version) - sent)
                if clock.measuring(sent):
                    stats.ack.append(got - sent)
                    stats.push.extend(pushes)
                await asyncio.sleep(think * (0.5 + rng.random()))
            if state.is_over():
                stats.finished += 1
        finally:
            for ws in sockets:
                await ws.close()
            for task in pumps:
                task.cancel()


async def run_step(base: str, game: str, matches: int, seconds: float, think: float, seed: int) -> tuple[Stats, float]:
    stats = Stats()
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        first = await create_match(http, game, make_game(game).num_seats, None)
        host = first["host_token"]
        await polite(http, "POST", f"/api/matches/{first['id']}/cancel", host)
        # Measuring starts once every match is created and connected (plus a second),
        # so the burst of creations is not counted; it stops `seconds` later.
        clock = Window(matches, seconds)
        tasks = [
            asyncio.create_task(
                play_matches(base, http, game, host, clock, think, random.Random(seed * 100003 + i), stats)
            )
            for i in range(matches)
        ]
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                stats.errors.append(f"{type(r).__name__}: {r}")
        if clock.measure_from > clock.limit:
            stats.errors.append(f"only {matches - clock.waiting} of {matches} matches connected within 60 s")
        elapsed = seconds  # actions are counted only when sent inside the window
        # every acknowledged action must be in the record (cancel what is still running)
        missing = 0
        for mid, (_tok, acked) in stats.acked.items():
            await polite(http, "POST", f"/api/matches/{mid}/cancel", host)
            response = await polite(http, "GET", f"/api/matches/{mid}/record", host)
            if response.status_code != 200:
                stats.errors.append(f"record of {mid}: {response.status_code} {response.text[:200]}")
                continue
            events = [(e["seat"], e["action"]) for e in response.json()["events"] if "action" in e]
            if events[: len(acked)] != acked:
                missing += 1
        if missing:
            stats.errors.append(f"{missing} matches lack acknowledged actions in their records")
    return stats, elapsed


def report(matches: int, stats: Stats, elapsed: float) -> bool:
    ack50, ack99 = percentile(stats.ack, 50) * 1000, percentile(stats.ack, 99) * 1000
    push50, push99 = percentile(stats.push, 50) * 1000, percentile(stats.push, 99) * 1000
    rate = len(stats.ack) / elapsed if elapsed > 0 else 0.0
    ok = bool(stats.ack) and max(ack99, push99) < TARGET_MS and not stats.errors
    print(
        f"{matches:5d} matches | ack p50 {ack50:7.1f} ms p99 {ack99:7.1f} ms | push p50 {push50:7.1f} ms "
        f"p99 {push99:7.1f} ms | {rate:7.1f} actions/s | {len(stats.ack)} actions, {stats.finished} finished"
        f" | {'p99 < 100 ms' if ok else 'over target' if not stats.errors else 'ERRORS'}",
        flush=True,
    )
    for error in stats.errors[:5]:
        print(f"      error: {error}", flush=True)
    return ok


def start_server(db_url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [sys.executable, "-m", "blackwhite.cli", "serve", "--db", db_url, "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT, start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not answer /health within 60 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=200, help="concurrent matches of the main step (200)")
    parser.add_argument("--search", default="50,100,150,250,300,400,600",
                        help="further N to try, ascending, stopping at the first over target; 'none' to skip")
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per step (15)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="mean seconds a match waits between actions (1.0; uniform 0.5x-1.5x)")
    parser.add_argument("--game", default="swapping", help="a game without chance events: swapping, domino, yellow")
    parser.add_argument("--db", default=None, help="database URL (default: a SQLite file in a temporary directory)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if make_game(args.game).new_initial_state().is_chance():
        parser.error(f"{args.game} starts with a chance event; the scripted clients need a game without them")

    tmp = Path(tempfile.mkdtemp(prefix="bw-bench-"))
    db_url = args.db or f"sqlite:///{tmp / 'bench.db'}"
    port = free_port()
    proc = start_server(db_url, port, tmp / "serve.log")
    base = f"http://127.0.0.1:{port}"
    print(f"server: pid {proc.pid}, {db_url}, {os.cpu_count()} cores; game {args.game}, think {args.think} s, "
          f"{args.seconds} s per step", flush=True)
    try:
        steps = [args.matches]
        if args.search != "none":
            steps += sorted({int(n) for n in args.search.split(",") if n.strip()} - {args.matches})
        passed: list[int] = []
        for index, n in enumerate(steps):
            if index > 0 and n > args.matches and args.matches not in passed:
                continue  # the main step already went over the target below this N
            stats, elapsed = asyncio.run(run_step(base, args.game, n, args.seconds, args.think, args.seed + index))
            ok = report(n, stats, elapsed)
            if ok:
                passed.append(n)
            elif index > 0:
                break
        best = max(passed) if passed else None
        print(f"largest N tried with p99 < {TARGET_MS:.0f} ms (ack and push): {best if best else 'none'}", flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
