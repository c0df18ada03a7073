"""The input layer at its edges: read boundaries, long comments, caps on a
game, bounded jobs, special files, and output that stays one line."""

from __future__ import annotations

import gc
import io
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from keilref import check_text, read_games
from keilref.records.sources import expand_paths
from keilref.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, app
from keilref.errors import RecordError
from keilref.records import cutting
from keilref.records.cutting import cut, recut
from keilref.records.parser import MAX_GAME_BYTES, MAX_TURNS, GameBytes, iter_games, split_games
from keilref.records.record import Record

runner = CliRunner()
GOOD = '[Size "3"]\n[Komi "2"]\n1. c3 button 2. pass pass\n'
ILLEGAL = '[Size "3"]\n[Komi "2"]\n1. c3 c3 *\n'


def cuts(data: bytes, chunk_size: int, max_game_bytes: int = MAX_GAME_BYTES) -> list[object]:
    return [
        (g.data, g.piece.line, g.column_offset, g.piece.size, g.first_line, g.counts)
        for g in split_games(io.BytesIO(data), chunk_size=chunk_size, max_game_bytes=max_game_bytes)
    ]


def jsonl(path: Path | str, *extra: str) -> tuple[int, list[dict[str, object]]]:
    result = runner.invoke(app, ["check", "--format", "jsonl", *extra, str(path)])
    assert "Traceback" not in result.output
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines()]


# --- read boundaries ------------------------------------------------------------------


def test_a_bracket_in_a_tag_value_at_every_chunk_edge() -> None:
    data = b'[E "f]]['
    whole = cuts(data, 1 << 20)
    assert len(whole) == 1
    for size in (1, 2, 3, 6):
        assert cuts(data, size) == whole, size


