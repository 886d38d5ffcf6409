"""``blackwhite season``: simulate, then list, show, standings, ledger, export and import
on a database, with their errors (a clear line and a non-zero status, nothing changed)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

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
