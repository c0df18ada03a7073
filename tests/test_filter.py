"""keilref filter: criteria on records/, duplicates planted in generated
archives, and output that checks with the same verdicts as its sources."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli_support import ROOT, run
from keilref.referee import filter as filtering
from keilref.records.sources import expand_paths, read_source
from keilref.cli import EXIT_OK, EXIT_USAGE
from keilref.engine.generate import random_games, to_record
from keilref.records.record import Comment, Record, Tag
from keilref.records.writer import write_record

RECORDS = ROOT / "records"


def _verdicts(*args: str, input: bytes | None = None) -> list[dict[str, Any]]:
    from typer.testing import CliRunner

    from keilref.cli import app

    result = CliRunner().invoke(app, ["check", "--format", "jsonl", *args], input=input)
    return [json.loads(line) for line in result.stdout.splitlines()]


def _position_free(v: dict[str, Any]) -> str:
    """A verdict without where it is: file, game index, lines."""
    v = dict(v)
    for key in ("file", "game", "line"):
        v.pop(key)
    for key in ("illegal", "error"):
        if v[key] is not None:
            v[key] = {k: x for k, x in v[key].items() if k != "line"}
    if v["error"] is not None:
        # Messages may name another line of the same game ("first on line 4").
        v["error"]["message"] = re.sub(r"line \d+", "line N", v["error"]["message"])
    # A variation is named by where its "(" stands in the file.
    v["warnings"] = [re.sub(r"variation at \d+:\d+", "variation at L:C", w) for w in v["warnings"]]
    for fault in v.get("variation_illegal", []):
        fault.pop("line")
        fault["opened_at"].pop("line")
    v["warning_places"] = [
        {**{k: x for k, x in w.items() if k != "line"}, "message": re.sub(r"variation at \d+:\d+", "variation at L:C", w["message"])}
        for w in v["warning_places"]
    ]
    if v["mismatch"] is not None:
        v["mismatch"] = {k: x for k, x in v["mismatch"].items() if k != "line"}
    return json.dumps(v, sort_keys=True)


def _filter(*args: str, input: bytes | None = None) -> tuple[bytes, list[str]]:
    """The games written (stdout) and the notes (stderr)."""
    from typer.testing import CliRunner

    from keilref.cli import app

    result = CliRunner().invoke(app, ["filter", *args], input=input)
    assert result.exit_code == EXIT_OK, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout_bytes, result.stderr.splitlines()


def _recheck(output: bytes) -> list[dict[str, Any]]:
    return _verdicts("-", input=output)


@pytest.mark.parametrize(
    "args,keep",
    [
        (["--status", "illegal"], lambda v: v["status"] == "illegal"),
        (["--status", "ok", "--status", "unfinished"], lambda v: v["status"] in ("ok", "unfinished")),
        (["--rules", "yugo"], lambda v: v["rules"] == "yugo"),
        (["--rules", "dehil", "--status", "mismatch"], lambda v: v["rules"] == "dehil" and v["status"] == "mismatch"),
        (["--size", "5"], lambda v: v["size"] == 5),
        (["--min-turns", "40"], lambda v: v["turns"] >= 40),
        (["--rule-sensitive"], lambda v: v["rule_sensitive"]),
    ],
    ids=["illegal", "ok-or-unfinished", "yugo", "dehil-mismatch", "size5", "min-turns", "rule-sensitive"],
)
def test_filter_on_records_keeps_exactly_the_games_check_says_match(args: list[str], keep: Any) -> None:
    everything = _verdicts(str(RECORDS))
    expected = sorted(_position_free(v) for v in everything if keep(v))
    assert expected, "the criterion must select something in records/"
    assert len(expected) < len(everything), "... and leave something out"
    out, notes = _filter(str(RECORDS), *args)
    assert sorted(_position_free(v) for v in _recheck(out)) == expected
    assert notes[-1] == f"keilref: {len(expected)} of {len(everything)} games written"


def _tags_of(path: Path) -> list[dict[str, str]]:
    out = []
    for source in expand_paths([str(path)]):
        for item in read_source(source):
            if isinstance(item, Record):
                out.append({t.name: t.value for t in item.tags})
    return out


def test_filter_by_player_and_tag() -> None:
    games = _tags_of(RECORDS)
    with_rey = [t for t in games if "rey" in (t.get("Black", "") + "|" + t.get("White", "")).lower()]
    assert len(with_rey) >= 1
    out, _ = _filter(str(RECORDS), "--player", "REY")
    written = _recheck(out)
    assert len(written) == len(with_rey)
    events = re.findall(rb'\[Event "([^"]*)"\]', out)
    assert sorted(e.decode() for e in events) == sorted(t["Event"] for t in with_rey)

    sites = Counter(t["Site"] for t in games if "Site" in t)
    site, count = sites.most_common(1)[0]
    out, _ = _filter(str(RECORDS), "--tag", f"Site={site}")
    assert out.count(f'[Site "{site}"]'.encode()) == count == len(_recheck(out))
    # Both players must match when two are given.
    some = next(t for t in games if "Black" in t and "White" in t)
    out, _ = _filter(str(RECORDS), "--player", some["Black"], "--player", some["White"])
    assert len(_recheck(out)) >= 1
    out, _ = _filter(str(RECORDS), "--player", some["Black"], "--player", "nobody at all")
    assert out == b""


def test_filter_writes_the_original_bytes_with_their_comments(tmp_path: Path) -> None:
    source = RECORDS / "games" / "size6-keil-rule-sensitive.keil"
    out, _ = _filter(str(source))
    assert out == source.read_bytes()
    target = tmp_path / "out.keil"
    _, notes = _filter(str(RECORDS / "games"), "--rule-sensitive", "-o", str(target))
    position = RECORDS / "games" / "size4-keil-finished-position-rule-sensitive.keil"
    assert target.read_bytes() == position.read_bytes() + b"\n" + source.read_bytes()
    assert notes == [f"keilref: 2 of {len(_verdicts(str(RECORDS / 'games')))} games written"]


def test_everything_filtered_rechecks_with_the_same_verdicts() -> None:
    games = [v for v in _verdicts(str(RECORDS)) if v["error"] is None or v["error"]["message"] != "no game in file"]
    before = sorted(_position_free(v) for v in games)
    out, notes = _filter(str(RECORDS))
    assert sorted(_position_free(v) for v in _recheck(out)) == before
    assert any("no game in file: nothing to write" in n for n in notes)


def test_a_game_with_a_comment_never_closed_goes_last() -> None:
    """Written before other games, its open comment would run into theirs."""
    broken = RECORDS / "faults" / "error-unterminated-comment.keil"
    later = RECORDS / "games" / "size7-keil-invasion-annotated.keil"
    out, _ = _filter(str(broken), str(later))
    verdicts = _recheck(out)
    assert [v["status"] for v in verdicts] == ["ok", "error"]
    assert verdicts[1]["error"]["message"].startswith("comment never closed")


# --- duplicates ------------------------------------------------------------


def _archive(path: Path, records: list[Record]) -> Path:
    path.write_text("\n".join(write_record(r) for r in records), encoding="utf-8")
    return path


def _generated(seed: int, n: int, **kw: Any) -> list[Record]:
    return [to_record(g, event=f"seed {seed} game {i}") for i, g in enumerate(random_games(seed, n, **kw), 1)]


def _disguised(r: Record, label: str) -> Record:
    """The same game with other tags and comments (and another komi)."""
    tags = tuple(Tag("Event", label) if t.name == "Event" else t for t in r.tags if t.name not in ("Komi", "Result"))
    tags += (Tag("Annotator", "someone"),)
    return Record(tags=tags, turns=r.turns, result=None, head_comments=(Comment("copied"),))


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path, list[Record]]:
    """50 distinct generated games; a second file with copies of games 3 and 7
    (game 7 twice), disguised, and 5 new games."""
    base = _generated(1, 50, sizes=(3, 4))
    assert len({tuple(t.move for t in r.turns) for r in base}) == 50
    first = _archive(tmp_path / "first.keil", base)
    copies = [
        _disguised(base[2], "copy of 3"),
        *_generated(2, 5, sizes=(5,)),
        _disguised(base[6], "copy of 7"),
        _disguised(base[6], "again 7"),
    ]
    second = _archive(tmp_path / "second.keil", copies)
    return first, second, base


def _line_of(path: Path, game: int) -> int:
    lines = [i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("[Event")]
    return lines[game - 1]


def test_duplicates_are_found_and_their_first_appearance_named(planted: tuple[Path, Path, list[Record]]) -> None:
    first, second, _ = planted
    out, notes = _filter(str(first), str(second), "--duplicates")
    events = re.findall(rb'\[Event "([^"]*)"\]', out)
    assert events == [b"copy of 3", b"copy of 7", b"again 7"]
    assert notes[:3] == [
        f"keilref: {second}:{_line_of(second, 1)} (game 1): duplicate of {first}:{_line_of(first, 3)} (game 3)",
        f"keilref: {second}:{_line_of(second, 7)} (game 7): duplicate of {first}:{_line_of(first, 7)} (game 7)",
        f"keilref: {second}:{_line_of(second, 8)} (game 8): duplicate of {first}:{_line_of(first, 7)} (game 7)",
    ]
    assert notes[3] == "keilref: 3 of 58 games written; 3 duplicates"


def test_unique_leaves_out_the_repeats(planted: tuple[Path, Path, list[Record]]) -> None:
    first, second, _ = planted
    out, notes = _filter(str(first), str(second), "--unique")
    verdicts = _recheck(out)
    assert len(verdicts) == 55
    assert b"copy of" not in out and b"again" not in out
    assert notes[-1] == "keilref: 55 of 58 games written; 3 duplicates"


def test_the_same_moves_under_other_rules_are_not_duplicates(tmp_path: Path) -> None:
    (r,) = _generated(3, 1, sizes=(3,))
    tags = tuple(Tag("Rules", "keil-2019") if t.name == "Rules" else t for t in r.tags if t.name != "Result")
    other = Record(tags=tags, turns=r.turns)
    path = _archive(tmp_path / "two.keil", [r, other])
    out, notes = _filter(str(path), "--duplicates")
    assert out == b"" and notes[-1].endswith("; 0 duplicates")


def test_a_digest_collision_is_caught_by_the_exact_comparison(
    planted: tuple[Path, Path, list[Record]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every digest the same, only the exact comparison tells games apart."""
    first, second, _ = planted
    monkeypatch.setattr(filtering, "_digest", lambda text: b"same")
    out, notes = _filter(str(first), str(second), "--duplicates", "--jobs", "1")
    assert re.findall(rb'\[Event "([^"]*)"\]', out) == [b"copy of 3", b"copy of 7", b"again 7"]
    assert notes[-1] == "keilref: 3 of 58 games written; 3 duplicates"


