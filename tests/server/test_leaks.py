"""Leak test: whole matches of every game, bots in every seat, a WebSocket on every seat,
one spectator and the host; every message each socket receives is checked against
what that socket may know.

The expected views are rebuilt independently of the server: after the end, the match
record is exported and replayed event by event with the engine.  Each pushed view of a
seat must equal that seat's engine view at some prefix of the history, prefixes in
order; the spectator's and the host's must equal the public view ``view(None)``, and
a host of a match created with ``host_sees_all`` must also get every seat's view of the
same prefix (nobody else may).  Then a scan: no message may contain the notation of
another seat's action (a placed row, a grouping, a hidden domino, a secret bid...) that
the receiver's own view at that moment does not contain.

A second test plays matches of people and has every seat send refused requests at each
step (stale, out of turn, garbage, other seats' legal actions, an early export): no
refusal may name another seat's hidden action.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from blackwhite.engine import ChanceEvent, State, game_ids, load, make_game
from blackwhite.engine.record import parse_header

from .client import Api, ThreadServer, dumps, ws_url

websockets = pytest.importorskip("websockets")

#: seconds a whole match may take before the test gives up on it
MATCH_TIMEOUT = 120.0

Viewer = int | None  # a seat, or None for the public view


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    pytest.importorskip("blackwhite.server.app")
    db = tmp_path_factory.mktemp("leaks") / "blackwhite.db"
    with ThreadServer(f"sqlite:///{db}", bot_workers=1, rate_limit=False) as running:
        yield running


# ------------------------------------------------------------------ the expected side


@dataclass
class Prefix:
    """The engine's views after the first ``events`` events of the record."""

    events: int
    views: dict[Viewer, dict[str, Any] | str]  # a view, or the error the engine raised


def _safe_view(state: State, viewer: Viewer) -> dict[str, Any] | str:
    try:
        return state.view(viewer)
    except Exception as exc:  # the engine's own bug: reported by the check that needs it
        return f"the engine's view({viewer}) raised {type(exc).__name__}: {exc}"


def replay_prefixes(record: dict[str, Any], viewers: list[Viewer]) -> list[Prefix]:
    """Every prefix's views, replaying the record with the engine one event at a time
    (a record that gives a seed draws its chance events as ``blackwhite referee`` does)."""
    state, _seats, seed, events = parse_header(record)
    rng = random.Random(seed) if seed is not None else None
    out = [Prefix(0, {v: _safe_view(state, v) for v in viewers})]
    for index, event in enumerate(events):
        if "chance" in event:
            data = {k: v for k, v in event.items() if k != "chance"}
            state.apply_chance(ChanceEvent(event["chance"], data))
        else:
            action = state.parse(event["seat"], event["action"])
            if rng is not None and state.is_chance() and action != ("resign",) and not state.is_free(action):
                state.play_chance(rng)
            state.apply(event["seat"], action)
        out.append(Prefix(index + 1, {v: _safe_view(state, v) for v in viewers}))
    if rng is not None and not state.is_over():
        state.play_chance(rng)
        out.append(Prefix(len(events), {v: _safe_view(state, v) for v in viewers}))
    return out


def secret_texts(record: dict[str, Any], viewer: Viewer) -> set[str]:
    """Notation of every action of a seat other than ``viewer`` (all seats for the public)."""
    others = {e["action"].strip() for e in record["events"] if "action" in e and e["seat"] != viewer}
    own = {e["action"].strip() for e in record["events"] if "action" in e and e["seat"] == viewer}
    return {t for t in others - own if t.lower() not in ("resign", "timeout")}


# ------------------------------------------------------------------ the observed side


@dataclass
class Watcher:
    """One socket and every message it received, in order."""

    name: str
    viewer: Viewer
    role: str
    url: str
    host_sees_all: bool = False
    #: a host of a host_sees_all match: pushed every seat's view too
    full: bool = False
    messages: list[dict[str, Any]] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    problem: str | None = None


def _finished(message: dict[str, Any]) -> bool:
    view = message.get("view")
    return isinstance(view, dict) and bool(view.get("finished"))


