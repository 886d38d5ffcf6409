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


# =========================================================================== hand-written records, rule by rule


def run(game: str, events: list[Any], **options: Any) -> dict[str, Any]:
    """The referee's verdict on a hand-written record (error or outcome)."""
    result = replay({"game": game, "options": options, "events": events})
    if result.error is not None:
        return {"error": {"event": result.error.event, "message": result.error.message}}
    return outcome_json(result.state)


def ev(seat: int, action: str) -> dict[str, Any]:
    return {"seat": seat, "action": action}


# ----------------------------------------------------------------- domino


def test_domino_board_is_exactly_the_ruling_shape() -> None:
    from blackwhite.games.domino import INDEX, ON

    for c in range(9):
        for r in range(9):
            assert ON[INDEX[nm((c, r))]] == ((c, r) in REF_BOARD), nm((c, r))
    assert len(REF_BOARD) == 63
    # a wall named in a record is refused as off the board
    for wall in ("BZ", "HZ", "AS", "IS"):
        out = run("domino", [ev(0, "go first"), ev(0, f"(1,2) {wall}:{wall[0]}Y hide {wall[0]}Y")])
        assert out["error"]["event"] == 1 and "off the board" in out["error"]["message"]


def test_domino_rests_looking_at_the_board_before_the_placement() -> None:
    go = [ev(0, "go first")]
    # the upper half of a vertical domino never rests on its own lower half
    out = run("domino", go + [ev(0, "(1,2) DX:DY hide DX")])
    assert "would not rest" in out["error"]["message"] and "DY:DZ" in out["error"]["message"]
    # BY and HY are the lowest cells of their columns: a horizontal domino rests on them
    assert run("domino", go + [ev(0, "(1,2) BY:CY hide BY")])["finished"] is False
    assert run("domino", go + [ev(0, "(1,2) HY:GY hide HY")])["finished"] is False
    # CY:DY has nothing under it on an empty board; after CZ:DZ it rests
    assert "come to rest at CZ:DZ" in run("domino", go + [ev(0, "(1,2) CY:DY hide CY")])["error"]["message"]
    assert "error" not in run("domino", go + [ev(0, "(1,2) CZ:DZ hide CZ"), ev(1, "(1,2) CY:DY hide CY")])
    # one supported half is enough (DY over DZ, EY over nothing)
    assert "error" not in run("domino", go + [ev(0, "(1,2) CZ:DZ hide CZ"), ev(1, "(1,2) DY:EY hide DY")])


def test_domino_slides_under_an_overhang_but_not_into_a_sealed_pocket() -> None:
    base = [
        ev(0, "go first"),
        ev(0, "(0,1) CZ:CY hide CY"),
        ev(1, "(0,1) FZ:FY hide FY"),
        ev(0, "(0,2) CX:DX hide DX"),  # DX overhangs column D
    ]
    # DY:DZ lies under DX: a vertical piece drops down column E and slides left under it
    assert "error" not in run("domino", base + [ev(1, "(1,1) DY:DZ hide DY")])
    sealed = base + [ev(1, "(0,2) EX:FX hide EX")]  # now D/E at Y,Z are roofed over
    out = run("domino", sealed + [ev(0, "(0,3) DZ:EZ hide DZ")])
    assert "cannot be reached" in out["error"]["message"] and out["error"]["event"] == 5


def test_domino_corner_cells_replace_rule_1() -> None:
    from blackwhite.games.domino import INDEX, POSITIONS, legal_positions

    def legal(names: set[str]) -> set[tuple[str, str]]:
        mask = sum(1 << INDEX[n] for n in names)
        return {(nm_engine(POSITIONS[i].a), nm_engine(POSITIONS[i].b)) for i in legal_positions(mask)}

    column_b = {f"B{r}" for r in "STUVWXY"}
    column_c = {f"C{r}" for r in "RSTUVWXYZ"}
    column_g = {f"G{r}" for r in "RSTUVWXYZ"}
    column_h = {f"H{r}" for r in "STUVWXY"}
    assert ("AR", "BR") in legal(column_b)  # BS occupied
    assert ("AR", "BR") in legal(column_c)  # CR occupied, BR has nothing under it
    assert ("AR", "BR") not in legal(column_b - {"BS", "BT"})  # neither BS nor CR
    assert ("HR", "IR") in legal(column_h) and ("HR", "IR") in legal(column_g)
    assert ("HR", "IR") not in legal(column_h - {"HS"})
    # rule 2 still holds: with BR occupied AR is unreachable ... and covered by nothing
    assert not any("AR" in spot for spot in legal(column_b | {"BR", "CR"}))


