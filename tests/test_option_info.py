"""Every game option is declared once for people (label, one-line help, input kind), and
the declaration agrees with the option's default: the host form, the rules page and
``blackwhite rules`` are all drawn from it."""

from __future__ import annotations

import pytest

from blackwhite.engine import OptionInfo, make_game
from blackwhite.engine.registry import game_class, game_ids


@pytest.mark.parametrize("gid", game_ids())
def test_every_option_is_declared_and_fits_its_default(gid: str) -> None:
    cls = game_class(gid)
    info = cls.options_info()
    defaults = make_game(gid).options
    assert list(info) == ["dmo", *cls.option_defaults]
    for name, meta in info.items():
        assert meta.label and meta.help and "_" not in meta.label and "`" not in meta.help, name
        value = defaults[name]
        if meta.kind == "choice":
            assert value in [v for v, _ in meta.choices], (name, value)
            for v, _ in meta.choices:  # every choice offered is one the game takes
                make_game(gid, {name: v})
        elif meta.kind == "number":
            assert value is None and meta.optional or meta.minimum <= value <= meta.maximum, name
            make_game(gid, {name: meta.minimum})
            make_game(gid, {name: meta.maximum})
        elif meta.kind == "per_seat":
            assert len(value) == cls.num_seats
            make_game(gid, {name: [meta.maximum] * cls.num_seats})
        elif meta.kind == "seat_items":
            make_game(gid, {name: {str(s): [v for v, _ in meta.choices] for s in range(cls.num_seats)}})
    markdown = cls.options_markdown()
    for name, meta in info.items():
        assert f"| {meta.label} (`{name}`) |" in markdown


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        OptionInfo("A", "b", "json")


def test_the_rules_page_and_command_end_with_the_options() -> None:
    from typer.testing import CliRunner

    from blackwhite.cli import app
    from blackwhite.web.render import rules_html

    out = CliRunner().invoke(app, ["rules", "yellow"]).output
    assert "Options at a glance" in out and "Starting garnets" in out
    assert "Starting garnets" in (rules_html("yellow") or "")
