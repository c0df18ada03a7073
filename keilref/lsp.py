"""``keilref lsp``: a Language Server for ``.keil`` files, over stdio.

An editor sees what ``keilref check --strict`` would say, as it types: every
fault of every game as a diagnostic, in the words SARIF uses
(:func:`keilref.formats.findings.findings`). Hovering on a turn shows the
board after it, and on a position's tags (``Setup``...) the board the game
starts from; formatting is ``keilref fmt``'s; code actions fix the faults
that have one right answer.

It needs the optional ``pygls`` (``pip install 'keilref[lsp]'``). A document
is cut into games, after an edit again only where it changed
(:func:`keilref.records.cutting.recut`), and a game is checked again only
when its own text changed: an archive of thousands of games stays
responsive while one of them is edited. Games are checked in rounds of
:data:`ROUND` seconds, top down, the first round's diagnostics sent at once
and requests answered between rounds; of each game its verdict is kept, not
its record; past :data:`MAX_GAMES` games or :data:`MAX_DOCUMENT` bytes one
diagnostic says why the server stops. Places are the record format's
(:class:`keilref.records.positions.LineIndex`), given in LSP's lines and
columns; the input is read with bounds (:mod:`keilref.lsp_wire`).
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import io
import time
import re
from array import array
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.workspace import TextDocument, Workspace

from keilref import wording
from keilref.engine.dehil import DehilGame
from keilref.engine.game import Game
from keilref.engine.rules import ButtonRule
from keilref.errors import IllegalMoveError, KeilrefError, RecordError
from keilref.formats import CheckOptions
from keilref.formats.findings import Finding, Weight, findings
from keilref.lsp_outline import Outlines
from keilref.lsp_completion import TRIGGERS, completions, game_cut, to_lsp
from keilref.lsp_pull import Pulled, Report, pulls
from keilref.lsp_tokens import LEGEND, Highlights
from keilref.project import ProjectError, Projects
from keilref.records.cutting import Cut, cut, recut
from keilref.records.sniffing import is_match, match_piece, read_piece
from keilref.records.parser import GameBytes
from keilref.records.positions import LineIndex
from keilref.records.record import Record, Tag, Turn
from keilref.records.setup import POSITION_TAGS, SETUP_TAG, read_position
from keilref.records.tidy import FormatError, format_source
from keilref.records.sources import STDIN, Source
from keilref.referee.batches import Batch, checked_games
from keilref.referee.fixes import Fix, fixes
from keilref.referee.lines import Node, has_variations, replay_node
from keilref.referee.marks import illegal_places
from keilref.referee.settings import read_setup, start_game
from keilref.referee.verdict import Verdict
from keilref.values import Reason

__all__ = ["DEBOUNCE", "MAX_DOCUMENT", "MAX_GAMES", "ROUND", "KeilServer", "server"]

DEBOUNCE = 0.3
"""Seconds of quiet after a change before the document is checked again:
typing a move should not check the archive at each key."""

ROUND = 0.25
"""Seconds of checking at a time: between rounds the server answers what
was asked meanwhile (a hover, a formatting), and the first round's
diagnostics are sent at once, the rest when every game is checked."""

MAX_GAMES = 200_000
"""The most games of one document the server checks; of a longer one, it
checks these and says in one diagnostic, at the first game past them, why
it stops (``keilref check`` checks a file of any length)."""

MAX_DOCUMENT = 128 * 1024 * 1024
"""The largest document the server checks, in bytes of UTF-8; of a larger
one it checks nothing and says why in one diagnostic on its first line."""

SOURCE = "keilref"

_SEVERITY = {
    Weight.FAILS: lsp.DiagnosticSeverity.Error,
    Weight.STRICT: lsp.DiagnosticSeverity.Warning,
    Weight.INFORMS: lsp.DiagnosticSeverity.Information,
}
# A message that names a line of the file (``first on line 4``) is only true
# where it was worded; its game is checked again when it moves.
_NAMES_A_LINE = re.compile(r"\bline \d")
_STRICT = CheckOptions(strict=True)
"""An editor shows everything --strict would fail, each at its own weight."""
_TOKEN = re.compile(r'\[[^\]\n]*\]?|[^\s{}()\[\]"]+')
"""A tag, or a word: a turn, a result, or a point inside a ``Setup`` value, whose closing quote is not part of it."""


@dataclass
class CheckedGame:
    """One game as it was last checked, where it then started.

    Its record is not kept (a parse tree costs many times its verdict, and
    an archive has thousands of games): it is read again from the game's
    bytes for the few things that need it, a hover or a fix.
    """

    line: int
    """The 1-based line of the game's first byte when it was checked."""
    verdict: Verdict
    piece: GameBytes
    """The game's bytes as it was checked, placed where they then stood."""
    name: str
    """What the verdicts call the document."""
    readable: bool = True
    """Whether the game has a record (else it is an error, and has none)."""
    last_line: int = 0
    """The game's last line when it was checked (its blank lines after it included)."""
    rules: str | None = None
    """The rule set the project gave it (``None``: its Rules tag): a hover replays under it too."""

    @functools.cached_property
    def found(self) -> tuple[Finding, ...]:
        """The verdict's findings, worded once: most games of an archive have
        none, and those that have keep them until their text changes."""
        return findings(self.verdict, _STRICT)

    @functools.cached_property
    def names_a_line(self) -> bool:
        """Whether a message names a place in the file: asked of every game
        below an added line, so asked once."""
        return _names_a_line(self.verdict)

    def record(self) -> Record | None:
        """The game's record, read again (``None`` where it cannot be read)."""
        if not self.readable:
            return None
        item = read_piece(self.piece, self.name)
        return item if isinstance(item, Record) else None


