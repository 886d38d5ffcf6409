"""Terminal play: a whole match typed at the prompt through a real pty (pexpect)."""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from blackwhite.bots import Decision, RandomBot
from blackwhite.cli.options import parse_options
from blackwhite.engine import Action, load, make_game
from blackwhite.terminal import (
    TerminalMatch,
    check_record_path,
    draw_grouping,
    draw_joust,
    drawer_for,
    record_path,
    seat_bots,
    summarise_actions,
)

ROOT = Path(__file__).resolve().parent.parent


def command() -> list[str]:
    """``python -m blackwhite.cli play``: the real CLI."""
    return [sys.executable, "-m", "blackwhite.cli", "play"]


def _as_from_a_shell() -> None:
    """In the child, before it runs: Ctrl-C as a shell would give it.  A child inherits
    an ignored SIGINT, and Python then leaves it ignored: a suite started as a background
    job of a non-interactive shell (``( ... & )``) has SIGINT ignored from the start, and
    there the Ctrl-C tests waited out their timeout."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def spawn(args: list[str]) -> pexpect.spawn:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "300", "LINES": "60", "TERM": "xterm"}
    argv = command() + args
    return pexpect.spawn(argv[0], argv[1:], cwd=str(ROOT), env=env, encoding="utf-8", timeout=60,
                         preexec_fn=_as_from_a_shell)


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


def test_ctrl_d_asks_before_resigning_and_a_yes_resigns(tmp_path: Path) -> None:
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
    child.expect(r"Resign this match\? \(y/N\) ")
    child.sendline("n")  # no: the prompt comes back and nothing was played for us
    child.expect(r"P1> ")
    child.sendeof()
    child.expect(r"Resign this match\? \(y/N\) ")
    child.sendline("y")
    child.expect(r"Record saved: ")
    child.expect(pexpect.EOF)
    data = json.loads(record.read_text())
    assert data["events"][-1] == {"seat": 0, "action": "resign"}
    assert [e for e in data["events"] if e.get("seat") == 0].count({"seat": 0, "action": "resign"}) == 1
    assert load(data).result().finished


def test_ctrl_c_asks_too_and_a_second_one_stops_unfinished(tmp_path: Path) -> None:
    record = tmp_path / "swap.json"
    child = spawn(["swapping", "--vs", "random", "--seed", "3", "--record", str(record)])
    child.expect(r"P1> ")
    child.sendline("place 0 1 2")
    child.expect(r"P1> ")
    child.sendintr()
    child.expect(r"Resign this match\? \(y/N\) ")
    child.sendintr()
    child.expect(r"unfinished")
    child.expect(r"Record saved: ")
    child.expect(pexpect.EOF)
    data = json.loads(record.read_text())
    assert {"seat": 0, "action": "resign"} not in data["events"]  # nobody resigned for us
    assert not load(data).result().finished


def test_closed_input_before_any_move_saves_nothing(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*command(), "swapping", "--vs", "random", "--seed", "1"],
        input="", capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "no record saved" in proc.stdout
    assert not (tmp_path / "records").exists()
    # one move made, then the input closes: the unfinished match is kept, unresigned
    proc = subprocess.run(
        [*command(), "swapping", "--vs", "random", "--seed", "1"],
        input="place 0 1 2\n", capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    saved = list((tmp_path / "records").glob("swapping-*.json"))
    assert proc.returncode == 0 and len(saved) == 1, proc.stdout + proc.stderr
    data = json.loads(saved[0].read_text())
    assert {"seat": 0, "action": "place 0 1 2"} in data["events"]
    assert {"seat": 0, "action": "resign"} not in data["events"]


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


# ---------------------------------------------------------------- in-process: drawings, clock, help


def scripted(game_id: str, moves: int, options: dict | None = None, extra: list[str] | None = None,
             seed: int = 4) -> tuple[str, TerminalMatch]:
    """Play ``moves`` of the person's moves (the first legal action each time) against
    random bots, after typing ``extra`` at the first prompt; then close the input."""
    out = io.StringIO()
    console = Console(file=out, width=80, no_color=True, force_terminal=False, highlight=False)
    game = make_game(game_id, options or {})
    bots = seat_bots(game.num_seats, 0, ["random"])
    queue = list(extra or [])
    match: TerminalMatch

    def read(prompt: str) -> str:
        console.print(prompt)
        if queue:
            return queue.pop(0)
        if match.moves >= moves:
            raise EOFError
        state = match.state
        return state.format_action(state.legal_actions(0)[0])

    match = TerminalMatch(game, 0, bots, seed, console=console, read=read)
    match.run()
    return out.getvalue(), match


def test_the_clock_shown_is_the_one_of_the_phase_asked() -> None:
    text, _ = scripted("swapping", 4)
    clocks = re.findall(r"Clock: (\d+:\d\d) for this move", text)
    # three placements (3 min each), then the swap phase (2 min)
    assert clocks[:3] == ["3:00"] * 3 and clocks[3] == "2:00", clocks
    text, _ = scripted("grouping", 1)
    assert re.findall(r"Clock: (\d+:\d\d) for this move", text)[0] == "2:00"  # the grouping step


def test_help_lists_the_commands_as_well_as_the_moves() -> None:
    text, _ = scripted("swapping", 0, extra=["help place 0 1"])
    listed, commands = text.split("Commands:")
    assert "\nplace 0 1 2\nplace 0 1 3\n" in listed  # every legal action asked for, one a line
    assert "place 0 2 1" not in listed
    commands = commands.split("Legal:")[0]
    assert "board" in commands and "resign" in commands and "Ctrl-C" in commands


def test_help_summarises_hundreds_of_placements() -> None:
    text, match = scripted("domino", 1, extra=["go first", "help"])
    listed = text.split("Commands:")[0].rsplit("Legal:", 1)[-1]
    assert "(0,0) AR:BR" not in listed or listed.count("\n") < 40
    assert re.search(r"\d{3} legal actions, by kind:", listed), listed[-800:]
    assert "e.g. help (0,0)" in listed and listed.count("\n") < 40


def test_the_opponents_hidden_halves_at_the_end_are_not_drawn_as_ones_own() -> None:
    from blackwhite.drawing.text import domino_board
    from tests.web.boards import random_play

    state = random_play("domino", 3, 400)
    assert state.is_over()
    drawn = domino_board(state.view(0))
    board = state.view(0)["board"]
    theirs = [c["number"] for c in board.values() if c and c["hidden"] and c["seat"] == 1]
    mine = [c["number"] for c in board.values() if c and c["hidden"] and c["seat"] == 0]
    assert theirs and mine
    assert len(re.findall(r"\[\d\]", drawn)) == len(theirs) and len(re.findall(r"\(\d\)", drawn)) == len(mine)


def test_a_no_at_the_resign_question_plays_on() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, no_color=True)
    game = make_game("swapping", {})
    answers: list[object] = [KeyboardInterrupt(), "no", "place 0 1 2", EOFError(), EOFError()]

    def read(prompt: str) -> str:
        item = answers.pop(0)
        if isinstance(item, BaseException):
            raise item
        return str(item)

    match = TerminalMatch(game, 0, seat_bots(2, 0, ["random"]), 1, console=console, read=read)
    state = match.run()
    assert not answers and match.moves == 1 and match.stopped
    assert not state.is_over() and (0, ("resign",)) not in state.history
    assert match.worth_saving()


GAMES_DRAWN = [
    ("grouping", {}),
    ("grouping-final", {"items": {"0": ["peek", "order", "bonus"], "1": ["bonus", "peek"]}}),
    ("joust", {}),
    ("joust-final", {"items": {"0": ["inversion", "conceal", "equaliser"], "1": ["equaliser"]}}),
]


def rendered(renderable: object) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=200, no_color=True, force_terminal=False).print(renderable)
    return out.getvalue().rstrip("\n").split("\n")


@pytest.mark.parametrize(("game_id", "options"), GAMES_DRAWN)
def test_the_data_dump_games_are_drawn_for_people_within_one_screen(game_id: str, options: dict) -> None:
    """At every step of random matches, from both seats: at most 80 columns and few
    enough lines that the prompt, the legal actions and the clock still fit in 24;
    no raw view fields or JSON; a legend."""
    game = make_game(game_id, options)
    draw = drawer_for(game)
    for seed in range(3):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while True:
            state.play_chance(rng)
            for seat in range(2):
                lines = rendered(draw(state.view(seat)))
                assert max(len(line.rstrip()) for line in lines) <= 80, "\n".join(lines)
                assert len(lines) <= 19, "\n".join(lines)
                text = "\n".join(lines)
                for raw in ("{", '"', "None", "True", "proposal", "my_tiles", "null"):
                    assert raw not in text, (raw, text)
                assert "Tiles:" in text  # the legend
            if state.is_over():
                break
            seat = state.to_move()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_grouping_drawing_shows_groups_colours_chips_and_rounds() -> None:
    game = make_game("grouping", {})
    state = game.new_initial_state()
    state.apply_text(0, "group A=0,8 B=3,6,7 C=1,2,4,5")
    state.apply_text(1, "group A=0,1 B=2,3,4 C=5,6,7,8")
    rng = random.Random(1)
    state.play_chance(rng)
    while state.view(0)["rounds"] == [] or state.to_move() != [0] or state.view(0)["phase"] != "bet":
        seat = state.to_move()[0]
        legal = [state.format_action(a) for a in state.legal_actions(seat)]
        state.apply_text(seat, "fold" if "fold" in legal else legal[0])
        state.play_chance(rng)
    view = state.view(0)
    text = "\n".join(rendered(draw_grouping(view)))
    assert "A: 0 8   B: 3 6 7   C: 1 2 4 5" in text
    me, them = view["deals"][0]["mine"][0], view["deals"][0]["theirs"][0]
    assert f"?{me['colour'][0].upper()}" in text and f"?{them['colour'][0].upper()}" in text
    chips, bets = view["chips"], view["bets"]
    assert re.search(rf"in hand +bet +ante {view['ante']}\nyou \(P1\) +{chips[0]} +{bets[0]} +pot {sum(bets)}", text)
    assert re.search(rf"\nP2 +{chips[1]} +{bets[1]}", text)
    assert "folded" in text
    assert ">" in text.split("Deal 1")[1].split("\n")[0]  # the round being bet is marked


def test_joust_drawing_shows_lots_auction_and_where_tiles_came_from() -> None:
    game = make_game("joust", {})
    state = game.new_initial_state()
    rng = random.Random(2)
    state.play_chance(rng)
    state.apply_text(0, "bid 5")
    state.apply_text(1, "fold")
    view = state.view(0)
    text = "\n".join(rendered(draw_joust(view)))
    assert "Lots of set 1" in text and "minute" in text and "giant" in text
    won = next(t for t in view["my_tiles"])
    assert f"{won['value']}{won['colour'][0].upper()}(1.1)" in text  # your tile and where it came from
    assert f"{won['value']}{won['colour'][0].upper()} you@5" in text  # in the lots: bought by you for 5
    assert "Auction:" in text and "(2.4) bought in set 2, group 4" in text


def test_domino_drawing_lists_unused_dominoes_and_a_legend() -> None:
    game = make_game("domino", {})
    state = game.new_initial_state()
    state.play_chance(random.Random(1))
    view = state.view(0)
    text = "\n".join(rendered(drawer_for(game)(view)))
    assert "Your unused dominoes (21): (0,0) (0,1)" in text
    assert f"P2 has {view['their_unused_count']} unused" in text
    assert "(5) hidden but yours" in text and "?b/?w" in text


def test_record_paths(tmp_path: Path) -> None:
    """A folder takes a fresh file; a name is never reused; a missing folder is refused
    before the match; an unwritable place falls back so the record is not lost."""
    first = record_path(tmp_path, "swapping", 7, now=0)
    first.write_text("{}")
    second = record_path(tmp_path, "swapping", 7, now=0)
    assert first.parent == second.parent == tmp_path and first != second
    assert record_path(tmp_path / "mine.json", "swapping", 7) == tmp_path / "mine.json"
    check_record_path(tmp_path)
    check_record_path(tmp_path / "new.json")
    with pytest.raises(ValueError, match="does not exist"):
        check_record_path(tmp_path / "no" / "such.json")
    text, match = scripted("swapping", 1)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    saved = match.save(blocked / "rec.json")  # a file where a folder should be: cannot write
    assert saved is not None and saved.parent == Path(tempfile.gettempdir())
    try:
        assert load(json.loads(saved.read_text())).history == match.state.history
    finally:
        saved.unlink()


def test_play_refuses_a_record_folder_that_does_not_exist_before_playing(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*command(), "swapping", "--record", str(tmp_path / "nope" / "r.json")],
        input="", capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 2 and "does not exist" in proc.stderr and "Traceback" not in proc.stderr
    assert "P1>" not in proc.stdout


class InterruptedOnce(RandomBot):
    """A bot whose first decision is cut short by Ctrl-C."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def choose(self, decision: Decision) -> Action:
        self.calls += 1
        if self.calls == 1:
            raise KeyboardInterrupt
        return super().choose(decision)


