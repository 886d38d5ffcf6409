"""The arena: bots against bots over many matches, seats rotated, and the figures that
measure them.

:mod:`.run` plays the matches (in this process, a process pool or on Ray) and saves the
records; :mod:`.results` turns the outcomes into win rates with intervals.  One match is
:func:`blackwhite.bots.match.play_match`; the ``blackwhite arena`` command is
:mod:`blackwhite.cli.arena`.
"""

from .results import Row, rows_json, rows_table, tabulate, wilson
from .run import (
    ArenaError,
    MatchSpec,
    check_ray,
    check_run,
    make_specs,
    output_dir,
    progress_bar,
    run_arena,
    run_match,
    run_specs,
    save_results,
)

__all__ = [
    "ArenaError",
    "MatchSpec",
    "Row",
    "check_ray",
    "check_run",
    "make_specs",
    "output_dir",
    "progress_bar",
    "rows_json",
    "rows_table",
    "run_arena",
    "run_match",
    "run_specs",
    "save_results",
    "tabulate",
    "wilson",
]
