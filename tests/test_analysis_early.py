"""Early stopping and worker processes in ``blackwhite analyse``: the same report from any
number of workers, a race that drops only clear losers, decided positions cut short."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from blackwhite.analysis.core import (
    EARLY_MIN, Settings, _screen, _survivors, analyse, decision_points, new_state,
)
from blackwhite.bots.heuristic import swapping as swapping_heuristic

ROOT = Path(__file__).resolve().parent.parent


def example(game: str, events: int | None = None) -> dict[str, Any]:
    rec = json.loads((ROOT / "examples" / f"{game}.json").read_text())
    if events is not None:
        rec["events"] = rec["events"][:events]
    return rec


def test_workers_give_the_same_report_as_one_process() -> None:
    rec = example("joust", 14)
    settings = Settings(worlds=4, candidates=4, search=0, seed=7)
    seen: list[tuple[int, int]] = []
    one = analyse(rec, None, settings)
    two = analyse(rec, None, settings, progress=lambda done, total: seen.append((done, total)), workers=2)
    assert [d.to_json() for d in one.decisions] == [d.to_json() for d in two.decisions]
    assert one.summaries == two.summaries
    assert seen == [(k, len(one.decisions)) for k in range(1, len(one.decisions) + 1)]


def test_workers_must_be_a_positive_whole_number() -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="workers"):
            analyse(example("joust", 4), None, Settings(worlds=2, candidates=3, search=0), workers=bad)  # type: ignore[arg-type]


def test_the_race_drops_a_clear_loser_and_keeps_a_close_one() -> None:
    leader = [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0]
    close = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0]  # 2 worlds worse, 1 better: noise
    loser = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # 6 of 8 worlds worse, never better
    assert _survivors([leader, close, loser], [0, 1, 2]) == [0, 1]
    # small differences against the spread of the values are not yet enough in 4 worlds
    assert _survivors([[0.1, 1.0, 0.0, 0.6], [0.0, 0.9, 0.0, 0.5]], [0, 1]) == [0, 1]
    assert _survivors([[1.0] * 4, [0.0] * 4], [0, 1]) == [0]


def test_early_screening_keeps_the_full_screenings_values_and_its_pick() -> None:
    """A world's rollouts do not depend on which candidates meet it: every value early
    screening keeps is the full screening's, and the pick is the same here."""
    rec = example("swapping")
    points, _, _ = decision_points(rec)
    # a choice among some tens of actions (the first swap among hundreds took 80 s)
    point = next(p for p in points if 8 < len(p.before.legal_actions(p.seat)) <= 20)
    legal = point.before.legal_actions(point.seat)
    settings = Settings(worlds=16, candidates=12, search=0, seed=3)
    full, count, alive = _screen(point, legal, replace(settings, early=False), None)
    assert count == 16 and alive == list(range(len(legal)))
    early, played, left = _screen(point, legal, settings, None)
    assert played <= 16 and left
    for a, b in zip(full, early):
        assert b == a[: len(b)]
    assert sum(len(v) for v in early) < sum(len(v) for v in full), "something was left out"
    pick = max(range(len(legal)), key=lambda i: sum(full[i]))
    assert max(left, key=lambda i: sum(early[i])) == pick


def test_a_decided_position_is_confirmed_on_a_few_worlds() -> None:
    """Once a joust is decided every rollout ends the same: screening stops at its floor
    and the confirmation at EARLY_MIN worlds, with the full analysis' figures."""
    rec = example("joust", 30)
    full = analyse(rec, 0, Settings(worlds=16, candidates=6, search=0, seed=1, early=False))
    early = analyse(rec, 0, Settings(worlds=16, candidates=6, search=0, seed=1))
    decided = [(a, b) for a, b in zip(full.decisions, early.decisions) if a.win in (0.0, 1.0) and a.win == a.best_win
               and all(c.win == a.win for c in a.candidates)]
    assert decided, "this match has decided positions"
    for a, b in decided:
        # one candidate (a single legal action) leaves the race at once; several, at half
        assert b.worlds == (8 if len(a.candidates) > 1 else EARLY_MIN) and b.confirm_worlds == EARLY_MIN
        assert (b.win, b.best_win, b.loss, b.mark) == (a.win, a.best_win, a.loss, a.mark)
    assert [d.mark for d in full.decisions] == [d.mark for d in early.decisions]


def _whole_row_swap(view: dict[str, Any], legal: list[Any], rng: random.Random) -> Any:
    """The swapping heuristic's swap as it was, valuing every candidate's whole row."""
    row = [c["tile"] for c in view["my_row"]]
    where = {t: p for p, t in enumerate(row)}
    revealed, maybe = swapping_heuristic._theirs(view)
    best: list[Any] = []
    best_value = -1e9
    for action in legal:
        _, a, b = action
        pa, pb = where[a], where[b]
        row[pa], row[pb] = b, a
        value = swapping_heuristic._row_value(row, maybe, revealed)
        row[pa], row[pb] = a, b
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif abs(value - best_value) <= 1e-9:
            best.append(action)
    return best[rng.randrange(len(best))]


