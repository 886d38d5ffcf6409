"""Domino Black & White (RULES.md section 2): hand-worked positions, then properties.

Positions are built through the checked path (``apply`` with notation) unless a test
says it builds a synthetic board with the trusted path to isolate one rule.
"""

from __future__ import annotations

import json
import pickle
import random
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blackwhite.bots.base import decision_for
from blackwhite.bots.heuristic import domino as heuristic
from blackwhite.bots.ismcts import ISMCTSBot
from blackwhite.engine import (
    ActionSyntaxError,
    IllegalActionError,
    load,
    make_game,
    outcome_json,
    replay,
    to_record,
)
from blackwhite.games.domino import (
    CELLS,
    DOMINO_INDEX,
    GRID,
    INDEX,
    LINES,
    NAMES,
    ON,
    POSITIONS,
    DominoState,
    flags_text,
    legal_positions,
    line_flags,
)
from blackwhite.drawing.text import DOMINO_COLS, DOMINO_ROWS, domino_board

from .conftest import EXAMPLES
from .random_play import policy_match
from .twins import Twin
from .twins.domino import TWINS


def shared_example(name: str) -> Path:
    """A smoke-test record from tests/data/records."""
    assert EXAMPLES is not None and (EXAMPLES / f"{name}.json").exists(), name
    return EXAMPLES / f"{name}.json"


def new(dmo: int = 0) -> DominoState:
    state = make_game("domino", {"dmo": dmo}).new_initial_state()
    assert isinstance(state, DominoState)
    return state


def started(*moves: str) -> DominoState:
    """P1 (the DMO) goes first, then ``moves`` alternate P1, P2, P1..."""
    state = new()
    state.apply_text(0, "go first")
    for i, text in enumerate(moves):
        state.apply_text(i % 2, text)
    return state


def refusal(state: DominoState, text: str) -> str:
    seat = state.to_move()[0]
    before = json.dumps([state.view(0), state.view(1)], sort_keys=True)
    with pytest.raises(IllegalActionError) as info:
        state.apply_text(seat, text)
    assert json.dumps([state.view(0), state.view(1)], sort_keys=True) == before  # nothing changed
    return info.value.reason


def last_met(state: DominoState) -> str:
    return state.view(0)["placements"][-1]["met"]


def cell(name: str) -> int:
    return INDEX[name]


# --------------------------------------------------------------------------- board


def test_board_shape() -> None:
    assert len(CELLS) == 63
    row = {r: [NAMES[g][0] for g in CELLS if NAMES[g][1] == r] for r in "RSTUVWXYZ"}
    assert "".join(row["R"]) == "ABCDEFGHI"
    assert all("".join(row[r]) == "BCDEFGH" for r in "STUVWXY")
    assert "".join(row["Z"]) == "CDEFG"
    for wall in ("AS", "AZ", "BZ", "HZ", "IZ", "IS"):
        assert not ON[cell(wall)]


def test_lines_per_half() -> None:
    # DV is deep inside the board: 3 horizontal, 3 vertical and 6 diagonal lines.
    bits = [b for b, *_ in LINES[cell("DV")]]
    assert (bits.count(1), bits.count(2), bits.count(4)) == (3, 3, 6)
    # AR only has the row: AR-BR-CR; its diagonal AR-BS-CT is on the board too.
    lines = {tuple(NAMES[c] for c in cs) for _, *cs in LINES[cell("AR")]}
    assert lines == {("AR", "BR", "CR"), ("AR", "BS", "CT")}


def test_empty_board_placements() -> None:
    spots = {(NAMES[POSITIONS[i].a], NAMES[POSITIONS[i].b]) for i in legal_positions(0)}
    # row Z horizontally, every lowest cell vertically, and the overhanging ends BY:CY, GY:HY
    assert spots == {
        ("CZ", "DZ"), ("DZ", "EZ"), ("EZ", "FZ"), ("FZ", "GZ"),
        ("BX", "BY"), ("CY", "CZ"), ("DY", "DZ"), ("EY", "EZ"), ("FY", "FZ"), ("GY", "GZ"), ("HX", "HY"),
        ("BY", "CY"), ("GY", "HY"),
    }


