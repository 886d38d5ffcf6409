"""A game written from docs/designing-a-game.md alone, by someone outside the project:
three seats, a secret deal at random, tiles played face down by all at once, options
of every kind with ``OptionInfo``, per-seat views, a ranking and a clock rule.  It is
planted as an installed package (its entry points and modules, as pip leaves them) and
must work the way the worked example does.

``triad-rules`` brings its rules only (the generic sampler redraws its deal);
``triad-sampled`` is the same game with the sampler its designer wrote;
``triad-awaited`` lists legal actions for a seat that has already submitted.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterator

import pytest

from blackwhite.engine import State, conformance, make_game
from tests.plugin_games import installed, plant

#: the outsider's rules module, as written from the designer's page
TRIAD = '''

import random
import re
from typing import Any, ClassVar

from blackwhite.engine import (
    ActionSyntaxError, Action, ChanceEvent, ClockRule, Game, IllegalActionError,
    IllegalChanceError, OptionError, OptionInfo, State, colour, face_down, face_up, is_int,
)

PLAY = re.compile(r"^\\s*play\\s+([0-9]+)\\s*$", re.IGNORECASE)


class Triad(Game):
    id = "triad"
    title = "Triad"
    num_seats = 3
    option_defaults: ClassVar[dict[str, Any]] = {"hand": 4, "low": False, "reveal": "nothing"}
    option_info: ClassVar[dict[str, OptionInfo]] = {
        "hand": OptionInfo("Hand", "Tiles dealt to each seat (the deck holds three hands).", "number",
                           minimum=2, maximum=5),
        "low": OptionInfo("Lowest wins", "The lowest tile wins a round instead of the highest.", "bool"),
        "reveal": OptionInfo("Reveal", "What is shown after a round besides the colours.", "choice",
                             choices=(("nothing", "only who won"), ("winning", "who won and the winning tile"))),
    }
    clock = ClockRule({"play": 30.0}, reserve=120.0, on_timeout="the lowest tile in hand is played")
    action_help: ClassVar[dict[str, str]] = {"play": "play a tile face down"}

    def validate_options(self, options: dict[str, Any]) -> None:
        if not is_int(options["hand"]) or not 2 <= options["hand"] <= 5:
            raise OptionError(f"option hand must be a whole number 2..5, got {options['hand']!r}")
        if not isinstance(options["low"], bool):
            raise OptionError(f"option low must be true or false, got {options['low']!r}")
        if options["reveal"] not in ("nothing", "winning"):
            raise OptionError(f"option reveal must be 'nothing' or 'winning', got {options['reveal']!r}")

    def new_initial_state(self) -> "TriadState":
        return TriadState(self)

    def max_length(self) -> int:
        return 1 + 3 * self.options["hand"]

    def action_space(self) -> list[tuple[Any, ...]]:
        return [("play", t) for t in range(3 * self.options["hand"])]


class TriadState(State[Any]):
    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.hands: list[list[int]] = [[], [], []]
        self.dealt = False
        self.rounds: list[dict[str, Any]] = []   # {"tiles": [t0, t1, t2], "winner": s}
        self.wins = [0, 0, 0]

    # -- chance --
    def chance_kind(self) -> str | None:
        return None if self.dealt else "deal"

    def sample_chance(self, rng: random.Random) -> ChanceEvent:
        n = self.game.options["hand"]
        deck = list(range(3 * n))
        rng.shuffle(deck)
        return ChanceEvent("deal", {"hands": [sorted(deck[i * n:(i + 1) * n]) for i in range(3)]})

    def check_chance(self, event: ChanceEvent) -> None:
        n = self.game.options["hand"]
        hands = event.data.get("hands")
        if event.kind != "deal" or self.dealt:
            raise IllegalChanceError(event.kind, f"no {event.kind} now")
        if (not isinstance(hands, list) or len(hands) != 3
                or not all(isinstance(h, list) and len(h) == n and all(is_int(t) for t in h) for h in hands)
                or sorted(t for h in hands for t in h) != list(range(3 * n))):
            raise IllegalChanceError(event.kind, f"a deal is three hands of {n} tiles sharing out 0..{3 * n - 1}")

    def _do_chance(self, event: ChanceEvent) -> None:
        self.hands = [sorted(h) for h in event.data["hands"]]
        self.dealt = True
        for s in range(3):
            self.note(s, f"you are dealt {', '.join(map(str, self.hands[s]))}")

    # -- turns --
    def awaited(self) -> tuple[int, ...]:
        if not self.dealt or self.is_terminal():
            return ()
        return (0, 1, 2)

    def simultaneous(self) -> bool:
        return True

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_move():
            return []
        return [("play", t) for t in self.hands[seat]]

    def check(self, seat: int, action: Action) -> None:
        if len(action) != 2 or action[0] != "play" or not is_int(action[1]):
            raise IllegalActionError(repr(action), f"{action!r} is not an action of triad: an action is play N")
        if action[1] not in self.hands[seat]:
            raise IllegalActionError(f"play {action[1]}",
                                     f"you do not hold {action[1]}: play a tile in your hand: {', '.join(map(str, self.hands[seat]))}")

    def _resolve(self, actions: dict[int, Action]) -> None:
        tiles = [actions[s][1] for s in range(3)]
        for s in range(3):
            self.hands[s].remove(tiles[s])
        best = min(tiles) if self.game.options["low"] else max(tiles)
        w = tiles.index(best)
        self.wins[w] += 1
        self.rounds.append({"tiles": tiles, "winner": w})
        if self.track:
            cols = ", ".join(f"P{s + 1} {colour(t)}" for s, t in enumerate(tiles))
            extra = f" with {best}" if self.game.options["reveal"] == "winning" else ""
            self.note(None, f"round {len(self.rounds)}: {cols}; P{w + 1} wins{extra}")

    def _do(self, seat: int, action: Action) -> None:
        raise AssertionError("triad's steps are simultaneous")

    def parse_action(self, seat: int, text: str) -> Action:
        m = PLAY.match(text)
        if not m:
            raise ActionSyntaxError(text, f"cannot read {text!r}: write play N, e.g. play 4")
        return ("play", int(m.group(1)))

    def format_action(self, action: Action) -> str:
        return f"play {action[1]}"

    # -- the end --
    def is_terminal(self) -> bool:
        return len(self.rounds) == self.game.options["hand"]

    def scores(self) -> tuple[int, ...]:
        return tuple(self.wins)

    def ranking(self) -> tuple[int, ...]:
        dmo = self.game.dmo
        return tuple(sorted(range(3), key=lambda s: (-self.wins[s], s != dmo, s)))

    def winner(self) -> int | None:
        top = max(self.wins)
        leaders = [s for s in range(3) if self.wins[s] == top]
        if len(leaders) == 1:
            return leaders[0]
        return self.game.dmo if self.game.dmo in leaders else None

    # -- views --
    def _view(self, seat: int | None) -> dict[str, Any]:
        reveal = self.game.options["reveal"] == "winning"
        rounds = []
        for r in self.rounds:
            plays = []
            for s, t in enumerate(r["tiles"]):
                if s == seat or (reveal and s == r["winner"]):
                    plays.append(face_up(t))
                else:
                    plays.append(face_down(colour(t)))
            rounds.append({"plays": plays, "winner": r["winner"]})
        view: dict[str, Any] = {"rounds": rounds, "wins": list(self.wins),
                                "hand_sizes": [len(h) for h in self.hands]}
        if seat is not None:
            view["hand"] = [face_up(t) for t in self.hands[seat]]
        return view

    def _copy_state(self, new: State[Any]) -> None:
        assert isinstance(new, TriadState)
        new.hands = [list(h) for h in self.hands]
        new.rounds = [{"tiles": list(r["tiles"]), "winner": r["winner"]} for r in self.rounds]
        new.wins = list(self.wins)

    # -- the clock --
    def timeout_action(self, seat: int) -> Action | None:
        return ("play", min(self.hands[seat])) if self.hands[seat] else None

    def clock_phase(self, seat: int) -> str:
        return "play"


class TriadRules(Triad):
    id = "triad-rules"


class TriadSampled(Triad):
    id = "triad-sampled"


class TriadAwaited(Triad):
    id = "triad-awaited"

    def new_initial_state(self) -> "TriadState":
        return AwaitedState(self)


class AwaitedState(TriadState):
    def legal_actions(self, seat: int) -> list[Action]:
        return [("play", t) for t in self.hands[seat]] if seat in self.awaited() else []


ENTRY = GameEntry(id="triad-rules", rules="bw_triad:TriadRules", rules_page="bw_triad:rules.md")
SAMPLED = GameEntry(id="triad-sampled", rules="bw_triad:TriadSampled", rules_page="bw_triad:rules.md",
                    sampler="bw_triad.sampler")
AWAITED = GameEntry(id="triad-awaited", rules="bw_triad:TriadAwaited", rules_page="bw_triad:rules.md")
'''

#: its sampler
SAMPLER = '''

import random
from typing import Any

from blackwhite.engine import State, colour

from bw_triad import TriadState


def resample(state: State[Any], seat: int, rng: random.Random) -> State[Any]:
    assert isinstance(state, TriadState)
    world = state.without_others_pending(seat)
    assert isinstance(world, TriadState)
    opts = state.game.options
    n, low, reveal = opts["hand"], opts["low"], opts["reveal"] == "winning"
    others = [s for s in range(3) if s != seat]
    known: set[int] = set(state.hands[seat])
    for r in state.rounds:
        known.add(r["tiles"][seat])
        if reveal:
            known.add(r["tiles"][r["winner"]])
    pool = sorted(set(range(3 * n)) - known)  # sorted: the sample depends on what the seat knows only

    def fits(tiles: list[int], winner: int) -> bool:
        best = min(tiles) if low else max(tiles)
        return tiles[winner] == best

    for _ in range(10_000):
        free = list(pool)
        rng.shuffle(free)
        rounds = []
        ok = True
        for r in state.rounds:
            tiles = list(r["tiles"])
            for s in others:
                if reveal and s == r["winner"]:
                    continue
                want = colour(r["tiles"][s])  # the colour everyone saw
                pick = next((t for t in free if colour(t) == want), None)
                if pick is None:
                    ok = False
                    break
                free.remove(pick)
                tiles[s] = pick
            if not ok or not fits(tiles, r["winner"]):
                ok = False
                break
            rounds.append({"tiles": tiles, "winner": r["winner"]})
        if not ok:
            continue
        for s in others:
            k = len(state.hands[s])
            world.hands[s] = sorted(free[:k])
            free = free[k:]
        world.rounds = rounds
        return world
    raise RuntimeError("triad: no world agrees with what the seat saw")
'''


@pytest.fixture(scope="module")
def triad(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    where = tmp_path_factory.mktemp("outsider")
    plant(where, "bw-triad", {"triad-rules": "bw_triad:ENTRY", "triad-sampled": "bw_triad:SAMPLED",
                              "triad-awaited": "bw_triad:AWAITED"}, {
        "bw_triad/__init__.py": TRIAD.replace("from blackwhite.engine import (",
                                              "from blackwhite.engine import (GameEntry, "),
        "bw_triad/sampler.py": SAMPLER,
        "bw_triad/rules.md": "# Triad (`triad-rules`)\n\nThree seats, a secret deal, plays face down at once.\n",
    })
    with installed(where, ["bw_triad"]):
        yield where


def _dealt(seed: int, rounds: int) -> State[Any]:
    """A tracked match of triad after its deal and ``rounds`` rounds of random play."""
    state = make_game("triad-rules").new_initial_state()
    rng = random.Random(seed)
    state.apply_chance(state.sample_chance(rng))
    for _ in range(rounds):
        for seat in state.to_move():
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state


def test_the_generic_sampler_redraws_a_private_deal(triad: Path) -> None:
    """A seat sees one hand of C(12, 4) = 495: the generic sampler draws deals until one
    agrees with it, and deals again when later rounds rule a deal out (it gave up
    after 16 draws, saying it had spent 20000)."""
    for seed, rounds in [(0, 0), (1, 1), (2, 2)]:
        state = _dealt(seed, rounds)
        for seat in range(3):
            world = state.resample(seat, random.Random(1000 + seed))
            assert world.view(seat)["hand"] == state.view(seat)["hand"]
            assert world.info_key(seat) == state.info_key(seat)


def test_every_check_of_the_kit_passes(triad: Path) -> None:
    failures = [f"{o.check}: {f.message}" for o in conformance.run("triad-sampled", playouts=100)
                for f in o.failures]
    assert not failures, failures


def test_a_seat_that_has_submitted_must_list_no_action(triad: Path) -> None:
    """The kit said "P1 is not awaited" of a seat that ``awaited()`` lists: it names
    what is wrong, a seat with a pending submission that still lists actions."""
    [outcome] = conformance.run("triad-awaited", playouts=1, only=["playouts"])
    message = outcome.failures[0].message
    assert "has already submitted" in message and "to_move()" in message, message


def test_the_adapters_take_a_game_with_a_deal_and_no_encoding(triad: Path) -> None:
    """Rules only, a chance deal, no encoding: PettingZoo's and OpenSpiel's own tests
    pass (the adapters refused any game with chance steps that shipped no encoding)."""
    pyspiel = pytest.importorskip("pyspiel")
    pettingzoo_test = pytest.importorskip("pettingzoo.test")
    from blackwhite.envs import pettingzoo_env
    from blackwhite.envs.openspiel import load as spiel_load

    pettingzoo_test.api_test(pettingzoo_env("triad-rules"), num_cycles=60, verbose_progress=False)
    pettingzoo_test.seed_test(lambda: pettingzoo_env("triad-rules"), num_cycles=20)
    game = spiel_load("triad-rules", hand=2)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_kit_says_when_the_generic_sampler_gives_up(triad: Path) -> None:
    """The generic sampler's budget running out is blackwhite's sampler giving up on a
    private deal, not "the game's code raised": the kit says so and what to ship."""
    from blackwhite.engine.core import SamplingError, replay_world

    state = _dealt(3, 2)
    with pytest.raises(SamplingError) as raised:
        replay_world(state, 1, random.Random(0), budget=10)
    message = conformance.explain(raised.value)
    assert "the game's code raised" not in message, message
    assert "blackwhite's generic sampler" in message and "sampler of its own" in message, message


def test_analysis_judges_a_game_that_brings_only_its_rules(triad: Path) -> None:
    """The analysis kept untracked copies of each decision's state, which the generic
    sampler cannot replay: ``blackwhite analyse`` of any rules-only game crashed."""
    from blackwhite.analysis.core import Settings, analyse

    state = make_game("triad-rules", {"hand": 2}).new_initial_state()
    rng = random.Random(4)
    while not state.is_over():
        if state.is_chance():
            state.apply_chance(state.sample_chance(rng))
        else:
            seat = state.to_move()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    result = analyse(state.to_record(), settings=Settings(worlds=2, search=0))
    assert len(result.decisions) == 6


def test_ismcts_asked_to_model_the_others_plays_a_game_without_a_heuristic(triad: Path) -> None:
    """``model``/``rollout`` ask for the game's heuristic; a game without one is
    searched with the others in their own trees and random rollouts (it asserted)."""
    from blackwhite.bots import decision_for, make_bot

    state = _dealt(5, 1)
    seat = state.to_move()[0]
    for settings in ({"iterations": 8, "model": 1.0, "rollout": 1.0}, {"iterations": 8, "adapt": True}):
        action = make_bot("ismcts", **settings).choose(decision_for(state, seat, random.Random(3)))
        assert action in state.legal_actions(seat)


def test_openspiel_resamples_a_game_without_a_sampler(triad: Path) -> None:
    """The adapter kept engine states without their history, which the generic sampler
    replays: ``resample_from_infostate`` raised SamplingError for every such game."""
    pyspiel = pytest.importorskip("pyspiel")
    from blackwhite.envs.openspiel import load as spiel_load

    game = spiel_load("triad-rules", hand=2)
    rng = random.Random(2)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice([o for o, _ in state.chance_outcomes()]))
    for _ in range(4):  # into the second round
        state.apply_action(rng.choice(state.legal_actions()))
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(2):
        world = state.resample_from_infostate(p, sampler)
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.legal_actions() == state.legal_actions()
        again = world.resample_from_infostate(p, sampler)  # a world's world too
        assert again.information_state_string(p) == state.information_state_string(p)
