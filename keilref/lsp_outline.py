"""The map of a document of games for the language server: its outline (a
symbol a game, named by its players, event and result, its verdict as
detail), its folding ranges (each game, its tags, each variation, comments
over several lines) and a code lens a game with its verdict.

Where a game's tags, variations and comments stand is read by the one
reader of a record's words (:mod:`keilref.records.highlight`), once for a
game's bytes: a :class:`Shape`, kept while the game is in the document, so
an edit reads again only the game it changed. The verdicts are the ones the
server keeps for its diagnostics (nothing here checks a game), worded as
``keilref check`` words them (:mod:`keilref.wording`).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from lsprotocol import types as lsp

from keilref import wording
from keilref.escaping import one_line
from keilref.records.highlight import Kind, Piece, pieces
from keilref.records.positions import LineIndex
from keilref.records.sniffing import MatchBytes
from keilref.referee.batches import collection_paused
from keilref.referee.verdict import Verdict

if TYPE_CHECKING:
    from keilref.lsp import CheckedGame

__all__ = ["Outlines", "Shape", "shape"]

_MOVES_MARKS = ("(", "{", ";")
"""What starts a variation or a comment: a game's moves without any have nothing more to fold."""


@dataclass(frozen=True, slots=True)
class Variation:
    """Where a variation's ``(`` and ``)`` stand (offsets in its game's text), and the variation it is in."""

    start: int
    end: int
    """Past its ``)`` (the game's end, where none closes it)."""
    parent: int | None
    """The index of the variation it is written in, among its game's; ``None`` on the main line."""


@dataclass(frozen=True, slots=True)
class Shape:
    """Where the parts of one game stand, as offsets into the game's text."""

    content: tuple[int, int]
    """From its first character that is not white space to past its last."""
    head: tuple[int, int] | None
    """Its first tag's line: from the tag's ``[`` to the line's end (white space left out)."""
    tags: tuple[int, int] | None
    """Its tags before the first turn: from the first's ``[`` to past the last's ``]``."""
    variations: tuple[Variation, ...]
    comments: tuple[tuple[int, int], ...]
    """Its comments, those with only white space and no blank line between them joined."""


def shape(text: str) -> Shape:
    """Where the parts of a game stand in its ``text``: its tags, its
    variations, its comments (read until the moves start, then on only where
    a ``(``, ``{`` or ``;`` follows)."""
    start = len(text) - len(text.lstrip())
    content = (start, max(start, len(text.rstrip())))
    words = pieces(text)
    comments: list[list[int]] = []
    name = value = -1
    moves = None
    for kind, begin, end in words:
        if kind is Kind.TAG_VALUE:
            value = end
        elif kind is Kind.TAG_NAME:
            name = begin if name < 0 else name
        elif kind is Kind.COMMENT or kind is Kind.CLOCK:
            _add_comment(comments, text, begin, end)
        else:
            moves = (kind, begin, end)
            break
    head = tags = None
    last = 0
    if name >= 0:
        bracket = text.rfind("[", 0, name)
        line_end = text.find("\n", name)
        head = (bracket, bracket + len(text[bracket : len(text) if line_end < 0 else line_end].rstrip()))
        close = text.find("]", value)
        tags = (bracket, value if close < 0 else close + 1)
        last = tags[1]
    variations: list[list[int]] = []
    if moves is not None:
        last = moves[2]
        if all(text.find(mark, moves[1]) < 0 for mark in _MOVES_MARKS):
            last = 0  # no comment follows the last word: the game ends where its text does
        else:
            last = _moves(text, moves, words, variations, comments)
    return Shape(
        (content[0], _end(text, last, comments, content[1])),
        head,
        tags,
        tuple(Variation(s, e if e >= 0 else content[1], None if p < 0 else p) for s, e, p in variations),
        tuple((s, e) for s, e in comments),
    )