@dataclass
class _Progress:
    """How far the rounds of checking one text of a document have come."""

    text: str
    pieces: Sequence[GameBytes]
    """The text's games (and the blank space between them), as cut."""
    at: int = 0
    """The next piece to look at."""
    index: int = 1
    """The next game's number."""
    games: list[tuple[CheckedGame, int]] = field(default_factory=list)
    fresh: dict[tuple[bytes, int], CheckedGame] = field(default_factory=dict)
    """The games seen so far, under their bytes and the column they start at."""
    edited: int | None = None
    """Where the game the edit is in stands in the cut: checked before the rounds reach it."""


@dataclass
class DocumentState:
    """What is known of one open document: its games, in order, each placed
    at its current line (``shift`` lines from where it was checked)."""

    games: list[tuple[CheckedGame, int]] = field(default_factory=list)
    cache: dict[tuple[bytes, int], CheckedGame] = field(default_factory=dict)
    """The games last checked, under their bytes and the column they start at."""
    cut: Cut | None = None
    """The document as last cut into games: the next check cuts again only what changed since."""
    task: asyncio.Task[None] | None = None
    rules: str | None = None
    """The rule set the project's settings give the document's path (``None``: each game's Rules tag)."""
    settings_error: str | None = None
    """Why the project's settings could not be read, as last said."""
    encoded: tuple[str, bytes] | None = None
    """The document's text as last checked, and its bytes (a round after the first encodes it again for nothing)."""
    capped: bool = False
    """Whether the user was told that the document is too large to check whole."""
    progress: _Progress | None = None
    """Where the rounds of checking the document's text stopped, while some games are left."""
    edited: int | None = None
    """The 1-based line where the last edit starts (as the editor counts lines: only the order of checking follows it)."""
    lines: _DocumentLines | None = None
    """The places of the document's text as last asked for (kept while the text is the same)."""


class _TextSource(Source):
    """A document's text as ``keilref fmt`` reads a file: under the document's
    name (which may say it is a match), from memory as standard input is, with
    no file on disk to stat."""

    def __init__(self, name: str, data: bytes) -> None:
        super().__init__(name, read_from=STDIN)
        object.__setattr__(self, "_data", data)

    def open(self) -> BinaryIO:
        return io.BytesIO(self._data)  # type: ignore[attr-defined]

    def size(self) -> int | None:
        return len(self._data)  # type: ignore[attr-defined]


_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")


class _Document(TextDocument):
    """pygls's document, its lines split where LSP splits them: pygls splits as
    ``str.splitlines`` does, so an editor's change after a U+2028 or a form
    feed would land on the wrong line of the server's copy."""

    @property
    def lines(self) -> list[str]:
        found: list[str] = _LSP_LINE.findall(self.source)
        return found

    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        # pygls makes a string of every line of the document for each change;
        # offsets into the text cost a large archive far less.
        text = self.source
        places = _DocumentLines(self.uri, text, self._position_codec.encoding or lsp.PositionEncodingKind.Utf16)
        start, end = places.offset(change.range.start), places.offset(change.range.end)
        self._source = text[:start] + change.text + text[max(start, end) :]


class _Workspace(Workspace):
    def _create_text_document(
        self, doc_uri: str, source: str | None = None, version: int | None = None, language_id: str | None = None
    ) -> TextDocument:
        return _Document(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


class _Protocol(LanguageServerProtocol):
    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Generator[Any, Any, lsp.InitializeResult]:
        result: lsp.InitializeResult = yield from super().lsp_initialize(params)
        # pygls makes its workspace here, with no way to choose its documents' class.
        self.workspace.__class__ = _Workspace
        return result

    def _send_response(self, msg_id: int | str, result: object = None, error: lsp.ResponseError | None = None) -> None:
        # pygls answers a handler's exception with its traceback: the server's
        # log has it (pygls logs it whole); the client gets the one line.
        if error is not None and isinstance(error.data, dict) and "traceback" in error.data:
            error = lsp.ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result, error)


