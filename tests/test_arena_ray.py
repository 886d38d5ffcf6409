"""``arena --ray`` against a real Ray head, started by this test on loopback.

The head runs in its own process (``ray start --head --block``), as a cluster the
arena only connects to; the matches it plays must be the very matches the local
path plays.  Ray is the ``ray`` extra (CI installs it with the ``test`` extra):
without it the test is skipped, saying so.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest
from typer.testing import CliRunner

ray = pytest.importorskip(
    "ray", reason="Ray is not installed (the 'ray' extra: pip install 'blackwhite[ray]')"
)

from blackwhite.arena import make_specs, run_specs, tabulate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A one-CPU Ray head on 127.0.0.1; its GCS address.  Stopped (by its own pid,
    whose ``--block`` makes it take its daemons down with it) after the tests."""
    ray_cli = shutil.which("ray") or str(Path(sys.executable).parent / "ray")
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    temp = tmp_path_factory.mktemp("ray")
    log = (temp / "head.log").open("w")
    proc = subprocess.Popen(
        [
            ray_cli, "start", "--head", "--block",
            "--node-ip-address=127.0.0.1", f"--port={port}",
            "--num-cpus=1", "--include-dashboard=false", "--disable-usage-stats",
            f"--object-store-memory={80 * 1024 * 1024}",
            # a short path: Ray's unix sockets live under it (108-byte limit)
            f"--temp-dir=/tmp/bw-ray-{os.getpid()}",
        ],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                tail = (temp / "head.log").read_text()[-2000:]
                pytest.fail(f"the Ray head exited ({proc.returncode}): {tail}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the Ray head did not open its port within 120 s")
                time.sleep(0.5)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(f"/tmp/bw-ray-{os.getpid()}", ignore_errors=True)


def test_ray_cluster_plays_the_same_matches(head: str) -> None:
    specs = make_specs("swapping", ["heuristic", "random"], games=3, seed=4)
    via_ray = run_specs(specs, ray_address=head)
    local = run_specs(specs, workers=1)
    assert [r["record"] for r in via_ray] == [r["record"] for r in local]
    assert tabulate(via_ray)[0].wins == tabulate(local)[0].wins
    assert not ray.is_initialized(), "the arena leaves no connection of its own open"


def test_cli_arena_on_ray(head: str, tmp_path: Path) -> None:
    from blackwhite.cli import app

    result = CliRunner().invoke(
        app,
        [
            "arena", "yellow", "--bots", "heuristic,random,random", "-n", "3",
            "--ray", head, "--out", str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "records").glob("*.json"))) == 3
    assert "win rate" in result.output
