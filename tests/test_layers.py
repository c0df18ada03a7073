"""The layers contract in pyproject.toml is enforced: an upward import breaks it.

``lint-imports`` runs on a scratch copy of the package, with the contract
read from pyproject.toml, so the test can add an import the contract
forbids without touching the checkout. The copy passes as it is, and fails
once one module of the lowest stage imports the highest.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The console script sits beside the interpreter running the tests; CI installs
# import-linter with the test extra, so only a bare install skips.
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
pytestmark = pytest.mark.skipif(LINT_IMPORTS is None, reason="import-linter is not installed")


def contract_toml() -> str:
    """The ``[tool.importlinter]`` tables of pyproject.toml, as a config file of their own."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    lines = ["[tool.importlinter]"]
    lines.extend(f"{key} = {_toml(value)}" for key, value in config.items() if key != "contracts")
    lines.append("")
    for contract in config["contracts"]:
        lines.append("[[tool.importlinter.contracts]]")
        lines.extend(f"{key} = {_toml(value)}" for key, value in contract.items())
        lines.append("")
    return "\n".join(lines)


def _toml(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    raise TypeError(f"no TOML for {value!r}")


def scratch_copy(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "keilref",
        tmp_path / "keilref",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"),
    )
    (tmp_path / "contract.toml").write_text(contract_toml(), encoding="utf-8")
    return tmp_path


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    assert LINT_IMPORTS is not None
    # PYTHONPATH puts the copy ahead of the checkout's editable install.
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", "--no-logo", str(root / "contract.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_contract_holds_on_the_package_as_it_is(tmp_path: Path) -> None:
    root = scratch_copy(tmp_path)
    done = lint_imports(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout


def test_an_upward_import_breaks_the_contract(tmp_path: Path) -> None:
    root = scratch_copy(tmp_path)
    record = root / "keilref" / "records" / "record.py"
    text = record.read_text(encoding="utf-8")
    # After the module's docstring and future import, at module level.
    head, sep, tail = text.partition("from __future__ import annotations\n")
    assert sep, "records/record.py starts with its future import"
    record.write_text(head + sep + "\nimport keilref.cli\n" + tail, encoding="utf-8")
    done = lint_imports(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 kept, 1 broken" in done.stdout
    # The copy was the package analysed: the report names the new import.
    assert "keilref.records.record -> keilref.cli" in done.stdout


def test_the_contract_makes_no_exception() -> None:
    # Record.replay(), Record.tree() and the notebook pictures reach the
    # stages above through keilref/conveniences.py, which hands them over.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert [contract.get("ignore_imports", []) for contract in config["contracts"]] == [[]]


def test_an_upward_import_made_inside_a_function_breaks_the_contract_too(tmp_path: Path) -> None:
    # As Record.replay() once reached the referee: lazily, yet upward.
    root = scratch_copy(tmp_path)
    record = root / "keilref" / "records" / "record.py"
    text = record.read_text(encoding="utf-8")
    record.write_text(
        text + "\n\ndef _replay(record: Record) -> object:\n"
        "    from keilref.referee.replay import replay_record\n\n"
        "    return replay_record(record)\n",
        encoding="utf-8",
    )
    done = lint_imports(root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "keilref.records.record -> keilref.referee.replay" in done.stdout
