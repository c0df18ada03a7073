"""Completion in the language server: tag names, tag values, turns, move numbers and results.

Only the game the cursor stands in is read: the document is cut into games
(again only where it changed since the last cut,
:func:`keilref.records.cutting.recut`), and the game holding the cursor is
taken from the cut. What is offered depends on where the cursor stands:

* after ``[`` (and part of a name): the tags of the format
  (:data:`keilref.records.tags.TAGS`) that the game does not have yet;
* inside a tag's quoted value: the values the tag takes where they are a
  set (``Rules``, ``Size``, ``Button``, ``ToMove``, ``ButtonTaken``,
  ``FirstPass``, ``TimeControl``'s forms, ``Result``), for the game's rules;
* among the moves: the legal turns of the position before the cursor, on
  the line (main line or variation) the cursor stands in, with the next
  move number where one may go, and the computed result at the end of a
  main line whose game ended.

The position before the cursor depends on the text before it alone, so
that text is read: the word being typed left out, a move number or an
empty variation just before the cursor set aside, and every variation still
open closed. The position is then that of the last turn of the innermost
open variation (:mod:`keilref.referee.lines` replays it), and nothing after
the cursor, finished or not, can make it unreadable.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from lsprotocol import types as lsp

from keilref import wording
from keilref.engine.dehil import DehilGame
from keilref.engine.game import Game
from keilref.engine.rules import ButtonRule, RuleSet, all_rules, find_rules
from keilref.errors import ConfigError, KeilrefError
from keilref.records.cutting import Cut, cut, recut
from keilref.records.highlight import Kind, Piece, pieces
from keilref.records.parser import GameBytes, parse_record
from keilref.records.positions import LineIndex
from keilref.records.record import Record
from keilref.records.setup import BUTTON_TAKEN_TAG, FIRST_PASS_TAG, TO_MOVE_TAG
from keilref.records.tags import KNOWN_TAGS, KOMI_BY_TAG, TIME_CONTROL_TAG
from keilref.referee.lines import Node, find_line, replay_node
from keilref.referee.settings import DEFAULT_RULES, read_setup
from keilref.values import Color, Result, ResultKind, move_number

__all__ = ["TRIGGERS", "Offer", "completions", "game_cut", "to_lsp"]

TRIGGERS = ("[", '"', "(", " ")
"""Characters after which an editor asks at once: a tag's name, its value,
a variation's first turn, the next turn."""

_NAME = r"[A-Za-z][A-Za-z0-9_]*"
_WHOLE_TAG = rf'\[[ \t]*{_NAME}[ \t]*"(?:[^"\\\n]|\\["\\])*"[ \t]*\]'
_BEFORE = rf"(?:[ \t]*{_WHOLE_TAG})*[ \t]*"
"""Whole tags before the one being typed, on its line."""
_TAG_NAME_AT = re.compile(rf"{_BEFORE}(\[)[ \t]*({_NAME})?\Z")
"""A line up to the cursor that ends in a tag's name, or in its ``[``."""
_TAG_VALUE_AT = re.compile(rf'{_BEFORE}(\[)[ \t]*({_NAME})[ \t]*"((?:[^"\\\n]|\\.)*)\Z')
"""A line up to the cursor that ends inside a tag's quoted value."""
_NAME_REST = re.compile(r"[A-Za-z0-9_]*")
_VALUE_REST = re.compile(r'(?:[^"\\\n]|\\.)*')
_WORD_CHARS = r'[^ \t\r\n\ufeff{}()\[\];"]'
_WORD_CHAR = re.compile(_WORD_CHARS)
_WORD_AFTER = re.compile(rf"{_WORD_CHARS}*")
_LINE_REST = re.compile(r"[ \t]*(?:\r?\n|\Z)")
_COMMENTS = (Kind.COMMENT, Kind.CLOCK)
_TURNS = (Kind.POINT, Kind.WORD)


class Sort:
    """The order items are shown in: each group keeps the order it was made in."""

    RESULT = "0"
    NUMBER = "1"
    TURN = "2"
    VALUE = "3"


@dataclass(frozen=True)
class Offer:
    """One item offered: its text, what it is, and the span of the document it replaces."""

    label: str
    kind: lsp.CompletionItemKind
    documentation: str | None
    start: int
    end: int
    sort: str
    insert: str | None = None
    """The text put in, when it is more than the label (a value's closing quote)."""
    preselect: bool = False