# --------------------------------------------------------------------------- refusals


def test_refused_off_the_board() -> None:
    state = started()
    assert "BZ is off the board" in refusal(state, "(1,2) BZ:CZ hide CZ")
    assert "AS is off the board" in refusal(state, "(1,2) AR:AS hide AR")


def test_refused_not_adjacent() -> None:
    state = started()
    assert "not adjacent" in refusal(state, "(1,2) CZ:EZ hide CZ")
    assert "not adjacent" in refusal(state, "(1,2) CZ:DY hide CZ")  # diagonal


def test_refused_hidden_cell_not_in_domino() -> None:
    assert "hidden cell EZ is not part of the domino" in refusal(started(), "(1,2) CZ:DZ hide EZ")


def test_refused_would_not_rest_says_where() -> None:
    state = started()
    reason = refusal(state, "(1,2) CY:DY hide CY")
    assert "would not rest" in reason and "come to rest at CZ:DZ" in reason
    reason = refusal(state, "(1,2) DT:DU hide DT")
    assert "would not rest" in reason and "come to rest at DY:DZ" in reason


def test_refused_occupied_and_domino_used() -> None:
    state = started("(1,2) CZ:DZ hide CZ")
    assert "DZ is occupied" in refusal(state, "(0,0) DZ:EZ hide DZ")
    state.apply_text(1, "(1,2) EZ:FZ hide FZ")  # P2 owns its own (1,2)
    reason = refusal(state, "(1,2) GZ:GY hide GZ")
    assert "already placed (1,2)" in reason and "(0,0)" in reason and "(1,2) " not in reason.split(":", 1)[1]


def _cavity() -> DominoState:
    """C and F columns filled at Y, Z and a roof CX:DX, EX:FX: DY, EY, DZ, EZ are sealed."""
    return started(
        "(0,1) CZ:CY hide CY",
        "(0,1) FZ:FY hide FY",
        "(0,2) CX:DX hide DX",  # rests on CY; DX overhangs
        "(0,2) EX:FX hide EX",  # rests on FY; EX overhangs
    )


def test_refused_cannot_be_reached() -> None:
    state = _cavity()
    reason = refusal(state, "(0,3) DZ:EZ hide DZ")  # it would rest (row Z) but is sealed
    assert "cannot be reached" in reason
    assert "cannot be reached" in refusal(state, "(0,3) DZ:DY hide DY")
    # above the roof the piece falls onto it, so the reason is where it would rest
    assert "come to rest at DW:EW" in refusal(state, "(0,3) DU:EU hide DU")
    state.apply_text(0, "(0,3) DW:EW hide DW")


def test_overhang_reached_by_sliding_under_it() -> None:
    state = started("(0,1) CZ:CY hide CY", "(0,2) CX:DX hide DX")
    # DX overhangs column D, so nothing drops straight into DY:DZ; a vertical piece comes
    # down column E and slides left under the overhang.
    assert state.num[cell("DX")] >= 0
    state.apply_text(0, "(1,1) DY:DZ hide DY")
    assert state.placements[-1].cell_b == cell("DZ")


def test_horizontal_slides_under_overhang() -> None:
    state = started("(0,1) CZ:CY hide CY", "(0,2) CX:DX hide DX", "(3,3) GZ:GY hide GY")
    # DZ:EZ lies under DX: reached by falling into EZ:FZ and sliding left.
    state.apply_text(1, "(1,3) DZ:EZ hide DZ")


def test_ar_needs_bs_or_cr() -> None:
    state = started("(0,0) BY:BX hide BX", "(0,0) BW:BV hide BV", "(0,1) BU:BT hide BT")
    reason = refusal(state, "(2,2) AR:BR hide AR")
    assert "AR needs BS or CR occupied" in reason
    state.apply_text(1, "(0,1) BS:CS hide CS")
    state.apply_text(0, "(2,2) AR:BR hide AR")
    assert state.placements[-1].cell_a == cell("AR")