async def watch(watcher: Watcher) -> None:
    """Collect messages until a view says the match is finished."""
    try:
        async with websockets.connect(watcher.url, max_size=None, open_timeout=30) as ws:
            while True:
                raw = await ws.recv()
                message = json.loads(raw)
                watcher.messages.append(message)
                watcher.ready.set()
                if _finished(message):
                    return
    except Exception as exc:
        watcher.problem = f"{type(exc).__name__}: {exc}"
    finally:
        watcher.ready.set()


async def play_watched(
    base_url: str, game: str, bots: list[str], host_sees_all: bool
) -> tuple[dict[str, Any], list[Watcher]]:
    with httpx.Client(base_url=base_url, timeout=30) as http:
        api = Api(http)
        created = api.create(game, [{"bot": b} for b in bots], paused=True, host_sees_all=host_sees_all)
        if created.summary.get("status") != "paused":
            api.host_op(created.id, created.host_token, "pause")
        watchers = []
        for seat, token in enumerate(created.seat_tokens):
            assert token, (
                f"POST /api/matches gave no token for bot seat {seat}: the leak test watches bots' seats "
                "with their (watch-only) seat tokens"
            )
            url = ws_url(base_url, created.id, token)
            watchers.append(Watcher(f"seat {seat}", seat, "seat", url, host_sees_all))
        url = ws_url(base_url, created.id, created.spectator_token)
        watchers.append(Watcher("spectator", None, "spectator", url, host_sees_all))
        url = ws_url(base_url, created.id, created.host_token)
        watchers.append(Watcher("host", None, "host", url, host_sees_all, full=host_sees_all))
        tasks = [asyncio.create_task(watch(w)) for w in watchers]
        await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in watchers)), 30)
        await asyncio.to_thread(api.host_op, created.id, created.host_token, "resume")
        done, pending = await asyncio.wait(tasks, timeout=MATCH_TIMEOUT)
        for task in pending:
            task.cancel()
        record = await asyncio.to_thread(api.record, created.id, created.spectator_token)
        summary = await asyncio.to_thread(api.summary, created.id, created.host_token)
        assert not pending, f"{game}: sockets still open after {MATCH_TIMEOUT} s; match is {summary['status']}"
        return record, watchers


# ------------------------------------------------------------------ the checks


def _expected(prefix: Prefix, w: Watcher) -> Any:
    """What ``w`` may be pushed at ``prefix``: its view, and for a host who sees all
    also every seat's view (a string: the engine could not build one)."""
    own = prefix.views[w.viewer]
    if not w.full or isinstance(own, str):
        return own
    seats = [prefix.views[s] for s in sorted(v for v in prefix.views if v is not None)]
    broken = next((v for v in seats if isinstance(v, str)), None)
    return broken if broken is not None else (own, seats)


def _observed(message: dict[str, Any], w: Watcher) -> Any:
    return (message.get("view"), message.get("views")) if w.full else message.get("view")


def check_watcher(game: str, record: dict[str, Any], prefixes: list[Prefix], w: Watcher) -> None:
    broken = next((e for p in prefixes if isinstance(e := _expected(p, w), str)), None)
    if broken is not None:
        pytest.fail(f"{game} {w.name}: cannot check: {broken}")
    assert w.problem is None, f"{game} {w.name}: the socket failed: {w.problem}"
    assert w.messages, f"{game} {w.name}: no message at all"
    secrets = set() if w.full else secret_texts(record, w.viewer)
    cursor = 0
    last_version = -1
    for n, message in enumerate(w.messages):
        where = f"{game} {w.name} message {n}"
        assert message.get("type") == "view", f"{where}: a watcher that sends nothing got {dumps(message)[:300]}"
        assert message.get("role") == w.role, f"{where}: role {message.get('role')!r}, expected {w.role!r}"
        assert message.get("seat") == w.viewer, f"{where}: seat {message.get('seat')!r}, expected {w.viewer!r}"
        assert message.get("host_sees_all") is w.host_sees_all, f"{where}: host_sees_all is not {w.host_sees_all}"
        assert bool(message.get("full")) is w.full, f"{where}: 'full' must be there only for a host who sees all"
        if not w.full:
            assert "views" not in message, f"{where}: carries other seats' views"
        version = message.get("version")
        # pause/resume push again without a new version; a version never goes back
        assert isinstance(version, int) and version >= last_version, f"{where}: version {version!r} after {last_version}"
        last_version = version
        observed = _observed(message, w)
        for j in range(cursor, len(prefixes)):
            if observed == _expected(prefixes[j], w):
                cursor = j
                break
        else:
            nearest = prefixes[cursor].views[w.viewer]
            assert isinstance(nearest, dict)
            got = message.get("view") or {}
            differ = sorted(k for k in set(nearest) | set(got) if nearest.get(k) != got.get(k))
            pytest.fail(
                f"{where}: the payload is no engine view of any prefix from event "
                f"{prefixes[cursor].events} on; fields of 'view' differing from that prefix: {differ}"
            )
        told = dumps(prefixes[cursor].views[w.viewer]).lower()
        text = dumps(message).lower()
        leaked = sorted(s for s in secrets if s.lower() not in told and s.lower() in text)
        assert not leaked, f"{where}: carries {leaked}, which its view at event {prefixes[cursor].events} does not"
    assert _observed(w.messages[-1], w) == _expected(prefixes[-1], w), f"{game} {w.name}: the last push is not the final view"


