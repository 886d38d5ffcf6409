"""The API documentation page (/docs) works offline: Swagger UI is served by the server
itself (vendored from npm's swagger-ui-dist), under the pages' Content-Security-Policy.

Chromium is allowed to reach the server only; any other request is refused and noted.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from .conftest import LiveServer, check_page


def test_docs_lists_the_routes_with_the_network_blocked(live_server: LiveServer, page: Any) -> None:
    refused: list[str] = []

    def only_the_server(route: Any) -> None:
        url = route.request.url
        if url.startswith(live_server.base_url + "/") or url.startswith("data:"):
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    page.context.route("**/*", only_the_server)
    response = page.goto(live_server.base_url + "/docs")
    assert response is not None and response.status == 200
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'self'" in csp, csp

    page.wait_for_selector(".opblock", timeout=20_000)
    listed = page.locator(".opblock-summary-path").all_inner_texts()
    for path in ("/api/games", "/api/matches", "/api/matches/{match_id}/actions", "/health"):
        assert any(text.replace("\u200b", "") == path for text in listed), f"{path} is not listed: {listed}"
    assert refused == [], f"the page asked for something other than the server: {refused}"
    check_page(page, axe=False)  # no script error, no CSP refusal, no sideways scroll

    # opening a route shows its parameters and the documented refusals
    page.locator(".opblock-summary-path", has_text="/actions").first.click()
    page.wait_for_selector(".opblock.is-open .responses-table")
    assert "stale_version" in page.locator(".opblock.is-open").inner_text()
    assert refused == []


def test_docs_page_loads_nothing_from_elsewhere(live_server: LiveServer) -> None:
    html = httpx.get(live_server.base_url + "/docs", timeout=10).text
    assert "cdn" not in html.lower() and "https://" not in html, html
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in html
    for asset in ("/static/vendor/swagger-ui/swagger-ui-bundle.js", "/static/vendor/swagger-ui/swagger-ui.css",
                  "/static/vendor/swagger-ui/LICENSE", "/static/docs.js"):
        assert httpx.get(live_server.base_url + asset, timeout=10).status_code == 200, asset
    assert httpx.get(live_server.base_url + "/redoc", timeout=10).status_code == 404


def test_host_page_hands_out_links_on_the_public_url(tmp_path: Any, page: Any) -> None:
    """Opened at another address than ``--public-url`` (the server's own loopback address,
    as on the machine itself), the host page still gives players links on the public URL."""
    from tests.server.client import ThreadServer

    public = "https://bw.example.org"
    with ThreadServer(f"sqlite:///{tmp_path / 'public.db'}", bot_workers=0, public_url=public) as server:
        page.goto(server.base_url + "/")
        page.check("#game-swapping")
        page.click("#create-button")
        page.wait_for_url(re.compile(r"/host/[^/?]+\?token="))
        links = page.locator("#links input.link")
        links.first.wait_for()
        values = [links.nth(i).input_value() for i in range(links.count())]
        assert len(values) >= 2 and all(v.startswith(public + "/") for v in values), values
        check_page(page, axe=False)