def test_ir_condition_replaces_resting_rule() -> None:
    # Synthetic board (trusted path, to isolate rule 3): only GR:GS is down, so HR has
    # nothing under it and HS is empty; GR occupied still makes HR:IR legal.
    state = started()
    assert "IR needs HS or GR occupied" in refusal(state, "(0,1) HR:IR hide IR")
    assert "(0,1) HR:IR hide IR" not in {state.format_action(a) for a in state.legal_actions(0)}
    state.apply_fast(0, ("place", 0, 5, cell("GR"), cell("GS"), cell("GR")))
    state.spots = legal_positions(state.occ)
    state.apply_text(1, "(1,4) HR:IR hide IR")
    # and only a horizontal domino can cover IR or AR
    assert "IS is off the board" in refusal(state, "(2,4) IR:IS hide IR")


# --------------------------------------------------------------------------- scoring


@pytest.mark.parametrize(
    "moves,met,scores",
    [
        # DZ-EZ-FZ = 5 + 1 + 4 = 10 (DZ hidden by P1, FZ by P2); CZ-DZ-EZ = 6
        (["(0,5) CZ:DZ hide DZ", "(1,4) EZ:FZ hide FZ"], ["", "H"], (0, 1)),
        # CZ-CY-CX = 1+2+0 = 3 does not; CY-CX-CW = 2+0+3 = 5 runs through both new halves
        (["(1,2) CZ:CY hide CY", "(0,3) CX:CW hide CW"], ["", "V"], (0, 1)),
        (
            [
                "(1,2) CZ:DZ hide CZ",
                "(3,5) EZ:FZ hide FZ",  # DZ-EZ-FZ = 10: H
                "(0,0) CY:DY hide CY",  # nothing full through CY or DY
                "(1,4) EY:EX hide EY",  # EX-DY-CZ = 4+0+1 = 5: D; EZ-EY-EX = 8; CY-DY-EY = 1
            ],
            ["", "H", "", "D"],
            (0, 2),
        ),
        # DZ-EZ-FZ = 15: H and B (CZ-DZ-EZ = 10 is another H line; H counts once)
        (["(0,5) CZ:DZ hide CZ", "(5,5) EZ:FZ hide FZ"], ["", "HB"], (0, 2)),
        # CZ-DZ-EZ = 0 + 0 + 0 = 0: H and B
        (["(0,1) CZ:CY hide CY", "(0,0) DZ:EZ hide EZ"], ["", "HB"], (0, 2)),
    ],
    ids=["h with hidden numbers", "v on a line through both halves", "d", "b with h", "b by zero"],
)
def test_scores(moves: list[str], met: list[str], scores: tuple[int, int]) -> None:
    """Each placement (P1 going first, then alternating) meets the lines it should,
    and the points follow."""
    state = started()
    for i, (text, expected) in enumerate(zip(moves, met, strict=True)):
        state.apply_text(i % 2, text)
        assert last_met(state) == expected, text
    assert [p["met"] for p in state.view(0)["placements"]] == met
    assert state.scores() == scores


def test_line_flags_up_to_four_points() -> None:
    # Synthetic numbers around a new vertical domino EY=1, EZ=5.
    num = [-1] * GRID
    for name, n in {"CZ": 5, "DZ": 5, "EY": 1, "EZ": 5}.items():
        num[cell(name)] = n
    ey, ez = cell("EY"), cell("EZ")
    assert flags_text(line_flags(num, ey, ez)) == "HB"  # CZ-DZ-EZ = 15
    num[cell("EX")] = 4  # EX-EY-EZ = 10
    assert flags_text(line_flags(num, ey, ez)) == "HVB"
    num[cell("FX")] = 4  # FX-EY-DZ = 10
    assert flags_text(line_flags(num, ey, ez)) == "HVDB"
    num[cell("CZ")] = 0  # CZ-DZ-EZ = 10: H without B
    assert flags_text(line_flags(num, ey, ez)) == "HVD"


