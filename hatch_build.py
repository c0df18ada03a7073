"""The optional fast build: the engine's kernel compiled with mypyc, and the native path.

Off unless ``KEILREF_COMPILE=1`` is set while a wheel is built::

    KEILREF_COMPILE=1 pip install .

Then ``keilref/engine/kernel.py`` is compiled with mypyc into an extension
module that the wheel carries beside the source, and Python imports it
instead of the source; ``keilref/_native.pyx`` is compiled with Cython into
the native path that reads, replays and scores plain Keil games
(:mod:`keilref.referee.native`), which exists only in this build.
Without the variable nothing is compiled and nothing more is installed: a
plain ``pip install`` or ``pip install -e .`` needs no compiler and runs the
same kernel as Python. Building in a temporary folder keeps compiled files
out of the checkout, where a stale one would shadow an edited source.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED = ("keilref/engine/kernel.py",)
"""The modules compiled with mypyc: plain functions over ints, importing nothing of keilref."""

NATIVE = ("keilref/_native.pyx",)
"""The native path, in Cython (:mod:`keilref.referee.native` says what it does)."""

_SETUP = """\
from Cython.Build import cythonize
from mypyc.build import mypycify
from setuptools import Extension, setup

native = [Extension(path[:-4].replace("/", "."), [path]) for path in {native!r}]
setup(
    name="keilref-kernel",
    ext_modules=mypycify({modules!r}, opt_level="3")
    + cythonize(native, compiler_directives={{"language_level": 3}}, quiet=True),
)
"""


class KernelBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def _wanted(self) -> bool:
        return os.environ.get("KEILREF_COMPILE") == "1" and self.target_name == "wheel"

    def dependencies(self) -> list[str]:
        return ["mypy>=1.10", "setuptools>=69", "cython>=3.0"] if self._wanted() else []

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if not self._wanted():
            return
        if version == "editable":
            raise RuntimeError(
                "KEILREF_COMPILE=1 builds a wheel with the compiled kernel, and an editable "
                "install runs the source: use `KEILREF_COMPILE=1 pip install .`"
            )
        self._build_dir = tempfile.mkdtemp(prefix="keilref-kernel-")
        build = Path(self._build_dir)
        for module in COMPILED + NATIVE:
            (build / module).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(self.root) / module, build / module)
        for module in COMPILED + NATIVE:
            # Every package above a compiled module, so mypyc names it by its full path.
            for package in Path(module).parents:
                if package != Path("."):
                    (build / package / "__init__.py").write_text("", encoding="utf-8")
        setup = _SETUP.format(modules=list(COMPILED), native=list(NATIVE))
        (build / "setup.py").write_text(setup, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=build,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"compiling the kernel (mypyc) and the native path (Cython) failed:\n{done.stdout}")
        built = [p for p in build.rglob("*") if p.suffix in (".so", ".pyd") and "build" not in p.relative_to(build).parts]
        if not built:
            raise RuntimeError(f"mypyc made no extension module:\n{done.stdout}")
        for path in built:
            build_data["force_include"][str(path)] = str(path.relative_to(build))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        build_dir = getattr(self, "_build_dir", None)
        if build_dir is not None:
            shutil.rmtree(build_dir, ignore_errors=True)
