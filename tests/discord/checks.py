"""What the tests read back from the fake Discord, and what they expect, rebuilt
independently of the bridge: the engine replays the match record the server exports."""

from __future__ import annotations

import json
import re
from typing import Any

from blackwhite.discord_bridge.draw import draw_view
from tests.server.test_leaks import replay_prefixes

from .fake import Sent


def board_of(post: Sent) -> str | None:
    """The drawing in a DM post's code block."""
    m = re.search(r"```\n(.*?)\n```", post.text, re.S)
    return m.group(1) if m else None


#: DM posts that answer the player rather than carry the seat's view
ANSWERS = ("You hold seat", "Sent", "Refused", "Only <@", "That prompt", "Your seat's view", "You hold seats",
           "You hold no seat", "The server cannot", "What you may play now", "Nothing to play now", "You are in")

#: the channel's lines about the start, said by the bridge from the spectator payload's status
WAITING = "The match is waiting for "
STARTED = "The match has started: the clocks run."


def log_lines_of(post: Sent) -> list[str]:
    """The announcement lines a DM post starts with (before its board); a post of notes
    alone (too long to share a message with the board) is all notes."""
    if "```" not in post.text:
        return [] if post.text.startswith(ANSWERS) else post.text.split("\n")
    head = post.text.split("```", 1)[0].strip("\n")
    return head.split("\n") if head else []


def dm_log(posts: list[Sent]) -> list[str]:
    return [line for p in posts for line in log_lines_of(p)]


def announcements(posts: list[Sent]) -> list[str]:
    """The channel's lines between the match's opening post and its result."""
    assert posts and posts[0].text.startswith("**"), [p.text for p in posts[:1]]
    return [line for p in posts[1:] if not p.text.startswith("**Result**") for line in p.text.split("\n")
            if not line.startswith((WAITING, STARTED))]


def start_lines(posts: list[Sent]) -> list[str]:
    """The channel's lines about the start, in order."""
    return [line for p in posts for line in p.text.split("\n") if line.startswith((WAITING, STARTED))]


def engine_boards(record: dict[str, Any], seat: int | None, names: list[str]) -> set[str]:
    """The drawing of ``seat``'s engine view after every prefix of the record: a DM may
    show one of these and nothing else."""
    return {draw_view(p.views[seat], names) for p in replay_prefixes(record, [seat])  # type: ignore[arg-type]
            if isinstance(p.views[seat], dict)}


def check_match(h: Any, server: Any, match_id: str, users: dict[int, int]) -> dict[str, Any]:
    """The checks every match played through the bridge must pass; the record."""
    row = h.store.match(match_id)
    public = server.view(match_id, row.spectator_token)
    record = server.record(match_id, row.spectator_token)
    channel = h.channel()
    # the channel: the opening post, every public announcement once and in order, the result
    assert announcements(channel) == public["view"]["log"]
    # ...and, once each, that the match waits for its players, then that it started
    starts = start_lines(channel)
    assert len(starts) == 2 and starts[0].startswith(WAITING) and starts[1] == STARTED, starts
    results = [p for p in channel if p.text.startswith("**Result**")]
    assert len(results) == 1 and results[0] is channel[-1]
    assert f"/replay/{match_id}?token=" in results[0].text
    (name, data), = results[0].files
    assert name.endswith(".json") and json.loads(data) == record
    names = record["seats"]
    tokens = {s.seat: s.token for s in h.store.seats(match_id)}
    for seat, user in users.items():
        mine = h.dms(user)
        final = server.view(match_id, tokens[seat])
        # each DM: this seat's own announcements (public and private) once each, in order...
        assert dm_log(mine) == final["view"]["log"], (seat, dm_log(mine), final["view"]["log"])
        # ...and boards drawn from this seat's view and no other
        allowed = engine_boards(record, seat, names)
        boards = [b for b in (board_of(p) for p in mine) if b is not None]
        assert boards and all(b in allowed for b in boards), (seat, [b for b in boards if b not in allowed][:1])
        # no other seat's private note reached this DM
        for other, other_user in users.items():
            if other == seat:
                continue
            theirs = set(server.view(match_id, tokens[other])["view"]["log"]) - set(final["view"]["log"])
            assert not any(line in p.text for p in mine for line in theirs)
    return record