def test_announcement_is_public_but_sums_are_not() -> None:
    state = started("(0,5) CZ:DZ hide DZ", "(1,4) EZ:FZ hide FZ")
    log0 = state.view(0)["log"]
    assert any("met: H" in line for line in log0)
    assert not any("10" in line for line in log0)  # the sum is never told
    assert state.view(0)["placements"][1]["numbers"] == [1, None]
    assert state.view(1)["placements"][1]["numbers"] == [1, 4]
    assert state.view(1)["placements"][0]["numbers"] == [0, None]


# --------------------------------------------------------------------------- turns, end


def test_dmo_chooses_and_timeouts() -> None:
    state = new(dmo=1)
    assert state.to_move() == [1]
    refusal(state, "(1,2) CZ:DZ hide CZ")  # the choice comes first
    state.apply_text(1, "timeout")  # silence: the DMO goes first
    assert state.first == 1 and state.to_move() == [1]
    assert "already chosen" in refusal(state, "go second")
    state.apply_text(1, "(1,2) CZ:DZ hide CZ")
    state.apply_text(0, "timeout")  # a placement timeout loses
    assert state.result().finished and state.result().winner == 1

    state = new()
    state.apply_text(0, "go second")
    assert state.to_move() == [1]


def test_whole_example_ends_when_no_placement_is_left() -> None:
    rec = json.loads(shared_example("domino-whole").read_text())
    state = load(rec)
    assert isinstance(state, DominoState)
    assert state.is_over() and legal_positions(state.occ) == ()
    # the last placement covered IR (allowed as GR and HS were occupied)
    last = state.placements[-1]
    assert {NAMES[last.cell_a], NAMES[last.cell_b]} == {"HR", "IR"}
    # every hidden number is shown to both seats at the end
    for seat in (0, 1):
        assert all(c is None or c["number"] is not None for c in state.view(seat)["board"].values())
    assert all(state.legal_actions(s) == [] for s in (0, 1))
    assert "No legal placement remains" in " ".join(state.view(0)["log"])


def _random_game(seed: int, checked: bool = False) -> DominoState:
    rng = random.Random(seed)
    state = new(dmo=rng.randrange(2))
    if not checked:
        state = state.clone(track=False)  # type: ignore[assignment]
    while not state.is_over():
        seat = state.to_move()[0]
        action = rng.choice(state.legal_actions(seat))
        if checked:
            state.apply(seat, action)
        else:
            state.apply_fast(seat, action)
    return state


def test_tie_goes_to_last_placer() -> None:
    ties = 0
    for seed in range(300):
        state = _random_game(seed)
        p0, p1 = state.points
        last = state.placements[-1].seat
        assert state.winner() == (last if p0 == p1 else (0 if p0 > p1 else 1))
        ties += p0 == p1
    assert ties >= 5  # the tie rule was really exercised


# --------------------------------------------------------------------------- notation


@pytest.mark.parametrize(
    "text",
    [
        "(2,5) DZ:EZ hide EZ",
        "(5,2) EZ:DZ hide EZ",
        "(2,5) Domino, DZ:EZ, Hide (5)",
        "( 5 , 2 )  domino ,ez : dz , HIDE(5)",
        "(2,5) dz:ez hide 5",
        "(2,5)DZ:EZ hide EZ",
    ],
)
def test_notation_forms(text: str) -> None:
    state = started()
    assert state.parse(0, text) == ("place", 2, 5, cell("DZ"), cell("EZ"), cell("EZ"))
    assert state.format_action(state.parse(0, text)) == "(2,5) DZ:EZ hide EZ"


def test_notation_doubles_and_go() -> None:
    state = new()
    assert state.parse(0, "  GO   First ") == ("go", "first")
    assert state.format_action(("go", "second")) == "go second"
    assert state.parse(0, "(3,3) EZ:DZ hide EZ") == ("place", 3, 3, cell("DZ"), cell("EZ"), cell("EZ"))
    assert state.parse(0, "(3,3) Domino, DZ:EZ, Hide (DZ)")[5] == cell("DZ")


