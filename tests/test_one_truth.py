"""Every output format tells the same truth: the same failing games, for the
same causes, and the same exit code (whether a game fails is decided once, by
``Verdict.faults``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.formats import FORMATS, Causes, Writer

_GAME = """[Event "{event}"]
[Rules "keil"]
[Size "3"]
[Komi "1"]
{tags}
{moves}
"""
_ENDED = (
    "1. c5 d5 2. e5 button 3. a3 a1 4. c2 e4 5. c1 b4 6. d2 b2 7. e3 b3 8. c3 d3\n"
    "9. d4 c5 10. e3 d3 11. e5 c4 12. e4 b1 13. pass pass {result}\n"
)

MIXED = "".join(
    _GAME.format(event=event, tags=tags, moves=moves)
    for event, tags, moves in (
        ("ok", '[Button "yes"]\n[Result "W+3.5"]\n', _ENDED.format(result="W+3.5")),
        # A did-you-mean warning (the komi it names is the one in use), and nothing else wrong.
        ("warning only", '[komi "1"]\n[Button "yes"]\n[Result "W+3.5"]\n', _ENDED.format(result="W+3.5")),
        ("unfinished and a warning", "", "1. c5 d5 2. e5 button 3. a3 a1\n"),  # no Button tag
        ("unfinished", '[Button "yes"]\n', "1. c5 d5 2. e5 button\n"),
        ("mismatch and a warning", '[komi "1"]\n[Button "yes"]\n[Result "B+3.5"]\n', _ENDED.format(result="B+3.5")),
    )
)

COPIED = (
    "records/faults/illegal-superko.keil",
    "records/faults/mismatch-wrong-margin.keil",
    "records/faults/error-bad-token.keil",
    "records/faults/tag-error-duplicate-tag.keil",
    "records/games/size9-keil-unfinished.keil",
    "records/games/size7-keil-white-resigns.keil",
)


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    (tmp_path / "mixed.keil").write_text(MIXED, encoding="utf-8")
    for name in COPIED:
        shutil.copy(ROOT / name, tmp_path / Path(name).name)
    monkeypatch.chdir(tmp_path)
    return ["mixed.keil", *(Path(name).name for name in COPIED)]


def expected(paths: list[str], *, strict: bool) -> Causes:
    """The causes as the documentation states them, from the plain verdicts:
    a mismatch, an illegal turn or an error fails; with --strict, an unfinished
    game and each warning too."""
    out: Causes = {}
    for line in run("check", "--format", "jsonl", *paths).stdout.splitlines():
        v = json.loads(line)
        causes = []
        if v["illegal"] is not None:
            causes.append(f"illegal/{v['illegal']['reason']}")
        elif v["status"] in ("mismatch", "error") or (strict and v["status"] == "unfinished"):
            causes.append(v["status"])
        if strict:
            causes += ["warning"] * len(v["warnings"])
        if causes:
            out[(v["file"], v["game"])] = causes
    return out


def parse(fmt: str, text: str) -> Causes:
    """The failing games and their causes as the format tells them: each
    registered format reads its own output back (a format without a reader
    fails here)."""
    return FORMATS[fmt].writer_class().read_back(text)


class Told:
    """A check's exit code and what its output tells, a binary format's read from its ``-o`` file."""

    def __init__(self, fmt: str, *args: str) -> None:
        self.fmt = fmt
        if FORMATS[fmt].binary:
            pytest.importorskip("pyarrow", reason="the table needs the arrow extra")
            target = Path(f"told{FORMATS[fmt].extension}")
            result = run("check", "--format", fmt, "-o", str(target), *args)
            self.exit_code = result.exit_code
            self.stdout = result.stdout
            self.causes = FORMATS[fmt].writer_class().read_bytes(target.read_bytes())
            target.unlink()
        else:
            result = run("check", "--format", fmt, *args)
            self.exit_code = result.exit_code
            self.stdout = result.stdout
            self.causes = parse(fmt, result.stdout)


@pytest.mark.parametrize("quiet", [False, True], ids=["all", "quiet"])
@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_reports_the_same_failing_games_for_the_same_causes(
    archive: list[str], fmt: str, strict: bool, quiet: bool
) -> None:
    want = expected(archive, strict=strict)
    # The archive has every kind of game, passing and failing, either way.
    assert {c for causes in want.values() for c in causes} >= {"mismatch", "error", "illegal/superko"}
    if strict:
        assert ("mixed.keil", 2) in want and ("mixed.keil", 3) in want
    else:
        assert ("mixed.keil", 2) not in want and ("mixed.keil", 3) not in want
    # A format that does not say whether a listed game fails is read with --quiet.
    spells = FORMATS[fmt].writer_class().spells
    listed = spells == "listed"
    options = [*(["--strict"] if strict else []), *(["--quiet"] if quiet or listed else [])]
    result = Told(fmt, *options, *archive)
    assert result.exit_code == 1
    told = result.causes
    assert set(told) == set(want), fmt
    for key, causes in want.items():
        if spells == "listed":
            continue
        if spells == "first":
            assert told[key] == causes[:1], key
        elif spells == "whole":
            assert told[key] == causes, key
        else:
            assert told[key] == [c.partition("/")[0] for c in causes], key


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_game_that_fails_only_for_a_warning_fails_in_every_format(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "warned.keil"
    path.write_text(MIXED[MIXED.index('[Event "warning only"]') : MIXED.index('[Event "unfinished and a warning"]')], encoding="utf-8")
    lenient = Told(fmt, str(path))
    strict = Told(fmt, "--strict", str(path))
    assert (lenient.exit_code, strict.exit_code) == (0, 1)
    if FORMATS[fmt].binary:  # a table lists every game, and says which fail
        assert (len(lenient.causes), len(strict.causes)) == (0, 1)
    if FORMATS[fmt].writer_class().spells == "listed":
        return
    assert list(strict.causes.values()) == [["warning"]]
    assert lenient.causes == {}
    if fmt == "html":
        assert "1 game failed" in strict.stdout


def test_the_faults_of_a_game_are_its_status_then_each_warning_where_it_is() -> None:
    from keilref import check_text

    verdicts = check_text(MIXED, filename="mixed.keil")
    assert [v.status.value for v in verdicts] == ["ok", "ok", "unfinished", "unfinished", "mismatch"]
    assert [v.faults() for v in verdicts[:4]] == [(), (), (), ()]
    strict = [tuple((f.rule, f.line, f.column) for f in v.faults(strict=True)) for v in verdicts]
    komi_typo = MIXED.splitlines().index('[komi "1"]') + 1  # the warning points at the tag
    assert strict[0] == ()
    assert strict[1] == (("warning", komi_typo, 1),)
    assert strict[2] == (("unfinished", verdicts[2].line, 1), ("warning", verdicts[2].line, 1))
    assert strict[3] == (("unfinished", verdicts[3].line, 1),)
    assert [rule for rule, *_ in strict[4]] == ["mismatch", "warning"]
    assert verdicts[4].faults()[0].message == "wrong winner"
    assert [v.fails(strict=s) for s in (False, True) for v in verdicts] == [
        *(False, False, False, False, True),
        *(False, True, True, True, True),
    ]


PLACING = [
    name
    for name, f in FORMATS.items()
    if f.writer_class().read_places.__func__ is not Writer.read_places.__func__  # type: ignore[attr-defined]
]
"""The formats that name a line and column for each fault."""


def _places(paths: list[str], *, strict: bool) -> dict[tuple[str, int], list[tuple[str, int, int]]]:
    """Where each failing game's faults are, by kind, from the library's verdicts."""
    from keilref import check_file

    out = {}
    for path in paths:
        for v in check_file(path):
            faults = v.faults(strict=strict)
            if faults:
                out[(path, v.game)] = [(f.rule.partition("/")[0], f.line, f.column) for f in faults]
    return out


def test_the_formats_that_place_faults_include_text_jsonl_and_sarif() -> None:
    assert {"text", "jsonl", "sarif", "checkstyle", "github", "tap"} <= set(PLACING)


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("fmt", PLACING)
def test_every_format_places_each_fault_where_the_others_do(archive: list[str], fmt: str, strict: bool) -> None:
    want = _places(archive, strict=strict)
    kinds = {kind for places in want.values() for kind, *_ in places}
    assert kinds >= {"mismatch", "error", "illegal", *(["warning", "unfinished"] if strict else [])}
    options = ["--quiet", *(["--strict"] if strict else [])]
    told = FORMATS[fmt].writer_class().read_places(run("check", "--format", fmt, *options, *archive).stdout)
    assert told is not None
    if not strict:
        # A line format says every warning of a game it lists, failing or not.
        told = {key: [p for p in places if p[0] != "warning"] for key, places in told.items()}
    assert told == want
