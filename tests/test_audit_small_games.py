"""Independent audit of `swapping`, `domino` and `yellow` against RULES.md sections 1-3
and "Match records".

Everything here is written from RULES.md alone: the domino board, its legality (rules
1-3) and its scoring are re-derived by slow, obvious code (coordinates and sets, no bit
masks, no tables shared with the engine) and compared with the engine on a few hundred
positions reached by random play.  Yellow and swapping are replayed by small reference
simulations and compared through match records and ``outcome_json``, the referee's output.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from blackwhite.engine import (
    IllegalActionError,
    NotYourTurnError,
    RecordError,
    load,
    make_game,
    outcome_json,
    replay,
)

# =========================================================================== domino
# A reference model, from RULES.md section 2 only.

COLS = "ABCDEFGHI"
ROWS = "RSTUVWXYZ"

# (column, row), column 0..8 = A..I, row 0..8 = R..Z (R on top)
REF_BOARD: frozenset[tuple[int, int]] = frozenset(
    {(c, 0) for c in range(9)}
    | {(c, r) for r in range(1, 8) for c in range(1, 8)}
    | {(c, 8) for c in range(2, 7)}
)


def nm(cell: tuple[int, int]) -> str:
    return COLS[cell[0]] + ROWS[cell[1]]


def at(name: str) -> tuple[int, int]:
    return (COLS.index(name[0]), ROWS.index(name[1]))


AR_, IR_ = at("AR"), at("IR")
SUPPORT = {AR_: (at("BS"), at("CR")), IR_: (at("HS"), at("GR"))}
#: "the lowest cell of its column (BY, CZ..GZ, HY)", written out as the ruling lists them
LOWEST = {at(n) for n in ("BY", "CZ", "DZ", "EZ", "FZ", "GZ", "HY")}


def ref_rests(occ: set[tuple[int, int]], a: tuple[int, int], b: tuple[int, int]) -> bool:
    for special in (AR_, IR_):
        if special in (a, b):
            return any(s in occ for s in SUPPORT[special])
    for h in (a, b):
        if h in LOWEST:
            return True
        if (h[0], h[1] + 1) in occ:
            return True
    return False


def ref_reachable(occ: set[tuple[int, int]]) -> set[frozenset[tuple[int, int]]]:
    """Every two-cell spot a piece can slide to from above the board (down/left/right)."""

    def free(cell: tuple[int, int]) -> bool:
        c, r = cell
        if r < 0:  # the air above the board, a little wider than the board
            return -3 <= c <= 11
        return cell in REF_BOARD and cell not in occ

    starts: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for c in range(-3, 11):
        starts.append(((c, -1), (c + 1, -1)))  # horizontal, just above row R
    for c in range(-3, 12):
        starts.append(((c, -2), (c, -1)))  # vertical, just above row R
    seen = set(starts)
    todo = deque(starts)
    while todo:
        p, q = todo.popleft()
        for dc, dr in ((0, 1), (-1, 0), (1, 0)):
            np_, nq = (p[0] + dc, p[1] + dr), (q[0] + dc, q[1] + dr)
            if (np_, nq) not in seen and free(np_) and free(nq):
                seen.add((np_, nq))
                todo.append((np_, nq))
    return {frozenset(s) for s in seen if s[0][1] >= 0 and s[1][1] >= 0}


def ref_legal(occ: set[tuple[int, int]]) -> set[frozenset[tuple[int, int]]]:
    out = set()
    for spot in ref_reachable(occ):
        a, b = sorted(spot, key=lambda x: (x[1], x[0]))
        if ref_rests(occ, a, b):
            out.add(spot)
    return out


def ref_flags(num: dict[tuple[int, int], int], a: tuple[int, int], b: tuple[int, int]) -> str:
    """H/V/D/B met by the domino just laid on ``a``, ``b`` (``num`` includes it)."""
    met = {"H": False, "V": False, "D": False, "B": False}
    for half in (a, b):
        for kind, (dc, dr) in (("H", (1, 0)), ("V", (0, 1)), ("D", (1, 1)), ("D", (1, -1))):
            for back in range(3):
                cells = [(half[0] + (k - back) * dc, half[1] + (k - back) * dr) for k in range(3)]
                if not all(c in num for c in cells):
                    continue
                s = sum(num[c] for c in cells)
                if s in (0, 5, 10, 15):
                    met[kind] = True
                    if s in (0, 15):
                        met["B"] = True
    return "".join(k for k in "HVDB" if met[k])


def spot_names(spot: frozenset[tuple[int, int]]) -> tuple[str, str]:
    a, b = sorted(spot, key=lambda x: (x[1], x[0]))
    return (nm(a), nm(b))


def engine_spots(state: Any) -> set[tuple[str, str]]:
    return {(a, b) for a, b in state.view(0)["spots"]}


def domino_text(rng: random.Random, a: int, b: int, ca: str, cb: str, hide: str) -> str:
    """One of the notations RULES.md accepts for: ``a`` on ``ca``, ``b`` on ``cb``, hide ``hide``."""
    form = rng.randrange(4)
    if form == 0:
        return f"({a},{b}) {ca}:{cb} hide {hide}"
    if form == 1:
        return f"({b},{a}) {cb}:{ca} hide {hide}"
    if a != b:
        n = a if hide == ca else b
        if form == 2:
            return f"({a},{b}) Domino, {ca}:{cb}, Hide ({n})"
        return f"({b},{a}) Domino, {cb}:{ca}, Hide ({n})"
    return f"({a},{b}) Domino, {ca}:{cb}, Hide ({hide})"


def new_domino(dmo: int = 0) -> Any:
    return make_game("domino", {"dmo": dmo}).new_initial_state()


class RefDomino:
    """A referee's own bookkeeping of one domino game."""

    def __init__(self) -> None:
        self.occ: set[tuple[int, int]] = set()
        self.num: dict[tuple[int, int], int] = {}
        self.unused = [
            {(x, y) for x in range(6) for y in range(x, 6)},
            {(x, y) for x in range(6) for y in range(x, 6)},
        ]
        self.points = [0, 0]
        self.last: int | None = None

    def place(self, seat: int, a: int, b: int, ca: tuple[int, int], cb: tuple[int, int]) -> str:
        assert frozenset((ca, cb)) in ref_legal(self.occ)
        self.unused[seat].remove((min(a, b), max(a, b)))
        self.occ |= {ca, cb}
        self.num[ca], self.num[cb] = a, b
        met = ref_flags(self.num, ca, cb)
        self.points[seat] += len(met)
        self.last = seat
        return met


