"""The research encoding of grouping and grouping-final (blackwhite/games/grouping_encoding.py):
the action codec, the offer rule, the length bound, the game type, the observation
tensor, the split deal, and the small variants it is meant for."""

from __future__ import annotations

import random
from pathlib import Path
from fractions import Fraction
from typing import Any

import pytest

from blackwhite.bots import make_bot
from blackwhite.bots.match import play_match
from blackwhite.engine import State, load, make_game
from blackwhite.engine.core import ChanceEvent, IllegalActionError, IllegalChanceError, OptionError
from blackwhite.engine.encoding import Encoding, encoding
from blackwhite.engine.record import replay
from blackwhite.games.grouping import GROUPINGS, GroupingState
from blackwhite.games.grouping_encoding import GroupingEncoding, tied_sets
from tests.random_play import asked, draw_chance, random_match
from tests.twins import grouping as grouping_twins
from tests.twins import grouping_final as final_twins

ITEMS = {"0": ["peek", "order"], "1": ["bonus", "peek"]}
#: (game, options): the standard games, items, and the small variants
CASES: list[tuple[str, dict[str, Any]]] = [
    ("grouping", {}),
    ("grouping", {"chips": 3, "rounds": 2, "max_raise": 1}),
    ("grouping", {"chips": 6, "rounds": 1, "max_raise": 2, "see_own_tile": True}),
    ("grouping-final", {}),
    ("grouping-final", {"items": ITEMS}),
    ("grouping-final", {"chips": 4, "rounds": 3, "max_raise": 2, "items": ITEMS}),
    ("grouping-final", {"chips": 3, "rounds": 1, "max_raise": 1, "proposal_limit": 2, "announce_order": True,
                        "items": {"0": ["order"], "1": ["order", "peek"]}}),
]
IDS = [f"{g}{o}" for g, o in CASES]


# ----------------------------------------------------------------- the codec


@pytest.mark.parametrize("gid,options", CASES, ids=IDS)
def test_codec_round_trips_every_legal_action_of_random_play(gid: str, options: dict[str, Any]) -> None:
    enc = encoding(gid, options)
    n = enc.num_distinct_actions
    met: set[int] = set()
    done: set[Any] = set()

    def check(state: State, seat: int, offered: list[Any]) -> None:
        legal = state.legal_actions(seat)
        assert offered and set(offered) <= set(legal), "offered is a non-empty part of the legal actions"
        for action in set(legal) - done:
            code = enc.encode(action)
            assert 0 <= code < n
            assert enc.decode(code) == action
            met.add(code)
            done.add(action)

    for seed in range(25):
        random_match(enc, seed, check)
    # every kind of action was met, so the round trip covered the whole codec's structure
    kinds = {enc.decode(c)[0] for c in met}
    assert {"group", "raise", "call", "fold", "go"} <= kinds
    if gid == "grouping-final":
        assert "propose" in kinds and "accept" in kinds


def test_codes_are_fixed_and_documented() -> None:
    enc = encoding("grouping", {})
    assert enc.num_distinct_actions == 1260 + 10 + 4
    assert enc.decode(0) == ("group",) + GROUPINGS[0]
    assert enc.decode(1259) == ("group",) + GROUPINGS[1259]
    assert [enc.decode(c) for c in range(1260, 1274)] == [("raise", n) for n in range(1, 11)] + [
        ("call",), ("fold",), ("go", "first"), ("go", "second")]
    final = encoding("grouping-final", {"items": {"1": ["bonus"]}})
    assert isinstance(final, GroupingEncoding)
    assert final.ante_cap == 111  # the larger stack (100 + 10 bonus) + 1
    assert final.num_distinct_actions == 1274 + 4 + 110
    assert final.encode(("propose", 2)) == 1278 and final.encode(("propose", 111)) == 1387
    assert [final.decode(c) for c in range(1274, 1278)] == [("accept",), ("decline",), ("peek",), ("order",)]
    # a variant has a smaller range, depending on its options only
    assert encoding("grouping", {"max_raise": 2}).num_distinct_actions == 1260 + 2 + 4
    # the engine refuses a grouping with unsorted tiles, so it has no code (the error
    # names the sorted one): decode(encode(a)) == a for every coded action
    with pytest.raises(ValueError, match=r"\('group', \(0, 1\), \(2, 3, 4\), \(5, 6, 7, 8\)\)"):
        enc.encode(("group", (1, 0), (4, 3, 2), (8, 7, 6, 5)))


