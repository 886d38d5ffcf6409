"""The research encoding of ``joust`` and ``joust-final`` (blackwhite/games/joust_encoding.py).

Random play under the offered actions (tests/random_play.py, lots drawn uniformly),
in the standard games and the small variants (options ``sets``, ``groups``,
``chips``), checks the codec, the length bound and the game type; the tensor's
secrecy is checked on the twins by tests/test_encoding_conformance.py; exact
enumeration checks that the split chance draws give the engine's lots.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from blackwhite.engine import State, load
from blackwhite.engine.core import Action, ChanceEvent, OptionError
from blackwhite.engine.encoding import encoding
from blackwhite.engine.record import replay
from blackwhite.engine.registry import make_game
from blackwhite.games.joust_encoding import JoustEncoding, JoustFinalEncoding
from tests.random_play import draw_chance, random_match

SMALL = [{"sets": 1, "groups": 1, "chips": 0}, {"sets": 2, "groups": 2, "chips": 5}]
ITEMS = {"0": ["inversion", "conceal"], "1": ["equaliser", "inversion", "conceal"]}
CASES: list[tuple[str, dict[str, Any]]] = [
    ("joust", {}),
    ("joust", {"sets": 1, "groups": 1, "chips": 0}),
    ("joust", {"sets": 2, "groups": 2, "chips": 4, "leftover_count": "held"}),
    ("joust-final", {}),
    ("joust-final", {"items": ITEMS}),
    ("joust-final", {"sets": 1, "groups": 1, "chips": 1, "items": ITEMS, "invert_scope": "phase"}),
    ("joust-final", {"sets": 2, "groups": 3, "chips": 3, "items": {"0": ["conceal"], "1": ["inversion"]}}),
]


@pytest.mark.parametrize(("gid", "options"), CASES)
def test_codec_round_trips_every_legal_action(gid: str, options: dict[str, Any]) -> None:
    enc = encoding(gid, options)
    n = enc.num_distinct_actions
    met: set[Any] = set()

    def check(state: State, seat: int, offered: list[Action]) -> None:
        legal = state.legal_actions(seat)
        for action in legal:
            code = enc.encode(action)
            assert 0 <= code < n
            assert enc.decode(code) == action
            met.add(action[0])
        assert offered == enc.offered(state, seat)
        assert set(offered) <= set(legal)
        # one name per tile: the `from` form, never the bare one as well
        assert not [a for a in offered if a[0] in ("play", "invert") and len(a) == 2]
        assert len({enc.encode(a) for a in offered}) == len(offered)

    for seed in range(12 if options else 4):
        random_match(enc, seed, check, weighted=False)
    assert {"bid", "fold", "next", "play", "pass"} <= met
    if gid == "joust-final" and options.get("items"):
        assert "invert" in met or "conceal" in met


@pytest.mark.parametrize(("gid", "options"), CASES[:2] + CASES[3:6])
def test_every_code_decodes_to_an_action_that_encodes_back(gid: str, options: dict[str, Any]) -> None:
    enc = encoding(gid, options)
    for code in range(enc.num_distinct_actions):
        assert enc.encode(enc.decode(code)) == code


def test_sizes_follow_the_options() -> None:
    assert encoding("joust").num_distinct_actions == 5 + 91 + 13 + 13 * 3 * 5
    assert encoding("joust-final").num_distinct_actions == 5 + 91 + 14 + 14 * 3 * 5 + 14 + 14 + 14 * 3 * 5 + 1
    small = encoding("joust", {"sets": 1, "groups": 1, "chips": 0})
    assert small.num_distinct_actions == 5 + 1 + 4 + 4 * 1 * 2
    assert small.observation_shape[0] < encoding("joust").observation_shape[0]
    assert isinstance(encoding("joust-final"), JoustFinalEncoding)
    assert type(encoding("joust")) is JoustEncoding


def test_codes_outside_the_codec_are_refused_naming_the_input() -> None:
    enc = encoding("joust")
    bad_actions: list[Any] = [
        ("smallest",), ("keep", 3), ("conceal",), ("bid", 91), ("bid", -1), ("play", 14), ("play", 0),
        ("play", 3, 4, 1), ("play", 3, 1, 5), ("next", 3), ("next", 1.0), ("bid", True), ("play", 3.0),
        ("play", 3, 1.0, 1), ("play", 3, 1, True), (), ("dance",), "fold",
    ]
    for bad in bad_actions:
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            enc.encode(bad)
    for code in (-1, enc.num_distinct_actions, 10**9, True, 2.0):
        with pytest.raises(ValueError, match="action code"):
            enc.decode(code)  # type: ignore[arg-type]
    np = pytest.importorskip("numpy")
    assert enc.decode(np.int64(5)) == ("bid", 0)  # an action space's integers decode too
    final = encoding("joust-final")
    with pytest.raises(ValueError, match="keepsmaller"):
        final.encode(("keepsmaller",))
    assert final.decode(final.encode(("keep", 0))) == ("keep", 0)


@pytest.mark.parametrize(("gid", "options"), CASES)
def test_matches_stay_within_the_length_bound_and_are_zero_sum(gid: str, options: dict[str, Any]) -> None:
    enc = encoding(gid, options)
    gt = enc.game_type
    assert gt.num_seats == 2 and gt.chance and gt.imperfect_information and gt.simultaneous
    assert gt.constant_sum and gt.utility_sum == 0.0
    longest = 0
    for seed in range(12 if options else 4):
        state, decisions = random_match(enc, 100 + seed, weighted=False)
        longest = max(longest, decisions)
        u = enc.utilities(state)
        assert sum(u) == gt.utility_sum
        assert all(gt.min_utility <= x <= gt.max_utility for x in u)
        assert state.winner() is not None  # the favoured seat breaks ties: never a draw
    assert longest <= enc.max_game_length


def test_length_bound_holds_in_the_longest_bidding_wars() -> None:
    """Seats that always raise by one and joust one tile at a time come close to the
    bound's worst case; they never pass it."""
    for gid in ("joust", "joust-final"):
        enc = encoding(gid, {"chips": 6, "sets": 2, "groups": 2})
        state = enc.game.new_initial_state()
        rng = random.Random(5)
        decisions = 0
        while not state.is_terminal():
            if state.chance_kind():
                state.apply_chance(draw_chance(enc, state, rng, weighted=False))
                continue
            seat = min(state.to_move())
            offered = enc.offered(state, seat)
            bids = sorted(a for a in offered if a[0] == "bid")
            plays = [a for a in offered if a[0] == "play"]
            if bids:
                action = bids[0]
            elif ("pass",) in offered and plays:
                action = plays[0]
            else:
                action = offered[0]
            state.apply(seat, action)
            decisions += 1
        assert decisions <= enc.max_game_length
        assert decisions > enc.max_game_length // 3


