"""A bridge (core, runner and discord.py client) over a real server and a fake Discord,
and players that play through their DMs as people would: press a button, pick from a
menu, or type notation."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

from blackwhite.discord_bridge.api import ServerApi
from blackwhite.discord_bridge.bot import BridgeClient
from blackwhite.discord_bridge.core import Bridge, Settings
from blackwhite.discord_bridge.store import PUBLIC, BridgeStore

from .fake import CHANNEL_ID, GUILD_ID, HOST_ROLE_ID, WAIT, FakeDiscord, Sent, wait_for

HOST = 100
#: Discord users with ids of Discord's form (snowflakes): the server makes them players
ADA, BEA, CID, DEE, EVE, FAY = (400_000_000_000_000_001, 400_000_000_000_000_002, 400_000_000_000_000_003,
                               400_000_000_000_000_004, 400_000_000_000_000_005, 400_000_000_000_000_006)
GIL, HAL = 400_000_000_000_000_007, 400_000_000_000_000_008
IVY, JOE = 400_000_000_000_000_009, 400_000_000_000_000_010
USERS = {GIL: "Gil", HAL: "Hal", IVY: "Ivy", JOE: "Joe", HOST: "Hostess", 101: "Sally", 102: "Maddie", 103: "Yuki", 104: "Intruder", ADA: "Ada", BEA: "Bea",
         CID: "Cid", DEE: "Dee", EVE: "Eve", FAY: "Fay"}
CHANNEL = f"channel:{CHANNEL_ID}"


_LINKS: dict[str, str] = {}


def bridge_link(server: Any) -> str:
    """A host link of the server's host of the bridge's own scope (``discord``: matches and
    the Discord notices), made once per server: the link the bridge is documented to run on."""
    if server.base_url not in _LINKS:
        import httpx

        made = httpx.post(f"{server.base_url}/api/host/links", json={"label": "discord bot", "scope": "discord"},
                          headers={"Authorization": f"Bearer {server.host_token}"}, timeout=30)
        assert made.status_code == 201 and made.json()["scope"] == "discord", made.text
        _LINKS[server.base_url] = made.json()["token"]
    return _LINKS[server.base_url]


class Harness:
    """One run of the bridge: ``start()``, drive it, ``stop()`` (or ``async with``); a new
    Harness on the same store file is the bridge restarted."""

    def __init__(self, base_url: str, store_path: Path, host_token: str) -> None:
        """``host_token``: a host link of the server (as BLACKWHITE_HOST_TOKEN gives it)."""
        self.store = BridgeStore(store_path)
        self.bridge = Bridge(ServerApi(base_url), self.store,
                             Settings(base_url, host_token, GUILD_ID, frozenset({HOST_ROLE_ID})))
        self.client = BridgeClient(self.bridge, guild=GUILD_ID)
        self.fake = FakeDiscord(self.client, USERS)
        self.runner = self.client.runner
        self.runner.retry = 0.2

    async def start(self) -> None:
        """The bot logs in to the fake Discord: ``setup_hook`` syncs the commands and
        starts the runner, as at a real start."""
        await self.fake.start()

    async def stop(self) -> None:
        await self.client.close()  # the runner, then discord.py's HTTP session
        await self.fake.stop()
        await self.bridge.api.close()
        self.store.close()

    async def __aenter__(self) -> "Harness":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def new(self, game: str, players: list[int], options: str = "", bots: str = "",
                  by: int = HOST, roles: tuple[int, ...] = (HOST_ROLE_ID,), thread: bool = False,
                  ready: bool = True, guild: int = GUILD_ID, pace: str = "") -> tuple[str, str]:
        """``/bw new``: the answer's text and the new match's id ("" when refused).
        ``ready``: then each player who got the DM presses its Ready button (the clocks
        start once all have); False leaves the match waiting for them."""
        opts: list[dict[str, Any]] = [{"name": "game", "type": 3, "value": game}]
        for i, user in enumerate(players):
            opts.append({"name": f"player{i + 1}", "type": 6, "value": str(user)})
        if options:
            opts.append({"name": "options", "type": 3, "value": options})
        if bots:
            opts.append({"name": "bots", "type": 3, "value": bots})
        if thread:
            opts.append({"name": "thread", "type": 5, "value": True})
        if pace:
            opts.append({"name": "pace", "type": 3, "value": pace})
        iid = self.fake.command(by, "new", opts, roles=list(roles), resolved_users=players, guild=guild)
        answer = await self.fake.wait_response(iid)
        m = re.search(r"Match `([^`]+)` created", answer.text)
        mid = m.group(1) if m else ""
        if mid and ready:
            # the channel hears first that the match waits (as a person would be slower than the bridge)
            await wait_for(lambda: (p := self.store.posted(mid, PUBLIC)) is not None
                           and p.extra.get("status") == "waiting", WAIT, "the channel told the match waits")
            for user in players:
                if user not in self.fake.closed_dms:
                    await self.ready(user, mid)
        return answer.text, mid

    def ready_button(self, user: int, match_id: str) -> str | None:
        """The custom id of the Ready button of ``user``'s invitation to ``match_id``."""
        return next((c for s in self.dms(user) for c, label in s.buttons
                     if label == "Ready" and c.startswith(f"bw:{match_id}:")), None)

    async def ready(self, user: int, match_id: str) -> str:
        """``user`` presses Ready in their DM: the answer's text."""
        await wait_for(lambda: self.ready_button(user, match_id) is not None, WAIT, f"the invitation of {user}")
        button = self.ready_button(user, match_id)
        assert button is not None
        answer = await self.fake.wait_response(self.fake.press(user, button))
        assert answer.text.startswith("You are in") and answer.ephemeral, answer.text
        return answer.text

    async def host(self, sub: str, options: list[dict[str, Any]] | None = None, by: int = HOST,
                   users: tuple[int, ...] = (), channel: int = CHANNEL_ID) -> str:
        iid = self.fake.command(by, sub, options or [], roles=[HOST_ROLE_ID], resolved_users=list(users),
                                channel=channel)
        return (await self.fake.wait_response(iid)).text

    def dms(self, user: int) -> list[Sent]:
        return self.fake.to(f"dm:{user}")

    def channel(self) -> list[Sent]:
        return self.fake.to(CHANNEL)