@pytest.mark.parametrize(
    "text",
    [
        "(3,3) DZ:EZ hide 3",  # a double needs the cell
        "(2,5) DZ:EZ hide 4",  # not a number of the domino
        "(2,6) DZ:EZ hide DZ",
        "(2,5) DZ:JZ hide DZ",
        "(2,5) DZ:EZ",
        "(0,4) CU:BU hide hide BU",
        "place 2 5",
        "go third",
        "",
    ],
)
def test_notation_unreadable(text: str) -> None:
    with pytest.raises(ActionSyntaxError):
        new().parse(0, text)


# --------------------------------------------------------------------------- properties


def reference_positions(occupied: set[int]) -> set[tuple[int, int]]:
    """An independent, slow model of rules 1-3: coordinates, two virtual rows above the board."""

    def free(r: int, c: int) -> bool:
        if r < 0:
            return -1 <= c <= 9  # open air above the board (one column of margin)
        return 0 <= r < 9 and 0 <= c < 9 and ON[r * 9 + c] and r * 9 + c not in occupied

    starts = [((-1, c), (-1, c + 1)) for c in range(-1, 9)] + [((-2, c), (-1, c)) for c in range(0, 9)]
    seen = set(starts)
    queue = deque(starts)
    while queue:
        p = queue.popleft()
        for dr, dc in ((1, 0), (0, -1), (0, 1)):
            q = ((p[0][0] + dr, p[0][1] + dc), (p[1][0] + dr, p[1][1] + dc))
            if q not in seen and free(*q[0]) and free(*q[1]):
                seen.add(q)
                queue.append(q)
    out = set()
    for (r1, c1), (r2, c2) in seen:
        if r1 < 0:
            continue
        a, b = r1 * 9 + c1, r2 * 9 + c2
        if a in (0, 8) or b in (0, 8):  # AR / IR
            need = (10, 2) if 0 in (a, b) else (16, 6)
            ok = need[0] in occupied or need[1] in occupied
        else:
            halves = [b] if r2 > r1 else [a, b]
            ok = any(h + 9 >= 81 or not ON[h + 9] or h + 9 in occupied for h in halves)
        if ok:
            out.add((a, b))
    return out


@settings(max_examples=150, deadline=None)
@given(st.sets(st.sampled_from(CELLS), max_size=50))
def test_legal_positions_match_reference_model(occupied: set[int]) -> None:
    occ = sum(1 << c for c in occupied)
    mine = {(POSITIONS[i].a, POSITIONS[i].b) for i in legal_positions(occ)}
    assert mine == reference_positions(occupied)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_random_games_end_listed_accepted_others_refused(seed: int) -> None:
    rng = random.Random(seed)
    state = new(dmo=rng.randrange(2))
    state.apply(state.to_move()[0], ("go", rng.choice(["first", "second"])))
    while not state.is_over():
        assert len(state.placements) <= 31
        seat = state.to_move()[0]
        legal = state.legal_actions(seat)
        assert legal and len(set(legal)) == len(legal)
        legal_set = set(legal)
        for action in rng.sample(legal, min(20, len(legal))):
            state.check(seat, action)
            assert state.parse(seat, state.format_action(action)) == action
        for _ in range(60):  # random well-formed placements: refused exactly when not listed
            a, b = sorted((rng.randrange(6), rng.randrange(6)))
            if rng.random() < 0.7:
                p = POSITIONS[rng.randrange(len(POSITIONS))]
                ca, cb = (p.a, p.b) if rng.random() < 0.5 else (p.b, p.a)
            else:
                ca, cb = rng.randrange(GRID), rng.randrange(GRID)
            if a == b and ca > cb:
                ca, cb = cb, ca
            hidden = rng.choice([ca, cb, rng.randrange(GRID)])
            action = ("place", a, b, ca, cb, hidden)
            if action in legal_set:
                state.check(seat, action)
            else:
                with pytest.raises(IllegalActionError):
                    state.check(seat, action)
        state.apply(seat, rng.choice(legal))
    # the end: nothing can be placed by anyone, and both seats still had dominoes
    assert legal_positions(state.occ) == ()
    assert all(not all(state.used[s]) for s in (0, 1))
    assert state.result().finished


