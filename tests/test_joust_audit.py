"""An independent audit of ``joust`` and ``joust-final`` against RULES.md sections 6-7.

:class:`Ref` is a second referee written from the text of RULES.md alone (and the
rulings the rules pages record where RULES.md is silent: leftover count, skipped
phases, items as side actions of the first joust's required step).  It shares no
code with ``blackwhite/games/joust.py``.  Records -- the smoke-test records and seeded
random matches with timeouts, folds, passes and items -- are fed to both referees
event by event; after every event they must agree on whom the game awaits and on
the points, and at the end on the verdict.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Generator
from typing import Any

import pytest

from blackwhite.engine import ChanceEvent, load, make_game, outcome_json, to_record

from .conftest import example_cases
from .random_play import decisions
from .test_joust import STRAIGHT, act, auction, lots, new, refused

LABELS = ["minute", "balance", "giant"]

Want = tuple[Any, ...]


class Ref:
    """RULES.md sections 6 and 7, as a generator that asks for one event at a time."""

    def __init__(self, gid: str, options: dict[str, Any]) -> None:
        self.final = gid == "joust-final"
        self.chips = [options.get("chips", 90)] * 2
        self.points = [0, 0]
        self.count = options.get("leftover_count", "set")
        self.scope = options.get("invert_scope", "held")
        items = options.get("items", {})
        self.items = [set(items.get("0", [])), set(items.get("1", []))]
        holders = [s for s in (0, 1) if "equaliser" in self.items[s]]
        self.favoured = holders[0] if len(holders) == 1 else options.get("dmo", 0)
        self.tiles: list[dict[str, Any]] = []
        self.resigned: int | None = None
        self.pending: dict[int, str] = {}
        self.step: list[tuple[int, str]] = []
        self.gen = self.match()
        self.want: Want = next(self.gen)

    # ----------------------------------------------------------------- the rules

    def hand(self, seat: int, k: int | None = None) -> list[dict[str, Any]]:
        return [t for t in self.tiles if t["owner"] == seat and t["st"] == "hand" and k in (None, t["set"])]

    def named(self, text: str, pool: list[dict[str, Any]]) -> dict[str, Any]:
        m = re.match(r"^(?:play|invert) (\d+)(?: from (\d+)\.(\d+|leftover))?$", text)
        assert m, text
        same = [t for t in pool if t["val"] == int(m.group(1))]
        if m.group(2):
            grp = 0 if m.group(3) == "leftover" else int(m.group(3))
            same = [t for t in same if (t["set"], t["grp"]) == (int(m.group(2)), grp)]
        else:
            assert len({(t["set"], t["grp"]) for t in same}) <= 1, f"{text}: ambiguous"
        assert same, f"{text}: no such tile"
        return same[0]

    def match(self) -> Generator[Want, Any, None]:
        for k in (1, 2, 3):
            lots = yield ("chance",)
            groups = [sorted(g) for g in lots["groups"]]
            opener, last = self.favoured, 0
            for g, trip in enumerate(groups):
                if g == 0:
                    rank = 1
                else:
                    dist = [abs(v - last) for v in trip]
                    rank = 1 if dist[1] == min(dist) else dist.index(min(dist))
                left = [0, 1, 2]
                for i in range(3):
                    left.remove(rank)
                    turn, bid, high = opener, -1, -1
                    while True:
                        a = yield ("turn", turn)
                        if a in ("fold", "timeout"):
                            winner = 1 - turn
                            break
                        n = int(a.split()[1])
                        assert bid < n <= self.chips[turn], a
                        bid, high, turn = n, turn, 1 - turn
                    self.chips[winner] -= bid if high == winner else 0
                    self.tiles.append({"val": trip[rank], "set": k, "grp": g + 1, "owner": winner, "st": "hand"})
                    opener = winner
                    if i == 0:
                        a = yield ("turn", winner)
                        rank = min(left) if a == "timeout" else LABELS.index(a.split()[1])
                        assert rank in left
                    elif i == 1:
                        rank = left[0]
                last = trip[rank]
            if self.count == "set":
                n0, n1 = (sum(1 for t in self.tiles if t["set"] == k and t["owner"] == s) for s in (0, 1))
            else:
                n0, n1 = len(self.hand(0)), len(self.hand(1))
            if n0 != n1:
                short = 0 if n0 < n1 else 1
                pair = list(lots["leftover"])
                if self.final:
                    a = yield ("turn", short)
                    keep = min(pair) if a == "timeout" else int(a.split()[1])
                    pair.remove(keep)
                    self.tiles.append({"val": keep, "set": k, "grp": 0, "owner": short, "st": "hand"})
                    short = 1 - short
                self.tiles.append({"val": pair[0], "set": k, "grp": 0, "owner": short, "st": "hand"})
            first = True
            while len(self.hand(0, k)) >= 2 and len(self.hand(1, k)) >= 2:
                yield from self.joust(k, first)
                first = False
        first = True
        while self.hand(0) and self.hand(1):
            yield from self.joust(None, first)
            first = False
        a, b = len(self.hand(0)), len(self.hand(1))
        if a and not b:
            self.points[0] += a
        if b and not a:
            self.points[1] += b
        yield ("over",)

    def joust(self, k: int | None, first: bool) -> Generator[Want, Any, None]:
        sub: list[list[dict[str, Any]]] = [[], []]

        def put(seat: int, t: dict[str, Any]) -> None:
            t["st"] = "sub"
            sub[seat].append(t)

        done: set[int] = set()
        for seat, a in (yield ("simul", (0, 1))):
            if a.startswith("invert") or a == "conceal":
                item = "conceal" if a == "conceal" else "inversion"
                assert first and seat not in done and item in self.items[seat], a
                assert item == "inversion" or k is not None, "conceal is not for the final joust"
                self.items[seat].discard(item)
                if item == "inversion":
                    t = self.named(a, self.hand(seat) if self.scope == "held" else self.hand(seat, k))
                    t["val"] = 13 - t["val"]
            elif a == "timeout":  # the smallest tile; equal numbers: earliest set, group, leftover last
                pool = self.hand(seat, k)
                put(seat, min(pool, key=lambda t: (t["val"], t["set"], t["grp"] or 9)))
                done.add(seat)
            else:
                put(seat, self.named(a, self.hand(seat, k)))
                done.add(seat)
        while True:
            asked = tuple(s for s in (0, 1) if len(sub[s]) < 5 and self.hand(s, k))
            if not asked:
                break
            played = False
            for seat, a in (yield ("simul", asked)):
                if a not in ("pass", "timeout"):
                    put(seat, self.named(a, self.hand(seat, k)))
                    played = True
            if not played:
                break
        tot = [sum(t["val"] for t in sub[s]) for s in (0, 1)]
        low = [min(t["val"] for t in sub[s]) for s in (0, 1)]
        for s in (0, 1):
            if tot[s] >= tot[1 - s]:
                self.points[s] += low[1 - s]
            for t in sub[s]:
                t["st"] = "used"

    # ----------------------------------------------------------------- driving

    def to_move(self) -> list[int]:
        if self.resigned is not None:
            return []
        if self.want[0] == "turn":
            return [self.want[1]]
        if self.want[0] == "simul":
            return [s for s in self.want[1] if s not in self.pending]
        return []

    def feed(self, event: dict[str, Any]) -> None:
        if "chance" in event:
            assert self.want[0] == "chance"
            self.want = self.gen.send(event)
            return
        seat, a = event["seat"], " ".join(event["action"].lower().split())
        if a == "resign":
            self.resigned = seat
            return
        if self.want[0] == "turn":
            assert seat == self.want[1], event
            self.want = self.gen.send(a)
            return
        assert self.want[0] == "simul", event
        self.step.append((seat, a))
        if a.startswith("invert") or a == "conceal":
            return
        assert seat in self.to_move(), event
        self.pending[seat] = a
        if not self.to_move():
            step, self.step, self.pending = self.step, [], {}
            self.want = self.gen.send(step)

    def verdict(self) -> tuple[bool, int | None, list[int]]:
        if self.resigned is not None:
            return True, 1 - self.resigned, self.points
        if self.want[0] == "over":
            p0, p1 = self.points
            return True, 0 if p0 > p1 else 1 if p1 > p0 else self.favoured, self.points
        return False, None, self.points


def cross_check(record: dict[str, Any]) -> None:
    """Both referees, event by event: the same awaited seats and points, then verdict."""
    options = record.get("options", {})
    ref = Ref(record["game"], options)
    state = make_game(record["game"], options).new_initial_state()
    for i, event in enumerate(record["events"]):
        if "chance" in event:
            state.apply_chance(ChanceEvent(event["chance"], {k: v for k, v in event.items() if k != "chance"}))
        else:
            state.apply(event["seat"], state.parse(event["seat"], event["action"]))
        ref.feed(event)
        assert sorted(state.to_move()) == sorted(ref.to_move()), (i, event)
        assert list(state.scores()) == ref.points, (i, event)
    result = state.result()
    assert (result.finished, result.winner, list(result.scores)) == ref.verdict()
    assert outcome_json(load(record))["scores"] == ref.points


def biased_record(gid: str, seed: int) -> dict[str, Any]:
    """A random legal match by players with their own leanings (fold, pass, cheap bids),
    some timeouts and resignations, and varied options."""
    rng = random.Random(seed)
    options: dict[str, Any] = {"dmo": seed % 2, "chips": [0, 2, 5, 90][seed % 4]}
    if seed % 3 == 0:
        options["leftover_count"] = "held"
    if gid == "joust-final":
        options["items"] = [
            {},
            {"0": ["inversion", "conceal", "equaliser"], "1": ["inversion"]},
            {"1": ["equaliser", "inversion", "conceal"], "0": ["equaliser"]},
        ][seed % 3]
        if seed % 5 == 0:
            options["invert_scope"] = "phase"
    state = make_game(gid, options).new_initial_state()
    fold, pass_ = [rng.random(), rng.random()], [rng.random(), rng.random()]
    for seat in decisions(state, rng):
        legal = state.legal_actions(seat)
        roll = rng.random()
        if roll < 0.05:
            state.apply(seat, state.parse(seat, "timeout"))
        elif roll < 0.0505:
            state.apply(seat, state.parse(seat, "resign"))
        elif ("fold",) in legal and rng.random() < fold[seat]:
            state.apply(seat, ("fold",))
        elif ("pass",) in legal and rng.random() < pass_[seat]:
            state.apply(seat, ("pass",))
        else:
            pool = [a for a in legal if a[0] == "bid"][:4] + [a for a in legal if a[0] != "bid"]
            state.apply(seat, pool[rng.randrange(len(pool))])
    record: dict[str, Any] = json.loads(json.dumps(to_record(state)))
    return record


# --------------------------------------------------------------------------- cross-checks


@pytest.mark.parametrize("record,expected", example_cases("joust") + example_cases("joust-final"))
def test_reference_referee_agrees_on_the_example_records(record: Any, expected: Any) -> None:
    if "error" in expected:
        events = record["events"][: expected["error"]["event"]]
        record = {**record, "events": events}
    cross_check(record)


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
@pytest.mark.parametrize("seed", range(30))
def test_reference_referee_agrees_on_random_records(gid: str, seed: int) -> None:
    cross_check(biased_record(gid, seed))


# --------------------------------------------------------------------------- single rules


def test_final_joust_timeout_takes_the_earliest_equal_tile_and_bare_duplicates_are_ambiguous() -> None:
    # Each set P1 buys all twelve tiles (P2 folds at once), so P2 gets the leftover 13 and
    # no set phase can start: the final joust pools three 1..12 against three 13s.
    state = new()
    for _ in range(3):
        lots(state, STRAIGHT, [13])
        auction(state, 0)
    assert state.set_no == 3 and state.to_move() == [0, 1]
    assert "ambiguous" in refused(state, 1, "play 13")
    act(state, 1, "play 13 from 2.leftover")
    act(state, 0, "timeout")  # P1's smallest: a 1, the one bought in set 1
    assert [state.origin(t) for t in state.sub[0]] == [(1, 1)]
    act(state, 0, "pass")
    act(state, 1, "pass")
    assert state.jousts[-1][2:] == ((1, 13), (0, 1))  # P2 wins and scores P1's smallest, 1


def test_resign_in_the_first_joust_after_an_item_use_keeps_the_points() -> None:
    state = new("joust-final", items={"0": ["inversion"]})
    lots(state, [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], [0, 13])
    auction(state, {v: 0 if v <= 6 else 1 for v in range(1, 13)})
    act(state, 0, "invert 6")
    act(state, 0, "play 7")  # the inverted 6
    act(state, 1, "resign")
    assert outcome_json(state) == {"game": "joust-final", "finished": True, "winner": 0, "scores": [0, 0]}
