"""The Helix recipe of docs/editors.md, read as the TOML Helix reads: it
defines the language server as ``keilref lsp`` and gives it to ``.keil``
files. No Helix runs it (the page says so): this holds its words, not
Helix's behaviour."""

from __future__ import annotations

import tomllib

from editor_support import recipe


def test_the_helix_recipe_starts_keilref_lsp_for_keil_files() -> None:
    config = tomllib.loads(recipe("## Helix", "toml"))
    assert config["language-server"] == {"keilref": {"command": "keilref", "args": ["lsp"]}}
    (language,) = config["language"]
    assert language["name"] == "keil" and language["scope"] == "source.keil"
    assert language["file-types"] == ["keil"]
    assert language["language-servers"] == ["keilref"]
    # A record is formatted when asked, not on every save.
    assert language["auto-format"] is False
