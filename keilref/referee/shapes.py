"""One match, one game: the files and records that are one match of a server.

A match of abstract_games may be given as its match page
(``STEM.match.json``), its replay (``STEM.replay.json``), its stored rows
(``STEM.moves.json``) and as the record an import wrote. Every command that
counts games (``check``, ``stats``, ``filter``, the report, ``import``) asks
:func:`group_shapes` which of them is judged, so that a match is one game
whatever the number of its shapes, and shapes that disagree are an error.

Identity is exact, never a guess:

- A game of ``Site "abstract_games"`` with a ``GameId`` (a match page and
  a replay carry the match's id) is the match of that id, wherever its file
  is. Other sites' ids are not taken as one game's: nothing says they name
  one game each.
- A shape without an id (the stored rows carry none) is the match of the
  shapes beside it: the files of one stem in one folder. When those carry no
  id, the stem in its folder is the identity; when they carry two different
  ids, it is none of them, and stays a game of its own.
- Nothing else is merged: files of one stem in two folders are two games
  unless their ids say otherwise, and a record without the server's
  ``Site`` and a ``GameId`` is always a game of its own.

Of one match's shapes, the richest is judged: the match page, then the
replay, then the stored rows, then a record; of two of a kind, the first
given. Its verdict is what it would be alone.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from keilref import wording
from keilref.errors import RecordError
from keilref.records.abstract_games import SITE, is_match_name, match_stem
from keilref.records.sniffing import MatchBytes, split_source
from keilref.records.parser import GameBytes, read_game
from keilref.records.abstract_games import Match, read_match
from keilref.records.record import Record
from keilref.records.sources import Source
from keilref.records.tags import GAME_ID_TAG
from keilref.referee.settings import read_setup

__all__ = ["FileShapes", "Group", "Shape", "Shapes", "group_shapes", "same_game", "shapes_of"]

RANK = {"match": 0, "replay": 1, "moves": 2, "record": 3}
"""Which shape of a match is judged: the lowest rank, the richest first."""

_ID_MARK = GAME_ID_TAG.encode("ascii")
_MARKS = (_ID_MARK, b'"id"')
"""Bytes without which a file holds no game with an id: a record's tag, a match's key."""
_SCAN = 1 << 20


@dataclass(frozen=True)
class Shape:
    """One game that may be a shape of a match."""

    file: str
    game: int
    """1-based, as its verdict counts it."""
    kind: str
    """``match``, ``replay``, ``moves`` or ``record``."""
    record: Record
    order: tuple[int, int]
    """Its place in the input: its source's (from 0), then its game's."""

    @property
    def name(self) -> str:
        """How a message names it: the file, and the game for a record."""
        return self.file if self.kind != "record" else f"{self.file} game {self.game}"


@dataclass(frozen=True)
class FileShapes:
    """What one file's games are, for the stage that judges them."""

    also: frozenset[int] = frozenset()
    """Games judged as another shape of their match: not judged again."""
    disagree: tuple[tuple[int, str], ...] = ()
    """Games that disagree with the judged shape of their match, each with
    what the error says (an ``error`` in their place)."""

    def error_for(self, game: int) -> str | None:
        for number, message in self.disagree:
            if number == game:
                return message
        return None


@dataclass(frozen=True)
class Group:
    """One match's shapes: the judged first."""

    judged: Shape
    others: tuple[Shape, ...]
    disagreeing: tuple[Shape, ...]


@dataclass
class Shapes:
    """The matches found among some sources."""

    groups: list[Group] = field(default_factory=list)
    by_source: dict[int, FileShapes] = field(default_factory=dict)
    """By the source's place in the sources given: one file may be given twice."""

    def of(self, number: int) -> FileShapes | None:
        """What the games of the ``number``-th source (from 0) are."""
        return self.by_source.get(number)


