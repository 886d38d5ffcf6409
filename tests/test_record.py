"""The match-record contract and the `blackwhite referee` command (RULES.md, "Match records")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from blackwhite.engine import RecordError, load, replay, to_record
from blackwhite.engine.registry import game_ids

from .conftest import EXAMPLES, example_cases

SWAP = {"format": "blackwhite-record/1", "game": "swapping", "options": {}, "seats": ["Ann", "Bo"]}


def referee(tmp_path: Path, record: object, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "r.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    return subprocess.run(
        [sys.executable, "-m", "blackwhite.cli", "referee", str(path), *args],
        capture_output=True, text=True, timeout=60,
    )


@pytest.mark.parametrize(
    "record,message",
    [
        ({**SWAP, "format": "blackwhite-record/2"}, "format"),
        ({**SWAP, "game": "chess"}, "unknown game"),
        ({**SWAP, "seats": ["Ann"]}, "2 seats"),
        ({**SWAP, "options": {"show_colours": "yes"}}, "show_colours"),
        ({**SWAP, "options": {"dmo": 2}}, "dmo"),
        ({**SWAP, "options": {"speed": 1}}, "unknown option"),
        ({**SWAP, "events": {}}, "events"),
        ([1, 2], "JSON object"),
    ],
)
def test_bad_records_are_errors_of_the_record_as_a_whole(record: object, message: str) -> None:
    with pytest.raises(RecordError, match=message) as info:
        replay(record)
    assert info.value.event is None


def test_format_and_seats_may_be_left_out() -> None:
    result = replay({"game": "swapping", "events": [{"seat": 0, "action": "place 0 1 2"}]})
    assert result.error is None and result.seats == ["P1", "P2"]
    assert result.state.to_move() == [1]


@pytest.mark.parametrize(
    "events,index,message",
    [
        ([{"seat": 0, "action": "place 0 1 2"}, {"seat": 0, "action": "place 3 4 5"}], 1, "already submitted"),
        ([{"seat": 2, "action": "place 0 1 2"}], 0, "no seat 2"),
        ([{"seat": 0, "action": "dance"}], 0, "unknown action"),
        ([{"seat": 0}], 0, "no action"),
        ([{"seat": 0, "action": "resign"}, {"seat": 1, "action": "place 0 1 2"}], 1, "over"),
        ([{"seat": 0, "action": "resign"}, {"seat": 1, "action": "resign"}], 1, "over"),
        ([{"chance": "deal", "seat": 0, "tiles": list(range(9))}], 0, "no chance event is due"),
        (["place 0 1 2"], 0, "JSON object"),
    ],
)
def test_the_first_bad_event_is_reported_and_nothing_after_it_applies(
    events: list[object], index: int, message: str
) -> None:
    good = [{"seat": 1, "action": "place 8 7 6"}]
    result = replay({**SWAP, "events": events + good})
    assert result.error is not None
    assert result.error.event == index and message in result.error.message
    assert len(result.state.history) == index


def test_timeout_only_for_an_awaited_seat() -> None:
    result = replay({**SWAP, "events": [{"seat": 0, "action": "place 0 1 2"}, {"seat": 0, "action": "timeout"}]})
    assert result.error is not None and result.error.event == 1


def test_a_resign_drops_the_partial_simultaneous_step() -> None:
    state = load({**SWAP, "events": [{"seat": 0, "action": "place 0 1 2"}, {"seat": 1, "action": "resign"}]})
    assert state.pending == {} and state.rows[0] == [-1] * 9  # type: ignore[attr-defined]
    assert state.result().winner == 0


def test_to_record_keeps_names_and_round_trips() -> None:
    state = load({**SWAP, "events": [{"seat": 0, "action": "PLACE  8,0,3"}]})
    rec = to_record(state, ["Ann", "Bo"])
    assert rec["events"] == [{"seat": 0, "action": "place 8 0 3"}]
    assert rec["seats"] == ["Ann", "Bo"]
    assert to_record(load(rec), ["Ann", "Bo"]) == rec


@pytest.mark.parametrize("record,expected", example_cases())
def test_every_shared_example_gives_its_outcome(record: dict, expected: dict) -> None:
    if record["game"] not in game_ids():
        pytest.skip(f"{record['game']} is not implemented")
    from blackwhite.engine import outcome_json

    result = replay(record)
    if "error" in expected:
        assert result.error is not None, "the illegal event was accepted"
        assert result.error.event == expected["error"]["event"], result.error.message
        assert len(result.state.history) == expected["error"]["event"], "an event after the bad one was applied"
        return
    assert result.error is None, result.error
    out = outcome_json(result.state)
    assert out["finished"] == expected["finished"] and out["winner"] == expected["winner"]
    # mid-match scores are informative, and agree too
    assert out["scores"] == expected["scores"]
    if expected["finished"]:
        assert out.get("ranking") == expected.get("ranking")
    else:
        assert out["to_move"] == expected["to_move"]


# ---------------------------------------------------------------- the command


def test_referee_json_for_a_whole_record(tmp_path: Path) -> None:
    events = [{"seat": s, "action": "resign"} for s in (1,)]
    proc = referee(tmp_path, {**SWAP, "events": events}, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"game": "swapping", "finished": True, "winner": 0, "scores": [0, 0]}


def test_referee_json_for_an_unfinished_record(tmp_path: Path) -> None:
    proc = referee(tmp_path, {**SWAP, "events": [{"seat": 1, "action": "place 0 1 2"}]}, "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {
        "game": "swapping", "finished": False, "winner": None, "scores": [0, 0], "to_move": [0]
    }


def test_referee_json_error_objects(tmp_path: Path) -> None:
    proc = referee(tmp_path, {**SWAP, "events": [{"seat": 0, "action": "place 0 0 1"}]}, "--json")
    assert proc.returncode == 2
    err = json.loads(proc.stdout)["error"]
    assert err["event"] == 0 and "different" in err["message"]
    proc = referee(tmp_path, {**SWAP, "game": "go"}, "--json")
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["event"] is None


def test_referee_explains_unreadable_files_without_a_traceback(tmp_path: Path) -> None:
    proc = referee(tmp_path, "{not json", "--json")
    assert proc.returncode == 2 and "not JSON" in json.loads(proc.stdout)["error"]["message"]
    proc = referee(tmp_path, "{not json")
    assert proc.returncode == 2 and "not JSON" in proc.stderr and "Traceback" not in proc.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "blackwhite.cli", "referee", str(tmp_path / "nope.json")],
        capture_output=True, text=True, timeout=60,
    )
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_referee_account_shows_public_and_private_notes(tmp_path: Path) -> None:
    events = [
        {"seat": 0, "action": "place 0 1 2"}, {"seat": 1, "action": "place 0 1 2"},
        {"seat": 0, "action": "place 3 4 5"}, {"seat": 1, "action": "place 3 4 5"},
        {"seat": 0, "action": "place 6 7 8"}, {"seat": 1, "action": "place 6 7 8"},
        {"seat": 0, "action": "swap 0 1"}, {"seat": 1, "action": "swap 2 3"},
        {"seat": 0, "action": "reveal 1"},
    ]
    proc = referee(tmp_path, {**SWAP, "events": events})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Play round 1: running total P1 0 - P2 0." in out
    assert "[only Ann sees] You swapped tiles 0 and 1" in out
    assert "[only Bo sees] You swapped tiles 2 and 3" in out
    assert "Ann has submitted reveal 1" in out
    assert "Not finished. Awaiting: Bo." in out


def test_rules_command_prints_each_page() -> None:
    """Every installed game's page in one process (a process each cost 3 s), and the real
    command once, for its exit code on an unknown game."""
    from typer.testing import CliRunner

    from blackwhite.cli.app import app

    for gid in game_ids():
        result = CliRunner().invoke(app, ["rules", gid])
        assert result.exit_code == 0 and len(result.stdout) > 500, (gid, result.output)
    proc = subprocess.run(
        [sys.executable, "-m", "blackwhite.cli", "rules", "chess"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2


def test_examples_found() -> None:
    """The smoke-test records ship in the repository: every built-in game has its three."""
    from blackwhite.engine.registry import provider

    assert EXAMPLES is not None
    for game in [gid for gid in game_ids() if provider(gid) == "blackwhite"]:
        for kind in ("whole", "cut", "illegal"):
            assert (EXAMPLES / f"{game}-{kind}.json").is_file(), (game, kind)
            assert (EXAMPLES / f"{game}-{kind}.expected.json").is_file(), (game, kind)


PLAYED = [
    {"seat": 0, "action": "place 0 1 2"}, {"seat": 1, "action": "place 0 1 2"},
    {"seat": 0, "action": "place 3 4 5"}, {"seat": 1, "action": "place 3 4 5"},
    {"seat": 0, "action": "place 6 7 8"}, {"seat": 1, "action": "place 6 7 8"},
]


@pytest.mark.parametrize(
    "game,options,events,message",
    [
        ("swapping", {}, [{"seat": 0, "action": "place 0 1 2"}, {"seat": 1, "action": "place 0 1 9"}], "no tile 9"),
        ("swapping", {}, PLAYED[:2] + [{"seat": 0, "action": "place 2 3 4"}], "already placed"),
        ("swapping", {}, PLAYED + [{"seat": 0, "action": "swap 3 5"}], "both tiles are white"),
        ("swapping", {}, PLAYED + [{"seat": 0, "action": "reveal 3"}], "must swap"),
        ("swapping", {}, PLAYED + [{"seat": 0, "action": "swap 0 1"}, {"seat": 1, "action": "swap 0 1"},
                                   {"seat": 0, "action": "reveal 1"}, {"seat": 1, "action": "reveal 1"},
                                   {"seat": 0, "action": "swap 2 1"}], "is revealed"),
        ("swapping", {}, PLAYED + [{"seat": 0, "action": "swap 0 1"}, {"seat": 1, "action": "swap 0 1"},
                                   {"seat": 0, "action": "reveal 1"}, {"seat": 1, "action": "reveal 1"},
                                   {"seat": 0, "action": "swap 2 3"}, {"seat": 1, "action": "swap 2 3"},
                                   {"seat": 0, "action": "reveal 1"}], "already revealed"),
        ("swapping", {}, [{"seat": 1, "action": "timeout"}, {"seat": 0, "action": "place 0 1 2"}], "over"),
        ("yellow", {}, [{"seat": 0, "action": "boost play 1"}], "needs 3 garnets"),
        ("yellow", {}, [{"seat": 0, "action": "exchange play 1"}], "yellow number above 0"),
        ("yellow", {}, [{"seat": 0, "action": "play 1"}, {"seat": 1, "action": "play 2"},
                        {"seat": 2, "action": "play 3"}, {"seat": 1, "action": "play 2"}], "not in P2's inventory"),
        ("yellow", {}, [{"seat": 0, "action": "play 1 boost"}], "last step"),
        ("yellow", {}, [{"seat": 0, "action": "play 1"}, {"seat": 0, "action": "timeout"}], "already submitted"),
    ],
)
def test_each_kind_of_illegal_event_is_refused_at_its_index(
    game: str, options: dict, events: list[dict], message: str
) -> None:
    tail = [{"seat": 1, "action": "resign"}]
    result = replay({"game": game, "options": options, "events": events + tail})
    bad = len(events) - 1
    assert result.error is not None
    assert result.error.event == bad and message in result.error.message, result.error.message
    assert len(result.state.history) == bad  # nothing at or after the bad event applied
    assert not result.state.is_over() or game == "swapping" and bad == 1


def test_state_to_record_method_and_from_record() -> None:
    from blackwhite.engine import from_record

    state = from_record({"game": "yellow", "events": [{"seat": 2, "action": "play 4"}]})
    assert state.to_record()["events"] == [{"seat": 2, "action": "play 4"}]


def test_options_are_written_back_exactly_as_given() -> None:
    rec = {"format": "blackwhite-record/1", "game": "swapping", "options": {"dmo": 0, "show_colours": False},
           "seats": ["P1", "P2"], "events": [{"seat": 0, "action": "place 0 1 2"}]}
    assert to_record(load(rec)) == rec
    rec["options"] = {}
    assert to_record(load(rec)) == rec


@pytest.mark.parametrize("record,expected", example_cases())
def test_shared_examples_round_trip_exactly(record: dict, expected: dict) -> None:
    if record["game"] not in game_ids():
        pytest.skip(f"{record['game']} is not implemented")
    if "error" in expected:
        return
    state = load(record)
    assert to_record(state, record.get("seats")) == {"format": "blackwhite-record/1", **record}


def test_shipped_examples_replay_for_every_game() -> None:
    """examples/ holds one finished record per built-in game (an outside game keeps its
    own in its package); the README's main job uses them."""
    from blackwhite.engine.registry import provider

    from .conftest import ROOT

    found = {p.stem for p in (ROOT / "examples").glob("*.json")}
    assert found <= set(game_ids())
    assert {gid for gid in game_ids() if provider(gid) == "blackwhite"} <= found
    for gid in found:
        record = json.loads((ROOT / "examples" / f"{gid}.json").read_text())
        state = load(record)
        assert state.is_over() and to_record(state) == record


