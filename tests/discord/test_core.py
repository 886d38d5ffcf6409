"""The bridge's core on its own: payloads in, messages out, with a recording stand-in
for the server's API (no server, no Discord; fast and deterministic)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from blackwhite.discord_bridge.api import Created, ServerApi, ServerError
from blackwhite.discord_bridge.core import Bridge, Outgoing, Player, Settings
from blackwhite.discord_bridge.store import PUBLIC, SENT, BridgeStore

GAMES = [{"id": "swapping", "title": "Swapping Black & White", "num_seats": 2, "options": {},
          "clock": {"per_action": {"play": 180}, "reserve": 300, "on_timeout": "the seat loses"}}]


class RecordingApi(ServerApi):
    """Answers as the server would for one match ``M1``; records every call."""

    def __init__(self) -> None:
        super().__init__("http://server.test")
        self.calls: list[tuple[Any, ...]] = []
        self.refuse: ServerError | None = None

    async def games(self) -> list[dict[str, Any]]:
        return GAMES

    async def create(self, host_token: str | None, game: str, seats: list[dict[str, str]],
                     options: dict[str, Any], pace: dict[str, Any] | None = None) -> Created:
        self.calls.append(("create", host_token, game, seats, options))
        return Created("M1", "minted" if host_token is None else None, "SPEC",
                       ["T0" if "name" in seats[0] else None, "T1" if "name" in seats[1] else None], {}, {})

    async def player_by_discord(self, host_token: str, discord_id: int) -> dict[str, Any]:
        # these users' ids are not of Discord's form: the server makes no player of them
        raise ServerError(422, "bad_discord_id", "a Discord user id is 15 to 21 digits")

    async def act(self, match_id: str, token: str, action: str, version: int) -> dict[str, Any]:
        self.calls.append(("act", match_id, token, action, version))
        if self.refuse is not None:
            raise self.refuse
        return {"version": version + 1}

    async def view(self, match_id: str, token: str, render: bool = False, join: bool = True) -> dict[str, Any]:
        self.calls.append(("view", match_id, token, join))
        return {"version": 0, "status": "waiting", "waiting": "waiting for Maddie to join", "view": {}}

    async def record(self, match_id: str, token: str) -> dict[str, Any]:
        self.calls.append(("record", match_id, token))
        return {"format": "blackwhite-record/1", "game": "swapping", "seats": ["A", "B"], "events": []}


def payload(version: int, log: list[str], legal: list[str] | None = None, seat: int | None = 0,
            status: str = "running", finished: bool = False) -> dict[str, Any]:
    view = {"game": "unknown-game", "seat": seat, "to_move": [0], "log": log, "finished": finished,
            "winner": 0 if finished else None, "scores": [1, 0] if finished else None, "my_pending": None,
            "board": "x" * 50}
    out = {"version": version, "view": view, "status": status, "clocks": None}
    if legal is not None:
        out["legal"] = legal
    return out


GUILD = 4242
ROLE = 77


def settings(**kw: Any) -> Settings:
    return Settings(**{"public_url": "https://games.test", "host_token": "LINK", "guild": GUILD,
                       "host_roles": frozenset({ROLE}), **kw})


@pytest.fixture
def bridge(tmp_path: Path) -> Bridge:
    return Bridge(RecordingApi(), BridgeStore(tmp_path / "b.db"), settings())


def flush(bridge: Bridge) -> None:
    """What the runner's senders do: every queued post marked sent."""
    for mid, audience in bridge.store.queued():
        for q in bridge.store.unsent(mid, audience):
            bridge.store.set_state(q.id, SENT)


def queued(bridge: Bridge, match_id: str) -> list[Outgoing]:
    """The posts of a match still to send, in order."""
    return [Outgoing.from_json(q.post) for mid, audience in bridge.store.queued() if mid == match_id
            for q in bridge.store.unsent(mid, audience)]


def new_match(bridge: Bridge) -> None:
    reply = asyncio.run(bridge.new_match(Player(1, "Host"), GUILD, [ROLE], 55, "swapping",
                                         [Player(7, "Sally"), Player(8, "Maddie")]))
    assert reply.match_id == "M1", reply.text


