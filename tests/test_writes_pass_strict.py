"""What keilref writes, keilref passes: every record it makes checks with ``--strict``.

``keilref generate`` (every rule set, several sizes and seeds), ``keilref
fmt`` (on the archive and on records laid out badly), the library's writer
(``write_record`` and ``write_records`` of ``Game.to_record`` for games of
each family played at random) and the records shown in the README and in
docs/*.md all go through ``keilref check --strict``: every game ``ok`` and
exit 0, or, for a record that is faulty or unfinished on purpose, the status
it is documented to get.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import keilref
from cli_support import ROOT, run
from doc_examples import DOCS, README, RecordExample, record_examples
from keilref.engine.rules import ButtonRule, find_rules

EXIT_OK, EXIT_FAILED = 0, 1


def strict_check(path: Path) -> tuple[int, list[dict[str, Any]]]:
    """``keilref check --strict`` on ``path``: its exit code and its verdicts."""
    result = run("check", "--strict", "--format", "jsonl", str(path))
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines()]


def check_text_strictly(text: str, tmp_path: Path, name: str = "written.keil") -> tuple[int, list[dict[str, Any]]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return strict_check(path)


def assert_all_ok(code: int, verdicts: list[dict[str, Any]], games: int) -> None:
    failing = [
        (v["game"], v["status"], v["error"] or v["illegal"] or v["warnings"])
        for v in verdicts
        if v["status"] != "ok" or v["warnings"]
    ]
    assert failing == []
    assert len(verdicts) == games
    assert code == EXIT_OK


# keilref generate ---------------------------------------------------------

GENERATED = [
    ("keil", (2, 3, 5, 7), 1),
    ("keil", (4, 9), 2),
    ("keil-2019", (2, 3, 6), 3),
    ("keil-2019", (5, 13), 4),
    ("yugo", (2, 3, 5), 5),
    ("yugo", (9,), 6),
    ("dehil", (2, 3, 7), 7),
    ("dehil", (11,), 8),
]


def generate(rules: str, sizes: tuple[int, ...], seed: int, games: int) -> str:
    args = ["generate", "--games", str(games), "--seed", str(seed), "--rules", rules]
    for size in sizes:
        args += ["--size", str(size)]
    result = run(*args)
    assert result.exit_code == EXIT_OK, result.output
    return result.stdout


@pytest.mark.parametrize("rules,sizes,seed", GENERATED, ids=[f"{r}-{'-'.join(map(str, s))}-seed{n}" for r, s, n in GENERATED])
def test_generated_games_pass_strict(rules: str, sizes: tuple[int, ...], seed: int, tmp_path: Path) -> None:
    games = 2 * len(sizes)
    code, verdicts = check_text_strictly(generate(rules, sizes, seed, games), tmp_path)
    assert_all_ok(code, verdicts, games)
    assert {v["rules"] for v in verdicts} == {rules}
    assert {v["size"] for v in verdicts} == set(sizes)


@pytest.mark.parametrize("rules", ["keil", "keil-2019", "yugo", "dehil"])
def test_generated_button_tags_are_true(rules: str) -> None:
    """The Button tag is written wherever the rules have a button, and says
    whether the game had one: a game with the button in play takes it
    before its first pass, one without never does."""
    ruleset = find_rules(rules)
    records = [r for r in keilref.read_games(generate(rules, (3, 4), 11, 30)) if isinstance(r, keilref.Record)]
    assert len(records) == 30
    buttons = set()
    for record in records:
        tag = record.tag_value("Button")
        if ruleset.button is ButtonRule.ABSENT:
            assert tag is None
            assert "button" not in record.moves
            continue
        assert tag in ("yes", "no")
        buttons.add(tag)
        assert ("button" in record.moves) == (tag == "yes")
        if tag == "yes":
            assert record.moves.index("button") < record.moves.index("pass")
    if ruleset.button is ButtonRule.REQUIRED:
        assert buttons == {"yes"}
    if ruleset.button is ButtonRule.OPTIONAL:
        # Generated keil-2019 games leave the button out now and then (one in five).
        assert buttons == {"yes", "no"}


# keilref fmt --------------------------------------------------------------

ARCHIVE = sorted((ROOT / "records").rglob("*.keil"))


def statuses(verdicts: list[dict[str, Any]]) -> list[str]:
    return [v["status"] for v in verdicts]


@pytest.mark.parametrize("path", ARCHIVE, ids=[str(p.relative_to(ROOT)) for p in ARCHIVE])
def test_fmt_output_is_judged_as_its_input(path: Path, tmp_path: Path) -> None:
    """fmt changes the layout and nothing a verdict depends on. So its output
    of a passing file passes strict, and of any other file gets the statuses
    the file gets (the unfinished games in records/games are unfinished on
    purpose; records/faults are faults)."""
    formatted = run("fmt", str(path))
    before_code, before = strict_check(path)
    if formatted.exit_code != EXIT_OK:
        # A record fmt cannot read is a fault, and fmt leaves it alone.
        assert "faults" in path.parts
        assert "error" in statuses(before)
        return
    code, after = check_text_strictly(formatted.stdout, tmp_path, path.name)
    assert statuses(after) == statuses(before)
    assert [v["warnings"] for v in after] == [v["warnings"] for v in before]
    assert code == before_code
    if "faults" not in path.parts:
        assert set(statuses(after)) <= {"ok", "unfinished"}
        assert "unfinished" in statuses(after) or code == EXIT_OK
    if set(statuses(after)) == {"ok"} and not any(v["warnings"] for v in after):
        assert code == EXIT_OK


def badly_laid_out(text: str, rng: random.Random) -> str:
    """The same games, written as a careless program might: no move numbers,
    points in upper case, tags in another order, line breaks anywhere."""
    out = []
    for block in text.split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].startswith("["):
            rng.shuffle(lines)
            out.append("\n".join(lines))
            continue
        words = [w for w in block.split() if not re.fullmatch(r"\d+\.(\.\.)?", w)]
        words = [w.upper() if re.fullmatch(r"[a-z]\d+", w) else w for w in words]
        out.append("".join(w + rng.choice([" ", "  ", "\n", "\t", " \n "]) for w in words))
    return "\n\n".join(out) + "\n"


@pytest.mark.parametrize("rules", ["keil", "keil-2019", "yugo", "dehil"])
def test_fmt_of_a_badly_laid_out_file_passes_strict(rules: str, tmp_path: Path) -> None:
    canonical = generate(rules, (3, 5), 21, 6)
    messy = badly_laid_out(canonical, random.Random(rules))
    assert messy != canonical
    source = tmp_path / "messy.keil"
    source.write_text(messy, encoding="utf-8")
    formatted = run("fmt", str(source))
    assert formatted.exit_code == EXIT_OK, formatted.output
    assert formatted.stdout == canonical
    code, verdicts = check_text_strictly(formatted.stdout, tmp_path)
    assert_all_ok(code, verdicts, 6)


# The library's writer -----------------------------------------------------

FAMILIES = [
    ("keil", 5, None),
    ("keil-2019", 4, True),
    ("keil-2019", 4, False),
    ("yugo", 5, None),
    ("dehil", 5, None),
]


def played_at_random(rules: str, size: int, button: bool | None, seed: int, *, turns: int | None = None) -> keilref.Game:
    """A game of random legal turns: to its end, or stopped after ``turns``."""
    rng = random.Random(seed)
    ruleset = find_rules(rules)
    komi = rng.randint(0, size) + (0.5 if ruleset.half_komi and rng.random() < 0.5 else 0)
    game = keilref.Game(size=size, komi=komi, rules=rules, button=button)
    limit = len(list(game.points()))
    while not game.is_over and (turns is None or game.turn < turns):
        moves = game.legal_moves()
        placements = [m for m in moves if m not in ("pass", "button")]
        if placements and game.turn < limit:
            game.play(rng.choice(placements) if rng.random() < 0.95 else rng.choice(moves))
        else:
            game.play("pass" if "pass" in moves else "button")
    return game


@pytest.mark.parametrize("rules,size,button", FAMILIES, ids=[f"{r}-button-{b}" for r, _, b in FAMILIES])
def test_the_writer_writes_finished_games_that_pass_strict(rules: str, size: int, button: bool | None, tmp_path: Path) -> None:
    records = []
    for seed in range(4):
        game = played_at_random(rules, size, button, seed)
        assert game.is_over
        records.append(game.to_record({"Event": f"random {seed}", "Black": "Ana", "White": "Ben"}))
    code, verdicts = check_text_strictly(keilref.write_records(records), tmp_path)
    assert_all_ok(code, verdicts, 4)
    for record, verdict in zip(records, verdicts):
        assert verdict["computed"] == record.result
    # One record alone, through write_record.
    code, verdicts = check_text_strictly(keilref.write_record(records[0]), tmp_path)
    assert_all_ok(code, verdicts, 1)


def test_the_writer_writes_a_yugo_agreement_that_passes_strict(tmp_path: Path) -> None:
    for seed in range(20):
        game = played_at_random("yugo", 5, None, seed)
        pieces = [p for p in game.points() if game.stone_at(p) is not None]
        if not game.is_final and pieces:
            break
    else:
        pytest.fail("no random Yugo game stopped with pieces on the board")
    game.agree_removal([pieces[0]])
    record = game.to_record()
    assert record.tag_value("Removed")
    code, verdicts = check_text_strictly(keilref.write_record(record), tmp_path)
    assert_all_ok(code, verdicts, 1)
    assert verdicts[0]["computed"] == record.result


@pytest.mark.parametrize("rules,size,button", FAMILIES, ids=[f"{r}-button-{b}" for r, _, b in FAMILIES])
def test_the_writer_writes_games_in_progress_as_unfinished_or_resigned(
    rules: str, size: int, button: bool | None, tmp_path: Path
) -> None:
    """A game that did not end is written with ``*``: unfinished, which only
    ``--strict`` fails. With a resignation it is a finished record, and ok."""
    game = played_at_random(rules, size, button, 99, turns=6)
    assert not game.is_over
    code, verdicts = check_text_strictly(keilref.write_record(game.to_record()), tmp_path)
    assert statuses(verdicts) == ["unfinished"]
    assert code == EXIT_FAILED
    code, verdicts = check_text_strictly(keilref.write_record(game.to_record(result="W+R")), tmp_path)
    assert_all_ok(code, verdicts, 1)


# The records shown in the README and docs/ ---------------------------------

SHOWN = [r for doc in (README, *DOCS) for r in record_examples(doc)]


def test_the_docs_show_records_both_passing_and_faulty_on_purpose() -> None:
    assert {r.status for r in SHOWN} >= {"ok", "error"}
    assert any(r.where.startswith("docs/") and r.status == "ok" for r in SHOWN)


@pytest.mark.parametrize("example", SHOWN, ids=[r.where for r in SHOWN])
def test_a_record_shown_in_the_docs_gets_its_documented_status(example: RecordExample, tmp_path: Path) -> None:
    code, verdicts = check_text_strictly(example.text, tmp_path)
    assert verdicts, "a shown record holds a game"
    if example.status == "ok":
        assert_all_ok(code, verdicts, len(verdicts))
    else:
        assert set(statuses(verdicts)) == {example.status}
        assert code == EXIT_FAILED


def test_the_stats_example_archive_passes_strict() -> None:
    code, verdicts = strict_check(ROOT / "docs" / "stats-example.keil")
    assert_all_ok(code, verdicts, 400)
