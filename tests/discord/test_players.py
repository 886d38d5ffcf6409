"""Discord users as the server's players (docs/server.md, "Players"; docs/discord.md,
"Players"): a seat of ``/bw new`` is bound to the user's player (found by Discord id,
or made), the bridge watches and plays it with a login of its own, the user gets a
login of their own for their pages, ``/bw moves`` lists every match awaiting them
from the server's waiting list, and the server's notifications for players with a
Discord id reach their DMs once."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from pathlib import Path
from typing import Any

import httpx

from blackwhite.discord_bridge.api import Unreachable

from .fake import WAIT, wait_for
from .harness import ADA, BEA, CID, DEE, EVE, FAY, GIL, HAL, IVY, JOE, Harness, is_prompt, bridge_link
from .test_matches import settled


def api(server: Any, method: str, path: str, token: str | None = None, **body: Any) -> Any:
    r = httpx.request(method, server.base_url + path, headers={"Authorization": f"Bearer {token or server.host_token}"},
                      json=body or None, timeout=30)
    assert r.status_code < 300, (r.status_code, r.text)
    return r.json()


async def moves(h: Harness, user: int) -> str:
    """``/bw moves`` typed by ``user``: the (ephemeral) answer's text."""
    iid = h.fake.command(user, "moves", [])
    answer = await h.fake.wait_response(iid)
    assert answer.ephemeral
    return answer.text


def test_discord_users_are_players_and_their_moves(server: Any, store_path: Path) -> None:
    """Ada and Bea, new to the server, become players of the bridge's host (one each, kept
    for later matches); Cid, a player the host made with his Discord id and who has not
    logged in yet, is found and used.  Their seats are bound to their players; each
    invitation holds the user's own login, not the bridge's; prompts come as before; and
    ``/bw moves`` lists for each user only the matches awaiting them, soonest deadline
    first, while a user without a player is told so."""
    cid = api(server, "POST", "/api/players", name="Cid", discord_id=str(CID))["player"]["id"]

    async def main() -> None:
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
            assert (await moves(h, ADA)).startswith("You have no player")
            answer, first = await h.new("swapping", [ADA, BEA], options="tiles=3")
            assert first, answer
            row = h.store.match(first)
            assert row is not None
            bound = api(server, "GET", f"/api/matches/{first}/players")["seats"]
            ada, bea = (api(server, "GET", f"/api/players/by-discord/{u}")["id"] for u in (ADA, BEA))
            assert bound == [ada, bea]
            for seat, user in enumerate((ADA, BEA)):
                login = h.store.player(user)
                assert login is not None and login.player_id == bound[seat] and login.page_token
                assert [s.token for s in h.store.seats(first)][seat] == login.token
                invitation = next(s.text for s in h.dms(user) if s.text.startswith("You hold seat"))
                assert f"/play/{first}?token={login.page_token}" in invitation and login.token not in invitation
                # the user's link and the bridge's log in as the same player, each alone
                assert api(server, "GET", "/api/player", login.page_token)["id"] == bound[seat]
            await wait_for(lambda: all(any(is_prompt(s) for s in h.dms(u)) for u in (ADA, BEA)), WAIT,
                           "the first prompts")
            await settled(h, server, first)

            listed = await moves(h, ADA)
            assert listed.startswith("1 match awaits you") and f"`#{first[:8]}` Swapping" in listed, listed
            assert "your move, by <t:" in listed and "against Bea" in listed
            # Ada plays: nothing awaits her while Bea places (both place at once in swapping)
            prompt = next(s for s in reversed(h.dms(ADA)) if is_prompt(s))
            sent = await h.fake.wait_response(h.fake.press(ADA, prompt.buttons[0][0]))
            assert sent.text.startswith("Sent"), sent.text
            await settled(h, server, first)
            assert await moves(h, ADA) == "No match awaits you now."

            # a second match: the same players (none made twice); Cid's is the host's own
            answer, second = await h.new("swapping", [BEA, CID], options="tiles=3")
            assert second, answer
            row2 = h.store.match(second)
            assert row2 is not None
            assert api(server, "GET", f"/api/matches/{second}/players")["seats"] == [bea, cid]
            assert sorted(p["discord_id"] for p in api(server, "GET", "/api/players")
                          if p["discord_id"]) == sorted(str(u) for u in (ADA, BEA, CID))
            await settled(h, server, second)
            listed = await moves(h, BEA)
            assert listed.startswith("2 matches await you"), listed
            deadlines = [int(m) for m in re.findall(r"by <t:(\d+):f>", listed)]
            assert len(deadlines) == 2 and deadlines == sorted(deadlines)
            assert f"`#{second[:8]}`" in listed and f"`#{first[:8]}`" in listed
            # nothing of one seat's view in another's list: the seat tokens never, no board
            for login in (h.store.player(u) for u in (ADA, BEA, CID)):
                assert login is not None and login.token not in listed and login.page_token not in listed
            assert "```" not in listed
            assert (await moves(h, 101)).startswith("You have no player")

    asyncio.run(main())