def _whole(text: str) -> Shape:
    """A game whose text has no parts to show: itself, from its first
    character that is neither white space nor a byte order mark."""
    start = len(text) - len(text.lstrip().lstrip("\ufeff").lstrip())
    return Shape((start, max(start, len(text.rstrip()))), None, None, (), ())


def _moves(
    text: str,
    first: tuple[Kind, int, int],
    words: Iterator[Piece],
    variations: list[list[int]],
    comments: list[list[int]],
) -> int:
    """The variations and comments of a game's moves, from its ``first``
    word on; where its last word ends. A variation is ``[start, end, the
    index of the one it is in]``, its end -1 where none closes it."""
    open_: list[int] = []
    last = 0
    for kind, begin, end in itertools.chain((first,), words):
        if kind is Kind.COMMENT or kind is Kind.CLOCK:
            _add_comment(comments, text, begin, end)
            continue
        last = end
        if kind is Kind.PARENTHESIS:
            if text[begin] == "(":
                variations.append([begin, -1, open_[-1] if open_ else -1])
                open_.append(len(variations) - 1)
            elif open_:
                variations[open_.pop()][1] = end
    return last


def _end(text: str, last: int, comments: list[list[int]], end: int) -> int:
    """Where the game ends: its last word (at ``last``; 0: where its text
    ends), or a comment after it with no blank line before (the comments
    after a blank line are those the next game opens with, which the cut
    gives to the game before it)."""
    if not last:
        return end
    for start, stop in comments:
        if stop <= last:
            continue
        if text.count("\n", last, start) > 1:
            break
        last = stop
    return last if last < end else end


def _add_comment(comments: list[list[int]], text: str, start: int, end: int) -> None:
    """A comment's piece joined to the comment before it where only white
    space, and no blank line, stands between them."""
    if comments:
        before = comments[-1]
        gap = text[before[1] : start]
        if not gap.strip() and gap.count("\n") <= 1:
            before[1] = end
            return
    comments.append([start, end])


class Places(Protocol):
    """A document's places both ways (the server's ``_DocumentLines``)."""

    @property
    def text(self) -> str: ...
    @property
    def index(self) -> LineIndex: ...
    @property
    def lsp_starts(self) -> Sequence[int]:
        """Where each of LSP's lines starts."""

    def position(self, offset: int) -> lsp.Position: ...


@dataclass(frozen=True, slots=True)
class _Placed:
    """A game where it stands now: its verdict, its first character's offset and its shape."""

    verdict: Verdict
    shift: int
    """Lines from where the verdict places things to where they stand now."""
    start: int
    shape: Shape


