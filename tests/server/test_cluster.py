"""Several ``blackwhite serve`` processes over one PostgreSQL behind Debian's nginx
(docs/server.md, "Several processes"; docs/deploy.md's nginx configuration with one
``server`` line per process).

Three processes serve one throwaway PostgreSQL database; nginx spreads requests and
sockets over them round-robin.  A match of every game is played by a person (this test,
over a socket choosing random legal actions) against bots, watched by a spectator, the
host and (where the host sees all) the bots' seats, every socket through nginx.  Mid-play
the process owning most matches is frozen (SIGSTOP) for 3 s, then killed (SIGKILL):
the others take its matches over within 5 s, every match finishes, every acknowledged
action is in its record once and in order, nothing is applied more often than it was
sent, the freeze was charged to no clock, and every message any socket received is the
engine's view of some prefix of the record for that socket's audience, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import ssl
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from blackwhite.engine import game_ids

from .client import ProcessServer, free_port
from .test_leaks import HOST_SEES_ALL, Watcher, check_watcher, replay_prefixes
from .test_nginx import NGINX, TLS, adapt, documented_config

websockets = pytest.importorskip("websockets")
pytestmark = pytest.mark.skipif(not Path(NGINX).exists(), reason=f"{NGINX} is missing (apt-get install nginx)")

PROCESSES = 3


@dataclass
class Fleet:
    """N server processes, nginx in front, the database they share."""

    db_url: str
    public: str
    ports: list[int]
    procs: list[subprocess.Popen[bytes]]
    logs: list[Path]
    ssl: ssl.SSLContext
    nginx_log: Path

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.public, verify=self.ssl, timeout=30, trust_env=False)

    def ws(self, match_id: str, token: str) -> str:
        return self.public.replace("https://", "wss://", 1) + f"/ws/matches/{match_id}?render=1&token={token}"

    def text(self) -> str:
        return "\n".join(f"--- server {i} (port {p}):\n{log.read_text(errors='replace')[-3000:]}"
                         for i, (p, log) in enumerate(zip(self.ports, self.logs)))

    def host_token(self) -> str:
        for line in self.logs[0].read_text().splitlines():
            if "/?token=" in line:
                return line.rsplit("/?token=", 1)[1].strip()
        raise AssertionError(f"no host link printed: {self.text()}")


@pytest.fixture
def fleet(tmp_path: Path, postgres_url: str) -> Iterator[Fleet]:
    with running_fleet(tmp_path, postgres_url) as found:
        yield found


@contextlib.contextmanager
def running_fleet(tmp_path: Path, postgres_url: str, args: tuple[str, ...] = ()) -> Iterator[Fleet]:
    """Start :data:`PROCESSES` servers (more ``serve`` options: ``args``) and nginx in front of them."""
    cert, key = TLS / "localhost-cert.pem", TLS / "localhost-key.pem"
    tls_port, http_port = free_port(), free_port()
    ports = [free_port() for _ in range(PROCESSES)]
    public = f"https://localhost:{tls_port}"
    conf = adapt(documented_config(), tls_port=tls_port, http_port=http_port, upstream=ports[0], cert=cert, key=key)
    # docs/deploy.md: one server line per process
    conf = conf.replace(f"server 127.0.0.1:{ports[0]};", " ".join(f"server 127.0.0.1:{p};" for p in ports))
    nginx_log = tmp_path / "error.log"
    temp = "\n".join(f"    {kind}_temp_path {tmp_path / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp_path / "nginx.conf").write_text(
        ("user root root;\n" if os.geteuid() == 0 else "")
        + f"pid {tmp_path / 'nginx.pid'};\nerror_log {nginx_log} info;\nworker_processes 1;\n"
        + "events { worker_connections 512; }\n"
        + f"http {{\n{temp}\n    access_log off;\n{conf}}}\n"
    )
    logs = [tmp_path / f"server{i}.log" for i in range(PROCESSES)]
    servers = [ProcessServer(postgres_url, port, log=log, args=(
        "--internal-url", f"http://127.0.0.1:{port}", "--public-url", public, "--rate", "0", "--bot-workers", "1", *args))
        for port, log in zip(ports, logs)]
    procs: list[subprocess.Popen[bytes]] = []
    nginx = None
    try:
        # the first migrates the new database; the others start on it
        for i, server in enumerate(servers):
            server.launch()
            assert server.proc is not None
            procs.append(server.proc)
            if i == 0:
                server.wait_ready()
        for server in servers[1:]:
            server.wait_ready()
        nginx = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-e", str(nginx_log),
                                  "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        found = Fleet(postgres_url, public, ports, procs, logs, ssl.create_default_context(cafile=str(cert)), nginx_log)
        with found.client() as client:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if client.get("/health").status_code == 200:
                        break
                assert nginx.poll() is None and time.monotonic() < deadline, f"nginx: {nginx_log.read_text()}"
                time.sleep(0.1)
        yield found
    finally:
        for proc in ([nginx] if nginx else []) + procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGCONT)
                os.killpg(proc.pid, signal.SIGQUIT if proc is nginx else signal.SIGTERM)
        for proc in ([nginx] if nginx else []) + procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


# ------------------------------------------------------------------ the players


@dataclass
class Player:
    """The person in seat 0: random legal actions over its socket, one at a time."""

    rng: random.Random
    #: actions sent (each once), and those acknowledged, in order
    sent: list[str] = field(default_factory=list)
    acked: list[str] = field(default_factory=list)
    pending: str | None = None
    #: after this many acknowledged actions the player waits until released
    hold_after: int = 2
    released: asyncio.Event = field(default_factory=asyncio.Event)
    #: (version, connection) of the last send: one action per version seen on a connection
    last: tuple[int, int] | None = None


@dataclass
class Table:
    game: str
    id: str
    tokens: dict[str, Any]
    watchers: list[Watcher]
    player: Player
    reconnects: int = 0


def _ended(message: dict[str, Any]) -> bool:
    return message.get("type") == "view" and message.get("status") in ("finished", "cancelled")


async def _follow(fleet: Fleet, table: Table, w: Watcher, token: str, deadline: float) -> None:
    """One socket (reconnecting through nginx whenever it closes) until the match ends;
    the seat-0 watcher also plays."""
    player = table.player if w.role == "seat" and w.viewer == 0 else None
    while time.monotonic() < deadline:
        try:
            async with websockets.connect(fleet.ws(table.id, token), ssl=fleet.ssl, max_size=None, open_timeout=10,
                                          proxy=None) as ws:
                w.ready.set()
                while True:
                    if player is not None and player.pending is None and w.messages:
                        view = w.messages[-1]
                        version = view["version"]
                        legal = view.get("legal") or []
                        may = len(player.acked) < player.hold_after or player.released.is_set()
                        if legal and may and view.get("status") == "running" and (version, table.reconnects) != player.last:
                            action = player.rng.choice(legal)
                            player.pending = action
                            player.sent.append(action)
                            player.last = (version, table.reconnects)
                            await ws.send(json.dumps({"type": "action", "action": action, "version": version}))
                    try:
                        raw = await asyncio.wait_for(ws.recv(), 0.2)
                    except asyncio.TimeoutError:
                        continue
                    message = json.loads(raw)
                    if message["type"] == "view":
                        w.messages.append(message)
                        if _ended(message):
                            return
                    elif player is not None and message["type"] == "ack":
                        assert player.pending is not None, message
                        player.acked.append(player.pending)
                        player.pending = None
                    elif player is not None and message["type"] == "error":
                        assert message["error"]["code"] in ("stale_version", "not_your_turn", "store_unavailable",
                                                            "owner_unavailable", "illegal"), message
                        if message["error"]["code"] in ("store_unavailable", "owner_unavailable"):
                            player.last = None  # nothing was applied: the same step may be tried again
                        player.pending = None
        except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError):
            pass
        if player is not None:
            player.pending = None  # unanswered: it may or may not have been applied
        table.reconnects += 1
        await asyncio.sleep(0.2)
    raise AssertionError(f"{table.game}: the match did not end in time")


def _established(port: int) -> int:
    """Established TCP connections to 127.0.0.1:``port`` (from /proc/net/tcp)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state = fields[1], fields[3]
        if state == "01" and int(local.split(":")[1], 16) == port:
            count += 1
    return count


