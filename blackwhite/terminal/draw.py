"""A seat's view drawn for a person at the terminal, with rich.

Everything here takes the view dict (``State.view(seat)``) and nothing else, so the
terminal shows no more than the seat knows.  Grouping and joust are drawn from the
plain-text lines of :mod:`blackwhite.drawing.text`, which the Discord bridge uses too.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..drawing.text import domino_board, generic_lines, grouping_lines, joust_lines, wrap_words
from ..engine import Game
from ..engine.registry import declared, load
from ..views.domino import DominoView
from ..views.grouping import GroupingSeatView
from ..views.joust import JoustView
from ..views.swapping import SwappingView
from ..views.yellow import YellowView


def _tile_text(tile: Any, colour: Any, revealed: bool) -> str:
    if tile is None:
        body = "?" + ("" if colour is None else colour[0].upper())
    else:
        body = f"{tile}{'B' if tile % 2 == 0 else 'W'}"
    return f"[{body}]" if revealed else body


def draw_swapping(view: SwappingView) -> RenderableType:
    """Both rows by position: ``4B`` my unrevealed black 4, ``[5W]`` revealed, ``?`` unknown."""
    table = Table(title=f"Swapping - game {view['game_no']}, phase {view['phase']}")
    table.add_column("")
    for p in range(len(view["my_row"])):  # one column per position (fewer in a small variant)
        table.add_column(str(p + 1), justify="center")
    me = view["seat"]
    assert me is not None, "a seat's view"
    mine = ["." if c is None else _tile_text(c["tile"], None, c["revealed"]) for c in view["my_row"]]
    theirs = [
        "." if c is None else _tile_text(c["tile"], c["colour"], c["revealed"]) for c in view["their_row"]
    ]
    table.add_row(f"P{me + 1} (you)", *map(Text, mine))
    table.add_row(f"P{2 - me}", *map(Text, theirs))
    lines: list[RenderableType] = [table]
    if view["my_unplaced"]:
        lines.append(Text(f"Your unplaced tiles: {' '.join(map(str, view['my_unplaced']))}"))
    if view["totals"]:
        totals = ", ".join(f"{a}-{b}" for a, b in view["totals"])
        lines.append(Text(f"Running totals after each play round (P1-P2): {totals}"))
    if view["past_games"]:
        tied = ", ".join("-".join(map(str, game)) for game in view["past_games"])
        lines.append(Text(f"Tied games so far (final totals P1-P2): {tied}"))
    lines.append(Text("B = black (even), W = white (odd), [..] = revealed, ? = unknown"))
    return _group(lines)


def draw_yellow(view: YellowView) -> RenderableType:
    """Everything is public: one line per seat."""
    table = Table(title=f"Black and Yellow - round {view['round'] + 1} of {view['max_rounds']}")
    for col in ("seat", "points", "yellow", "garnets", "black inventory", "last play"):
        table.add_column(col)
    last = view["last_plays"]
    for s in range(3):
        who = f"P{s + 1}" + (" (you)" if s == view["seat"] else "")
        table.add_row(
            who,
            str(view["points"][s]),
            str(view["yellow"][s]),
            str(view["garnets"][s]),
            " ".join(map(str, view["inventories"][s])),
            "" if last is None else str(last[s]),
        )
    return table


def _lines(title: str, lines: Sequence[str]) -> RenderableType:
    """A bold title over plain lines (text, never markup: nothing in a view is styled)."""
    return Group(Text(title, style="bold"), Text("\n".join(lines)))


def draw_grouping(view: GroupingSeatView) -> RenderableType:
    """Grouping (both variants): see :func:`blackwhite.drawing.text.grouping_lines`."""
    return _lines(*grouping_lines(view))


def draw_joust(view: JoustView) -> RenderableType:
    """Joust (both variants): see :func:`blackwhite.drawing.text.joust_lines`."""
    return _lines(*joust_lines(view))


def draw_domino(view: DominoView) -> RenderableType:
    """The game's own board, then your unused dominoes, the opponent's count and a legend."""
    me = view["seat"]
    assert me is not None, "a seat's view"
    unused = [f"({a},{b})" for a, b in view.get("my_unused", [])]
    lines = [
        *wrap_words(f"Your unused dominoes ({len(unused)}): ", unused or ["none"]),
        f"P{2 - me} has {view.get('their_unused_count', '?')} unused",
        "5 shown, (5) hidden but yours, [5] the other's hidden half shown at the end, ?b/?w hidden "
        "black/white, =/| one domino, . empty",
        "In the log, met: H horizontal, V vertical, D diagonal, B a line of 0 or 15 (a point each)",
    ]
    return Group(Text(domino_board(view)), Text("\n".join(lines)))


_COMMON = {"game", "seat", "options", "log", "to_move", "submitted", "my_pending", "finished", "winner"}


def draw_generic(view: dict[str, Any]) -> RenderableType:
    """Any game that ships no drawing: every field of the view in plain words, tiles as
    tiles (:func:`blackwhite.drawing.text.generic_lines`)."""
    seat = view.get("seat")
    who = "everyone" if seat is None else f"P{seat + 1}"
    shown = {k: v for k, v in view.items() if k not in _COMMON}
    return _lines(f"{view.get('game', '?')} - what {who} knows", generic_lines(shown))


def drawer_for(game: Game) -> Callable[[dict[str, Any]], RenderableType]:
    """The drawing the game's registry entry names (``drawer``); the generic table for
    a game that names none."""
    declared_as = declared(game.id)
    if declared_as is None or declared_as.drawer is None:
        return draw_generic
    draw: Callable[[dict[str, Any]], RenderableType] = load(declared_as.drawer)
    return draw


def _group(parts: list[RenderableType]) -> RenderableType:
    return Group(*parts)
