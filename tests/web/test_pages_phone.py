"""Every game's player page as a new player meets it on a 375 x 812 phone (Debian's
chromium): table headers never break inside a word, the first move control is on the
first screen after the board, black tiles stay readable (at least 4.5:1) when hovered,
tapped or focused, no raw option name or Markdown syntax is visible, no "Reserve" column
where the game has no reserve, the tab's title says "Your move", and once the match is
over the notation box and Send are disabled."""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from typing import Any, Iterator

import pytest
from playwright.sync_api import Error as PlaywrightError

from blackwhite.engine import make_game
from blackwhite.engine.registry import game_ids

from .conftest import LiveServer, check_page

PHONE_TALL = {"width": 375, "height": 812}

#: the notation prefixes of each game's move controls (the first one the page shows)
CONTROLS = "#board button:not([disabled]):not(.dm-reset):not(.sw-clear):not(.ye-undo), #board input, #other button"

#: the contrast of each text inside the page's buttons against what is drawn behind it
CONTRAST_JS = r"""
(sel) => {
  function rgba(text) {
    const m = text.match(/rgba?\(([^)]+)\)/);
    if (!m) { return [0, 0, 0, 0]; }
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  function over(top, under) {
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
  }
  function background(node) {
    const layers = [];
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) { layers.push(c); }
      if (c[3] >= 1) { break; }
    }
    let colour = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) { colour = over(layers[i], colour); }
    return colour;
  }
  function lum(c) {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  const root = document.querySelector(sel);
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!t.textContent.trim()) { continue; }
    const node = t.parentElement;
    const bg = background(node);
    const fg = over(rgba(getComputedStyle(node).color), bg);
    const a = lum(fg), b = lum(bg);
    out.push({text: t.textContent.trim(), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), dark: b < 0.1});
  }
  return out;
}
"""

#: every table header cell at least as wide as its longest word (so no word breaks inside)
HEADERS_JS = r"""
() => {
  const bad = [];
  document.querySelectorAll("th").forEach(th => {
    if (!th.offsetParent) { return; }
    const style = getComputedStyle(th);
    const inner = th.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const words = th.innerText.split(/\s+/).filter(Boolean);
    words.forEach(word => {
      const probe = document.createElement("span");
      probe.textContent = word;
      probe.style.whiteSpace = "nowrap";
      probe.style.font = style.font;
      probe.style.letterSpacing = style.letterSpacing;
      probe.style.position = "absolute";
      probe.style.visibility = "hidden";
      th.appendChild(probe);
      const w = probe.getBoundingClientRect().width;
      th.removeChild(probe);
      if (w > inner + 0.5) { bad.push(word + " (" + Math.round(w) + " px in a " + Math.round(inner) + " px cell)"); }
    });
  });
  return bad;
}
"""


def _person_first(game: str) -> list[dict[str, str]]:
    seats = make_game(game).num_seats
    return [{"name": "Alice"}] + [{"bot": "ismcts:budget=0.2" if i == 1 else "random"} for i in range(1, seats)]


#: each black and white tile's background brightness (0 black .. 1 white) as drawn
TILES_JS = r"""
() => Array.from(document.querySelectorAll(
    "#board .sw-black, #board .dm-black, #board .gb-black, #board .jb-black, #board .ye-tile, #board .ye-play," +
    "#board .sw-white, #board .dm-white, #board .gb-white, #board .jb-white, #board .gtile-black, #board .gtile-white"
    )).map(n => {
  const m = getComputedStyle(n).backgroundColor.match(/[\d.]+/g).map(Number);
  return {black: /-black|ye-tile|ye-play/.test(n.className), level: (m[0] + m[1] + m[2]) / 765};
})
"""


@contextmanager
def phone_page(browser: Any, scheme: str = "light", timeout: float | None = None) -> Iterator[Any]:
    """A page of a fresh 375 x 812 browser context in the given colour scheme, closed
    afterwards; ``js_errors`` is there for check_page (nothing is collected in it)."""
    context = browser.new_context(viewport=PHONE_TALL, color_scheme=scheme)
    if timeout is not None:
        context.set_default_timeout(timeout)
    page = context.new_page()
    page.js_errors = []
    try:
        yield page
    finally:
        context.close()


def _open_player(live_server: LiveServer, browser: Any, game: str,
                 scheme: str = "light") -> tuple[Any, Any, dict[str, Any]]:
    made = live_server.create(game, _person_first(game))
    context = browser.new_context(viewport=PHONE_TALL, color_scheme=scheme)
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.goto(made["pages"]["seats"][0])
    page.wait_for_selector("body[data-conn='conn-on']")
    page.wait_for_selector("body[data-my-turn='1']", timeout=60_000)
    return context, page, made