@pytest.mark.parametrize(("gid", "options"), [CASES[0], CASES[2], CASES[4], CASES[6]])
def test_observation_shape_is_fixed_for_every_seat_and_the_public(gid: str, options: dict[str, Any]) -> None:
    enc = encoding(gid, options)
    (size,) = enc.observation_shape

    def check(state: State, seat: int, offered: list[Action]) -> None:
        for who in (0, 1, None):
            obs = enc.observation(state.view(who))
            assert len(obs) == size
            assert all(isinstance(x, float) for x in obs)
        assert enc.observation(state.view(0)) != enc.observation(state.view(None))

    for seed in range(3):
        state, _ = random_match(enc, seed, check, weighted=False)
        assert len(enc.observation(state.view(None))) == size


# ---------------------------------------------------------------------- secrecy


def _record(gid: str, lots: list[dict[str, Any]], actions: list[tuple[int, str]]) -> dict[str, Any]:
    return {
        "format": "blackwhite-record/1",
        "game": gid,
        "options": {},
        "events": lots[:1] + [{"seat": s, "action": a} for s, a in actions],
    }


LOTS = [{"chance": "lots", "groups": [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], "leftover": [13]}]


def test_tensors_differ_where_the_view_does() -> None:
    """A seat's own different bid changes every view's tensor; the other seat's
    pending joust tile changes no tensor but its own."""
    enc = encoding("joust")
    a = load(_record("joust", LOTS, [(0, "bid 3")]))
    b = load(_record("joust", LOTS, [(0, "bid 4")]))
    for seat in (0, 1, None):
        assert enc.observation(a.view(seat)) != enc.observation(b.view(seat))
    # a whole set bought by the seats in turn, then P1 chooses its joust tile
    state = load(_record("joust", LOTS, []))
    rng = random.Random(3)
    while state.view(0)["phase"] != "joust-required":
        seat = min(state.to_move())
        offered = enc.offered(state, seat)
        state.apply(seat, ("fold",) if ("fold",) in offered and rng.random() < 0.5 else offered[0])
    tiles = enc.offered(state, 0)
    assert len(tiles) >= 2
    x, y = state.clone(), state.clone()
    x.apply(0, tiles[0])
    y.apply(0, tiles[1])
    assert enc.observation(x.view(0)) != enc.observation(y.view(0))
    for seat in (1, None):
        assert enc.observation(x.view(seat)) == enc.observation(y.view(seat))


