"""The rules engine: pure game state machines, match records, nothing else.

It imports nothing from the CLI, bots or adapters; they are built on it.
"""

from .core import (
    RESIGN,
    TIMEOUT,
    Action,
    ActionSyntaxError,
    BlackWhiteError,
    ChanceEvent,
    ClockRule,
    Game,
    GameOverError,
    IllegalActionError,
    IllegalChanceError,
    Note,
    NotYourTurnError,
    OptionError,
    OptionInfo,
    Result,
    State,
    colour,
    face_down,
    face_up,
    is_int,
)
from ..views import Colour, CoreView, TileView
from .record import RecordError, from_record, load, outcome_json, replay, to_record
from .registry import GameEntry, UnknownGameError, game_class, game_ids, make_game

__all__ = [
    "RESIGN",
    "TIMEOUT",
    "Action",
    "ActionSyntaxError",
    "BlackWhiteError",
    "ChanceEvent",
    "ClockRule",
    "Game",
    "GameEntry",
    "GameOverError",
    "IllegalActionError",
    "IllegalChanceError",
    "Note",
    "NotYourTurnError",
    "OptionError",
    "OptionInfo",
    "RecordError",
    "Result",
    "State",
    "UnknownGameError",
    "colour",
    "Colour",
    "CoreView",
    "TileView",
    "face_down",
    "face_up",
    "is_int",
    "game_class",
    "game_ids",
    "from_record",
    "load",
    "make_game",
    "outcome_json",
    "replay",
    "to_record",
]
