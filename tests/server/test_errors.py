"""Every error is JSON: input UTF-8 cannot encode gets a 4xx, and a failure of the server's
own gets a JSON 500 whose request id is in the log line."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient

from blackwhite.app import create_app

SURROGATE_BODY = '{"game": "swapping", "options": {"\\udc80": 1}}'


def json_error(r: object, status: int, code: str) -> dict[str, str]:
    assert getattr(r, "status_code") == status, getattr(r, "text")
    assert getattr(r, "headers")["content-type"].startswith("application/json")
    body = json.loads(getattr(r, "content"))  # raw bytes: valid JSON, and strict UTF-8
    assert body["error"]["code"] == code, body
    detail: dict[str, str] = body["error"]
    return detail


def test_a_lone_surrogate_in_an_option_name_is_a_json_422_without_a_traceback(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    r = client.post("/api/matches", content=SURROGATE_BODY.encode(), headers={"content-type": "application/json"})
    detail = json_error(r, 422, "bad_options")
    r.content.decode("utf-8")  # strict: nothing unencodable went out
    assert "\\udc80" in detail["message"]  # the name, written as its escape
    assert not [rec for rec in caplog.records if rec.exc_info or rec.levelno >= logging.ERROR]
    assert client.app.state.service.matches == {}  # type: ignore[attr-defined]


@pytest.mark.parametrize("body", [
    '{"game": "\\udc80"}',
    '{"game": "swapping", "seats": [{"name": "\\udc80"}, {"name": "B"}]}',
    '{"game": "swapping", "seats": [{"name": "A"}, {"bot": "\\ud800x"}]}',
    '{"game": "swapping", "options": {"colour": "\\udfff"}}',
    '{"game": "swapping", "\\udc80": 1}',
])
def test_every_message_built_from_unencodable_input_is_json(client: TestClient, body: str) -> None:
    r = client.post("/api/matches", content=body.encode(), headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, r.text
    detail = json.loads(r.content.decode("utf-8"))["error"]
    assert detail["code"] and detail["message"]


def test_unencodable_notation_and_tokens_answer_json(client: TestClient) -> None:
    made = client.post("/api/matches", json={"game": "swapping"}).json()
    mid, seat = made["id"], made["tokens"]["seats"][0]
    r = client.post(f"/api/matches/{mid}/actions", params={"token": seat},
                    content='{"action": "\\udc80 place", "version": 0}'.encode(),
                    headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, r.text
    json.loads(r.content.decode("utf-8"))
    r = client.get("/api/matches/%ED%B2%80x")  # a path that decodes to no valid UTF-8
    assert 400 <= r.status_code < 500
    json.loads(r.content.decode("utf-8"))


def test_a_route_that_raises_answers_a_json_500_whose_request_id_is_logged(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(sqlite_url, bot_workers=0, clock_interval=None, rate_limit=False)

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("a bug of the server's own")

    caplog.set_level(logging.ERROR, logger="blackwhite.server")
    with TestClient(app) as c:
        r = c.get("/boom", params={"token": "secret-token-value"})
        detail = json_error(r, 500, "internal")
        request_id = detail["request_id"]
        assert request_id and request_id in detail["message"]
        assert r.headers["x-request-id"] == request_id
        assert "a bug of the server's own" not in r.text  # the details stay in the log
        assert c.get("/health").json() == {"ok": True}  # and the server goes on
    lines = [rec for rec in caplog.records if request_id in rec.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is not None
    assert "RuntimeError" in caplog.text and "secret-token-value" not in caplog.text


def test_every_kind_of_refusal_the_service_raises_has_one_http_status() -> None:
    """The service says what it refuses; the edge's one table (server/http.py) says with
    which status: a kind added without a status would answer with none."""
    from blackwhite.server.errors import Refused, WrongState
    from blackwhite.server.http import STATUS, status_of

    kinds = Refused.__subclasses__()
    assert len(kinds) == len(STATUS) == 8
    assert all(status_of(kind("code", "message")) == STATUS[kind] for kind in kinds)
    assert status_of(WrongState("stale_version", "")) == 409
    with pytest.raises(TypeError):
        status_of(Refused("code", "a refusal of no kind"))