@pytest.mark.parametrize(
    "action",
    [("raise", 11), ("raise", 0), ("propose", 5), ("peek",), ("group", (0,), (1, 2), (3,)), ("shuffle",), (), "call",
     ("group", (0, 1), (2, 3, 4), (5, 6, 7, None))],
)
def test_encode_refuses_an_action_without_a_code(action: Any) -> None:
    with pytest.raises(ValueError, match=r"no (action )?code"):
        encoding("grouping", {}).encode(action)


def test_encode_refuses_a_proposal_above_the_cap_and_decode_out_of_range() -> None:
    final = encoding("grouping-final", {"chips": 5})
    with pytest.raises(ValueError, match=r"\('propose', 7\)"):
        final.encode(("propose", 7))
    assert final.decode(final.encode(("propose", 6))) == ("propose", 6)
    for code in (-1, final.num_distinct_actions, 10**9, 1.0, True, "3"):
        with pytest.raises(ValueError, match="action code"):
            final.decode(code)  # type: ignore[arg-type]


# ----------------------------------------------------------------- the offer rule


def test_offer_rule_holds_back_early_choices_declines_and_extra_proposals() -> None:
    enc = encoding("grouping-final", {"chips": 20})
    state = enc.game.new_initial_state()
    chooser = state.view(0)["chooser"]
    # grouping: the first-bettor choice waits for round 1; proposals up to the cap
    offered = enc.offered(state, 0)
    assert ("go", "first") not in enc.offered(state, chooser)
    assert ("go", "first") in state.legal_actions(chooser)
    assert [a for a in offered if a[0] == "propose"] == [("propose", n) for n in range(2, 22)]
    state.apply(0, ("propose", 5))
    assert not [a for a in enc.offered(state, 0) if a[0] == "propose"], "one proposal pending at a time"
    state.apply(0, ("group",) + GROUPINGS[0])
    offered1 = enc.offered(state, 1)
    assert ("accept",) in offered1 and ("decline",) not in offered1 and ("decline",) in state.legal_actions(1)
    assert not [a for a in offered1 if a[0] == "propose"], "P1 has grouped: it could not answer a proposal"
    assert enc.offered(state, 0) == []
    state.apply(1, ("accept",))
    state.apply(1, ("group",) + GROUPINGS[5])
    rng = random.Random(1)
    while state.chance_kind() is not None:
        state.apply_chance(draw_chance(enc, state, rng))
    assert enc.offered(state, chooser) == [("go", "first"), ("go", "second")]
    assert state.view(0)["ante"] == 5


def test_offered_depends_only_on_the_view() -> None:
    """Two worlds the seat cannot tell apart get the same offer: the worlds are twins
    written by hand as records (the default games' and the variants'), replayed
    independently, never built by the code under test (no ``resample``)."""
    from tests.test_encoding_variant_twins import TWINS as VARIANT_TWINS

    twins = grouping_twins.TWINS + final_twins.TWINS + [t for t in VARIANT_TWINS if t.a["game"].startswith("grouping")]
    compared = 0
    for twin in twins:
        if twin.seat is None:
            continue
        a, b = load(twin.a), load(twin.b)
        enc = encoding(a.game)
        offered = enc.offered(a, twin.seat)
        assert offered == enc.offered(b, twin.seat), twin.name
        compared += bool(offered)
    assert compared >= 5, "too few twins stop where the seat is asked"


# ----------------------------------------------------------------- type and length


@pytest.mark.parametrize("gid,options", CASES, ids=IDS)
def test_length_bound_and_utilities_on_random_matches(gid: str, options: dict[str, Any]) -> None:
    enc = encoding(gid, options)
    kind = enc.game_type
    assert kind.num_seats == 2 and kind.chance and kind.imperfect_information and kind.simultaneous
    longest = 0
    for seed in range(40):
        state, n = random_match(enc, seed)
        longest = max(longest, n)
        utils = enc.utilities(state)
        assert len(utils) == 2 and sum(utils) == kind.utility_sum
        assert all(kind.min_utility <= u <= kind.max_utility for u in utils)
        winner = state.result().winner
        assert winner is not None and utils[winner] == 1.0
    assert longest <= enc.max_game_length
    # a driver asking the seats of a grouping step in any order: the offer rule still ends
    # every match (P2 may propose, P1 accept, again and again: each accepted ante is higher)
    for seed in range(10):
        state, n = random_match(enc, seed, any_seat=True)
        assert state.is_terminal() and n <= enc.max_game_length


