"""Archive scale: parallel = serial, streaming, JUnit and GitHub output, the generator."""

from __future__ import annotations

import functools
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from keilref.formats import junit
from keilref.formats.jsonl import json_line
from keilref.referee.batches import check_sources
from keilref.records.sources import Source, expand_paths
from keilref.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, app
from keilref.engine.generate import random_game, random_games, to_record
from keilref.records.parser import iter_games
from keilref.formats import FORMATS, LINE_FORMATS, CheckOptions, judge
from keilref.referee.batches import judged_sources
from keilref.referee.verdict import Status, adjudicate
from keilref.records.writer import write_record, write_records

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "records" / "games"
FAULTS = ROOT / "records" / "faults"
runner = CliRunner()


def _lines(sources: list[Source], jobs: int) -> list[str]:
    return [
        json_line(v)
        for v in check_sources(sources, jobs=jobs, parallel_threshold=0)
    ]


@pytest.mark.parametrize("part", [GAMES, FAULTS], ids=["games", "faults"])
def test_parallel_output_is_identical_to_serial(part: Path) -> None:
    sources = expand_paths([str(part)])
    serial = _lines(sources, jobs=1)
    parallel = _lines(sources, jobs=2)
    assert len(serial) >= 10
    assert serial == parallel


@pytest.mark.parametrize("fmt", LINE_FORMATS)
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("jobs", [1, 2])
def test_verdicts_printed_where_they_are_judged_are_the_printers_own(
    tmp_path: Path, fmt: str, strict: bool, jobs: int
) -> None:
    # A parallel check of a line format prints each verdict in its worker;
    # every game must get exactly what the printer makes of its verdict.
    games = [write_record(to_record(g, event=f"g{i}")) for i, g in enumerate(random_games(8, 300, sizes=(2, 3), fill=0.5))]
    games[100] = games[100].replace("\n\n1. ", "\n\n1. a9 ", 1)
    games[200] = games[200].replace("[Komi ", "[Komi \"x\"] [K ", 1)
    games[250] = games[250].replace('[Button "yes"]\n', "", 1)  # a warning: no Button tag
    assert '[Button "yes"]' not in games[250]
    path = tmp_path / "mixed.keil"
    path.write_text("\n".join(games), encoding="utf-8")
    sources = [Source(str(path)), *expand_paths([str(GAMES), str(FAULTS)])]
    verdicts = list(check_sources(sources, jobs=1))
    writer, options = FORMATS[fmt].writer_class(), CheckOptions(format=fmt, strict=strict)
    each = functools.partial(judge, writer=writer, options=options)
    printed = list(judged_sources(sources, each, jobs=jobs, parallel_threshold=0))
    assert [p.text for p in printed] == [writer.lines(v, options) for v in verdicts]
    assert [(p.status, p.warned, p.fails) for p in printed] == [
        (v.status.value, bool(v.warnings), v.fails(strict=strict)) for v in verdicts
    ]
    statuses = {p.status for p in printed}
    assert {"ok", "illegal", "error", "mismatch"} <= statuses and any(p.warned for p in printed)


def test_parallel_keeps_order_across_many_batches(tmp_path: Path) -> None:
    # More games than one batch holds, with a broken game in the middle, so
    # that order and game numbering are exercised across batch boundaries.
    games = [write_record(to_record(g, event=f"g{i}")) for i, g in enumerate(random_games(3, 600, sizes=(2, 3), fill=0.5))]
    games[317] = games[317].replace("\n\n1. ", "\n\n1. @@ ", 1)
    assert "@@" in games[317]
    path = tmp_path / "many.keil"
    path.write_text("\n".join(games), encoding="utf-8")
    sources = [Source(str(path))]
    serial = _lines(sources, jobs=1)
    parallel = _lines(sources, jobs=2)
    assert serial == parallel
    parsed = [json.loads(line) for line in serial]
    assert [p["game"] for p in parsed] == list(range(1, 601))
    assert parsed[317]["status"] == "error"
    assert sum(p["status"] == "ok" for p in parsed) == 599


def test_cli_jobs_flag_gives_same_bytes() -> None:
    one = runner.invoke(app, ["check", "--jobs", "1", "--format", "jsonl", str(GAMES), str(FAULTS)])
    two = runner.invoke(app, ["check", "--jobs", "2", "--format", "jsonl", str(GAMES), str(FAULTS)])
    assert one.exit_code == two.exit_code == EXIT_FAILED
    assert one.stdout == two.stdout


def test_junit_parses_with_one_testcase_per_game() -> None:
    result = runner.invoke(app, ["check", "--format", "junit", str(GAMES), str(FAULTS)])
    assert result.exit_code == EXIT_FAILED
    root = ET.fromstring(result.stdout)
    cases = root.findall("./testsuite/testcase")
    jsonl = runner.invoke(app, ["check", "--format", "jsonl", str(GAMES), str(FAULTS)]).stdout.splitlines()
    verdicts = [json.loads(line) for line in jsonl]
    assert len(cases) == len(verdicts) == int(root.get("tests", "-1"))
    failing = [v for v in verdicts if v["status"] in ("mismatch", "illegal", "error")]
    assert int(root.get("failures", "-1")) == len(failing)
    failures = root.findall("./testsuite/testcase/failure")
    assert len(failures) == len(failing)
    reasons = {f.get("message") for f in failures}
    assert {"superko", "suicide", "mismatch", "error"} <= reasons
    for suite in root.findall("testsuite"):
        assert int(suite.get("tests", "-1")) == len(suite.findall("testcase"))