def _random_domino_game(seed: int, check_refusals: bool) -> tuple[dict[str, Any], list[Any]]:
    """Play one game by the reference model through the engine's checked path.

    Returns the record and the list of (event index, ref points, next seat) checkpoints.
    """
    rng = random.Random(seed)
    dmo = rng.randrange(2)
    go = rng.choice(["go first", "go second"])
    state = new_domino(dmo)
    events: list[dict[str, Any]] = [{"seat": dmo, "action": go}]
    state.apply_text(dmo, go)
    seat = dmo if go == "go first" else 1 - dmo
    ref = RefDomino()
    checkpoints = []
    while True:
        legal = ref_legal(ref.occ)
        assert engine_spots(state) == {spot_names(s) for s in legal}, f"seed {seed}, move {len(events)}"
        if not legal:
            break
        if check_refusals:
            # random spots the reference refuses must be refused by the engine
            for _ in range(6):
                a = (rng.randrange(-1, 10), rng.randrange(-1, 10))
                b = rng.choice([(a[0] + 1, a[1]), (a[0], a[1] + 1)])
                if frozenset((a, b)) in legal:
                    continue
                if not (0 <= a[0] < 9 and 0 <= a[1] < 9 and 0 <= b[0] < 9 and 0 <= b[1] < 9):
                    continue
                x, y = sorted(rng.choice(sorted(ref.unused[seat])))
                with pytest.raises(IllegalActionError):
                    state.apply_text(seat, f"({x},{y}) {nm(a)}:{nm(b)} hide {nm(a)}")
        spot = sorted(legal, key=lambda s: sorted(s))[rng.randrange(len(legal))]
        ca, cb = sorted(spot)
        if rng.random() < 0.5:
            ca, cb = cb, ca
        x, y = sorted(rng.choice(sorted(ref.unused[seat])))
        if rng.random() < 0.5:
            x, y = y, x
        hide = rng.choice([ca, cb])
        text = domino_text(rng, x, y, nm(ca), nm(cb), nm(hide))
        state.apply_text(seat, text)
        events.append({"seat": seat, "action": text})
        met = ref.place(seat, x, y, ca, cb)
        assert state.view(0)["placements"][-1]["met"] == met, f"seed {seed}: {text}"
        assert list(state.scores()) == ref.points
        seat = 1 - seat
        checkpoints.append((len(events), ref.points[:], seat))
    assert state.is_over()
    p0, p1 = ref.points
    want = ref.last if p0 == p1 else (0 if p0 > p1 else 1)
    res = state.result()
    assert res.finished and res.winner == want and list(res.scores) == ref.points
    record = {"game": "domino", "options": {"dmo": dmo}, "events": events}
    return record, checkpoints


