"""Choosing games from an archive, and finding the ones it holds twice.

Games are written verbatim: the exact bytes the splitter cut from their file
(:func:`keilref.records.parser.split_games`), comments and all, so the output checks
with the same verdicts as the games had where they came from. Every game is
checked on the way (the same workers and batches as ``check``), because
status, turns and rule-sensitivity are criteria.

Two games are duplicates when they have the same rule set, size, position
they start from and turns, whatever their other tags and comments. Only a digest of that identity is kept per
game; when a digest comes again, the first game with it is read back from
its file and compared exactly, so a digest collision can never make two
different games duplicates.

A game is written verbatim or not at all: one with a line a CI runner would
run as a workflow command (``::`` at its start) is held back from standard
output, with a note, since changing a byte of it could change its verdict;
``-o FILE`` writes it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO, cast

from keilref.referee.batches import Batch, checked_games, map_batches
from keilref.records.sources import Source
from keilref.escaping import runner_command_line, shown_name
from keilref.errors import ConfigError, TagError
from keilref.files import OUTPUT_TEMP_PREFIX
from keilref.records.sniffing import MatchBytes, read_piece, split_source
from keilref.records.record import Record
from keilref.records.setup import read_position
from keilref.records.tags import POSITION_TAGS
from keilref.engine.rules import find_rules
from keilref.referee.settings import DEFAULT_RULES
from keilref.referee.verdict import Verdict
from keilref.records.writer import write_record

_BOM = b"\xef\xbb\xbf"


class Repeats(enum.Enum):
    """What to do with games that repeat an earlier one."""

    KEEP = "keep"
    """Write every matching game."""
    DUPLICATES = "duplicates"
    """Write only the games that repeat an earlier matching game."""
    UNIQUE = "unique"
    """Write only the first of each set of duplicates (and games that cannot be read)."""


@dataclass(frozen=True)
class Criteria:
    """What a game must be to be written; every criterion given must hold."""

    statuses: frozenset[str] = frozenset()
    """Any of these statuses (all when empty)."""
    rules: frozenset[str] = frozenset()
    """Replayed under any of these rule sets (all when empty)."""
    sizes: frozenset[int] = frozenset()
    """Any of these sizes (all when empty)."""
    players: tuple[str, ...] = ()
    """Each must be part of the ``Black`` or ``White`` tag, ignoring case."""
    tags: tuple[tuple[str, str], ...] = ()
    """Each tag must be present with exactly this value."""
    min_turns: int = 0
    """At least this many turns replayed."""
    rule_sensitive: bool = False
    """Only games whose winner differs under the sibling rule set."""
    setup: bool | None = None
    """``True``: only games that start from a position (any tag of version 3);
    ``False``: only games from the empty board; ``None``: either. A game
    that cannot be read is neither."""

    def matches(self, facts: GameFacts) -> bool:
        v = facts.verdict
        if self.setup is not None and (facts.identity is None or v.from_position is not self.setup):
            return False
        if self.statuses and v.status.value not in self.statuses:
            return False
        if self.rules and v.rules not in self.rules:
            return False
        if self.sizes and v.size not in self.sizes:
            return False
        if v.turns < self.min_turns:
            return False
        if self.rule_sensitive and not v.rule_sensitive:
            return False
        tags = dict(facts.tags)
        for name, value in self.tags:
            if tags.get(name) != value:
                return False
        if self.players:
            names = (tags.get("Black", "").casefold(), tags.get("White", "").casefold())
            if not all(any(p.casefold() in n for n in names) for p in self.players):
                return False
        return True


@dataclass(frozen=True)
class GameFacts:
    """What filtering needs of one game, as a worker found it."""

    piece: int
    """The game's place among its batch's pieces; -1 when the file could not be read."""
    verdict: Verdict
    tags: tuple[tuple[str, str], ...]
    identity: str | None
    """Rule set, size, position and turns, for duplicates; ``None`` for a game that cannot be parsed."""
    text: bytes | None = None
    """For a match of the abstract_games server, its record as ``.keil`` text:
    what is written of it, since its own bytes are JSON."""


def identity(record: Record) -> str:
    """What makes two games the same game: rule set, size, the position it
    starts from and turns, in canonical spelling.

    Read from the ``Rules`` and ``Size`` tags (or their defaults) and the
    position's tags without judging the other tags, so a copy of a game with
    a wrong ``Result`` or ``Komi`` is still the same game; and two problems
    solved by the same turns from different positions are two games.
    """
    rules = record.tag_value("Rules") or DEFAULT_RULES
    size = record.tag_value("Size")
    if size is None:
        try:
            size = str(find_rules(rules).default_size)
        except ConfigError:
            size = "?"
    elif size.isascii() and size.isdigit():
        size = str(int(size)) if len(size) <= 6 else size  # "07" is 7; a thousand digits stay text
    return f"{rules} {size}{_position(record)}:" + " ".join(record.moves)


def _position(record: Record) -> str:
    """The position a record starts from, as its tags write it canonically
    (as written when they do not read); "" for the empty board."""
    try:
        start = read_position(record)
    except TagError:
        return "".join(f" {t.name}={t.value}" for t in record.tags if t.name in POSITION_TAGS)
    return "" if start is None else "".join(f" {name}={value}" for name, value in start.tags())


def facts_batch(batch: Batch) -> list[GameFacts]:
    """Check one batch and keep what filtering needs. Runs in a worker process."""
    places = {id(p): i for i, p in enumerate(batch.games)}
    out = []
    for piece, record, verdict in checked_games(batch, None):
        place = -1 if piece is None else places[id(piece)]
        if record is None:
            out.append(GameFacts(place, verdict, (), None))
        else:
            text = write_record(record).encode("utf-8") if isinstance(piece, MatchBytes) else None
            tags = tuple((t.name, t.value) for t in record.tags)
            out.append(GameFacts(place, verdict, tags, identity(record), text))
    return out


@dataclass(frozen=True, slots=True)
class Place:
    """Where a game is: its source (an index), its bytes there, its line and number.

    Kept for every distinct game when looking for duplicates, so it holds
    small numbers only: a few dozen bytes per game.
    """

    source: int
    offset: int
    length: int
    line: int
    game: int


@dataclass
class FilterSummary:
    """What a filter run did."""

    games: int = 0
    written: int = 0
    duplicates: int = 0
    unreadable: list[str] = field(default_factory=list)
    """One message per file that could not be read."""
    withheld: list[str] = field(default_factory=list)
    """One message per game held back because a CI runner would run a line of it."""


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class _Seen:
    """First occurrences by digest; each confirmed exactly by reading it back."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = sources
        self.first: dict[bytes, Place] = {}
        self.collided: dict[bytes, list[Place]] = {}
        """Games whose digest an earlier, different game already had."""

    def earlier(self, ident: str, place: Place) -> Place | None:
        """The first game with this identity, or ``None`` (and this one is remembered)."""
        key = _digest(ident)
        first = self.first.get(key)
        if first is None:
            self.first[key] = place
            return None
        candidates: list[Place] = [first, *self.collided.get(key, [])]
        for candidate in candidates:
            if self._identity_at(candidate) == ident:
                return candidate
        self.collided.setdefault(key, []).append(place)  # a true collision of digests
        return None

    def describe(self, place: Place) -> str:
        return f"{shown_name(self.sources[place.source].name)}:{place.line} (game {place.game})"

    def _identity_at(self, place: Place) -> str | None:
        source = self.sources[place.source]
        try:
            with source.reading() as opened:
                # Whole reads, not a raw stream's short ones.
                stream = opened if opened.seekable() else cast(BinaryIO, io.BufferedReader(cast(io.RawIOBase, opened)))
                head = stream.read(3)
                data = _read_at(stream, head, place.offset + (3 if head == _BOM else 0), place.length)
        except OSError:
            return None  # not readable again (a pipe, or gone): no duplicate can be confirmed
        for piece in split_source(io.BytesIO(data), source.name):
            item = read_piece(piece)
            if isinstance(item, Record):
                return identity(item)
            return None
        return None