@dataclass(frozen=True)
class _Game:
    """The game the cursor stands in: where its text starts and ends in the document."""

    start: int
    end: int
    line: int
    """The 1-based line of its first character, for the reader's places."""


def game_cut(previous: Cut | None, data: bytes) -> Cut:
    """The document's bytes cut into games, cutting again only what changed since ``previous``."""
    return cut(data) if previous is None else recut(previous, data)


def _game_at(cut_games: tuple[GameBytes, ...], index: LineIndex, text: str, cursor: int) -> _Game | None:
    """The piece of the cut that holds ``cursor`` (the later one, where two meet)."""
    line, column = index.place(cursor)
    at = bisect_right(cut_games, (line, column), key=lambda g: (g.piece.line, g.column_offset + 1)) - 1
    if at < 0:
        return None
    piece = cut_games[at]
    if piece.piece.too_large:
        return None  # a game over the byte cap is not read, here as anywhere
    start = index.offset(piece.piece.line, piece.column_offset + 1)
    if start == 0 and text.startswith("\ufeff"):
        start = 1  # the cut drops a byte order mark at the file's start
    end = start + len(piece.data.decode("utf-8", "surrogatepass"))
    return _Game(start, max(end, cursor), piece.piece.line)


def completions(text: str, cursor: int, games: Cut, index: LineIndex, rules: str | None) -> list[Offer]:
    """What to offer at offset ``cursor`` of ``text``, cut into ``games``, whose
    places ``index`` holds (``rules``: the rule set the project gives the
    document, if any)."""
    game = _game_at(games.games, index, text, cursor)
    if game is None:
        return []
    before = list(pieces(text, game.start, cursor))
    if _in_comment(text, before, cursor):
        return []
    line_start = max(index.line_span(index.place(cursor)[0])[0], game.start)
    name = _TAG_NAME_AT.match(text, line_start, cursor)
    if name is not None and not _in_comment(text, before, name.start(1)):
        return list(_tag_names(text, game, name, cursor))
    value = _TAG_VALUE_AT.match(text, line_start, cursor)
    if value is not None and not _in_comment(text, before, value.start(1)):
        return list(_tag_values(text, game, value, cursor, rules))
    return list(_moves(text, game, cursor, rules))


def _in_comment(text: str, tokens: list[Piece], at: int) -> bool:
    """Whether offset ``at`` is inside a comment (at the end of a ``;`` comment's line too)."""
    for piece in tokens:
        if piece.kind in _COMMENTS and piece.start < at:
            if at < piece.end or (at == piece.end and text[piece.end - 1] != "}"):
                return True
    return False


# --- tag names ---------------------------------------------------------------------------


def _tag_names(text: str, game: _Game, found: re.Match[str], cursor: int) -> Iterator[Offer]:
    start = found.start(2) if found.group(2) is not None else cursor
    rest = _NAME_REST.match(text, cursor)
    end = cursor if rest is None else rest.end()
    had = {
        text[p.start : p.end]
        for p in pieces(text, game.start, game.end)
        if p.kind is Kind.TAG_NAME and not p.start <= start < p.end
    }
    for n, name in enumerate(KNOWN_TAGS):
        if name not in had:
            yield Offer(name, lsp.CompletionItemKind.Property, wording.TAG_DOCS.get(name), start, end, f"{n:03d}")


# --- tag values ----------------------------------------------------------------------------


def _tag_values(text: str, game: _Game, found: re.Match[str], cursor: int, rules: str | None) -> Iterator[Offer]:
    tag = found.group(2)
    start = found.start(3)
    rest = _VALUE_REST.match(text, cursor)
    end = cursor if rest is None else rest.end()
    # A value left open at the end of its line gets its closing quote and bracket.
    close = '"]' if _LINE_REST.match(text, end) is not None else ""
    record = _game_without(text, game, found.start(1), end)
    ruleset = _ruleset(record, rules)
    values = list(_values(tag, ruleset, record, rules))
    for n, (value, doc, kind, preselect) in enumerate(values):
        sort = f"{Sort.VALUE}{n:03d}"
        yield Offer(value, kind, doc, start, end, sort, value + close if close else None, preselect)


_Value = tuple[str, str, lsp.CompletionItemKind, bool]


