"""Every post within Discord's limits (2,000 characters a message), for every game the
registry lists: its largest seat view with every note at once (a bridge catching up
after a restart), and its largest public view as ``/bw status`` shows it.  A long board
is split between its lines into several code blocks, never cut."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from blackwhite.discord_bridge.core import Bridge, Outgoing, Settings
from blackwhite.discord_bridge.draw import draw_view
from blackwhite.discord_bridge.messages import MESSAGE_LIMIT, compose, split_lines
from blackwhite.discord_bridge.store import BridgeStore, MatchRow, SeatRow
from blackwhite.engine import game_ids, make_game
from blackwhite.engine.play import random_step
from blackwhite.server.bots import action_text

from .test_core import RecordingApi

#: the longest seat names the server takes (64 characters), so drawings are at their widest
NAMES = ["W" * 64, "M" * 64, "Y" * 64]


def blocks_of(texts: list[str]) -> str:
    """The code blocks of a run of messages, joined: the board they carry."""
    return "\n".join(m for t in texts for m in re.findall(r"```\n(.*?)\n```", t, re.S))


def same_board(texts: list[str], board: str) -> bool:
    """The blocks carry ``board`` whole: split between lines, or inside a line longer than
    a message (a listed field of a public view), nothing cut or added."""
    return blocks_of(texts).replace("\n", "") == board.replace("```", "'''").replace("\n", "")


def test_compose_keeps_every_line_and_fits() -> None:
    notes = [f"note {i} " + "n" * 90 for i in range(40)]
    board = "\n".join(f"row {i} " + "b" * 70 for i in range(60))
    texts = compose(notes, board, "Clock: 0:10\nYour move: press one.")
    assert len(texts) > 3 and all(len(t) <= MESSAGE_LIMIT for t in texts)
    assert blocks_of(texts) == board  # split between its lines, nothing cut
    assert texts[-1].endswith("Clock: 0:10\nYour move: press one.")
    assert [line for t in texts for line in t.split("\n") if line.startswith("note")] == notes
    # it all fits: one message, as before
    assert compose(["a"], "b", "c") == ["a\n```\nb\n```\nc"]
    # a line longer than a message is split, not cut
    long = "x" * 4500
    assert "".join(split_lines([long])) == long and all(len(t) <= MESSAGE_LIMIT for t in split_lines([long]))
    # ``` in a board cannot end its block early
    assert compose([], "a```b") == ["```\na'''b\n```"]


def largest_views(gid: str, seeds: int = 3) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
    """Over random matches: each seat's payload whose drawing and notes are longest
    (with its legal actions), and the public payload whose drawing is longest."""
    seats: dict[int, tuple[int, dict[str, Any]]] = {}
    public: tuple[int, dict[str, Any]] = (-1, {})
    for seed in range(seeds):
        state = make_game(gid).new_initial_state()
        rng = random.Random(seed)
        version = 0
        while True:
            if not state.is_chance():
                names = NAMES[:state.num_seats]
                view = json.loads(json.dumps(state.view(None)))
                size = len(draw_view(view, names))
                if size > public[0]:
                    public = (size, {"version": version, "status": "running", "view": view, "clocks": None})
                for seat in range(state.num_seats):
                    view = json.loads(json.dumps(state.view(seat)))
                    legal = [] if state.is_over() else [action_text(state, a) for a in state.legal_actions(seat)]
                    size = len(draw_view(view, names)) + sum(len(line) + 1 for line in view.get("log", [])) + len(legal)
                    if size > seats.get(seat, (-1, {}))[0]:
                        seats[seat] = (size, {"version": version, "status": "running", "view": view,
                                              "clocks": None, "legal": legal})
            if state.is_over():
                break
            random_step(state, rng, fast=False)
            version += 1
    return {s: p for s, (_, p) in seats.items()}, public[1]


class ViewApi(RecordingApi):
    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__()
        self.payload = payload

    async def view(self, match_id: str, token: str, render: bool = False, join: bool = True) -> dict[str, Any]:
        return self.payload


@pytest.mark.parametrize("gid", game_ids())
def test_every_games_largest_views_fit(gid: str, tmp_path: Path) -> None:
    seat_payloads, public = largest_views(gid)
    num_seats = len(seat_payloads)
    names = NAMES[:num_seats]
    api = ViewApi(public)
    bridge = Bridge(api, BridgeStore(tmp_path / "b.db"), Settings("https://games.test", "LINK", 1, frozenset({2})))
    # a match as the bridge files it, each seat a Discord user's, with the longest names
    bridge.store.add_match(MatchRow("M1", gid, 55, 1, "", "SPEC", names, {}, False),
                           [SeatRow("M1", s, 7 + s, f"T{s}") for s in range(num_seats)])
    for seat in range(num_seats):
        payload = seat_payloads[seat]
        posts: list[Outgoing] = asyncio.run(bridge.on_payload("M1", seat, payload)).posts
        texts = [p.text for p in posts]
        assert posts and all(len(t) <= MESSAGE_LIMIT for t in texts), (gid, seat, [len(t) for t in texts])
        assert same_board(texts, draw_view(payload["view"], names))
        log = payload["view"]["log"]
        shown = [line for t in texts for line in t.split("```")[0].split("\n") if line]
        assert "".join(shown[:len(log)]) == "".join(log) or "".join(shown).startswith("".join(log)), (gid, seat)
        assert all(not p.buttons and p.select is None for p in posts[:-1])  # the prompt is the last post's
        if len(payload["legal"]) > 25:
            assert "type it in notation" in texts[-1]
    reply = asyncio.run(bridge.status(1, 55, "M1"))
    texts = [reply.text, *reply.more]
    assert all(len(t) <= MESSAGE_LIMIT for t in texts), (gid, [len(t) for t in texts])
    assert same_board(texts, draw_view(public["view"], names))
    assert texts[0].startswith("Match `M1`: running")