def test_duplicates_from_standard_input(planted: tuple[Path, Path, list[Record]]) -> None:
    first, second, _ = planted
    out, notes = _filter(str(first), "-", "--duplicates", input=second.read_bytes())
    assert re.findall(rb'\[Event "([^"]*)"\]', out) == [b"copy of 3", b"copy of 7", b"again 7"]
    assert notes[0].startswith(f"keilref: -:{_line_of(second, 1)} (game 1): duplicate of {first}:")


def test_the_duplicates_in_records_are_the_faults_copied_from_good_games() -> None:
    """Several faults are good games with a wrong result or tag: the same game."""
    seen: dict[tuple[str, str, tuple[str, ...]], str] = {}
    expected = []
    for source in expand_paths([str(RECORDS)]):
        for item in read_source(source):
            if not isinstance(item, Record):
                continue
            rules = item.tag_value("Rules") or "keil"
            default = {"yugo": "13", "dehil": "9"}.get(rules, "7")
            key = (rules, item.tag_value("Size") or default, tuple(t.move for t in item.turns))
            if key in seen:
                expected.append((source.name, item.line, seen[key]))
            else:
                seen[key] = source.name
    assert len(expected) >= 3
    out, notes = _filter(str(RECORDS), "--duplicates")
    pattern = re.compile(r"keilref: (.*):(\d+) \(game \d+\): duplicate of (.*):\d+ \(game \d+\)")
    found = [(m.group(1), int(m.group(2)), m.group(3)) for m in map(pattern.fullmatch, notes) if m]
    assert found == expected
    assert len(_recheck(out)) == len(expected)