def test_a_match_is_created_with_the_bots_link(bridge: Bridge) -> None:
    """The bridge's own host link creates the match; the store keeps no host token."""
    new_match(bridge)
    api = bridge.api
    assert isinstance(api, RecordingApi)
    assert api.calls[0] == ("create", "LINK", "swapping", [{"name": "Sally"}, {"name": "Maddie"}], {})
    row = bridge.store.match("M1")
    assert row is not None and row.host_token == "" and bridge.store.setting("host_token") is None
    assert asyncio.run(bridge.watched()) == [("M1", PUBLIC, "SPEC"), ("M1", 0, "T0"), ("M1", 1, "T1")]


def test_the_host_role_is_an_id_in_the_configured_guild(bridge: Bridge) -> None:
    """A role's id in the guild set up, nothing else: not the id read in another guild,
    not another role (whatever its name), not no role."""
    assert bridge.may_host(GUILD, [5, ROLE])
    assert not bridge.may_host(GUILD + 1, [ROLE]) and not bridge.may_host(None, [ROLE])
    assert not bridge.may_host(GUILD, [5]) and not bridge.may_host(GUILD, [])
    reply = asyncio.run(bridge.new_match(Player(1, "Host"), GUILD + 1, [ROLE], 55, "swapping",
                                         [Player(7, "Sally"), Player(8, "Maddie")]))
    assert not reply.ok and "only in the Discord server it was set up for" in reply.text
    reply = asyncio.run(bridge.new_match(Player(1, "Host"), GUILD, [5], 55, "swapping",
                                         [Player(7, "Sally"), Player(8, "Maddie")]))
    assert not reply.ok and reply.text == f"Only members with a host role may start matches (host roles: <@&{ROLE}>)."
    api = bridge.api
    assert isinstance(api, RecordingApi) and api.calls == []


def test_the_store_is_private(tmp_path: Path) -> None:
    """The store holds seat tokens: created 0600, and an existing file's group and
    others' rights are taken off when the bridge opens it."""
    import os
    import stat

    BridgeStore(tmp_path / "new.db").close()
    assert stat.S_IMODE(os.stat(tmp_path / "new.db").st_mode) == 0o600
    old = tmp_path / "old.db"
    old.touch(mode=0o644)
    os.chmod(old, 0o644)
    store = BridgeStore(old)
    store.set_setting("x", "y")  # a write: the -wal file exists now
    assert stat.S_IMODE(os.stat(old).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(f"{old}-wal").st_mode) == 0o600
    store.close()


def test_each_payload_is_posted_once(bridge: Bridge) -> None:
    new_match(bridge)

    def deliver(audience: int, p: dict[str, Any]) -> list[str]:
        d = asyncio.run(bridge.on_payload("M1", audience, p))
        flush(bridge)
        return [o.text for o in d.posts]

    assert deliver(PUBLIC, payload(0, [], seat=None)) == []
    assert deliver(PUBLIC, payload(1, ["Round 1: 2-1."], seat=None)) == ["Round 1: 2-1."]
    assert deliver(PUBLIC, payload(1, ["Round 1: 2-1."], seat=None)) == []  # the same push again (a reconnect)
    assert deliver(PUBLIC, payload(2, ["Round 1: 2-1.", "A", "B"], seat=None)) == ["A\nB"]
    first = deliver(0, payload(0, [], ["place 1", "place 2"]))
    assert len(first) == 1 and "Your move: press one." in first[0]
    assert deliver(0, payload(0, [], ["place 1", "place 2"])) == []
    # the other seat submitted secretly: the version moves, nothing this seat reads changed
    assert deliver(0, payload(1, [], ["place 1", "place 2"])) == []
    assert bridge.store.posted("M1", 0).extra["prompt"] == 0  # type: ignore[union-attr]


def test_prompts_by_size_and_never_over_a_message(bridge: Bridge) -> None:
    new_match(bridge)
    few = asyncio.run(bridge.on_payload("M1", 0, payload(0, [], [f"a {i}" for i in range(10)]))).posts[-1]
    assert len(few.buttons) == 10 and few.select is None
    some = asyncio.run(bridge.on_payload("M1", 0, payload(1, [], [f"a {i}" for i in range(11)]))).posts[-1]
    assert not some.buttons and some.select is not None and len(some.select.options) == 11
    many = asyncio.run(bridge.on_payload("M1", 0, payload(2, [], [f"a {i}" for i in range(26)]))).posts[-1]
    assert not many.buttons and many.select is None and "type it in notation" in many.text
    # a huge board and many notes: the notes go first, the board split, the prompt last, nothing cut
    huge = payload(3, [f"note {i} " + "y" * 60 for i in range(60)], [f"a {i}" for i in range(26)])
    huge["view"]["board"] = "z" * 5000
    posts = asyncio.run(bridge.on_payload("M1", 0, huge)).posts
    assert all(len(p.text) <= 2000 for p in posts) and len(posts) > 4
    assert posts[-1].text.endswith("`help` lists them).") and "cut" not in "".join(p.text for p in posts)
    assert "".join(p.text for p in posts).count("z") == 5000


