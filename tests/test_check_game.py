"""``blackwhite check-game`` on games planted as outside packages: a small sound game
passes; a view that shows the other seat's tile, an ``apply`` that raises and an
import error are each caught with a clear message, and the other games still work.

The planted packages are written here (a dist-info with its entry point, and its
module) on a temporary ``sys.path`` entry, as pip would leave an installed package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from blackwhite.engine import conformance
from tests.plugin_games import installed, plant

ROOT = Path(__file__).resolve().parent.parent

#: a five-tile Black and White: each round the leader plays a tile face down (its
#: colour shown), the other answers (colour shown), the higher wins, numbers never told
MINI = '''
from typing import Any
from blackwhite.engine import (ActionSyntaxError, Game, GameEntry, IllegalActionError, OptionInfo, State,
                               colour, face_down, face_up)

LEAK = {leak}
RAISE = {raise_}

class Mini(Game):
    id = "{gid}"
    title = "Mini Black and White"
    num_seats = 2

    def new_initial_state(self) -> "MiniState":
        return MiniState(self)

    def max_length(self) -> int:
        return 10

class MiniState(State[Any]):
    def __init__(self, game: Mini) -> None:
        super().__init__(game)
        self.hands = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
        self.leader = 0
        self.led = None
        self.plays = []  # (leader, led, answer)
        self.wins = [0, 0]

    def _copy_state(self, new: Any) -> None:
        new.hands = [self.hands[0][:], self.hands[1][:]]
        new.plays = self.plays[:]
        new.wins = self.wins[:]

    def awaited(self):
        if self.is_terminal():
            return ()
        return (self.leader,) if self.led is None else (1 - self.leader,)

    def legal_actions(self, seat):
        return [("play", t) for t in self.hands[seat]] if seat in self.to_move() else []

    def check(self, seat, action):
        if action[1] not in self.hands[seat]:
            raise IllegalActionError("play %d" % action[1], "that tile was played")

    def parse_action(self, seat, text):
        words = text.strip().lower().split()
        if len(words) != 2 or words[0] != "play" or words[1] not in ("0", "1", "2", "3", "4"):
            raise ActionSyntaxError(text, "write play N, N from 0 to 4")
        return ("play", int(words[1]))

    def format_action(self, action):
        return "play %d" % action[1]

    def _do(self, seat, action):
        if RAISE and len(self.plays) == 1:
            raise KeyError("a bug in the second round")
        tile = action[1]
        self.hands[seat].remove(tile)
        if self.led is None:
            self.led = tile
            self.note(None, "P%d leads a %s tile." % (seat + 1, colour(tile)))
            return
        led, self.led = self.led, None
        self.plays.append((self.leader, led, tile))
        self.note(None, "P%d answers with a %s tile." % (seat + 1, colour(tile)))
        if led != tile:
            winner = self.leader if led > tile else seat
            self.wins[winner] += 1
            self.leader = winner
            self.note(None, "P%d wins the round." % (winner + 1))
        else:
            self.note(None, "A tie.")

    def is_terminal(self):
        return len(self.plays) == 5

    def scores(self):
        return tuple(self.wins)

    def winner(self):
        return None if self.wins[0] == self.wins[1] else (0 if self.wins[0] > self.wins[1] else 1)

    def timeout_action(self, seat):
        return ("play", min(self.hands[seat]))

    def _view(self, seat):
        def shown(owner, tile):
            return face_up(tile) if owner == seat or LEAK else face_down(colour(tile))
        return {{
            "my_tiles": None if seat is None else list(self.hands[seat]),
            "wins": list(self.wins),
            "rounds": [[shown(l, a), shown(1 - l, b)] for l, a, b in self.plays],
            "led": None if self.led is None else shown(self.leader, self.led),
        }}

ENTRY = GameEntry(id="{gid}", rules="{module}:Mini", rules_page="{module}:rules.md")
'''


def _plant(where: Path, gid: str, module: str, *, leak: bool = False, raise_: bool = False,
           broken: bool = False) -> None:
    source = "import no_such_module_anywhere\n" if broken else MINI.format(gid=gid, module=module, leak=leak,
                                                                           raise_=raise_)
    plant(where, module, {gid: f"{module}:ENTRY"}, {
        f"{module}/__init__.py": source,
        f"{module}/rules.md": f"# Mini ({gid})\n\nFive tiles each.\n",
    })


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    where = tmp_path_factory.mktemp("planted")
    _plant(where, "mini", "bw_mini")
    _plant(where, "mini-leak", "bw_mini_leak", leak=True)
    _plant(where, "mini-raise", "bw_mini_raise", raise_=True)
    _plant(where, "mini-import", "bw_mini_import", broken=True)
    with installed(where, ["bw_mini", "bw_mini_leak", "bw_mini_raise", "bw_mini_import"]):
        yield where


def _failures(gid: str, only: list[str] | None = None) -> dict[str, list[str]]:
    return {o.check: [f.message for f in o.failures]
            for o in conformance.run(gid, playouts=30, only=only) if o.failures}


def test_a_small_sound_outside_game_passes_every_check(planted: Path) -> None:
    assert _failures("mini") == {}


def test_a_view_showing_the_other_seats_tile_is_caught(planted: Path) -> None:
    found = _failures("mini-leak", ["told"])
    assert "told" in found
    message = found["told"][0]
    assert "differs between two matches in which it was told the same things" in message
    assert "'rounds'" in message and "leak" in message


def test_an_apply_that_raises_is_caught_naming_where(planted: Path) -> None:
    found = _failures("mini-raise", ["playouts", "records"])
    assert set(found) == {"playouts", "records"}
    assert "KeyError: 'a bug in the second round'" in found["playouts"][0]
    assert "bw_mini_raise/__init__.py" in found["playouts"][0]


def _cli(planted: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(planted), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "blackwhite", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_the_command_reports_each_kind_of_broken_game(planted: Path) -> None:
    leak = _cli(planted, "check-game", "mini-leak", "--playouts", "20", "--only", "told,playouts")
    assert leak.returncode == 1, leak.stdout + leak.stderr
    assert "FAIL  told" in leak.stdout and "ok    playouts" in leak.stdout
    assert "reproduce: blackwhite check-game mini-leak --only told --seed" in leak.stdout
    raised = _cli(planted, "check-game", "mini-raise", "--playouts", "5", "--only", "playouts")
    assert raised.returncode == 1 and "KeyError" in raised.stdout and "Traceback" not in raised.stderr
    missing = _cli(planted, "check-game", "mini-import")
    assert missing.returncode == 2
    assert "No module named 'no_such_module_anywhere'" in missing.stderr and "Traceback" not in missing.stderr
    sound = _cli(planted, "check-game", "mini", "--playouts", "20")
    assert sound.returncode == 0, sound.stdout + sound.stderr
    listed = _cli(planted, "rules")
    assert listed.returncode == 0 and "swapping" in listed.stdout and "mini-leak" in listed.stdout


def test_a_reported_seed_reproduces_the_failure(planted: Path) -> None:
    [outcome] = conformance.run("mini-leak", playouts=30, only=["told"])
    seed = outcome.failures[0].seed
    [again] = conformance.run("mini-leak", playouts=1, seed=seed, only=["told"])
    assert [f.message for f in again.failures] == [outcome.failures[0].message]