def test_a_file_twice_is_all_duplicates(tmp_path: Path) -> None:
    games = RECORDS / "games"
    n = len(_verdicts(str(games)))
    copy = tmp_path / "copy.keil"
    copy.write_bytes(b"".join(p.read_bytes() + b"\n" for p in sorted(games.rglob("*.keil"))))
    out, notes = _filter(str(games), str(copy), "--duplicates")
    # A record with a Site and a GameId is a match: given twice, it is one game, not a duplicate.
    matches = sum(b"[GameId " in p.read_bytes() for p in games.rglob("*.keil"))
    assert matches == 1
    assert len(_recheck(out)) == n - matches
    assert notes[-1] == f"keilref: {n - matches} of {2 * n - matches} games written; {n - matches} duplicates"


def test_filter_usage_errors() -> None:
    assert run("filter", "records", "--duplicates", "--unique").exit_code == EXIT_USAGE
    assert run("filter", "records", "--status", "fine").exit_code == EXIT_USAGE
    assert run("filter", "records", "--rules", "go").exit_code == EXIT_USAGE
    assert run("filter", "records", "--tag", "Site").exit_code == EXIT_USAGE
    assert run("filter", "no/such/file.keil").exit_code == EXIT_USAGE


def test_the_readme_duplicates_example_is_what_filter_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """That README block shows standard error, which the README runner does not see."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(keilref filter [^\n]*--duplicates[^\n]*)\n(.*?)```", readme, re.DOTALL)
    assert block is not None
    monkeypatch.chdir(ROOT)
    args = block.group(1).split()[1:]
    from typer.testing import CliRunner

    from keilref.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == EXIT_OK
    assert result.stderr == block.group(2)


def test_a_misspelt_status_gets_a_suggestion_and_case_is_ignored(tmp_path: Path) -> None:
    from cli_support import run

    wrong = run("filter", "--status", "ilegal", str(RECORDS / "games"))
    assert wrong.exit_code == 2
    assert "did you mean 'illegal'?" in wrong.stderr
    upper = run("filter", "--status", "OK", "--min-turns", "99999", str(RECORDS / "games"))
    assert upper.exit_code == 0


def test_help_names_values_as_a_user_writes_them() -> None:
    from cli_support import run

    for command in ("filter", "stats", "check"):
        text = run(command, "--help").stdout
        assert "<" not in text and "list[" not in text and "int range" not in text, command
    jobs = run("check", "--jobs", "0", str(RECORDS / "games"))
    assert jobs.exit_code == 2
    assert "0 is not a number of processes: give 1 to 1,024" in jobs.stderr
    assert "Input should be" not in jobs.stderr


class _Unseekable(io.RawIOBase):
    """A stream read only forward, in short reads, as a decoding one is."""

    def __init__(self, data: bytes) -> None:
        self._data, self._at = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), 7, len(self._data) - self._at)
        buffer[:n] = self._data[self._at : self._at + n]
        self._at += n
        return n


@given(st.binary(max_size=200), st.data())
def test_a_game_is_read_back_alike_from_a_stream_that_cannot_seek(data: bytes, draw: st.DataObject) -> None:
    start = draw.draw(st.integers(0, len(data)))
    length = draw.draw(st.integers(0, len(data) - start))
    seekable = io.BytesIO(data)
    forward = io.BufferedReader(_Unseekable(data))
    head = seekable.read(3)
    assert forward.read(3) == head
    assert filtering._read_at(forward, head, start, length) == filtering._read_at(seekable, head, start, length)
    assert filtering._read_at(io.BytesIO(data), b"", start, length) == data[start : start + length]


def test_duplicates_are_found_in_a_file_read_through_another_encoding(tmp_path: Path) -> None:
    game = (ROOT / "records/games/size5-keil-corner-ko.keil").read_text(encoding="utf-8").replace("Lugo", "Logro\u00f1o")
    (tmp_path / "old.keil").write_bytes((game + "\n" + game).encode("cp1252"))
    result = run("filter", "--duplicates", "--encoding", "cp1252", str(tmp_path / "old.keil"))
    assert result.exit_code == EXIT_OK
    assert result.stdout.count("Logro\u00f1o") == 1
    assert result.stderr.endswith("keilref: 1 of 2 games written; 1 duplicate\n")