def group_shapes(sources: Sequence[Source]) -> Shapes:
    """Which games of ``sources`` are shapes of one match (see the module).

    Only files that can be read twice are looked at (not standard input, a
    pipe or an unreadable path): a game in those is always its own. A file
    that cannot be read here is left to the reading that judges it.
    """
    return shapes_of(list(_shapes(sources)))


def shapes_of(members: Sequence[Shape]) -> Shapes:
    """:func:`group_shapes` for games already read."""
    groups = _groups(members)
    shapes = Shapes()
    also: dict[int, set[int]] = {}
    disagree: dict[int, list[tuple[int, str]]] = {}
    for group in groups:
        ranked = sorted(group, key=lambda s: (RANK[s.kind], s.order))
        judged, others = ranked[0], ranked[1:]
        wrong = tuple(s for s in others if not same_game(s.record, judged.record))
        for other in others:
            if other in wrong:
                disagree.setdefault(other.order[0], []).append(
                    (other.game, wording.shape_disagrees(judged.name))
                )
            else:
                also.setdefault(other.order[0], set()).add(other.game)
        shapes.groups.append(Group(judged, tuple(others), wrong))
    for number in also.keys() | disagree.keys():
        shapes.by_source[number] = FileShapes(frozenset(also.get(number, ())), tuple(disagree.get(number, ())))
    return shapes


def same_game(a: Record, b: Record) -> bool:
    """Whether two shapes of one match say the same game: the same turns,
    players, settings and declared result (ids, dates, comments aside)."""
    return _essence(a) == _essence(b)


def _essence(record: Record) -> tuple[object, ...]:
    try:
        setup = read_setup(record)
    except ValueError:
        return ("settings that cannot be read", id(record))
    players = tuple(record.tag_value(name) for name in ("Black", "White", "KomiBy"))
    return (tuple(record.moves), players, setup.rules, setup.size, setup.komi, setup.button, setup.declared)


def _shapes(sources: Sequence[Source]) -> Iterator[Shape]:
    """Every match shape of ``sources``, then the records that may be one.

    A record is parsed only when the cheap look at its tags (its raw ``Site``
    and ``GameId``) finds it may share its id with another game: an archive
    of distinct ids costs one cut, not a second parse.
    """
    seen: dict[tuple[bytes, bytes] | None, int] = {}
    records: dict[int, list[tuple[int, tuple[bytes, bytes] | None]]] = {}
    for number, source in enumerate(sources):
        pieces = _pieces(source)
        if pieces is None:
            continue
        for game, piece in _numbered(pieces):
            if isinstance(piece, MatchBytes):
                match = _match(piece, source.name)
                if match is not None:
                    found = _id(Shape(source.name, game, match.shape, match.record, (number, game)))
                    raw = None if found is None else (found[0].encode("utf-8"), found[1].encode("utf-8"))
                    seen[raw] = seen.get(raw, 0) + 2
                    yield Shape(source.name, game, match.shape, match.record, (number, game))
            elif _ID_MARK in piece.data:
                raw = _raw_id(piece.data)
                seen[raw] = seen.get(raw, 0) + 1
                records.setdefault(number, []).append((game, raw))
    for number, games in records.items():
        wanted = {game for game, raw in games if raw is None or (raw != (b"", b"") and seen.get(raw, 0) > 1)}
        if not wanted:
            continue
        source = sources[number]
        for game, piece in _numbered(_pieces(source) or []):
            if game in wanted and not isinstance(piece, MatchBytes):
                item = read_game(piece, source.name)
                if isinstance(item, Record) and _settled(item):
                    yield Shape(source.name, game, "record", item, (number, game))


def _pieces(source: Source) -> list[GameBytes] | None:
    if source.is_stdin or source.size() is None or not _regular(source):
        return None
    if not is_match_name(source.name) and not _marked(source):
        return None
    try:
        with source.reading() as stream:
            return list(split_source(stream, source.name))
    except OSError:
        return None