def _strip(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "log"}


def _placed(rng: random.Random, stop: int) -> DominoState:
    """P1 goes first, then random placements until ``stop`` are down or the match ends."""
    state = new()
    state.apply(0, ("go", "first"))
    while not state.is_over() and len(state.placements) < stop:
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30))
def test_views_hide_the_other_seats_numbers(seed: int, stop: int) -> None:
    rng = random.Random(seed)
    state = _placed(rng, stop)
    over = state.is_over()
    for seat in (0, 1):
        view = state.view(seat)
        for k, pl in enumerate(state.placements):
            entry = view["placements"][k]
            hidden_name = NAMES[pl.hidden]
            i = entry["cells"].index(hidden_name)
            true = state.num[pl.hidden]
            if pl.seat != seat and not over:
                assert entry["numbers"][i] is None
                assert view["board"][hidden_name]["number"] is None
            else:
                assert entry["numbers"][i] == true
            assert entry["colours"][i] == ("black" if true % 2 == 0 else "white")
        # the view cannot tell the true numbers from any resampled ones
        sample = state.resample(seat, rng)
        assert _strip(sample.view(seat)) == _strip(view)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30))
def test_resample_is_consistent_and_depends_only_on_the_view(seed: int, stop: int) -> None:
    rng = random.Random(seed)
    state = _placed(rng, stop)
    seat = rng.randrange(2)
    sample = state.resample(seat, random.Random(1))
    assert isinstance(sample, DominoState)
    # consistent: same visible halves, colours, announcements; distinct dominoes per seat
    num = [-1] * GRID
    for pl, orig in zip(sample.placements, state.placements):
        num[pl.cell_a], num[pl.cell_b] = pl.num_a, pl.num_b
        assert line_flags(num, pl.cell_a, pl.cell_b) == pl.flags == orig.flags
        assert (pl.num_a - orig.num_a) % 2 == 0 and (pl.num_b - orig.num_b) % 2 == 0
        if pl.seat == seat:
            assert pl == orig
    for s in (0, 1):
        dominoes = [DOMINO_INDEX[(p.num_a, p.num_b) if p.num_a <= p.num_b else (p.num_b, p.num_a)]
                    for p in sample.placements if p.seat == s]
        assert len(set(dominoes)) == len(dominoes)
        assert [i for i, u in enumerate(sample.used[s]) if u] == sorted(dominoes)
    assert sample.num == num
    # same knowledge + same rng => the same sample, whatever the hidden truth was
    other_truth = state.resample(seat, random.Random(99))
    a = state.resample(seat, random.Random(7))
    b = other_truth.resample(seat, random.Random(7))
    assert isinstance(a, DominoState) and isinstance(b, DominoState)
    assert a.num == b.num and a.placements == b.placements


# --------------------------------------------------------------------------- records, drawing, bot


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_records_round_trip(seed: int, cut: int) -> None:
    state = _random_game(seed, checked=True)
    rec = to_record(state)
    assert to_record(load(rec)) == rec
    short = dict(rec, events=rec["events"][:cut])
    assert to_record(load(short)) == short
    assert outcome_json(load(rec))["scores"] == list(state.points)


@pytest.mark.parametrize("name", ["domino-whole", "domino-cut", "domino-illegal"])
def test_example_records(name: str) -> None:
    path = shared_example(name)
    expected = json.loads(path.with_name(f"{name}.expected.json").read_text())
    result = replay(json.loads(path.read_text()))
    if "error" in expected:
        assert result.error is not None and result.error.event == expected["error"]["event"]
        return
    assert result.error is None
    out = outcome_json(result.state)
    assert (out["finished"], out["winner"]) == (expected["finished"], expected["winner"])
    if expected["finished"] or not name.endswith("-cut"):
        assert out["scores"] == expected["scores"]


