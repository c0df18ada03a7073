"""The map of a document in a real Neovim, with the recipe of
docs/editors.md: the code lenses its page says to refresh show each game's
verdict, and the outline Neovim asks for is the tree of games."""

from __future__ import annotations

from pathlib import Path

from editor_support import editor_env, run_neovim_probe
from test_neovim import nvim, recipe

TWO_GAMES = (
    '[Event "nvim"]\n[Rules "keil"]\n[Size "5"]\n[Komi "3"]\n[Button "yes"]\n\n1. e5 f3 *\n\n'
    '[Event "nvim 2"]\n[Rules "keil"]\n[Size "5"]\n[Komi "3"]\n[Button "yes"]\n\n1. e5 e5 *\n'
)

# Refreshes the lenses as the page says, waits for them, and asks for the outline.
PROBE = r"""
local out = { lenses = {}, symbols = {} }
local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  local clients = vim.lsp.get_clients or vim.lsp.get_active_clients
  vim.wait(30000, function()
    for _, c in ipairs(clients()) do
      if vim.lsp.buf_is_attached(buf, c.id) then return true end
    end
    return false
  end, 50)
  vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  vim.lsp.codelens.refresh()
  vim.wait(30000, function() return #vim.lsp.codelens.get(buf) > 0 end, 50)
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    table.insert(out.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title or "" })
  end
  local symbols = vim.lsp.buf_request_sync(buf, "textDocument/documentSymbol", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
  }, 30000)
  for _, r in pairs(symbols or {}) do
    for _, s in ipairs(r.result or {}) do
      table.insert(out.symbols, { name = s.name, detail = s.detail or "", line = s.selectionRange.start.line })
    end
  end
end)
if not ok then out.error = tostring(err) end
local f = assert(io.open(os.getenv("KEILREF_PROBE_OUT"), "w"))
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd("qa!")
"""


def test_neovim_shows_each_games_verdict_as_a_lens_and_the_games_as_its_outline(tmp_path: Path) -> None:
    program = nvim()
    (tmp_path / "init.lua").write_text(recipe(), encoding="utf-8")
    (tmp_path / "probe.lua").write_text(PROBE, encoding="utf-8")
    record = tmp_path / "two.keil"
    record.write_text(TWO_GAMES, encoding="utf-8")
    out = run_neovim_probe(program, tmp_path, record, tmp_path, editor_env(tmp_path))
    assert out["lenses"] == [
        {"line": 0, "title": "unfinished: score so far W+3"},
        {"line": 8, "title": "illegal at move 1"},
    ]
    assert out["symbols"] == [
        {"name": "nvim", "detail": "unfinished: computed -, declared *; score so far W+3", "line": 0},
        {"name": "nvim 2", "detail": "illegal: move 1 (White) e5, turn 2: occupied", "line": 8},
    ]