@contextlib.contextmanager
def rereadable(sources: Sequence[Source]) -> Iterator[list[Source]]:
    """The sources, with standard input (if any) spooled to a temporary file."""
    if not any(s.is_stdin for s in sources):
        yield list(sources)
        return
    # A hidden directory of keilref's own: a directory search never reads its copy.
    with tempfile.TemporaryDirectory(prefix=OUTPUT_TEMP_PREFIX) as tmp:
        path = os.path.join(tmp, "stdin.keil")
        with open(path, "wb") as f:
            shutil.copyfileobj(sys.stdin.buffer, f)
        # Read from the copy, as it came: still named, decoded and ruled as standard input was.
        yield [dataclasses.replace(s, read_from=path) if s.is_stdin else s for s in sources]


def filter_sources(
    sources: Sequence[Source],
    criteria: Criteria,
    *,
    repeats: Repeats = Repeats.KEEP,
    jobs: int = 1,
    write: Callable[[bytes], None],
    note: Callable[[str], None],
    runner_safe: bool = False,
) -> FilterSummary:
    """Write the matching games verbatim with ``write``; say where each duplicate
    first appeared with ``note``. Standard input may be given once.

    ``runner_safe`` holds back each game with a line a CI runner would run
    (for output that a CI log may show), listing it in the summary.
    """
    with rereadable(sources) as readable:
        return _filter(readable, criteria, repeats, jobs, write, note, runner_safe)


