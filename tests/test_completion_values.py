"""Shell completion offers the values an option takes, from the registries
that the option's own check reads, and a loose guess is never a hint for a
rule set's name."""

from __future__ import annotations

import os
import subprocess
import sys

from cli_support import ROOT, run

from keilref.engine.rules import all_rules
from keilref.formats import FORMATS


def _complete(words: str) -> list[str]:
    """What bash would offer for the last word of ``words``, through Typer's completion protocol."""
    parts = words.split(" ")
    env = {
        **os.environ,
        "_KEILREF_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
    }
    done = subprocess.run(
        [sys.executable, "-m", "keilref"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_check_format_completes_every_format() -> None:
    assert _complete("keilref check --format ") == list(FORMATS)
    assert _complete("keilref check -f json") == [f for f in FORMATS if f.startswith("json")]
    assert _complete("keilref check --format sa") == ["sarif"]


def test_rules_completes_the_rule_sets_in_every_command() -> None:
    names = [r.name for r in all_rules()]
    assert _complete("keilref check --rules ") == names
    assert _complete("keilref check --rules keil") == ["keil", "keil-2019"]
    assert _complete("keilref generate --rules y") == ["yugo"]
    assert _complete("keilref filter --rules d") == ["dehil"]
    assert _complete("keilref stats --rules ") == names


def test_completion_completes_the_shell() -> None:
    assert _complete("keilref completion ") == ["bash", "zsh", "fish", "powershell"]
    assert _complete("keilref completion p") == ["powershell"]


def test_the_picture_formats_of_show_and_score() -> None:
    assert _complete("keilref show --format ") == ["text", "svg", "png"]
    assert _complete("keilref score -f s") == ["svg"]
    assert _complete("keilref show --rules y") == ["yugo"]


def test_export_to_and_stats_format() -> None:
    assert _complete("keilref export --to ") == ["abstract-games"]
    assert _complete("keilref stats --format ") == ["text", "json"]


def test_a_rule_set_is_hinted_only_for_a_typo() -> None:
    near = run("check", "--rules", "yugp", "docs/standings-example.keil")
    assert near.exit_code == 2 and "did you mean 'yugo'?" in near.stderr
    go = run("check", "--rules", "go", "docs/standings-example.keil")
    assert go.exit_code == 2
    assert "unknown value 'go' (expected dehil, keil, keil-2019, yugo)" in go.stderr
    assert "did you mean" not in go.stderr


def test_check_help_says_what_rules_does_across_families() -> None:
    out = " ".join(run("check", "--help").stdout.split())
    assert "whatever the record says" not in out
    assert "each game of its family" in out and "keeps its own rules, with a warning" in out
