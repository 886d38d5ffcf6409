"""``blackwhite discord`` at start: the server's address, the host link and the bot's
token are checked before anything is written, and a refusal is one line (no
traceback), a non-zero exit, and no store file left behind."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import discord
import httpx
import pytest

from blackwhite.discord_bridge import bot
from blackwhite.discord_bridge.config import ConfigError, load_config
from blackwhite.discord_bridge.core import Settings

from .harness import bridge_link

ROOT = Path(__file__).resolve().parents[2]


def env(**kw: str) -> dict[str, str]:
    base = {"BLACKWHITE_DISCORD_TOKEN": "a-dummy-bot-token", "BLACKWHITE_HOST_TOKEN": "a-dummy-link",
            "BLACKWHITE_DISCORD_GUILD": "12345", "BLACKWHITE_DISCORD_HOST_ROLES": "678",
            "BLACKWHITE_SERVER_URL": "http://127.0.0.1:8000"}
    return {**base, **kw}


def run_cli(tmp_path: Path, settings: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BLACKWHITE_")}
    return subprocess.run([sys.executable, "-m", "blackwhite", "discord"], cwd=tmp_path, env={**clean, **settings},
                          capture_output=True, text=True, timeout=60)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_server_is_one_line_and_leaves_no_store(tmp_path: Path) -> None:
    out = run_cli(tmp_path, env(BLACKWHITE_SERVER_URL=f"http://127.0.0.1:{free_port()}"))
    assert out.returncode == 2, out
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("error: the server cannot be reached (BLACKWHITE_SERVER_URL=http://127.0.0.1:")
    assert list(tmp_path.iterdir()) == []


def test_a_refused_host_link_is_one_line_and_leaves_no_store(server: Any, tmp_path: Path) -> None:
    out = run_cli(tmp_path, env(BLACKWHITE_SERVER_URL=server.base_url, BLACKWHITE_HOST_TOKEN="not-a-link"))
    assert out.returncode == 2, out
    assert out.stderr == "error: the server refuses BLACKWHITE_HOST_TOKEN: the token is not a host token of this server\n"
    assert list(tmp_path.iterdir()) == []
    # a revoked link too
    made = httpx.post(f"{server.base_url}/api/host/links", json={"label": "old bot"},
                      headers={"Authorization": f"Bearer {server.host_token}"}, timeout=30).json()
    httpx.post(f"{server.base_url}/api/host/links/{made['id']}/revoke",
               headers={"Authorization": f"Bearer {server.host_token}"}, timeout=30).raise_for_status()
    out = run_cli(tmp_path, env(BLACKWHITE_SERVER_URL=server.base_url, BLACKWHITE_HOST_TOKEN=made["token"]))
    assert out.returncode == 2 and out.stderr.startswith("error: the server refuses BLACKWHITE_HOST_TOKEN: this host"
                                                         " link was revoked"), out.stderr
    assert list(tmp_path.iterdir()) == []
    # an owner link (it could make and revoke links): refused, the bot gets a link of its own scope
    out = run_cli(tmp_path, env(BLACKWHITE_SERVER_URL=server.base_url, BLACKWHITE_HOST_TOKEN=server.host_token))
    assert out.returncode == 2 and out.stderr.startswith("error: BLACKWHITE_HOST_TOKEN is an owner link"), out.stderr
    assert "`blackwhite hosts new-link --scope discord --label 'discord bot'`" in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and list(tmp_path.iterdir()) == []


def test_a_matches_link_starts_with_a_warning_that_names_the_command(server: Any,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    """A bot still on a ``matches`` link (made before the ``discord`` scope) passes the
    check (it hosts matches) and is told, in one warning, the command that gives it its link."""
    from blackwhite.discord_bridge.api import ServerApi

    made = httpx.post(f"{server.base_url}/api/host/links", json={"label": "old bot", "scope": "matches"},
                      headers={"Authorization": f"Bearer {server.host_token}"}, timeout=30).json()

    async def main() -> None:
        api = ServerApi(server.base_url)
        try:
            await api.check(made["token"])
            told = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
            assert any("is a matches link" in m and "`blackwhite hosts new-link --scope discord --label 'discord bot'`"
                       in m for m in told), told
            caplog.clear()
            await api.check(bridge_link(server))  # the bridge's own: nothing to say
            assert [r for r in caplog.records if r.levelname == "WARNING"] == []
        finally:
            await api.close()

    with caplog.at_level("WARNING", "blackwhite.discord"):
        asyncio.run(main())


def test_the_file_from_blackwhite_config(tmp_path: Path) -> None:
    """``BLACKWHITE_CONFIG`` names the file, as for ``serve``; serve's own keys are not the
    bridge's: one line that lists the bridge's, nothing created."""
    (tmp_path / "serve.toml").write_text('db = "postgresql:///blackwhite"\nport = 8001\n')
    out = run_cli(tmp_path, env(BLACKWHITE_CONFIG=str(tmp_path / "serve.toml")))
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"error: {tmp_path / 'serve.toml'}: unknown keys db, port; the keys are discord_token")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["serve.toml"]


def test_something_else_at_the_server_url_is_one_line(tmp_path: Path) -> None:
    """An address that answers, but not as a blackwhite server (a web page, a 404)."""
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>hello</html>") if request.url.path == "/api/games" \
            else httpx.Response(404, text="no")

    from blackwhite.discord_bridge.api import ServerApi

    async def main() -> str:
        api = ServerApi("http://web.test", httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        with pytest.raises(ConfigError) as err:
            await api.check("x")
        return str(err.value)

    assert asyncio.run(main()) == ("BLACKWHITE_SERVER_URL=http://web.test is not a blackwhite server:"
                                   " GET /api/games answered no JSON")


def test_a_dummy_discord_token_is_one_line_and_leaves_no_store(server: Any, tmp_path: Path) -> None:
    """The fake Discord answers 401 to a login with another token (discord.py's own
    ``static_login`` raises LoginFailure): one line, and the store is not created (the
    check runs before it)."""
    from .fake import FakeDiscord

    store = tmp_path / "blackwhite-discord.db"
    config = load_config(None, env(BLACKWHITE_SERVER_URL=server.base_url, BLACKWHITE_HOST_TOKEN=bridge_link(server),
                                   BLACKWHITE_DISCORD_STORE=str(store)))

    async def main() -> None:
        fake = FakeDiscord(discord.Client(intents=discord.Intents.none()), {}, token="the-real-token")
        await fake.serve()
        try:
            with pytest.raises(ConfigError, match="^Discord refuses BLACKWHITE_DISCORD_TOKEN: it is not a bot token"):
                await bot.start(config)
        finally:
            await fake.stop()
        assert ("GET", "/users/@me", 401) in fake.requests

    asyncio.run(main())
    assert not store.exists()


def test_commands_refused_in_the_guild_leave_no_store(server: Any, tmp_path: Path) -> None:
    """The bot is not in BLACKWHITE_DISCORD_GUILD: Discord refuses ``tree.sync()`` there
    (403, code 50001) during the real login; one line, and the store just created for
    this start (nothing in it) is removed."""
    from .fake import BOT_TOKEN, FakeDiscord, Refusal

    store = tmp_path / "bot.db"
    config = load_config(None, env(BLACKWHITE_SERVER_URL=server.base_url, BLACKWHITE_HOST_TOKEN=bridge_link(server),
                                   BLACKWHITE_DISCORD_STORE=str(store), BLACKWHITE_DISCORD_TOKEN=BOT_TOKEN))

    async def main() -> None:
        fake = FakeDiscord(discord.Client(intents=discord.Intents.none()), {})
        fake.fault = lambda method, path, body: (Refusal(403, {"code": 50001, "message": "Missing Access"})
                                                 if method == "PUT" else None)
        await fake.serve()
        try:
            with pytest.raises(ConfigError, match="^Discord refuses the bot's commands in BLACKWHITE_DISCORD_GUILD=12345"):
                await bot.start(config)
        finally:
            await fake.stop()
        assert ("PUT", "/applications/900000000000000001/guilds/12345/commands", 403) in fake.requests

    asyncio.run(main())
    assert list(tmp_path.iterdir()) == []


def test_settings_are_named_in_one_line() -> None:
    with pytest.raises(ConfigError, match="^no host link: set BLACKWHITE_HOST_TOKEN"):
        load_config(None, {k: v for k, v in env().items() if k != "BLACKWHITE_HOST_TOKEN"})
    with pytest.raises(ConfigError, match="^BLACKWHITE_DISCORD_GUILD must be the id"):
        load_config(None, env(BLACKWHITE_DISCORD_GUILD="my server"))
    with pytest.raises(ConfigError, match=r"not names \(blackwhite host\)"):
        load_config(None, env(BLACKWHITE_DISCORD_HOST_ROLES="blackwhite host"))
    with pytest.raises(ConfigError, match="^BLACKWHITE_DISCORD_HOST_ROLES must be"):
        load_config(None, env(BLACKWHITE_DISCORD_HOST_ROLES=""))
    with pytest.raises(ConfigError, match="^BLACKWHITE_SERVER_URL must be an http"):
        load_config(None, env(BLACKWHITE_SERVER_URL="games.example.org"))


def test_run_wires_the_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``blackwhite discord``: the settings reach the client, the bridge and the store
    (everything but the checks and the login to Discord, which are stopped here)."""
    started: list[Any] = []

    async def check(self: Any, token: str) -> None:
        started.append(("check", self.base_url, token))

    async def login(token: str) -> None:
        started.append(("discord", token))

    async def serve(client: discord.Client, config: Any) -> None:
        started.append((client, config.discord_token))

    from blackwhite.discord_bridge.api import ServerApi

    monkeypatch.setattr(ServerApi, "check", check)
    monkeypatch.setattr(bot, "check_discord", login)
    monkeypatch.setattr(bot, "_serve", serve)
    for key, value in env(BLACKWHITE_SERVER_URL="http://10.0.0.5:8000", BLACKWHITE_PUBLIC_URL="https://games.example.org",
                          BLACKWHITE_HOST_TOKEN="host-link", BLACKWHITE_DISCORD_HOST_ROLES="42, 43",
                          BLACKWHITE_DISCORD_STORE=str(tmp_path / "bot.db"), BLACKWHITE_DISCORD_GUILD="77").items():
        monkeypatch.setenv(key, value)
    bot.run()
    assert started[:2] == [("check", "http://10.0.0.5:8000", "host-link"), ("discord", "a-dummy-bot-token")]
    (client, token), = started[2:]
    assert token == "a-dummy-bot-token" and client.guild_id == 77
    assert client.bridge.api.base_url == "http://10.0.0.5:8000"
    assert client.bridge.settings == Settings("https://games.example.org", "host-link", 77, frozenset({42, 43}))
    assert client.bridge.store.path == str(tmp_path / "bot.db")
    assert client.intents.message_content and client.intents.dm_messages and not client.intents.members
