"""``serve``'s configuration (#37 item 11): every option from a ``BLACKWHITE_*`` variable or
a TOML file as well as a flag (flag > environment > file > default), so a database
password need not be on the command line; and the password is never printed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from .client import ROOT, free_port


def _serve(args: list[str], env: dict[str, str], cwd: Path, wait: float = 60.0) -> tuple[subprocess.Popen[bytes], Path]:
    log = cwd / f"serve-{time.monotonic_ns()}.log"
    full = {k: v for k, v in os.environ.items() if not k.startswith("BLACKWHITE_")}
    full.update(env)
    full["PYTHONPATH"] = str(ROOT) + os.pathsep + full.get("PYTHONPATH", "")
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "blackwhite.cli", "serve", *args], cwd=cwd, env=full,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    return proc, log


def _up(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, log.read_text()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(timeout=30)


def test_options_come_from_the_file_the_environment_and_flags_in_that_order(tmp_path: Path) -> None:
    file_port, env_port, flag_port = free_port(), free_port(), free_port()
    config = tmp_path / "blackwhite.toml"
    config.write_text(f'db = "sqlite:///{tmp_path / "from-file.db"}"\nport = {file_port}\nrate = 0\n'
                      f'start-link-ttl = 60\n')
    proc, log = _serve(["--config", str(config)], {}, tmp_path)
    try:
        _up(file_port, proc, log)
        assert (tmp_path / "from-file.db").exists()
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        assert b"sqlite" not in cmdline  # the database URL is not on the command line (ps)
    finally:
        _stop(proc)
    proc, log = _serve([], {"BLACKWHITE_CONFIG": str(config), "BLACKWHITE_PORT": str(env_port)}, tmp_path)
    try:
        _up(env_port, proc, log)  # the environment over the file
    finally:
        _stop(proc)
    proc, log = _serve(["--port", str(flag_port)], {"BLACKWHITE_CONFIG": str(config), "BLACKWHITE_PORT": str(env_port)},
                       tmp_path)
    try:
        _up(flag_port, proc, log)  # the flag over both
    finally:
        _stop(proc)


def test_a_bad_configuration_is_one_clear_line_and_starts_nothing(tmp_path: Path) -> None:
    cases = {"missing.toml": None, "bad.toml": "port = = 1\n", "unknown.toml": "prot = 8000\n"}
    for name, text in cases.items():
        if text is not None:
            (tmp_path / name).write_text(text)
        done = subprocess.run([sys.executable, "-m", "blackwhite.cli", "serve", "--config", str(tmp_path / name)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 2, (name, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "Invalid value for '--config'" in done.stderr, done.stderr
        assert not (tmp_path / "blackwhite.db").exists()


def test_the_database_password_is_never_printed(tmp_path: Path, postgres_url: str) -> None:
    secret = "pa%40ss-w0rd!"  # percent-encoded in the URL; the server's trust auth takes any password
    with_password = postgres_url.replace("://postgres@", f"://postgres:{secret}@", 1)
    assert secret in with_password
    port = free_port()
    proc, log = _serve(["--port", str(port)], {"BLACKWHITE_DB": with_password}, tmp_path)
    try:
        _up(port, proc, log)
    finally:
        _stop(proc)
    text = log.read_text()
    assert "postgres:***@" in text and secret not in text and "pa@ss-w0rd!" not in text, text
    # an unreachable database: the error names it, without the password
    done = subprocess.run([sys.executable, "-m", "blackwhite.cli", "serve", "--port", str(free_port())],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "BLACKWHITE_DB": f"postgresql+psycopg://bw:{secret}@127.0.0.1:1/nowhere"})
    assert done.returncode == 2 and "cannot open the database" in done.stderr, done.stderr
    assert "bw:***@127.0.0.1:1" in done.stderr and secret not in done.stderr + done.stdout
    assert "pa@ss-w0rd!" not in done.stderr + done.stdout


def test_hosts_and_cluster_status_find_the_database_in_serves_file(tmp_path: Path) -> None:
    """The URL (with its password) kept in serve's file, not typed where ps shows it: the
    operator's other commands read it there too (they needed --db or BLACKWHITE_DB)."""
    import json as json_

    from typer.testing import CliRunner

    from blackwhite.cli import app as cli_app
    from blackwhite.server.store import Store, make_engine, migrate

    db = tmp_path / "kept.db"
    engine = make_engine(f"sqlite:///{db}")
    migrate(engine)
    Store(engine).new_host("h0000000000000001", "0" * 64, 1.0, "first", owner=True)
    engine.dispose()
    config = tmp_path / "blackwhite.toml"
    config.write_text(f'db = "sqlite:///{db}"\npublic_url = "https://bw.example.org"\nbot_workers = 2\n')
    runner = CliRunner()
    env = {"BLACKWHITE_CONFIG": str(config), "BLACKWHITE_DB": None}
    listed = runner.invoke(cli_app, ["hosts", "list"], env=env)  # type: ignore[arg-type]
    assert listed.exit_code == 0 and "h0000000000000001 (this server's host)" in listed.output, listed.output
    shown = runner.invoke(cli_app, ["cluster", "status", "--json"], env=env)  # type: ignore[arg-type]
    assert shown.exit_code == 0 and json_.loads(shown.output)["processes"] == [], shown.output
    # the flag and the environment still win over the file
    other = f"sqlite:///{tmp_path / 'other.db'}"
    listed = runner.invoke(cli_app, ["hosts", "list"], env={**env, "BLACKWHITE_DB": other})  # type: ignore[arg-type]
    assert listed.exit_code == 0 and "h0000000000000001" not in listed.output
    listed = runner.invoke(cli_app, ["hosts", "list", "--db", other], env=env)  # type: ignore[arg-type]
    assert listed.exit_code == 0 and "h0000000000000001" not in listed.output
    # a file that is not TOML: one line, exit 2
    config.write_text("db = [")
    bad = runner.invoke(cli_app, ["hosts", "list"], env=env)  # type: ignore[arg-type]
    assert bad.exit_code == 2 and "is not a TOML file" in bad.output
