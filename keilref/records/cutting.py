"""A document cut into games, and cut again after an edit from the edited part alone.

An editor's document changes a few characters at a time, and cutting a
10,000-game archive again from its start costs over a tenth of a second
(docs/performance.md), at every pause in the typing. Where
the splitter (:func:`~keilref.records.parser.split_games`) ends a game
depends on the text from that game's start on, and on the first line of
the game after it (its ``[``, or the tag line that ends an unclosed
comment). So :func:`recut` cuts again from the last game start whose line
ends before the first changed byte, and stops at the first game start at
or past the last changed byte where the old cut also started a game (the
edit's length further on, at the same column): from there on the splitter
sees the same bytes from the same state, and the old cut, moved by the
edit, is the new one. When no such start comes, the cut runs to the end
of the document, which is a cut from scratch of that part.
"""

from __future__ import annotations

import io
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from keilref.records.parser import CHUNK_SIZE, MAX_GAME_BYTES, GameBytes, split_games

__all__ = ["Cut", "cut", "recut"]

_BOM = b"\xef\xbb\xbf"
_BLOCK = 1 << 12
"""Bytes compared at first when looking for the first difference; doubled at each equal block."""


@dataclass(frozen=True)
class Cut:
    """A document's bytes and the pieces the splitter cuts them into."""

    data: bytes
    games: tuple[GameBytes, ...]
    """Every piece, the blank ones between games included (``counts`` tells them apart)."""
    starts: tuple[int, ...]
    """The offset in ``data`` of each piece's first byte."""


def cut(data: bytes, *, chunk_size: int = CHUNK_SIZE, max_game_bytes: int = MAX_GAME_BYTES) -> Cut:
    """``data`` cut into games from its start."""
    games = tuple(split_games(io.BytesIO(data), chunk_size=chunk_size, max_game_bytes=max_game_bytes))
    # The splitter drops a byte order mark at the start of the file.
    return Cut(data, games, _starts(games, 3 if data.startswith(_BOM) else 0))


def recut(
    previous: Cut, data: bytes, *, chunk_size: int = CHUNK_SIZE, max_game_bytes: int = MAX_GAME_BYTES
) -> Cut:
    """``data`` cut into games, the same cut as :func:`cut` gives, made by
    cutting only the part an edit of ``previous.data`` changed (made with
    the same ``max_game_bytes``)."""
    old = previous.data
    if data == old:
        return previous
    shared = min(len(old), len(data))
    head = _shared(old, data, shared, from_end=False)
    tail = _shared(old, data, shared - head, from_end=True)
    # Bytes [head, len(old) - tail) of the old document became [head, changed_end) of the new.
    changed_end = len(data) - tail
    delta = len(data) - len(old)
    starts, games = previous.starts, previous.games
    k = bisect_right(starts, head) - 1
    # The game before the k-th ended by what the k-th's first line holds: that
    # line must end before the edit for the k-th to start where it did.
    while k > 0 and old.find(b"\n", starts[k], head) < 0:
        k -= 1
    if k <= 0:
        k, begin = 0, 3 if data.startswith(_BOM) else 0
        pieces = split_games(io.BytesIO(data), chunk_size=chunk_size, max_game_bytes=max_game_bytes)
    else:
        begin = starts[k]
        resume = (games[k].piece.line, games[k].column_offset)
        stream = io.BytesIO(data[begin:])
        pieces = split_games(stream, chunk_size=chunk_size, max_game_bytes=max_game_bytes, resume=resume)
    fresh: list[GameBytes] = []
    fresh_starts: list[int] = []
    at = begin
    for piece in pieces:
        if fresh and at >= changed_end:
            j = bisect_left(starts, at - delta)
            # Not the old first piece: it was cut as the file's start (flagged, a byte order mark dropped).
            if 0 < j < len(starts) and starts[j] == at - delta and games[j].column_offset == piece.column_offset:
                lines = piece.piece.line - games[j].piece.line
                after = games[j:] if lines == 0 else tuple(g.moved(lines) for g in games[j:])
                return Cut(
                    data,
                    (*games[:k], *fresh, *after),
                    (*starts[:k], *fresh_starts, *(s + delta for s in starts[j:])),
                )
        fresh.append(piece)
        fresh_starts.append(at)
        at += piece.piece.size
    return Cut(data, (*games[:k], *fresh), (*starts[:k], *fresh_starts))


def _starts(games: tuple[GameBytes, ...], begin: int) -> tuple[int, ...]:
    out = []
    for game in games:
        out.append(begin)
        begin += game.piece.size
    return tuple(out)


def _shared(a: bytes, b: bytes, limit: int, *, from_end: bool) -> int:
    """How many bytes ``a`` and ``b`` share at their start (or end), at most
    ``limit``: compared a block at a time, the block that differs then halved,
    so that every comparison is one ``memcmp`` however long the documents."""
    la, lb = len(a), len(b)

    def same(lo: int, hi: int) -> bool:
        if from_end:
            return a[la - hi : la - lo] == b[lb - hi : lb - lo]
        return a[lo:hi] == b[lo:hi]

    lo, size = 0, _BLOCK
    while lo < limit:
        hi = min(lo + size, limit)
        if same(lo, hi):
            lo, size = hi, size * 2
            continue
        # The first difference is in [lo, hi).
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if same(lo, mid):
                lo = mid
            else:
                hi = mid
        return lo
    return limit
