"""The bridge's configuration: environment variables, or a TOML file whose keys have
the same names in lower case without the prefix (the environment wins).

| variable | meaning |
|---|---|
| ``BLACKWHITE_DISCORD_TOKEN`` | the bot's token (Discord developer portal) |
| ``BLACKWHITE_SERVER_URL`` | the ``blackwhite serve`` the bridge talks to (default http://127.0.0.1:8000) |
| ``BLACKWHITE_PUBLIC_URL`` | the server's address as players reach it, for links (default: the server URL) |
| ``BLACKWHITE_HOST_TOKEN`` | a host token of that server (default: mint one and keep it in the store) |
| ``BLACKWHITE_DISCORD_HOST_ROLES`` | comma-separated role names or ids allowed to start matches (default ``blackwhite host``) |
| ``BLACKWHITE_DISCORD_STORE`` | the bridge's sqlite3 file (default ``blackwhite-discord.db``) |
| ``BLACKWHITE_DISCORD_GUILD`` | a guild id to register the slash commands in at once (else globally, which Discord may take up to an hour to show) |
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PREFIX = "BLACKWHITE_"
DEFAULT_ROLE = "blackwhite host"


class ConfigError(ValueError):
    """A missing or unreadable setting, named."""


@dataclass(frozen=True)
class Config:
    discord_token: str
    server_url: str = "http://127.0.0.1:8000"
    public_url: str = ""
    host_token: str | None = None
    host_roles: tuple[str, ...] = (DEFAULT_ROLE,)
    store: str = "blackwhite-discord.db"
    guild: int | None = None

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
            values[name] = env[var]
        elif key in from_file:
            raw = from_file[key]
            values[name] = ",".join(map(str, raw)) if isinstance(raw, list) else str(raw)
    token = values.pop("discord_token", "")
    if not token:
        raise ConfigError("no bot token: set BLACKWHITE_DISCORD_TOKEN or discord_token in the file (docs/discord.md)")
    guild = values.pop("guild", None)
    if guild is not None and not guild.isdigit():
        raise ConfigError(f"the guild must be a Discord id (digits), not {guild!r}")
    roles = values.pop("host_roles", None)
    return Config(
        discord_token=token,
        guild=int(guild) if guild else None,
        host_roles=tuple(r.strip() for r in roles.split(",") if r.strip()) if roles is not None else (DEFAULT_ROLE,),
        server_url=values.get("server_url", Config.server_url),
        public_url=values.get("public_url", ""),
        host_token=values.get("host_token") or None,
        store=values.get("store", Config.store),
    )
