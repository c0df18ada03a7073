"""``keilref lsp``: a Language Server for ``.keil`` files, over stdio.

An editor sees what ``keilref check --strict`` would say, as it types: every
fault of every game as a diagnostic, in the words SARIF uses
(:func:`keilref.formats.findings.findings`). Hovering on a turn shows the
board after it; formatting is ``keilref fmt``'s; code actions fix the faults
that have one right answer.

It needs the optional ``pygls`` (``pip install 'keilref[lsp]'``). A document
is cut into games, after an edit again only where it changed
(:func:`keilref.records.cutting.recut`), and a game is checked again only
when its own text changed: an archive of thousands of games stays
responsive while one of them is edited.
"""

from __future__ import annotations

import asyncio
import functools
import io
from pathlib import Path
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import BinaryIO

from lsprotocol import types as lsp
from pygls.server import LanguageServer
from pygls.workspace import TextDocument

from keilref import wording
from keilref.engine.game import Game
from keilref.errors import KeilrefError, RecordError
from keilref.formats.findings import Finding, findings
from keilref.project import ProjectError, find_project
from keilref.records.cutting import Cut, cut, recut
from keilref.records.inputs import is_match, match_piece
from keilref.records.parser import GameBytes
from keilref.records.record import Record, Turn
from keilref.records.reformat import FormatError, format_source
from keilref.records.sources import STDIN, Source
from keilref.records.tagnames import misspelt_tags
from keilref.referee.batches import Batch, checked_games
from keilref.referee.lines import Node, has_variations, replay_node
from keilref.referee.verdict import Status, Verdict
from keilref.values import Reason

__all__ = ["DEBOUNCE", "KeilServer", "server"]

DEBOUNCE = 0.3
"""Seconds of quiet after a change before the document is checked again:
typing a move should not check the archive at each key."""

SOURCE = "keilref"

_SEVERITY = {
    "warning": lsp.DiagnosticSeverity.Warning,
    "unfinished": lsp.DiagnosticSeverity.Information,
}
# A message that names a line of the file (``first on line 4``) is only true
# where it was worded; its game is checked again when it moves.
_NAMES_A_LINE = re.compile(r"\bline \d")
_WRONG_NUMBER = re.compile(r"wrong move number '(\d+\.+)'.*numbered '(\d+\.+)'")
_MISSING_BUTTON = "no Button tag"
_TOKEN = re.compile(r"\[[^\]\n]*\]?|[^\s{}()\[\]]+")


@dataclass
class CheckedGame:
    """One game as it was last checked, where it then started."""

    line: int
    """The 1-based line of the game's first byte when it was checked."""
    verdict: Verdict
    record: Record | None
    last_line: int = 0
    """The game's last line when it was checked (its blank lines after it included)."""
    rules: str | None = None
    """The rule set the project gave it (``None``: its Rules tag): a hover replays under it too."""

    @functools.cached_property
    def found(self) -> tuple[Finding, ...]:
        """The verdict's findings, worded once: most games of an archive have
        none, and those that have keep them until their text changes."""
        return findings(self.verdict, strict=True)

    @functools.cached_property
    def names_a_line(self) -> bool:
        """Whether a message names a place in the file: asked of every game
        below an added line, so asked once."""
        return _names_a_line(self.verdict)


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