def test_the_swapping_heuristics_swap_is_the_whole_row_choice() -> None:
    """The analysis' swapping rollouts value a swap by the two positions it changes; the
    choice (and the rng's use) is the old whole-row valuation's."""
    checked = 0
    for seed in range(60):
        state = new_state("swapping")
        rng = random.Random(seed)
        while not state.is_over():
            if state.is_chance():
                state.apply_chance_fast(state.sample_chance(rng))
                continue
            for mover in state.to_move():
                legal = state.legal_actions(mover)
                view = state.view(mover)
                if view["phase"] == "swap" and len(legal) > 1:
                    old = _whole_row_swap(view, legal, random.Random(checked))
                    assert swapping_heuristic._swap(view, legal, random.Random(checked)) == old
                    checked += 1
                state.apply_fast(mover, legal[rng.randrange(len(legal))])
    assert checked > 1000


def _children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_judging_workers_exit_when_the_analysing_process_is_killed() -> None:
    """``kill -9`` of the command (or the server ending a replay page's job at its
    deadline) leaves no worker judging on for nobody."""
    script = (
        "import json, sys\n"
        "from blackwhite.analysis import Settings, analyse\n"
        "rec = json.load(open(sys.argv[1]))\n"
        "analyse(rec, None, Settings(worlds=40, search=0, early=False), workers=2)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(ROOT / "examples" / "joust-final.json")], cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        while len(_children(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        kids = _children(proc.pid)
        assert len(kids) >= 2, "the workers started"
        time.sleep(1.0)  # they are judging now
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 20
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(k) for k in kids)


def test_the_domino_spot_values_are_the_best_direct_expectation() -> None:
    """The domino heuristic's spot value (the opponent's best reply, inlined products) is
    the best of the direct per-pair computation over the 36 pairs of numbers."""
    from blackwhite.bots.heuristic import domino as domino_heuristic
    from blackwhite.games.domino import POSITIONS

    from .test_domino_speed_equiv import _expected_ref, _random_board

    rng = random.Random(8)
    checked = 0
    for _ in range(30):
        num, parity = _random_board(rng)
        for p in rng.sample(POSITIONS, 15):
            if num[p.a] != -1 or num[p.b] != -1:
                continue
            value = domino_heuristic._spot_value.__wrapped__(domino_heuristic._desc(num, parity, p.a, p.b))
            direct = max(_expected_ref(num, parity, p.a, a, p.b, b) for a in range(6) for b in range(6))
            assert value == pytest.approx(max(direct, 0.0), abs=1e-12)
            checked += 1
    assert checked > 50


class _Stop(BaseException):
    """What the server's stop request raises in an analysing worker (any moment will do)."""


def _semaphores() -> int:
    """The multiprocessing semaphores alive in this process, garbage not yet collected
    included (each is registered with the resource tracker until it is freed; one still
    there when the process is killed is reported as leaked)."""
    import gc
    import multiprocessing.synchronize

    return sum(isinstance(o, multiprocessing.synchronize.SemLock) for o in gc.get_objects())


@pytest.mark.parametrize("when", ["handing out decisions", "judging"])
def test_judging_ended_early_raises_its_own_error_and_leaves_no_process_or_semaphore(
    when: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An analysis ended while its judges are handed their decisions (the second one
    refused) or while they judge (its progress callback raising): the error that ended it
    comes out, and neither a judging process nor one of the pool's semaphores is left."""
    import concurrent.futures
    import gc
    import multiprocessing

    progress = None
    if when == "handing out decisions":
        submit = concurrent.futures.ProcessPoolExecutor.submit
        handed: list[int] = []

        def refuse_the_second(self: Any, *args: Any, **kwargs: Any) -> Any:
            handed.append(1)
            if len(handed) == 2:
                raise _Stop("stopped while handing out decisions")
            return submit(self, *args, **kwargs)

        monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "submit", refuse_the_second)
    else:
        def progress(done: int, total: int) -> None:
            raise _Stop(f"stopped after {done} of {total}")

    # no garbage collection meanwhile: the semaphores must be freed as the pool is ended,
    # while the error (whose traceback holds the pool) is still being handled
    gc.disable()
    try:
        before = _semaphores()
        with pytest.raises(_Stop):
            analyse(example("joust", 14), None, Settings(worlds=2, candidates=3, search=0), progress=progress,
                    workers=2)
        after = _semaphores()
    finally:
        gc.enable()
    assert multiprocessing.active_children() == []
    assert after <= before