def _regular(source: Source) -> bool:
    """Whether the file can be read twice: a named pipe given by name (its
    size says 0) gives its bytes once, to the reading that judges it."""
    try:
        return stat.S_ISREG(os.stat(source.where).st_mode)
    except (OSError, ValueError):
        return False


def _numbered(pieces: Sequence[GameBytes]) -> Iterator[tuple[int, GameBytes]]:
    """Each game with its number as its verdict gets it (space between games has none)."""
    game = 1
    for piece in pieces:
        if piece.counts or isinstance(piece, MatchBytes):
            yield game, piece
            game += 1


def _match(piece: MatchBytes, name: str) -> Match | None:
    if piece.piece.too_large:
        return None
    try:
        return read_match(piece.data, name, places=False)
    except RecordError:
        return None


_RAW_TAG = re.compile(rb'\[\s*(Site|GameId)\s+"([^"\\\n]*)"\s*\]')


def _raw_id(data: bytes) -> tuple[bytes, bytes] | None:
    """A record's ``Site`` and ``GameId`` as written, when one plain reading of
    each is certain; ``None`` when only parsing can tell (escapes, a tag
    written twice or oddly, a ``Site`` missing while the bytes name one)."""
    found: dict[bytes, list[bytes]] = {b"Site": [], b"GameId": []}
    for m in _RAW_TAG.finditer(data):
        found[m.group(1)].append(m.group(2))
    sites, ids = found[b"Site"], found[b"GameId"]
    if len(ids) != 1 or len(sites) > 1 or (not sites and b"Site" in data) or b"\\" in data:
        return None
    if not sites or sites[0] != SITE.encode("ascii"):
        return (b"", b"")  # no id of the server's: never a shape
    return sites[0], ids[0]


def _settled(record: Record) -> bool:
    """Whether a record's settings can be read: one that cannot is an error
    of its own, said by its verdict, and no shape to compare."""
    try:
        read_setup(record)
    except ValueError:
        return False
    return True


def _marked(source: Source) -> bool:
    """Whether the file may hold a game with an id: a scan of its bytes, far
    cheaper than cutting it into games, so that an archive without ids costs
    one read."""
    keep = max(len(m) for m in _MARKS) - 1
    tail = b""
    try:
        with source.reading() as stream:
            while chunk := stream.read(_SCAN):
                window = tail + chunk
                if any(m in window for m in _MARKS):
                    return True
                tail = window[-keep:]
    except OSError:
        return False
    return False


def _groups(members: Sequence[Shape]) -> list[list[Shape]]:
    ids = {m: _id(m) for m in members}
    stems: dict[str, set[tuple[str, str]]] = {}
    for m in members:
        stem = _stem_key(m)
        if stem is not None:
            found = ids[m]
            stems.setdefault(stem, set())
            if found is not None:
                stems[stem].add(found)
    keyed: dict[tuple[str, ...], list[Shape]] = {}
    for m in members:
        key: tuple[str, ...] | None = None
        found = ids[m]
        stem = _stem_key(m)
        if found is not None:
            key = ("id", *found)
        elif stem is not None:
            known = stems[stem]
            if len(known) == 1:
                key = ("id", *next(iter(known)))
            elif not known:
                key = ("stem", stem)
        if key is not None:
            keyed.setdefault(key, []).append(m)
    return [group for group in keyed.values() if len(group) > 1]


def _id(shape: Shape) -> tuple[str, str] | None:
    site, game_id = shape.record.tag_value("Site"), shape.record.tag_value(GAME_ID_TAG)
    if site != SITE or game_id is None:
        # Only the server's ids are known to name one match each: a club may
        # number each event's games from 1 at one Site.
        return None
    return site, game_id


def _stem_key(shape: Shape) -> str | None:
    """The file's folder and stem, for a match shape named as one."""
    if shape.kind == "record":
        return None
    stem = match_stem(shape.file)
    if stem == shape.file:
        return None
    return os.path.normpath(stem)