@pytest.mark.parametrize("shift", [0, 1])
def test_a_bracket_in_a_tag_value_at_the_1_mib_read_boundary(tmp_path: Path, shift: int) -> None:
    game = '[Event "x]y"]\n[Komi "2"]\n[Size "3"]\n1. c3 button 2. pass pass B+5\n'
    filler = '[Event "f"]\n[Size "3"]\n{' + "p" * 1000 + "}\n1. c3 *\n\n"
    head = filler * ((1 << 20) // len(filler))
    pad = (1 << 20) - len(head) - len('[Event "x') + shift
    head = head.replace("{", "{" + "q" * (pad - 0), 1) if pad > 0 else head
    data = (head + game).encode()
    assert data.index(b"]y") in range((1 << 20) - 2, (1 << 20) + 2)
    path = tmp_path / "edge.keil"
    path.write_bytes(data)
    code, verdicts = jsonl(path)
    last = verdicts[-1]
    assert code == EXIT_FAILED  # B+5 is the wrong result: the tags were read, rules and all
    assert (last["status"], last["size"], last["komi"]) == ("mismatch", 3, 2.0)
    assert all(v["status"] == "unfinished" for v in verdicts[:-1])
    fmt = runner.invoke(app, ["fmt", "--check", str(path)])
    assert "Traceback" not in fmt.output and fmt.exception is None or isinstance(fmt.exception, SystemExit)
    assert fmt.exit_code in (EXIT_OK, EXIT_FAILED)


_VALUE = st.text(alphabet=st.sampled_from(list('ab]["{};\\ x') + ["é", "\t", "\u3000"]), max_size=8)
_COMMENT = st.lists(st.sampled_from(list("ab]{;[\"\n\r \\\u2028") + ['\n[T "v"]', "\n  [", '\n[T "a\\']), max_size=14).map("".join)


@st.composite
def archives(draw: st.DrawFn) -> bytes:
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append("\ufeff")
    for _ in range(draw(st.integers(1, 4))):
        for _ in range(draw(st.integers(0, 3))):
            value = draw(_VALUE).replace("\\", "\\\\").replace('"', '\\"') if draw(st.booleans()) else draw(_VALUE)
            parts.append(f'[{draw(st.sampled_from(["Event", "Size", "Komi", "X"]))} "{value}"]\n')
        for _ in range(draw(st.integers(0, 6))):
            parts.append(draw(st.sampled_from(["g7 ", "1. ", "pass ", "c3\r\n", "*\n", "B+R ", "; " , "\n", "\u3000", "\x1f", "\xa0\n"])))
            if draw(st.integers(0, 3)) == 0:
                parts.append("{" + draw(_COMMENT) + draw(st.sampled_from(["}", "", "}\n"])))
            if draw(st.integers(0, 5)) == 0:
                parts.append(";" + draw(_COMMENT).replace("\n", " ") + "\n")
        parts.append(draw(st.sampled_from(["\n", "\r\n", " ", "\n\n", ""])))
    return "".join(parts).encode("utf-8")


@settings(max_examples=150, deadline=None)
@given(archives())
def test_every_chunk_size_gives_the_same_games(data: bytes) -> None:
    expected = cuts(data, 1 << 20)
    for size in range(1, 65):
        assert cuts(data, size) == expected, size
    for cap in (8, 40):  # the cap on a game, at every chunk size too
        capped = cuts(data, 1 << 20, cap)
        for size in (1, 2, 3, 7, 64):
            assert cuts(data, size, cap) == capped, (cap, size)


# --- cutting an edited document again ----------------------------------------------------

# What an edit writes: the characters that decide where games end, a tag line,
# a byte order mark (white space anywhere but at the start), several lines.
_WRITTEN = st.lists(
    st.sampled_from(
        ["[", "]", "{", "}", '"', "\\", ";", "\n", "\r", "\r\n", " ", "g7 ", "*\n", "é", "\ufeff"]
        + ['\n[Event "e"]\n', '\n  [X "v"] ', "\n\n"]
    ),
    max_size=5,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(archives(), min_size=1, max_size=4).map(b"".join),
    st.lists(st.tuples(st.integers(0, 10**4), st.integers(0, 40), _WRITTEN), min_size=1, max_size=4),
    st.sampled_from([(1 << 20, MAX_GAME_BYTES), (1, MAX_GAME_BYTES), (7, MAX_GAME_BYTES), (1 << 20, 40)]),
)
def test_an_edit_cut_again_from_where_it_changed_is_the_cut_from_scratch(
    data: bytes, edits: list[tuple[int, int, str]], sizes: tuple[int, int]
) -> None:
    chunk_size, cap = sizes
    text = data.decode("utf-8")
    previous = cut(data, chunk_size=chunk_size, max_game_bytes=cap)
    for at, length, written in edits:
        at %= len(text) + 1
        text = text[:at] + written + text[at + length :]
        now = text.encode("utf-8")
        again = recut(previous, now, chunk_size=chunk_size, max_game_bytes=cap)
        assert again == cut(now, chunk_size=chunk_size, max_game_bytes=cap)
        previous = again


def test_an_edit_in_a_long_document_cuts_again_only_the_game_it_is_in(monkeypatch: pytest.MonkeyPatch) -> None:
    games = [f'[Event "g{n}"]\n[Size "3"]\n[Komi "2"]\n\n1. c3 button 2. pass pass B+5\n\n' for n in range(200)]
    data = "".join(games).encode()
    previous = cut(data)
    recuts: list[GameBytes] = []

    def counted(*args: Any, **kwargs: Any) -> Iterator[GameBytes]:
        for game in split_games(*args, **kwargs):
            recuts.append(game)
            yield game

    monkeypatch.setattr(cutting, "split_games", counted)
    # Game 100's result: it is cut again, and the game after it, where the old cut resumes.
    result = data.index(b"B+5", data.index(b'"g100"'))
    edited = data[:result] + b"B+9" + data[result + 3 :]
    again = recut(previous, edited)
    assert [g.data for g in recuts] == [games[100].replace("B+5", "B+9").encode(), games[101].encode()]
    assert again == cut(edited)
    assert all(a is b for a, b in zip(again.games[101:], previous.games[101:]))
    # Game 150's first line: the game before it ended by that line, so it is cut again too.
    recuts.clear()
    renamed = edited.replace(b'"g150"', b'"g150b"')
    third = recut(again, renamed)
    assert [g.data[:15] for g in recuts] == [b'[Event "g149"]\n', b'[Event "g150b"]', b'[Event "g151"]\n']
    assert third == cut(renamed)
    # A line more in game 150: the games after it are the old ones, a line further down.
    recuts.clear()
    moves = edited.index(b"1. c3", edited.index(b'"g150"'))
    longer = edited[:moves] + b"{a note}\n" + edited[moves:]
    last = recut(again, longer)
    assert [g.data[:15] for g in recuts] == [b'[Event "g150"]\n', b'[Event "g151"]\n']
    assert last == cut(longer)
    assert [g.piece.line for g in last.games[151:]] == [g.piece.line + 1 for g in again.games[151:]]


# --- an unclosed comment over later games -----------------------------------------------


def test_an_unclosed_comment_no_longer_hides_the_games_after_it(tmp_path: Path) -> None:
    path = tmp_path / "swallow.keil"
    path.write_text('[Size "3"]\n[Komi "2"]\n1. c3 {forgot\n\n' + ILLEGAL + "\n" + GOOD + "{closes here}\n", encoding="utf-8")
    code, verdicts = jsonl(path)
    assert code == EXIT_FAILED
    assert [v["status"] for v in verdicts] == ["error", "illegal", "ok"]
    error = verdicts[0]["error"]
    assert isinstance(error, dict) and (error["line"], error["column"]) == (3, 7)
    assert "a '}' is probably missing" in str(error["message"]) and "line 5" in str(error["message"])


def test_a_bracket_line_that_is_not_a_tag_stays_inside_the_comment() -> None:
    text = '[Size "3"]\n[Komi "2"]\n1. c3 {see\n[a note] and\n[Size 3]\n} button 2. pass pass\n'
    (record,) = iter_games(io.BytesIO(text.encode()))
    assert isinstance(record, Record) and len(record.turns) == 4


# --- linear time ---------------------------------------------------------------------------


def _seconds(data: bytes) -> float:
    start = time.perf_counter()
    for _ in split_games(io.BytesIO(data), chunk_size=1 << 16):
        pass
    return time.perf_counter() - start


@pytest.mark.parametrize(
    "make",
    [
        lambda n: b'[A "1"] g7 {' + b"x" * n + b"}\n",  # one long closed comment, one line
        lambda n: b'[A "1"] g7 {' + b"x\n" * (n // 2) + b"}\n",  # ... of many lines
        lambda n: b'[A "1"] g7 {\n[A "' + b"v" * n + b"\n}",  # a long tag-like line inside it
        lambda n: b'[A "1"] g7 {oops\n\n' * (n // 20),  # many games, each with an unclosed '{'
    ],
    ids=["comment", "comment-lines", "tag-like-line", "unclosed"],
)
def test_scanning_time_grows_linearly(make: object) -> None:
    assert callable(make)
    small, big = make(1_000_000), make(8_000_000)
    t_small = min(_seconds(small) for _ in range(2))
    t_big = min(_seconds(big) for _ in range(2))
    assert t_big / max(t_small, 5e-3) < 30, (t_small, t_big)  # 8x the input; quadratic would be 64x


def _read_seconds(text: str) -> tuple[list[Record | RecordError], float]:
    """The games of ``text`` through the public reader, and the best time of
    three reads (the host is shared), the cyclic collector paused: the growth
    looked for is the reader's, not the collector's (which visits more
    objects as a game grows)."""
    best = float("inf")
    items: list[Record | RecordError] = []
    for _ in range(3):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            items = list(read_games(text))
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return items, best


_HEAD = '[Size "3"]\n[Komi "2"]\n'
_RESULT_FORMS = "B+<margin>, W+<margin>, B+R, W+R, B+T, W+T, B+F, W+F, B+, W+, Draw or *"


def _found(word: str, expected: str, hint: str = "") -> str:
    shown = word[:40]
    return f"found '{shown}'; expected {expected}" + hint.format(shown)


# Each shape: the text for a size n, and what reading it gives: an error's
# (message, line, column), or the number of comments a game's tag or first
# turn holds.
_LONG_SHAPES: dict[str, tuple[Callable[[int], str], Callable[[int], tuple[str, int, int]]]] = {
    "digits without a dot": (
        lambda n: _HEAD + "1. c3 " + "1" * n + "\n",
        lambda n: (
            _found("1" * n, "a move, a comment or a result", " (a move number ends with a dot: '{0}.' or '{0}...')"),
            3,
            7,
        ),
    ),
    "unquoted tag value": (
        lambda n: "[Date " + "9" * n + "]\n" + _HEAD + "1. c3 *\n",
        lambda n: (_found("9" * n, "a tag value in double quotes"), 1, 7),
    ),
    "point with a long row": (
        lambda n: _HEAD + "c3 a" + "1" * n + "\n",
        lambda n: (_found("a" + "1" * n, "a move, a comment or a result"), 3, 4),
    ),
    "result with a long margin": (
        lambda n: _HEAD + "1. c3 B+" + "9" * n + "x\n",
        lambda n: (
            _found("B+" + "9" * n, "a move, a comment or a result", f" ('{{0}}' is not a result: results are {_RESULT_FORMS})"),
            3,
            7,
        ),
    ),
}
_COMMENT_SHAPES: dict[str, tuple[Callable[[int], str], str]] = {
    "after a turn": (lambda n: _HEAD + "1. c3 " + "{c}" * n + " button 2. pass pass\n", "turn"),
    "after a turn, one a line": (lambda n: _HEAD + "1. c3 " + ";c\n" * n + "button 2. pass pass\n", "turn"),
    "after a tag": (lambda n: '[Size "3"]' + "{c}" * n + '\n[Komi "2"]\n1. c3 button 2. pass pass\n', "tag"),
    "after a move number": (lambda n: _HEAD + "1. " + "{c}" * n + " c3 button 2. pass pass\n", "turn"),
}


@pytest.mark.parametrize("shape", list(_LONG_SHAPES))
def test_a_long_run_that_is_no_token_reads_in_linear_time(shape: str) -> None:
    # Tried at each character of the run, a token pattern would read the rest
    # of the run each time: 4x the run, 16x the time.
    make, expect = _LONG_SHAPES[shape]
    times = []
    for n in (10_000, 40_000):
        items, seconds = _read_seconds(make(n))
        (error,) = items
        assert isinstance(error, RecordError)
        assert (error.message, error.line, error.column) == expect(n)
        times.append(seconds)
    small, big = times
    assert big / max(small, 5e-3) < 8, (small, big)  # 4x the input; quadratic would be 16x


@pytest.mark.parametrize("shape", list(_COMMENT_SHAPES))
@pytest.mark.parametrize("fault", ["", " oops"], ids=["well-formed", "read-by-the-grammar"])
def test_many_comments_read_in_linear_time(shape: str, fault: str) -> None:
    # A fault at the end makes the scanner decline: the grammar then reads
    # every comment too.
    make, owner = _COMMENT_SHAPES[shape]
    times = []
    for n in (20_000, 80_000):
        items, seconds = _read_seconds(make(n) + fault)
        (item,) = items
        if fault:
            assert isinstance(item, RecordError) and item.message.startswith("found 'oops'")
        else:
            assert isinstance(item, Record)
            comments = item.tags[0].comments if owner == "tag" else item.turns[0].comments
            assert len(comments) == n and {c.text for c in comments} == {"c"}
        times.append(seconds)
    small, big = times
    assert big / max(small, 5e-3) < 8, (small, big)  # 4x the comments; quadratic would be 16x
    if not fault:
        (verdict,) = check_text(make(100))
        assert verdict.status.value == "ok" and verdict.computed == "B+16.5", verdict


# --- caps ------------------------------------------------------------------------------------


def test_a_game_over_the_byte_cap_is_an_error_at_its_first_line_and_the_rest_is_read() -> None:
    big = '\n[Event "big"]\n1. g7 {' + "x" * 500 + "}\n*\n"
    data = (GOOD + big + GOOD).encode()
    for size in (1, 7, 1 << 20):
        items = list(iter_games(io.BytesIO(data), "c.keil", chunk_size=size, max_game_bytes=200))
        assert [type(i) for i in items] == [Record, RecordError, Record], size
        err = items[1]
        assert isinstance(err, RecordError) and "game too large" in err.message
        assert (err.line, err.column) == (5, 1)
        assert isinstance(items[2], Record) and items[2].line == 8


def test_the_caps_are_documented_numbers() -> None:
    assert (MAX_GAME_BYTES, MAX_TURNS) == (10_000_000, 1_000_000)
    root = Path(__file__).resolve().parent.parent
    for doc in ("README.md", "docs/record-format.md"):
        text = (root / doc).read_text(encoding="utf-8")
        assert "10,000,000 bytes" in text and "1,000,000 turns" in text, doc


def test_a_game_over_the_turn_cap_is_an_error_at_its_first_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    import keilref.records.limits

    monkeypatch.setattr(keilref.records.limits, "MAX_TURNS", 4)
    text = '[Size "3"]\n[Komi "2"]\n1. c3 b2 2. a1 c1 3. b1 *\n\n' + GOOD
    first, second = iter_games(io.BytesIO(text.encode()))
    assert isinstance(first, RecordError) and "too many turns" in first.message
    assert (first.line, first.column) == (1, 1)
    assert isinstance(second, Record)


# --- jobs, special files, directories ------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "1025", "99999999999", "-3"])
def test_absurd_jobs_are_usage_errors(value: str) -> None:
    result = runner.invoke(app, ["check", "--jobs", value, "-"], input=GOOD)
    assert result.exit_code == EXIT_USAGE
    assert len(result.stderr.strip().splitlines()) == 1 and "--jobs" in result.stderr


def test_jobs_beyond_the_cores_are_lowered_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("keilref.referee.batches.default_jobs", lambda: 2)
    result = runner.invoke(app, ["check", "--jobs", "1000", "--format", "jsonl", "-"], input=GOOD)
    assert result.exit_code == EXIT_OK
    assert result.stderr.strip() == "keilref: --jobs 1000 is more than the 2 cores here: using 2"
    assert json.loads(result.stdout)["status"] == "ok"


def test_a_device_given_by_name_is_refused() -> None:
    result = runner.invoke(app, ["check", "/dev/zero"])
    assert result.exit_code == EXIT_USAGE
    assert "not a regular file" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_directory_search_takes_regular_files_only(tmp_path: Path) -> None:
    (tmp_path / "a.keil").write_text(GOOD, encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.keil")  # no writer: opening it would block
    assert [s.name for s in expand_paths([str(tmp_path)])] == [str(tmp_path / "a.keil")]


def linked_tree(tmp_path: Path) -> Path:
    """A tree with a record of its own, and links out of it: to a record, to a
    directory of records, and one that names nothing."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.keil").write_text(ILLEGAL, encoding="utf-8")
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "ours.keil").write_text(GOOD, encoding="utf-8")
    (tree / "sub" / "link.keil").symlink_to(outside / "theirs.keil")
    (tree / "dir-link").symlink_to(outside, target_is_directory=True)
    (tree / "dangling.keil").symlink_to(tmp_path / "missing.keil")
    return tree


def skipped_note(tree: Path) -> str:
    return (
        f"keilref: note: {tree}: 3 symbolic link(s) not followed, the first {tree / 'dangling.keil'} "
        "(a directory search stays inside the directory; give a link by name to read it)\n"
    )


def test_a_directory_search_follows_no_symbolic_link(tmp_path: Path) -> None:
    tree = linked_tree(tmp_path)
    notes: list[str] = []
    sources = expand_paths([str(tree)], on_note=notes.append)
    assert [s.name for s in sources] == [str(tree / "sub" / "ours.keil")]
    assert notes == [skipped_note(tree).removeprefix("keilref: note: ").rstrip("\n")]
    assert [s.name for s in expand_paths([str(tree)], compressed=True)] == [str(tree / "sub" / "ours.keil")]


def test_a_link_given_by_name_is_read(tmp_path: Path) -> None:
    """Reading through a link harms nothing: only a search keeps off them."""
    link = linked_tree(tmp_path) / "sub" / "link.keil"
    code, verdicts = jsonl(link)
    assert code == EXIT_FAILED
    assert [(v["file"], v["status"]) for v in verdicts] == [(str(link), "illegal")]


@pytest.mark.parametrize(
    ("command", "code", "stdout"),
    [
        (["check", "--format", "jsonl"], EXIT_OK, '"file": "{ours}"'),
        (["fmt", "--check"], EXIT_OK, ""),
        (["stats", "--format", "json"], EXIT_OK, '"games": 1'),
        (["filter"], EXIT_OK, GOOD),
    ],
)
def test_every_command_searches_a_directory_the_same_way(
    tmp_path: Path, command: list[str], code: int, stdout: str
) -> None:
    tree = linked_tree(tmp_path)
    ours = tree / "sub" / "ours.keil"
    if command[0] == "fmt":
        assert runner.invoke(app, ["fmt", "--in-place", str(ours)]).exit_code == EXIT_OK
    result = runner.invoke(app, [*command, str(tree)])
    assert "Traceback" not in result.output
    assert result.exit_code == code, result.output
    assert result.stderr.startswith(skipped_note(tree))
    assert stdout.format(ours=ours) in result.stdout
    assert "theirs" not in result.output and "dangling" not in result.stdout


def test_an_unreadable_subdirectory_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "g.keil").write_text(GOOD, encoding="utf-8")
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir
    locked = str(tmp_path / "locked")

    def scandir(path: str) -> object:  # root ignores permissions: pretend instead
        if str(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, verdicts = jsonl(tmp_path)
    assert code == EXIT_FAILED
    assert [(v["file"], v["status"]) for v in verdicts] == [(str(tmp_path / "a" / "g.keil"), "ok"), (locked, "error")]
    error = verdicts[1]["error"]
    assert isinstance(error, dict) and error["message"] == "cannot read directory: Permission denied"


# --- one line of output per game ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "jsonl", "github"])
def test_control_characters_never_break_a_line(fmt: str) -> None:
    text = '[\r"x"]\n1. g7\n\n[Rules "a\x1b[2J\u2028\x85b"]\n1. g7 *\n\n[E "1"]\n1. g7 {\r} z\r9\n'
    result = runner.invoke(app, ["check", "--format", fmt, "-"], input=text)
    assert result.exit_code == EXIT_FAILED
    lines = result.stdout.splitlines()
    assert len(lines) == 3 + (fmt == "text"), lines
    assert not any(c in result.stdout for c in "\r\x1b\u2028\x85")
    if fmt == "text":
        assert "found U+000D (carriage return, a control character)" in lines[0]


@pytest.mark.parametrize("fmt", ["text", "jsonl", "junit", "github"])
def test_a_file_name_that_is_not_utf8_is_written_escaped(tmp_path: Path, fmt: str) -> None:
    name = os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad\xff.keil")
    Path(name).write_text(ILLEGAL, encoding="utf-8")
    result = runner.invoke(app, ["check", "--format", fmt, name])
    assert result.exit_code == EXIT_FAILED
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    if fmt != "jsonl":
        assert "bad\\xff.keil" in result.stdout
    else:
        assert json.loads(result.stdout)["file"].endswith("bad\\xff.keil")