def _filter(
    sources: Sequence[Source],
    criteria: Criteria,
    repeats: Repeats,
    jobs: int,
    write: Callable[[bytes], None],
    note: Callable[[str], None],
    runner_safe: bool,
) -> FilterSummary:
    summary = FilterSummary()
    seen = _Seen(sources)
    source_index = -1
    offset = 0
    deferred: list[bytes] = []
    blank_line_before = True

    def emit(data: bytes) -> None:
        nonlocal blank_line_before
        if summary.written and not blank_line_before:
            write(b"\n")
        write(data if data.endswith(b"\n") else data + b"\n")
        blank_line_before = data.endswith((b"\n\n", b"\n\r\n"))
        summary.written += 1

    for batch, facts in map_batches(sources, facts_batch, jobs=jobs):
        if batch.first_game == 1:  # the first batch of the next source
            source_index, offset = source_index + 1, 0
        starts = []
        for piece in batch.games:
            starts.append(offset)
            offset += len(piece.data)
        for f in facts:
            if f.piece < 0:
                assert f.verdict.error is not None
                summary.unreadable.append(f"{shown_name(f.verdict.file)}: {f.verdict.error.message}")
                continue
            summary.games += 1
            if not criteria.matches(f):
                continue
            piece = batch.games[f.piece]
            data = piece.data if f.text is None else f.text
            if isinstance(piece, MatchBytes) and f.text is None:
                note(f"{f.verdict.file}: the match cannot be read as a game: nothing to write")
                continue
            if piece.piece.empty:
                # "no game in file": blank space and comments, which would join the game before them.
                note(f"{shown_name(f.verdict.file)}: no game in file: nothing to write")
                continue
            if repeats is not Repeats.KEEP and f.identity is not None:
                place = Place(source_index, starts[f.piece], len(data), f.verdict.line, f.verdict.game)
                first = seen.earlier(f.identity, place)
                if first is not None:
                    summary.duplicates += 1
                    note(f"{seen.describe(place)}: duplicate of {seen.describe(first)}")
                if (first is None) == (repeats is Repeats.DUPLICATES):
                    continue
            elif repeats is Repeats.DUPLICATES:
                continue
            if runner_safe:
                at = runner_command_line(data.decode("utf-8", "surrogateescape"))
                if at is not None:
                    summary.withheld.append(
                        f"{shown_name(f.verdict.file)}:{piece.piece.line + at - 1} (game {f.verdict.game}): "
                        "not written to standard output: a CI runner would run this line as a workflow "
                        "command ('::' at its start); write the games to a file with -o"
                    )
                    continue
            if _unclosed_comment(f.verdict):
                deferred.append(data)
                continue
            emit(data)
    for data in deferred:
        emit(data)
    return summary


def _read_at(stream: BinaryIO, head: bytes, start: int, length: int) -> bytes:
    """``length`` bytes from ``start`` of ``stream``, of which ``head`` was
    read already: by seeking when it can, else by reading on past what lies
    between (a file read through another encoding is decoded from its start)."""
    if stream.seekable():
        stream.seek(start)
        return stream.read(length)
    at = len(head)
    if start < at:
        taken = head[start : start + length]
        return taken + stream.read(length - len(taken)) if len(taken) < length else taken
    while at < start:
        chunk = stream.read(min(start - at, 1 << 20))
        if not chunk:
            return b""  # shorter than when it was read: no game to compare
        at += len(chunk)
    return stream.read(length)


def _unclosed_comment(v: Verdict) -> bool:
    """Whether the game ends in a comment never closed. Such a game runs to the
    end of its file, or to the next tag line when no '}' follows in that file:
    written before other games, it could take in everything up to a '}' of
    theirs. So such games are written last."""
    return v.error is not None and v.error.message.startswith("comment never closed")


def run_filter(
    sources: Sequence[Source],
    criteria: Criteria,
    *,
    repeats: Repeats = Repeats.KEEP,
    jobs: int = 1,
    out: BinaryIO,
    note: Callable[[str], None],
    runner_safe: bool = False,
) -> FilterSummary:
    """:func:`filter_sources` writing to a binary stream."""
    def write(data: bytes) -> None:
        out.write(data)

    return filter_sources(
        sources, criteria, repeats=repeats, jobs=jobs, write=write, note=note, runner_safe=runner_safe
    )


__all__ = ["Criteria", "FilterSummary", "GameFacts", "Repeats", "facts_batch", "filter_sources", "identity", "run_filter"]
