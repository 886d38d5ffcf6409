"""``blackwhite analyse``: judged from the seat's information only, planted blunders found,
the plot is a real image, bad input refused."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from blackwhite.analysis import CONFIRM, EXTEND, Analysis, Settings, analyse, chart_data, curve, mark_for
from blackwhite.engine.record import RecordError

ROOT = Path(__file__).resolve().parent.parent
FAST = Settings(worlds=3, candidates=4, search=0, seed=1)


def record(game: str, events: list[dict[str, Any]], options: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"format": "blackwhite-record/1", "game": game, "options": options or {}, "events": events}


def seat_lines(result: Analysis, seat: int) -> list[dict[str, Any]]:
    return [d.to_json() for d in result.decisions if d.seat == seat]


# ---------------------------------------------------------------- secrecy twins
# Written by hand: each pair differs only in something ``seat`` was never told.

SWAP_A = [
    {"seat": 0, "action": "place 8 0 3"},
    {"seat": 1, "action": "place 1 2 4"},  # totals after round 1: P1 1 - P2 2
    {"seat": 0, "action": "place 7 6 5"},
]
SWAP_B = [
    {"seat": 0, "action": "place 8 0 3"},
    {"seat": 1, "action": "place 2 1 4"},  # other tiles, same totals: P1 1 - P2 2
    {"seat": 0, "action": "place 7 6 5"},
]

# seat 1's groups and deal differ; its dealt tiles 8, 7, 1 (the rounds played) do not
GROUP_HEAD = [
    {"seat": 0, "action": "group A=0,7 B=4,6,8 C=1,2,3,5"},
]
GROUP_TAIL = [
    {"chance": "deal", "seat": 0, "tiles": [8, 6, 4, 0, 7, 2, 3, 1, 5]},
    {"seat": 0, "action": "go second"},
    {"seat": 1, "action": "raise 4"},
    {"seat": 0, "action": "raise 7"},
    {"seat": 1, "action": "raise 5"},
    {"seat": 0, "action": "raise 6"},
    {"seat": 1, "action": "raise 6"},
    {"seat": 0, "action": "call"},
]
GROUP_A = GROUP_HEAD + [
    {"seat": 1, "action": "group A=2,6 B=1,7,8 C=0,3,4,5"},
    {"chance": "deal", "seat": 1, "tiles": [8, 7, 1, 6, 2, 4, 3, 0, 5]},
] + GROUP_TAIL
GROUP_B = GROUP_HEAD + [
    {"seat": 1, "action": "group A=0,2 B=1,7,8 C=3,4,5,6"},
    {"chance": "deal", "seat": 1, "tiles": [8, 7, 1, 2, 0, 6, 4, 3, 5]},
] + GROUP_TAIL

# group 3 and the leftover trade tile 4 for tile 2 (both black; the colours of group 3's
# Minute, Balance and Giant stay black, white, white); only group 1 is sold here
JOUST_TAIL = [
    {"seat": 0, "action": "bid 75"},
    {"seat": 1, "action": "bid 90"},
    {"seat": 0, "action": "fold"},
    {"seat": 1, "action": "next minute"},
    {"seat": 1, "action": "bid 0"},
    {"seat": 0, "action": "bid 15"},
]
JOUST_A = [{"chance": "lots", "groups": [[1, 3, 10], [7, 8, 12], [4, 5, 13], [6, 9, 11]], "leftover": [2]}] + JOUST_TAIL
JOUST_B = [{"chance": "lots", "groups": [[1, 3, 10], [7, 8, 12], [2, 5, 13], [6, 9, 11]], "leftover": [4]}] + JOUST_TAIL

TWINS = [
    pytest.param("swapping", 0, SWAP_A, SWAP_B, id="swapping-P2-tiles"),
    pytest.param("grouping", 0, GROUP_A, GROUP_B, id="grouping-P2-groups"),
    pytest.param("joust", 0, JOUST_A, JOUST_B, id="joust-unsold-numbers"),
]


@pytest.mark.parametrize("game,seat,a,b", TWINS)
def test_twins_give_the_same_report(game: str, seat: int, a: list[Any], b: list[Any]) -> None:
    settings = Settings(worlds=3, candidates=5, search=5, seed=3)
    first = analyse(record(game, a), seat, settings)
    second = analyse(record(game, b), seat, settings)
    assert first.decisions, "the twin has decisions of the seat to judge"
    assert seat_lines(first, seat) == seat_lines(second, seat)


def test_move_counts_every_decision_of_the_seat_even_when_some_are_left_out() -> None:
    """``move`` is the seat's n-th decision in the match, not among those judged."""
    judged = analyse(record("swapping", SWAP_A), None, FAST, events={2})
    assert [(d.event, d.seat, d.move) for d in judged.decisions] == [(2, 0, 2)]


