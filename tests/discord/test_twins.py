"""Secrecy twins through the bridge, for every game the registry lists (tests/twins/:
two match records that differ in a fact hidden from one seat, or from everyone, at
their end): the payloads of the end, built from the engine's views as the server
builds them (with each audience's own version), go through the bridge's core, and what
it posts (the channel's messages and ``/bw status``; the seat's DMs with their buttons
and menus, every announcement and note included) must be the same for both records.
So must what the seat's user reads besides: ``/bw moves`` (the server's waiting list)
and every notification of the server the bridge DMs (as it DMs them: the items of its
own matches left out).  A new game's twins are included as soon as it is registered."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from blackwhite.discord_bridge.core import Bridge, Outgoing, Settings
from blackwhite.discord_bridge.store import PUBLIC, BridgeStore, MatchRow, SeatRow
from blackwhite.engine import ChanceEvent, State
from blackwhite.engine.record import parse_header
from blackwhite.engine.registry import entry, game_ids
from blackwhite.server.bots import action_text
from tests.twins import Twin, all_twins, seat_twins

from .test_core import RecordingApi

TWINS = all_twins()
#: twins a seat must not tell apart
SEAT_TWINS = seat_twins()


def legal_texts(state: State, seat: int) -> list[str]:
    """What the server offers a seat (``MatchService.legal_texts``): nothing once over,
    free actions only to a seat not awaited or that has answered this step."""
    if state.is_over() or state.is_chance():
        return []
    if seat not in state.to_move() and seat not in state.pending:
        actions = [a for a in state.legal_actions(seat) if state.is_free(a)]
    else:
        actions = state.legal_actions(seat)
        if seat in state.pending:
            actions = [a for a in actions if state.is_free(a)]
    return [action_text(state, a) for a in actions]


def final_payloads(record: dict[str, Any], audiences: list[int]) -> dict[int, dict[str, Any]]:
    """The payload each audience (``PUBLIC`` or a seat) is sent at the record's end, from
    the engine's views as the server sends them (JSON), with the version the server gives
    that audience: it moves on only when what the audience is shown changes."""
    state, _names, _seed, events = parse_header(record)
    seen: dict[int, tuple[int, str]] = {}

    def look() -> None:
        for audience in audiences:
            text = json.dumps(state.view(None if audience == PUBLIC else audience), sort_keys=True, default=str)
            version, old = seen.get(audience, (-1, None))
            if old != text:
                seen[audience] = (version + 1, text)

    look()
    for event in events:
        if "chance" in event:
            state.apply_chance(ChanceEvent(event["chance"], {k: v for k, v in event.items() if k != "chance"}))
        else:
            state.apply(event["seat"], state.parse(event["seat"], event["action"]))
        look()
    out = {}
    for audience in audiences:
        seat = None if audience == PUBLIC else audience
        payload: dict[str, Any] = {"version": seen[audience][0], "status": "finished" if state.is_over() else "running",
                                   "view": json.loads(json.dumps(state.view(seat))), "clocks": None,
                                   "start": {"waiting_for": []}}
        if seat is not None:
            payload["legal"] = legal_texts(state, seat)
        out[audience] = payload
    return out


class ViewApi(RecordingApi):
    """The stand-in server, answering a view with the payload of the record's end."""

    payload: dict[str, Any] = {}

    async def view(self, match_id: str, token: str, render: bool = False, join: bool = True) -> dict[str, Any]:
        return self.payload


def posted(record: dict[str, Any], audiences: list[int]) -> dict[int, list[str]]:
    """What the bridge posts to each audience when it meets the record's end (a bridge
    catching up: every announcement, the board, the prompt): each message's text,
    buttons and menu; for the public also what ``/bw status`` answers then."""
    state, _names, _seed, _events = parse_header(record)
    names = list(record.get("seats") or [f"P{s + 1}" for s in range(state.num_seats)])
    api = ViewApi()
    bridge = Bridge(api, BridgeStore(":memory:"), Settings("https://games.test", "LINK", 1, frozenset({2})))
    bridge.store.add_match(MatchRow("M1", record["game"], 55, 1, "", "SPEC", names, {}, False),
                           [SeatRow("M1", s, 100 + s, f"T{s}") for s in range(state.num_seats)])
    out: dict[int, list[str]] = {a: [] for a in audiences}

    async def main() -> None:
        for audience, payload in final_payloads(record, audiences).items():
            await bridge.on_payload("M1", audience, payload)
            for q in bridge.store.unsent("M1", audience):
                post = Outgoing.from_json(q.post)
                out[audience].append(f"{post.kind}:{post.to}\n{post.text}\n{[b.label for b in post.buttons]}"
                                     f"\n{post.select.options if post.select else None}")
            if audience == PUBLIC:
                api.payload = payload
                reply = await bridge.status(1, 55, "M1")
                out[audience].append("\n".join([reply.text, *reply.more]))

    asyncio.run(main())
    bridge.store.close()
    return out