def is_prompt(sent: Sent) -> bool:
    """A DM that asks for a move (the invitation's Ready button is not one)."""
    moves = [c for c, _label in sent.buttons if not c.endswith(":ready")]
    return bool(moves) or sent.select is not None or "type it in notation" in sent.text


async def play_through_dms(h: Harness, server: Any, match_id: str, users: dict[int, int], rng: random.Random,
                           timeout: float = 240.0, where: str = CHANNEL) -> None:
    """Play until the channel gets the result: each seat's user answers each new prompt of
    their DM, with a random one of what it offers (buttons, menu) or, when it asks for
    notation, a random legal action that the test reads from the server with the seat's
    token (``users``: seat -> Discord user)."""
    tokens = {s.seat: s.token for s in h.store.seats(match_id)}
    answered: set[int] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not any(s.text.startswith("**Result**") for s in h.fake.to(where)):
        if loop.time() > deadline:
            raise AssertionError(f"match {match_id} did not end in {timeout} s; channel: {[s.text for s in h.fake.to(where)]}")
        acted = False
        for seat, user in users.items():
            prompts = [s for s in h.dms(user) if is_prompt(s)]
            if not prompts or prompts[-1].id in answered:
                continue
            last = prompts[-1]
            answered.add(last.id)
            acted = True
            if last.buttons:
                custom, _label = rng.choice(last.buttons)
                iid = h.fake.press(user, custom)
                answer = await h.fake.wait_response(iid)
            elif last.select is not None:
                custom, options = last.select
                iid = h.fake.press(user, custom, [rng.choice(options)[1]])
                answer = await h.fake.wait_response(iid)
            else:
                legal = server.view(match_id, tokens[seat], render=True)["legal"]
                before = len(h.dms(user))
                h.fake.type_dm(user, rng.choice(legal))
                await wait_for(lambda: any(s.text.startswith(("Sent", "Refused")) for s in h.dms(user)[before:]),
                               WAIT, "the answer to typed notation")
                answer = next(s for s in h.dms(user)[before:] if s.text.startswith(("Sent", "Refused")))
            # a prompt may be overtaken (the step ended on a timeout): then it is refused, not lost
            assert answer.text.startswith(("Sent", "That prompt is out of date")) or (
                answer.text.startswith("Refused: ") and " is stale" in answer.text), answer.text
        if not acted:
            await asyncio.sleep(0.05)