GAMES = game_ids()


def bots_for(game: str) -> list[str]:
    """Cheap bots: heuristic in seat 0, random elsewhere (yellow has three seats)."""
    seats = make_game(game).num_seats
    return ["heuristic"] + ["random"] * (seats - 1)


#: games whose leak-test match is created with a host who sees everything live: every
#: other installed game, so both kinds of host are watched (no list of games here)
HOST_SEES_ALL = set(game_ids()[::2])


@dataclass
class Played:
    """One watched match of a game: its record, its sockets, the engine's prefixes."""

    record: dict[str, Any]
    watchers: list[Watcher]
    prefixes: list[Prefix]


@pytest.fixture(scope="module")
def played(server: ThreadServer) -> dict[str, Played]:
    """Matches played so far, by game (each game is played once for both tests below)."""
    return {}


def play_once(server: ThreadServer, played: dict[str, Played], game: str) -> Played:
    if game not in played:
        bots = bots_for(game)
        record, watchers = asyncio.run(play_watched(server.base_url, game, bots, game in HOST_SEES_ALL))
        assert load(record).is_over(), f"{game}: the exported record does not replay to a finished match"
        viewers: list[Viewer] = [*range(len(bots)), None]
        played[game] = Played(record, watchers, replay_prefixes(record, viewers))
    return played[game]


@pytest.mark.parametrize("game", GAMES)
def test_every_seat_message_is_that_seats_view(server: ThreadServer, played: dict[str, Played], game: str) -> None:
    match = play_once(server, played, game)
    for w in match.watchers:
        if w.role == "seat":
            check_watcher(game, match.record, match.prefixes, w)


@pytest.mark.parametrize("game", GAMES)
def test_every_spectator_and_host_message_is_public(
    server: ThreadServer, played: dict[str, Played], game: str
) -> None:
    """The spectator's and the host's sockets: the public view view(None) (and every
    seat's view for a host who sees all).  Needs each game's view(None)."""
    match = play_once(server, played, game)
    for w in match.watchers:
        if w.role != "seat":
            check_watcher(game, match.record, match.prefixes, w)


def test_secret_scan_catches_a_leak() -> None:
    """The scan itself: a message carrying another seat's placement is flagged."""
    record = {
        "format": "blackwhite-record/1", "game": "swapping", "options": {}, "seats": ["A", "B"],
        "events": [{"seat": 0, "action": "place 1 2 7"}],
    }
    prefixes = replay_prefixes(record, [0, 1, None])
    honest = prefixes[1].views[1]
    assert isinstance(honest, dict)
    ok = Watcher("seat 1", 1, "seat", "")
    ok.messages = [{"type": "view", "version": 1, "view": honest, "role": "seat", "seat": 1, "host_sees_all": False}]
    check_watcher("swapping", record, prefixes, ok)
    bad = Watcher("seat 1", 1, "seat", "")
    bad.messages = [{"type": "view", "version": 1, "view": honest, "role": "seat", "seat": 1, "host_sees_all": False,
                     "clocks": {"note": "P1 did place 1 2 7"}}]
    with pytest.raises(AssertionError, match="place 1 2 7"):
        check_watcher("swapping", record, prefixes, bad)
    wrong = Watcher("seat 1", 1, "seat", "")
    wrong.messages = [{"type": "view", "version": 1, "view": prefixes[1].views[0], "role": "seat", "seat": 1, "host_sees_all": False}]
    with pytest.raises(pytest.fail.Exception):
        check_watcher("swapping", record, prefixes, wrong)


