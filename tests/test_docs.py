"""The examples in docs/*.md are real, as the README's are.

Every ``$ keilref ...`` block is run and compared with what it shows, and
every ``python`` block is run as a script from the checkout's root and
compared with the block after ``It prints:`` (see ``tests/doc_examples.py``).

The Dask example in docs/scale.md connects to a cluster at an address of a
reader's own and writes to a shared directory: here it runs on a local
cluster, whose address stands in for ``tcp://10.0.0.5:8786``, and a scratch
directory stands in for ``/shared/``. It needs the ``dask`` extra and skips
without it, unless ``KEILREF_REQUIRE_DASK`` is set (CI sets it).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from doc_examples import DOCS, README, ROOT, Command, Script, commands, run_command, scripts, untimed

COMMANDS = [c for doc in DOCS for c in commands(doc)]
SCRIPTS = [s for doc in DOCS for s in scripts(doc)]

CLUSTER_ADDRESS = "tcp://10.0.0.5:8786"
SHARED_DIRECTORY = "/shared/"
OBJECT_STORE = "s3://keil-archive/2026/"

HAVE_DASK = all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed"))
if os.environ.get("KEILREF_REQUIRE_DASK") and not HAVE_DASK:
    raise RuntimeError("KEILREF_REQUIRE_DASK is set but dask or distributed is not installed")


def test_the_docs_have_examples_to_run() -> None:
    # A change to how blocks are found must not quietly leave nothing to run.
    assert len(COMMANDS) >= 2
    assert {s.where.split(":")[0] for s in SCRIPTS} >= {"docs/scale.md"}
    assert any(CLUSTER_ADDRESS in s.code for s in SCRIPTS)


SAMPLES = ROOT.parent / "shared" / "interop-samples" / "abstract_games"


@pytest.fixture(scope="module")
def director(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """docs/import.md's directory: the server's match pages in ``matches/``, and
    the broken move list the page shows, as a director would have them."""
    if not SAMPLES.is_dir():
        pytest.skip(f"the abstract_games samples are not at {SAMPLES}")
    here = tmp_path_factory.mktemp("director")
    (here / "matches").mkdir()
    for page in sorted(SAMPLES.glob("*.match.json")):
        (here / "matches" / page.name).write_bytes(page.read_bytes())
    text = (ROOT / "docs" / "import.md").read_text(encoding="utf-8")
    (here / "broken.moves.json").write_text(text.split("```json\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    return here


@pytest.mark.parametrize("example", COMMANDS, ids=[c.where for c in COMMANDS])
def test_docs_command_is_what_keilref_prints(example: Command, request: pytest.FixtureRequest) -> None:
    cwd = request.getfixturevalue("director") if example.where.startswith("docs/import.md") else ROOT
    assert untimed(run_command(example.command, cwd)) == untimed(example.expected)


@pytest.fixture(scope="module")
def cluster_address(cluster: Any) -> str:
    """The address of the local cluster tests/conftest.py starts."""
    return str(cluster.scheduler_address)


@pytest.mark.parametrize("example", SCRIPTS, ids=[s.where for s in SCRIPTS])
def test_docs_script_prints_what_the_docs_show(example: Script, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    code = example.code
    if CLUSTER_ADDRESS in code:
        address = request.getfixturevalue("cluster_address")
        code = code.replace(CLUSTER_ADDRESS, address).replace(SHARED_DIRECTORY, f"{tmp_path}/")
        # The object store: the fault archive, read through fsspec as a URL.
        code = code.replace(OBJECT_STORE, (ROOT / "records" / "faults").as_uri() + "/")
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout == example.prints
    if SHARED_DIRECTORY in example.code and "failures-" in example.code:
        # What the example says it writes is there: one JSON line per failing game.
        written = sorted(tmp_path.glob("failures-*.jsonl"))
        assert written, "the example writes the failing games"
        lines = [ln for p in written for ln in p.read_text(encoding="utf-8").splitlines()]
        assert lines and all('"status": "' in ln and '"status": "ok"' not in ln for ln in lines)
    if "/shared/verdicts" in example.code:
        # The table the workers wrote: a directory a status.
        assert sorted(p.name for p in (tmp_path / "verdicts").iterdir()) == [
            "status=error", "status=illegal", "status=mismatch", "status=ok"
        ]


def test_the_architecture_names_every_module() -> None:
    """docs/architecture.md maps the package: a module added without its line
    fails here. A stage's ``__init__.py`` is named by its package's heading."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    package = ROOT / "keilref"

    def named(module: Path) -> bool:
        name = module.relative_to(package).as_posix()
        if f"`{name}`" in text:
            return True
        return module.name == "__init__.py" and f"`keilref/{module.parent.name}`" in text

    missing = [str(p.relative_to(package)) for p in sorted(package.rglob("*.py")) if not named(p)]
    assert missing == []


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_links_between_the_docs_lead_somewhere(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (doc.parent / path).resolve() if path else doc
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
            if anchor not in {_slug(h) for h in headings}:
                broken.append(target)
    assert broken == []
