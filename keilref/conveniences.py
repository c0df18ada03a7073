"""The conveniences of the lowest stages, connected to the stages that do their work.

A :class:`~keilref.Record` replays itself (``record.replay()``), gives its
tree of lines (``record.tree()``) and shows itself in a notebook, and a
:class:`~keilref.Game` draws itself there, as python-chess's games and
boards do. The referee and the formats do that work, and the records and
the engine may not import them (the layers contract, pyproject.toml). So
each of those two stages declares what it asks of the stages above it
(:class:`~keilref.records.record.RecordServices`,
:class:`~keilref.engine.game.GamePictures`), and this module, beside the
stages, hands it over.

``keilref/__init__.py`` imports this module, and Python runs a package's
``__init__.py`` before any of its submodules, so a program that imports
only ``keilref.records.parser`` reads records that replay all the same.
"""

from __future__ import annotations

from keilref.engine import game
from keilref.engine.game import Game, GamePictures
from keilref.records import record
from keilref.records.record import Record, RecordServices
from keilref.referee.lines import tree
from keilref.referee.replay import replay_record


# The formats are imported when a notebook first shows something, not
# before: importing keilref loads no format.
def _record_html(r: Record) -> str:
    from keilref.formats.notebook import record_html

    return record_html(r)


def _board(g: Game) -> str:
    from keilref.formats.svg import board

    return board(g)


def _game_html(g: Game) -> str:
    from keilref.formats.svg import game_html

    return game_html(g)


record.connect(RecordServices(replay=replay_record, tree=tree, html=_record_html))
game.connect(GamePictures(svg=_board, html=_game_html))