@pytest.mark.parametrize("seed", range(10))
def test_domino_reference_random_games(seed: int) -> None:
    """~300 positions: legal spots, H/V/D/B met, points, end and winner agree with the
    reference; a record of the game referees to the same outcome, and every cut of it
    is unfinished with the reference's points and the right seat to move."""
    record, checkpoints = _random_domino_game(seed, check_refusals=seed < 4)
    final = outcome_json(load(record))
    assert final["finished"] is True
    rng = random.Random(seed)
    for n, pts, nxt in rng.sample(checkpoints[:-1], min(5, len(checkpoints) - 1)):
        cut = dict(record, events=record["events"][:n])
        out = outcome_json(load(cut))
        assert out == {"game": "domino", "finished": False, "winner": None, "scores": pts, "to_move": [nxt]}


def test_domino_reference_random_boards() -> None:
    """Legality and scoring on 150 random boards (not reachable by play, so every
    corner of rules 1-3 is hit), against the engine's own functions."""
    from blackwhite.games.domino import INDEX, POSITIONS, legal_positions, line_flags, flags_text, GRID

    rng = random.Random(7)
    cells = sorted(REF_BOARD)
    for _ in range(150):
        occ = set(rng.sample(cells, rng.randrange(0, 50)))
        mask = sum(1 << INDEX[nm(c)] for c in occ)
        mine = {spot_names(s) for s in ref_legal(occ)}
        theirs = {(nm_engine(POSITIONS[i].a), nm_engine(POSITIONS[i].b)) for i in legal_positions(mask)}
        assert theirs == mine
        # scoring: a random domino on a random empty adjacent pair, random numbers
        empty = [c for c in cells if c not in occ]
        pairs = [(a, b) for a in empty for b in ((a[0] + 1, a[1]), (a[0], a[1] + 1)) if b in REF_BOARD and b not in occ]
        if not pairs:
            continue
        a, b = rng.choice(pairs)
        num = {c: rng.randrange(6) for c in occ | {a, b}}
        arr = [-1] * GRID
        for c, n in num.items():
            arr[INDEX[nm(c)]] = n
        assert flags_text(line_flags(arr, INDEX[nm(a)], INDEX[nm(b)])) == ref_flags(num, a, b)


def nm_engine(g: int) -> str:
    from blackwhite.games.domino import NAMES

    return NAMES[g]


# =========================================================================== yellow
# A reference simulation from RULES.md section 3 only.


