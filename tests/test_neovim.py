"""The recipe of docs/editors.md for Neovim 0.7 to 0.10, run by a real Neovim: the client
attaches, and diagnostics, hover, formatting and a quick fix answer.

The recipe is taken from the page itself, so the page cannot drift from
what is tested. Without ``nvim`` the test skips, unless
``KEILREF_REQUIRE_NEOVIM=1`` (as CI sets it) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from editor_support import editor_env, run_neovim_probe
from editor_support import recipe as editor_recipe

ROOT = Path(__file__).resolve().parent.parent

# A record of one game, badly laid out (a tag name misspelt, the turns
# crowded on one line): a warning to show, a fix to offer, and work for fmt.
MESSY = (
    '[Event "nvim"]\n'
    '[Rules "keil"]\n'
    '[Size "3"]\n'
    '[KOMI "1"]\n'
    '[Button "yes"]\n'
    '[Result "W+3.5"]\n'
    "\n"
    "1.  c5 d5 2. e5 button 3. a3 a1 4. c2 e4 5. c1 b4 6. d2 b2 7. e3 b3 8. c3 d3 9. d4 c5 10. e3 d3 "
    "11. e5 c4 12. e4 b1 13. pass pass W+3.5\n"
)
KOMI_LINE = 3  # 0-based, as Neovim counts
TURNS_LINE = 7

# Waits for the client and the diagnostics, then asks what a user's keys
# would ask, and writes the answers as JSON. Written for Neovim 0.7's API,
# which later versions keep.
PROBE = r"""
local out = { attached = false, diagnostics = {}, hover = "", actions = {}, before = "", after = "" }
local function finish()
  local f = assert(io.open(os.getenv("KEILREF_PROBE_OUT"), "w"))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end
local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype
  local clients = vim.lsp.get_clients or vim.lsp.get_active_clients
  local client = nil
  out.attached = vim.wait(30000, function()
    for _, c in ipairs(clients()) do
      if vim.lsp.buf_is_attached(buf, c.id) then
        client = c
        return true
      end
    end
    return false
  end, 50)
  if not out.attached then return end
  out.client = client.name
  vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message })
  end
  local uri = vim.uri_from_bufnr(buf)
  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = uri }, position = { line = TURNS_LINE, character = 4 },
  }, 30000)
  for _, r in pairs(hover or {}) do
    if r.result and r.result.contents then
      local c = r.result.contents
      out.hover = type(c) == "string" and c or (c.value or "")
    end
  end
  local line_end = #vim.api.nvim_buf_get_lines(buf, KOMI_LINE, KOMI_LINE + 1, false)[1]
  local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = { start = { line = KOMI_LINE, character = 0 }, ["end"] = { line = KOMI_LINE, character = line_end } },
    context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, KOMI_LINE) },
  }, 30000)
  for _, r in pairs(actions or {}) do
    for _, a in ipairs(r.result or {}) do table.insert(out.actions, a.title) end
  end
  out.before = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  local edits = vim.lsp.buf_request_sync(buf, "textDocument/formatting", {
    textDocument = { uri = uri }, options = { tabSize = 4, insertSpaces = true },
  }, 30000)
  for _, r in pairs(edits or {}) do
    if r.result then vim.lsp.util.apply_text_edits(r.result, buf, client.offset_encoding or "utf-16") end
  end
  out.after = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end)
if not ok then out.error = tostring(err) end
finish()
"""


def recipe() -> str:
    """The first Lua block of the page's part for Neovim 0.7 to 0.10: the recipe a reader copies."""
    return editor_recipe("### Neovim 0.7 to 0.10", "lua")


def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        if os.environ.get("KEILREF_REQUIRE_NEOVIM") == "1":
            pytest.fail("nvim is not installed, and KEILREF_REQUIRE_NEOVIM=1 requires it (apt-get install neovim)")
        pytest.skip("nvim is not installed (KEILREF_REQUIRE_NEOVIM=1 makes this a failure)")
    return found


def test_the_recipe_is_the_one_for_every_version() -> None:
    text = recipe()
    # One recipe: vim.lsp.start where it exists (0.8), start_client and buf_attach_client on 0.7.
    assert 'vim.fn.has("nvim-0.8")' in text
    assert "vim.lsp.start(config)" in text and "vim.lsp.start_client(config)" in text
    assert "vim.lsp.buf_attach_client(args.buf" in text and '"*.keil"' in text


def test_neovim_with_the_recipe_checks_hovers_fixes_and_formats(tmp_path: Path) -> None:
    program = nvim()
    (tmp_path / "init.lua").write_text(recipe(), encoding="utf-8")
    probe = PROBE.replace("TURNS_LINE", str(TURNS_LINE)).replace("KOMI_LINE", str(KOMI_LINE))
    (tmp_path / "probe.lua").write_text(probe, encoding="utf-8")
    record = tmp_path / "club" / "messy.keil"
    record.parent.mkdir()
    record.write_text(MESSY, encoding="utf-8")
    # `keilref` on the PATH is this checkout's, run by this Python; nothing of the user's own settings.
    env = editor_env(tmp_path)
    out = run_neovim_probe(program, tmp_path, record, record.parent, env)
    assert out["filetype"] == "keil"
    assert out["attached"] is True and out["client"] == "keilref"
    at_komi = [d for d in out["diagnostics"] if d["lnum"] == KOMI_LINE]
    assert at_komi and "KOMI" in at_komi[0]["message"] and "Komi" in at_komi[0]["message"], out["diagnostics"]
    assert at_komi[0]["col"] == 0  # the tag, at its "[", as `keilref check` places it (4:1)
    assert out["hover"].strip(), "the hover over a turn is empty"
    assert "Rename tag KOMI to Komi" in out["actions"], out["actions"]
    assert out["before"] + "\n" == MESSY
    formatted = subprocess.run(
        [sys.executable, "-m", "keilref", "fmt", "-"], input=MESSY, capture_output=True, text=True, cwd=ROOT, check=False
    ).stdout
    assert out["after"] != out["before"]
    assert out["after"] + "\n" == formatted
