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

``--processes 1,2`` runs the same search once per count of server processes over one
throwaway PostgreSQL (``--db`` to give one), behind Debian's nginx (round-robin over
the processes, WebSockets through it; docs/deploy.md), and prints after each step the
CPU seconds the server processes, PostgreSQL, nginx and this benchmark's own clients
used (from /proc), so where the CPU went is measured.  Then a failover step: matches
spread over the processes of the last count, a few actions acknowledged in each, the
process owning most of them killed (SIGKILL), and the time until every one of its
matches has accepted an action again, and how many acknowledged actions are missing
from the records (must be 0).

    python benchmarks/server.py --processes 1,2 --matches 100 --search 200,300 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
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


def start_server(db_url: str, port: int, log: Path, extra: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [sys.executable, "-m", "blackwhite.cli", "serve", "--db", db_url, "--host", "127.0.0.1", "--port", str(port),
         *extra],
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
    parser.add_argument("--processes", default=None,
                        help="counts of server processes to compare behind nginx over PostgreSQL, e.g. 1,2")
    parser.add_argument("--failover-matches", type=int, default=60, help="matches of the failover step (60)")
    args = parser.parse_args()
    if make_game(args.game).new_initial_state().is_chance():
        parser.error(f"{args.game} starts with a chance event; the scripted clients need a game without them")
    if args.processes:
        run_processes(args, [int(n) for n in args.processes.split(",")])
        return

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


# --------------------------------------------------------------------------- several processes

NGINX = "/usr/sbin/nginx"


def nginx_conf(tmp: Path, port: int, upstreams: list[int]) -> Path:
    """docs/deploy.md's proxying (round-robin upstream, WebSockets under /ws/), in plain
    HTTP on loopback: TLS would only add nginx's CPU to every number."""
    temp = "\n".join(f"    {kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    servers = " ".join(f"server 127.0.0.1:{p};" for p in upstreams)
    conf = tmp / f"nginx-{port}.conf"
    conf.write_text(
        ("user root root;\n" if os.geteuid() == 0 else "")
        + f"pid {tmp / f'nginx-{port}.pid'};\nerror_log {tmp / 'nginx-error.log'} warn;\nworker_processes 1;\n"
        + "events { worker_connections 8192; }\n"
        + f"http {{\n{temp}\n    access_log off;\n"
        + "    map $http_upgrade $connection_upgrade { default upgrade; '' close; }\n"
        + f"    upstream blackwhite {{ {servers} keepalive 64; }}\n"
        + f"    server {{\n        listen 127.0.0.1:{port};\n"
        + "        location / { proxy_pass http://blackwhite; proxy_http_version 1.1; proxy_set_header Connection \"\";"
        + " proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; }\n"
        + "        location /ws/ { proxy_pass http://blackwhite; proxy_http_version 1.1;"
        + " proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection $connection_upgrade;"
        + " proxy_set_header Host $host; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;"
        + " proxy_read_timeout 1h; proxy_buffering off; }\n    }\n}\n"
    )
    return conf


def _cpu_of(pids: list[int]) -> float:
    """CPU seconds (user + system) of these processes and their waited-for children, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
    return total


def _descendants(root: int) -> list[int]:
    """``root`` and every process below it (a server's bot workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


class CpuMeter:
    """CPU seconds per part, between :meth:`start` and :meth:`stop`."""

    def __init__(self, servers: list[subprocess.Popen[bytes]], pg_data: str, nginx: subprocess.Popen[bytes]) -> None:
        self.servers = servers
        self.pg_data = pg_data
        self.nginx = nginx
        self.before: dict[str, float] = {}

    def read(self) -> dict[str, float]:
        own = os.times()
        fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        busy = (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
        return {
            "machine": busy,
            "servers": sum(_cpu_of(_descendants(p.pid)) for p in self.servers if p.poll() is None),
            "postgres": _cpu_of(_descendants(self.postmaster())) if self.pg_data else 0.0,
            "nginx": _cpu_of(_descendants(self.nginx.pid)),
            "clients": own.user + own.system,
        }

    def postmaster(self) -> int:
        """The PostgreSQL server's first process (its backends are its children)."""
        return int((Path(self.pg_data) / "postmaster.pid").read_text().split()[0])

    def start(self) -> None:
        self.before = self.read()
        self.at = time.monotonic()

    def stop(self) -> str:
        after = self.read()
        wall = time.monotonic() - self.at
        used = {k: after[k] - self.before.get(k, 0.0) for k in after}
        machine = used.pop("machine")
        used["everything else on the machine"] = machine - sum(used.values())
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in used.items())
        return f"CPU over {wall:.0f} s of {os.cpu_count()} cores ({wall * (os.cpu_count() or 1):.0f} core-s): {parts}"


def run_processes(args: argparse.Namespace, counts: list[int]) -> None:
    from tests.server.conftest import PostgresServer, _pg_bin_dir, _run_as

    tmp = Path(tempfile.mkdtemp(prefix="bw-bench-"))
    pg: PostgresServer | None = None
    if args.db is None:
        base = Path(tempfile.mkdtemp(prefix="bw-bench-pg-"))
        base.chmod(0o755)
        bin_dir = _pg_bin_dir()
        if bin_dir is None:
            raise SystemExit("no PostgreSQL binaries (apt-get install postgresql), or give --db postgresql://...")
        pg = PostgresServer(bin_dir=bin_dir, base=base, port=free_port(), user=_run_as(), durable=True)
        pg.start()
    summary: list[str] = []
    try:
        for n in counts:
            db_url = args.db or pg.create_database()  # type: ignore[union-attr]
            ports = [free_port() for _ in range(n)]
            procs = []
            for i, port in enumerate(ports):
                procs.append(start_server(db_url, port, tmp / f"serve-{n}-{i}.log",
                                          ("--rate", "0", "--internal-url", f"http://127.0.0.1:{port}")))
            front = free_port()
            conf = nginx_conf(tmp, front, ports)
            nginx = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(conf), "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
            base_url = f"http://127.0.0.1:{front}"
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(base_url + "/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("nginx did not answer")
                time.sleep(0.1)
            meter = CpuMeter(procs, str(pg.data) if pg else "", nginx)
            print(f"--- {n} server process{'es' if n > 1 else ''} behind nginx, PostgreSQL ({db_url.rsplit('/', 1)[1]}), "
                  f"{os.cpu_count()} cores; game {args.game}, think {args.think} s, {args.seconds} s per step", flush=True)
            try:
                steps = [args.matches]
                if args.search != "none":
                    steps += sorted({int(x) for x in args.search.split(",") if x.strip()} - {args.matches})
                passed: list[int] = []
                for index, m in enumerate(steps):
                    if index > 0 and m > args.matches and args.matches not in passed:
                        continue
                    meter.start()
                    stats, elapsed = asyncio.run(run_step(base_url, args.game, m, args.seconds, args.think,
                                                          args.seed + index))
                    ok = report(m, stats, elapsed)
                    print(f"      {meter.stop()}", flush=True)
                    if ok:
                        passed.append(m)
                    elif index > 0:
                        break
                best = max(passed) if passed else None
                line = f"{n} process{'es' if n > 1 else ''}: largest N with p99 < {TARGET_MS:.0f} ms: {best or 'none'}"
                print(line, flush=True)
                summary.append(line)
                if n == counts[-1] and n > 1:
                    summary.append(asyncio.run(failover(base_url, db_url, procs, ports, args)))
                    print(summary[-1], flush=True)
            finally:
                nginx.send_signal(signal.SIGQUIT)
                nginx.wait(timeout=15)
                for proc in procs:
                    if proc.poll() is None:
                        proc.terminate()
                        try:
                            proc.wait(timeout=15)
                        except subprocess.TimeoutExpired:
                            proc.kill()
        print("\n".join(summary), flush=True)
    finally:
        if pg is not None:
            pg.stop()
            shutil.rmtree(pg.base, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


async def failover(base: str, db_url: str, procs: list[subprocess.Popen[bytes]], ports: list[int],
                   args: argparse.Namespace) -> str:
    """Matches spread over the processes, acknowledged actions in each; the owner of most
    killed; the time until each of its matches accepts an action again; records checked."""
    from sqlalchemy import create_engine

    from blackwhite.server.cluster import Cluster

    rng = random.Random(args.seed)
    game = args.game
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        first = await create_match(http, game, make_game(game).num_seats, None)
        host = first["host_token"]
        tables = [await create_match(http, game, make_game(game).num_seats, host) for _ in range(args.failover_matches)]
        acked: dict[str, list[tuple[int, str]]] = {t["id"]: [] for t in tables}
        states = {t["id"]: make_game(game).new_initial_state() for t in tables}

        async def act(t: dict[str, Any]) -> bool:
            """One action of whoever is to move; True once acknowledged."""
            state = states[t["id"]]
            if state.is_over():
                return True
            seat = state.to_move()[0]
            token = t["tokens"]["seats"][seat]
            view = await http.get(f"/api/matches/{t['id']}/view", params={"token": token})
            if view.status_code != 200:
                return False
            action = rng.choice(state.legal_actions(seat))
            text = state.format_action(action)
            r = await http.post(f"/api/matches/{t['id']}/actions", params={"token": token},
                                json={"action": text, "version": view.json()["version"]})
            if r.status_code != 200:
                return False
            acked[t["id"]].append((seat, text))
            state.apply(seat, action)
            return True

        for _ in range(4):
            await asyncio.gather(*(act(t) for t in tables))
        engine = create_engine(db_url)
        probe = Cluster(engine, None)
        owners = {t["id"]: await asyncio.to_thread(probe.owner, t["id"]) for t in tables}
        engine.dispose()
        urls = [o.url for o in owners.values() if o is not None]
        victim_url = max(set(urls), key=urls.count)
        victim = ports.index(int(str(victim_url).rsplit(":", 1)[1]))
        affected = [t for t in tables if owners[t["id"]] is not None and owners[t["id"]].url == victim_url]  # type: ignore[union-attr]
        killed = time.monotonic()
        os.killpg(procs[victim].pid, signal.SIGKILL)
        back: dict[str, float] = {}

        async def recover(t: dict[str, Any]) -> None:
            while time.monotonic() - killed < 60:
                if await act(t):
                    back[t["id"]] = time.monotonic() - killed
                    return
                await asyncio.sleep(0.05)

        await asyncio.gather(*(recover(t) for t in affected))
        lost = 0
        for t in tables:
            await polite(http, "POST", f"/api/matches/{t['id']}/cancel", host)
            r = await polite(http, "GET", f"/api/matches/{t['id']}/record", host)
            events = [(e["seat"], e["action"]) for e in r.json()["events"] if "action" in e]
            it = iter(events)
            lost += sum(1 for a in acked[t["id"]] if not any(a == e for e in it))
        worst = max(back.values()) if len(back) == len(affected) else float("inf")
        return (f"failover: kill -9 of the process owning {len(affected)} of {len(tables)} matches; every one accepted "
                f"an action again within {worst:.2f} s (median {percentile(list(back.values()), 50):.2f} s); "
                f"acknowledged actions lost: {lost} of {sum(len(a) for a in acked.values())}")


if __name__ == "__main__":
    main()