class RefYellow:
    def __init__(self, garnets: list[int], priority: list[int]) -> None:
        self.inv: list[list[int]] = [list(range(9)) for _ in range(3)]
        self.y = [0, 0, 0]
        self.pts = [0, 0, 0]
        self.garnets = garnets[:]
        self.priority = priority[:]
        self.rounds = 0
        self.champion: int | None = None

    def steps_ok(self, seat: int, steps: list[str], play: int) -> bool:
        y, g, inv = self.y[seat], self.garnets[seat], self.inv[seat][:]
        for st in steps:
            if st == "boost":
                if g < 3:
                    return False
                g, y = g - 3, (y + 1) % 9
            else:
                if y == 0:
                    return False
                inv.append(y)
                y = 0
        return play in inv

    def round(self, subs: list[tuple[list[str], int]]) -> None:
        # reveal (steps apply in order)
        plays = []
        for seat, (steps, play) in enumerate(subs):
            for st in steps:
                if st == "boost":
                    self.garnets[seat] -= 3
                    self.y[seat] = (self.y[seat] + 1) % 9
                else:
                    self.inv[seat].append(self.y[seat])
                    self.y[seat] = 0
            plays.append(play)
        # points and yellow
        order = sorted(range(3), key=lambda s: plays[s], reverse=True)
        h, m, low = (plays[s] for s in order)
        if h != m and m != low:
            self.pts[order[0]] += 1
            self.y[order[1]] = (self.y[order[1]] + h - m) % 9
            self.y[order[2]] = (self.y[order[2]] + m - low) % 9
        elif h == m and m != low:
            self.y[order[2]] = (self.y[order[2]] + m - low) % 9
        elif h != m and m == low:
            self.pts[order[0]] += 1
        # discard
        for seat, n in enumerate(plays):
            if n != 0:
                self.inv[seat].remove(n)
        # replenish
        for seat in range(3):
            if all(t == 0 for t in self.inv[seat]):
                self.inv[seat] = list(range(9))
        # end check
        self.rounds += 1
        for seat in range(3):
            if self.pts[seat] >= 9 and self.champion is None:
                self.champion = seat

    def key(self, seat: int) -> tuple[int, ...]:
        return (self.pts[seat], sum(self.inv[seat]), self.y[seat], self.garnets[seat], -self.priority.index(seat))

    def rank(self, seats: list[int]) -> list[int]:
        return sorted(seats, key=self.key, reverse=True)

    def over(self) -> bool:
        return self.champion is not None or self.rounds >= 50

    def ranking(self) -> list[int]:
        if self.champion is not None:
            return [self.champion] + self.rank([s for s in range(3) if s != self.champion])
        return self.rank([0, 1, 2])


def _random_submission(
    ref: RefYellow, seat: int, rng: random.Random, timid: bool = False
) -> tuple[list[str], int]:
    steps: list[str] = []
    y, g, inv = ref.y[seat], ref.garnets[seat], ref.inv[seat][:]
    while rng.random() < 0.5:
        if g >= 3 and rng.random() < 0.5:
            steps.append("boost")
            g, y = g - 3, (y + 1) % 9
        elif y > 0:
            steps.append("exchange")
            inv.append(y)
            y = 0
        else:
            break
    if timid and rng.random() < 0.92:
        return steps, 0  # mostly zeros: the game runs to round 50
    # favour high plays so that games also end by 9 points
    play = max(inv) if rng.random() < 0.3 else rng.choice(inv)
    return steps, play