def test_a_press_acts_only_for_its_seats_user_and_current_prompt(bridge: Bridge) -> None:
    new_match(bridge)
    api = bridge.api
    assert isinstance(api, RecordingApi)
    d = asyncio.run(bridge.on_payload("M1", 0, payload(4, [], ["place 1", "place 2"])))
    flush(bridge)
    button = d.posts[0].buttons[1].custom_id
    assert asyncio.run(bridge.press(8, button)).text == "Only <@7> can act for seat 1."
    assert asyncio.run(bridge.press(9, button)).text == "Only <@7> can act for seat 1."
    assert [c for c in api.calls if c[0] == "act"] == []
    assert asyncio.run(bridge.press(7, button)).text == "Sent: `place 2`"
    assert api.calls[-1] == ("act", "M1", "T0", "place 2", 4)
    assert asyncio.run(bridge.press(7, button.replace(":4:", ":3:"))).text.startswith("That prompt is out of date")
    api.refuse = ServerError(409, "not_your_turn", "P1 has already submitted this step")
    assert asyncio.run(bridge.typed(7, "place 1")).text == "Refused: P1 has already submitted this step"
    assert asyncio.run(bridge.typed(9, "place 1")) is None  # not a player: not answered


def test_the_end_posts_result_record_and_replay(bridge: Bridge) -> None:
    new_match(bridge)
    d = asyncio.run(bridge.on_payload("M1", PUBLIC, payload(9, ["Game 1: P1 wins."], seat=None, status="finished",
                                                              finished=True)))
    flush(bridge)
    assert d.posts[0].text == "Game 1: P1 wins."
    result = d.posts[1]
    assert result.text.startswith("**Result** of match `M1`: Sally won (scores 1-0)")
    assert "https://games.test/replay/M1?token=SPEC" in result.text and result.file is not None
    assert asyncio.run(bridge.watched()) == []  # over: not watched after a restart


def test_the_slash_commands_discord_is_given(tmp_path: Path) -> None:
    """What ``setup_hook`` registers (in a guild, as BLACKWHITE_DISCORD_GUILD asks):
    one ``/bw`` group, usable in servers only, with the documented subcommands."""
    pytest.importorskip("discord")
    from blackwhite.discord_bridge.bot import BridgeClient

    from .fake import GUILD_ID, FakeDiscord

    async def main() -> list[dict[str, Any]]:
        bridge = Bridge(RecordingApi(), BridgeStore(tmp_path / "c.db"), settings(host_roles=frozenset()))
        client = BridgeClient(bridge, guild=GUILD_ID)
        fake = FakeDiscord(client, {})
        await fake.start()  # discord.py's login, which runs setup_hook: tree.sync() in the guild
        await client.close()
        await fake.stop()
        return fake.synced

    (bw,) = asyncio.run(main())
    assert bw["name"] == "bw" and bw.get("dm_permission") is False
    subs = {o["name"]: o for o in bw["options"]}
    assert sorted(subs) == ["cancel", "moves", "new", "pause", "resume", "season", "standings", "status", "time"]
    new = [(o["name"], o.get("required", False)) for o in subs["new"]["options"]]
    assert new == [("game", True), ("player1", True), ("player2", False), ("player3", False), ("options", False),
                   ("bots", False), ("thread", False), ("pace", False)]
    time_ = {o["name"]: o for o in subs["time"]["options"]}
    assert time_["time"]["type"] == 3 and time_["time"]["max_length"] == 40  # a duration; the pace's cap is the server's


