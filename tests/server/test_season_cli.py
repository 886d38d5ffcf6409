"""``blackwhite season``: simulate, then list, show, standings, ledger, export and import
on a database, with their errors (a clear line and a non-zero status, nothing changed)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from blackwhite.cli.app import app
from blackwhite.server.season_ledger import replay
from blackwhite.server.service_seasons import standings_rows


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_simulate_export_import_and_read_back(tmp_path: Path) -> None:
    out = tmp_path / "season.json"
    code, _stdout, stderr = run("season", "simulate", "--players", "4", "--seed", "5", "--out", str(out),
                                "--short", "--iterations", "3")
    assert code == 0, stderr
    assert "champion" in stderr and "death match" in stderr  # progress lines
    export = json.loads(out.read_text())
    assert standings_rows(replay(export["ledger"])) == export["standings"]
    db = f"sqlite:///{tmp_path / 'other.db'}"
    code, stdout, stderr = run("season", "import", str(out), "--db", db)
    assert code == 0, stderr
    season = stdout.split()[3]
    code, stdout, _ = run("season", "list", "--db", db)
    assert code == 0 and season in stdout
    code, stdout, _ = run("season", "standings", season, "--csv", "--db", db)
    rows = list(csv.DictReader(io.StringIO(stdout)))
    assert [int(r["place"]) for r in rows] == [r["place"] for r in export["standings"]]
    assert [r["player"] for r in rows] == [r["player"] for r in export["standings"]]
    code, stdout, _ = run("season", "show", season, "--db", db)
    assert code == 0 and "over" in stdout and "champion" in stdout
    code, stdout, _ = run("season", "ledger", season, "--db", db)
    assert [json.loads(line)["kind"] for line in stdout.splitlines()] == [e["kind"] for e in export["ledger"]]
    again = tmp_path / "again.json"
    code, _, stderr = run("season", "export", season, "--out", str(again), "--db", db)
    assert code == 0, stderr
    assert json.loads(again.read_text())["standings"] == export["standings"]


def test_errors_are_one_line_and_change_nothing(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    code, _, stderr = run("season", "show", "nope", "--db", db)
    assert code == 1 and "unknown_season" in stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "blackwhite-season/1", "ledger": [{"seq": 1, "kind": "award"}]}')
    code, _, stderr = run("season", "import", str(bad), "--db", db)
    assert code == 1 and "bad_import" in stderr
    bad.write_text("not json")
    code, _, stderr = run("season", "import", str(bad), "--db", db)
    assert code == 1 and "cannot read" in stderr
    code, stdout, _ = run("season", "list", "--db", db)
    assert code == 0 and stdout == ""
    code, _, stderr = run("season", "simulate", "--seed", "1", "--out", str(tmp_path / "no" / "x.json"))
    assert code == 1 and "cannot write" in stderr
    code, _, _ = run("season", "simulate", "--seed", "1", "--players", "2", "--out", str(tmp_path / "x.json"))
    assert code == 2


def test_a_hosts_season_through_the_commands(tmp_path: Path) -> None:
    """create, main, opponent, death, final-game, draft, final and status against a running
    server, every step through its API, with refusals as one line."""
    from blackwhite.server.service import MatchService

    from .client import ThreadServer

    with ThreadServer(f"sqlite:///{tmp_path / 'serve.db'}", bot_workers=0, rate_limit=False) as server:
        svc: MatchService = server.server.config.app.state.service  # type: ignore[attr-defined]
        at = ["--server", server.base_url, "--token", svc.owner_login("test")]
        code, stdout, stderr = run("season", "create", "Winter", "--cast", "Ann, Bo, Cy", "--garnets", "4",
                                   "--rule", "transfers=host", *at)
        assert code == 0, stderr
        season = stdout.split()[1].rstrip(":")
        assert "round 1, main" in stdout and "c01: Ann" in stdout
        code, _, stderr = run("season", "main", season, "--winner", "c01", "--candidate", "c01", *at)
        assert code == 1 and "token_holder" in stderr, (code, stderr)
        code, stdout, stderr = run("season", "main", season, "--winner", "c01", "--candidate", "c02",
                                   "--garnets", "c01=3", *at)
        assert code == 0 and "may choose: c03" in stdout, stdout + stderr
        code, stdout, stderr = run("season", "opponent", season, "c03", *at)
        assert code == 0 and "death" in stdout, stderr
        code, _, stderr = run("season", "death", season, *at)
        assert code == 2 and "--winner" in stderr
        code, stdout, stderr = run("season", "death", season, "--winner", "c03", *at)
        assert code == 0 and "draft" in stdout, stderr
        code, stdout, stderr = run("season", "final-game", season, "joust-final", *at)
        assert code == 0 and "items left: inversion, equaliser, conceal" in stdout, stdout + stderr
        code, _, stderr = run("season", "draft", season, "conceal", "--for", "c01", *at)
        assert code == 1 and "not_your_turn" in stderr  # c03 holds 8 garnets (c02's came), c01 7: c03 first
        code, _, stderr = run("season", "draft", season, "conceal", "--for", "c03", *at)
        assert code == 0, stderr
        code, _, stderr = run("season", "draft", season, "inversion", "equaliser", "--for", "c01", *at)
        assert code == 0, stderr
        code, stdout, stderr = run("season", "final", season, "--winner", "c03", *at)
        assert code == 0 and "over" in stdout and "champion c03" in stdout, stderr
        code, stdout, _ = run("season", "status", season, *at)
        lines = stdout.splitlines()
        assert lines[2].split()[:2] == ["1", "c03"] and lines[3].split()[:2] == ["2", "c01"]
        code, _, stderr = run("season", "status", season, "--server", server.base_url, "--token", "nope")
        assert code == 1 and "wrong_token" in stderr


def test_no_id_the_server_makes_reads_as_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """One id in 64 began with '-' and the season commands took it for an option (CI saw
    'No such option: -2' from `season main ID`)."""
    import secrets

    from blackwhite.server import service

    drawn = iter(["-2bcdefghijk", "--cdefghijk", "abcdefghijk-"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert service.fresh_id() == "abcdefghijk-"
