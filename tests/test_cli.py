"""The ``blackwhite`` command as a newcomer meets it: one answer for every input to
``referee`` (exit 0 or 2, never a traceback), and the conveniences (--version,
``python -m blackwhite``, shell completion, flags shown as flags)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from blackwhite import __version__
from blackwhite.cli import app

ROOT = Path(__file__).resolve().parent.parent
SWAP = {"game": "swapping", "seats": ["Sally", "Maddie"], "events": [{"seat": 1, "action": "place 0 1 2"}]}


def run(args: list[str], data: bytes | None = None) -> tuple[int, str]:
    """The command in this process (fast); a crash fails here, not as exit 1."""
    result = CliRunner().invoke(app, args, input=data)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def referee_json(data: bytes) -> tuple[int, Any]:
    code, out = run(["referee", "-", "--json"], data)
    lines = out.strip().splitlines()
    assert len(lines) == 1, out  # exactly one JSON object, nothing else
    return code, json.loads(lines[0])


def cli_subprocess(*args: str, data: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "blackwhite", *args], input=data, capture_output=True, timeout=60,
        cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


# ---------------------------------------------------------------- files and errors


def test_latin1_and_binary_files_are_bad_records_not_crashes(tmp_path: Path) -> None:
    latin = json.dumps({**SWAP, "seats": ["Zoé", "Maddie"]}, ensure_ascii=False).encode("latin-1")
    code, out = referee_json(latin)
    assert code == 2 and out["error"]["event"] is None and "not UTF-8" in out["error"]["message"]
    code, out = referee_json(bytes(range(256)))
    assert code == 2 and "not UTF-8" in out["error"]["message"]
    code, text = run(["referee", "-"], latin)
    assert code == 2 and "not UTF-8" in text


def test_a_utf8_byte_order_mark_is_accepted() -> None:
    record = json.dumps({**SWAP, "seats": ["Zoé", "Maddie"]}, ensure_ascii=False).encode("utf-8")
    assert referee_json(b"\xef\xbb\xbf" + record) == referee_json(record)
    code, out = referee_json(b"\xef\xbb\xbf" + record)
    assert code == 0 and out["to_move"] == [0]


def test_deep_nesting_and_huge_numbers_are_bad_records() -> None:
    code, out = referee_json(b"[" * 100_000 + b"]" * 100_000)
    assert code == 2 and "nested too deeply" in out["error"]["message"]
    deep_option = {**SWAP, "options": {"dmo": json.loads("[" * 200 + "]" * 200)}}
    code, out = referee_json(json.dumps(deep_option).encode())
    assert code == 2 and "levels deep" in out["error"]["message"]
    huge = json.dumps(SWAP)[:-1] + ', "seed": ' + "9" * 5000 + "}"
    code, out = referee_json(huge.encode())
    assert code == 2 and "digits" in out["error"]["message"]
    code, out = referee_json(json.dumps({**SWAP, "seed": 10**4000}).encode())  # long but readable: fine
    assert code == 0
    code, out = referee_json(b'{"game": "swapping", "seed": NaN}')
    assert code == 2 and "NaN" in out["error"]["message"]


def test_these_fail_in_a_real_process_with_exit_2_and_no_traceback(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    for args in (["referee", str(deep), "--json"], ["referee", str(deep)], ["referee", str(tmp_path), "--json"]):
        proc = cli_subprocess(*args)
        assert proc.returncode == 2 and b"Traceback" not in proc.stderr, proc.stderr
        if "--json" in args:
            assert "error" in json.loads(proc.stdout)
    proc = cli_subprocess("referee", "-", "--json", data=b"\xff\xfe{")
    assert proc.returncode == 2 and "not UTF-8" in json.loads(proc.stdout)["error"]["message"]


def test_a_seat_given_as_text_says_it_must_be_a_number() -> None:
    code, out = referee_json(json.dumps({"game": "swapping", "events": [{"seat": "0", "action": "resign"}]}).encode())
    assert code == 2 and out["error"]["event"] == 0
    assert "'seat' must be a whole number (0..1), not \"0\"" == out["error"]["message"]
    code, out = referee_json(json.dumps({"game": "swapping", "events": [{"action": "resign"}]}).encode())
    assert "no seat number" in out["error"]["message"]


def test_the_account_names_default_seats_once() -> None:
    code, text = run(["referee", "-"], json.dumps(SWAP).encode())
    assert code == 0 and "Seats: P1 Sally, P2 Maddie" in text
    code, text = run(["referee", "-"], json.dumps({"game": "swapping"}).encode())
    assert code == 0 and "Seats: P1, P2\n" in text
    code, text = run(["referee", "-"], json.dumps({"game": "swapping", "seats": ["P1", "Maddie"]}).encode())
    assert "Seats: P1, P2 Maddie" in text


def test_names_are_printed_as_written_not_as_markup() -> None:
    record = {**SWAP, "seats": ["[bold]Ann", "[/]"], "events": [{"seat": 0, "action": "resign"}]}
    code, text = run(["referee", "-"], json.dumps(record).encode())
    assert code == 0 and "Seats: P1 [bold]Ann, P2 [/]" in text and "Winner: [/]" in text


# ---------------------------------------------------------------- conveniences


def test_version_and_python_dash_m() -> None:
    code, out = run(["--version"])
    assert code == 0 and out.strip() == f"blackwhite {__version__}"
    proc = cli_subprocess("--version")
    assert proc.returncode == 0 and proc.stdout.decode().strip() == f"blackwhite {__version__}"
    proc = cli_subprocess("referee", str(ROOT / "examples" / "swapping.json"), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["finished"] is True
    # what --install-completion installs; typer finds the shell among the process's
    # ancestors, so run it under bash (a suite started from an orphaned process has none)
    proc = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m blackwhite --show-completion; exit $?"], capture_output=True, timeout=60,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0 and b"_blackwhite_completion" in proc.stdout, proc.stderr


def test_help_offers_completion_and_shows_flags_as_flags() -> None:
    code, out = run(["--help"])
    assert code == 0 and "--install-completion" in out and "--version" in out
    code, out = run(["referee", "--help"])
    assert code == 0 and "--json" in out and "<bool>" not in out
    code, out = run(["referee", "x.json", "--json", "true"])
    assert code == 2  # a flag takes no value, as the help now shows


def test_help_texts_send_nobody_outside_the_repository() -> None:
    for args in (["--help"], ["referee", "--help"], ["play", "--help"], ["arena", "--help"], ["rules", "--help"]):
        code, out = run(args)
        assert code == 0
        for outside in ("RULES.md", "shared", "seed page"):
            assert outside not in out, (args, outside)


@pytest.mark.parametrize("spec", ["ismcts:foo=1", "ismcts:budget=abc"])
def test_bad_bot_settings_say_which_keys_the_bot_takes(spec: str) -> None:
    code, out = run(["play", "swapping", "--vs", spec])
    assert code == 2
    flat = " ".join(out.split())
    assert "it takes settings budget, iterations" in flat and "__init__" not in flat and "keyword" not in flat


def test_play_refuses_a_bad_seat_in_words() -> None:
    code, out = run(["play", "swapping", "--seat", "x"])
    assert code == 2 and "give a seat number 0..1 or P1..P2" in out


def test_referee_account_names_variant_options_only_when_set() -> None:
    """Solver-sized variants added options; a standard match's account must read as before."""
    from blackwhite.engine import game_ids, make_game

    for gid in game_ids():
        game = make_game(gid)
        shown = game.shown_options()
        assert not set(shown) & game.variant_options, gid
        assert set(shown) | game.variant_options == set(game.options), gid
    varied = make_game("joust", {"sets": 1})
    assert varied.shown_options()["sets"] == 1
