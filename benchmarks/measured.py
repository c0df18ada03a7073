"""Which keilref a benchmark measures: the one installed in the Python that runs it.

No benchmark puts the checkout ahead of the installed package on
``sys.path``: run with the fast build's Python, a benchmark measures the
compiled kernel; run with a plain or editable install, the pure one. Each
prints :func:`measuring` first, so its figures say which they are.
"""

from __future__ import annotations

import sys
from pathlib import Path

import keilref
from keilref.engine.kernel import is_compiled

ROOT = Path(__file__).resolve().parent.parent

# -P: the keilref installed in this interpreter, not the checkout's source
# from the working directory, which ``-m`` would otherwise put first.
KEILREF = [sys.executable, "-P", "-m", "keilref"]


def measuring() -> str:
    """One line: the version, the kernel and where the package was imported from."""
    kernel = "compiled" if is_compiled() else "Python"
    return f"measuring: keilref {keilref.__version__}, engine kernel: {kernel} ({Path(keilref.__file__).parent})"


def use_test_references() -> None:
    """Make the literal references and game helpers in ``tests/`` importable, after the installed
    package, so that they can never shadow it."""
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.append(tests)
