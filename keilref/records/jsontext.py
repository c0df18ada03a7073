"""JSON read with the place of every value, for messages that point into a file.

Python's :mod:`json` gives values but not where they stand. :meth:`JsonText.load`
reads the values with :mod:`json` itself (its C scanner); :meth:`JsonText.locate`
then finds where a value stands by its path (``("moves", 3, "move")``),
walking only the containers on that path, each at most once whatever the
number of look-ups, and handing every value it passes over to the same
scanner: so places cost time linear in the file, and nothing when no one
asks for them. Offsets become lines and columns only when a message needs
one. :meth:`JsonText.parse` reads a whole tree with places, as the words of
an error need.

Every fault is a :class:`~keilref.errors.RecordSyntaxError` at its place:
text that is not JSON, a file cut short, nesting too deep, a name given
twice in one object (:mod:`json` would keep the last value, while places
are found for the first), a whole number longer than Python converts.
"""

from __future__ import annotations

import bisect
import json
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from keilref.errors import RecordSyntaxError

__all__ = ["JsonNode", "JsonText", "MAX_DEPTH"]

MAX_DEPTH = 200
"""The deepest nesting read; deeper is an error, never a recursion failure."""

_COUNTED_PLACES = 16
"""Places found by counting line ends before an index of them is built."""
_BLANK = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_SCALAR_START = frozenset('"-0123456789tfn')
_WORD = re.compile(r"[^\s,:\]\}\[\{\"]{1,20}|.", re.DOTALL)
_DIGITS = re.compile(r"-?([0-9]*)")


class _Repeated(Exception):
    """A name given twice in one object: looked for again, with places, to say where."""


def _distinct(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) != len(pairs):
        raise _Repeated
    return members


@dataclass(frozen=True, slots=True)
class JsonNode:
    """One value and where it starts.

    ``value`` is the plain Python value (dicts, lists, strings, numbers,
    booleans, ``None``). For a container read with places, ``members`` (an
    object's) or ``items`` (an array's) hold its children as nodes too.
    """

    value: Any
    offset: int
    members: dict[str, JsonNode] | None = field(default=None, repr=False)
    items: list[JsonNode] | None = field(default=None, repr=False)

    def get(self, key: str) -> JsonNode | None:
        """The member ``key`` of an object read with places, or ``None``."""
        return None if self.members is None else self.members.get(key)