@pytest.mark.parametrize(("answer", "resigned"), [("n", False), ("y", True)])
def test_ctrl_c_while_a_bot_thinks_asks_too(answer: str, resigned: bool) -> None:
    console = Console(file=io.StringIO(), width=80)
    game = make_game("swapping", {})
    bot = InterruptedOnce()
    script: list[object] = [answer, "place 0 1 2", EOFError(), EOFError()]

    def read(prompt: str) -> str:
        item = script.pop(0)
        if isinstance(item, BaseException):
            raise item
        return str(item)

    match = TerminalMatch(game, 0, {1: bot}, 1, console=console, read=read)
    state = match.run()
    assert ((0, ("resign",)) in state.history) == resigned
    assert state.is_over() == resigned
    if not resigned:
        # the bot thought again, the person moved, then the input closed
        assert bot.calls >= 2 and (0, ("place", 0, 1, 2)) in state.history and match.stopped


def test_play_record_given_a_folder_saves_inside_it(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*command(), "swapping", "--vs", "random", "--seed", "1", "--record", str(tmp_path)],
        input="place 0 1 2\nresign\n", capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    saved = list(tmp_path.glob("swapping-*-1.json"))
    assert len(saved) == 1 and f"Record saved: {saved[0]}" in proc.stdout.replace("\n", "")
    assert load(json.loads(saved[0].read_text())).result().finished
