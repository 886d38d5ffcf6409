"""The bridge is a client of the server's API: it imports nothing of the engine, the
games, the bots or the server (what it shows comes from the payloads it is sent), and
the base install does not need discord.py for anything else."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from blackwhite.discord_bridge.config import ConfigError, load_config
from blackwhite.discord_bridge.core import parse_bots, parse_custom_id, parse_options, seat_name, status_line

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "blackwhite" / "discord_bridge"
FORBIDDEN = ("blackwhite.engine", "blackwhite.games", "blackwhite.bots", "blackwhite.server", "blackwhite.terminal",
             "blackwhite.arena", "blackwhite.analysis", "blackwhite.envs", "blackwhite.web")


def _imports(path: Path) -> list[str]:
    """Every module a file imports, relative imports resolved against the package."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.append(node.module or "")
            else:
                package = f"blackwhite.{path.parent.name}"
                base = package.split(".")[: package.count(".") + 2 - node.level]
                out.append(".".join([*base, node.module] if node.module else base))
    return out


#: the one exception: draw.py finds a game's text drawing through the installed games'
#: registrations (games are plugins, #39), looked up when a view is drawn, never at import;
#: the drawing takes the view payload only
REGISTRY = {("draw.py", "blackwhite.engine.registry")}


def test_no_source_file_imports_the_engine() -> None:
    files = [*sorted(PACKAGE.glob("*.py")), *sorted((ROOT / "blackwhite" / "drawing").glob("*.py"))]
    assert len(files) >= 7
    for path in files:
        bad = [m for m in _imports(path) if (m.startswith(FORBIDDEN) or m == "blackwhite")
               and (path.name, m) not in REGISTRY]
        assert not bad, f"{path.name} imports {bad}"


def test_importing_the_bridge_loads_no_engine_module() -> None:
    """The same at run time: what the bridge's modules pull in, transitively."""
    code = (
        "import sys, json\n"
        "import blackwhite.discord_bridge.bot, blackwhite.discord_bridge.core, blackwhite.discord_bridge.runner\n"
        "import blackwhite.discord_bridge.cli, blackwhite.discord_bridge.config, blackwhite.drawing.text\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert json.loads(out.stdout) == []


def test_the_contract_test_can_fail(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text("from ..engine import make_game\nimport blackwhite.games.swapping\n")
    assert _imports(path) == ["blackwhite.engine", "blackwhite.games.swapping"]


def test_base_install_does_not_pull_discord() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.lower().startswith("discord") for d in project["dependencies"])
    # 2.5: the first to send a message's nonce with enforce_nonce (docs/discord.md, "Nothing twice")
    assert any(d.startswith("discord.py>=2.5") for d in project["optional-dependencies"]["discord"])
    assert "discord" not in (ROOT / "requirements" / "base.txt").read_text().lower()


def test_config_from_env_and_file(tmp_path: Path) -> None:
    file = tmp_path / "bridge.toml"
    file.write_text('discord_token = "from-file"\nserver_url = "http://10.0.0.2:8000"\n'
                    'discord_host_roles = [124, "123"]\ndiscord_guild = 42\nhost_token = "link"\n')
    config = load_config(file, env={"BLACKWHITE_DISCORD_TOKEN": "from-env"})
    assert config.discord_token == "from-env" and config.server_url == "http://10.0.0.2:8000"
    assert config.host_roles == {123, 124} and config.guild == 42 and config.links_url == config.server_url
    assert config.host_token == "link"
    with pytest.raises(ConfigError, match="no bot token"):
        load_config(None, env={})
    file.write_text('discord_tokn = "x"\n')
    with pytest.raises(ConfigError, match="unknown keys discord_tokn"):
        load_config(file, env={})


def test_plain_http_to_another_machine_is_told() -> None:
    from blackwhite.discord_bridge.config import plain_http

    assert plain_http("http://games.example.org") and plain_http("http://10.0.0.5:8000")
    assert not plain_http("https://games.example.org") and not plain_http("http://127.0.0.1:8000")
    assert not plain_http("http://localhost:8000") and not plain_http("http://[::1]:8000")


def test_command_parsing() -> None:
    assert parse_options("tiles=3 show_colours=true name=x") == {"tiles": 3, "show_colours": True, "name": "x"}
    with pytest.raises(ValueError, match="key=value"):
        parse_options("tiles")
    assert parse_bots("2=heuristic", 3) == {1: "heuristic"}
    assert parse_bots("random ismcts:budget=1", 3) == {1: "random", 2: "ismcts:budget=1"}
    assert parse_bots("1=random heuristic", 3) == {0: "random", 2: "heuristic"}
    with pytest.raises(ValueError, match="no seat 4"):
        parse_bots("4=random", 3)
    assert parse_custom_id("bw:abc:1:12:3") == ("abc", 1, 12, "3")
    assert parse_custom_id("other:abc:1:12:3") is None
    assert seat_name("Sal\u200bly\n", 0) == "Sally" and seat_name("\u200b", 1) == "P2"


def test_status_lines() -> None:
    """The channel's line for each move of the public status."""
    assert status_line(None, "running") is None and status_line("running", "running") is None
    assert status_line("running", "paused") == "The host paused the match: no clock runs."
    assert status_line("paused", "running") == "The host resumed the match."
    # the server waits for the players to come (the bridge watches without joining them)
    assert status_line(None, "waiting", "waiting for Sally and Maddie to join") == (
        "The match is waiting for Sally and Maddie to join: the clocks start once every player has pressed"
        " Ready in their DM (or opened their page).")
    assert status_line("waiting", "running") == "The match has started: the clocks run."
    assert status_line("waiting", "waiting") is None
    assert status_line("running", "cancelled") == "The host cancelled the match."
    assert status_line("running", "finished") is None  # the result says it