def test_worlds_for_scales_by_game_and_refuses_a_bad_base() -> None:
    """Each installed game's screening worlds are its registration's share of the base
    (``analysis={"worlds": ...}``; none: the base), never fewer than one."""
    from blackwhite.analysis import worlds_for
    from blackwhite.engine import game_ids
    from blackwhite.engine.registry import entry

    for gid in game_ids():
        share = entry(gid).analysis.get("worlds", 1.0)
        assert worlds_for(gid) == max(1, round(8 * share)), gid
        assert worlds_for(gid, 100) == max(1, round(100 * share)), gid
    assert worlds_for("nope") == 8 and worlds_for("nope", 3) == 3
    for bad in (0, -3, 2.5, True, "8"):
        with pytest.raises(ValueError, match="worlds"):
            worlds_for("swapping", bad)  # type: ignore[arg-type]


def test_twins_really_differ_for_the_other_seat() -> None:
    """The twins are not trivially equal: the hidden fact changes the full state."""
    from blackwhite.engine import load

    a, b = load(record("grouping", GROUP_A)), load(record("grouping", GROUP_B))
    assert a.view(1) != b.view(1)


# ---------------------------------------------------------------- planted blunders


@dataclass(frozen=True)
class Planted:
    game: str
    options: dict[str, Any]
    event: int  # the blunder: the last event
    events: list[dict[str, Any]]
    worlds: int = 8  # screening worlds (twice as many confirm): cheap games get more


PLANTED = [
    # domino: event 2 plays '(0,5) CW:BW hide BW'; '(0,3) CW:BW hide CW' was far better
    Planted('domino', {}, 2, [
        {"seat": 0, "action": "go second"},
        {"seat": 1, "action": "(0,2) BX:BY hide BX"},
        {"seat": 0, "action": "(0,5) CW:BW hide BW"},
    ]),
    # grouping: event 15 plays 'raise 8'; 'fold' was far better
    Planted('grouping', {}, 15, [
        {"seat": 0, "action": "group A=7,8 B=1,3,5 C=0,2,4,6"},
        {"seat": 1, "action": "group A=7,8 B=1,3,5 C=0,2,4,6"},
        {"chance": "deal", "seat": 0, "tiles": [7, 8, 3, 1, 5, 2, 4, 0, 6]},
        {"chance": "deal", "seat": 1, "tiles": [1, 5, 3, 4, 0, 6, 2, 8, 7]},
        {"seat": 0, "action": "go second"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "raise 10"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "raise 10"},
        {"seat": 0, "action": "raise 8"},
    ]),
    # grouping-final: event 45 plays 'propose ante 77' with its own tile in sight; 'propose ante 63' was far better
    Planted('grouping-final', {}, 45, [
        {"seat": 0, "action": "group A=7,8 B=1,3,5 C=0,2,4,6"},
        {"seat": 1, "action": "group A=7,8 B=1,3,5 C=0,2,4,6"},
        {"chance": "deal", "seat": 0, "tiles": [7, 8, 3, 1, 5, 2, 4, 0, 6]},
        {"chance": "deal", "seat": 1, "tiles": [1, 5, 3, 4, 0, 6, 2, 8, 7]},
        {"seat": 0, "action": "go second"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "raise 10"},
        {"seat": 1, "action": "fold"},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "raise 10"},
        {"seat": 0, "action": "fold"},
        {"seat": 0, "action": "group A=7,8 B=1,3,5 C=0,2,4,6"},
        {"seat": 1, "action": "group A=0,8 B=1,3,5 C=2,4,6,7"},
        {"chance": "deal", "seat": 0, "tiles": [1, 5, 3, 4, 0, 6, 2, 8, 7]},
        {"chance": "deal", "seat": 1, "tiles": [7, 6, 2, 4, 3, 5, 1, 8, 0]},
        {"seat": 1, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "raise 10"},
        {"seat": 1, "action": "fold"},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "raise 10"},
        {"seat": 1, "action": "fold"},
        {"seat": 0, "action": "group A=1,8 B=3,5,6 C=0,2,4,7"},
        {"seat": 1, "action": "group A=1,8 B=3,5,6 C=0,2,4,7"},
        {"chance": "deal", "seat": 0, "tiles": [3, 6, 5, 7, 0, 4, 2, 8, 1]},
        {"chance": "deal", "seat": 1, "tiles": [3, 6, 5, 8, 1, 7, 0, 2, 4]},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 1, "action": "call"},
        {"seat": 0, "action": "raise 10"},
        {"seat": 1, "action": "fold"},
        {"seat": 0, "action": "call"},
        {"seat": 0, "action": "propose ante 77"},
    ]),
]


