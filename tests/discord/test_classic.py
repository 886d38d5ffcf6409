"""The worked example through Discord: a whole match of ``classic`` (the package in
examples/plugins/blackwhite-classic, which ships only its rules) played in two DMs
through the fake Discord against a real ``blackwhite serve``.  The DM boards are the
generic text drawing of each seat's view (tiles and seats in words), the channel gets
exactly the public announcements and the result with the record, and the record
passes the referee."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .checks import board_of, check_match
from .harness import Harness, bridge_link, play_through_dms
from .test_matches import settled

pytest.importorskip("blackwhite_classic", reason="the example package is not installed "
                    "(pip install --no-deps ./examples/plugins/blackwhite-classic; .ci/run does)")


def test_a_classic_match_through_dms(server: Any, store_path: Path, tmp_path: Path) -> None:
    async def main() -> dict[str, Any]:
        async with Harness(server.base_url, store_path, bridge_link(server)) as h:
            answer, mid = await h.new("classic", [101, 102])
            assert mid, answer
            assert "/rules/classic" in h.channel()[0].text
            users = {0: 101, 1: 102}
            await play_through_dms(h, server, mid, users, random.Random(11))
            await settled(h, server, mid)
            record = check_match(h, server, mid, users)
            # the generic drawing: the game's fields in words, the seat's tiles as tiles
            boards = [b for b in (board_of(p) for p in h.dms(101)) if b is not None]
            assert boards[0].startswith("classic - what Sally knows")
            assert any("My tiles: black 0, white 1, black 2" in b for b in boards), boards[0]
            assert any("Leader: P1 Sally" in b for b in boards) and not any("my_tiles" in b for b in boards)
            return record

    record = asyncio.run(main())
    assert record["game"] == "classic"
    path = tmp_path / "classic.json"
    path.write_text(json.dumps(record))
    referee = subprocess.run([sys.executable, "-m", "blackwhite", "referee", str(path)],
                             capture_output=True, text=True, timeout=120)
    assert referee.returncode == 0, referee.stdout + referee.stderr
