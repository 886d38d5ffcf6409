"""``blackwhite discord``: run the Discord bridge.  discord.py is imported only when the
command runs, so the base install (without the ``[discord]`` extra) keeps every other
command and says how to get this one."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Optional

import typer


def discord_command(
    config: Optional[Path] = typer.Option(
        None, "--config", envvar="BLACKWHITE_CONFIG",
        help="A TOML file of settings, keys as the variables' names in lower case without BLACKWHITE_ (the"
             " environment overrides it; docs/discord.md)."),
) -> None:
    """Run a Discord bot that hosts and plays matches of a running `blackwhite serve` (docs/discord.md)."""
    if importlib.util.find_spec("discord") is None:
        typer.echo("error: blackwhite discord needs discord.py: python -m pip install 'blackwhite[discord]'", err=True)
        raise typer.Exit(2)
    from .bot import run
    from .config import ConfigError

    try:
        run(config)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    """Mount ``discord`` on the ``blackwhite`` command."""
    app.command("discord")(discord_command)
