"""SARIF, GitLab Code Quality and GitHub annotations with the job summary.

The SARIF schema in this directory is the official OASIS SARIF 2.1.0 schema
(errata 01, ``sarif-schema-2.1.0.json`` of the OASIS sarif-spec repository),
vendored unchanged so the test runs offline.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import keilref

from cli_support import ROOT, run
from keilref.referee.batches import check_sources
from keilref.records.sources import expand_paths
from keilref import wording
from keilref.formats.findings import RULES, RULES_PAGE, rule_anchor, rules_markdown
from keilref.formats.gitlab import SEVERITIES

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

FAILING = ("mismatch", "illegal", "error")


def _verdicts(*paths: str) -> list[dict[str, Any]]:
    return [v.to_json() for v in check_sources(expand_paths(list(paths)), jobs=1)]


def _offending(v: dict[str, Any], declared_at: tuple[int, int] | None = None) -> tuple[int, int]:
    if v["illegal"] is not None:
        return v["illegal"]["line"], v["illegal"]["column"]
    if v["error"] is not None:
        return v["error"]["line"], v["error"]["column"]
    raise AssertionError("no position in the verdict's JSON")


def _sarif(*args: str) -> tuple[int, dict[str, Any]]:
    r = run("check", "--format", "sarif", *args)
    doc = json.loads(r.stdout)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(doc)
    return r.exit_code, doc


def test_the_vendored_schema_is_the_official_one() -> None:
    assert SCHEMA["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    # The schema rejects what it must: a sanity check that validation bites.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": "2.1.0", "runs": [{"results": []}]}, SCHEMA)


def test_sarif_has_one_result_per_failing_game_at_the_offending_place(at_the_root: None) -> None:
    code, doc = _sarif("records/faults", "records/games")
    assert code == 1
    (run_,) = doc["runs"]
    rules = run_["tool"]["driver"]["rules"]
    results = run_["results"]
    failing = [v for v in _verdicts("records/faults", "records/games") if v["status"] in FAILING]
    assert len(failing) == 47
    assert len(results) == len(failing)
    for res, v in zip(results, failing):
        (loc,) = res["locations"]
        assert loc["physicalLocation"]["artifactLocation"]["uri"] == v["file"]
        region = loc["physicalLocation"]["region"]
        expected_rule = f"illegal/{v['illegal']['reason']}" if v["illegal"] else v["status"]
        assert res["ruleId"] == expected_rule
        assert rules[res["ruleIndex"]]["id"] == expected_rule
        assert res["level"] == "error"
        assert res["properties"]["game"] == v["game"]
        if v["status"] != "mismatch":
            assert (region["startLine"], region["startColumn"]) == _offending(v)
    by_file = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in results}
    superko = by_file["records/faults/illegal-superko.keil"]
    assert superko["message"]["text"] == "game 1: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)"
    # A mismatch points at the declared result: B+5.5 ends line 8, from column 49.
    margin = by_file["records/faults/mismatch-wrong-margin.keil"]
    assert margin["locations"][0]["physicalLocation"]["region"] == {"startLine": 8, "startColumn": 49}
    assert (ROOT / "records/faults/mismatch-wrong-margin.keil").read_text().splitlines()[7][48:] == "B+5.5"
    assert len({r["partialFingerprints"]["keilrefGame/v1"] for r in results}) == len(results)


def test_sarif_of_a_clean_archive_is_valid_and_empty(at_the_root: None) -> None:
    code, doc = _sarif("records/games")
    assert code == 0
    assert doc["runs"][0]["results"] == []
    assert {r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]} == {r.id for r in RULES}


def test_sarif_with_strict_reports_unfinished_games(at_the_root: None) -> None:
    unfinished = [v for v in _verdicts("records/games") if v["status"] == "unfinished"]
    assert unfinished
    code, doc = _sarif("--strict", "records/games")
    assert code == 1
    assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["unfinished"] * len(unfinished)


def test_a_path_with_spaces_is_a_valid_uri(tmp_path: Path) -> None:
    odd = tmp_path / "my games" / "x #1.keil"
    odd.parent.mkdir()
    odd.write_text((ROOT / "records/faults/illegal-suicide.keil").read_text(encoding="utf-8"), encoding="utf-8")
    code, doc = _sarif(str(odd))
    assert code == 1
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file:///") and uri.endswith("/my%20games/x%20%231.keil")


def _gitlab(*args: str) -> tuple[int, list[dict[str, Any]]]:
    r = run("check", "--format", "gitlab", *args)
    return r.exit_code, json.loads(r.stdout)


def test_gitlab_issues_have_the_documented_keys(at_the_root: None) -> None:
    code, issues = _gitlab("records/faults")
    assert code == 1
    failing = [v for v in _verdicts("records/faults") if v["status"] in FAILING]
    assert len(issues) == len(failing) == 47
    for issue, v in zip(issues, failing):
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert set(issue["location"]) == {"path", "lines"}
        assert issue["location"]["path"] == v["file"]
        if v["status"] != "mismatch":
            assert issue["location"]["lines"] == {"begin": _offending(v)[0]}
        assert issue["severity"] in SEVERITIES and issue["severity"] == "major"
        assert issue["description"].startswith(f"game {v['game']}: {v['status']}: ")
        assert issue["check_name"] == "keilref/" + (f"illegal/{v['illegal']['reason']}" if v["illegal"] else v["status"])
        assert len(issue["fingerprint"]) == 64 and int(issue["fingerprint"], 16) >= 0
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_gitlab_fingerprints_are_stable_when_lines_move(tmp_path: Path) -> None:
    text = (ROOT / "records/faults/illegal-occupied.keil").read_text(encoding="utf-8")
    path = tmp_path / "g.keil"
    path.write_text(text, encoding="utf-8")
    _, before = _gitlab(str(path))
    _, again = _gitlab(str(path))
    path.write_text("{a comment that\nmoves every line}\n" + text, encoding="utf-8")
    _, moved = _gitlab(str(path))
    assert before == again
    assert moved[0]["location"]["lines"]["begin"] == before[0]["location"]["lines"]["begin"] + 2
    assert moved[0]["fingerprint"] == before[0]["fingerprint"]


def test_gitlab_of_a_clean_archive_is_an_empty_array(at_the_root: None) -> None:
    assert _gitlab("records/games") == (0, [])


def _annotations(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("::error ")]


def test_github_over_ten_failures_notes_the_rest_and_writes_the_summary(
    at_the_root: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    r = run("check", "--format", "github", "records/faults")
    assert r.exit_code == 1
    failing = [v for v in _verdicts("records/faults") if v["status"] in FAILING]
    errors = _annotations(r.stdout)
    assert len(errors) == len(failing) == 47, "every failure is still annotated in the log"
    assert errors[9].endswith(
        " (and 37 more failures: GitHub shows 10 annotations per step; all are listed in the job summary)"
    )
    assert not any("more failures" in e for i, e in enumerate(errors) if i != 9)
    # The annotations keep input order.
    assert [e.split("file=")[1].split(",")[0] for e in errors] == [v["file"] for v in failing]
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n### keilref: 47 failing games\n"), "appended, never overwritten"
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and not ln.startswith("| file ")]
    assert len(rows) == 47
    # Only what means something inside a cell is escaped: "-" and "(" read as written.
    superko = next(r for r in rows if "illegal-superko" in r)
    assert superko == (
        "| records/faults/illegal-superko.keil | 8:79 | 1 | illegal | "
        "game 1: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29) |"
    )


def test_a_summary_cell_escapes_only_what_a_cell_reads_as_markdown() -> None:
    from keilref.formats.github import _cell

    assert _cell("a_b *c* `d` [e](f) ![g] <h> & i|j ~k~ \\") == (
        "a\\_b \\*c\\* \\`d\\` \\[e\\](f) !\\[g\\] \\<h\\> \\& i\\|j \\~k\\~ \\\\"
    )
    assert _cell("error-button-turn.keil: - + # (1) ! {x}") == "error-button-turn.keil: - + # (1) ! {x}"


def test_github_with_few_failures_writes_no_summary(
    at_the_root: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    r = run("check", "--format", "github", "records/faults/illegal-superko.keil", "records/faults/dehil")
    assert r.exit_code == 1
    errors = _annotations(r.stdout)
    assert len(errors) == 10
    assert not any("more failures" in e for e in errors)
    assert not summary.exists()


def test_github_without_a_summary_file_points_at_the_log(at_the_root: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    r = run("check", "--format", "github", "records/faults")
    errors = _annotations(r.stdout)
    assert errors[9].endswith("all are listed in the log)")


def test_github_with_an_unwritable_summary_warns_in_one_line(
    at_the_root: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no-such-dir" / "summary.md"))
    r = run("check", "--format", "github", "records/faults")
    assert r.exit_code == 1
    assert len(_annotations(r.stdout)) == 47
    assert r.stderr.splitlines() == [
        f"keilref: cannot write the job summary to {tmp_path / 'no-such-dir' / 'summary.md'}: No such file or directory"
    ]


# --- Checkstyle -------------------------------------------------------------------


def _checkstyle_schema() -> Any:
    xmlschema = pytest.importorskip("xmlschema")
    return xmlschema.XMLSchema(str(Path(__file__).parent / "checkstyle.xsd"))


@pytest.mark.parametrize("strict", [False, True])
def test_checkstyle_is_valid_and_has_the_faults_sarif_has(at_the_root: None, strict: bool) -> None:
    flags = ["--strict"] if strict else []
    result = run("check", "--format", "checkstyle", *flags, "records/faults", "records/games")
    assert result.exit_code == 1
    _checkstyle_schema().validate(result.stdout)
    root = ET.fromstring(result.stdout)
    assert root.tag == "checkstyle" and root.get("version") == keilref.__version__
    got = [
        (file.get("name"), int(e.get("line", "")), int(e.get("column", "")), e.get("source"), e.get("message"))
        for file in root
        for e in file
    ]
    sarif = json.loads(run("check", "--format", "sarif", *flags, "records/faults", "records/games").stdout)
    want = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
            "keilref." + r["ruleId"],
            r["message"]["text"],
        )
        for r in sarif["runs"][0]["results"]
    ]
    assert got == want and len(got) > 20
    severities = {e.get("source"): e.get("severity") for file in root for e in file}
    assert severities["keilref.illegal/superko"] == "error"
    assert (severities.get("keilref.unfinished") == "warning") is strict


def test_checkstyle_of_a_clean_archive_has_no_file(at_the_root: None) -> None:
    result = run("check", "--format", "checkstyle", "records/games/size5-keil-corner-ko.keil")
    assert result.exit_code == 0
    _checkstyle_schema().validate(result.stdout)
    assert list(ET.fromstring(result.stdout)) == []


def test_the_schema_refuses_what_warnings_ng_could_not_read() -> None:
    schema = _checkstyle_schema()
    assert not schema.is_valid('<checkstyle><file name="a"><error line="1" severity="fatal" message="m" source="s"/></file></checkstyle>')
    assert not schema.is_valid('<checkstyle><file><error line="1" severity="error" message="m" source="s"/></file></checkstyle>')


# --- JUnit for Jenkins ---------------------------------------------------------------


def test_junit_classes_are_paths_without_the_suffix_and_bodies_keep_their_lines(
    at_the_root: None, tmp_path: Path
) -> None:
    game = tmp_path / "club.night.keil"
    game.write_text('[Event "E"] [komi "0"]\n1. g7 *\n', encoding="utf-8")  # unfinished, two warnings at least
    r = run("check", "--strict", "--format", "junit", "records/faults/illegal-superko.keil", str(game))
    root = ET.fromstring(r.stdout)
    assert float(root.get("time", "x")) >= 0
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["records/faults/illegal-superko.keil", str(game)]
    cases = [s.find("testcase") for s in suites]
    # Jenkins splits at dots into package and class: directories become packages.
    assert cases[0] is not None and cases[0].get("classname") == "records.faults.illegal-superko"
    assert cases[1] is not None and cases[1].get("classname") == ".".join([*tmp_path.parts[1:], "club_night"])
    assert all(float(s.get("time", "x")) >= 0 and float(c.get("time", "x")) >= 0 for s, c in zip(suites, cases))
    failure = cases[1].find("failure")
    assert failure is not None and failure.text is not None
    lines = failure.text.split("\n")
    assert len(lines) >= 3 and "\\x0a" not in failure.text
    assert lines[0].endswith("unfinished: computed -, declared *; score so far " + lines[0].rsplit(" ", 1)[-1])
    assert any("unknown tag 'komi' sets nothing" in line for line in lines[1:])


@pytest.mark.parametrize("fmt", ["text", "sarif"])
def test_exit_zero_reports_the_failures_and_exits_0(at_the_root: None, fmt: str) -> None:
    failing = run("check", "--format", fmt, "records/faults/illegal-superko.keil")
    passing = run("check", "--exit-zero", "--format", fmt, "records/faults/illegal-superko.keil")
    assert (failing.exit_code, passing.exit_code) == (1, 0)
    assert "superko" in passing.stdout
    assert run("check", "--exit-zero", "no/such/path.keil").exit_code == 2  # a usage error is still one


def test_every_sarif_rule_explains_itself(at_the_root: None) -> None:
    rules = json.loads(run("check", "-f", "sarif", "records/faults").stdout)["runs"][0]["tool"]["driver"]["rules"]
    helps = {r["id"]: r["help"]["text"] for r in rules}
    assert all(len(text) > 80 for text in helps.values())
    assert helps["illegal/superko"].startswith("The position repeats one left by an earlier turn of the same player.")
    assert helps["illegal/occupied"].startswith("The point already holds a stone.")
    assert "--strict" in helps["warning"] and "keilref score" in helps["mismatch"]


def test_the_rules_page_is_made_from_the_wording() -> None:
    page = (ROOT / "docs" / RULES_PAGE).read_text(encoding="utf-8")
    assert page == rules_markdown(), (
        "docs/checks.md is out of date: python -c \"from keilref.formats.findings import rules_markdown; "
        "print(rules_markdown(), end='')\" > docs/checks.md"
    )
    for r in RULES:
        assert f'<a id="{rule_anchor(r.id)}"></a>\n\n## `{r.id}`\n\n{wording.rule_help(r.id)}\n' in page


def test_sarif_rules_link_their_section_of_the_published_docs(
    monkeypatch: pytest.MonkeyPatch, at_the_root: None
) -> None:
    from keilref.formats import sarif

    declared = {"Project-URL": ["Homepage, https://example.org/keilref", "Documentation, https://example.org/keilref/docs/"]}

    class _Metadata:
        def get_all(self, name: str) -> list[str] | None:
            return declared.get(name)

    monkeypatch.setattr(sarif.importlib.metadata, "metadata", lambda name: _Metadata())
    _, doc = _sarif("records/faults/illegal-superko.keil")
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert [r["helpUri"] for r in rules] == [f"https://example.org/keilref/docs/checks.md#{rule_anchor(r.id)}" for r in RULES]
    assert rule_anchor("illegal/superko") == "illegal-superko"
    # No Documentation URL declared (so none guessed): the help text alone; helpUri must be absolute.
    declared["Project-URL"] = ["Homepage, https://example.org/keilref"]
    _, doc = _sarif("records/faults/illegal-superko.keil")
    assert all("helpUri" not in r for r in doc["runs"][0]["tool"]["driver"]["rules"])
    assert sarif.documentation_url() is None


def test_the_gitlab_job_in_the_docs_writes_the_report_it_uploads(tmp_path: Path) -> None:
    import re
    import shutil
    import subprocess
    import sys

    yaml = pytest.importorskip("yaml")
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "ci.md").read_text(encoding="utf-8"), re.DOTALL)
    (job,) = [b["keilref"] for b in map(yaml.safe_load, blocks) if isinstance(b, dict) and "script" in b.get("keilref", {})]
    assert job["artifacts"]["when"] == "always"  # the report is uploaded when games fail, as then it matters
    (tmp_path / "games").mkdir()
    for name in ("records/games/size5-keil-corner-ko.keil", "records/faults/illegal-superko.keil"):
        shutil.copy(ROOT / name, tmp_path / "games")
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    codes = []
    for line in job["script"]:
        if line.startswith("pip install"):
            assert line == "pip install keilref"  # installed here already
            continue
        codes.append(subprocess.run(["bash", "-e", "-c", line], cwd=tmp_path, env=env, timeout=300).returncode)
    assert codes == [1]  # a failing game fails the job
    report = json.loads((tmp_path / job["artifacts"]["reports"]["codequality"]).read_text(encoding="utf-8"))
    assert [(i["check_name"], i["location"]["path"], i["severity"]) for i in report] == [
        ("keilref/illegal/superko", "games/illegal-superko.keil", "major")
    ]
