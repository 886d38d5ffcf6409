"""Match analysis: where a seat gained or lost win chance, judged from its own information.

:mod:`.core` is the analysis (settings, worlds, rollouts, the marks, worker processes);
:mod:`.plot` draws its curves with matplotlib, an optional extra imported there only.
The ``blackwhite analyse`` command that reads a record and prints the report is
:mod:`blackwhite.cli.analyse`.
"""

from .core import (
    CONFIRM,
    EXTEND,
    Analysis,
    DecisionReport,
    Point,
    SeatSummary,
    Settings,
    analyse,
    chart_data,
    curve,
    decision_points,
    default_workers,
    evaluate,
    mark_for,
    opponent_shares,
    outcome_for,
    worlds_for,
)

__all__ = [
    "CONFIRM",
    "EXTEND",
    "Analysis",
    "DecisionReport",
    "Point",
    "SeatSummary",
    "Settings",
    "analyse",
    "chart_data",
    "curve",
    "decision_points",
    "default_workers",
    "evaluate",
    "mark_for",
    "opponent_shares",
    "outcome_for",
    "worlds_for",
]