def test_durations_of_bw_time() -> None:
    """``/bw time`` reads a duration in players' words (a slow match's hours too) and says
    it back the same way; anything else is refused with how to write one."""
    from blackwhite.discord_bridge.core import duration_text, parse_duration

    assert [parse_duration(t) for t in ("30", "90s", "10m", "2h", "1h30m", "1d", "1.5h", " 2 h ")] == [
        30, 90, 600, 7200, 5400, 86400, 5400, 7200]
    for bad in ("", "h", "2x", "1h-30m", "0", "0s", "-5", "tomorrow", "2h 3"):
        with pytest.raises(ValueError):
            parse_duration(bad)
    assert [duration_text(s) for s in (30, 600, 5400, 86400 + 7200)] == ["30 s", "10 min", "1 h 30 min", "1 d 2 h"]


def test_a_seat_is_told_nothing_while_the_clocks_wait(bridge: Bridge) -> None:
    """A server that starts the clocks once every seat has joined says ``waiting`` until the
    bridge's sockets have joined them all: no DM then, and the notes follow with the start."""
    new_match(bridge)
    d = asyncio.run(bridge.on_payload("M1", 0, payload(0, ["dealt"], [], status="waiting")))
    flush(bridge)
    assert d.posts == []
    d = asyncio.run(bridge.on_payload("M1", 0, payload(0, ["dealt"], ["a"], status="running")))
    assert len(d.posts) == 1 and d.posts[0].text.startswith("dealt\n```") and d.posts[0].buttons


def test_a_player_comes_by_pressing_ready_or_writing(bridge: Bridge) -> None:
    """The invitation asks each player for Ready; their press, or any word they write to
    the bot, joins their seat (a view *with* joining) and is never taken as a move; the
    channel hears once that the match waits, and once that it started."""
    api = bridge.api
    assert isinstance(api, RecordingApi)
    reply = asyncio.run(bridge.new_match(Player(1, "Host"), GUILD, [ROLE], 55, "swapping",
                                         [Player(7, "Sally"), Player(8, "Maddie")]))
    invitations = {p.to: p for p in queued(bridge, "M1") if p.kind == "dm"}
    assert "The match waits for you" in invitations[7].text
    ready = invitations[7].buttons[0]
    assert ready.label == "Ready" and ready.custom_id == "bw:M1:0:0:ready"
    for seat in (0, 1):
        waiting = {**payload(0, ["dealt"], [], status="waiting"), "start": {"waiting_for": [0, 1]}}
        asyncio.run(bridge.on_payload("M1", seat, waiting))
        flush(bridge)
    assert asyncio.run(bridge.press(8, ready.custom_id)).text == "Only <@7> can act for seat 1."
    answer = asyncio.run(bridge.press(7, ready.custom_id))
    assert answer.ok and answer.text == "You are in (match `M1`); it is waiting for Maddie to join."
    assert api.calls[-1] == ("view", "M1", "T0", True)
    answer = asyncio.run(bridge.typed(8, "place 0 1 2"))  # Maddie writes: she has come, nothing is played
    assert answer is not None and answer.text.startswith("You are in (match `M1`)")
    assert api.calls[-1] == ("view", "M1", "T1", True) and not [c for c in api.calls if c[0] == "act"]
    # the clocks start: her next words are moves
    d = asyncio.run(bridge.on_payload("M1", 1, {**payload(1, ["dealt"], ["place 0 1 2"]), "start": {"waiting_for": []}}))
    flush(bridge)
    assert d.posts and d.posts[0].text.startswith("dealt\n```")
    assert asyncio.run(bridge.typed(8, "place 0 1 2")).text == "Sent: `place 0 1 2`"  # type: ignore[union-attr]

    def public(version: int, status: str) -> list[str]:
        p = {**payload(version, [], seat=None, status=status), "waiting": "waiting for Sally and Maddie to join"}
        d = asyncio.run(bridge.on_payload("M1", PUBLIC, p))
        flush(bridge)
        return [o.text for o in d.posts]

    assert public(0, "waiting") == ["The match is waiting for Sally and Maddie to join: the clocks start once every"
                                    " player has pressed Ready in their DM (or opened their page)."]
    assert public(0, "waiting") == []  # pushed again (someone joined, a reconnect): not said twice
    assert public(1, "running") == ["The match has started: the clocks run."]
    assert public(1, "running") == []


