"""The replay page's analysis in a real browser: Analyse, the progress, the curves, the
marks (jumping to their steps), the secrecy of other seats' actions, and a phone.

Its own server runs the analysis cheaply (2 worlds, 3 candidates, set through the
environment as ``blackwhite serve`` reads it), so the example swapping match (38
decisions) is analysed in seconds.  Only when ``BLACKWHITE_SCREENSHOTS`` is set (the
README's pictures are being made) does it use the page's real settings (worlds by game, 12
candidates; about a minute here for swapping), so the pictures show the figures a user would see, not
the cheap run's.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from blackwhite.web.analysis_jobs import ENV_CANDIDATES, ENV_WORLDS

from .conftest import PHONE, LiveServer, check_page, no_sideways_scroll
from .shots import shoot

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "examples" / "swapping.json"
#: (worlds, candidates) of the server: cheap for the test; for the pictures, none set,
#: so the server uses the page's own settings (worlds scaled by game)
CHEAP = ("2", "3")
FOR_PICTURES = bool(os.environ.get("BLACKWHITE_SCREENSHOTS"))


@pytest.fixture(scope="module")
def cheap_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    base = tmp_path_factory.mktemp("analysis-server")
    server = LiveServer(base / "pages.db", base / "server.log")
    saved = {name: os.environ.get(name) for name in (ENV_WORLDS, ENV_CANDIDATES)}
    if FOR_PICTURES:
        os.environ.pop(ENV_WORLDS, None)
        os.environ.pop(ENV_CANDIDATES, None)
    else:
        os.environ[ENV_WORLDS], os.environ[ENV_CANDIDATES] = CHEAP
    try:
        server.start()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    try:
        yield server
    finally:
        server.kill()


def points(loss: float) -> str:
    n = math.floor(loss + 0.5)  # JavaScript's Math.round
    return f"{n} point" if n in (1, -1) else f"{n} points"


def mark_text(mark: dict[str, Any]) -> str:
    """The page's text of a mark (see replay.js's markText)."""
    text = f"P{mark['seat'] + 1} move {mark['move']}"
    if mark["action"]:
        text += f": {mark['action']}"
    text += f" — {mark['mark']}, lost {points(mark['loss'])}"
    if mark["best"]:
        text += f" (best: {mark['best']})"
    return text


def chart_of(server: LiveServer, audience: str) -> dict[str, Any]:
    """The finished analysis of RECORD as ``audience`` reads it (asking again finds the same job)."""
    started = httpx.post(server.base_url + "/replay/analysis", content=RECORD.read_bytes(), timeout=30).json()
    assert started["state"] == "done", started
    r = httpx.get(f"{server.base_url}/replay/analysis/{started['job']}", params={"audience": audience}, timeout=30)
    chart: dict[str, Any] = r.json()["chart"]
    return chart


def listed(page: Any) -> list[str]:
    texts: list[str] = page.eval_on_selector_all("#analysis-marks button", "bs => bs.map(b => b.textContent)")
    return texts


def test_analyse_draws_the_curves_and_marks_that_jump_to_their_steps(cheap_server: LiveServer, page: Any) -> None:
    page.goto(cheap_server.base_url + "/replay")
    page.set_input_files("#record-file", str(RECORD))
    page.wait_for_selector("body[data-step='0']")
    assert page.locator("#analysis-result").is_hidden()
    # every text the progress line shows, to see the "N of M decisions" pass by
    page.evaluate("""() => { window.seenProgress = [];
        new MutationObserver(() => window.seenProgress.push(document.getElementById('analysis-progress-text').textContent))
          .observe(document.getElementById('analysis-progress-text'), {childList: true, characterData: true, subtree: true}); }""")
    page.click("#analyse")
    assert page.locator("#analysis-progress").is_visible() and page.is_disabled("#analyse")
    page.wait_for_selector("body[data-analysis='done']", timeout=600_000 if FOR_PICTURES else 120_000)
    seen = page.evaluate("() => window.seenProgress")
    assert any(text.endswith(" of 38 decisions") for text in seen), seen

    chart = chart_of(cheap_server, "full")
    assert page.locator("#analysis-chart svg polyline.seat-curve").count() == 2  # one line per seat
    assert chart["marks"], "the cheap analysis of the example marks some decisions"
    assert listed(page) == [mark_text(m) for m in chart["marks"]]
    svg_marks = page.locator("#analysis-chart g.mark")
    assert svg_marks.count() == len(chart["marks"])
    assert svg_marks.first.get_attribute("aria-label") == mark_text(chart["marks"][0])
    check_page(page)

    # a mark in the list jumps to the step just after its decision; the current-step line follows
    first, last = chart["marks"][0], chart["marks"][-1]
    page.locator("#analysis-marks button").first.click()
    page.wait_for_selector(f"body[data-step='{first['step']}'][data-now='{first['step']}']")
    assert first["step"] == first["event"] + 1  # swapping's record has no chance events
    line_x = page.get_attribute("#analysis-now", "x1")
    # a mark on the chart, by keyboard
    svg_marks.last.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"body[data-step='{last['step']}']")
    if last["step"] != first["step"]:
        assert page.get_attribute("#analysis-now", "x1") != line_x
    page.keyboard.press("Home")
    page.wait_for_selector("body[data-step='0'][data-now='0']")

    # seen as P1 or as a spectator, P2's (or everyone's) secret actions leave the analysis
    for audience, seat in (("0", 0), ("public", None)):
        mine = chart_of(cheap_server, audience)
        page.select_option("#audience", audience)
        page.wait_for_function("(want) => Array.from(document.querySelectorAll('#analysis-marks button'))"
                               ".map(b => b.textContent).join('|') === want",
                               arg="|".join(mark_text(m) for m in mine["marks"]))
        shown = page.inner_html("#analysis")
        for mark in chart["marks"]:
            if mark["seat"] != seat:
                # neither its action nor its best action is named next to this seat's move
                assert f"P{mark['seat'] + 1} move {mark['move']}: " not in shown, mark
                assert f"move {mark['move']} — {mark['mark']}, lost {points(mark['loss'])} (best" not in shown, mark
                assert mark_text({**mark, "action": None, "best": None}) in shown
            else:
                assert mark_text(mark) in shown
    page.select_option("#audience", "full")
    page.wait_for_function("(want) => document.querySelector('#analysis-marks button').textContent === want",
                           arg=mark_text(chart["marks"][0]))

    shoot(page, "replay-analysis")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    no_sideways_scroll(page)
    assert page.locator("#analysis-chart svg").bounding_box()["width"] <= PHONE["width"]


def test_a_bad_upload_starts_no_analysis(cheap_server: LiveServer) -> None:
    bad = json.loads(RECORD.read_text())
    bad["events"].insert(1, {"seat": 0, "action": "place 9 9 9"})
    r = httpx.post(cheap_server.base_url + "/replay/analysis", content=json.dumps(bad), timeout=30)
    assert r.status_code == 422 and "event 1" in r.json()["error"]["message"]