def test_observation_reads_the_view_only() -> None:
    """The tensor of a view dict that lost every key the encoding does not read is
    unchanged (the log, the options), and a view of another seat is refused nothing."""
    enc = encoding("joust-final", {"items": ITEMS})
    state, _ = random_match(enc, 4, weighted=False)
    view = state.view(1)
    light = {k: v for k, v in view.items() if k not in ("log", "options", "game", "scores")}
    assert enc.observation(light) == enc.observation(view)


# ---------------------------------------------------------------------- chance


def _engine_distribution(gid: str, options: dict[str, Any]) -> dict[str, Fraction]:
    """The engine's lots, exactly: every order its shuffle can produce, equally likely."""
    game = make_game(gid, options)
    state = game.new_initial_state()

    class Fixed(random.Random):
        order: tuple[int, ...] = ()

        def shuffle(self, x: Any) -> None:  # type: ignore[override]
            x[:] = [x[i] for i in self.order]

    tiles = game.top - game.low + 1
    out: Counter[str] = Counter()
    perms = list(itertools.permutations(range(tiles)))
    for perm in perms:
        rng = Fixed()
        rng.order = perm
        out[repr(state.sample_chance(rng))] += 1
    return {k: Fraction(v, len(perms)) for k, v in out.items()}


def _draw_distribution(gid: str, options: dict[str, Any]) -> dict[str, Fraction]:
    enc = encoding(gid, options)
    state = enc.game.new_initial_state()
    out: dict[str, Fraction] = {}

    def walk(draws: list[int], p: Fraction) -> None:
        outcomes = enc.chance_outcomes(state, draws)
        if not outcomes:
            key = repr(enc.chance_event(state, draws))
            out[key] = out.get(key, Fraction(0)) + p
            return
        total = Fraction(0)
        for v, q in outcomes:
            frac = Fraction(q).limit_denominator(1000)
            total += frac
            walk(draws + [v], p * frac)
        assert total == 1

    walk([], Fraction(1))
    return out


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
@pytest.mark.parametrize("groups", [1, 2])
def test_split_draws_give_exactly_the_engines_lots(gid: str, groups: int) -> None:
    options = {"groups": groups, "sets": 1}
    drawn = _draw_distribution(gid, options)
    assert drawn == _engine_distribution(gid, options)
    state = make_game(gid, options).new_initial_state()
    for key in drawn:  # every event the draws build is one the engine accepts
        event = eval(key, {"ChanceEvent": ChanceEvent})  # noqa: S307 - our own repr
        state.check_chance(event)


def test_standard_lots_by_draws_match_the_engine_by_chi_square() -> None:
    """In the standard game: which tile is the leftover, over many draws of each kind."""
    enc = encoding("joust")
    state = enc.game.new_initial_state()
    rng = random.Random(11)
    n = 6500
    ours = Counter(draw_chance(enc, state, rng, weighted=False).data["leftover"][0] for _ in range(n))
    theirs = Counter(state.sample_chance(rng).data["leftover"][0] for _ in range(n))
    expected = n / 13
    for counts in (ours, theirs):
        chi2 = sum((counts[v] - expected) ** 2 / expected for v in range(1, 14))
        assert chi2 < 32.9  # 12 degrees of freedom, p = 0.001


def test_chance_draws_are_refused_when_wrong() -> None:
    enc = encoding("joust", {"groups": 1})
    state = enc.game.new_initial_state()
    for bad in ([1, 1], [0], [5], [1, 2, 3, 4]):
        with pytest.raises(ValueError, match="draws"):
            enc.chance_outcomes(state, bad)
    with pytest.raises(ValueError, match="incomplete"):
        enc.chance_event(state, [1, 2])
    state.apply_chance(enc.chance_event(state, [4, 1, 2]))
    assert state.view(None)["lots"][0]["leftovers"] == [{"set": 1, "owner": None, "value": None}]
    with pytest.raises(ValueError, match="no chance step"):
        enc.chance_outcomes(state, [])


# ---------------------------------------------------------------------- variants


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_variant_options_are_checked(gid: str) -> None:
    for bad in ({"sets": 0}, {"sets": 4}, {"groups": 0}, {"groups": 5}, {"sets": True}, {"groups": "2"}):
        with pytest.raises(OptionError, match="sets|groups"):
            make_game(gid, bad)
    game = make_game(gid, {"sets": 1, "groups": 2})
    assert (game.sets, game.groups, game.top) == (1, 2, 7)  # type: ignore[attr-defined]
    assert make_game(gid).top == 13  # type: ignore[attr-defined]


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
def test_a_variant_record_states_its_options_and_replays(gid: str) -> None:
    options = {"sets": 2, "groups": 2, "chips": 5}
    enc = encoding(gid, options)
    state, _ = random_match(enc, 9, weighted=False)
    record = state.to_record()
    assert {k: record["options"][k] for k in options} == options
    assert sum(1 for e in record["events"] if "chance" in e) == 2
    again = replay(record).state
    assert again.is_terminal() and again.scores() == state.scores()
    assert again.view(0)["tile_range"] == {"lowest": enc.game.low, "highest": 7}  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="tile"):
        load({**record, "options": {**options, "groups": 1}})


