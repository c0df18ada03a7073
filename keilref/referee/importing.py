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

from keilref import wording
from keilref.referee.matches import export_moves
from keilref.referee.shapes import Group, Shape, shapes_of
from keilref.records.abstract_games import Match, match_stem, read_match
from keilref.records.sources import STDIN, Source
from keilref.errors import RecordError
from keilref.records.sniffing import MatchBytes, split_source
from keilref.records.parser import read_game
from keilref.records.record import Record
from keilref.records.tags import GAME_ID_TAG
from keilref.records.writer import canonical_tags

__all__ = ["Exported", "ImportSummary", "Imported", "Refused", "export_sources", "import_sources"]

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
    the others are imported all the same. The shapes of one match (see
    :mod:`keilref.referee.shapes`, whose decision every command shares) are
    written once: the richest shape (the match view, then the replay, then
    the move list), and a shape that disagrees with it is an error.
    """
    summary = ImportSummary()
    members: list[Shape] = []
    for source in sources:
        summary.files += 1
        try:
            match = _read(source)
        except RecordError as e:
            e.filename = e.filename or source.name
            summary.errors.append((source.name, e))
            continue
        members.append(Shape(source.name, 1, match.shape, match.record, (len(members), 1)))
    shapes = shapes_of(members)
    grouped = {id(s): g for g in shapes.groups for s in (g.judged, *g.others)}
    for member in members:
        group = grouped.get(id(member))
        if group is None:
            summary.imported.append(Imported(member.file, _stem(member.file), member.record))
        elif member is group.judged:
            summary.imported.append(Imported(member.file, _stem(member.file), _with_id(group)))
        elif member in group.disagreeing:
            message = wording.shape_disagrees(group.judged.name)
            summary.errors.append((member.file, RecordError(message, 1, 1, None, member.file)))
    return summary


def _with_id(group: Group) -> Record:
    """The judged shape's record, with the match's id when only another shape carries it."""
    record = group.judged.record
    if record.tag(GAME_ID_TAG) is None:
        for other in group.others:
            game_id = other.record.tag(GAME_ID_TAG)
            if game_id is not None and other not in group.disagreeing:
                return replace(record, tags=canonical_tags((*record.tags, game_id)))
    return record


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


def _stem(name: str) -> str:
    base = "stdin" if name == STDIN else os.path.basename(match_stem(name))
    for suffix in (".json", ".keil"):
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
    return base


@dataclass(frozen=True)
class Exported:
    """One game as the server's move list."""

    source: str
    game: int
    moves: dict[str, Any]


@dataclass(frozen=True)
class Refused:
    """A game that cannot be exported: its file, its number there, why, and
    where in the file when the fault has a place (a tag, a token)."""

    source: str
    game: int
    message: str
    line: int | None = None
    column: int | None = None


def export_sources(
    sources: Sequence[Source], read: Callable[[Source], Any]
) -> tuple[list[Exported], list[Refused]]:
    """Every game of ``sources`` as the server's move list, and each game that
    cannot be, with why. ``read`` yields a source's games."""
    done: list[Exported] = []
    failed: list[Refused] = []
    for source in sources:
        for number, item in enumerate(read(source), 1):
            if isinstance(item, RecordError):
                failed.append(_refused(source.name, number, item))
                continue
            try:
                done.append(Exported(source.name, number, export_moves(item)))
            except RecordError as e:
                failed.append(_refused(source.name, number, e))
            except ValueError as e:
                failed.append(Refused(source.name, number, str(e)))
    return done, failed


def _refused(source: str, game: int, error: RecordError) -> Refused:
    placed = error.line > 0 and error.column > 0
    return Refused(source, game, error.message, error.line if placed else None, error.column if placed else None)