class JsonText:
    """The text of one JSON document, with lines and columns for its offsets."""

    def __init__(self, text: str, filename: str | None = None) -> None:
        self.text = text
        self.filename = filename
        self._newlines: list[int] | None = None
        self._places = 0
        self._children: dict[int, tuple[dict[str | int, int], Iterator[tuple[str | int, int]]]] = {}

    def load(self) -> Any:
        """The document's value; a :class:`RecordSyntaxError` at the fault for
        text that is not JSON."""
        try:
            return json.loads(self.text, object_pairs_hook=_distinct)
        except json.JSONDecodeError as e:
            # Read again with places, for the reader's own words at the fault.
            self.parse(MAX_DEPTH)
            raise self.error(_reason(e), e.pos) from None
        except (_Repeated, ValueError) as e:
            # A repeated name or a number too long to convert: the reading
            # with places finds the first and says where it is.
            self.parse(MAX_DEPTH)
            raise self.error(f"the JSON cannot be read: {e or 'a name is given twice in one object'}", 0) from None
        except RecursionError:
            raise self.error(f"the JSON is nested more than {MAX_DEPTH} levels deep", 0) from None

    def locate(self, path: Sequence[str | int]) -> int:
        """The offset of the value at ``path`` (member names and item indices)
        in a document :meth:`load` read; ``KeyError`` if there is none."""
        offset = _skip(self.text, 0)
        for step in path:
            offset = self._child(offset, step)
        return offset

    def _child(self, offset: int, step: str | int) -> int:
        entry = self._children.get(offset)
        if entry is None:
            entry = self._children[offset] = ({}, self._walk(offset))
        known, walk = entry
        if step in known:
            return known[step]
        for key, at in walk:
            known.setdefault(key, at)
            if key == step:
                return at
        raise KeyError(step)

    def _walk(self, start: int) -> Iterator[tuple[str | int, int]]:
        """The children of the container at ``start`` (valid JSON), in order,
        with the offsets of their values."""
        text = self.text
        closing = "}" if text[start] == "{" else "]"
        pos = _skip(text, start + 1)
        index = 0
        while not text.startswith(closing, pos):
            key: str | int = index
            if closing == "}":
                key, pos = scanstring(text, pos + 1)
                pos = _skip(text, _skip(text, pos) + 1)  # past the ':'
            yield key, pos
            _, pos = _DECODER.raw_decode(text, pos)
            pos = _skip(text, pos)
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
            index += 1

    def place(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column (in characters) of ``offset``."""
        self._places += 1
        if self._newlines is None and self._places <= _COUNTED_PLACES:
            # A few places (a match's tags) are counted in C; many (its turns) share an index.
            start = self.text.rfind("\n", 0, offset) + 1
            return self.text.count("\n", 0, start) + 1, offset - start + 1
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        before = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[before - 1] + 1 if before else 0
        return before + 1, offset - start + 1

    def source_line(self, offset: int) -> str:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return self.text[start : len(self.text) if end < 0 else end].rstrip("\r")

    def error(self, message: str, offset: int) -> RecordSyntaxError:
        line, column = self.place(offset)
        return RecordSyntaxError(message, line, column, self.source_line(offset), self.filename)

    def parse(self, depth: int) -> JsonNode:
        """The document's one value, with places for containers down to ``depth``
        levels (the top value is level 0) and for every value they hold."""
        pos = _skip(self.text, 0)
        node, end = self.value_at(pos, depth, 0)
        end = _skip(self.text, end)
        if end < len(self.text):
            raise self.error(f"found {self._found(end)} after the JSON value; expected the end of the file", end)
        return node

    def value_at(self, pos: int, depth: int, level: int = 0) -> tuple[JsonNode, int]:
        """The value at ``pos`` and the offset just after it."""
        text = self.text
        if pos >= len(text):
            raise self._cut(pos)
        c = text[pos]
        if level >= MAX_DEPTH:
            raise self.error(f"the JSON is nested more than {MAX_DEPTH} levels deep", pos)
        if c == "{" and level < depth:
            return self._object(pos, depth, level)
        if c == "[" and level < depth:
            return self._array(pos, depth, level)
        if c in "{[" or c in _SCALAR_START:
            try:
                value, end = _DECODER.raw_decode(text, pos)
            except json.JSONDecodeError as e:
                if e.pos >= len(text):
                    raise self._cut(e.pos) from None
                if e.msg == "Expecting value":
                    raise self.error(f"found {self._found(e.pos)}; expected a JSON value", e.pos) from None
                raise self.error(_reason(e), e.pos) from None
            except RecursionError:
                raise self.error(f"the JSON is nested more than {MAX_DEPTH} levels deep", pos) from None
            except ValueError:
                # Only a whole number past Python's limit on converted digits gets here.
                raise self.error(self._too_long(pos), pos) from None
            return JsonNode(value, pos), end
        raise self.error(f"found {self._found(pos)}; expected a JSON value", pos)

    def _object(self, start: int, depth: int, level: int) -> tuple[JsonNode, int]:
        text = self.text
        members: dict[str, JsonNode] = {}
        pos = _skip(text, start + 1)
        if text.startswith("}", pos):
            return JsonNode({}, start, members=members), pos + 1
        while True:
            if pos >= len(text):
                raise self._cut(pos)
            if text[pos] != '"':
                raise self.error(f"found {self._found(pos)}; expected a name in double quotes", pos)
            key_node, pos = self.value_at(pos, 0, level + 1)
            pos = _skip(text, pos)
            if not text.startswith(":", pos):
                raise self._cut(pos) if pos >= len(text) else self.error(
                    f"found {self._found(pos)}; expected ':' after a name", pos
                )
            pos = _skip(text, pos + 1)
            if key_node.value in members:
                raise self.error(
                    f"the name {_shown(key_node.value)} is given twice in this object; expected each name once",
                    key_node.offset,
                )
            node, pos = self.value_at(pos, depth, level + 1)
            members[key_node.value] = node
            pos = _skip(text, pos)
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
                continue
            if text.startswith("}", pos):
                value = {k: v.value for k, v in members.items()}
                return JsonNode(value, start, members=members), pos + 1
            raise self._cut(pos) if pos >= len(text) else self.error(
                f"found {self._found(pos)}; expected ',' or '}}' after a member", pos
            )

    def _array(self, start: int, depth: int, level: int) -> tuple[JsonNode, int]:
        text = self.text
        items: list[JsonNode] = []
        pos = _skip(text, start + 1)
        if text.startswith("]", pos):
            return JsonNode([], start, items=items), pos + 1
        while True:
            node, pos = self.value_at(pos, depth, level + 1)
            items.append(node)
            pos = _skip(text, pos)
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
                continue
            if text.startswith("]", pos):
                return JsonNode([n.value for n in items], start, items=items), pos + 1
            raise self._cut(pos) if pos >= len(text) else self.error(
                f"found {self._found(pos)}; expected ',' or ']' after an item", pos
            )

    def _found(self, pos: int) -> str:
        m = _WORD.match(self.text, pos)
        word = m.group(0) if m else self.text[pos]
        return repr(word) if word.isprintable() else repr(word.encode("unicode_escape").decode("ascii"))

    def _too_long(self, pos: int) -> str:
        m = _DIGITS.match(self.text, pos)
        digits = 0 if m is None else len(m.group(1))
        return (
            f"a whole number of {digits:,} digits; expected at most {sys.get_int_max_str_digits():,} "
            "(longer ones are not converted)"
        )

    def _cut(self, pos: int) -> RecordSyntaxError:
        return self.error("the JSON ends before its value does: the file is cut short", min(pos, len(self.text)))


def _skip(text: str, pos: int) -> int:
    """The offset after the white space at ``pos``."""
    m = _BLANK.match(text, pos)
    return pos if m is None else m.end()


def _shown(name: str, limit: int = 40) -> str:
    cut = name if len(name) <= limit else name[: limit - 3] + "..."
    return repr(cut) if cut.isprintable() else repr(cut.encode("unicode_escape").decode("ascii"))


def _reason(e: json.JSONDecodeError) -> str:
    return f"the text is not JSON here: {e.msg[0].lower()}{e.msg[1:]}"