class KeilServer(LanguageServer):
    """The server, with each open document's checked games.

    A game's result is kept under its bytes (and the column it starts at), so
    a game that is cut and pasted elsewhere in the document, or that moves
    down when a line is added above it, is not checked again.
    """

    def __init__(self) -> None:
        super().__init__("keilref", _version(), protocol_cls=_Protocol)
        self.documents: dict[str, DocumentState] = {}
        self.checked = 0
        """How many games were checked (not taken from the cache), in all."""

    def state(self, uri: str) -> DocumentState:
        return self.documents.setdefault(uri, DocumentState())

    def check(self, document: TextDocument, budget: float | None = None) -> Checked:
        """The document's diagnostics, as far as ``budget`` seconds of checking
        reach (games already checked cost nothing): the games past it are
        left for the next round."""
        name = _file_name(document.uri)
        state = self.state(document.uri)
        text = document.source
        if state.encoded is None or state.encoded[0] is not text:
            # A new text: its settings are looked for again (a later round of the same text has them).
            state.encoded = text, text.encode("utf-8", "surrogatepass")
            rules, error = _project_rules(document.uri, name)
            if error is not None and error != state.settings_error:
                said = f"keilref: {error}; checking without the project's settings"
                self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Warning, message=said))
            state.settings_error = error
            if rules != state.rules:
                state.rules, state.cache = rules, {}  # what was checked under other rules counts for nothing
        data = state.encoded[1]
        if len(data) > MAX_DOCUMENT:
            state.games, state.cache, state.cut, state.progress = [], {}, None, None
            return Checked([self._capped(state, wording.lsp_document_too_large(len(data), MAX_DOCUMENT), 0)], 0, 0)
        progress = state.progress
        if progress is None or progress.text is not text:
            if progress is not None:
                state.cache.update(progress.fresh)  # an edit came before every game was checked: keep what was
            if is_match(data, name):
                # One game, read whole: there is nothing to cut again after an edit.
                state.cut = None
                progress = _Progress(text, (match_piece(data),))
            else:
                state.cut = cut(data) if state.cut is None else recut(state.cut, data)
                progress = _Progress(text, state.cut.games)
        checked = 0
        pieces = progress.pieces
        if state.edited is not None:  # said after pygls changed the text: maybe after a round of it
            checked, progress.edited = self._check_edited(state, pieces, name)
        past: int | None = None
        deadline = None if budget is None else time.monotonic() + budget
        while progress.at < len(pieces):
            piece = pieces[progress.at]
            if not piece.counts:
                progress.at += 1
                continue
            if progress.index > MAX_GAMES:
                past = progress.at
                break
            key = (piece.data, piece.column_offset)
            line = piece.piece.line
            known = progress.fresh.get(key) or state.cache.get(key)
            if known is not None and known.line != line and known.names_a_line:
                known = None
            if known is None and deadline is not None and checked and time.monotonic() > deadline:
                break  # the next round goes on from here
            if known is None:
                known = _check_piece(piece, name, progress.index, state.rules)
                checked += 1
            if known.verdict.game != progress.index:
                known = replace(known, verdict=replace(known.verdict, game=progress.index))
            progress.fresh[key] = known
            progress.games.append((known, line - known.line))
            progress.index += 1
            progress.at += 1
        self.checked += checked
        games = progress.games
        if progress.edited is not None and progress.edited >= progress.at:
            # Not reached yet: the edited game is placed ahead of the rounds, after the games they reached.
            piece = pieces[progress.edited]
            known = state.cache.get((piece.data, piece.column_offset))
            if known is not None:
                games = [*games, (known, piece.piece.line - known.line)]
        state.games = games
        left = 0
        if progress.at < len(pieces) and past is None:
            left = sum(1 for piece in pieces[progress.at :] if piece.counts)
            state.progress = progress
        else:
            # Only the games the document now holds are kept, so memory follows its size.
            state.cache, state.progress = progress.fresh, None
        failing = [(game, shift) for game, shift in games if game.found]
        lines = _DocumentLines.of(self, document) if failing or past is not None else _DocumentLines(document.uri, "")
        diagnostics = [d for game, shift in failing for d in _diagnostics(game, shift, lines)]
        games_in_all = len(progress.games) + left
        if past is not None:
            beyond = sum(1 for piece in pieces[past:] if piece.counts)
            games_in_all += beyond
            cap = wording.lsp_too_many_games(MAX_GAMES, beyond)
            diagnostics.append(self._capped(state, cap, pieces[past].piece.line, lines))
        return Checked(diagnostics, games_in_all, checked, left)

    def _check_edited(self, state: DocumentState, pieces: Sequence[GameBytes], name: str) -> tuple[int, int | None]:
        """Check first the game the last edit is in (the rounds find it known):
        of a document not yet checked whole, the game the user is typing in
        is not left for the last round. How many games that checked (0 or 1),
        and where the game stands in the cut."""
        line, state.edited = state.edited, None
        if line is None:
            return 0, None
        number, found = 0, None
        for at, piece in enumerate(pieces):
            if piece.piece.line > line:
                break
            if piece.counts:
                number, found = number + 1, at
        if found is None or number > MAX_GAMES:
            return 0, None
        piece = pieces[found]
        key = (piece.data, piece.column_offset)
        known = state.cache.get(key)
        if known is not None and (known.line == piece.piece.line or not known.names_a_line):
            return 0, found
        state.cache[key] = _check_piece(piece, name, number, state.rules)
        return 1, found

    def _capped(self, state: DocumentState, why: str, line: int, lines: _DocumentLines | None = None) -> lsp.Diagnostic:
        """The one diagnostic that says why the server stops checking, at
        ``line`` (told to the user once, too)."""
        if not state.capped:
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=why))
            state.capped = True
        at = lsp.Position(line=0, character=0) if lines is None else lines.at_place(line, 1)
        return lsp.Diagnostic(
            range=lsp.Range(start=at, end=at),
            message=why,
            severity=lsp.DiagnosticSeverity.Information,
            code="unchecked",
            source=SOURCE,
        )

    def forget(self, uri: str) -> None:
        self.documents.pop(uri, None)

    def game_at(self, uri: str, line: int) -> tuple[CheckedGame, int] | None:
        """The checked game holding the 1-based ``line``, and its shift."""
        state = self.documents.get(uri)
        if state is None:
            return None
        found = None
        for game, shift in state.games:
            if game.line + shift > line:
                break
            found = (game, shift)
        return found


def _version() -> str:
    from keilref import __version__

    return __version__


def _project_rules(uri: str, name: str) -> tuple[str | None, str | None]:
    """The rule set the project's settings (``keilref.toml``, ``[tool.keilref]``)
    give a file, as ``keilref check`` would replay it in CI; and why the
    settings could not be read, if so. A buffer not saved as a file has no path
    and no project."""
    if not uri.startswith("file:"):
        return None, None
    try:
        return Projects().of(name).rules_for(name)[0], None
    except ProjectError as e:
        return None, str(e)
    except OSError:
        return None, None  # a folder that cannot be read: no project found


def _file_name(uri: str) -> str:
    """What the verdicts call the document: its path, for a file."""
    from pygls.uris import to_fs_path

    return to_fs_path(uri) or uri


