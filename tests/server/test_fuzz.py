"""Fuzz test: schemathesis against the server's own OpenAPI schema.

Every operation of ``create_app(...)``'s schema is called with generated requests over
real HTTP (the app served in-process by uvicorn).  Generated path ids, tokens and
bodies are mixed with real ones (a real match id, a real host/seat/spectator token, the
match's current version), so the requests reach past the token checks.  Each response
must be below 500, every error must have the contract's JSON shape, and a refused
request (4xx) must change nothing: the whole database (every row of every table) and
each match's state as its host reads it are compared before and after.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from .client import Api, Created, ThreadServer, ws_url

schemathesis = pytest.importorskip("schemathesis")
sa = pytest.importorskip("sqlalchemy")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: requests per operation (the schema has about a dozen): keeps the test near a minute
EXAMPLES = 20

#: action texts that parse in some game, so some bodies reach the rules
NOTATION = [
    "place 1 2 7", "swap 0 7", "reveal 3", "resign", "timeout", "raise 3", "call", "fold",
    "group A=0,8 B=3,6,7 C=1,2,4,5", "go first", "bid 5", "play 4", "exchange play 0",
    "", " ", "x" * 300, "\u0000", "place -1 99 7",
]


@dataclass
class Fuzzed:
    server: ThreadServer
    api: Api
    engine: Any  # sqlalchemy Engine
    matches: list[Created]
    #: tokens whose views need the public view view(None), for games that have it
    public_tokens: list[str]
    #: a player's login (docs/server.md, "Players"): the player routes, and refused on the matches
    player_tokens: list[str] = field(default_factory=list)

    def metadata(self) -> Any:
        if not hasattr(self, "_meta"):
            meta = sa.MetaData()
            meta.reflect(self.engine)
            self._meta = meta
        return self._meta

    def tokens(self) -> list[str]:
        out: list[str] = list(self.public_tokens) + list(self.player_tokens)
        for m in self.matches:
            out += [t for t in m.seat_tokens if t]
        return out

    def snapshot(self) -> tuple[Any, ...]:
        """Every row of every table, and each match's version, status and every seat's view."""
        meta = self.metadata()
        rows: dict[str, list[str]] = {}
        with self.engine.connect() as conn:
            for name, table in sorted(meta.tables.items()):
                if name == "alembic_version":
                    continue
                rows[name] = sorted(repr(tuple(r)) for r in conn.execute(sa.select(table)))
        views = []
        for m in self.matches:
            for token in m.seat_tokens:
                assert token is not None
                got = self.api.request("GET", f"/api/matches/{m.id}/view", token)
                body = got.json()
                views.append((got.status_code, body.get("version"), body.get("view"), body.get("status")))
        return (rows, views)


def _has_public_view(game: str) -> bool:
    from blackwhite.engine import make_game

    try:
        make_game(game).new_initial_state().view(None)
    except Exception:
        return False
    return True


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    pytest.importorskip("blackwhite.server.app")
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'blackwhite.db'}"
    # The clock is frozen (no timeout fires while the fuzz runs: this test is about
    # input, the clocks have their own tests) and the rate limit is out of the way.
    frozen = time.time()
    with ThreadServer(url, bot_workers=1, rate_limit=False, now=lambda: frozen) as server:
        http = httpx.Client(base_url=server.base_url, timeout=30)
        api = Api(http)
        first = api.create("swapping", [{"name": "Sally"}, {"name": "Maddie"}], host_sees_all=True)
        second = api.create(
            "grouping", [{"name": "Ann"}, {"name": "Bo"}], host_sees_all=True, host_token=first.host_token
        )
        third = api.create("yellow", [{"name": "A"}, {"name": "B"}, {"name": "C"}])
        matches = [first, second, third]
        # Host and spectator tokens read the public view; a game whose engine lacks
        # view(None) (a branch where its public view has not landed) is left out of that pool.
        public = [t for m in matches if _has_public_view(m.summary["game"]) for t in (m.host_token, m.spectator_token)]
        player = http.post("/api/players", json={"name": "Fuzz"}, headers={"Authorization": f"Bearer {first.host_token}"})
        assert player.status_code == 201, player.text
        engine = sa.create_engine(url)
        try:
            yield Fuzzed(server, api, engine, matches, public, [player.json()["token"]])
        finally:
            engine.dispose()
            http.close()


@pytest.fixture(scope="module")
def api_schema(fuzzed: Fuzzed) -> Any:
    raw = fuzzed.api.http.get("/openapi.json").json()
    return schemathesis.openapi.from_dict(raw)


def _often(data: Any, label: str) -> bool:
    """True three times in four: real ids and tokens most of the time, generated ones too."""
    return bool(data.draw(st.sampled_from([True, True, True, False]), label=label))


def _realistic(case: Any, data: Any, fuzzed: Fuzzed) -> None:
    """Swap generated ids, tokens and bodies for real ones most of the time."""
    ids = [m.id for m in fuzzed.matches]
    params = case.path_parameters or {}
    for key in list(params):
        if _often(data, f"real {key}"):
            params[key] = data.draw(st.sampled_from(ids), label=key)
    match = next((m for m in fuzzed.matches if m.id in params.values()), None)
    if _often(data, "real token"):
        if match is not None and _often(data, "a token of this match"):
            pool = [t for t in (match.host_token, match.spectator_token, *match.seat_tokens) if t]
            pool = [t for t in pool if t in fuzzed.tokens()]
        else:
            pool = fuzzed.tokens()
        token = data.draw(st.sampled_from(pool), label="token")
        if data.draw(st.booleans(), label="token in query"):
            case.query = {**(case.query or {}), "token": token}
        else:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    if case.method.upper() == "POST" and case.path.endswith("/actions") and _often(data, "real body"):
        version = 0
        if match is not None:
            seat = next(t for t in match.seat_tokens if t)
            version = fuzzed.api.request("GET", f"/api/matches/{match.id}/view", seat).json().get("version", 0)
        case.body = {
            "action": data.draw(st.sampled_from(NOTATION), label="action"),
            "version": data.draw(st.sampled_from([version, version, version - 1, version + 1, -1]), label="version"),
        }


def _diff(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    lines = []
    for name in sorted(set(before[0]) | set(after[0])):
        old, new = set(before[0].get(name, [])), set(after[0].get(name, []))
        lines += [f"{name} - {row[:400]}" for row in sorted(old - new)]
        lines += [f"{name} + {row[:400]}" for row in sorted(new - old)]
    for i, (old, new) in enumerate(zip(before[1], after[1])):
        if old != new:
            lines.append(f"seat view {i}: {str(old)[:300]} -> {str(new)[:300]}")
    return "\n".join(lines)


def test_no_5xx_and_a_refused_request_changes_nothing(api_schema: Any, fuzzed: Fuzzed) -> None:
    """Each operation of the schema, with generated requests.

    The operations are driven through schemathesis's strategies and hypothesis directly,
    not its pytest plugin: the plugin's lazy fixture (``schemathesis.pytest.from_fixture``)
    renames pytest's private ``Function._nodeid``, which pytest 9.2 no longer has, and
    failed before calling the server at all.  Each failure names its operation.
    """
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 10, [op.label for op in operations]
    for operation in operations:

        @given(case=operation.as_strategy(), data=st.data())
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def one(case: Any, data: Any) -> None:
            _check(case, data, fuzzed)

        one()


def _check(case: Any, data: Any, fuzzed: Fuzzed) -> None:
    """One generated request: below 500, a JSON error when refused, and a refusal changes nothing."""
    _realistic(case, data, fuzzed)
    before = fuzzed.snapshot()
    response = case.call(base_url=fuzzed.server.base_url)
    where = f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:300]}"
    assert response.status_code < 500, where
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"}, where
        assert isinstance(body["error"].get("code"), str) and body["error"]["code"], where
        assert isinstance(body["error"].get("message"), str) and body["error"]["message"], where
        after = fuzzed.snapshot()
        assert after == before, f"a refused request changed the server: {where}\n{_diff(before, after)}"


# ------------------------------------------------------------------ the sockets


def _junk(rng: random.Random, version: int) -> str | bytes:
    """One hostile socket message: broken JSON, wrong shapes, deep nesting, odd text."""
    choice = rng.randrange(12)
    if choice == 0:
        return "{" * rng.randrange(1, 50)
    if choice == 1:
        return "[" * 20000 + "]" * 20000  # too deep for the JSON parser's recursion
    if choice == 2:
        return json.dumps(rng.choice([None, 1, "action", [], [1, 2], {"type": "view"}]))
    if choice == 3:
        return json.dumps({"type": "action", "action": rng.choice(NOTATION), "version": rng.choice([version, -1, 10**30])})
    if choice == 4:
        return json.dumps({"type": "action", "action": rng.choice([None, 3, ["a"], {"x": 1}]), "version": version})
    if choice == 5:
        return json.dumps({"type": "action", "action": "resign", "version": rng.choice([True, 1.5, "1", None])})
    if choice == 6:
        return "x" * (65 * 1024)  # over the 64 KiB limit
    if choice == 7:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    if choice == 8:
        return "\u0000\uffff\U0010ffff"
    if choice == 9:
        return json.dumps({"type": "action", "action": "x" * 5000, "version": version})
    if choice == 10:
        return ""
    return json.dumps({"type": "action", "action": rng.choice(NOTATION), "version": version, "extra": {"a": [1] * 100}})


def test_socket_junk_gets_errors_and_changes_nothing(fuzzed: Fuzzed) -> None:
    """Hostile messages on seat, spectator and host sockets: each gets a JSON error (or
    an ack for a real move), the socket survives them at a human pace, the server stays
    up, and nothing changes unless a move was acknowledged."""
    websockets = pytest.importorskip("websockets")
    rng = random.Random(41)
    match = fuzzed.matches[2]  # people only, no bot moves behind our back
    tokens = [t for t in match.seat_tokens if t]

    async def run() -> list[str]:
        problems: list[str] = []
        for token in [*tokens, match.spectator_token, match.host_token]:
            url = ws_url(fuzzed.server.base_url, match.id, token)
            async with websockets.connect(url, max_size=None) as ws:
                first = json.loads(await ws.recv())
                version = int(first["version"])
                for _ in range(12):
                    before = await asyncio.to_thread(fuzzed.snapshot)
                    message = _junk(rng, version)
                    await ws.send(message)
                    reply = json.loads(await asyncio.wait_for(_next_answer(ws), 30))
                    if reply.get("type") == "ack":
                        version = int(reply["version"])
                        continue
                    error = reply.get("error", {})
                    if reply.get("type") != "error" or not error.get("code") or not error.get("message"):
                        problems.append(f"{str(message)[:80]!r} -> {reply}")
                    after = await asyncio.to_thread(fuzzed.snapshot)
                    if after != before:
                        problems.append(f"{str(message)[:80]!r} changed the server: {_diff(before, after)[:300]}")
                    await asyncio.sleep(0.07)  # under the flood limit
        return problems

    assert asyncio.run(run()) == []
    assert fuzzed.api.http.get("/health").json() == {"ok": True}


async def _next_answer(ws: Any) -> str:
    """The next ack or error on ``ws``, skipping pushed views."""
    while True:
        raw = await ws.recv()
        if json.loads(raw).get("type") in ("ack", "error"):
            return str(raw)
