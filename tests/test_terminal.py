"""Terminal play: a whole match typed at the prompt through a real pty (pexpect)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from blackwhite.engine import load
from blackwhite.terminal import parse_options, summarise_actions

ROOT = Path(__file__).resolve().parent.parent


def command() -> list[str]:
    """``python -m blackwhite.cli play`` (the real CLI), else the terminal module's own entry."""
    if (ROOT / "blackwhite" / "cli.py").exists():
        return [sys.executable, "-m", "blackwhite.cli", "play"]
    return [sys.executable, "-m", "blackwhite.terminal", "play"]


def spawn(args: list[str]) -> pexpect.spawn:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "300", "LINES": "60", "TERM": "xterm"}
    argv = command() + args
    return pexpect.spawn(argv[0], argv[1:], cwd=str(ROOT), env=env, encoding="utf-8", timeout=60)


LEGAL = re.compile(r"Legal: ([^\r\n]*)")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: a label the terminal prints in bold, then the text after it
STYLED = r"(?:\x1b\[[0-9;]*m)*"


def plain(text: str) -> str:
    return ANSI.sub("", text)


def first_legal(text: str) -> str:
    """The first action the prompt listed (actions are separated by ' · ')."""
    listed = LEGAL.findall(plain(text))
    assert listed, f"no legal actions listed in:\n{text}"
    return listed[-1].split(" · ")[0].split(" ... ")[0].strip()


def test_whole_swapping_match_from_the_prompt(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    child = spawn(["swapping", "--seat", "1", "--vs", "random", "--seed", "5", "--record", str(record)])
    prompts = 0
    refused = syntax = False
    while True:
        i = child.expect([r"P2> ", r"Record saved: ", pexpect.EOF])
        if i != 0:
            break
        seen = plain(child.before)
        if prompts == 0:
            # a refusal is explained with the rule, and the prompt comes back
            assert "You are P2" in seen or "you are P2" in seen
            assert "Clock:" in seen
            child.sendline("reveal 4")
            child.expect(r"Refused:" + STYLED + r" ([^\r\n]*)")
            assert "place" in child.match.group(1)
            refused = True
            child.expect(r"P2> ")
            child.sendline("dance")
            child.expect(r"Not understood:" + STYLED + r" ([^\r\n]*)")
            syntax = True
            child.expect(r"P2> ")
            seen = plain(child.before)
        child.sendline(first_legal(seen))
        prompts += 1
        assert prompts < 200, "the match does not end"
    final = plain(child.before or "")
    child.expect(pexpect.EOF)
    assert refused and syntax
    assert "Game over" in final
    assert prompts >= 12  # 3 placements, then swaps and reveals
    data = json.loads(record.read_text())
    state = load(data)  # the saved record replays
    assert state.is_over()
    assert data["seats"][1] == "You"


def test_quitting_resigns_and_still_saves(tmp_path: Path) -> None:
    record = tmp_path / "yellow.json"
    child = spawn(
        ["yellow", "--vs", "ismcts:iterations=10,random", "--seed", "2", "--record", str(record)]
    )
    child.expect(r"P1> ")
    assert "Black and Yellow" in plain(child.before)
    child.sendline(first_legal(child.before))
    child.expect(r"P1> ")
    assert "Round 1:" in plain(child.before)  # the round's announcements came through
    child.sendeof()
    child.expect(r"Record saved: ")
    child.expect(pexpect.EOF)
    data = json.loads(record.read_text())
    assert data["events"][-1] == {"seat": 0, "action": "resign"}
    assert load(data).result().finished


def test_helpers() -> None:
    assert parse_options(["dmo=1", "show_colours=true", "name=x"]) == {
        "dmo": 1,
        "show_colours": True,
        "name": "x",
    }
    with pytest.raises(ValueError):
        parse_options(["dmo"])
    assert summarise_actions(["call", "fold"]) == "call · fold"
    many = summarise_actions([f"bid {n}" for n in range(91)] + ["fold"])
    assert "91 `bid` actions" in many and "fold" in many and "help" in many