def _names_a_line(v: Verdict) -> bool:
    # A variation's fault names the variation by where its '(' stands.
    return bool(v.variation_illegal) or any(_NAMES_A_LINE.search(f.message) for f in v.faults(strict=True))


def _check_piece(piece: GameBytes, name: str, index: int, rules: str | None = None) -> CheckedGame:
    batch = Batch(name, index, (piece,), len(piece.data), rules=rules)
    results = list(checked_games(batch, None))
    last = piece.piece.line + piece.data.count(b"\n")
    if not results:  # blank space only: never asked for, as such pieces do not count
        raise ValueError("no game in the piece")
    _, record, verdict = results[0]
    return CheckedGame(piece.piece.line, verdict, piece, name, record is not None, last, rules)


@dataclass(frozen=True)
class Checked:
    """What one round of checking a document found."""

    diagnostics: list[lsp.Diagnostic]
    games: int
    """How many games the document has."""
    checked: int
    """How many of them this round checked (the others were known)."""
    left: int = 0
    """How many are left for the next round."""

    @property
    def said(self) -> str:
        """The line the client's log is told."""
        more = f"; {self.left} left to check" if self.left else ""
        return f"checked {self.checked} of {self.games} games{more}"


# ---------------------------------------------------------------------------
# Positions: keilref counts columns in code points from 1, LSP in UTF-16 units from 0.


_LSP_LINE_END = re.compile(r"\r\n?|\n")
"""Where LSP ends a line (its only three), whatever else the text holds."""


class _DocumentLines:
    """A document's places both ways, built once for its text: keilref's
    (the record format's lines, :class:`keilref.records.positions.LineIndex`)
    and the editor's (LSP's lines, columns in UTF-16 units)."""

    def __init__(self, uri: str, text: str, encoding: str = lsp.PositionEncodingKind.Utf16) -> None:
        self.uri = uri
        self.text = text
        self.encoding = encoding
        self.index = LineIndex(text)
        if "\r" in text or text.startswith("\ufeff"):
            starts = array("q", [0])
            starts.extend(m.end() for m in _LSP_LINE_END.finditer(text))
            self.lsp_starts = starts
        else:
            self.lsp_starts = self.index.starts  # a line feed ends both kinds of line, and only it

    @classmethod
    def of(cls, ls: KeilServer, document: TextDocument) -> _DocumentLines:
        """The document's places, kept until its text changes (a hover does not split it again)."""
        state = ls.documents.get(document.uri)
        text = document.source
        if state is not None and state.lines is not None and state.lines.text is text:
            return state.lines
        lines = cls(document.uri, text, ls.workspace.position_encoding or lsp.PositionEncodingKind.Utf16)
        if state is not None:
            state.lines = lines
        return lines

    def at(self, line: int) -> str:
        """The text of keilref's 1-based ``line`` (empty past the end)."""
        return self.index.line(line)

    def lines(self) -> int:
        """How many of keilref's lines."""
        return len(self.index)

    def position(self, offset: int) -> lsp.Position:
        """The LSP position of the character at ``offset``."""
        line = max(bisect.bisect_right(self.lsp_starts, offset) - 1, 0)
        return lsp.Position(line=line, character=self._units(self.text[self.lsp_starts[line] : offset]))

    def _units(self, text: str) -> int:
        """How long ``text`` is in the units the client counts columns in."""
        if self.encoding == lsp.PositionEncodingKind.Utf32:
            return len(text)
        if self.encoding == lsp.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", "surrogatepass"))
        return len(text.encode("utf-16-le", "surrogatepass")) // 2

    def at_place(self, line: int, column: int) -> lsp.Position:
        """The LSP position of keilref's ``line:column``."""
        return self.position(self.index.offset(line, column))

    def offset(self, position: lsp.Position) -> int:
        """The offset of an LSP position, held to its line."""
        if position.line >= len(self.lsp_starts):
            return len(self.text)
        start = self.lsp_starts[position.line]
        end = self.lsp_starts[position.line + 1] if position.line + 1 < len(self.lsp_starts) else len(self.text)
        ending = _LSP_LINE_END.search(self.text, start, end)
        end = ending.start() if ending is not None else end
        units = 0
        for i in range(start, end):
            if units >= position.character:
                return i
            units += self._units(self.text[i])
        return end

    def place(self, position: lsp.Position) -> tuple[int, int]:
        """Keilref's 1-based line and column of an LSP position."""
        return self.index.place(self.offset(position))


def _token_range(lines: _DocumentLines, line: int, column: int) -> lsp.Range:
    """From ``line:column`` to the end of the token there (a whole tag for ``[``)."""
    start = lines.index.offset(line, column)
    _, line_end = lines.index.line_span(line)
    match = _TOKEN.match(lines.text, start, line_end)
    end = match.end() if match is not None and match.end() > start else min(start + 1, len(lines.text))
    return lsp.Range(start=lines.position(start), end=lines.position(end))


# ---------------------------------------------------------------------------
# Diagnostics.


def _diagnostics(game: CheckedGame, shift: int, lines: _DocumentLines) -> Iterator[lsp.Diagnostic]:
    v = game.verdict
    for finding in game.found:
        related = None
        if v.illegal is not None and finding.rule == "illegal/superko" and v.illegal.repeats_turn is not None:
            related = _repeated_turn(game, shift, lines, v.illegal.repeats_turn)
        elif finding.rule == "warning" and v.variation_illegal:
            related = _repeated_in_variation(game, shift, lines, (finding.line, finding.column))
        yield lsp.Diagnostic(
            range=_token_range(lines, finding.line + shift, finding.column),
            message=finding.message,
            severity=_SEVERITY[finding.weight],
            code=finding.rule,
            source=SOURCE,
            related_information=related,
        )