def _values(tag: str, ruleset: RuleSet | None, record: Record | None, rules: str | None) -> Iterator[_Value]:
    enum = lsp.CompletionItemKind.EnumMember
    if tag == "Rules":
        for r in all_rules():
            yield r.name, wording.rules_doc(r.title, r.name == DEFAULT_RULES), enum, False
    elif tag == "Size" and ruleset is not None:
        for size in range(ruleset.min_size, ruleset.max_size + 1):
            default = size == ruleset.default_size
            yield str(size), wording.size_doc(size, default), lsp.CompletionItemKind.Value, default
    elif tag == "Button" and ruleset is not None:
        for word, value in (("yes", True), ("no", False)):
            if _allows_button(ruleset, value):
                yield word, wording.button_doc(value), enum, False
    elif tag in (TO_MOVE_TAG, KOMI_BY_TAG):
        for player in ("Black", "White"):
            yield player, wording.player_value_doc(tag, player), enum, False
    elif (tag == BUTTON_TAKEN_TAG and ruleset is not None and ruleset.button is not ButtonRule.ABSENT) or (
        tag == FIRST_PASS_TAG and ruleset is not None and issubclass(ruleset.game_class, DehilGame)
    ):
        for holder in ("Black", "White", None):
            yield holder or "no", wording.player_value_doc(tag, holder), enum, False
    elif tag == TIME_CONTROL_TAG:
        for form, doc in wording.TIME_CONTROL_FORMS.items():
            yield form, doc, lsp.CompletionItemKind.Value, False
    elif tag == "Result":
        computed = None if record is None else _main_line_result(record, rules)
        if computed is not None:
            yield computed, wording.COMPUTED_RESULT, lsp.CompletionItemKind.Constant, True
        for text, doc in _result_words():
            if text != computed:
                yield text, doc, enum, False


def _allows_button(ruleset: RuleSet, value: bool) -> bool:
    if ruleset.button is ButtonRule.ABSENT:
        return False
    try:
        ruleset.check_button(value)
    except ConfigError:
        return False
    return True


def _result_words() -> Iterator[tuple[str, str]]:
    """The result tokens that need no margin, in the order offered."""
    for kind in (ResultKind.WINNER, ResultKind.RESIGN, ResultKind.TIME, ResultKind.FORFEIT):
        for winner in (Color.BLACK, Color.WHITE):
            yield str(Result(kind, winner)), wording.result_doc(kind, winner)
    for kind in (ResultKind.DRAW, ResultKind.UNKNOWN):
        yield str(Result(kind)), wording.result_doc(kind, None)


def _game_without(text: str, game: _Game, start: int, end: int) -> Record | None:
    """The game read with the tag being typed (from its ``[`` to the value's end) left out."""
    line_end = text.find("\n", end)
    tag_end = text.find("]", end, len(text) if line_end < 0 else line_end)
    stop = end if tag_end < 0 else tag_end + 1
    blank = " " * (stop - start)
    try:
        return parse_record(text[game.start : start] + blank + text[stop : game.end], line_offset=game.line - 1)
    except KeilrefError:
        return None


def _ruleset(record: Record | None, rules: str | None) -> RuleSet | None:
    """The rule set the game is played under: the project's, else its ``Rules``
    tag's, else the default (``None``: a tag naming none)."""
    if record is not None:
        try:
            return find_rules(read_setup(record, rules=rules).rules)
        except KeilrefError:
            pass  # another tag is bad: the Rules tag alone still says
    name = rules or (None if record is None else record.tag_value("Rules")) or DEFAULT_RULES
    try:
        return find_rules(name)
    except ConfigError:
        return None


def _main_line_result(record: Record, rules: str | None) -> str | None:
    """The computed result of the game's main line, if it ended."""
    try:
        game = record.replay(rules=rules)
    except KeilrefError:
        return None
    return str(game.score().result) if game.is_over else None


# --- moves ---------------------------------------------------------------------------------


