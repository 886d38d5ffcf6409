"""Terminal play: one person against bots, drawn from the person's seat's view only.

:mod:`.match` runs the match (prompt, clock, bots, the record); :mod:`.draw` draws a
view with rich.  The ``blackwhite play`` command is :mod:`blackwhite.cli.play`.
"""

from .draw import (
    draw_generic,
    draw_grouping,
    draw_joust,
    draw_swapping,
    draw_yellow,
    drawer_for,
)
from .match import (
    PERSON_BUDGET,
    TerminalMatch,
    check_record_path,
    help_text,
    record_path,
    seat_bots,
    summarise_actions,
)

__all__ = [
    "PERSON_BUDGET",
    "TerminalMatch",
    "check_record_path",
    "draw_generic",
    "draw_grouping",
    "draw_joust",
    "draw_swapping",
    "draw_yellow",
    "drawer_for",
    "help_text",
    "record_path",
    "seat_bots",
    "summarise_actions",
]