def _repeated_turn(
    game: CheckedGame, shift: int, lines: _DocumentLines, turn: int
) -> list[lsp.DiagnosticRelatedInformation] | None:
    record = game.record()
    if record is None or not 0 <= turn <= len(record.turns):
        return None
    return _repeated(lines, shift, record, record.turns[turn - 1] if turn else None, turn)


def _repeated_in_variation(
    game: CheckedGame, shift: int, lines: _DocumentLines, at: tuple[int, int]
) -> list[lsp.DiagnosticRelatedInformation] | None:
    """For a variation's superko at ``at``, the turn whose position it
    repeats: the variation counts its turns along its line (the lines it
    branches from up to its branch, then its own), so the turn is found
    on the path from the game's first turn to the illegal one."""
    fault = next((f for f in game.verdict.variation_illegal if (f.line, f.column) == at), None)
    record = None if fault is None else game.record()
    if fault is None or fault.reason != Reason.SUPERKO.value or fault.repeats_turn is None or record is None:
        return None
    if fault.repeats_turn == 0:
        return _repeated(lines, shift, record, None, 0)
    try:
        node = _node_of(record.tree(rules=game.rules), at)
    except KeilrefError:
        return None
    path = [] if node is None else node.path()
    if not 0 < fault.repeats_turn <= len(path):
        return None
    repeated = path[fault.repeats_turn - 1].turn
    assert repeated is not None  # a path holds no root
    return _repeated(lines, shift, record, repeated, fault.repeats_turn)


def _repeated(
    lines: _DocumentLines, shift: int, record: Record, repeated: Turn | None, turn: int
) -> list[lsp.DiagnosticRelatedInformation] | None:
    """The turn whose position a superko repeats; for turn 0 (the position
    the record starts from), the tag that sets it up."""
    if repeated is not None:
        at: tuple[int, int] = (repeated.line, repeated.column)
    else:
        tag = next((t for t in (record.tag(name) for name in POSITION_TAGS) if t is not None), None)
        if tag is None:
            return None
        at = (tag.line, tag.column)
    where = lsp.Location(uri=lines.uri, range=_token_range(lines, at[0] + shift, at[1]))
    return [lsp.DiagnosticRelatedInformation(location=where, message=wording.repeated_position(turn))]


def _opened(ls: KeilServer, uri: str) -> TextDocument | None:
    """The open document ``uri``; ``None`` for one the client never opened
    (pygls would read it from disk, or fail to). pygls keeps a document
    under its URI unquoted (``%20`` a space), so it is asked for so."""
    document: TextDocument | None = ls.workspace.text_documents.get(unquote(uri))
    return document


def publish(ls: KeilServer, uri: str, *, first: bool = True) -> bool:
    """Check the document for a round and send its diagnostics, if this is
    the first round or the last; whether every game is checked."""
    document = _opened(ls, uri)
    if document is None:
        return True
    found = ls.check(document, ROUND)
    # Said to the client's log, so a user (and the tests) can see the cache at
    # work; before the diagnostics, so it has arrived when they have.
    ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Log, message=found.said))
    if (first or not found.left) and _pushes(ls):
        ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=found.diagnostics, version=document.version)
        )
    if not found.left:
        _refresh_marks(ls, uri)
        _refresh_lenses(ls, uri)
    return not found.left


def _pushes(ls: KeilServer) -> bool:
    """Whether the client is sent the diagnostics unasked: one that pulls
    them (:mod:`keilref.lsp_pull`) would show each twice."""
    return not pulls(ls.client_capabilities)


async def _check_rest(ls: KeilServer, uri: str, delay: float = 0.0, *, first: bool = True) -> None:
    """Check the document in rounds, answering what was asked between them."""
    await asyncio.sleep(delay)
    while _opened(ls, uri) is not None and not publish(ls, uri, first=first):
        first = False
        await asyncio.sleep(0)


server = KeilServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: KeilServer, params: lsp.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    state = ls.state(uri)
    if state.task is not None:
        state.task.cancel()
    # The first round before anything else is answered: a hover then finds its game.
    if not publish(ls, uri):
        state.task = asyncio.ensure_future(_check_rest(ls, uri, first=False))


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: KeilServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    state = ls.state(uri)
    if state.task is not None:
        state.task.cancel()
    starts = [c.range.start.line for c in params.content_changes if isinstance(c, lsp.TextDocumentContentChangePartial)]
    state.edited = min(starts) + 1 if starts and len(starts) == len(params.content_changes) else None
    state.task = asyncio.ensure_future(_check_rest(ls, uri, DEBOUNCE))


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KeilServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    state = ls.documents.get(uri)
    if state is not None and state.task is not None:
        state.task.cancel()
    ls.forget(uri)
    _highlights.forget(uri)
    _outlines.forget(uri)
    _pulled.forget(uri)
    if _pushes(ls):
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


# ---------------------------------------------------------------------------
# Pull diagnostics: those pushed to an editor that cannot pull, for one that asks (keilref.lsp_pull).


_pulled = Pulled()


@server.feature(
    lsp.TEXT_DOCUMENT_DIAGNOSTIC,
    lsp.DiagnosticOptions(identifier=SOURCE, inter_file_dependencies=False, workspace_diagnostics=False),
)
async def diagnostic(ls: KeilServer, params: lsp.DocumentDiagnosticParams) -> Report:
    uri = params.text_document.uri
    return _pulled.report(uri, await _checked_whole(ls, uri), params.previous_result_id)