@pytest.mark.parametrize("gid", ["joust", "joust-final"])
@pytest.mark.parametrize("options", SMALL)
def test_the_bots_play_the_variants(gid: str, options: dict[str, Any]) -> None:
    from blackwhite.bots import make_bot
    from blackwhite.bots.match import play_match

    game = make_game(gid, options)
    for seed, names in enumerate((("heuristic", "random"), ("random", "heuristic"), ("ismcts", "heuristic"))):
        bots = [make_bot(n, iterations=20) if n == "ismcts" else make_bot(n) for n in names]
        state = play_match(game, bots, seed)
        assert state.is_over()
        assert state.view(0)["tile_range"]["highest"] == 3 * options["groups"] + 1


def test_a_timeouts_pending_stand_in_is_encoded_and_stays_secret() -> None:
    """A required tile played by the clock (``play smallest``) is the seat's pending
    choice: its own tensor shows it, the other seat's and the public ones do not."""
    from blackwhite.engine.core import TIMEOUT

    enc = encoding("joust")
    state = load(_record("joust", LOTS, []))
    while state.view(0)["phase"] != "joust-required":
        seat = min(state.to_move())
        state.apply(seat, enc.offered(state, seat)[0])
    before = [enc.observation(state.view(s)) for s in (0, 1, None)]
    state.apply(0, TIMEOUT)
    assert state.view(0)["my_pending"] == "play smallest"
    after = [enc.observation(state.view(s)) for s in (0, 1, None)]
    block = enc.blocks["pending"]  # type: ignore[attr-defined]
    assert after[0][block.start : block.start + 4] == [1.0, 0.0, 0.0, 1.0]
    # the others learn only that P1 has chosen (submitted, to_move), nothing of the tile
    assert after[1][block.start : block.start + block.size] == [0.0] * block.size
    assert before[1] != after[1] and before[2] != after[2]


# ----------------------------------------------------------------- which variants hide values


def _public_classes(gid: str, groups: int) -> tuple[int, list[int]]:
    """(number of possible lots, sizes of the classes of lots with one public tensor
    at the start): a lot alone in its class is given away by its colours."""
    low = 0 if gid == "joust-final" else 1
    tiles = list(range(low, 3 * groups + 2))
    seen: dict[tuple[float, ...], int] = {}
    lots = 0
    for chosen in itertools.permutations(itertools.combinations(tiles, 3), groups):
        flat = [t for g in chosen for t in g]
        if len(set(flat)) != len(flat):
            continue
        left = [t for t in tiles if t not in flat]
        record = {
            "game": gid,
            "options": {"sets": 1, "groups": groups, "chips": 0},
            "events": [{"chance": "lots", "groups": [list(g) for g in chosen], "leftover": left}],
        }
        state = load(record)
        lots += 1
        key = tuple(encoding(state.game).observation(state.view(None)))
        seen[key] = seen.get(key, 0) + 1
    return lots, sorted(seen.values())


def test_groups_1_hides_no_tile_value_and_the_pages_say_so() -> None:
    """joust with one group: every lot has its own colour pattern, so a solver of that
    variant learns nothing about hidden values; the pages must not promise them."""
    lots, classes = _public_classes("joust", 1)
    assert lots == 4 and classes == [1, 1, 1, 1]
    lots, classes = _public_classes("joust-final", 1)
    assert lots == 10 and classes == [1, 1, 1, 1, 1, 1, 4]
    lots, classes = _public_classes("joust", 2)
    assert lots == 140 and len(classes) == 33 and classes.count(1) == 4
    page = open("docs/rules/joust.md", encoding="utf-8").read()
    assert "`groups: 1` hides no tile value" in page
    assert "`groups: 2` is the smallest variant with hidden values" in page
    assert "auction of secret tiles in groups" not in page
    final_page = open("docs/rules/joust-final.md", encoding="utf-8").read()
    assert "`groups: 2` is the smallest variant" in final_page
    research = open("docs/research.md", encoding="utf-8").read()
    assert "no hidden tile values" in research