def _from_file(game: str, worlds: int = 8) -> Planted:
    """A planted record too long to write here: tests/analysis_planted/<game>.json (its
    "note" says what the blunder is)."""
    data = json.loads((ROOT / "tests" / "analysis_planted" / f"{game}.json").read_text())
    events = data["record"]["events"]
    return Planted(game, data["record"]["options"], len(events) - 1, events, worlds)


# Heuristic mirror matches, with the blunder planted late, where it decides the match:
# swapping reveals the tile that shows the opponent how to win its last swap (a sure
# loss; 'reveal 5' wins about 45%: a 40-50 point loss, 6 points of noise at 32 worlds);
# joust and joust-final play a tile into a final joust that 'pass' wins for sure;
# yellow plays a 1 where a 7 above anything the others can play wins the match.
PLANTED += [_from_file("swapping", worlds=32), _from_file("yellow", worlds=32), _from_file("joust"),
            _from_file("joust-final")]


@pytest.mark.parametrize("planted", PLANTED, ids=[p.game for p in PLANTED])
def test_a_planted_blunder_is_found(planted: Planted) -> None:
    rec = record(planted.game, planted.events, planted.options)
    settings = Settings(worlds=planted.worlds, candidates=12, search=0, seed=2)
    result = analyse(rec, planted.events[-1]["seat"], settings, events={planted.event})
    (decision,) = result.decisions
    assert decision.action == planted.events[-1]["action"] or decision.event == planted.event
    assert decision.mark == "blunder", decision
    assert decision.loss > 20 and decision.best != decision.action


def test_marks_follow_the_thresholds() -> None:
    assert mark_for(4.9, 0.0) is None
    assert mark_for(5.1, 0.0) == "inaccuracy"
    assert mark_for(10.5, 1.0) == "mistake"
    assert mark_for(20.5, 1.0) == "blunder"
    assert mark_for(30.0, 20.0) is None  # within the noise of the paired difference


# ---------------------------------------------------------------- report, json, plot, refusals


def test_skill_and_luck_telescope_to_the_outcome() -> None:
    rec = json.loads((ROOT / "examples" / "joust.json").read_text())
    rec["events"] = rec["events"][:12]
    result = analyse(rec, None, FAST)
    for summary in result.summaries:
        mine = [d for d in result.decisions if d.seat == summary.seat]
        assert summary.decisions == len(mine)
        assert summary.start is not None
        last = mine[-1].win
        assert summary.start * 100 + summary.skill + summary.luck == pytest.approx(100 * last)
        assert summary.skill <= 1e-9
    assert not result.finished
    assert [p[0] for p in curve(result, 0)] == sorted(p[0] for p in curve(result, 0))


def test_skill_counts_only_losses_clear_of_the_noise() -> None:
    """Summing every floored noisy loss would charge noise to the seat's decisions."""
    rec = json.loads((ROOT / "examples" / "swapping.json").read_text())
    result = analyse(rec, None, Settings(worlds=2, candidates=3, search=0, seed=1))
    noisy = [d for d in result.decisions if 0 < d.loss <= 2 * d.stderr]
    assert noisy, "this record and these settings give losses within the noise"
    for summary in result.summaries:
        mine = [d for d in result.decisions if d.seat == summary.seat]
        clear = sum(d.loss for d in mine if d.loss > 2 * d.stderr)
        assert summary.skill == pytest.approx(-clear)
        assert summary.start is not None and summary.outcome is not None
        assert summary.start * 100 + summary.skill + summary.luck == pytest.approx(100 * summary.outcome)


def test_a_finished_match_ends_on_its_outcome() -> None:
    rec = json.loads((ROOT / "examples" / "swapping.json").read_text())
    result = analyse(rec, 1, Settings(worlds=2, candidates=3, search=0, seed=0))
    (summary,) = result.summaries
    assert result.finished and summary.outcome in (0.0, 1.0)
    assert curve(result, 1)[-1][1] == summary.outcome
    mine = [d for d in result.decisions if d.seat == 1]
    assert summary.start is not None
    assert 100 * summary.start + summary.skill + summary.luck == pytest.approx(100 * summary.outcome)
    assert all(d.seat == 1 for d in result.decisions)