class KeilServer(LanguageServer):
    """The server, with each open document's checked games.

    A game's result is kept under its bytes (and the column it starts at), so
    a game that is cut and pasted elsewhere in the document, or that moves
    down when a line is added above it, is not checked again.
    """

    def __init__(self) -> None:
        super().__init__("keilref", _version())
        self.documents: dict[str, DocumentState] = {}
        self.checked = 0
        """How many games were checked (not taken from the cache), in all."""

    def state(self, uri: str) -> DocumentState:
        return self.documents.setdefault(uri, DocumentState())

    def check(self, document: TextDocument) -> tuple[list[lsp.Diagnostic], int, int]:
        """The document's diagnostics, how many games it has, and how many
        of them had to be checked."""
        name = _file_name(document.uri)
        data = document.source.encode("utf-8", "surrogatepass")
        state = self.state(document.uri)
        rules, error = _project_rules(document.uri, name)
        if error is not None and error != state.settings_error:
            self.show_message_log(f"keilref: {error}; checking without the project's settings", lsp.MessageType.Warning)
        state.settings_error = error
        if rules != state.rules:
            state.rules, state.cache = rules, {}  # what was checked under other rules counts for nothing
        games: list[tuple[CheckedGame, int]] = []
        fresh: dict[tuple[bytes, int], CheckedGame] = {}
        checked = 0
        index = 1
        pieces: tuple[GameBytes, ...]
        if is_match(data, name):
            # One game, read whole: there is nothing to cut again after an edit.
            state.cut, pieces = None, (match_piece(data),)
        else:
            state.cut = cut(data) if state.cut is None else recut(state.cut, data)
            pieces = state.cut.games
        for piece in pieces:
            if not piece.counts:
                continue
            key = (piece.data, piece.column_offset)
            line = piece.piece.line
            known = fresh.get(key) or state.cache.get(key)
            if known is not None and known.line != line and known.names_a_line:
                known = None
            if known is None:
                known = _check_piece(piece, name, index, state.rules)
                checked += 1
            if known.verdict.game != index:
                known = replace(known, verdict=replace(known.verdict, game=index))
            fresh[key] = known
            games.append((known, line - known.line))
            index += 1
        # Only the games the document now holds are kept, so memory follows its size.
        state.cache = fresh
        state.games = games
        self.checked += checked
        failing = [(game, shift) for game, shift in games if game.found]
        lines = _Lines.of(document) if failing else _Lines(document.uri, [])
        diagnostics = [d for game, shift in failing for d in _diagnostics(game, shift, lines)]
        return diagnostics, len(games), checked

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
        return find_project(Path(name).parent).rules_for(name)[0], None
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
    return CheckedGame(piece.piece.line, verdict, record, last, rules)


# ---------------------------------------------------------------------------
# Positions: keilref counts columns in code points from 1, LSP in UTF-16 units from 0.


@dataclass(frozen=True)
class _Lines:
    """A document's lines, split once for a request: pygls splits the whole
    document again each time its ``lines`` are asked for."""

    uri: str
    lines: list[str]

    @classmethod
    def of(cls, document: TextDocument) -> _Lines:
        return cls(document.uri, document.lines)

    def at(self, line: int) -> str:
        """The 1-based ``line`` (empty past the end)."""
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""


def _utf16(text: str, column: int) -> int:
    """The UTF-16 offset of the 1-based code point ``column`` in ``text``."""
    head = text[: max(column - 1, 0)]
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def _code_points(text: str, character: int) -> int:
    """The 1-based code point column of the UTF-16 offset ``character``."""
    units = 0
    for i, c in enumerate(text):
        if units >= character:
            return i + 1
        units += 2 if ord(c) > 0xFFFF else 1
    return len(text) + 1


def _token_range(lines: _Lines, line: int, column: int) -> lsp.Range:
    """From ``line:column`` to the end of the token there (a whole tag for ``[``)."""
    text = lines.at(line)
    match = _TOKEN.match(text, max(column - 1, 0))
    end = match.end() + 1 if match is not None and match.end() > column - 1 else column + 1
    start = lsp.Position(line=max(line - 1, 0), character=_utf16(text, column))
    return lsp.Range(start=start, end=lsp.Position(line=start.line, character=_utf16(text, end)))


# ---------------------------------------------------------------------------
# Diagnostics.