def test_domino_scoring_hidden_numbers_both_halves_and_b() -> None:
    go = [ev(0, "go first")]
    # DZ-EZ-FZ = 5 + 0 + 5 = 10 with both 5s hidden: H; CZ-DZ-EZ = 1 + 5 + 0 = 6
    out = run("domino", go + [ev(0, "(1,5) CZ:DZ hide DZ"), ev(1, "(0,5) EZ:FZ hide FZ")])
    assert out["scores"] == [0, 1]
    # a vertical line through both halves summing to 15: V and B
    out = run("domino", go + [ev(0, "(5,5) CZ:CY hide CY"), ev(1, "(5,4) CX:CW hide CX")])
    assert out["scores"] == [0, 2]
    # 0 + 0 + 0 = 0 scores and gives B; H counts once for two scoring lines
    out = run("domino", go + [ev(0, "(0,0) CZ:DZ hide CZ"), ev(1, "(0,0) EZ:FZ hide EZ")])
    assert out["scores"] == [0, 2]


def test_domino_dmo_choice_timeouts_and_turns() -> None:
    assert run("domino", [ev(1, "timeout")], dmo=1)["to_move"] == [1]  # DMO silent: goes first
    assert run("domino", [ev(1, "go second")], dmo=1)["to_move"] == [0]
    assert run("domino", [ev(0, "go first")], dmo=1)["error"]["event"] == 0  # not the DMO
    assert "go first" in run("domino", [ev(0, "(1,2) CZ:DZ hide CZ")])["error"]["message"]
    out = run("domino", [ev(0, "go second"), ev(1, "(1,2) CZ:DZ hide CZ"), ev(0, "timeout")])
    assert out == {"game": "domino", "finished": True, "winner": 1, "scores": [0, 0]}
    assert run("domino", [ev(0, "go first"), ev(1, "timeout")])["error"]["event"] == 1  # not awaited
    out = run("domino", [ev(0, "go first"), ev(1, "resign")])
    assert out["finished"] is True and out["winner"] == 0


@pytest.mark.parametrize(
    "text",
    [
        "(2,5) DZ:EZ hide EZ",
        "(5,2) EZ:DZ hide EZ",
        "(2,5) Domino, DZ:EZ, Hide (5)",
        "(5,2) Domino, EZ:DZ, Hide (5)",
    ],
)
def test_domino_notations_are_one_placement(text: str) -> None:
    # EZ hidden, 5 on EZ: then (0,0) FZ:GZ makes EZ-FZ-GZ = 5 (H) for P2
    out = run("domino", [ev(0, "go first"), ev(0, text), ev(1, "(0,0) FZ:GZ hide FZ")])
    assert out["scores"] == [0, 1]
    state = load({"game": "domino", "events": [ev(0, "go first"), ev(0, text)]})
    assert state.view(1)["placements"][0]["numbers"] == [2, None]


def test_domino_double_in_the_seed_form_needs_the_cell() -> None:
    out = run("domino", [ev(0, "go first"), ev(0, "(3,3) Domino, DZ:EZ, Hide (3)")])
    assert out["error"]["event"] == 1
    assert "error" not in run("domino", [ev(0, "go first"), ev(0, "(3,3) Domino, DZ:EZ, Hide (EZ)")])


# ----------------------------------------------------------------- yellow


def yellow_round(*texts: str) -> list[Any]:
    return [ev(s, t) for s, t in enumerate(texts)]


def test_yellow_each_tie_case() -> None:
    s = load({"game": "yellow", "events": yellow_round("play 7", "play 3", "play 1")})
    assert (s.points, s.yellow) == ([1, 0, 0], [0, 4, 2])  # all different
    s = load({"game": "yellow", "events": yellow_round("play 7", "play 7", "play 1")})
    assert (s.points, s.yellow) == ([0, 0, 0], [0, 0, 6])  # tie for high
    s = load({"game": "yellow", "events": yellow_round("play 1", "play 8", "play 1")})
    assert (s.points, s.yellow) == ([0, 1, 0], [0, 0, 0])  # tie for low
    s = load({"game": "yellow", "events": yellow_round("play 4", "play 4", "play 4")})
    assert (s.points, s.yellow) == ([0, 0, 0], [0, 0, 0])  # all equal
    assert [sorted(set(range(9)) - {4})] * 3 == s.view(0)["inventories"]  # 4s discarded
    s = load({"game": "yellow", "events": yellow_round("play 0", "play 0", "play 0")})
    assert s.view(0)["inventories"] == [list(range(9))] * 3  # a played 0 is kept