def test_junit_streams_many_suites_and_cases() -> None:
    verdicts = []
    for i, g in enumerate(random_games(5, 40, sizes=(2,), fill=0.3)):
        record = to_record(g, event="x")
        verdicts.append(adjudicate(record, file=f"f{i % 3}.keil", game=i + 1))
    root = ET.fromstring(junit.junit_xml(verdicts))
    assert [s.get("name") for s in root.findall("testsuite")] == [f"f{i % 3}.keil" for i in range(40)]
    assert len(root.findall("./testsuite/testcase")) == 40


def test_junit_strict_fails_unfinished() -> None:
    record = next(iter_games(io.BytesIO(b'[Size "3"]\n1. c3 *\n'), "u.keil"))
    v = adjudicate(record, file="u.keil", game=1)
    assert v.status is Status.UNFINISHED
    assert ET.fromstring(junit.junit_xml([v])).find(".//failure") is None
    assert ET.fromstring(junit.junit_xml([v], strict=True)).find(".//failure") is not None


def test_github_annotation_points_at_the_illegal_turn(tmp_path: Path) -> None:
    path = tmp_path / "ko.keil"
    path.write_text('[Size "3"]\n\n1. c3 button\n2. b2   b2\n', encoding="utf-8")
    result = runner.invoke(app, ["check", "--format", "github", str(path)])
    assert result.exit_code == EXIT_FAILED
    (line,) = result.stdout.splitlines()
    m = re.match(r"::error file=(.*),line=(\d+),col=(\d+),title=keilref illegal::(.*)", line)
    assert m is not None, line
    assert (m.group(2), m.group(3)) == ("4", "9")
    assert m.group(4) == "game 1: illegal: move 2 (White) b2, turn 4: occupied"


def test_github_annotation_points_at_a_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.keil"
    path.write_text('[Size "3"]\n1. c3 zz9q\n', encoding="utf-8")
    result = runner.invoke(app, ["check", "--format", "github", str(path)])
    assert result.exit_code == EXIT_FAILED
    (line,) = result.stdout.splitlines()
    assert ",line=2,col=7," in line
    assert line.startswith("::error ")


def test_github_prints_nothing_for_passing_games() -> None:
    result = runner.invoke(app, ["check", "--format", "github", str(GAMES)])
    assert result.exit_code == EXIT_OK
    assert all(line.startswith("::notice ") for line in result.stdout.splitlines())


def test_text_output_ends_with_a_summary() -> None:
    result = runner.invoke(app, ["check", str(GAMES)])
    assert result.exit_code == EXIT_OK
    last = result.stdout.splitlines()[-1]
    m = re.match(r"(\d+) games: (.*) in \d+\.\d\d s \([\d,]+ games/s\)$", last)
    assert m is not None, last
    assert int(m.group(1)) == len(result.stdout.splitlines()) - 1
    assert "illegal" not in m.group(2)


def test_no_progress_bar_when_piped() -> None:
    result = runner.invoke(app, ["check", str(GAMES)])
    assert "\x1b[" not in result.output
    assert "checking" not in result.output


def test_generated_games_are_legal_and_finished() -> None:
    import random

    for rules in ("keil", "keil-2019"):
        for size in (2, 4, 7):
            g = random_game(random.Random(size), rules=rules, size=size)
            v = adjudicate(to_record(g, event="t"), file="gen", game=1)
            assert v.status is Status.OK, (rules, size, v)
            assert v.computed == g.result
            assert g.moves[-2:] == ("pass", "pass")


def test_generator_is_seeded() -> None:
    a = write_records([to_record(g, event="x") for g in random_games(11, 5, rules=("keil", "keil-2019"), sizes=(3, 5))])
    b = write_records([to_record(g, event="x") for g in random_games(11, 5, rules=("keil", "keil-2019"), sizes=(3, 5))])
    c = write_records([to_record(g, event="x") for g in random_games(12, 5, rules=("keil", "keil-2019"), sizes=(3, 5))])
    assert a == b != c
    assert '[Rules "keil-2019"]' in a and '[Size "5"]' in a


def test_generate_command_output_checks_ok(tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", "--games", "6", "--seed", "4", "--size", "3", "--rules", "keil", "--rules", "keil-2019"])
    assert result.exit_code == EXIT_OK
    path = tmp_path / "gen.keil"
    path.write_text(result.stdout, encoding="utf-8")
    check = runner.invoke(app, ["check", "--format", "jsonl", str(path)])
    assert check.exit_code == EXIT_OK
    statuses = [json.loads(line)["status"] for line in check.stdout.splitlines()]
    assert statuses == ["ok"] * 6


def test_generate_rejects_bad_size() -> None:
    result = runner.invoke(app, ["generate", "--size", "14"])
    assert result.exit_code == EXIT_USAGE
    assert "size 14" in result.stderr


def test_streaming_reads_in_chunks(tmp_path: Path) -> None:
    text = write_records([to_record(g, event="s") for g in random_games(9, 300, sizes=(3,), fill=0.5)])
    data = text.encode()

    class Counting(io.BytesIO):
        largest = 0

        def read(self, size: int | None = -1) -> bytes:
            chunk = super().read(size)
            Counting.largest = max(Counting.largest, len(chunk))
            return chunk

    stream = Counting(data)
    count = sum(1 for _ in iter_games(stream, "s.keil", chunk_size=4096))
    assert count == 300
    assert Counting.largest <= 4096 < len(data)