def test_length_bound_holds_for_bots_that_bet_small() -> None:
    """Random raises end matches fast; patient bots play the long matches the bound is for."""
    matches: list[tuple[str, dict[str, Any]]] = [
        ("grouping", {"chips": 3, "rounds": 2, "max_raise": 1}),
        ("grouping-final", {"chips": 3, "rounds": 2, "max_raise": 1, "items": ITEMS}),
    ]
    for gid, options in matches:
        enc = encoding(gid, options)
        for seed in range(3):
            state = play_match(make_game(gid, options), [make_bot("heuristic"), make_bot("heuristic")], seed)
            decisions = sum(1 for e in state.to_record()["events"] if "chance" not in e)
            assert state.is_terminal() and decisions <= enc.max_game_length


def test_tied_set_allowance() -> None:
    # one round per deal: a seat's first tile is one given tile with chance at most 1/6
    assert tied_sets(1, 1) == 78 and (1 / 6) ** 78 < 1e-60 < (1 / 6) ** 77
    # a whole deal: 1728 equally likely deals
    assert tied_sets(9, 1) == 19 and (1 / 1728) ** 19 < 1e-60 < (1 / 1728) ** 18
    assert tied_sets(9, 2) == 10


# ----------------------------------------------------------------- observations


def views_of(state: State) -> list[Any]:
    return [state.view(0), state.view(1), state.view(None)]


@pytest.mark.parametrize("gid,options", CASES, ids=IDS)
def test_observation_shape_is_fixed(gid: str, options: dict[str, Any]) -> None:
    enc = encoding(gid, options)
    (size,) = enc.observation_shape

    def check(state: State, seat: int, offered: list[Any]) -> None:
        for view in views_of(state):
            obs = enc.observation(view)
            assert len(obs) == size and all(isinstance(x, float) for x in obs)

    for seed in range(6):
        end, _ = random_match(enc, seed, check)
        assert all(len(enc.observation(v)) == size for v in views_of(end))


def test_spectator_and_seats_are_flagged() -> None:
    enc = encoding("grouping", {})
    state = enc.game.new_initial_state()
    assert [enc.observation(v)[:3] for v in views_of(state)] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


def test_tensor_changes_with_what_the_seat_learns() -> None:
    """The seat's own grouping, its fold (the opponent's tile) and a peek all show."""
    enc = encoding("grouping-final", {"items": {"0": ["peek"]}})
    base = enc.game.new_initial_state()
    g1, g2 = ("group",) + GROUPINGS[0], ("group",) + GROUPINGS[700]
    a, b = base.clone(), base.clone()
    a.apply(0, g1)
    b.apply(0, g2)
    assert enc.observation(a.view(0)) != enc.observation(b.view(0)), "its own submitted grouping"
    assert enc.observation(a.view(1)) == enc.observation(b.view(1)), "hidden from P2"
    a, b = base.clone(), base.clone()
    for s in (a, b):
        s.apply(0, g1)
        s.apply(1, g1)
        s.apply_chance(ChanceEvent("deal", {"seat": 0, "tiles": [0, 1, 2, 3, 4, 5, 6, 7, 8]}))
    # P2's first tile is 5 or 7: both white, so only a peek tells them apart
    a.apply_chance(ChanceEvent("deal", {"seat": 1, "tiles": [5, 6, 7, 8, 0, 1, 2, 3, 4]}))
    b.apply_chance(ChanceEvent("deal", {"seat": 1, "tiles": [7, 6, 5, 8, 0, 1, 2, 3, 4]}))
    assert enc.observation(a.view(0)) == enc.observation(b.view(0))
    before = enc.observation(a.view(0))
    chooser = a.view(0)["chooser"]
    for s in (a, b):
        s.apply(chooser, ("go", "first") if chooser == 0 else ("go", "second"))
    assert ("peek",) in enc.offered(a, 0)
    a.apply(0, ("peek",))
    b.apply(0, ("peek",))
    assert enc.observation(a.view(0)) != enc.observation(b.view(0)), "the peeked tile, 5 against 7"
    assert enc.observation(a.view(0)) != before
    assert enc.observation(a.view(1)) == enc.observation(b.view(1)), "P2 is told of the peek, not the tile"


def test_observation_reads_the_view_only() -> None:
    """A view dict, copied through JSON, gives the same tensor as the live one."""
    import json

    enc = encoding("grouping-final", {"items": ITEMS, "chips": 6})

    def check(state: State, seat: int, offered: list[Any]) -> None:
        view = state.view(seat)
        assert enc.observation(json.loads(json.dumps(view))) == enc.observation(view)

    random_match(enc, 3, check)


# ----------------------------------------------------------------- chance