async def _checked_whole(ls: KeilServer, uri: str) -> list[lsp.Diagnostic] | None:
    """The document's diagnostics once every game is checked, in the rounds
    the pushed ones come from, what was asked meanwhile answered between
    them; ``None`` for a document that is not open (or closed meanwhile)."""
    while (document := _opened(ls, uri)) is not None:
        found = ls.check(document, ROUND)
        if not found.left:
            return found.diagnostics
        await asyncio.sleep(0)
    return None


# ---------------------------------------------------------------------------
# Hover: the board after a turn, of the main line or of a variation; the set-up position on its tags.


def _covers(turn: Turn, shift: int, line: int, column: int) -> bool:
    """Whether the turn's token, as written, is at ``line:column``."""
    return turn.line + shift == line and turn.column <= column < turn.column + max(len(turn.text), 1)


def _turn_at(record: Record, shift: int, line: int, column: int) -> int | None:
    """The 1-based number of the main-line turn written at ``line:column``."""
    for n, turn in enumerate(record.turns, 1):
        if _covers(turn, shift, line, column):
            return n
    return None


def _node_at(root: Node, shift: int, line: int, column: int) -> Node | None:
    """The node of the turn written at ``line:column``, on any line of the tree."""
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.variations:
            assert child.turn is not None  # only the root has none
            if _covers(child.turn, shift, line, column):
                return child
            stack.append(child)
    return None


def _node_of(root: Node, at: tuple[int, int]) -> Node | None:
    """The node of the turn the verdict places at ``at`` (where it was checked)."""
    return _node_at(root, 0, *at)


def _place(node: Node | None, shift: int) -> wording.Place | None:
    """Where the node's variation opens, now; ``None`` on the main line."""
    if node is None or node.variation is None:
        return None
    return node.variation.line + shift, node.variation.column


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: KeilServer, params: lsp.HoverParams) -> lsp.Hover | None:
    document = _opened(ls, params.text_document.uri)
    if document is None:
        return None
    lines = _DocumentLines.of(ls, document)
    line, column = lines.place(params.position)
    found = ls.game_at(document.uri, line)
    if found is None:
        return None
    game, shift = found
    record = game.record()
    if record is None:
        return None
    n = _turn_at(record, shift, line, column)
    tag = None if n is not None else _position_tag_at(record, lines, shift, line, column)
    if tag is not None:
        value = _setup_text(record, tag, shift, line, column, game.rules)
    elif n is not None:
        value = _position_text(record, n, game.rules)
    else:
        node = None
        if has_variations(record):
            try:
                node = _node_at(record.tree(rules=game.rules), shift, line, column)
            except KeilrefError:
                node = None  # a bad tag: the game's error says so, and no line has a position
        if node is None:
            return None
        value = _line_position_text(node, shift)
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=value))


_TAG_SPAN = re.compile(r'\[[^"\]\n]*(?:"(?:[^"\\\n]|\\.)*"?)?[^\]\n]*\]?')
"""A tag as written on its line, its value quoted (a ``]`` inside the quotes is part of it)."""


def _position_tag_at(record: Record, lines: _DocumentLines, shift: int, line: int, column: int) -> Tag | None:
    """The tag of the record's position (``Setup``, ``ToMove``, ``ButtonTaken``,
    ``FirstPass``) written at ``line:column``."""
    for tag in record.tags:
        if tag.name not in POSITION_TAGS or tag.line + shift != line or column < tag.column:
            continue
        start = lines.index.offset(line, tag.column)
        match = _TAG_SPAN.match(lines.text, start, lines.index.line_span(line)[1])
        if match is not None and column < tag.column + len(match.group()):
            return tag
    return None


def _setup_text(record: Record, tag: Tag, shift: int, line: int, column: int, rules: str | None) -> str:
    """The position the game starts from, as ``show --turn 0`` draws it, with
    who moves, the button and (Dehil) who passed first; over the point of the
    ``Setup`` at ``line:column``, if any, named with its stone."""
    try:
        g: Game | None = start_game(read_setup(record, rules=rules))
        said = ""
    except KeilrefError as e:
        g, said = None, e.message if isinstance(e, RecordError) else str(e)
    point = _setup_point(record, g, shift, line, column) if tag.name == SETUP_TAG else None
    if g is None:
        text = wording.setup_fault_hover(said)
    else:
        more = [] if g.rules.button is ButtonRule.ABSENT else [wording.button_state(g.button_in_play, g.button_holder)]
        if isinstance(g, DehilGame):  # the one family that counts who passed first
            more.append(wording.first_pass_state(g.first_pass))
        text = _board_text(wording.setup_hover(wording.play_state(g), *more), g, captures=False)
    return text if point is None else f"{point}\n\n{text}"


def _setup_point(record: Record, g: Game | None, shift: int, line: int, column: int) -> str | None:
    """The point of the record's ``Setup`` written at ``line:column``, named
    with its stone; ``None`` off every point (or where the tag does not read)."""
    try:
        position = read_position(record)
    except KeilrefError:
        return None
    for player, placed in () if position is None else position.stones():
        if placed.line + shift == line and placed.column <= column < placed.column + len(placed.token):
            pawns = g is not None and "K@" in g.piece_prefixes
            piece = "king" if placed.king else "pawn" if pawns else "stone"
            return wording.setup_point(placed.token, player, piece)
    return None


def _position_text(record: Record, n: int, rules: str | None = None) -> str:
    try:
        g = record.replay(turn=n, rules=rules)
    except IllegalMoveError as e:
        return _illegal_text(record, e, rules) or f"**Turn {n}** cannot be played: {e}"
    except KeilrefError as e:
        return f"**Turn {n}** cannot be played: {e}"
    return _board_text(f"**After turn {n}**: {wording.play_state(g)}", g, captures=True)


