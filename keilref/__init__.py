"""keilref: the referee for Keil and its kindred games.

Data flows one way: text -> :mod:`~keilref.records.record` (via
:mod:`~keilref.records.parser`) -> replay in a :class:`Game` -> :mod:`~keilref.referee.verdict`
-> rendering (:mod:`~keilref.formats.text`, :mod:`~keilref.cli`).

Every public name raises only the errors its docstring states, each with a
message that says what was wrong: ``TypeError`` for an argument of the wrong
type (naming the types accepted), ``ValueError`` or one of the errors of
:mod:`~keilref.errors` for a bad value, ``OSError`` for a path that is not
read. ``tests/test_api_contract.py`` holds the table of them.
"""

from keilref.values import Color, Reason, Result, ResultKind, Score, ScoreRow
from keilref.errors import (
    ConfigError,
    IllegalMoveError,
    InvalidMoveError,
    KeilrefError,
    PositionError,
    RecordError,
    RecordSyntaxError,
    TagError,
)
from keilref.engine.game import Game, Group, Territory
from keilref.records.any_source import RecordSource, read_game, read_games
from keilref.records.record import Clock, Record, Tag, Turn, TurnKind, Variation
from keilref.records.writer import write_record, write_records
from keilref.records.setup import Placed, StartPosition
from keilref.engine.keil import KEIL, KEIL_2019, KeilGame, KeilRules
from keilref.engine.rules import RuleSet, all_rules, find_rules, register
# Importing a family registers its rule sets.
from keilref.engine.dehil import DEHIL, DehilGame
from keilref.engine.yugo import YUGO, YugoGame
from keilref.referee.lines import Node
from keilref.referee.replay import IllegalTurn
from keilref.referee.verdict import MismatchReason, ReadError, Status, Verdict
from keilref.referee.batches import check_file, check_text
# Hands Record.replay(), Record.tree() and the notebook pictures their work.
from keilref import conveniences  # noqa: F401

__version__ = "0.2.0"

__all__ = [
    "Color",
    "ConfigError",
    "Game",
    "Group",
    "IllegalMoveError",
    "InvalidMoveError",
    "KEIL",
    "KEIL_2019",
    "KeilGame",
    "KeilRules",
    "KeilrefError",
    "Placed",
    "PositionError",
    "StartPosition",
    "DEHIL",
    "DehilGame",
    "YUGO",
    "YugoGame",
    "Reason",
    "Record",
    "RecordError",
    "RecordSource",
    "RecordSyntaxError",
    "Result",
    "ResultKind",
    "RuleSet",
    "Score",
    "ScoreRow",
    "Tag",
    "TagError",
    "Territory",
    "Turn",
    "TurnKind",
    "Variation",
    "Clock",
    "Node",
    "all_rules",
    "check_file",
    "check_text",
    "IllegalTurn",
    "MismatchReason",
    "ReadError",
    "Status",
    "Verdict",
    "find_rules",
    "read_game",
    "read_games",
    "register",
    "write_record",
    "write_records",
]