def num_seats(record: dict[str, Any]) -> int:
    return parse_header(record)[0].num_seats


@pytest.mark.parametrize("game,twin", TWINS, ids=[f"{g}: {t.name}" for g, t in TWINS])
def test_twins_post_the_same(game: str, twin: Twin) -> None:
    """The channel, and the DMs of the seat that must not tell the twins apart."""
    audiences = [PUBLIC] if twin.seat is None else [PUBLIC, twin.seat]
    a = posted(twin.a, audiences)
    b = posted(twin.b, audiences)
    for audience in audiences:
        assert a[audience] == b[audience], (twin.name, audience)
        assert a[audience], audience  # something was drawn


@pytest.mark.parametrize("game", game_ids())
def test_some_twin_differs_to_a_seat_that_knows(game: str) -> None:
    """The comparison can fail: for each game, some twin's hidden fact reaches some other
    seat's DMs through the bridge."""
    twins = [t for g, t in TWINS if g == game]
    if not entry(game).rules.startswith("blackwhite."):  # an outside game: the kit's generic secrecy checks
        pytest.skip(f"{game} is not one of blackwhite's own games; its secrecy is checked by check-game")
    assert twins, f"{game} has no secrecy twins (tests/twins/)"
    for twin in twins:
        seats = [s for s in range(num_seats(twin.a)) if s != twin.seat]
        a = posted(twin.a, seats)
        b = posted(twin.b, seats)
        if any(a[s] != b[s] for s in seats):
            return
    raise AssertionError(f"no twin of {game} differs to any seat: the comparison could not fail")


@pytest.fixture(scope="module")
def service() -> Any:
    """A bare match service: what the player's waiting list is built with (tests/server/test_players_twins.py)."""
    from blackwhite.server.service import MatchService
    from blackwhite.server.store import Store, make_engine
    from tests.server.test_players_twins import NOW

    return MatchService(Store(make_engine("sqlite://")), now=lambda: NOW)


def told_by_dm(service: Any, record: dict[str, Any], seat: int) -> list[str]:
    """What the seat's Discord user reads at the record's end besides its prompts: ``/bw
    moves`` (from the server's waiting list, built from the seat's view), and each of the
    server's notifications (each kind alone, and their digest) as the bridge DMs it, both
    for a match of the bridge's own (what it leaves out, what it says again) and for one
    that is not (the user holds no seat of it in the bridge's store)."""
    from blackwhite.discord_bridge.runner import Runner
    from blackwhite.discord_bridge.store import PlayerRow
    from blackwhite.server.notify import dm_of
    from blackwhite.server.players import _waiting
    from tests.server.test_notify import messages
    from tests.server.test_players_twins import page

    state, _names, _seed, _events = parse_header(record)
    names = list(record.get("seats") or [f"P{s + 1}" for s in range(state.num_seats)])
    waiting = _waiting([page(service, record, seat)[0]])

    class Waiting(RecordingApi):
        async def waiting(self, player_token: str) -> list[dict[str, Any]]:
            return waiting

    bridge = Bridge(Waiting(), BridgeStore(":memory:"), Settings("https://games.test", "LINK", 1, frozenset({2})))
    bridge.store.add_match(MatchRow("M1", record["game"], 55, 1, "", "SPEC", names, {}, False),
                           [SeatRow("M1", s, 100 + s, f"T{s}") for s in range(state.num_seats)])
    bridge.store.set_player(PlayerRow(100 + seat, "P", "BRIDGE", "PAGE"))
    out: list[str] = []

    async def deliver(post: Outgoing) -> None:
        out.append(f"{post.kind}:{post.to}\n{post.text}")

    async def main() -> None:
        runner = Runner(bridge, deliver, notify_every=0)
        for i, message in enumerate(messages(record, seat)):
            for user in (100 + seat, 999):  # the seat's user in the bridge's match; a user of a match not its own
                before = len(out)
                await runner._notice({"id": i + 1, "discord_id": str(user), **dm_of(message), "created": 0.0})
                out.append(f"({len(out) - before} DMs)")
        reply = await bridge.moves(100 + seat)
        out.append("\n".join([reply.text, *reply.more]))

    asyncio.run(main())
    bridge.store.close()
    return out


@pytest.mark.parametrize("game,twin", SEAT_TWINS, ids=[f"{g}: {t.name}" for g, t in SEAT_TWINS])
def test_twins_tell_the_seat_the_same_by_dm(service: Any, game: str, twin: Twin) -> None:
    """``/bw moves`` and every notification DM say the same to the seat for both twins."""
    assert twin.seat is not None
    a = told_by_dm(service, twin.a, twin.seat)
    b = told_by_dm(service, twin.b, twin.seat)
    assert a == b, twin.name
    assert any("Stop these messages" in t for t in a) and "(0 DMs)" in a  # the server's and the bridge's own
