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

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from .client import Api, Created, ThreadServer

schemathesis = pytest.importorskip("schemathesis")
sa = pytest.importorskip("sqlalchemy")
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: requests per operation (the schema has about a dozen): keeps the test near a minute
EXAMPLES = 30

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

    def tokens(self) -> list[str]:
        out: list[str] = []
        for m in self.matches:
            out += [m.host_token, m.spectator_token, *(t for t in m.seat_tokens if t)]
        return out

    def snapshot(self) -> tuple[Any, ...]:
        """Every row of every table, and each match's version and views as its host sees them."""
        meta = sa.MetaData()
        meta.reflect(self.engine)
        rows: dict[str, list[str]] = {}
        with self.engine.connect() as conn:
            for name, table in sorted(meta.tables.items()):
                if name == "alembic_version":
                    continue
                rows[name] = sorted(repr(tuple(r)) for r in conn.execute(sa.select(table)))
        views = []
        for m in self.matches:
            got = self.api.request("GET", f"/api/matches/{m.id}/view", m.host_token)
            body = got.json()
            views.append((got.status_code, body.get("version"), body.get("view")))
        return (rows, views)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    pytest.importorskip("blackwhite.server.app")
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'blackwhite.db'}"
    with ThreadServer(url, bot_workers=1, rate_limit=False) as server:
        http = httpx.Client(base_url=server.base_url, timeout=30)
        api = Api(http)
        first = api.create("swapping", [{"name": "Sally"}, {"name": "Maddie"}])
        second = api.create(
            "grouping", [{"name": "Ann"}, {"name": "Bo"}], host_sees_all=True, host_token=first.host_token
        )
        third = api.create("yellow", [{"name": "A"}, {"name": "B"}, {"name": "C"}])
        engine = sa.create_engine(url)
        try:
            yield Fuzzed(server, api, engine, [first, second, third])
        finally:
            engine.dispose()
            http.close()


@pytest.fixture(scope="module")
def api_schema(fuzzed: Fuzzed) -> Any:
    raw = fuzzed.api.http.get("/openapi.json").json()
    return schemathesis.openapi.from_dict(raw)


schema = schemathesis.pytest.from_fixture("api_schema")


def _realistic(case: Any, data: Any, fuzzed: Fuzzed) -> None:
    """Swap generated ids, tokens and bodies for real ones part of the time."""
    ids = [m.id for m in fuzzed.matches]
    params = case.path_parameters or {}
    for key in list(params):
        if data.draw(st.booleans(), label=f"real {key}"):
            params[key] = data.draw(st.sampled_from(ids), label=key)
    token = data.draw(st.one_of(st.none(), st.sampled_from(fuzzed.tokens())), label="token")
    if token is not None:
        if data.draw(st.booleans(), label="token in query"):
            case.query = {**(case.query or {}), "token": token}
        else:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    if case.method.upper() == "POST" and case.path.endswith("/actions") and data.draw(st.booleans()):
        version = 0
        mid = params.get("id")
        match = next((m for m in fuzzed.matches if m.id == mid), None)
        if match is not None:
            got = fuzzed.api.request("GET", f"/api/matches/{mid}/view", match.host_token).json()
            version = got.get("version", 0)
        case.body = {
            "action": data.draw(st.sampled_from(NOTATION), label="action"),
            "version": data.draw(st.sampled_from([version, version - 1, version + 1, -1]), label="version"),
        }


@schema.parametrize()
@schema.given(data=st.data())
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_5xx_and_a_refused_request_changes_nothing(case: Any, data: Any, fuzzed: Fuzzed) -> None:
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
        assert fuzzed.snapshot() == before, f"a refused request changed the server: {where}"
