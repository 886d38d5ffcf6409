"""A clean stop: SIGTERM (to the server, or to its whole process group as systemd does)
and Ctrl-C (SIGINT to the group, as a terminal does) stop ``blackwhite serve`` with its
bot workers busy thinking: exit 0, nothing on stderr (no "leaked semaphore objects" from
the resource tracker, no worker's KeyboardInterrupt), and no process of the group left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.server.client import ROOT, ProcessServer, free_port

#: a bot that thinks this long per decision keeps both workers busy when the signal comes
BUSY_BOT = {"bot": "ismcts:budget=5"}



def _only_info(err: bytes) -> bool:
    """Whether a stopped server's standard error holds nothing but its log's info lines
    (``2026-11-29T01:25:58Z INFO blackwhite.server [...] serving on ...``): no warning,
    no error, no traceback, no stray output of a worker."""
    import re

    lines = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
    return all(re.match(r"\d{4}-\d\d-\d\dT[0-9:]+Z INFO blackwhite\.", line) for line in lines)


def _start(db: Path, port: int) -> subprocess.Popen[bytes]:
    """The server with two bot workers, its stdout and stderr in pipes the test reads."""
    server = ProcessServer(f"sqlite:///{db}", port, args=("--bot-workers", "2", "--max-bot-matches", "5"), capture=True,
                           env={"PYTHONWARNINGS": None})
    server.start()
    assert server.proc is not None
    return server.proc


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("how", ["sigterm-process", "sigterm-group", "ctrl-c"])
def test_stop_with_busy_bot_workers_is_clean(tmp_path: Path, how: str) -> None:
    port = free_port()
    proc = _start(tmp_path / "blackwhite.db", port)
    pgid = proc.pid
    try:
        base = f"http://127.0.0.1:{port}"
        created = httpx.post(base + "/api/matches", json={"game": "swapping", "seats": [BUSY_BOT, BUSY_BOT]}, timeout=30)
        assert created.status_code == 201, created.text
        host = created.json()["host_token"]
        for _ in range(2):
            r = httpx.post(base + "/api/matches", json={"game": "swapping", "seats": [BUSY_BOT, BUSY_BOT]},
                           headers={"Authorization": f"Bearer {host}"}, timeout=30)
            assert r.status_code == 201, r.text
        # the workers (spawned on the first decision) start thinking: wait until both exist
        deadline = time.monotonic() + 30
        while len(_children(proc.pid)) < 3:  # the resource tracker and two workers
            assert time.monotonic() < deadline, f"the bot workers did not start: {_children(proc.pid)}"
            time.sleep(0.2)
        time.sleep(1.0)  # well inside a 5 s decision
        if how == "sigterm-process":
            proc.send_signal(signal.SIGTERM)
        elif how == "sigterm-group":
            os.killpg(pgid, signal.SIGTERM)
        else:
            os.killpg(pgid, signal.SIGINT)
        started = time.monotonic()
        # communicate() reads to end-of-file: it waits for every process holding stderr
        # (workers, the resource tracker) to be gone, and sees what they print on the way
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None or _group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
            proc.wait(timeout=10)
    assert proc.returncode == 0, f"exit {proc.returncode}; stderr: {err.decode(errors='replace')}"
    assert _only_info(err), f"stderr holds more than the log's info lines: {err.decode(errors='replace')}"
    assert took < 10, f"stopping took {took:.1f} s (a decision takes 5 s: the workers were waited for)"
    deadline = time.monotonic() + 5
    while _group_alive(pgid):
        assert time.monotonic() < deadline, "a process of the server outlived it"
        time.sleep(0.1)
    assert b"/?token=" in out


def test_stop_with_an_analysis_running_is_clean(tmp_path: Path) -> None:
    """The replay page's analysis workers too: SIGTERM to the group (systemd) while one
    analyses a whole joust match ends it at once, exit 0, nothing on stderr."""
    port = free_port()
    proc = _start(tmp_path / "blackwhite.db", port)
    try:
        base = f"http://127.0.0.1:{port}"
        record = (ROOT / "tests" / "data" / "records" / "joust-whole.json").read_bytes()
        r = httpx.post(base + "/replay/analysis", content=record, timeout=30)
        assert r.status_code == 202, r.text
        job = r.json()["job"]
        deadline = time.monotonic() + 30
        while (state := httpx.get(f"{base}/replay/analysis/{job}", timeout=10).json())["done"] < 1:
            assert state["state"] in ("queued", "running"), state
            assert time.monotonic() < deadline, f"the analysis did not start: {state}"
            time.sleep(0.1)
        assert state["state"] == "running" and state["done"] < state["total"], state  # a worker is busy
        os.killpg(proc.pid, signal.SIGTERM)
        started = time.monotonic()
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None or _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    assert proc.returncode == 0, f"exit {proc.returncode}; stderr: {err.decode(errors='replace')}"
    assert _only_info(err), f"stderr holds more than the log's info lines: {err.decode(errors='replace')}"
    assert took < 10, f"stopping took {took:.1f} s"


def test_workers_of_a_killed_server_exit_by_themselves(tmp_path: Path) -> None:
    """``kill -9`` of the server alone (not its group): its busy bot workers notice within
    a second or two and exit, instead of waiting for each other's queue forever."""
    port = free_port()
    proc = _start(tmp_path / "blackwhite.db", port)
    try:
        r = httpx.post(f"http://127.0.0.1:{port}/api/matches", json={"game": "swapping", "seats": [BUSY_BOT, BUSY_BOT]},
                       timeout=30)
        assert r.status_code == 201, r.text
        deadline = time.monotonic() + 30
        while len(_children(proc.pid)) < 2:  # the resource tracker and a worker at least
            assert time.monotonic() < deadline, "no bot worker started"
            time.sleep(0.2)
        time.sleep(1.0)
        children = _children(proc.pid)
        proc.kill()
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while alive := [pid for pid in children if Path(f"/proc/{pid}").exists() and _state(pid) != "Z"]:
            assert time.monotonic() < deadline, f"workers {alive} outlived their server by 5 s"
            time.sleep(0.1)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate(timeout=10)


def _state(pid: int) -> str:
    try:
        return (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _children(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found