class Outlines:
    """Each open document's games' shapes, under the game's bytes and the
    column it starts at (as the server keeps its verdicts).

    Its answers are made without cyclic collection: the answer for an
    archive is tens of thousands of small objects, which would set off full
    collections over everything the server keeps (every game's verdict),
    several times the cost of the answer. Nothing else runs meanwhile (no
    await), and the answer holds no cycle."""

    def __init__(self) -> None:
        self._shapes: dict[str, dict[tuple[bytes, int], Shape]] = {}
        self._lensed: dict[str, list[Verdict]] = {}
        """The verdicts each document's lenses were last answered with."""

    def forget(self, uri: str) -> None:
        self._shapes.pop(uri, None)
        self._lensed.pop(uri, None)

    def symbols(
        self, uri: str, games: Sequence[tuple[CheckedGame, int]], places: Places, *, hierarchical: bool
    ) -> list[lsp.DocumentSymbol] | list[lsp.SymbolInformation]:
        """A symbol a game, its verdict as detail, its variations inside it;
        a client that takes no tree of symbols (no ``hierarchical``) gets the
        games alone, each verdict after its name."""
        with collection_paused():
            return self._symbols(uri, games, places, hierarchical)

    def _symbols(
        self, uri: str, games: Sequence[tuple[CheckedGame, int]], places: Places, hierarchical: bool
    ) -> list[lsp.DocumentSymbol] | list[lsp.SymbolInformation]:
        placed = self._place(uri, games, places)
        if not hierarchical:
            return [
                lsp.SymbolInformation(
                    name=one_line(wording.titled_verdict(_title(p.verdict), wording.verdict_line(p.verdict))),
                    kind=lsp.SymbolKind.Object,
                    location=lsp.Location(uri=uri, range=_range(places, p.start, p.shape.content)),
                )
                for p in placed
            ]
        return [_game_symbol(places, p) for p in placed]

    def folding(
        self, uri: str, games: Sequence[tuple[CheckedGame, int]], places: Places, limit: int | None
    ) -> list[lsp.FoldingRange]:
        """Each game, its tags, its variations and comments, where they span
        more than one line; past the client's ``limit``, the games' first."""
        with collection_paused():
            return self._folding(uri, games, places, limit)

    def _folding(
        self, uri: str, games: Sequence[tuple[CheckedGame, int]], places: Places, limit: int | None
    ) -> list[lsp.FoldingRange]:
        placed = self._place(uri, games, places)
        outer: list[lsp.FoldingRange] = []
        inner: list[lsp.FoldingRange] = []
        for p in placed:
            s, at = p.shape, p.start
            outer.extend(_fold(places, at, s.content, None))
            if s.tags is not None:
                inner.extend(_fold(places, at, s.tags, None))
            for v in s.variations:
                inner.extend(_fold(places, at, (v.start, v.end), None))
            for c in s.comments:
                inner.extend(_fold(places, at, c, lsp.FoldingRangeKind.Comment))
        if limit is not None and len(outer) + len(inner) > limit:
            inner.sort(key=lambda f: (f.start_line, -f.end_line))  # then the others, from the top
            inner = inner[: max(limit - len(outer), 0)]
            outer = outer[:limit]
        return sorted([*outer, *inner], key=lambda f: (f.start_line, -f.end_line))

    def lenses(self, uri: str, games: Sequence[tuple[CheckedGame, int]], places: Places) -> list[lsp.CodeLens]:
        """A lens a game at its first tag, its verdict as title (a title alone, no command to run)."""
        with collection_paused():
            return self._lenses(uri, games, places)

    def _lenses(self, uri: str, games: Sequence[tuple[CheckedGame, int]], places: Places) -> list[lsp.CodeLens]:
        out = []
        lensed = self._lensed[uri] = []
        for p in self._place(uri, games, places):
            # Where the line starts is all a lens needs of its range (an archive's answer is long).
            at = places.position(p.start + (p.shape.head or p.shape.content)[0])
            lensed.append(p.verdict)
            command = lsp.Command(title=_lens_title(p.verdict), command="")
            out.append(lsp.CodeLens(range=lsp.Range(start=at, end=at), command=command))
        return out

    def lenses_stale(self, uri: str, games: Sequence[tuple[CheckedGame, int]]) -> bool:
        """Whether the editor was answered lenses for the document whose
        titles are no longer its games' verdicts (as after an edit that makes
        a game fail). Places are not compared: the editor moves its lenses
        with the lines it edits."""
        answered = self._lensed.get(uri)
        if answered is None:
            return False
        if len(answered) != len(games):
            return True
        # A game not checked again keeps its verdict, the very object: only the others are worded.
        return any(
            was is not game.verdict and _lens_title(was) != _lens_title(game.verdict)
            for was, (game, _) in zip(answered, games)
        )

    def _place(self, uri: str, games: Sequence[tuple[CheckedGame, int]], places: Places) -> list[_Placed]:
        """The games with their shapes; the shapes of the games no longer in the document are let go."""
        known = self._shapes.get(uri, {})
        kept: dict[tuple[bytes, int], Shape] = {}
        out = []
        for game, shift in games:
            piece = game.piece
            key = (piece.data, piece.column_offset)
            match = isinstance(piece, MatchBytes)
            found = kept.get(key) or known.get(key)
            if found is None:
                text = piece.data.decode("utf-8", "surrogatepass")
                # A match of abstract_games is JSON, not a record: its braces are no comments.
                found = _whole(text) if match else shape(text)
            kept[key] = found
            # A match is the whole document, a byte order mark included.
            start = 0 if match else places.index.offset(game.line + shift, piece.column_offset + 1)
            out.append(_Placed(game.verdict, shift, start, found))
        self._shapes[uri] = kept
        return out