def _illegal_text(record: Record, e: IllegalMoveError, rules: str | None) -> str | None:
    """An illegal main-line turn, over the board before it, as a variation's is shown."""
    try:
        g = record.replay(turn=e.turn - 1, rules=rules)
    except KeilrefError:
        return None
    what = wording.illegal_on_line(None, e.turn, e.move, e.reason.value, e.repeats_turn, e.white_first)
    before = wording.picture_note(None, e.turn - 1, None)
    return _board_text(wording.illegal_hover(what, before, wording.play_state(g)), g, captures=False)


def _line_position_text(node: Node, shift: int) -> str:
    """The position after a variation's turn, along its line; or, where a
    turn on the way there is illegal, the position before that turn."""
    place = _place(node, shift)
    try:
        rep, bad = replay_node(node)
    except RecordError as e:
        return f"**Turn {node.ply}** ({wording.line_title(place)}) cannot be played: {e.message}"
    g = rep.game
    if bad is None or rep.illegal is None:
        note = wording.picture_note(place, node.ply, None)
        return _board_text(f"**{note[:1].upper()}{note[1:]}**: {wording.play_state(g)}", g, captures=True)
    t = rep.illegal
    what = wording.illegal_on_line(_place(bad, shift), t.turn, t.point, t.reason, t.repeats_turn, t.white_first)
    before = wording.picture_note(_place(bad.parent, shift), t.turn - 1, None)
    title = wording.illegal_hover(what, before, wording.play_state(g))
    return _board_text(title, g, captures=False)


def _board_text(title: str, g: Game, *, captures: bool) -> str:
    score = g.score()
    board = g.diagram().rstrip("\n")
    out = [title, "", "```", board, "```", f"Score so far: Black {score.black:g}, White {score.white:g}"]
    if captures:
        out += ["", f"Captured by this turn: {', '.join(sorted(g.last_captured)) or 'none'}"]
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Completion: tag names and values, legal turns, move numbers, results (keilref.lsp_completion).


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=list(TRIGGERS)))
def completion(ls: KeilServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
    document = _opened(ls, params.text_document.uri)
    if document is None:
        return None
    state = ls.state(document.uri)
    data = state.encoded[1] if state.encoded is not None and state.encoded[0] is document.source else None
    data = document.source.encode("utf-8", "surrogatepass") if data is None else data
    if len(data) > MAX_DOCUMENT or is_match(data, _file_name(document.uri)):
        return None
    # The cut of the text as it is now, kept: the next check finds it made.
    state.cut = game_cut(state.cut, data)
    lines = _DocumentLines.of(ls, document)
    offers = completions(document.source, lines.offset(params.position), state.cut, lines.index, state.rules)
    return to_lsp(offers, lines.position)


# ---------------------------------------------------------------------------
# Formatting: the whole document as `keilref fmt` writes it.


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: KeilServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
    document = _opened(ls, params.text_document.uri)
    if document is None:
        return None
    source = _TextSource(_file_name(document.uri), document.source.encode("utf-8", "surrogatepass"))
    try:
        formatted = format_source(source)
    except FormatError:
        return None  # a document that does not parse would lose what was not understood
    if not formatted.changed:
        return []
    text = document.source
    end = _DocumentLines.of(ls, document).position(len(text))
    return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0), end=end), new_text=formatted.text)]