class Scripted(random.Random):
    """A ``random.Random`` whose every ``_randbelow`` answer is scripted, so that the
    engine's own ``sample_chance`` can be enumerated path by path, exactly."""

    def __init__(self, script: list[int]) -> None:
        super().__init__(0)
        self.script = script
        self.asked: list[int] = []

    def _randbelow(self, n: int) -> int:
        k = len(self.asked)
        self.asked.append(n)
        return self.script[k] if k < len(self.script) else 0


def engine_distribution(state: State) -> dict[tuple[int, ...], Fraction]:
    out: dict[tuple[int, ...], Fraction] = {}
    script: list[int] = []
    while True:
        rng = Scripted(script)
        event = state.sample_chance(rng)
        p = Fraction(1)
        for n in rng.asked:
            p /= n
        key = tuple(event.data["tiles"])
        out[key] = out.get(key, Fraction(0)) + p
        # the next script, odometer style, over the answers asked for
        full = script + [0] * (len(rng.asked) - len(script))
        while full and full[-1] + 1 >= rng.asked[len(full) - 1]:
            full.pop()
        if not full:
            return out
        full[-1] += 1
        script = full


def draws_distribution(enc: Encoding, state: State) -> dict[tuple[int, ...], Fraction]:
    out: dict[tuple[int, ...], Fraction] = {}

    def walk(draws: list[int], p: Fraction) -> None:
        outcomes = enc.chance_outcomes(state, draws)
        if not outcomes:
            event = enc.chance_event(state, draws)
            key = tuple(event.data["tiles"])
            assert key not in out, "two draw paths give one deal"
            out[key] = p
            state.clone().apply_chance(event)  # the engine accepts it
            return
        for o, q in outcomes:
            walk(draws + [o], p * Fraction(q).limit_denominator(100))

    walk([], Fraction(1))
    return out


@pytest.mark.parametrize("grouping", [GROUPINGS[0], GROUPINGS[777]])
def test_split_deal_has_the_engines_distribution_exactly(grouping: Any) -> None:
    enc = encoding("grouping", {})
    state = enc.game.new_initial_state()
    state.apply(0, ("group",) + grouping)
    state.apply(1, ("group",) + GROUPINGS[3])
    ours = draws_distribution(enc, state)
    assert len(ours) == 1728 and sum(ours.values()) == 1
    assert ours == engine_distribution(state)
    # P1's deal first, then P2's (the engine's order), P2 with its own groups
    first = enc.chance_event(state, [0] + [t for g in grouping for t in g])  # order A, B, C
    assert first.data == {"seat": 0, "tiles": [t for g in grouping for t in g]}
    state.apply_chance(first)
    assert draws_distribution(enc, state) == engine_distribution(state)
    assert enc.chance_event(state, [5] + [t for g in reversed(GROUPINGS[3]) for t in g]).data["seat"] == 1


def test_bad_draws_are_refused() -> None:
    enc = encoding("grouping", {})
    state = enc.game.new_initial_state()
    state.apply(0, ("group",) + GROUPINGS[0])  # A=0,1 B=2,3,4 C=5,6,7,8
    state.apply(1, ("group",) + GROUPINGS[0])
    with pytest.raises(IllegalChanceError, match="order code 6"):
        enc.chance_outcomes(state, [6])
    with pytest.raises(IllegalChanceError, match="draw 5 at position 1"):
        enc.chance_outcomes(state, [0, 5])  # order A,B,C: position 1 is in A
    with pytest.raises(IllegalChanceError, match="draw 0 at position 2"):
        enc.chance_outcomes(state, [0, 0, 0])
    with pytest.raises(ValueError, match="whole deal"):
        enc.chance_event(state, [0, 0, 1])
    playing = enc.game.new_initial_state()
    with pytest.raises(ValueError, match="not at a deal"):
        enc.chance_outcomes(playing, [])


# ----------------------------------------------------------------- the small variants


def test_variant_options_are_checked() -> None:
    for gid in ("grouping", "grouping-final"):
        for bad in ({"rounds": 0}, {"rounds": 10}, {"rounds": True}, {"max_raise": 0}, {"max_raise": 11},
                    {"max_raise": "2"}):
            with pytest.raises(OptionError, match=next(iter(bad))):
                make_game(gid, bad)
        make_game(gid, {"rounds": 1, "max_raise": 1})
        make_game(gid, {"rounds": 9, "max_raise": 10})