def _diagnostics(game: CheckedGame, shift: int, lines: _Lines) -> Iterator[lsp.Diagnostic]:
    v = game.verdict
    for finding in game.found:
        related = None
        if v.illegal is not None and finding.rule == "illegal/superko" and v.illegal.repeats_turn:
            related = _repeated_turn(game, shift, lines, v.illegal.repeats_turn)
        elif finding.rule == "warning" and v.variation_illegal:
            related = _repeated_in_variation(game, shift, lines, (finding.line, finding.column))
        yield lsp.Diagnostic(
            range=_token_range(lines, finding.line + shift, finding.column),
            message=finding.message,
            severity=_SEVERITY.get(finding.rule, lsp.DiagnosticSeverity.Error),
            code=finding.rule,
            source=SOURCE,
            related_information=related,
        )


def _repeated_turn(
    game: CheckedGame, shift: int, lines: _Lines, turn: int
) -> list[lsp.DiagnosticRelatedInformation] | None:
    if game.record is None or not 0 < turn <= len(game.record.turns):
        return None
    return _repeated(lines, shift, game.record.turns[turn - 1], turn)


def _repeated_in_variation(
    game: CheckedGame, shift: int, lines: _Lines, at: tuple[int, int]
) -> list[lsp.DiagnosticRelatedInformation] | None:
    """For a variation's superko at ``at``, the turn whose position it
    repeats: the variation counts its turns along its line (the lines it
    branches from up to its branch, then its own), so the turn is found
    on the path from the game's first turn to the illegal one."""
    fault = next((f for f in game.verdict.variation_illegal if (f.line, f.column) == at), None)
    if fault is None or fault.reason != Reason.SUPERKO.value or not fault.repeats_turn or game.record is None:
        return None
    try:
        node = _node_of(game.record.tree(rules=game.rules), at)
    except KeilrefError:
        return None
    path = [] if node is None else node.path()
    if not 0 < fault.repeats_turn <= len(path):
        return None
    repeated = path[fault.repeats_turn - 1].turn
    assert repeated is not None  # a path holds no root
    return _repeated(lines, shift, repeated, fault.repeats_turn)


def _repeated(lines: _Lines, shift: int, repeated: Turn, turn: int) -> list[lsp.DiagnosticRelatedInformation]:
    where = lsp.Location(uri=lines.uri, range=_token_range(lines, repeated.line + shift, repeated.column))
    return [lsp.DiagnosticRelatedInformation(location=where, message=f"the position after turn {turn}, repeated")]


def publish(ls: KeilServer, uri: str) -> None:
    document = ls.workspace.get_text_document(uri)
    diagnostics, games, checked = ls.check(document)
    # Said to the client's log, so a user (and the tests) can see the cache at
    # work; before the diagnostics, so it has arrived when they have.
    ls.show_message_log(f"checked {checked} of {games} games", lsp.MessageType.Log)
    ls.publish_diagnostics(uri, diagnostics, version=document.version)


server = KeilServer()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: KeilServer, params: lsp.DidOpenTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: KeilServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    state = ls.state(uri)
    if state.task is not None:
        state.task.cancel()
    state.task = asyncio.ensure_future(_later(ls, uri))


async def _later(ls: KeilServer, uri: str) -> None:
    await asyncio.sleep(DEBOUNCE)
    if uri in ls.workspace.text_documents:
        publish(ls, uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KeilServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    state = ls.documents.get(uri)
    if state is not None and state.task is not None:
        state.task.cancel()
    ls.forget(uri)
    ls.publish_diagnostics(uri, [])


# ---------------------------------------------------------------------------
# Hover: the board after a turn, of the main line or of a variation.


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
    document = ls.workspace.get_text_document(params.text_document.uri)
    line = params.position.line + 1
    column = _code_points(_Lines.of(document).at(line), params.position.character)
    found = ls.game_at(document.uri, line)
    if found is None or found[0].record is None:
        return None
    game, shift = found
    record = game.record
    assert record is not None
    n = _turn_at(record, shift, line, column)
    if n is not None:
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


def _position_text(record: Record, n: int, rules: str | None = None) -> str:
    try:
        g = record.replay(turn=n, rules=rules)
    except KeilrefError as e:
        return f"**Turn {n}** cannot be played: {e}"
    return _board_text(f"**After turn {n}**: {wording.play_state(g)}", g, captures=True)


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
    what = wording.illegal_on_line(_place(bad, shift), t.turn, t.point, t.reason, t.repeats_turn)
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
# Formatting: the whole document as `keilref fmt` writes it.


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: KeilServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    source = _TextSource(_file_name(document.uri), document.source.encode("utf-8", "surrogatepass"))
    try:
        formatted = format_source(source)
    except FormatError:
        return None  # a document that does not parse would lose what was not understood
    if not formatted.changed:
        return []
    lines = document.lines
    end = lsp.Position(line=len(lines), character=0)
    return [lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=0, character=0), end=end), new_text=formatted.text)]


