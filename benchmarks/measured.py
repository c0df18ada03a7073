"""Which keilref a benchmark measures: the one installed in the Python that runs it.

No benchmark puts the checkout ahead of the installed package on
``sys.path`` (a script's own folder, ``benchmarks/``, is first, not the
checkout): run with the fast build's Python, a benchmark measures the
compiled kernel; run with a plain or editable install, the pure one. Each
prints :func:`measuring` first, so its figures say which they are; one that
runs keilref in processes of its own prints :func:`installed_keilref` too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import keilref
from keilref.referee.native import describe_build

ROOT = Path(__file__).resolve().parent.parent

# -P: the keilref installed in this interpreter, not the checkout's source
# from the working directory, which ``-m`` would otherwise put first.
KEILREF = [sys.executable, "-P", "-m", "keilref"]

_WHERE = "import keilref, pathlib; print(pathlib.Path(keilref.__file__).parent)"


def version() -> str:
    """The version, engine kernel and native path of the keilref imported here, as ``keilref --version`` says them."""
    return f"keilref {keilref.__version__} ({describe_build()})"


def measuring() -> str:
    """One line: the version, the kernel and where the package was imported from."""
    return f"measuring: {version()}, package {Path(keilref.__file__).parent}"


def installed_keilref(env: Mapping[str, str] | None = None) -> str:
    """What ``keilref --version`` says in a process of its own, as the benchmarks start
    keilref (``KEILREF``), and where that process imports the package from."""
    environ = dict(os.environ if env is None else env)
    said = subprocess.run([*KEILREF, "--version"], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=environ, check=True)
    where = subprocess.run([sys.executable, "-P", "-c", _WHERE], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=environ, check=True)
    return f"{said.stdout.strip()}, package {where.stdout.strip()}"


def use_test_references() -> None:
    """Make the literal references and game helpers in ``tests/`` importable, after the installed
    package, so that they can never shadow it."""
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.append(tests)
