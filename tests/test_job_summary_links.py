"""The GitHub job summary links nowhere, whatever a file name or a tag holds.

GitHub renders the summary as GitHub Flavored Markdown, which links
``www.x``, ``https://x``, ``ftp://x`` and ``a@b.co`` by themselves (and
GitHub then links ``@name`` as a mention): a pull request could put a link
of its choosing in the table. The table is rendered here with GitHub's own
parser (cmark-gfm, through cmarkgfm), and must hold no link, and read as
written.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from cli_support import run

from keilref.formats.github import ANNOTATION_LIMIT, _cell

cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm renders Markdown as GitHub does (pip install cmarkgfm)")

JOINER = "\u2060"

LINKY = [
    "www.example.com",
    "see www.example.com/x now",
    "https://example.com/x?y=1",
    "http://example.com",
    "ftp://example.com",
    "mailto:a@example.com",
    "a@example.com",
    "x_y@example.com",
    "@octocat",
    "(www.example.com)",
    "*www.example.com*",
    "www.a_b.example.com",
]


def _render(markdown: str) -> str:
    return str(cmarkgfm.github_flavored_markdown_to_html(markdown))


def _text(rendered: str) -> str:
    """What a reader sees: the tags dropped, the entities read, the joiners invisible."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered)).replace(JOINER, "").strip()


@pytest.mark.parametrize("text", LINKY)
def test_github_links_it_as_it_is(text: str) -> None:
    """Each of these is a link when written plainly: what the cell must prevent."""
    if text == "@octocat":
        pytest.skip("a mention is linked by github.com after the Markdown, not by cmark-gfm")
    assert "<a " in _render(text)


@pytest.mark.parametrize("text", LINKY)
def test_a_cell_links_nowhere_and_reads_as_written(text: str) -> None:
    rendered = _render(f"| a |\n|---|\n| {_cell(text)} |\n")
    assert "<a " not in rendered
    assert [_text(cell) for cell in re.findall(r"<td>(.*?)</td>", rendered, re.S)] == [text]
    if "@" in text:
        # A mention is linked from the page's text: no '@' may be followed by a name there.
        assert not re.search(r"@[A-Za-z0-9]", rendered)


def test_the_summary_of_hostile_names_and_tags_holds_no_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "./" keeps the second a local path (without it, it is a URL to fetch).
    files = ["www.evil.example.keil", "./https://evil.example.keil", "mail a@evil.example.keil", "@octocat.keil"]
    (tmp_path / "https:").mkdir()
    # An unknown rule set is an error whose message quotes the tag; more failures than annotations.
    text = "\n".join(
        f'[Event "www.evil.example"]\n[Rules "www.evil{i}.example"]\n[Size "3"]\n\n1. c5 *\n'
        for i in range(ANNOTATION_LIMIT)
    )
    for name in files:
        (tmp_path / name).write_text(text, encoding="utf-8")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.chdir(tmp_path)
    result = run("check", "-j", "1", "-f", "github", *files)
    assert result.exit_code == 1
    rendered = _render(summary.read_text(encoding="utf-8"))
    assert "<a " not in rendered and not re.search(r"@[A-Za-z0-9]", rendered)
    rows = [
        [_text(cell) for cell in re.findall(r"<td>(.*?)</td>", tr, re.S)]
        for tr in re.findall(r"<tr>(.*?)</tr>", rendered.split("<tbody>", 1)[1], re.S)
    ]
    assert len(rows) == len(files) * ANNOTATION_LIMIT
    assert [row[0] for row in rows[::ANNOTATION_LIMIT]] == files
    assert [row[4] for row in rows[:ANNOTATION_LIMIT]] == [
        f'game {i + 1}: error: Rules "www.evil{i}.example" is not a known rule set'
        " (known: dehil, keil, keil-2019, yugo)"
        for i in range(ANNOTATION_LIMIT)
    ]