def _lens_title(v: Verdict) -> str:
    return one_line(wording.verdict_lens(v))


def _title(v: Verdict) -> str:
    shown = [None if value is None else one_line(value) for value in (v.black, v.white, v.event, v.round, v.declared)]
    return wording.game_title(v.game, *shown)


def _game_symbol(places: Places, p: _Placed) -> lsp.DocumentSymbol:
    s, at = p.shape, p.start
    whole = _range(places, at, s.content)
    # The tags are no symbol of their own: one more a game would double the
    # answer for an archive, and they fold.
    children = list(_variation_symbols(places, p)) if s.variations else None
    head = whole
    if s.head is not None:
        # Most games start at their first tag: one position for both.
        first = whole.start if s.head[0] == s.content[0] else places.position(at + s.head[0])
        head = lsp.Range(start=first, end=places.position(at + s.head[1]))
    return lsp.DocumentSymbol(
        name=_title(p.verdict),
        detail=one_line(wording.verdict_line(p.verdict)),
        kind=lsp.SymbolKind.Object,
        range=whole,
        selection_range=head,
        children=children,
    )


def _variation_symbols(places: Places, p: _Placed) -> Iterator[lsp.DocumentSymbol]:
    """The game's variations, each inside the one it is written in, named
    by where its ``(`` stands (``variation at 17:15``, as ``show --line``
    takes it); the detail of one with an illegal turn says which."""
    faults = {(f.opened_at[0] + p.shift, f.opened_at[1]): f for f in p.verdict.variation_illegal}
    made: list[lsp.DocumentSymbol] = []
    for v in p.shape.variations:
        place = places.index.place(p.start + v.start)
        fault = faults.get(place)
        detail = None
        if fault is not None:
            what = wording.illegal_turn(fault.turn, fault.point, fault.reason, fault.repeats_turn, fault.white_first)
            detail = one_line(wording.illegal_label(what))
        opening = _range(places, p.start, (v.start, v.start + 1))
        symbol = lsp.DocumentSymbol(
            name=wording.line_title(place),
            detail=detail,
            kind=lsp.SymbolKind.Array,
            range=_range(places, p.start, (v.start, v.end)),
            selection_range=opening,
        )
        made.append(symbol)
        if v.parent is None:
            continue
        parent = made[v.parent]
        parent.children = [*(parent.children or ()), symbol]
    yield from (symbol for symbol, v in zip(made, p.shape.variations) if v.parent is None)


def _range(places: Places, at: int, span: tuple[int, int]) -> lsp.Range:
    return lsp.Range(start=places.position(at + span[0]), end=places.position(at + span[1]))


def _line(places: Places, offset: int) -> int:
    """The LSP line of the character at ``offset``."""
    return max(bisect.bisect_right(places.lsp_starts, offset) - 1, 0)


def _fold(places: Places, at: int, span: tuple[int, int], kind: str | None) -> Iterable[lsp.FoldingRange]:
    """The span's folding range, if it spans lines: to its last line, or to
    the line before where more text follows it there (which folding would hide)."""
    start, end = at + span[0], at + span[1]
    if end <= start:
        return ()
    first, last = _line(places, start), _line(places, end - 1)
    if last > first:
        text = places.text
        line_end = places.lsp_starts[last + 1] if last + 1 < len(places.lsp_starts) else len(text)
        if text[end:line_end].strip():
            last -= 1
    if last <= first:
        return ()
    return (lsp.FoldingRange(start_line=first, end_line=last, kind=kind),)