def test_yellow_resolution_order_discard_then_replenish_then_end_check() -> None:
    s = load({"game": "yellow", "events": []})
    s.inv[0] = [1, 0, 0, 0, 0, 0, 0, 0, 1]  # only 0 and 8 left
    s.points[0] = 8
    for seat, text in enumerate(("play 8", "play 0", "play 0")):
        s.apply_text(seat, text)
    # the point (tie for low) is the 9th: P1 wins; its 8 was discarded and it was
    # replenished before the end check
    assert s.view(0)["inventories"][0] == list(range(9))
    assert s.result().finished and s.result().winner == 0
    # at round 50 the ranking uses the replenished inventory
    s = load({"game": "yellow", "events": []})
    s.round = 49
    s.inv[1] = [1, 1, 0, 0, 0, 0, 0, 0, 0]  # 0 and 1
    s.inv[2][8] = 0  # 0..7: 28
    s.inv[0][8] = 0
    for seat, text in enumerate(("play 1", "play 1", "play 0")):
        s.apply_text(seat, text)  # tie for high: P3 (low) Y += 1
    assert s.result().finished and s.scores() == (0, 0, 0)
    # sums: P1 0..7 minus 1 = 27, P2 fresh 36, P3 28
    assert s.result().ranking == (1, 2, 0)


def test_yellow_second_exchange_needs_yellow_again() -> None:
    events = yellow_round("play 3", "play 5", "play 1") + [ev(2, "exchange exchange play 2")]
    out = run("yellow", events)
    assert out["error"]["event"] == 3 and "exchange" in out["error"]["message"]


def test_yellow_nine_point_and_round_50_and_resign_rankings() -> None:
    # garnets tie-break then garnet_priority at round 50
    events = yellow_round("play 0", "play 0", "play 0") * 50
    out = run("yellow", events, garnets=[5, 2, 5], garnet_priority=[2, 1, 0])
    assert out == {"game": "yellow", "finished": True, "winner": 2, "scores": [0, 0, 0], "ranking": [2, 0, 1]}
    # Y beats garnets
    events = yellow_round("play 2", "play 0", "play 0") + yellow_round("play 0", "play 0", "play 0") * 49
    out = run("yellow", events, garnets=[0, 9, 0])
    # P1 +1 point, discards its 2 (sum 34); P2 and P3 tie for low: nothing
    assert out["ranking"] == [0, 1, 2]
    # resign: last, the better of the other two by the round-50 criteria wins
    out = run("yellow", yellow_round("play 8", "play 3", "play 1") + [ev(0, "resign")])
    # P2 (Y 5, inventory 33) and P3 (Y 2, inventory 35): the inventory comes before Y
    assert out == {"game": "yellow", "finished": True, "winner": 2, "scores": [1, 0, 0], "ranking": [2, 1, 0]}
    # a timeout plays 0 with no step, and is legal only for an awaited seat
    out = run("yellow", [ev(0, "boost play 8"), ev(0, "timeout")], garnets=[3, 0, 0])
    assert out["error"]["event"] == 1
    s = load({"game": "yellow", "options": {"garnets": [3, 3, 3]}, "events": [
        ev(0, "timeout"), ev(1, "boost play 5"), ev(2, "play 4")]})
    assert s.garnets == [3, 0, 3] and s.points == [0, 1, 0] and s.yellow == [4, 1, 1]


# ----------------------------------------------------------------- swapping


SW_PLAY = [ev(0, "place 0 1 2"), ev(1, "place 1 0 2"), ev(0, "place 3 4 5"), ev(1, "place 3 4 5"),
           ev(0, "place 6 7 8"), ev(1, "place 6 7 8")]


def test_swapping_running_totals_and_mid_game_scores() -> None:
    assert run("swapping", SW_PLAY[:1])["scores"] == [0, 0]  # one side only: nothing compared
    assert run("swapping", SW_PLAY[:2])["scores"] == [1, 1]
    assert run("swapping", SW_PLAY)["scores"] == [1, 1]
    # P1's swap is in, P2's is not: the step is not complete, nothing changes
    assert run("swapping", SW_PLAY + [ev(0, "swap 0 1")]) == {
        "game": "swapping", "finished": False, "winner": None, "scores": [1, 1], "to_move": [1]}
    # both swaps in (a completed step): rows changed before any reveal
    out = run("swapping", SW_PLAY + [ev(0, "swap 8 1"), ev(1, "swap 0 1")])
    # P1: 0 8 2 3 4 5 6 7 1 ; P2: 0 1 2 3 4 5 6 7 8 -> P1 wins pos 2, P2 wins pos 9
    assert out["scores"] == [1, 1] and out["to_move"] == [0, 1]
    out = run("swapping", SW_PLAY + [ev(0, "swap 8 3"), ev(1, "swap 0 1")])
    # P1: 0 1 2 8 4 5 6 7 3 ; P2: 0 1 2 3 4 5 6 7 8 -> P1 wins pos 4, P2 pos 9
    assert out["scores"] == [1, 1]
    out = run("swapping", SW_PLAY + [ev(0, "swap 6 7"), ev(1, "swap 4 5")])
    # P1: 0 1 2 3 4 5 7 6 8 ; P2: 1 0 2 3 5 4 6 7 8 -> P1: pos 2, 6, 7; P2: pos 1, 5, 8
    assert out["scores"] == [3, 3]