# ---------------------------------------------------------------------------
# Code actions: the fixes with one right answer.


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
)
def code_action(ls: KeilServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    document = _opened(ls, params.text_document.uri)
    if document is None:
        return []
    state = ls.documents.get(document.uri)
    if state is None:
        return []
    lines = _DocumentLines.of(ls, document)
    wanted = params.range
    first, last = lines.place(wanted.start)[0], lines.place(wanted.end)[0]
    out: list[lsp.CodeAction] = []
    games = state.games
    for i, (game, shift) in enumerate(games):
        start = game.line + shift
        end = games[i + 1][0].line + games[i + 1][1] - 1 if i + 1 < len(games) else lines.lines()
        if end < first or start > last:
            continue
        for fix in fixes(game.verdict, game.record(), _shifted(lines, shift)):
            # As editors expect: the fixes of the diagnostics the range touches, and no others.
            if _touches(_token_range(lines, fix.at[0] + shift, fix.at[1]), wanted):
                out.append(_action(lines, fix, shift))
    return out


def _shifted(lines: _DocumentLines, shift: int) -> Callable[[int], str]:
    """A line's text as the game's verdict numbers it (where the game stood when checked)."""
    return lambda line: lines.at(line + shift)


def _touches(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _action(lines: _DocumentLines, fix: Fix, shift: int) -> lsp.CodeAction:
    edits = [
        lsp.TextEdit(
            range=lsp.Range(
                start=lines.at_place(e.line + shift, e.column), end=lines.at_place(e.end_line + shift, e.end_column)
            ),
            new_text=e.text,
        )
        for e in fix.edits
    ]
    edit = lsp.WorkspaceEdit(changes={lines.uri: edits})
    return lsp.CodeAction(title=fix.title, kind=lsp.CodeActionKind.QuickFix, edit=edit)


# ---------------------------------------------------------------------------
# Semantic tokens: the record's words (keilref.lsp_tokens), its illegal turns marked.


_highlights = Highlights()


def _checked_now(ls: KeilServer, document: TextDocument) -> DocumentState | None:
    """The document's state, if its games were last checked on its present
    text (else their places are those of an older text)."""
    state = ls.documents.get(document.uri)
    if state is None or state.encoded is None or state.encoded[0] is not document.source:
        return None
    return state


def _illegal_offsets(ls: KeilServer, document: TextDocument) -> frozenset[int]:
    """Where the illegal turns of the games checked on the present text start."""
    state = _checked_now(ls, document)
    if state is None:
        return frozenset()
    index = _DocumentLines.of(ls, document).index
    return frozenset(
        index.offset(line + shift, column)
        for game, shift in state.games
        for line, column in illegal_places(game.verdict)
    )


def _encoding(ls: KeilServer) -> str:
    return ls.workspace.position_encoding or lsp.PositionEncodingKind.Utf16


@server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
async def semantic_tokens_full(ls: KeilServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens | None:
    document = _opened(ls, params.text_document.uri)
    if document is None:
        return None
    marks, starts = _illegal_offsets(ls, document), _DocumentLines.of(ls, document).lsp_starts
    return await _highlights.full(document.uri, document.source, marks, _encoding(ls), starts)


@server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA)
async def semantic_tokens_delta(
    ls: KeilServer, params: lsp.SemanticTokensDeltaParams
) -> lsp.SemanticTokens | lsp.SemanticTokensDelta | None:
    document = _opened(ls, params.text_document.uri)
    if document is None:
        return None
    marks, starts = _illegal_offsets(ls, document), _DocumentLines.of(ls, document).lsp_starts
    return await _highlights.delta(document.uri, params.previous_result_id, document.source, marks, _encoding(ls), starts)


@server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE)
def semantic_tokens_range(ls: KeilServer, params: lsp.SemanticTokensRangeParams) -> lsp.SemanticTokens | None:
    document = _opened(ls, params.text_document.uri)
    if document is None:
        return None
    lines = _DocumentLines.of(ls, document)
    start, end = lines.offset(params.range.start), lines.offset(params.range.end)
    # Words are read from a place before the range no comment spans: the
    # start of the game the range starts in, or a line start of the tokens
    # last encoded; else the text's start.
    first = _highlights.restart(document.uri, document.source, start)
    found = ls.game_at(document.uri, lines.index.place(start)[0]) if _checked_now(ls, document) else None
    if found is not None:
        game, shift = found
        first = max(first, min(lines.index.offset(game.line + shift, game.piece.column_offset + 1), start))
    marks = _illegal_offsets(ls, document)
    span = first, start, end
    return _highlights.range(document.uri, document.source, span, marks, _encoding(ls), lines.lsp_starts)


def _refresh_marks(ls: KeilServer, uri: str) -> None:
    """Ask the editor for the tokens again when the illegal turns it was
    sent are no longer those of the checked text (it asks before the check
    of an edit ends)."""
    document = _opened(ls, uri)
    workspace = ls.client_capabilities.workspace
    tokens = None if workspace is None else workspace.semantic_tokens
    if document is None or tokens is None or not tokens.refresh_support:
        return
    if _highlights.stale(uri, _illegal_offsets(ls, document)):
        ls.workspace_semantic_tokens_refresh(None)


# ---------------------------------------------------------------------------
# The map of a document (keilref.lsp_outline): outline, folding, a verdict a game as a code lens.


_outlines = Outlines()


async def _settled(ls: KeilServer, uri: str) -> tuple[TextDocument, DocumentState] | None:
    """The document and its games once the check of its present text has
    ended (an edit's waits for typing to pause, then for its rounds): the
    map of a document is drawn from every game's verdict, never from some."""
    while True:
        state = ls.documents.get(uri)
        task = None if state is None else state.task
        if task is None or task.done():
            break
        await asyncio.wait({task})  # a task cancelled by a newer edit: the next one is waited for
    document = _opened(ls, uri)
    if document is None:
        return None
    state = _checked_now(ls, document)
    return None if state is None else (document, state)


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(
    ls: KeilServer, params: lsp.DocumentSymbolParams
) -> list[lsp.DocumentSymbol] | list[lsp.SymbolInformation] | None:
    found = await _settled(ls, params.text_document.uri)
    if found is None:
        return None
    document, state = found
    text = ls.client_capabilities.text_document
    symbols = None if text is None else text.document_symbol
    tree = symbols is not None and bool(symbols.hierarchical_document_symbol_support)
    return _outlines.symbols(document.uri, state.games, _DocumentLines.of(ls, document), hierarchical=tree)


@server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
async def folding_range(ls: KeilServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange] | None:
    found = await _settled(ls, params.text_document.uri)
    if found is None:
        return None
    document, state = found
    text = ls.client_capabilities.text_document
    folding = None if text is None else text.folding_range
    limit = None if folding is None else folding.range_limit
    return _outlines.folding(document.uri, state.games, _DocumentLines.of(ls, document), limit)


def _refresh_lenses(ls: KeilServer, uri: str) -> None:
    """Ask the editor for the lenses again when a verdict it shows changed:
    an editor that asks only when it opens a document, or when told, keeps
    each game's verdict up as the game is edited."""
    workspace = ls.client_capabilities.workspace
    lenses = None if workspace is None else workspace.code_lens
    state = ls.documents.get(uri)
    if lenses is None or not lenses.refresh_support or state is None:
        return
    if _outlines.lenses_stale(uri, state.games):
        ls.workspace_code_lens_refresh(None)


@server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
async def code_lens(ls: KeilServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
    found = await _settled(ls, params.text_document.uri)
    if found is None:
        return None
    document, state = found
    return _outlines.lenses(document.uri, state.games, _DocumentLines.of(ls, document))


def serve() -> None:
    """Speak LSP on standard input and output until the client says exit."""
    from keilref.lsp_wire import serve_io

    serve_io(server)
