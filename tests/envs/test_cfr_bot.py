"""``benchmarks/solve.py`` and the ``cfr:PATH`` bot: a tiny solve (a subgame of the
smallest swapping), its exploitability falling, and the bot playing it or refusing
what it cannot play."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from blackwhite.bots import BOTS, BotSettingError, decision_for, make_bot_spec, parse_bot_spec
from blackwhite.arena import make_specs
from blackwhite.bots.cfr import PolicyError
from blackwhite.engine import make_game
from blackwhite.engine.encoding import encoding
from blackwhite.envs.openspiel import load

ROOT = Path(__file__).resolve().parents[2]
OPTIONS = {"tiles": 3, "max_ties": 1}
PLACES = [(0, ("place", 2, 0, 1)), (1, ("place", 1, 2, 0))]


def _solve_module() -> Any:
    spec = importlib.util.spec_from_file_location("bw_benchmark_solve", ROOT / "benchmarks" / "solve.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    if "tiles" not in make_game("swapping").options:
        pytest.skip("swapping has no small variant yet")
    enc = encoding("swapping", OPTIONS)
    prefix = [enc.encode(a) for _, a in PLACES]
    out = tmp_path_factory.mktemp("policy") / "swapping-sub.json"
    doc = _solve_module().solve("swapping", OPTIONS, 300, "cfr+", out, report_every=300, quiet=True, prefix=prefix)
    return out, doc


def test_solve_falls_tenfold_below_uniform(policy_file: tuple[Path, dict[str, Any]]) -> None:
    _, doc = policy_file
    assert doc["format"] == "blackwhite-policy/1" and doc["game"] == "swapping"
    assert doc["uniform_exploitability"] > 0
    assert doc["exploitability"] * 10 <= doc["uniform_exploitability"]
    for probs in doc["policy"].values():
        assert abs(sum(probs.values()) - 1.0) < 1e-3


def _subgame_state() -> Any:
    state = make_game("swapping", OPTIONS).new_initial_state()
    for seat, action in PLACES:
        state.apply(seat, action)
    return state


def test_cfr_bot_plays_the_subgame_from_the_view(policy_file: tuple[Path, dict[str, Any]]) -> None:
    """The bot builds the adapter's information-state string at every one of its
    decisions from its views and its own actions (the solved prefix included: it is
    offered only the prefix's move there, and plays it as a miss)."""
    path, _ = policy_file
    enc = encoding("swapping", OPTIONS)
    game = load("swapping", **OPTIONS)
    for seed in range(6):
        rng = random.Random(seed)
        bot = make_bot_spec(f"cfr:{path}:fallback=uniform")
        mine = seed % 2
        state = make_game("swapping", OPTIONS).new_initial_state()
        spiel = game.new_initial_state()
        checked = 0
        for seat, forced in PLACES:
            decision = decision_for(state, seat, rng)
            if seat == mine:
                decision.legal = [forced]
                assert bot.infostate(decision) == spiel.information_state_string(seat)  # type: ignore[attr-defined]
                assert bot.choose(decision) == forced
            state.apply(seat, forced)
            spiel.apply_action(enc.encode(forced))
        while not state.is_over():
            for seat in state.to_move():
                assert spiel.current_player() == seat
                if seat == mine:
                    decision = decision_for(state, seat, rng)
                    assert bot.infostate(decision) == spiel.information_state_string(seat)  # type: ignore[attr-defined]
                    action = bot.choose(decision)
                    checked += 1
                else:
                    action = rng.choice(enc.offered(state, seat))
                state.apply(seat, action)
                spiel.apply_action(enc.encode(action))
        assert state.is_over() and spiel.is_terminal() and checked > 0
        assert bot.misses == 1  # type: ignore[attr-defined]  # the prefix only


def test_cfr_bot_refuses_what_it_cannot_play(policy_file: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    path, doc = policy_file
    start = make_game("swapping", OPTIONS).new_initial_state()  # before the solved subgame
    with pytest.raises(PolicyError, match="no entry"):
        make_bot_spec(f"cfr:{path}").choose(decision_for(start, 0, random.Random(0)))
    lenient = make_bot_spec(f"cfr:{path}:fallback=uniform")
    assert lenient.choose(decision_for(start, 0, random.Random(0))) in start.legal_actions(0)
    assert lenient.misses == 1  # type: ignore[attr-defined]
    other = make_game("swapping", {"tiles": 3}).new_initial_state()  # other options
    with pytest.raises(PolicyError, match="solved for swapping"):
        make_bot_spec(f"cfr:{path}").choose(decision_for(other, 0, random.Random(0)))
    with pytest.raises(PolicyError, match="solved for swapping"):  # refused at setup
        make_specs("swapping", [f"cfr:{path}", "random"], 2, options={"tiles": 3})
    with pytest.raises(BotSettingError, match="cfr:PATH"):
        make_bot_spec("cfr")
    with pytest.raises(BotSettingError, match="does not exist"):
        make_bot_spec(f"cfr:{tmp_path / 'missing.json'}")
    bad = tmp_path / "bad.json"
    for text in ("{", json.dumps({"format": "x"}), json.dumps({**doc, "policy": {"k": {"a": 2}}})):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(BotSettingError):
            make_bot_spec(f"cfr:{bad}")
    with pytest.raises(BotSettingError, match="fallback"):
        make_bot_spec(f"cfr:{path}:fallback=maybe")


def test_cfr_is_a_file_bot_the_server_cannot_seat() -> None:
    assert parse_bot_spec("cfr:p.json:fallback=uniform") == ("cfr", {"path": "p.json", "fallback": "uniform"})
    assert "cfr" not in BOTS  # the server seats only BOTS: no remote client names a file
    from blackwhite.server.bots import check_spec

    with pytest.raises(ValueError, match="unknown bot"):
        check_spec("cfr:/etc/passwd")


def test_solve_walks_the_adapter_game(policy_file: tuple[Path, dict[str, Any]]) -> None:
    """Every key of the saved policy is a position the adapter can reach (its
    information-state string), so the keys are the adapter's, not a second copy."""
    path, doc = policy_file
    game = load("swapping", **OPTIONS)
    enc = encoding("swapping", OPTIONS)
    state = game.new_initial_state()
    for _, action in PLACES:
        state.apply_action(enc.encode(action))
    assert state.information_state_string(state.current_player()) in doc["policy"]


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "directory"])
def test_a_policy_path_that_is_not_a_regular_file_is_refused_at_once(special: str, tmp_path: Path) -> None:
    """/dev/zero would be read for ever and a FIFO would wait for a writer."""
    import os

    from blackwhite.bots.cfr import load_policy

    if special == "fifo":
        path = tmp_path / "policy.fifo"
        os.mkfifo(path)
    elif special == "directory":
        path = tmp_path
    else:
        path = Path(special)
    with pytest.raises(PolicyError, match="not a regular file"):
        load_policy(path)
