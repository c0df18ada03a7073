"""The Emacs (eglot) recipe of docs/editors.md, run by a real Emacs in batch
mode: a ``.keil`` file opens in ``keil-mode``, eglot starts ``keilref lsp``
for it, and Flymake holds the diagnostic of an illegal turn where ``keilref
check`` places it.

The recipe is read from the page, so the page cannot drift from what is
tested. Without ``emacs``, or with an Emacs that has no eglot, the test
skips, unless ``KEILREF_REQUIRE_EMACS=1`` (as CI sets it) makes that a
failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

# The editor starts `keilref lsp`, which needs the optional extra.
pytest.importorskip("pygls")

from editor_support import OCCUPIED, OCCUPIED_COLUMN, OCCUPIED_LINE, OCCUPIED_MESSAGE, editor_env, recipe  # noqa: E402

HEADING = "## Emacs (eglot)"

# Loads the recipe as an init file would be, opens the record, lets the
# command loop's hooks run once (batch mode has no command loop, and eglot
# sends its changes and Flymake reports from them), waits for the
# diagnostics and writes them as JSON.
PROBE = r"""
(require 'package)
(package-activate-all)
(setq keilref-out nil)
(defun keilref-finish ()
  (with-temp-file (getenv "KEILREF_PROBE_OUT") (insert (json-encode keilref-out)))
  (kill-emacs 0))
(unless (require 'eglot nil t)
  (push (cons 'eglot :json-false) keilref-out)
  (keilref-finish))
(push (cons 'eglot t) keilref-out)
(load (getenv "KEILREF_RECIPE") nil t)
(find-file (getenv "KEILREF_RECORD"))
(push (cons 'mode (symbol-name major-mode)) keilref-out)
(run-hooks 'post-command-hook)
(let ((deadline (+ (float-time) 20)))
  (while (and (null (flymake-diagnostics)) (< (float-time) deadline))
    (accept-process-output nil 0.05)))
(push (cons 'server (if (eglot-current-server) t :json-false)) keilref-out)
(push (cons 'diagnostics
            (vconcat
             (mapcar (lambda (d)
                       (let ((beg (flymake-diagnostic-beg d)))
                         (list (cons 'line (line-number-at-pos beg))
                               (cons 'column (save-excursion (goto-char beg) (current-column)))
                               (cons 'length (- (flymake-diagnostic-end d) beg))
                               (cons 'type (symbol-name (flymake-diagnostic-type d)))
                               (cons 'text (flymake-diagnostic-text d)))))
                     (flymake-diagnostics))))
      keilref-out)
(keilref-finish)
"""


def emacs() -> str:
    found = shutil.which("emacs")
    if found is None:
        missing("emacs is not installed")
    return str(found)


def missing(why: str) -> None:
    if os.environ.get("KEILREF_REQUIRE_EMACS") == "1":
        pytest.fail(f"{why}, and KEILREF_REQUIRE_EMACS=1 requires it (apt-get install emacs-nox elpa-eglot)")
    pytest.skip(f"{why} (KEILREF_REQUIRE_EMACS=1 makes this a failure)")


def test_the_recipe_starts_keilref_through_eglot() -> None:
    text = recipe(HEADING, "elisp")
    assert "(define-derived-mode keil-mode prog-mode" in text
    assert """'("\\\\.keil\\\\'" . keil-mode)""" in text
    assert """'(keil-mode "keilref" "lsp")""" in text and "#'eglot-ensure" in text


def test_emacs_with_the_recipe_shows_the_diagnostic(tmp_path: Path) -> None:
    program = emacs()
    env = editor_env(tmp_path)
    init = tmp_path / "init.el"
    init.write_text(recipe(HEADING, "elisp"), encoding="utf-8")
    probe = tmp_path / "probe.el"
    probe.write_text(PROBE, encoding="utf-8")
    record = tmp_path / "club" / "occupied.keil"
    record.parent.mkdir()
    record.write_text(OCCUPIED, encoding="utf-8")
    results = tmp_path / "results.json"
    done = subprocess.run(
        # --batch reads no init file of the user's (HOME is empty besides),
        # but the site's start files, where Debian makes its ELPA packages
        # (elpa-eglot) loadable.
        [program, "--batch", "-l", str(probe)],
        cwd=record.parent,
        env={**env, "KEILREF_PROBE_OUT": str(results), "KEILREF_RECIPE": str(init), "KEILREF_RECORD": str(record)},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert results.exists(), (done.returncode, done.stdout, done.stderr)
    out = json.loads(results.read_text(encoding="utf-8"))
    if out["eglot"] is False:
        missing("this Emacs has no eglot")
    assert out["mode"] == "keil-mode"
    assert out["server"] is True, done.stderr
    (diagnostic,) = out["diagnostics"]
    # Emacs counts lines from 1 and columns from 0.
    assert (diagnostic["line"], diagnostic["column"], diagnostic["length"]) == (OCCUPIED_LINE + 1, OCCUPIED_COLUMN, 2)
    assert diagnostic["type"] == "eglot-error"
    # eglot puts the server's source (1.9 also the code) before the words.
    assert diagnostic["text"].startswith("keilref") and diagnostic["text"].endswith(": " + OCCUPIED_MESSAGE)