def _visible_text(page: Any) -> str:
    return str(page.evaluate("() => document.body.innerText"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("game", game_ids())
def test_phone_player_page(live_server: LiveServer, browser: Any, game: str, scheme: str) -> None:
    context, page, made = _open_player(live_server, browser, game, scheme)
    try:
        # light or dark, a black tile is black and a white tile white
        dark_page = page.evaluate("() => getComputedStyle(document.body).backgroundColor") != "rgb(250, 250, 250)"
        assert dark_page == (scheme == "dark")
        tiles = page.evaluate(TILES_JS)
        assert tiles or game == "domino", "no tile on the board"  # domino's first board is empty
        for tile in tiles:
            assert (tile["level"] < 0.15) if tile["black"] else (tile["level"] > 0.9), tile

        # the move notice is in the tab's title, and the tab's icon changes with it
        assert page.title().startswith("● Your move"), page.title()
        assert "favicon-move" in page.get_attribute('link[rel="icon"]', "href")

        # what to do, in words: never a count of legal actions
        prompt = page.inner_text("#prompt")
        assert prompt.startswith("Your move: ") and not re.search(r"\d+ (legal )?actions?\b", prompt), prompt
        assert not re.search(r"\. [a-z]", prompt), f"a sentence of the prompt starts in lower case: {prompt}"
        if game == "swapping":
            assert "Choose 3 tiles to place in positions 1-3" in prompt, prompt

        # no word broken inside a table header (the clocks, the board's tables)
        assert page.evaluate(HEADERS_JS) == []

        # the first move control is on the first screen once the board is scrolled to
        page.evaluate("() => document.getElementById('board').scrollIntoView({block: 'start'})")
        first = page.locator(CONTROLS).first
        box = first.bounding_box()
        assert box is not None, "no move control on the page"
        assert box["y"] >= -1 and box["y"] + min(box["height"], 40) <= PHONE_TALL["height"], (
            f"the first move control starts {box['y']:.0f} px below the board's top: off the first screen")

        # black tiles (and every button's text) stay readable hovered, tapped and focused
        buttons = page.locator("#board button:not([disabled])")
        checked_dark = 0
        for i in range(min(buttons.count(), 40)):
            button = buttons.nth(i)
            try:
                if not button.is_visible():
                    continue
                button.scroll_into_view_if_needed(timeout=2000)
                found = []
                for how in ("hover", "focus"):
                    if how == "hover":
                        button.hover(timeout=2000)
                    else:
                        button.focus(timeout=2000)
                    button.evaluate("b => b.setAttribute('data-probe', '1')", timeout=2000)
                    found.append((how, page.evaluate(CONTRAST_JS, "[data-probe='1']")))
                    page.evaluate("() => document.querySelectorAll('[data-probe]').forEach(n => n.removeAttribute('data-probe'))")
            except PlaywrightError:
                continue  # a bot moved and the board was drawn again: that button is gone
            for how, entries in found:
                for entry in entries:
                    checked_dark += entry["dark"]
                    assert entry["ratio"] >= 4.5, f"{game}: {entry['text']!r} at {entry['ratio']:.2f}:1 when {how}ed"
        if game in ("swapping", "yellow"):
            assert checked_dark > 0, "no black tile button was checked"

        # players' words: no Markdown code span, no raw option name, no bot spec
        text = _visible_text(page)
        assert "`" not in text and "**" not in text
        assert "budget=" not in text and "bot ismcts" not in text
        for name in make_game(game).options:
            if "_" in name or name in ("dmo",):
                assert not re.search(rf"\b{re.escape(name)}\b", text), f"raw option name {name!r} on the page"

        # no reserve column where the game has none (it read as time run out)
        has_reserve = make_game(game).clock_rule().reserve > 0
        assert page.locator("#clocks th.reserve-col").is_visible() == has_reserve
        check_page(page)  # pages with a board: no critical issue (as the other game tests)

        # once the match is over nothing can be sent
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#resign")
        page.wait_for_selector("body[data-status='finished']")
        assert page.is_disabled("#notation") and page.is_disabled("#notation-form button[type=submit]")
        assert not page.title().startswith("●")
    finally:
        context.close()



def test_the_host_page_form_uses_players_words(live_server: LiveServer, browser: Any) -> None:
    with phone_page(browser) as page:
        page.goto(live_server.base_url + "/")
        for game in game_ids():
            page.check(f"#game-{game}")
            text = str(page.evaluate("() => document.getElementById('create').innerText"))
            assert "`" not in text and "(JSON)" not in text, game
            for name in make_game(game).options:
                if "_" in name or name == "dmo":
                    assert not re.search(rf"\b{re.escape(name)}\b", text), f"{game}: raw option {name!r}"


def test_the_host_form_takes_yellows_garnets_seat_by_seat(live_server: LiveServer, browser: Any) -> None:
    with phone_page(browser) as page:
        page.goto(live_server.base_url + "/")
        page.check("#game-yellow")
        assert page.inner_text("label[for='opt-garnets-0']") == "P1"
        page.fill("#opt-garnets-1", "7")
        page.select_option("#opt-garnet_priority", label="P3, P1, P2")
        page.check("#game-grouping-final")
        page.check("#opt-items-1-peek")
        page.check("#game-yellow")  # the form is drawn again for yellow: set it again
        page.fill("#opt-garnets-1", "7")
        page.select_option("#opt-garnet_priority", label="P3, P1, P2")
        page.click("#create-button")
        page.wait_for_url(re.compile(r"/host/"))
        match_id = page.url.split("/host/", 1)[1].split("?", 1)[0]
        token = page.url.split("token=", 1)[1].split("#", 1)[0]
        view = live_server.view(match_id, token)
        assert view["view"]["garnets"] == [0, 7, 0]
        assert view["view"]["options"]["garnet_priority"] == [2, 0, 1]


def test_clocks_freeze_while_the_server_is_down_and_the_page_is_back_within_2_s(
        live_server: LiveServer, browser: Any) -> None:
    made = live_server.create("yellow", [{"name": "Alice"}, {"bot": "random"}, {"bot": "random"}])
    with phone_page(browser, timeout=20_000) as page:
        page.goto(made["pages"]["seats"][0])
        page.wait_for_selector("body[data-conn='conn-on']")
        clock = "#clocks tr[data-seat='0'] .action-left"
        first = page.inner_text(clock)
        page.wait_for_function(f"() => document.querySelector(\"{clock}\").textContent !== {first!r}",
                               timeout=5000)  # it counts while connected
        assert page.is_hidden("#clocks-note")

        live_server.kill()  # the server process dies mid-match
        page.wait_for_function("() => Number(document.body.dataset.drops || 0) > 0")
        assert page.is_visible("#clocks-note") and "Reconnecting" in page.inner_text("#clocks-note")
        frozen = page.inner_text(clock)
        time.sleep(2.5)
        assert page.inner_text(clock) == frozen, "the page's clock kept falling while disconnected"
        assert page.get_attribute("body", "data-conn") != "conn-on"

        live_server.start()  # same port, same database
        back = time.monotonic()
        page.wait_for_selector("body[data-conn='conn-on']", timeout=5000)
        took = time.monotonic() - back
        assert took <= 2.0, f"the page reconnected {took:.1f} s after the server was back"
        page.wait_for_selector("#clocks-note", state="hidden")


def test_a_replay_does_not_speak_to_the_viewer_as_each_player() -> None:
    import json
    from pathlib import Path

    from blackwhite.web import replay as steps

    from blackwhite.engine import to_record
    from tests.web.boards import random_play

    root = Path(__file__).resolve().parents[2]
    for game in game_ids():  # the shipped example record, else a random match's
        path = root / "examples" / f"{game}.json"
        record = json.loads(path.read_text()) if path.exists() else to_record(random_play(game, 1, 400))
        total = steps.outline(record)["steps"]
        for audience in ("0", "1", "full"):
            for n in (0, total // 2, total - 1):
                html = "".join(b["html"] for b in steps.step(record, n, audience)["boards"])
                assert "Your row" not in html and "(you)" not in html and "· you" not in html, (game, audience, n)


def test_the_framework_pages_in_the_dark_theme(live_server: LiveServer, browser: Any) -> None:
    with phone_page(browser, "dark") as page:
        for path in ("/", "/rules/yellow", "/replay"):
            page.goto(live_server.base_url + path)
            page.wait_for_load_state("load")
            assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(28, 28, 30)"
            check_page(page, impacts=("critical", "serious"))


@pytest.mark.parametrize("game", game_ids())
def test_replays_end_at_375_px_breaks_no_header_word(live_server: LiveServer, browser: Any, game: str,
                                                      tmp_path: Any) -> None:
    """A whole match's tables (grouping's rounds, yellow's submissions, named by bot
    seats) at the last step of its replay, every seat's board shown."""
    import json
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / f"{game}.json"
    if example.is_file():
        record = json.loads(example.read_text())
    else:  # a game installed from its own package: a whole match of random play
        import random

        from blackwhite.engine import make_game, to_record

        state, rng = make_game(game).new_initial_state(), random.Random(5)
        while not state.is_over():
            if state.is_chance():
                state.play_chance(rng)
                continue
            seat = state.to_move()[0]
            state.apply(seat, state.random_action(seat, rng))
        record = to_record(state, [f"P{i + 1}" for i in range(state.num_seats)])
    record["seats"] = ["Alice", "bot ismcts:budget=1", "bot random"][:len(record["seats"])]
    path = tmp_path / f"{game}.json"
    path.write_text(json.dumps(record))
    with phone_page(browser) as page:
        page.goto(live_server.base_url + "/replay")
        page.set_input_files("#record-file", str(path))
        page.wait_for_selector("body[data-step='0']")
        page.keyboard.press("End")
        page.wait_for_function("() => Number(document.body.dataset.step) > 0")
        page.wait_for_timeout(200)
        assert page.evaluate(HEADERS_JS) == []
        text = _visible_text(page)
        assert "budget=" not in text and "bot ismcts" not in text and "ismcts bot" in text
        assert "Your row" not in text and "(you)" not in text


def test_the_move_alerts_are_off_until_the_player_turns_them_on(live_server: LiveServer, browser: Any) -> None:
    made = live_server.create("swapping", [{"name": "Alice"}, {"name": "Bob"}])
    contexts = [browser.new_context(viewport=PHONE_TALL) for _ in range(2)]
    alice, bob = (c.new_page() for c in contexts)
    try:
        for seat, page in enumerate((alice, bob)):  # both seats open their links
            page.goto(made["pages"]["seats"][seat])
            page.wait_for_selector("body[data-conn='conn-on']")
        alice.wait_for_selector("body[data-my-turn='1']")
        assert alice.title().startswith("● Your move")  # the title is always on
        for name in ("sound", "notify", "vibrate"):
            assert not alice.is_checked(f"#alert-{name}")
        alice.click("details.alerts summary")
        alice.check("#alert-sound")
        assert alice.evaluate("() => JSON.parse(localStorage.getItem('bw.alerts')).sound") is True
        alice.reload()
        alice.wait_for_selector("body[data-conn='conn-on']")
        assert alice.is_checked("#alert-sound") and not alice.is_checked("#alert-notify")
        # once Alice has answered (Bob has not), the notice leaves her title and icon
        alice.evaluate("() => BW.send(BW.payload().legal[0])")
        alice.wait_for_function("() => BW.payload().view.my_pending !== null")
        assert not alice.title().startswith("●")
        assert "favicon-move" not in alice.get_attribute('link[rel="icon"]', "href")
        assert bob.title().startswith("● Your move")
    finally:
        for context in contexts:
            context.close()


#: every visible control of the host's form inside its container, and every choice of a
#: select shown whole (a select cannot wrap: a choice wider than the box is cut off)
FORM_FITS_JS = r"""
() => {
  const bad = [];
  const probe = document.createElement("span");
  probe.style.position = "absolute"; probe.style.whiteSpace = "pre"; probe.style.visibility = "hidden";
  document.body.appendChild(probe);
  document.querySelectorAll("#create input, #create select, #create button, #create label, #create textarea").forEach(n => {
    if (!n.offsetParent) { return; }
    // a label only screen readers read is clipped to 1 px on purpose
    if (n.classList.contains("visually-hidden")) { return; }
    const parent = n.parentElement, ps = getComputedStyle(parent);
    const right = parent.getBoundingClientRect().right - parseFloat(ps.paddingRight) - parseFloat(ps.borderRightWidth);
    const r = n.getBoundingClientRect();
    const name = n.id || n.getAttribute("for") || n.textContent.trim();
    if (r.right > right + 0.5) { bad.push(`${n.tagName} ${name} ends ${Math.round(r.right - right)} px past its container`); }
    if (n.tagName === "SELECT") {
      const st = getComputedStyle(n);
      probe.style.font = st.font;
      // the room for the text: the box less its padding and the drop-down arrow (about 20 px)
      const room = n.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 20;
      for (const o of n.options) {
        probe.textContent = o.text;
        if (probe.getBoundingClientRect().width > room) { bad.push(`select ${name}: "${o.text}" is cut off`); }
      }
    } else if (n.tagName !== "INPUT" && n.scrollWidth > n.clientWidth + 1) {
      bad.push(`${n.tagName} ${name} is wider than its box`);
    }
  });
  probe.remove();
  return bad;
}
"""


def test_no_control_of_the_host_form_overflows_at_375_px(live_server: LiveServer, browser: Any) -> None:
    with phone_page(browser) as page:
        page.goto(live_server.base_url + "/")
        for game in game_ids():
            page.check(f"#game-{game}")
            bad = page.evaluate(FORM_FITS_JS)
            assert not bad, f"{game}: {bad}"
            page.check("#start-at-time")  # shows the time field too
            bad = page.evaluate(FORM_FITS_JS)
            assert not bad, f"{game}: {bad}"
            assert page.is_visible("#start-at")
            page.check("#start-when-joined")
        assert page.is_hidden("#start-at")
        check_page(page)
