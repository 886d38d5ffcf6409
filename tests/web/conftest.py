"""Fixtures for the pages' tests: the real server in a child process, and Debian's chromium.

- ``live_server`` (one per test session): ``blackwhite serve`` on a free port over a
  temporary SQLite file, no request budget (``--rate 0``), one bot worker.  Its
  ``restart()`` kills it and starts it again on the same port and database, which is
  what a page sees when the network or the server goes away.
- ``browser``: Playwright's chromium from ``/usr/bin/chromium`` (never a downloaded one),
  headless, ``--no-sandbox --disable-gpu --disable-background-networking``.  Without
  chromium the browser tests are skipped, except under ``CI=true``, where they fail.
- ``page`` / ``phone``: a fresh desktop (1280x900) or phone (375x740) page.
- :func:`check_page`: no sideways scroll at the page's width and no critical axe-core
  issue (axe is vendored in ``blackwhite/web/static/vendor/axe-core``).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.client import ProcessServer

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
AXE = ROOT / "blackwhite" / "web" / "static" / "vendor" / "axe-core" / "axe.min.js"
AXE_URL = "/static/vendor/axe-core/axe.min.js"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")


class LiveServer(ProcessServer):
    """``blackwhite serve`` as a child process over a SQLite file (the shared launcher,
    :class:`tests.server.client.ProcessServer`): base URL, host token, the controls to
    crash it, and the API calls the pages' tests make."""

    def __init__(self, db_path: Path, log_path: Path) -> None:
        super().__init__(f"sqlite:///{db_path}", log=log_path, args=("--rate", "0", "--bot-workers", "1"))
        self.db_path = db_path
        self.log_path = log_path

    # ----------------------------------------------------------------- API helpers

    def create(self, game: str, seats: list[dict[str, str]], token: str | None = None, join: bool = True,
               **extra: Any) -> dict[str, Any]:
        """POST /api/matches (as this server's host by default); the answer's JSON.
        ``join``: every seat opens its link at once, so the clocks start now."""
        headers = {"Authorization": f"Bearer {token or self.host_token}"}
        r = httpx.post(self.base_url + "/api/matches", json={"game": game, "seats": seats, **extra},
                       headers=headers, timeout=30)
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        if join:
            for seat in out["tokens"]["seats"]:
                if seat:
                    self.view(out["id"], seat)
        return out

    def view(self, match_id: str, token: str, render: bool = False, join: bool = True) -> dict[str, Any]:
        """GET .../view; with a seat's token it joins the seat unless ``join=False``."""
        params: dict[str, Any] = {"token": token}
        if render:
            params["render"] = 1
        if not join:
            params["join"] = 0
        r = httpx.get(f"{self.base_url}/api/matches/{match_id}/view", params=params, timeout=30)
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def record(self, match_id: str, token: str) -> dict[str, Any]:
        r = httpx.get(f"{self.base_url}/api/matches/{match_id}/record", params={"token": token}, timeout=30)
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out


@contextlib.contextmanager
def running(base: Path) -> Iterator[LiveServer]:
    """A :class:`LiveServer` over a database in ``base``, started, and killed after."""
    server = LiveServer(base / "server.db", base / "server.log")
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with running(tmp_path_factory.mktemp("web-server")) as server:
        yield server


def chromium_missing() -> bool:
    return not Path(CHROMIUM).exists()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One chromium per test module.  Not per session: Playwright's sync API keeps an
    asyncio loop running in the main thread while it is open, so any later test that
    calls ``asyncio.run`` (the server's tests do) would fail if a browser module ran
    first and the browser lived on."""
    if chromium_missing():
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{CHROMIUM} is missing under CI: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); browser tests skipped outside CI")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield chromium
        finally:
            chromium.close()


def watch_errors(page: Any) -> None:
    """Collect the page's uncaught script errors and Content-Security-Policy refusals
    (a partial with an inline script or handler) in ``page.js_errors``, which
    :func:`check_page` checks: a page that throws is broken."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    page.js_errors = errors


def _new_page(browser: Any, viewport: dict[str, int]) -> Iterator[Any]:
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(15_000)
    page = context.new_page()
    watch_errors(page)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh desktop-sized page (its own context: its own localStorage)."""
    yield from _new_page(browser, DESKTOP)


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A fresh 375 px wide page."""
    yield from _new_page(browser, PHONE)


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """A factory of more pages, each in its own context (another player, a spectator)."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None) -> Any:
        context = browser.new_context(viewport=viewport or DESKTOP)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        watch_errors(page)
        return page

    try:
        yield make
    finally:
        for context in contexts:
            context.close()


def no_sideways_scroll(page: Any) -> None:
    """Assert the page is no wider than its viewport (nothing scrolls sideways)."""
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " document.body.scrollWidth]"
    )
    assert widths[0] <= widths[1] and widths[2] <= widths[1], (
        f"the page scrolls sideways at {widths[1]} px: content is {max(widths[0], widths[2])} px wide ({page.url})"
    )


def axe_violations(page: Any, impacts: tuple[str, ...] = ("critical",)) -> list[dict[str, Any]]:
    """Run the vendored axe-core on the page; the violations of the given impacts."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # served by the server itself, so the pages' Content-Security-Policy lets it run
        page.add_script_tag(url=page.evaluate("() => location.origin") + AXE_URL)
    result = page.evaluate("async () => JSON.stringify((await axe.run(document)).violations)")
    found: list[dict[str, Any]] = json.loads(result)
    return [v for v in found if v.get("impact") in impacts]


def check_page(page: Any, *, axe: bool = True, impacts: tuple[str, ...] = ("critical",)) -> None:
    """The checks every page must pass: no JS error, no sideways scroll, no critical axe
    issue (``impacts`` widens what counts: the framework's own pages pass "serious" too)."""
    errors = getattr(page, "js_errors", [])
    assert not errors, f"the page threw: {errors}"
    no_sideways_scroll(page)
    if axe:
        bad = axe_violations(page, impacts)
        assert not bad, "accessibility issues: " + "; ".join(
            f"{v['id']}: {v['help']} ({[n['target'] for n in v['nodes']][:3]})" for v in bad
        )


def wait_connected(page: Any, timeout: float = 15_000) -> None:
    """Wait until the match page's socket is open (bw.js marks ``body[data-conn]``)."""
    page.wait_for_selector("body[data-conn='conn-on']", timeout=timeout)