def test_a_user_the_server_will_not_make_a_player_plays_with_a_seat_link(server: Any, store_path: Path) -> None:
    """A player that logged in already and whose login the bridge does not hold cannot be
    given another link by the host (409 ``claimed``), and an id of another form than
    Discord's is refused (422): each seat is a plain seat with its own link, played in
    the DM as before."""
    made = api(server, "POST", "/api/players", name="Dee", discord_id=str(DEE))
    api(server, "GET", "/api/player", made["token"])  # Dee logs in: claimed

    async def main() -> None:
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
            answer, mid = await h.new("swapping", [101, DEE], options="tiles=3")  # 101: no snowflake
            assert mid, answer
            row = h.store.match(mid)
            assert row is not None
            bound = api(server, "GET", f"/api/matches/{mid}/players")["seats"]
            assert bound == [None, None]
            assert h.store.player(DEE) is None
            await wait_for(lambda: any(is_prompt(s) for s in h.dms(DEE)), WAIT, "Dee's prompt")

    asyncio.run(main())


def test_the_servers_notifications_reach_the_players_dms_once(server: Any, store_path: Path) -> None:
    """A match made on the server (not through the bot) with seats bound to Eve's and
    Fay's players, who have Discord ids: when it starts, each is awaited, and the server's
    notification ("Your move") is DMed to each as the server wrote it, marked delivered.
    The first mark fails (the bot dies between Discord's accept and the mark, for the
    server): the server hands it out again and the same nonce makes Discord answer with
    the message already sent: each DM once."""
    players = {u: api(server, "POST", "/api/players", name=n, discord_id=str(u)) for u, n in ((EVE, "Eve"), (FAY, "Fay"))}
    made = api(server, "POST", "/api/matches", game="swapping", options={"tiles": 3},
               seats=[{"player": players[EVE]["player"]["id"]}, {"player": players[FAY]["player"]["id"]}])

    async def main() -> None:
        h = Harness(server.base_url, store_path, bridge_link(server))
        h.runner.notify_every = 0.2
        marks = {"failed": 0}
        delivered = h.bridge.api.notice_delivered

        async def failing_once(host: str, notice_id: int, dmed: bool = True) -> None:
            if not marks["failed"]:
                marks["failed"] += 1
                raise Unreachable("the bot died before the mark")
            await delivered(host, notice_id, dmed)

        h.bridge.api.notice_delivered = failing_once  # type: ignore[method-assign]
        async with h:
            for user in (EVE, FAY):  # each player opens the match: it starts, both are awaited
                api(server, "GET", f"/api/matches/{made['id']}/view", players[user]["token"])
            await wait_for(lambda: all(h.dms(u) for u in (EVE, FAY)), WAIT, "the notifications")
            await wait_for(lambda: api(server, "GET", "/api/notify/discord") == [], WAIT, "every notice delivered")
            await asyncio.sleep(0.5)
            assert marks["failed"] == 1 and h.fake.deduplicated >= 1
            for user in (EVE, FAY):
                (dm,) = h.dms(user)
                assert dm.text.startswith("**Your move: Swapping"), dm.text
                assert "Open it: " in dm.text and "Stop these messages" in dm.text and "```" not in dm.text
                other = FAY if user == EVE else EVE
                assert players[other]["token"] not in dm.text and players[user]["token"] not in dm.text

    asyncio.run(main())


def handed_dms(server: Any, *users: int) -> list[tuple[str, dict[str, Any], float | None]]:
    """The server's digests for the bridge to DM to ``users`` (``notify_dm``, read from
    the server's database): (Discord id, message, when it was marked delivered)."""
    import json

    with contextlib.closing(sqlite3.connect(server.db_path, timeout=30)) as db:
        rows = db.execute("SELECT discord_id, message, delivered FROM notify_dm WHERE discord_id IN (%s) ORDER BY id"
                          % ",".join("?" * len(users)), [str(u) for u in users]).fetchall()
    return [(str(r[0]), json.loads(r[1]), r[2]) for r in rows]