@pytest.mark.parametrize("seed", range(12))
def test_yellow_reference_random_games(seed: int) -> None:
    rng = random.Random(1000 + seed)
    garnets = [rng.choice([0, 3, 10, 40]) for _ in range(3)]
    priority = rng.sample([0, 1, 2], 3)
    ref = RefYellow(garnets, priority)
    events: list[dict[str, Any]] = []
    cuts = []
    while not ref.over():
        subs = []
        order = rng.sample([0, 1, 2], 3)  # the order among seats does not matter
        for seat in order:
            if rng.random() < 0.05:
                events.append({"seat": seat, "action": "timeout"})
                subs.append((seat, ([], 0)))
            else:
                steps, play = _random_submission(ref, seat, rng, timid=seed % 2 == 1)
                events.append({"seat": seat, "action": " ".join(steps + [f"play {play}"])})
                subs.append((seat, (steps, play)))
            if len(subs) < 3:
                cuts.append((len(events), ref.pts[:], ref.ranking(), sorted(set(range(3)) - {s for s, _ in subs})))
        ref.round([sub for _, sub in sorted(subs)])
        cuts.append((len(events), ref.pts[:], ref.ranking(), [0, 1, 2]))
    record = {"game": "yellow", "options": {"garnets": garnets, "garnet_priority": priority}, "events": events}
    out = outcome_json(load(record))
    ranking = ref.ranking()
    assert (ref.champion is None) == (seed % 2 == 1)  # both ends are exercised
    assert out == {"game": "yellow", "finished": True, "winner": ranking[0], "scores": ref.pts, "ranking": ranking}
    for n, pts, rk, waiting in rng.sample(cuts[:-1], min(6, len(cuts) - 1)):
        cut = outcome_json(load(dict(record, events=events[:n])))
        assert cut == {
            "game": "yellow", "finished": False, "winner": None, "scores": pts, "to_move": waiting, "ranking": rk,
        }
    # resignation at a cut: the resigner is last, the better of the other two wins
    n, pts, rk, waiting = cuts[len(cuts) // 2]
    quitter = rng.randrange(3)
    res = outcome_json(load(dict(record, events=events[:n] + [{"seat": quitter, "action": "resign"}])))
    want = [s for s in rk if s != quitter] + [quitter]
    assert res == {"game": "yellow", "finished": True, "winner": want[0], "scores": pts, "ranking": want}


# =========================================================================== swapping
# A reference simulation from RULES.md section 1 only.


def _won(rows: list[list[int | None]]) -> list[int]:
    """Positions won so far, comparing positions filled on both sides."""
    w = [0, 0]
    for a, b in zip(rows[0], rows[1]):
        if a is None or b is None:
            continue
        if a > b:
            w[0] += 1
        elif b > a:
            w[1] += 1
    return w


def _swapping_record(seed: int) -> tuple[dict[str, Any], list[tuple[int, list[int], list[int]]], dict[str, Any]]:
    """A random match (some games mirrored, so ties and their replays happen).

    Returns the record, cut points (events so far, reference scores, seats awaited) and
    the reference outcome of the whole record.
    """
    rng = random.Random(2000 + seed)
    dmo = rng.randrange(2)
    events: list[dict[str, Any]] = []
    cuts: list[tuple[int, list[int], list[int]]] = []
    ties = 0
    while True:
        mirror = rng.random() < 0.6
        rows: list[list[int | None]] = [[None] * 9, [None] * 9]
        shown = [set(), set()]  # type: list[set[int]]

        def submit(acts: dict[int, str], before: list[int]) -> None:
            order = list(acts)
            rng.shuffle(order)
            for i, seat in enumerate(order):
                events.append({"seat": seat, "action": acts[seat]})
                if i < len(order) - 1:
                    cuts.append((len(events), before, sorted(set(order[i + 1:]))))

        for r in range(3):
            free = [t for t in range(9) if t not in rows[0]]
            pick0 = rng.sample(free, 3)
            free1 = [t for t in range(9) if t not in rows[1]]
            pick1 = pick0 if mirror else rng.sample(free1, 3)
            submit({0: "place " + " ".join(map(str, pick0)), 1: "place " + " ".join(map(str, pick1))}, _won(rows))
            for seat, pick in ((0, pick0), (1, pick1)):
                rows[seat][3 * r: 3 * r + 3] = pick
            cuts.append((len(events), _won(rows), [0, 1]))
        for step in range(9):
            acts: dict[int, str] = {}
            choice = None
            for seat in (0, 1):
                hidden = [t for t in rows[seat] if t is not None and t not in shown[seat]]
                blacks = [t for t in hidden if t % 2 == 0]
                whites = [t for t in hidden if t % 2 == 1]
                if blacks and whites:
                    if choice is None or not mirror:
                        choice = (rng.choice(blacks), rng.choice(whites))
                    b, w = choice
                    acts[seat] = f"swap {w} {b}" if rng.random() < 0.5 else f"swap {b} {w}"
                    row = rows[seat]
                    pb, pw = row.index(b), row.index(w)
                    row[pb], row[pw] = w, b
            if acts:
                submit(acts, cuts[-1][1])  # rows above are already swapped: score before
                cuts.append((len(events), _won(rows), [0, 1]))
            pick = None
            reveal: dict[int, str] = {}
            for seat in (0, 1):
                hidden = [t for t in rows[seat] if t not in shown[seat]]
                if pick is None or not mirror:
                    pick = rng.choice(sorted(hidden))
                reveal[seat] = f"reveal {pick}"
                shown[seat].add(pick)
            submit(reveal, _won(rows))
            swappers = [
                seat for seat in (0, 1)
                if len({t % 2 for t in rows[seat] if t not in shown[seat]}) == 2  # type: ignore[operator]
            ]
            cuts.append((len(events), _won(rows), swappers or [0, 1]))
        final = _won(rows)
        if final[0] != final[1]:
            outcome = {"game": "swapping", "finished": True, "winner": 0 if final[0] > final[1] else 1, "scores": final}
            break
        ties += 1
        if ties == 3:
            outcome = {"game": "swapping", "finished": True, "winner": dmo, "scores": final}
            break
        cuts[-1] = (len(events), [0, 0], [0, 1])  # a fresh game: nothing won yet
    cuts.pop()  # the last one is the end
    return {"game": "swapping", "options": {"dmo": dmo}, "events": events}, cuts, outcome


@pytest.mark.parametrize("seed", range(12))
def test_swapping_reference_random_matches(seed: int) -> None:
    record, cuts, outcome = _swapping_record(seed)
    assert outcome_json(load(record)) == outcome
    rng = random.Random(seed)
    for n, scores, waiting in rng.sample(cuts, min(12, len(cuts))):
        out = outcome_json(load(dict(record, events=record["events"][:n])))
        assert out == {"game": "swapping", "finished": False, "winner": None, "scores": scores, "to_move": waiting}


def test_swapping_reference_covers_ties() -> None:
    ties = sum(len(_swapping_record(seed)[0]["events"]) > 60 for seed in range(12))
    assert ties >= 3


# =========================================================================== records as a host writes them


def referee_json(record: dict[str, Any], tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """Run `blackwhite referee FILE --json` exactly as a host would."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    proc = subprocess.run(
        [sys.executable, "-c", "from blackwhite.cli import main; main()", "referee", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("prio", [[0, "a", 2], [0, None, 2], [[1], 0, 2], "012", [0, 1], [0, 1.0, 2]])
def test_yellow_bad_garnet_priority_is_a_record_error(prio: Any, tmp_path: Path) -> None:
    """RULES.md, Match records: a bad option is reported as {"error": {"event": null}},
    exit status 2 -- never a crash, whatever JSON value the host wrote."""
    record = {"game": "yellow", "options": {"garnet_priority": prio}, "events": []}
    with pytest.raises(RecordError) as info:
        replay(record)
    assert info.value.event is None and "garnet_priority" in info.value.message
    if prio == [0, "a", 2]:
        code, out = referee_json(record, tmp_path)
        assert code == 2 and out["error"]["event"] is None


@pytest.mark.parametrize(
    "game,prefix,text",
    [
        ("swapping", [], "place 1 2 ²"),
        ("swapping", [], "reveal ²"),
        ("swapping", [], "swap 8 ³"),
        ("yellow", [], "play ²"),
        ("yellow", [], "boost exchange play ¹"),
        ("domino", [{"seat": 0, "action": "go first"}], "(2,²) DZ:EZ hide EZ"),
    ],
)
def test_digit_like_characters_are_a_syntax_error_not_a_crash(game: str, prefix: list[Any], text: str) -> None:
    """RULES.md, Match records: an unreadable action is an error at its event (exit 2).
    str.isdigit() is true for superscripts, which int() cannot read: that crashed."""
    result = replay({"game": game, "events": prefix + [{"seat": 0, "action": text}]})
    assert result.error is not None and result.error.event == len(prefix)