def _moves(text: str, game: _Game, cursor: int, rules: str | None) -> Iterator[Offer]:
    start = cursor
    while start > game.start and _WORD_CHAR.match(text, start - 1):
        start -= 1
    after = _WORD_AFTER.match(text, cursor)
    end = cursor if after is None else after.end()
    tokens = [p for p in pieces(text, game.start, start) if p.kind not in _COMMENTS]
    if not tokens or tokens[-1].kind is Kind.RESULT or _tags_follow(text, end, game.end):
        return  # before the moves, or after the result
    numbered = tokens[-1].kind is Kind.MOVE_NUMBER
    stop = tokens[-1].start if numbered else start
    inner, replaced, depth = _open_variations(text, tokens)
    if replaced is not None:
        stop = replaced  # an empty variation: the position before the turn it replaces
    prefix = text[game.start : stop]
    try:
        # Read from the game's start, so a line's name is its place in ``prefix``.
        record = parse_record(prefix + ")" * depth)
        node = _line_end(record.tree(rules=rules), None if inner is None else _line_name(text, game.start, inner))
    except (KeilrefError, KeyError):
        return
    if replaced is not None:
        if node.parent is None:
            return
        node = node.parent
    try:
        replay, bad = replay_node(node)
    except KeilrefError:
        return
    if bad is not None:
        return  # an illegal turn before the cursor: the line has no position there
    g = replay.game
    main = inner is None and replaced is None
    if g.is_over and main and not numbered:
        result = _main_line_result(record, rules) or str(g.score().result)
        kind = lsp.CompletionItemKind.Constant
        yield Offer(result, kind, wording.COMPUTED_RESULT, start, end, Sort.RESULT, preselect=True)
    moves = g.legal_moves()
    if moves and not numbered:
        number = move_number(g.turn + 1, g.white_first)
        doc = wording.move_number_doc(g.to_move)
        yield Offer(number, lsp.CompletionItemKind.Unit, doc, start, end, Sort.NUMBER)
    yield from _turns(g, moves, start, end)


def _turns(g: Game, moves: Iterable[str], start: int, end: int) -> Iterator[Offer]:
    for n, move in enumerate(moves):
        kind = lsp.CompletionItemKind.Keyword if move in ("pass", "button") else lsp.CompletionItemKind.Value
        yield Offer(move, kind, wording.legal_turn_doc(g.to_move, move), start, end, f"{Sort.TURN}{n:04d}")


def _tags_follow(text: str, start: int, end: int) -> bool:
    """Whether the next token after ``start`` in the game is a tag: the cursor is in the tag block."""
    for piece in pieces(text, start, end):
        if piece.kind not in _COMMENTS:
            return piece.kind is Kind.TAG_NAME
    return False


def _open_variations(text: str, tokens: list[Piece]) -> tuple[int | None, int | None, int]:
    """Where the innermost variation open after ``tokens`` opens (``None``:
    none is open, the main line); where it opens when no turn follows its
    ``(`` yet (it is then set aside, and the first is the variation around
    it); and how many are open, the one set aside left out."""
    stack: list[tuple[int, bool]] = []
    for piece in tokens:
        if piece.kind is Kind.PARENTHESIS:
            if text[piece.start] == "(":
                stack.append((piece.start, False))
            elif stack:
                stack.pop()
        elif piece.kind in _TURNS and stack:
            stack[-1] = (stack[-1][0], True)
    empty = None
    if stack and not stack[-1][1]:
        empty = stack.pop()[0]
    return (stack[-1][0] if stack else None), empty, len(stack)


def _line_end(root: Node, name: str | None) -> Node:
    """The last node of the line named ``name`` (``LINE:COLUMN`` of its ``(``;
    ``None``: the main line)."""
    return _last(root if name is None else find_line(root, name))


def _line_name(text: str, start: int, at: int) -> str:
    """The name of the variation whose ``(`` is at offset ``at``, as a record
    read from ``start`` on names it (``LINE:COLUMN``, from 1)."""
    line = text.count("\n", start, at) + 1
    line_start = max(text.rfind("\n", start, at) + 1, start)
    return f"{line}:{at - line_start + 1}"


def _last(node: Node) -> Node:
    """The last node of the line that goes on from ``node``."""
    for node in node.mainline():
        pass
    return node


# --- to the editor -------------------------------------------------------------------------


def to_lsp(offers: list[Offer], position: Callable[[int], lsp.Position]) -> lsp.CompletionList:
    """The offers as LSP's items, each replacing its span (``position`` places an offset)."""
    items = []
    for offer in offers:
        span = lsp.Range(start=position(offer.start), end=position(offer.end))
        items.append(
            lsp.CompletionItem(
                label=offer.label,
                kind=offer.kind,
                documentation=offer.documentation,
                sort_text=offer.sort,
                preselect=offer.preselect or None,
                text_edit=lsp.TextEdit(range=span, new_text=offer.insert or offer.label),
            )
        )
    return lsp.CompletionList(is_incomplete=False, items=items)