def test_chart_data_is_json_and_follows_the_curve() -> None:
    rec = json.loads((ROOT / "examples" / "swapping.json").read_text())
    result = analyse(rec, None, Settings(worlds=2, candidates=3, search=0, seed=0))
    data = json.loads(json.dumps(chart_data(result)))
    assert data["game"] == "swapping" and data["finished"] and data["winner"] == result.winner
    for line in data["curves"]:
        seat = line["seat"]
        assert [(p["event"], p["win"]) for p in line["points"]] == curve(result, seat)
        kinds = [p["kind"] for p in line["points"]]
        assert kinds[-1] == "outcome" and kinds[:-1] == ["before", "after"] * ((len(kinds) - 1) // 2)
    marked = [d for d in result.decisions if d.mark is not None]
    assert [(m["event"], m["mark"]) for m in data["marks"]] == [(d.event, d.mark) for d in marked]


def test_the_loss_is_measured_on_fresh_worlds() -> None:
    """A chosen action that is itself among the best: the named best and the loss come
    from the confirmation worlds, so loss = best - chosen there, never negative."""
    rec = json.loads((ROOT / "examples" / "joust.json").read_text())
    rec["events"] = rec["events"][:10]
    result = analyse(rec, None, Settings(worlds=3, candidates=6, search=0, seed=4))
    for d in result.decisions:
        assert d.loss == pytest.approx(100 * (d.best_win - d.win))
        assert d.loss >= 0 and (d.loss > 0) == (d.best != d.action)
        assert d.worlds == 3 and CONFIRM * 3 <= d.confirm_worlds <= EXTEND * CONFIRM * 3
        if d.confirm_worlds > CONFIRM * 3:  # looked at harder only when the loss was doubtful
            assert d.loss > 5


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "blackwhite.cli", "analyse", *args],
        capture_output=True, text=True, cwd=ROOT, input=stdin, timeout=300,
    )


def test_cli_json_and_plot(tmp_path: Path) -> None:
    rec = json.loads((ROOT / "examples" / "joust.json").read_text())
    rec["events"] = rec["events"][:8]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    png = tmp_path / "curve.png"
    out = cli(str(path), "--json", "--worlds", "2", "--candidates", "3", "--search", "0", "--plot", str(png))
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    decisions = [x for x in lines if "summary" not in x]
    assert len(decisions) == sum(1 for e in rec["events"] if "seat" in e)
    for d in decisions:
        assert {"event", "seat", "action", "win", "best", "best_win", "loss", "mark"} <= set(d)
        assert 0 <= d["win"] <= d["best_win"] <= 1
    assert [x["summary"]["seat"] for x in lines if "summary" in x] == [0, 1]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_cli_readable_report_and_svg(tmp_path: Path) -> None:
    svg = tmp_path / "curve.svg"
    rec = json.loads((ROOT / "examples" / "swapping.json").read_text())
    rec["events"] = rec["events"][:6]
    out = cli("-", "--seat", "1", "--worlds", "2", "--candidates", "3", "--search", "0", "--plot", str(svg),
              stdin=json.dumps(rec))
    assert out.returncode == 0, out.stderr
    words = " ".join(out.stdout.split())  # rich wraps the summary at 80 columns when piped
    assert "place 2 8 3" in words and "P2" in words and "own decisions" in words
    assert "<svg" in svg.read_text()


@pytest.mark.parametrize(
    "args,stdin,needle",
    [
        (["--worlds", "0"], None, "worlds must be at least 1"),
        (["--workers", "-1"], None, "--workers must be at least 0"),
        (["--seat", "5"], None, "there is no seat 5"),
        (["--plot", "x.gif"], None, ".png or .svg"),
        ([], "[1, 2]", "JSON object"),
        ([], "{not json", "is not JSON"),
        ([], json.dumps(record("swapping", [{"seat": 0, "action": "place 1 1 1"}])), "event 0"),
    ],
)
def test_cli_refuses_bad_input(args: list[str], stdin: str | None, needle: str) -> None:
    source = "-" if stdin is not None else str(ROOT / "examples" / "swapping.json")
    out = cli(source, "--json", "--search", "0", *args, stdin=stdin)
    assert out.returncode == 2
    assert needle in json.loads(out.stdout)["error"]["message"]


def test_a_bad_record_raises_naming_the_event() -> None:
    bad = record("joust", copy.deepcopy(JOUST_A) + [{"seat": 0, "action": "bid 999"}])
    with pytest.raises(RecordError) as info:
        analyse(bad, 0, FAST)
    assert info.value.event == len(JOUST_A)


def test_the_report_counts_marks_in_words_and_names_seats_once() -> None:
    from blackwhite.cli.analyse import _count, _seat_name

    assert [_count(1, "blunder"), _count(7, "blunder"), _count(2, "inaccuracy"), _count(3, "mistake")] == [
        "1 blunder", "7 blunders", "2 inaccuracies", "3 mistakes"]
    assert [_seat_name(0, "P1"), _seat_name(1, ""), _seat_name(1, "Ann")] == ["P1", "P2", "P2 Ann"]