def test_fewer_rounds_per_deal_leave_the_rest_face_down() -> None:
    game = make_game("grouping", {"rounds": 2, "chips": 20})
    state = game.new_initial_state()
    enc = encoding(game)
    rng = random.Random(0)
    state.apply(0, ("group",) + GROUPINGS[0])
    state.apply(1, ("group",) + GROUPINGS[1])
    positions = []
    while state.view(0)["set"] == 1 and not state.is_terminal():
        if state.chance_kind() is not None:
            state.apply_chance(draw_chance(enc, state, rng))
            continue
        view = state.view(0)
        if view["phase"] == "bet":
            positions.append((view["deal"], view["round"]))
            for d in view["deals"]:
                assert len(d["mine"]) <= 2 and len(d["theirs"]) <= 2, "unplayed positions stay unseen"
        seat = asked(state)
        state.apply(seat, ("call",) if ("call",) in state.legal_actions(seat) else enc.offered(state, seat)[0])
    assert positions == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert state.view(0)["phase"] == "group"  # set 2 groups after 2 deals of 2 rounds
    assert [len(d["mine"]) for d in state.view(0)["deals"]] == [2, 2]


def test_raise_cap_is_enforced_and_stated() -> None:
    game = make_game("grouping", {"max_raise": 2})
    state = game.new_initial_state()
    state.apply(0, ("group",) + GROUPINGS[0])
    state.apply(1, ("group",) + GROUPINGS[0])
    rng = random.Random(0)
    enc = encoding(game)
    while state.chance_kind() is not None:
        state.apply_chance(draw_chance(enc, state, rng))
    chooser = state.view(0)["chooser"]
    state.apply(chooser, ("go", "first"))
    assert [a for a in state.legal_actions(chooser) if a[0] == "raise"] == [("raise", 1), ("raise", 2)]
    before = state.view(chooser)
    with pytest.raises(IllegalActionError, match="1 to 2 chips.*max_raise"):
        state.apply(chooser, ("raise", 3))
    assert state.view(chooser) == before, "a refused raise changes nothing"


@pytest.mark.parametrize("gid,options", CASES[1:3] + CASES[5:], ids=IDS[1:3] + IDS[5:])
def test_bots_play_the_variants_and_the_referee_replays_them(gid: str, options: dict[str, Any]) -> None:
    game = make_game(gid, options)
    for names in (("random", "heuristic"), ("ismcts", "heuristic")):
        bots = [make_bot(n, **({"iterations": 20} if n == "ismcts" else {})) for n in names]
        state = play_match(game, bots, seed=5)
        assert state.is_terminal()
        record = state.to_record()
        assert record["options"] == {k: v for k, v in options.items()}
        again = replay(record)
        assert again.error is None
        assert again.state.result() == state.result() and again.state.is_terminal()


def test_small_variant_sizes() -> None:
    """The smallest variants' action ranges and length bounds, for the rules page."""
    dm = encoding("grouping", {"chips": 2, "rounds": 1, "max_raise": 1})
    final = encoding("grouping-final", {"chips": 2, "rounds": 1, "max_raise": 1})
    assert (dm.num_distinct_actions, dm.max_game_length) == (1265, 2 * (2 + 2 * 2) + 2 * 40 + 1)
    assert (final.num_distinct_actions, final.max_game_length) == (1271, 84 * 2 + 3 * 84 + 2 * 3 + 5)
    state = dm.game.new_initial_state()
    assert isinstance(state, GroupingState) and state.deal_rounds == 1 and state.max_raise == 1


def test_the_rules_pages_numbers() -> None:
    """The sizes, bounds and offsets docs/rules/grouping*.md state."""
    dm, final = encoding("grouping", {}), encoding("grouping-final", {})
    assert isinstance(dm, GroupingEncoding) and isinstance(final, GroupingEncoding)
    assert (dm.num_distinct_actions, dm.max_game_length, dm.tied_sets) == (1274, 16283, 10)
    assert (final.num_distinct_actions, final.max_game_length, final.tied_sets) == (1378, 199770, 19)
    assert dm.observation_shape == (2357,) and final.observation_shape == (1240,)
    assert {k: dm.blocks[k] for k in ("my_groups", "held", "deals", "rounds")} == {
        "my_groups": (50, 27), "held": (113, 6), "deals": (125, 540), "rounds": (665, 1692)}
    assert {k: final.blocks[k] for k in ("deal", "round", "my_groups", "held", "used", "deals", "rounds")} == {
        "deal": (16, 1), "round": (17, 9), "my_groups": (49, 27), "held": (112, 6), "used": (118, 6),
        "deals": (124, 270), "rounds": (394, 846)}
    for name in ("grouping", "grouping-final"):
        page = (Path(__file__).parent.parent / "docs" / "rules" / f"{name}.md").read_text()
        assert "For researchers: action codes and observation tensor" in page