def test_a_match_of_the_bridge_is_not_told_twice_by_dm(server: Any, store_path: Path) -> None:
    """Ivy and Joe play a match made with ``/bw new``: their seats are bound to their
    players, who have Discord ids, so the server's notifier hands the bridge a "your
    move" for each.  The bridge prompts each seat in its DM already: it leaves those
    items out, DMs nothing more, and marks the digests delivered as DMed by nothing (each
    event reaches the Discord channel once, and the server's digest window counts no
    message that did not go)."""
    async def main() -> None:
        h = Harness(server.base_url, store_path, bridge_link(server))
        h.runner.notify_every = 0.2
        async with h:
            answer, mid = await h.new("swapping", [IVY, JOE], options="tiles=3")
            assert mid, answer
            await wait_for(lambda: all(any(is_prompt(s) for s in h.dms(u)) for u in (IVY, JOE)), WAIT,
                           "the bridge's prompts")
            # the server's "your move" of each seat is handed to the bridge (after its gather of 5 s)
            await wait_for(lambda: {d[0] for d in handed_dms(server, IVY, JOE)} == {str(IVY), str(JOE)}, 60,
                           "the server's notices handed to the bridge")
            await wait_for(lambda: all(d[2] is not None for d in handed_dms(server, IVY, JOE)), WAIT,
                           "the notices marked delivered")
            await asyncio.sleep(0.5)
            for user in (IVY, JOE):
                told = [s.text for s in h.dms(user) if "Stop these messages" in s.text]
                assert told == [], told
                assert sum(1 for s in h.dms(user) if is_prompt(s)) == 1
            # each item names the bridge's match (a slow Ready may let an invitation go before the move)
            items = [(i["match"], i["kind"]) for _user, message, _at in handed_dms(server, IVY, JOE)
                     for i in message["items"]]
            assert {m for m, _kind in items} == {mid} and {k for _m, k in items} <= {"join", "turn"}, items
            # marked as DMed by nothing: the server's digest window counts no message to them
            with contextlib.closing(sqlite3.connect(server.db_path, timeout=30)) as db:
                states = db.execute("SELECT state FROM notify_outbox WHERE match_id = ? AND channel = 'discord'"
                                    " AND state != 'pending'", (mid,)).fetchall()
            assert states and {r[0] for r in states} == {"void"}, states

    asyncio.run(main())


async def command(h: Harness, user: int, sub: str, season: str | None = None) -> str:
    iid = h.fake.command(user, sub, [{"name": "season", "type": 3, "value": season}] if season else [])
    answer = await h.fake.wait_response(iid)
    assert answer.ephemeral
    return answer.text


def test_bw_season_and_standings_as_the_user_reads_them(server: Any, store_path: Path) -> None:
    """A season for its cast only, whose garnets only the hosts read: ``/bw season`` and
    ``/bw standings`` answer each user (only them) with what their own season page shows:
    their own garnets, the others' hidden, places that do not follow garnets; someone
    outside the cast is refused; a season's id may be given by its start."""
    async def main() -> None:
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
            answer, mid = await h.new("swapping", [GIL, HAL], options="tiles=3", ready=False)  # makes their players
            assert mid, answer
            gil, hal = (h.store.player(u).player_id for u in (GIL, HAL))  # type: ignore[union-attr]
            season = api(server, "POST", "/api/seasons", name="Season 9", garnets=5, visibility="cast",
                         cast=[{"player": gil}, {"player": hal}, {"name": "Ivy"}], rules={"transfers": "host"})
            sid = season["id"]
            api(server, "POST", f"/api/seasons/{sid}/awards", player=hal, garnets=3, note="a main match won")
            table = await command(h, GIL, "standings", sid[:6])
            lines = table.split("\n")
            assert lines[0] == "**Season 9**: standings after round 1", table
            assert "Gil: 5 garnets" in table and "Hal: garnets hidden" in table and "Ivy: garnets hidden" in table
            assert "8" not in table.replace(str(sid), "")
            assert "Hal: 8 garnets" in await command(h, HAL, "standings", sid)
            state = await command(h, GIL, "season")  # Gil's newest season
            assert state.startswith(f"**Season 9** (season `{sid}`): round 1, the round's main match is next"), state
            assert "You hold 5 garnets." in state and "Still in: 3 of 3" in state and "Hal" not in state.split("\n")[-1]
            assert (await command(h, 101, "standings", sid)).startswith("Refused: ")
            # someone outside the cast learns nothing of it: not its id from its start, nor that it is the newest
            for sub in ("season", "standings"):
                told = await command(h, 101, sub, sid[:4])
                assert sid not in told and told == f"Refused: no season {sid[:4]!r}", told
                told = await command(h, 101, sub)
                assert sid not in told and "Season 9" not in told, told
            assert (await command(h, GIL, "season", "no such/season")).startswith("There is no season")

    asyncio.run(main())