def _readings(client: httpx.Client, table: Table) -> tuple[float, dict[str, Any]]:
    view = client.get(f"/api/matches/{table.id}/view", params={"token": table.tokens["spectator"]})
    assert view.status_code == 200, view.text
    return time.monotonic(), view.json()


def _left(payload: dict[str, Any], seat: int) -> float:
    reading = payload["clocks"]["seats"][seat]
    return float(reading["action_left"]) + float(reading["reserve_left"])


async def _run(fleet: Fleet) -> None:
    from sqlalchemy import create_engine

    from blackwhite.server.cluster import Cluster

    host = fleet.host_token()
    tables: list[Table] = []
    with fleet.client() as client:
        for n, game in enumerate(game_ids()):
            seats = 3 if game == "yellow" else 2
            body = {"game": game, "seats": [{"name": "Ann"}] + [{"bot": "random"}] * (seats - 1), "paused": True,
                    "host_sees_all": game in HOST_SEES_ALL}
            made = client.post("/api/matches", json=body, headers={"Authorization": f"Bearer {host}"})
            assert made.status_code == 201, made.text
            data = made.json()
            tokens = data["tokens"]
            full = game in HOST_SEES_ALL
            watchers = [Watcher("seat 0", 0, "seat", "", full)]
            watchers += [Watcher(f"seat {s}", s, "seat", "", full) for s in range(1, seats) if tokens["seats"][s]]
            watchers += [Watcher("spectator", None, "spectator", "", full), Watcher("host", None, "host", "", full, full=full)]
            tables.append(Table(game, data["id"], {**tokens, "host": host}, watchers, Player(random.Random(n))))

        deadline = time.monotonic() + 240
        tasks = []
        for table in tables:
            for w in table.watchers:
                token = (table.tokens["host"] if w.role == "host" else table.tokens["spectator"] if w.role == "spectator"
                         else table.tokens["seats"][w.viewer])
                tasks.append(asyncio.create_task(_follow(fleet, table, w, token, deadline)))
        await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for t in tables for w in t.watchers)), 60)
        for table in tables:  # the host's controls, through whichever process nginx picks
            resumed = await asyncio.to_thread(client.post, f"/api/matches/{table.id}/resume",
                                              headers={"Authorization": f"Bearer {host}"})
            assert resumed.status_code == 200, resumed.text

        # the host's listing, whichever process answers it, has every match as it is now
        for _ in range(PROCESSES):
            listing = await asyncio.to_thread(client.get, "/api/matches", headers={"Authorization": f"Bearer {host}"})
            assert listing.status_code == 200, listing.text
            statuses = {m["id"]: m["status"] for m in listing.json()}
            assert all(statuses.get(t.id) in ("running", "finished") for t in tables), statuses

        # nginx spread the sockets: every process holds connections from it (sockets, and
        # the kept connections of relayed requests) while every socket is open
        for port in fleet.ports:
            assert _established(port) >= 3, f"process on {port} holds {_established(port)} connections"

        # every player makes its first actions, then waits: every match awaits its person
        while any(len(t.player.acked) < t.player.hold_after for t in tables):
            assert time.monotonic() < deadline, [(t.game, t.player.acked) for t in tables]
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.5)  # the bots answer

        engine = create_engine(fleet.db_url)
        probe = Cluster(engine, None)
        owners = {t.id: await asyncio.to_thread(probe.owner, t.id) for t in tables}
        urls = [o.url for o in owners.values() if o is not None]
        assert len(set(urls)) >= 2, f"the matches were not spread over the processes: {owners}"
        victim_url = max(set(urls), key=urls.count)
        victim = fleet.ports.index(int(str(victim_url).rsplit(":", 1)[1]))
        affected = [t for t in tables if owners[t.id] is not None and owners[t.id].url == victim_url]  # type: ignore[union-attr]
        before = {t.id: await asyncio.to_thread(_readings, client, t) for t in affected}
        proc = fleet.procs[victim]
        stopped = time.monotonic()
        os.killpg(proc.pid, signal.SIGSTOP)  # a hung process: it holds its locks, answers nothing
        await asyncio.sleep(3.0)
        killed = time.monotonic()
        os.kill(proc.pid, signal.SIGKILL)  # the server itself (its bot worker exits when it is gone)
        os.killpg(proc.pid, signal.SIGCONT)
        back: dict[str, float] = {}
        after: dict[str, tuple[float, dict[str, Any]]] = {}
        while len(back) < len(affected):
            for t in affected:
                if t.id in back:
                    continue
                with contextlib.suppress(httpx.HTTPError):
                    r = await asyncio.to_thread(client.get, f"/api/matches/{t.id}/view",
                                                params={"token": t.tokens["spectator"]}, timeout=2)
                    if r.status_code == 200:
                        back[t.id] = time.monotonic()
                        after[t.id] = (back[t.id], r.json())
            assert time.monotonic() - killed < 10, f"not back 10 s after the kill: {set(t.id for t in affected) - set(back)}"
            await asyncio.sleep(0.05)
        failover = max(back.values()) - killed
        assert failover < 5.0, f"matches answered again only {failover:.1f} s after the kill"
        for t in affected:
            (t0, v0), (t1, v1) = before[t.id], after[t.id]
            for seat in range(len(v0["clocks"]["seats"])):
                if v0["clocks"]["seats"][seat]["awaited"] and v1["clocks"]["seats"][seat]["awaited"]:
                    spent = _left(v0, seat) - _left(v1, seat)
                    # charged: up to the frozen owner's last heartbeat (1 s at most after the
                    # freeze), then from the takeover on; the 3 s freeze and the kill are no one's
                    assert spent <= (t1 - t0) - (killed - stopped) + 1.3, (
                        f"{t.game} seat {seat}: {spent:.2f} s charged over {t1 - t0:.2f} s that held a "
                        f"{killed - stopped:.1f} s freeze and {t1 - killed:.2f} s of failover")
        survivors = [p for i, p in enumerate(fleet.procs) if i != victim]
        assert all(p.poll() is None for p in survivors), fleet.text()

        for table in tables:
            table.player.released.set()
        done, pending = await asyncio.wait(tasks, timeout=max(1.0, deadline - time.monotonic()))
        for task in pending:
            task.cancel()
        for task in done:
            task.result()
        assert not pending, f"sockets still open at the deadline: {fleet.text()}"

        listing = client.get("/api/matches", headers={"Authorization": f"Bearer {host}"})
        assert listing.status_code == 200, listing.text
        listed = {m["id"]: m["status"] for m in listing.json()}
        for table in tables:
            assert listed.get(table.id) == "finished", (table.game, listed.get(table.id))
            record = client.get(f"/api/matches/{table.id}/record", params={"token": table.tokens["spectator"]})
            assert record.status_code == 200, record.text
            data = record.json()
            mine = [e["action"] for e in data["events"] if e.get("seat") == 0 and "action" in e
                    and e["action"] != "timeout"]
            it = iter(mine)
            assert all(any(a == m for m in it) for a in table.player.acked), (
                f"{table.game}: an acknowledged action is missing from the record, or out of order: "
                f"acked {table.player.acked}, recorded {mine}")
            assert len(mine) <= len(table.player.sent), f"{table.game}: more actions recorded than sent"
            assert len(mine) >= len(table.player.acked)
            seats = 3 if table.game == "yellow" else 2
            prefixes = replay_prefixes(data, [*range(seats), None])
            for w in table.watchers:
                # what ?render=1 adds (the board drawn from the same view, the seat's own legal
                # actions, which may spell another seat's secret move) is not scanned as text
                w.messages = [{k: v for k, v in m.items() if k not in ("board", "boards", "legal")} for m in w.messages]
                check_watcher(table.game, data, prefixes, w)
        engine.dispose()
    print(f"failover: {failover:.2f} s for {len(affected)} matches; reconnects: "
          f"{sum(t.reconnects for t in tables)}")


def test_three_processes_behind_nginx_survive_a_kill(fleet: Fleet) -> None:
    asyncio.run(_run(fleet))
    log = "\n".join(p.read_text(errors="replace") for p in fleet.logs)
    assert "Traceback" not in log, fleet.text()