def test_swapping_forced_choice_pass_and_reveal_timing() -> None:
    identity = [ev(s, f"place {a} {a + 1} {a + 2}") for a in (0, 3, 6) for s in (0, 1)]
    events = list(identity)
    # P1 reveals its whites first; P2 its blacks... each step: both swap 0/1, then reveal
    for w in (1, 3, 5, 7):
        events += [ev(0, f"swap 0 {w}"), ev(1, f"swap {w - 1} {w}"), ev(0, f"reveal {w}"), ev(1, f"reveal {w}")]
    # P1 has only blacks: it passes; P2 has 0 2 4 6 8 + nothing white -> also passes
    assert run("swapping", events)["to_move"] == [0, 1]  # straight to the reveals
    out = run("swapping", events + [ev(0, "swap 0 2")])
    assert out["error"]["event"] == len(events)
    # reveals never start before every swap of the step is in
    out = run("swapping", identity + [ev(0, "swap 0 1"), ev(1, "reveal 3")])
    assert out["error"]["event"] == len(identity) + 1
    out = run("swapping", identity + [ev(0, "swap 0 1"), ev(0, "reveal 3")])
    assert out["error"]["event"] == len(identity) + 1
    # a forced swap (one black, one white unrevealed) is still asked
    events = list(identity)
    for t in (0, 1, 2, 3, 4, 5, 6):
        events += [ev(0, "swap 8 7"), ev(1, "swap 8 7"), ev(0, f"reveal {t}"), ev(1, f"reveal {t}")]
    assert run("swapping", events)["to_move"] == [0, 1]
    assert run("swapping", events + [ev(0, "reveal 7")])["error"]["event"] == len(events)
    events += [ev(0, "swap 7 8"), ev(1, "swap 8 7"), ev(0, "reveal 8"), ev(1, "reveal 7")]
    # one tile left: it is still revealed by an action, then the game ends (a tie here)
    assert run("swapping", events)["to_move"] == [0, 1]


def test_swapping_three_ties_go_to_the_dmo_and_timeout_loses() -> None:
    game: list[Any] = []
    for a in (0, 3, 6):
        game += [ev(0, f"place {a} {a + 1} {a + 2}"), ev(1, f"place {a} {a + 1} {a + 2}")]
    for t in range(9):
        if t < 8:  # 7 and 8 stay unrevealed until step 8: both seats must swap
            game += [ev(0, "swap 8 7"), ev(1, "swap 8 7")]
        game += [ev(0, f"reveal {t}"), ev(1, f"reveal {t}")]
    out = run("swapping", game)
    assert "error" not in out, out
    assert out == {"game": "swapping", "finished": False, "winner": None, "scores": [0, 0], "to_move": [0, 1]}
    for dmo in (0, 1):
        out = run("swapping", game * 3, dmo=dmo)
        assert out == {"game": "swapping", "finished": True, "winner": dmo, "scores": [0, 0]}
        assert "error" in run("swapping", game * 3 + [ev(0, "place 0 1 2")], dmo=dmo)
    out = run("swapping", game * 2 + [ev(0, "place 8 1 2"), ev(1, "timeout")])
    assert out == {"game": "swapping", "finished": True, "winner": 0, "scores": [0, 0]}


def test_swapping_show_colours() -> None:
    s = load({"game": "swapping", "options": {"show_colours": True}, "events": SW_PLAY[:2]})
    assert [c["colour"] for c in s.view(1)["their_row"][:3]] == ["black", "white", "black"]
    assert all(c["tile"] is None for c in s.view(1)["their_row"][:3])
    s = load({"game": "swapping", "events": SW_PLAY[:2]})
    assert all(c["colour"] is None for c in s.view(1)["their_row"][:3])
    with pytest.raises(RecordError):
        replay({"game": "swapping", "options": {"show_colours": "yes"}, "events": []})