# ------------------------------------------------------------------ refusals


#: at most this many steps of each probed match (enough to pass secret steps)
PROBE_STEPS = 24


def _probes(state: State, seat: int, rng: random.Random) -> list[str]:
    """Texts a seat may try that touch secrets: other seats' legal actions now (some
    name hidden tiles or groupings), garbage, and the core's words."""
    out = ["", "??", "timeout", "place 9 9 9", "group A=0 B=1 C=2"]
    for other in state.to_move():
        legal = state.legal_actions(other)
        out += [state.format_action(a) for a in rng.sample(legal, min(3, len(legal)))]
    return out


def _boilerplate(game: str, seats: int) -> str:
    """The engine's notation help (what it says for unreadable text), the same in every
    state: notation examples in it (domino's `go first`) are no secret."""
    from blackwhite.engine import make_game

    state = make_game(game).new_initial_state()
    out = []
    for seat in range(seats):
        for text in ("", "??", "place 9 9 9", "group A=0 B=1 C=2"):
            try:
                state.parse(seat, text)
            except ValueError as exc:
                out.append(str(exc))
    return " ".join(out).lower()


@pytest.mark.parametrize("game", GAMES)
def test_refusals_carry_no_secret(server: ThreadServer, game: str) -> None:
    """Every seat sends refused requests (stale versions, other seats' legal actions,
    garbage, actions out of turn, an early export) at each step of a match of people
    whose secrets are on the board; no answer may carry a secret of another seat that
    the asking seat's own view does not hold.  The match is driven by a script reading
    the unfinished record as a host who sees all."""
    rng = random.Random(hash(game) & 0xFFFF)
    seats = make_game(game).num_seats  # any installed game: an outside one may seat three
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        api = Api(http)
        created = api.create(game, [{"name": f"P{i + 1}"} for i in range(seats)], host_sees_all=True)
        tokens = [t for t in created.seat_tokens if t]
        boilerplate = _boilerplate(game, seats)
        refused = 0
        for _step in range(PROBE_STEPS):
            record = api.record(created.id, created.host_token)
            state = load(record)
            if state.is_over():
                break
            secrets = {seat: secret_texts(record, seat) for seat in range(seats)}
            for seat, token in enumerate(tokens):
                view = api.view(created.id, token)
                told = dumps(view).lower()
                hidden = {t.lower() for t in secrets[seat] if t.lower() not in told and t.lower() not in boilerplate}
                version = view["version"]
                tries = [(text, version - 1) for text in _probes(state, seat, rng)[:4]]
                if seat not in state.to_move():
                    tries += [(text, version) for text in _probes(state, seat, rng)]
                answers = [api.act(created.id, token, text, v) for text, v in tries]
                answers.append(api.request("GET", f"/api/matches/{created.id}/record", token))
                for (text, _v), answer in zip([*tries, ("record", 0)], answers):
                    if answer.status_code == 200:
                        continue  # a probe that was legal: it is a move like any other
                    refused += 1
                    body = answer.text.lower().replace(text.lower(), "") if text else answer.text.lower()
                    leaked = sorted(h for h in hidden if h in body)
                    assert not leaked, (
                        f"{game}: seat {seat} sent {text!r} and the refusal carries {leaked}: {answer.text[:300]}"
                    )
            state = load(api.record(created.id, created.host_token))
            if state.is_over():
                break
            mover = state.to_move()[0]
            text = state.format_action(rng.choice(state.legal_actions(mover)))
            version = api.view(created.id, tokens[mover])["version"]
            response = api.act(created.id, tokens[mover], text, version)
            assert response.status_code == 200, f"{game}: {text!r} by seat {mover}: {response.text[:300]}"
        assert refused > 0
