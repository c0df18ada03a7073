"""``keilref import`` and ``keilref export``: matches of the abstract_games server
in and out of ``.keil`` archives.

An import writes each match as the record :func:`~keilref.records.abstract_games.read_match`
reads, in the canonical layout, so ``check`` on the archive gives every game
the verdict ``check`` gave its JSON. The three shapes of one match (files
``STEM.match.json``, ``STEM.replay.json``, ``STEM.moves.json`` side by side)
are one game: it is written once, and the shapes must agree.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from keilref.referee.matches import export_moves
from keilref.records.abstract_games import Match, match_stem, read_match
from keilref.records.sources import STDIN, Source
from keilref.errors import RecordError
from keilref.records.sniffing import MatchBytes, split_source
from keilref.records.parser import read_game
from keilref.records.record import Record
from keilref.records.tags import GAME_ID_TAG
from keilref.records.writer import canonical_tags

__all__ = ["Exported", "ImportSummary", "Imported", "export_sources", "import_sources"]

_PREFERENCE = {"match": 0, "replay": 1, "moves": 2}
"""Which shape stands for a match read in several: the richest first."""


@dataclass(frozen=True)
class Imported:
    """One match, read and ready to write."""

    source: str
    """The file it was read from (the preferred shape, when several were given)."""
    stem: str
    """The file's name without its directory and shape suffix: the name of its ``.keil`` file."""
    record: Record


@dataclass
class ImportSummary:
    """What an import read: the matches, and the files that could not be imported."""

    imported: list[Imported] = field(default_factory=list)
    errors: list[tuple[str, RecordError]] = field(default_factory=list)
    """Each with the file it is about."""
    files: int = 0


def import_sources(sources: Sequence[Source]) -> ImportSummary:
    """Read the matches in ``sources``, one game per match, in the order given.

    A file that is not a match, or a match that is not a game (see
    :func:`~keilref.records.abstract_games.read_match`), is an error of the summary;
    the others are imported all the same. Files of one stem in one directory
    are the shapes of one match: the richest shape is written (the match
    view, then the replay, then the move list), and a shape that disagrees
    with it is an error.
    """
    summary = ImportSummary()
    groups: dict[str, list[tuple[str, Match]]] = {}
    for source in sources:
        summary.files += 1
        try:
            match = _read(source)
        except RecordError as e:
            e.filename = e.filename or source.name
            summary.errors.append((source.name, e))
            continue
        groups.setdefault(_group(source.name), []).append((source.name, match))
    for members in groups.values():
        members.sort(key=lambda m: _PREFERENCE[m[1].shape])
        name, best = members[0]
        record = best.record
        for other_name, other in members[1:]:
            game_id = other.record.tag(GAME_ID_TAG)
            if _without_id(other.record) != _without_id(record):
                disagree = RecordError(f"this shape of the match disagrees with {name}", 1, 1, None, other_name)
                summary.errors.append((other_name, disagree))
            elif record.tag(GAME_ID_TAG) is None and game_id is not None:
                record = replace(record, tags=canonical_tags((*record.tags, game_id)))
        summary.imported.append(Imported(name, _stem(name), record))
    return summary


def _read(source: Source) -> Match:
    try:
        with source.reading() as stream:
            pieces = list(split_source(stream, source.name))
    except OSError as e:
        raise RecordError(f"cannot read file: {e.strerror or e}", 1, 1, None, source.name) from None
    piece = pieces[0]
    if not isinstance(piece, MatchBytes):
        raise RecordError(
            "not a match of abstract_games (a JSON object): records are checked as they are, not imported",
            1,
            1,
            None,
            source.name,
        )
    if piece.piece.too_large:
        error = read_game(piece, source.name)
        assert isinstance(error, RecordError)
        raise error
    return read_match(piece.data, source.name, places=False)


def _group(name: str) -> str:
    stem = match_stem(name)
    return name if stem == name else f"{stem}\0shapes"


def _stem(name: str) -> str:
    base = "stdin" if name == STDIN else os.path.basename(match_stem(name))
    for suffix in (".json", ".keil"):
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
    return base


def _without_id(record: Record) -> Record:
    return replace(record, tags=tuple(t for t in record.tags if t.name != GAME_ID_TAG))


@dataclass(frozen=True)
class Exported:
    """One game as the server's move list."""

    source: str
    game: int
    moves: dict[str, Any]


def export_sources(
    sources: Sequence[Source], read: Callable[[Source], Any]
) -> tuple[list[Exported], list[tuple[str, int, str]]]:
    """Every game of ``sources`` as the server's move list, and for each game that
    cannot be, its file, number and why. ``read`` yields a source's games."""
    done: list[Exported] = []
    failed: list[tuple[str, int, str]] = []
    for source in sources:
        for number, item in enumerate(read(source), 1):
            if isinstance(item, RecordError):
                failed.append((source.name, number, item.message))
                continue
            try:
                done.append(Exported(source.name, number, export_moves(item)))
            except (ValueError, RecordError) as e:
                failed.append((source.name, number, getattr(e, "message", str(e))))
    return done, failed