def test_referee_account_draws_the_domino_board(tmp_path: Path) -> None:
    from .conftest import ROOT

    record = json.loads((ROOT / "examples" / "domino.json").read_text())
    proc = referee(tmp_path, record)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.split() == list("ABCDEFGHI") for line in lines)  # the column header
    assert sum(1 for line in lines if line.strip()[:1] in "RSTUVWXYZ" and line.startswith(" ")) >= 9
    assert "?" not in proc.stdout.split("Finished.")[0].split("A   B")[-1]  # the host sees every number


def test_parse_record_reads_utf8_with_or_without_a_bom_and_refuses_the_rest() -> None:
    from blackwhite.engine.record import MAX_DEPTH, parse_record

    text = json.dumps({**SWAP, "seats": ["Zoé", "Bo"]}, ensure_ascii=False)
    assert parse_record(text.encode()) == parse_record(b"\xef\xbb\xbf" + text.encode()) == parse_record("\ufeff" + text)
    for data, message in [
        (text.encode("latin-1"), "not UTF-8"),
        (b"{", "not JSON"),
        (b"[" * 100_000, "nested too deeply"),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "levels deep"),
        (b'{"seed": ' + b"1" * 5000 + b"}", "digits"),
        (b'{"seed": Infinity}', "Infinity"),
    ]:
        with pytest.raises(RecordError, match=message) as info:
            parse_record(data, "r.json")
        assert info.value.event is None
    assert parse_record(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None  # the limit itself is fine


def test_a_deeply_nested_record_given_as_a_value_is_refused_as_a_whole() -> None:
    nested: object = []
    for _ in range(5000):
        nested = [nested]
    with pytest.raises(RecordError, match="levels deep"):
        replay({**SWAP, "options": {"dmo": nested}})


@pytest.mark.parametrize("seat", ["0", 0.0, True, [0]])
def test_a_seat_that_is_not_a_whole_number_says_so(seat: object) -> None:
    result = replay({**SWAP, "events": [{"seat": seat, "action": "resign"}]})
    assert result.error is not None and result.error.event == 0
    assert "'seat' must be a whole number (0..1)" in result.error.message