def test_draw_board() -> None:
    state = started("(0,5) CZ:DZ hide DZ", "(1,4) EZ:EY hide EY")
    mine = domino_board(state.view(0))
    theirs = domino_board(state.view(1))
    host = domino_board(state.host_view())
    z0 = [line for line in mine.splitlines() if line.startswith(" Z")][0]
    assert z0.split() == ["Z", "0", "=(5)", "1", ".", "."]  # P1 knows its hidden 5
    assert " ?w" in [line for line in theirs.splitlines() if line.startswith(" Z")][0]  # P2 sees white
    assert " ?b" in [line for line in mine.splitlines() if line.startswith(" Y")][0]  # P1 sees black
    assert "(4)" in host and "(5)" in host and "?" not in host
    assert "|" in host  # the vertical domino EY:EZ is drawn joined


def test_the_terminal_drawing_names_the_cells_as_the_rules_do() -> None:
    """``drawing.text`` may not import the rules, so it keeps its own copy of the letters."""
    from blackwhite.games.domino import COLS, ROWS, W

    assert (DOMINO_COLS, DOMINO_ROWS) == (COLS, ROWS) and len(COLS) == len(ROWS) == W


def test_heuristic_bot_plays_only_legal_actions() -> None:
    for seed in range(3):
        assert policy_match("domino", {"dmo": seed % 2}, seed)[0].is_over()


def test_hidden_numbers_are_shown_after_a_resignation_too() -> None:
    """The match has ended, whoever ended it: nothing is secret any more."""
    import random as _random

    from blackwhite.engine.play import random_step as _step

    state = make_game("domino").new_initial_state()
    rng = _random.Random(4)
    for _ in range(9):
        _step(state, rng)

    def unknown(seat: int) -> int:
        view = state.view(seat)
        from_list = sum(n is None for p in view["placements"] for n in p["numbers"])
        from_board = sum(1 for c in view["board"].values() if c is not None and c["number"] is None)
        assert from_list == from_board
        return from_list

    assert unknown(0) > 0 and unknown(1) > 0  # each seat has the other's hidden halves unseen
    state.apply(state.to_move()[0], ("resign",))
    assert unknown(0) == 0 and unknown(1) == 0


# --------------------------------------------------------------------------- secrecy twins


def _twin_prefixes(twin: Twin) -> list[tuple[DominoState, DominoState]]:
    """Both records replayed after each event: every prefix pair is a twin as well."""
    assert len(twin.a["events"]) == len(twin.b["events"])
    out = []
    for cut in range(1, len(twin.a["events"]) + 1):
        a = load(dict(twin.a, events=twin.a["events"][:cut]))
        b = load(dict(twin.b, events=twin.b["events"][:cut]))
        assert isinstance(a, DominoState) and isinstance(b, DominoState)
        out.append((a, b))
    return out


def _world_bytes(state: DominoState, seat: int, k: int) -> bytes:
    world = state.resample(seat, random.Random(k))
    world.log, world.history = [], []
    return pickle.dumps(world)


@pytest.mark.parametrize("twin", TWINS, ids=[t.name for t in TWINS])
def test_secrecy_twins_look_the_same(twin: Twin) -> None:
    """Hand-written twin records (tests/twins/domino.py) differ in a hidden number only:
    the observer's view, search key, sampled worlds and bot decisions must not."""
    seat = twin.seat
    final_a, final_b = load(twin.a), load(twin.b)
    assert isinstance(final_a, DominoState) and isinstance(final_b, DominoState)
    assert final_a.num != final_b.num  # the twins do differ, in a hidden number
    for a, b in _twin_prefixes(twin):
        assert a.view(seat) == b.view(seat)
        if seat is None:
            continue
        assert a.info_key(seat) == b.info_key(seat)
        for k in range(3):  # resampled twice from one state: no cache carries the truth
            assert _world_bytes(a, seat, k) == _world_bytes(b, seat, k)
        if seat in a.to_move():
            legal = a.legal_actions(seat)
            assert legal == b.legal_actions(seat)
            for k in range(3):
                assert heuristic.choose(a.view(seat), legal, random.Random(k)) == heuristic.choose(
                    b.view(seat), legal, random.Random(k)
                )
            bot = ISMCTSBot(iterations=40)
            assert bot.choose(decision_for(a, seat, random.Random(5))) == bot.choose(
                decision_for(b, seat, random.Random(5))
            )