@pytest.mark.parametrize("code", ["store_unavailable", "owner_unavailable"])
def test_a_busy_store_is_asked_again(code: str) -> None:
    """503 (a busy store, or a match whose server process is being taken over) changed
    nothing and may be repeated: the API repeats it, and gives up with the server's
    refusal after its last wait."""
    import httpx

    answers = [503, 503, 200]
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        status = answers.pop(0) if answers else 503
        if status == 503:
            return httpx.Response(503, json={"error": {"code": code, "message": "busy"}})
        return httpx.Response(200, json={"version": 3, "view": {}, "clocks": {}})

    async def main() -> None:
        api = ServerApi("http://server.test", httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        api.RETRIES = (0.0, 0.0, 0.0)
        assert (await api.act("M1", "T0", "place 1", 2))["version"] == 3
        assert len(seen) == 3
        with pytest.raises(ServerError, match=code):
            await api.act("M1", "T0", "place 1", 2)
        assert len(seen) == 3 + 4  # the first try and three more

    asyncio.run(main())


@pytest.mark.parametrize("taken", [False, True])
def test_an_action_whose_answer_was_lost_goes_again_only_if_not_taken(taken: bool) -> None:
    """A 503 marked X-Blackwhite-Unsure (the owner stopped while answering: it may have
    acted) is not repeated blindly: the seat's view is read, and the action goes again
    only while the seat is still at the version it was sent at."""
    import httpx

    sent: list[str] = []
    views: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            views.append(request.url.params.get("join", ""))
            return httpx.Response(200, json={"version": 3 if taken else 2, "view": {}, "clocks": {}})
        sent.append(request.content.decode())
        if len(sent) == 1:
            return httpx.Response(503, headers={"Retry-After": "1", "X-Blackwhite-Unsure": "1"},
                                  json={"error": {"code": "owner_unavailable", "message": "stopped while answering"}})
        return httpx.Response(200, json={"version": 3, "view": {}, "clocks": {}})

    async def main() -> None:
        api = ServerApi("http://server.test", httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        api.RETRIES = (0.0, 0.0, 0.0)
        assert (await api.act("M1", "T0", "place 1", 2))["version"] == 3
        assert len(sent) == (1 if taken else 2), sent  # taken: not sent twice
        assert views == ["0"]  # the look joins nobody

    asyncio.run(main())


# ------------------------------------------------------------------ the outbox


def test_a_newer_view_supersedes_an_unsent_one_and_carries_its_notes(bridge: Bridge) -> None:
    """Views queued faster than Discord takes them: only the newest board and prompt
    are sent, with every note of the views it superseded, once each; a post being sent
    is never superseded."""
    new_match(bridge)
    flush(bridge)
    asyncio.run(bridge.on_payload("M1", 0, payload(1, ["one"], ["a"])))
    asyncio.run(bridge.on_payload("M1", 0, payload(2, ["one", "two"], ["b"])))
    asyncio.run(bridge.on_payload("M1", 0, payload(3, ["one", "two", "three"], ["c"])))
    (post,) = [q for q in bridge.store.unsent("M1", 0)]
    text = Outgoing.from_json(post.post).text
    assert text.startswith("one\ntwo\nthree\n```") and post.notes == ["one", "two", "three"]
    assert [s for _, a, s in bridge.store.states("M1") if a == 0][-3:] == [2, 2, 0]
    # being sent: kept; the next view is queued after it, with only its own notes
    taken = asyncio.run(bridge.take("M1", 0))
    assert taken is not None and taken[0] == post.id
    asyncio.run(bridge.on_payload("M1", 0, payload(4, ["one", "two", "three", "four"], ["d"])))
    unsent = bridge.store.unsent("M1", 0)
    assert [q.id for q in unsent][0] == post.id and unsent[1].notes == ["four"]
    asyncio.run(bridge.sent(post.id))
    assert [q.notes for q in bridge.store.unsent("M1", 0)] == [["four"]] and not bridge.inflight
    # what is no longer to send keeps its mark, not its body
    assert {r for r in bridge.store._exec("SELECT post, notes FROM outbox WHERE state != 0")} == {("{}", "[]")}
    # the channel's posts are never superseded
    asyncio.run(bridge.on_payload("M1", PUBLIC, payload(1, ["x"], seat=None)))
    asyncio.run(bridge.on_payload("M1", PUBLIC, payload(2, ["x", "y"], seat=None)))
    assert [Outgoing.from_json(q.post).text for q in bridge.store.unsent("M1", PUBLIC)] == ["x", "y"]


def test_a_restarted_bridge_sends_only_what_was_not_marked(tmp_path: Path) -> None:
    store = BridgeStore(tmp_path / "r.db")
    first = Bridge(RecordingApi(), store, settings())
    new_match(first)
    opening = asyncio.run(first.take("M1", PUBLIC))
    assert opening is not None and opening[1].text.startswith("**Swapping Black & White**")
    asyncio.run(first.sent(opening[0]))
    invitation = asyncio.run(first.take("M1", 0))
    assert invitation is not None  # taken, then the bridge dies before Discord answers
    store.close()
    second = Bridge(RecordingApi(), BridgeStore(tmp_path / "r.db"), settings())
    assert asyncio.run(second.queued()) == [("M1", 0), ("M1", 1)]
    again = asyncio.run(second.take("M1", 0))
    assert again is not None and again[0] == invitation[0] and asyncio.run(second.take("M1", PUBLIC)) is None


class OneView(RecordingApi):
    """A server that pushes one view to each token, then nothing (a seat waiting on its move)."""

    async def views(self, match_id: str, token: str, render: bool = False, retry: float = 1.0,
                    max_retry: float = 30.0, join: bool = True) -> Any:
        yield payload(1, ["dealt"], ["a", "b"], seat=0 if token == "T0" else 1 if token == "T1" else None)
        await asyncio.Event().wait()


def test_a_failed_prompt_is_sent_again_on_a_timer(tmp_path: Path) -> None:
    """Discord fails the seat's prompt (twice): no other view comes, yet the runner sends
    it again on its timer; each post reaches Discord once."""
    from blackwhite.discord_bridge.runner import Runner

    got: list[Outgoing] = []
    failures = {"left": 2}

    async def deliver(post: Outgoing) -> None:
        if post.kind == "dm" and post.buttons and post.buttons[0].label == "a" and failures["left"]:
            failures["left"] -= 1
            raise OSError("Discord is down")
        got.append(post)

    async def main() -> None:
        bridge = Bridge(OneView(), BridgeStore(tmp_path / "t.db"), settings())
        runner = Runner(bridge, deliver, resend=(0.05, 0.2))
        reply = await bridge.new_match(Player(1, "Host"), GUILD, [ROLE], 55, "swapping",
                                       [Player(7, "Sally"), Player(8, "Maddie")])
        assert reply.match_id == "M1"
        await runner.watch("M1")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while sum(1 for p in got if p.to == 7 and p.buttons and p.buttons[0].label == "a") < 1:
            assert loop.time() < deadline, [p.text[:30] for p in got]
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
        await runner.close()
        assert failures["left"] == 0
        texts = [p.text for p in got]
        assert len(texts) == len(set(texts))  # nothing twice
        assert all(s != 0 for _, _, s in bridge.store.states("M1"))

    asyncio.run(main())


def test_views_overtaken_while_the_bridge_was_busy_are_skipped() -> None:
    """Only the newest of the views queued while one was being read is drawn; the last
    one always is, in order, and an error of the source reaches the reader."""
    from blackwhite.discord_bridge.runner import newest

    async def source(n: int, fail: bool = False) -> Any:
        for i in range(n):
            yield i
            await asyncio.sleep(0)
        if fail:
            raise ConnectionError("lost")

    async def read(n: int, fail: bool = False) -> list[int]:
        got = []
        async for item in newest(source(n, fail)):
            got.append(item)
            await asyncio.sleep(0.005)  # drawing and queueing take a while
        return got

    got = asyncio.run(read(200))
    assert got[-1] == 199 and len(got) < 100 and got == sorted(set(got))
    with pytest.raises(ConnectionError):
        asyncio.run(read(3, fail=True))


def test_paces_of_bw_new() -> None:
    """``/bw new``'s pace in players' words, as the create-match request's ``pace``, and
    said back in the opening post; a pace that does not read is refused with how to write
    one (its bounds are the server's)."""
    from blackwhite.discord_bridge.core import pace_text, parse_pace

    assert parse_pace("") is None and parse_pace("live") is None
    assert parse_pace("scaled 3") == parse_pace("x3") == {"kind": "scaled", "factor": 3.0}
    assert parse_pace("slow 24h") == {"kind": "slow", "action_hours": 24.0}
    assert parse_pace("slow 90m reserve 12h match 3d quiet 23:00-7:00 Europe/Paris") == {
        "kind": "slow", "action_hours": 1.5, "reserve_hours": 12.0, "match_hours": 72.0,
        "quiet": {"from": "23:00", "to": "07:00", "tz": "Europe/Paris"}}
    for bad in ("fast", "slow", "slow tomorrow", "scaled", "scaled x y", "slow 2h reserve", "slow 2h quiet 23-7 UTC",
                "slow 2h lunch 1h"):
        with pytest.raises(ValueError, match="bad pace"):
            parse_pace(bad)
    assert pace_text({"kind": "live"}) is None
    assert pace_text({"kind": "scaled", "factor": 2.5}) == "scaled: the game's clock × 2.5"
    assert pace_text(parse_pace("slow 24h reserve 12h quiet 23:00-07:00 Europe/Paris")) == (
        "slow: 1 d per action, 12 h reserve, no clock runs 23:00-07:00 (Europe/Paris)")


def test_bw_moves_says_only_what_the_list_is_for(tmp_path: Path) -> None:
    """``/bw moves`` draws each waiting item from its match, game, seat, names, kind and
    deadline only: anything else an item might carry (a field a server adds, a seat's
    view) is never shown; several items come soonest first, as the server ordered them."""
    from blackwhite.discord_bridge.store import PlayerRow

    class Waiting(RecordingApi):
        async def waiting(self, player_token: str) -> list[dict[str, Any]]:
            assert player_token == "BRIDGE"
            return [{"id": "M1abcdefgh", "game": "swapping", "seat": 1, "kind": "move", "deadline": 1_800_000_000.4,
                     "names": ["Sally", "Maddie"], "page": "/play/M1abcdefgh", "view": {"hand": "SECRET-HAND"},
                     "hidden": "SECRET-FIELD"},
                    {"id": "M2abcdefgh", "game": "swapping", "seat": 0, "kind": "join", "deadline": None,
                     "names": ["Sally", "Yuki"], "page": "/play/M2abcdefgh"}]

    bridge = Bridge(Waiting(), BridgeStore(tmp_path / "w.db"), settings())
    bridge.store.set_player(PlayerRow(7, "P7", "BRIDGE", "PAGE"))
    reply = asyncio.run(bridge.moves(7))
    assert reply.text.split("\n") == [
        "2 matches await you, soonest deadline first:",
        "- `#M1abcdef` Swapping Black & White, seat 2 against Sally: your move, by <t:1800000000:f>"
        " (<t:1800000000:R>)",
        "- `#M2abcdef` Swapping Black & White, seat 1 against Yuki: waits for you to join (press Ready in its DM)"]
    assert "SECRET" not in reply.text and "BRIDGE" not in reply.text and "PAGE" not in reply.text
    assert asyncio.run(bridge.moves(8)).text.startswith("You have no player")


def test_a_refused_no_dm_mark_is_marked_plainly(tmp_path: Path) -> None:
    """A server that refuses ``{"dm": false}`` for a message (403: it names a match the
    server does not count as the bridge's host's) gets a plain mark instead: the message
    is not handed out for ever, holding back every later one."""
    from blackwhite.discord_bridge.runner import Runner

    def notice(nid: int) -> dict[str, Any]:
        return {"id": nid, "discord_id": "7", "subject": f"s{nid}", "text": "t", "unsubscribe": "U", "created": 1.0,
                "items": [{"text": "x", "link": "L", "match": "M1", "kind": "turn", "title": "T", "subject": "S"}]}

    marks: list[tuple[int, bool]] = []

    class Refusing(RecordingApi):
        async def notices(self, host_token: str) -> list[dict[str, Any]]:
            return [n for n in (notice(1), notice(2)) if (n["id"], True) not in marks]

        async def notice_delivered(self, host_token: str, notice_id: int, dmed: bool = True) -> None:
            marks.append((notice_id, dmed))
            if not dmed:
                raise ServerError(403, "scope", "says more than the bridge DMs itself")

    async def main() -> None:
        bridge = Bridge(Refusing(), BridgeStore(tmp_path / "r.db"), settings())
        await bridge.new_match(Player(1, "Host"), GUILD, [ROLE], 55, "swapping", [Player(7, "Sally"), Player(8, "M")])
        runner = Runner(bridge, lambda post: asyncio.sleep(0), notify_every=0.01)
        runner.notifier = asyncio.create_task(runner._notices())
        deadline = asyncio.get_running_loop().time() + 10
        while (2, True) not in marks:
            assert asyncio.get_running_loop().time() < deadline, marks
            await asyncio.sleep(0.01)
        await runner.close()

    asyncio.run(main())
    assert marks == [(1, False), (1, True), (2, False), (2, True)]


def test_the_servers_notices_leave_out_what_the_bridge_dms_itself(tmp_path: Path) -> None:
    """The server hands the bridge a digest per Discord user, not knowing which matches are
    the bridge's own: their invitation, prompts and end are DMed by the bridge to the
    seat's user already, so those items are left out and the DM is made of the rest (the
    same text and nonces at the retry after a lost mark); a digest with nothing left is
    marked delivered without a DM.  Time running low (the bridge says none) is kept, an
    item for another user of the match is kept, and a server's items without a match
    (an older server) are DMed as the server wrote them."""
    from blackwhite.discord_bridge.runner import Runner

    def item(match: str | None, kind: str, text: str) -> dict[str, Any]:
        out = {"text": text, "link": f"https://games.test/notify/open/{text}"}
        if match is not None:
            out.update(match=match, kind=kind, title="Swapping Black & White", subject=f"Subject of {text}")
        return out

    def notice(nid: int, user: int, items: list[dict[str, Any]]) -> dict[str, Any]:
        return {"id": nid, "discord_id": str(user), "subject": f"server's subject {nid}",
                "text": "\n".join(f"{i['text']}\n  Open it: {i['link']}\n" for i in items) + "\nStop: U\n",
                "items": items, "unsubscribe": f"https://games.test/notify/unsubscribe/{nid}", "created": 1.0}

    handed = [
        notice(1, 7, [item("M1", "turn", "mine-turn"), item("M9", "turn", "other-turn"), item("M9", "low", "other-low")]),
        notice(2, 7, [item("M1", "join", "mine-join"), item("M1", "turn", "mine-turn2"), item("M1", "end", "mine-end")]),
        notice(3, 7, [item("M1", "low", "mine-low")]),
        notice(4, 9, [item("M1", "turn", "not-his-seat")]),
        notice(5, 8, [item(None, "turn", "old-server")]),
    ]
    delivered: list[int] = []
    undmed: list[int] = []  # marked as DMed by nothing (the server's digest window counts none)
    lost = {"mark": 1}
    got: list[Outgoing] = []

    class Notices(RecordingApi):
        async def notices(self, host_token: str) -> list[dict[str, Any]]:
            return [n for n in handed if n["id"] not in delivered]

        async def notice_delivered(self, host_token: str, notice_id: int, dmed: bool = True) -> None:
            if notice_id == 1 and lost["mark"]:
                lost["mark"] = 0
                raise OSError("the bot died before the mark")
            delivered.append(notice_id)
            if not dmed:
                undmed.append(notice_id)

    async def deliver(post: Outgoing) -> None:
        got.append(post)

    async def main() -> None:
        bridge = Bridge(Notices(), BridgeStore(tmp_path / "n.db"), settings())
        reply = await bridge.new_match(Player(1, "Host"), GUILD, [ROLE], 55, "swapping",
                                       [Player(7, "Sally"), Player(8, "Maddie")])
        assert reply.match_id == "M1"
        runner = Runner(bridge, deliver, notify_every=0.01)
        runner.notifier = asyncio.create_task(runner._notices())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while len(delivered) < len(handed):
            assert loop.time() < deadline, delivered
            await asyncio.sleep(0.01)
        await runner.close()

    asyncio.run(main())
    assert sorted(delivered) == [1, 2, 3, 4, 5]
    by = {}
    for post in got:
        by.setdefault(post.nonce.rsplit("n", 1)[1].split(".")[0] if post.nonce else "?", []).append(post)
    first = by["1"]
    assert len(first) == 2 and first[0].nonce == first[1].nonce and first[0].text == first[1].text  # the retry
    assert first[0].to == 7 and first[0].text.startswith("**2 updates: Swapping Black & White**")
    assert "other-turn" in first[0].text and "other-low" in first[0].text and "mine" not in first[0].text
    assert "Stop these messages (one click): https://games.test/notify/unsubscribe/1" in first[0].text
    assert "2" not in by and undmed == [2]  # all the bridge's own: no DM, and the mark says so
    assert by["3"][0].text.startswith("**server's subject 3**") and "mine-low" in by["3"][0].text
    assert by["4"][0].to == 9 and "not-his-seat" in by["4"][0].text
    assert by["5"][0].to == 8 and by["5"][0].text.startswith("**server's subject 5**")
    assert {p.kind for p in got} == {"dm"}
