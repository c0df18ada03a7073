"""Reading semantic tokens back: LSP's relative numbers decoded into places,
and a record painted with one letter per class, for tests to compare."""

from __future__ import annotations

from collections.abc import Sequence

LETTERS = {
    "property": "T",
    "string": "V",
    "number": "N",
    "variable": "P",
    "keyword": "K",
    "enumMember": "R",
    "comment": "C",
    "decorator": "L",
    "operator": "G",
    "parenthesis": "p",
}
"""One letter per token type of the legend; an illegal turn's is ``X``."""

Row = tuple[int, int, int, str, tuple[str, ...]]
"""A token: line, character, length (UTF-16 units), type and modifiers."""


def decoded(data: Sequence[int], types: Sequence[str], modifiers: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    line = character = 0
    for i in range(0, len(data), 5):
        delta, start, length, kind, bits = data[i : i + 5]
        line += delta
        character = start if delta else character + start
        named = tuple(m for n, m in enumerate(modifiers) if bits >> n & 1)
        rows.append((line, character, length, types[kind], named))
    return rows


def painted(text: str, rows: Sequence[Row]) -> str:
    """Each line of ``text`` (split at LF), and under it a letter for each
    UTF-16 unit a token covers: the classes and their places at a glance."""
    lines = text.split("\n")
    paint = [[" "] * (len(line.encode("utf-16-le")) // 2) for line in lines]
    for line, character, length, kind, modifiers in rows:
        letter = "X" if "illegal" in modifiers else LETTERS[kind]
        for i in range(character, character + length):
            assert paint[line][i] == " ", f"tokens overlap at {line}:{i}"
            paint[line][i] = letter
    out = []
    for line, marks in zip(lines, paint):
        out += [line, "".join(marks).rstrip()]
    return "\n".join(out)
