"""The worked example, as a host and two players meet it: a match of ``classic`` (the
package in examples/plugins/blackwhite-classic, which ships only its rules) hosted by
``blackwhite serve`` from the form its options make, played to the end by two phone
pages (375 px) on the generic board, then replayed; its record passes the referee."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import PHONE, LiveServer, check_page, wait_connected

pytest.importorskip("blackwhite_classic", reason="the example package is not installed "
                    "(pip install --no-deps ./examples/plugins/blackwhite-classic; .ci/run does)")


def _play_turn(pages: list[Any]) -> bool:
    """Whoever's move it is plays the first tile its board offers; False once both pages say the match is over."""
    for page in pages:
        if page.get_attribute("body", "data-status") == "finished":
            continue
        if page.get_attribute("body", "data-my-turn") == "1":
            before = page.evaluate("() => BW.payload().version")
            button = page.locator("#board button[data-action]").first
            assert button.get_attribute("aria-label").startswith(button.inner_text())
            button.click()
            page.wait_for_function(f"() => BW.payload().version > {before}")
            return True
    return not all(p.get_attribute("body", "data-status") == "finished" for p in pages)


def test_a_classic_match_is_hosted_played_to_the_end_at_375_px_and_replayed(
        live_server: LiveServer, new_page: Any, tmp_path: Path) -> None:
    host = new_page(PHONE)
    host.goto(live_server.base_url + "/")
    host.check("#game-classic")
    # the host form is made from the game's OptionInfo
    assert host.locator("#opt-early_end").count() == 1 and host.locator("#opt-replays").count() == 1
    host.check("#opt-early_end")
    host.fill("#seat-name-0", "Ann")
    host.select_option("#seat-kind-1", "person")
    host.fill("#seat-name-1", "Bob")
    host.click("#create-button")
    host.wait_for_url(re.compile(r"/host/[^/?]+\?token="))
    wait_connected(host)
    match_id = host.url.split("/host/")[1].split("?")[0]
    links = host.locator("#links input.link")
    assert links.count() == 3  # the spectators, Ann and Bob
    seat_links = [links.nth(1).input_value(), links.nth(2).input_value()]
    check_page(host)

    players = []
    for link in seat_links:
        page = new_page(PHONE)
        page.goto(link)
        wait_connected(page)
        players.append(page)
    ann, bob = players
    ann.wait_for_selector("body[data-my-turn='1']")  # Ann (P1) leads the first round
    # the generic board: every field in words, the seat's tiles drawn as tiles, the moves as buttons
    board = ann.inner_text("#board")
    assert "My tiles" in board and "my_tiles" not in board
    assert ann.locator("#board .gtile").count() >= 9
    assert ann.locator("#board button[data-action='play 0']").count() == 1
    assert ann.inner_text("#prompt").startswith("Your move: ")
    check_page(ann)

    for _ in range(200):
        if not _play_turn(players):
            break
    else:
        raise AssertionError("the match did not end in 200 moves")
    for page in players:
        page.wait_for_selector("body[data-status='finished']")
        check_page(page, axe=False)
    assert re.search(r"finished: (P[12] \w+ wins|a draw)", ann.inner_text("#status")), ann.inner_text("#status")

    # the replay, as Ann saw it, to its last step
    ann.click(".when-over a")
    ann.wait_for_selector("body[data-step='0']")
    ann.keyboard.press("End")
    ann.wait_for_function("() => Number(document.body.dataset.step) > 0")
    assert ann.locator("#boards .gtile").count() > 0
    check_page(ann)

    # the record passes the referee
    token = seat_links[0].split("token=")[1]
    record = live_server.record(match_id, token)
    assert record["game"] == "classic" and record["seats"] == ["Ann", "Bob"]
    path = tmp_path / "classic.json"
    path.write_text(json.dumps(record))
    referee = subprocess.run([sys.executable, "-m", "blackwhite", "referee", str(path)],
                             capture_output=True, text=True, timeout=120)
    assert referee.returncode == 0, referee.stdout + referee.stderr
