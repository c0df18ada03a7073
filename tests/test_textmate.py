"""The TextMate grammar ``editors/keil.tmLanguage.json`` tokenized as VS Code
tokenizes it (vscode-textmate over vscode-oniguruma, from ``editors/test``):
over every record of ``records/``, each class lands where the language
server's semantic tokens put it.

Needs node and ``npm ci`` in ``editors/test``; without them the test is
skipped, and ``KEILREF_REQUIRE_TEXTMATE=1`` (as CI sets it) makes that a
failure. The illegal turn's modifier is the referee's, which a grammar
cannot know: it is not compared.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

pytest.importorskip("lsprotocol")

from keilref.lsp_tokens import SCOPES, TYPES, located  # noqa: E402
from keilref.records.highlight import Kind, pieces  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EDITORS = ROOT / "editors"
GRAMMAR = EDITORS / "keil.tmLanguage.json"
TOKENIZE = EDITORS / "test" / "tokenize.js"
RECORDS = sorted((ROOT / "records").rglob("*.keil"))
PACKAGES = ("vscode-textmate", "vscode-oniguruma")

# What the records do not hold, that an editor shows while a record is typed.
EDGES = {
    "unclosed comment": '[Size "4"]\n1. a4 {never\nclosed [%clk 0:01:00]\n2. b4',
    "words no terminal reads": "1. e5x f3 x(e5) 7.5 ?? !x $ $2x B+ W+12.5 Draw* 1.. a100 a1000 K@a1 k@a1 @a1",
    "line ends": '[Event "a"]\r\n1. a4 ; crlf\r\nb4 {x\r\ny}\r2. c4\n',
    "byte order mark": '\ufeff[Event "a"] 1. a4',
    "escapes": '[Event "a \\"b\\" \\\\ c"] [Site "x;y{z"] [Bad "x] 1. a4',
    "clocks": "1. a4 {[%clk 0:01:00} [%clk 1:00:00]} ; [%clk 0:00:01] [%clkx] [%clk",
}

_LSP_LINES = re.compile(r"\r\n|\r|\n")


def _texts() -> list[tuple[str, str]]:
    named = [(str(p.relative_to(ROOT)), p.read_bytes().decode("utf-8", errors="replace")) for p in RECORDS]
    return named + sorted(EDGES.items())


def _tokenizer() -> list[str]:
    """The command that tokenizes, or a skip (a failure where CI requires it)."""
    node = shutil.which("node")
    missing = [name for name in PACKAGES if not (EDITORS / "test" / "node_modules" / name / "package.json").is_file()]
    why = None
    if node is None:
        why = "node is not installed"
    elif missing:
        why = f"{', '.join(missing)} not installed (npm ci in editors/test)"
    if why is not None:
        if os.environ.get("KEILREF_REQUIRE_TEXTMATE") == "1":
            pytest.fail(f"{why}, and KEILREF_REQUIRE_TEXTMATE=1 requires it")
        pytest.skip(f"{why} (KEILREF_REQUIRE_TEXTMATE=1 makes this a failure)")
    assert node is not None
    return [node, str(TOKENIZE)]


@pytest.fixture(scope="module")
def tokenized() -> dict[str, list[list[object]]]:
    texts = _texts()
    done = subprocess.run(
        _tokenizer(), input=json.dumps([text for _, text in texts]), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert len(found) == len(texts)
    return {name: tokens for (name, _), tokens in zip(texts, found)}


_CLASS_OF_SCOPE = {scope: kind for kind, scopes in SCOPES.items() for scope in scopes}
LETTERS = {kind: chr(ord("a") + n) for n, kind in enumerate(Kind)}


def _blank(text: str) -> list[list[str]]:
    return [[" "] * (len(line.encode("utf-16-le")) // 2) for line in _LSP_LINES.split(text)]


def semantic_paint(text: str) -> list[str]:
    """A letter per UTF-16 unit of each LSP line: the class the semantic tokens give it."""
    paint = _blank(text)
    kind_of = {index: kind for index, kind in enumerate(dict.fromkeys(TYPES))}
    for line, character, length, index, _ in located(text, pieces(text)).rows():
        for i in range(character, character + length):
            paint[line][i] = LETTERS[kind_of[index]]
    return ["".join(row) for row in paint]


def textmate_paint(text: str, tokens: Sequence[Sequence[object]]) -> list[str]:
    """The same, from the grammar's tokens: a token's class is that of its
    innermost scope that has one (a clock inside a comment is a clock);
    ``invalid.illegal``, which no semantic token marks, is left blank."""
    paint = _blank(text)
    for line, start, end, scopes in tokens:
        assert isinstance(line, int) and isinstance(start, int) and isinstance(end, int) and isinstance(scopes, list)
        kinds = [_CLASS_OF_SCOPE[s] for s in scopes if s in _CLASS_OF_SCOPE]
        if not kinds or kinds[-1] is Kind.INVALID:
            continue
        for i in range(start, end):
            paint[line][i] = LETTERS[kinds[-1]]
    return ["".join(row) for row in paint]


@pytest.mark.parametrize("name", [name for name, _ in _texts()])
def test_textmate_agrees_with_the_semantic_tokens(name: str, tokenized: dict[str, list[list[object]]]) -> None:
    text = dict(_texts())[name]
    lines = _LSP_LINES.split(text)
    want, got = semantic_paint(text), textmate_paint(text, tokenized[name])
    for number, (line, semantic, textmate) in enumerate(zip(lines, want, got)):
        assert textmate == semantic, f"line {number}: {line!r}\nsemantic tokens: {semantic!r}\nTextMate:        {textmate!r}"


def test_every_class_is_compared(tokenized: dict[str, list[list[object]]]) -> None:
    """The records and the edge cases hold every class, so no class goes untested."""
    seen = {c for name, text in _texts() for row in textmate_paint(text, tokenized[name]) for c in row}
    assert seen - {" "} == {LETTERS[kind] for kind in TYPES}


def test_the_grammar_names_the_scopes_of_the_classes() -> None:
    """Every scope the grammar gives a token ends in .keil, and each scope
    of a class is one the grammar gives: the mapping in docs/editors.md is
    the grammar's."""
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.keil" and grammar["fileTypes"] == ["keil"]
    named = set(_names(grammar["repository"]))
    assert all(name.endswith(".keil") for name in named)
    assert set(_CLASS_OF_SCOPE) <= named
    assert named - set(_CLASS_OF_SCOPE) == {
        "meta.tag.keil",
        "punctuation.definition.tag.begin.keil",
        "punctuation.definition.tag.end.keil",
    }


def _names(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "name" and isinstance(value, str):
                yield value
            else:
                yield from _names(value)
    elif isinstance(node, list):
        for item in node:
            yield from _names(item)


def test_the_docs_table_is_the_legend_and_the_scopes() -> None:
    """docs/editors.md's table of classes: each row's token type and scopes
    are the server's and the grammar's, in the legend's order."""
    from keilref.lsp_tokens import LEGEND

    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    section = text.split("\n## Highlighting\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[2:4] for line in section.splitlines() if line.startswith("| ") and "`" in line]
    table = [(re.findall(r"`([^`]+)`", kind), re.findall(r"`([^`]+)`", scopes)) for kind, scopes in rows]
    assert table == [([TYPES[kind]], list(SCOPES[kind])) for kind in TYPES]
    assert [name for (name,), _ in table] == LEGEND.token_types