def test_placements_are_listed_in_board_order_whatever_the_numbers() -> None:
    """The order of a placement's cells never depends on its numbers (a hidden one
    would show through it): board order in the note, the views and the public view."""
    for text in ("(0,1) FZ:EZ hide FZ", "(1,2) EZ:FZ hide FZ", "(2,1) FZ:EZ hide FZ"):
        state = started("(2,0) CZ:DZ hide CZ", text)
        for seat in (0, 1, None):
            assert state.view(seat)["placements"][1]["cells"] == ["EZ", "FZ"]
        public = [line for line in state.view(None)["log"] if line.startswith("P2 places")]
        assert public == ["P2 places a domino on EZ=1 FZ=?black; met: nothing (+0; P1 0 - P2 0)."]
        # the placer's own note and the record keep the move as notation
        assert state.view(1)["log"][-1] == f"You placed {state.format_action(state.parse(1, text))}."


def test_public_view_shows_colours_until_the_end() -> None:
    state = started("(0,5) CZ:DZ hide DZ", "(1,4) EZ:FZ hide FZ")
    public = state.view(None)
    assert public["seat"] is None and "my_unused" not in public
    assert public["unused_counts"] == [20, 20]
    assert [p["numbers"] for p in public["placements"]] == [[0, None], [1, None]]
    assert public["board"]["DZ"]["number"] is None and public["board"]["DZ"]["colour"] == "white"
    assert not any(line.startswith("You placed") for line in public["log"])
    state.apply_text(0, "resign")
    assert [p["numbers"] for p in state.view(None)["placements"]] == [[0, 5], [1, 4]]


def test_clones_and_worlds_carry_no_sampler_cache() -> None:
    """The sampler's plan is this state's own cache: never copied into a clone or a world."""
    state = started("(0,5) CZ:DZ hide DZ", "(1,4) EZ:FZ hide FZ")
    state.resample(0, random.Random(1))
    assert state._plan is not None
    world = state.resample(0, random.Random(2))
    assert isinstance(world, DominoState)
    assert world._plan is None and getattr(state.clone(), "_plan") is None


@pytest.mark.parametrize("text", ["(٣,5) CZ:DZ hide CZ", "(3,５) CZ:DZ hide CZ", "(3,5) CZ:DZ hide ٥"])
def test_notation_numbers_are_ascii_digits(text: str) -> None:
    state = started()
    with pytest.raises(ActionSyntaxError):
        state.apply_text(0, text)
    assert state.placements == []


def test_a_double_with_its_cells_reversed_is_refused_on_the_checked_path() -> None:
    """The parser writes a double's cells in board order; a hand-built tuple the
    other way round is not a legal action and must not reach a record."""
    from blackwhite.engine import IllegalActionError, make_game
    from blackwhite.games.domino import INDEX

    state = make_game("domino").new_initial_state()
    state.apply_text(0, "go first")
    reversed_double = ("place", 3, 3, INDEX["EZ"], INDEX["DZ"], INDEX["EZ"])
    assert reversed_double not in state.legal_actions(0)
    with pytest.raises(ValueError):  # no notation writes it: refused before the rules look
        state.apply(0, reversed_double)
    with pytest.raises(IllegalActionError, match="board order"):
        state.check(0, reversed_double)
    state.apply_text(0, "(3,3) EZ:DZ hide EZ")  # the notation in either order is fine
    assert state.to_record()["events"][-1]["action"] == "(3,3) DZ:EZ hide EZ"
