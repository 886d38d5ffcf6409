"""A small black-box client of the server's API, for the leak, crash and fuzz tests and
``benchmarks/server.py``: it knows only the HTTP/WebSocket contract (docs/server.md),
never the server's modules (``create_app`` aside, to run one in-process)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ApiError(AssertionError):
    """A response that was not the status the caller expected."""

    def __init__(self, response: httpx.Response, expected: int) -> None:
        self.response = response
        super().__init__(
            f"{response.request.method} {response.request.url.path} -> {response.status_code}"
            f" (expected {expected}): {response.text[:500]}"
        )


@dataclass
class Created:
    """What POST /api/matches returned, unpacked."""

    id: str
    host_token: str
    spectator_token: str
    seat_tokens: list[str | None]
    links: dict[str, Any]
    summary: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)


class Api:
    """Typed calls over any httpx client (a real server's, or FastAPI's TestClient)."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http

    @staticmethod
    def auth(token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def request(self, method: str, path: str, token: str | None = None, body: Any = None) -> httpx.Response:
        return self.http.request(method, path, headers=self.auth(token), json=body)

    def expect(self, response: httpx.Response, status: int) -> Any:
        if response.status_code != status:
            raise ApiError(response, status)
        return response.json()

    def create(
        self,
        game: str,
        seats: list[dict[str, str]],
        *,
        options: dict[str, Any] | None = None,
        host_sees_all: bool = False,
        paused: bool = False,
        host_token: str | None = None,
        join: bool = True,
    ) -> Created:
        """Create a match; ``join``: every seat opens its link at once, so the clocks start now."""
        body: dict[str, Any] = {"game": game, "options": options or {}, "seats": seats, "host_sees_all": host_sees_all}
        if paused:
            body["paused"] = True
        data = self.expect(self.request("POST", "/api/matches", host_token, body), 201)
        host = data["host_token"] or host_token
        assert isinstance(host, str), "a new host got no host_token"
        if join:
            for seat in data["tokens"]["seats"]:
                if seat:
                    self.view(data["id"], seat)
        return Created(
            id=data["id"],
            host_token=host,
            spectator_token=data["tokens"]["spectator"],
            seat_tokens=list(data["tokens"]["seats"]),
            links=data["links"],
            summary=data["match"],
            raw=data,
        )

    def summary(self, mid: str, token: str) -> dict[str, Any]:
        result: dict[str, Any] = self.expect(self.request("GET", f"/api/matches/{mid}", token), 200)
        return result

    def view(self, mid: str, token: str) -> dict[str, Any]:
        result: dict[str, Any] = self.expect(self.request("GET", f"/api/matches/{mid}/view", token), 200)
        return result

    def act(self, mid: str, token: str, action: str, version: int) -> httpx.Response:
        return self.request("POST", f"/api/matches/{mid}/actions", token, {"action": action, "version": version})

    def record(self, mid: str, token: str) -> dict[str, Any]:
        result: dict[str, Any] = self.expect(self.request("GET", f"/api/matches/{mid}/record", token), 200)
        return result

    def host_op(self, mid: str, token: str, op: str) -> dict[str, Any]:
        response = self.request("POST", f"/api/matches/{mid}/{op}", token)
        if response.status_code >= 300:
            raise ApiError(response, 200)
        return dict(response.json() or {})


class Retrying(httpx.HTTPTransport):
    """A client's transport that does what the pages and the bridge do with a 503
    ``owner_unavailable`` (a match moving between processes, say when a lease lapsed on a
    loaded machine): wait its Retry-After and send again, when the answer says nothing
    was changed (not marked ``x-blackwhite-unsure``); up to ``within`` seconds."""

    def __init__(self, within: float = 30.0) -> None:
        super().__init__()
        self.within = within

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        end = time.monotonic() + self.within
        while True:
            response = super().handle_request(request)
            if (response.status_code != 503 or "x-blackwhite-unsure" in response.headers
                    or time.monotonic() >= end):
                return response
            response.read()
            if b"owner_unavailable" not in response.content:
                return response
            response.close()
            time.sleep(min(2.0, float(response.headers.get("retry-after", "1") or 1)))


def ws_url(base_url: str, mid: str, token: str) -> str:
    return base_url.replace("http://", "ws://", 1) + f"/ws/matches/{mid}?token={token}"


class ThreadServer:
    """``create_app(db_url)`` served by uvicorn in a thread of this process, on a free port."""

    def __init__(self, db_url: str, **app_options: Any) -> None:
        import uvicorn

        from blackwhite.app import create_app

        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        app = create_app(db_url, **app_options)
        # as `blackwhite serve` runs it: X-Forwarded-* are the app's to read, not uvicorn's
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on",
                                proxy_headers=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="uvicorn-test", daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the in-process server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


class ProcessServer:
    """``blackwhite serve`` as a real child process (``python -m blackwhite.cli serve``):
    the one launcher of the server, web and discord tests.  ``args`` are more options of
    ``serve``; after each start, ``host_token`` is the host link it printed (with a log)."""

    def __init__(self, db_url: str, port: int | None = None, log: Path | None = None,
                 args: tuple[str, ...] = (), capture: bool = False, env: dict[str, str | None] | None = None) -> None:
        self.db_url = db_url
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.args = args
        #: stdout and stderr to pipes the caller reads (``proc.communicate()``) instead of the log
        self.capture = capture
        #: changes to the environment it inherits (None: the variable is removed)
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        #: the exit status once it has been stopped or killed
        self.returncode: int | None = None
        self.host_token = ""

    def start(self, timeout: float = 60.0) -> None:
        """Launch it and wait until it answers ``/health``."""
        self.launch()
        self.wait_ready(timeout)

    def launch(self) -> None:
        """Start the process, without waiting for it (several may start at once)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        for name, value in self.env.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        out = subprocess.PIPE if self.capture else open(self.log, "ab") if self.log else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "blackwhite.cli", "serve", "--db", self.db_url,
                 "--host", "127.0.0.1", "--port", str(self.port), *self.args],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.PIPE if self.capture else subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            if not isinstance(out, int):
                out.close()  # the child holds its own copy

    def wait_ready(self, timeout: float = 60.0, url: str | None = None, client: httpx.Client | None = None) -> None:
        """Wait until ``url`` (its own ``/health`` by default) answers 200 through ``client``
        (a fresh connection each time by default); then read the host link it printed."""
        assert self.proc is not None, "launch() first"
        url = url or self.base_url + "/health"
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                said = repr(self.proc.communicate(timeout=10)) if self.capture else self.log_text()
                raise RuntimeError(f"blackwhite serve exited with {self.proc.returncode}: {said}")
            try:
                answer = client.get(url) if client is not None else httpx.get(url, timeout=2, trust_env=False)
                if answer.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"blackwhite serve did not answer {url} in {timeout} s: {self.log_text()}")
            time.sleep(0.1)
        self.host_token = self.printed_token() or ""

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log and self.log.exists() else ""

    def printed_token(self) -> str | None:
        """The token of the host link the latest start printed (None: none in the log)."""
        found = re.findall(r"/\?token=([A-Za-z0-9_-]+)", self.log_text())
        return found[-1] if found else None

    def kill(self) -> None:
        """SIGKILL the whole process group: no clean shutdown, like a crash."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, 9)
        except ProcessLookupError:
            pass
        self.returncode = self.proc.wait(timeout=30)
        self.proc = None

    def restart(self) -> None:
        """Kill it and start it again on the same port and database."""
        self.kill()
        self.start()

    def stop(self, timeout: float = 15.0) -> int | None:
        """A clean stop (SIGTERM to the group), then SIGKILL if it lingers more than
        ``timeout`` seconds; its exit status (0: it stopped cleanly), None if it lingered."""
        if self.proc is None:
            return self.returncode
        try:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, 15)
            self.proc.wait(timeout=timeout)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        status = self.proc.poll()
        self.kill()
        return status


def dumps(message: Any) -> str:
    """Canonical JSON of a message, for scanning it for secrets."""
    return json.dumps(message, sort_keys=True, ensure_ascii=False)
