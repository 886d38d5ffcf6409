"""The bridge's configuration: environment variables, or a TOML file whose keys have
the same names in lower case without the prefix (the environment wins).  The names
follow the ``BLACKWHITE_*`` scheme ``blackwhite serve`` reads too: a variable both
read means the same thing (``BLACKWHITE_PUBLIC_URL``: the server's address as players
reach it).

| variable | meaning |
|---|---|
| ``BLACKWHITE_DISCORD_TOKEN`` | the bot's token (Discord developer portal) |
| ``BLACKWHITE_SERVER_URL`` | the ``blackwhite serve`` the bridge talks to (default http://127.0.0.1:8000) |
| ``BLACKWHITE_PUBLIC_URL`` | the server's address as players reach it, for links (default: the server URL) |
| ``BLACKWHITE_HOST_TOKEN`` | the token of a host link of that server made for the bot (required) |
| ``BLACKWHITE_DISCORD_GUILD`` | the id of the Discord server (guild) the bot hosts in (required) |
| ``BLACKWHITE_DISCORD_HOST_ROLES`` | comma-separated ids of that guild's roles allowed to start matches (required) |
| ``BLACKWHITE_DISCORD_STORE`` | the bridge's sqlite3 file (default ``blackwhite-discord.db``) |
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PREFIX = "BLACKWHITE_"


class ConfigError(ValueError):
    """A missing or unreadable setting, named."""


@dataclass(frozen=True)
class Config:
    discord_token: str
    host_token: str
    guild: int
    host_roles: frozenset[int]
    server_url: str = "http://127.0.0.1:8000"
    public_url: str = ""
    store: str = "blackwhite-discord.db"

    @property
    def links_url(self) -> str:
        return self.public_url or self.server_url


#: (environment variable, file key)
_KEYS = {
    "discord_token": ("BLACKWHITE_DISCORD_TOKEN", "discord_token"),
    "server_url": ("BLACKWHITE_SERVER_URL", "server_url"),
    "public_url": ("BLACKWHITE_PUBLIC_URL", "public_url"),
    "host_token": ("BLACKWHITE_HOST_TOKEN", "host_token"),
    "host_roles": ("BLACKWHITE_DISCORD_HOST_ROLES", "discord_host_roles"),
    "store": ("BLACKWHITE_DISCORD_STORE", "discord_store"),
    "guild": ("BLACKWHITE_DISCORD_GUILD", "discord_guild"),
}


def _url(name: str, value: str) -> str:
    if not value.startswith(("http://", "https://")) or len(value.split("://", 1)[1].strip("/")) == 0:
        raise ConfigError(f"{name} must be an http:// or https:// address, not {value!r}")
    return value.rstrip("/")


def plain_http(url: str) -> bool:
    """Whether ``url`` carries tokens in clear over a network: ``http://`` to a host other
    than this machine (behind nginx the bot talks ``https://``, or to 127.0.0.1)."""
    import ipaddress
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http":
        return False
    host = parts.hostname or ""
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def load_config(file: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """The settings from ``env`` (default: ``os.environ``) over those of ``file``."""
    env = os.environ if env is None else env
    from_file: dict[str, object] = {}
    if file is not None:
        try:
            from_file = tomllib.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read the configuration file {file}: {exc}") from None
        unknown = set(from_file) - {k for _, k in _KEYS.values()}
        if unknown:
            raise ConfigError(f"{file}: unknown keys {', '.join(sorted(unknown))}; the keys are "
                              f"{', '.join(k for _, k in _KEYS.values())}")
    values: dict[str, str] = {}
    for name, (var, key) in _KEYS.items():
        if env.get(var):
            values[name] = env[var].strip()
        elif key in from_file:
            raw = from_file[key]
            values[name] = ",".join(map(str, raw)) if isinstance(raw, list) else str(raw).strip()
    token = values.pop("discord_token", "")
    if not token:
        raise ConfigError("no bot token: set BLACKWHITE_DISCORD_TOKEN or discord_token in the file (docs/discord.md)")
    host_token = values.pop("host_token", "")
    if not host_token:
        raise ConfigError("no host link: set BLACKWHITE_HOST_TOKEN to the token of a link made for the bot, e.g."
                          " `blackwhite hosts new-link --label 'discord bot'` (docs/discord.md)")
    guild = values.pop("guild", "")
    if not guild.isdigit():
        raise ConfigError("BLACKWHITE_DISCORD_GUILD must be the id (digits) of the Discord server the bot hosts in"
                          + (f", not {guild!r}" if guild else "") + " (docs/discord.md)")
    roles = [r.strip() for r in values.pop("host_roles", "").split(",") if r.strip()]
    if not roles or not all(r.isdigit() for r in roles):
        bad = [r for r in roles if not r.isdigit()]
        raise ConfigError("BLACKWHITE_DISCORD_HOST_ROLES must be the ids (digits, comma-separated) of the roles allowed"
                          " to start matches" + (f", not names ({', '.join(bad)})" if bad else "")
                          + " (docs/discord.md)")
    return Config(
        discord_token=token,
        host_token=host_token,
        guild=int(guild),
        host_roles=frozenset(int(r) for r in roles),
        server_url=_url("BLACKWHITE_SERVER_URL", values.get("server_url", Config.server_url)),
        public_url=_url("BLACKWHITE_PUBLIC_URL", values["public_url"]) if values.get("public_url") else "",
        store=values.get("store", Config.store),
    )