# ---------------------------------------------------------------------------
# Code actions: the fixes with one right answer.


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
)
def code_action(ls: KeilServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    document = ls.workspace.get_text_document(params.text_document.uri)
    state = ls.documents.get(document.uri)
    if state is None:
        return []
    first, last = params.range.start.line + 1, params.range.end.line + 1
    out: list[lsp.CodeAction] = []
    lines = _Lines.of(document)
    games = state.games
    for i, (game, shift) in enumerate(games):
        start = game.line + shift
        end = games[i + 1][0].line + games[i + 1][1] - 1 if i + 1 < len(games) else len(lines.lines)
        if end < first or start > last:
            continue
        out.extend(_fixes(game, shift, lines))
    return out


def _fixes(game: CheckedGame, shift: int, lines: _Lines) -> Iterable[lsp.CodeAction]:
    v, record = game.verdict, game.record
    if record is not None:
        for typo in misspelt_tags(record):
            if len(typo.meant) != 1:
                continue
            line = typo.line + shift
            text = lines.at(line)
            at = text.find(typo.name, max(typo.column - 1, 0))
            if at >= 0:
                yield _edit(lines, f"Rename tag {typo.name} to {typo.meant[0]}", line, at + 1, typo.name, typo.meant[0])
        if any(w.startswith(_MISSING_BUTTON) for w in v.warnings) and record.tags:
            # Where `keilref fmt` would put it: before the Result tag, else after the last tag.
            later = [t.line for t in record.tags if t.name == "Result"]
            at = min(later) - 1 if later else max(t.line for t in record.tags)
            where = lsp.Position(line=at + shift, character=0)
            yield _action(lines, 'Add [Button "yes"]', lsp.Range(start=where, end=where), '[Button "yes"]\n')
    if v.error is not None:
        wrong = _WRONG_NUMBER.search(v.error.message)
        if wrong is not None:
            line = v.error.line + shift
            text = lines.at(line)
            at = text.find(wrong.group(1), max(v.error.column - 1, 0))
            if at >= 0:
                title = f"Renumber {wrong.group(1)} as {wrong.group(2)}"
                yield _edit(lines, title, line, at + 1, wrong.group(1), wrong.group(2))
    if v.status is Status.MISMATCH and v.computed is not None and record is not None and record.result is not None:
        line = record.result_line + shift
        yield _edit(
            lines, f"Declare the result {v.computed}", line, record.result_column, record.result, v.computed
        )


def _edit(lines: _Lines, title: str, line: int, column: int, old: str, new: str) -> lsp.CodeAction:
    text = lines.at(line)
    start = lsp.Position(line=line - 1, character=_utf16(text, column))
    end = lsp.Position(line=line - 1, character=_utf16(text, column + len(old)))
    return _action(lines, title, lsp.Range(start=start, end=end), new)


def _action(lines: _Lines, title: str, where: lsp.Range, text: str) -> lsp.CodeAction:
    edit = lsp.WorkspaceEdit(changes={lines.uri: [lsp.TextEdit(range=where, new_text=text)]})
    return lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, edit=edit)


def serve() -> None:
    """Speak LSP on standard input and output until the client says exit."""
    server.start_io()
