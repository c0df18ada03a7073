#!/usr/bin/env node
// Tokenizes texts with editors/keil.tmLanguage.json as VS Code does:
// vscode-textmate over vscode-oniguruma, line by line, each line's rule
// stack handed to the next.
//
// Reads a JSON array of texts on standard input; writes a JSON array with,
// for each text, its tokens as [line, start, end, scopes] (0-based line,
// start and end in UTF-16 units), lines split where LSP splits them (LF,
// CRLF, CR). Tokens with no scope but source.keil are left out.
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const GRAMMAR = path.resolve(__dirname, "..", "keil.tmLanguage.json");

async function main() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== "source.keil") return null;
      return vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR, "utf8"), GRAMMAR);
    },
  });
  const grammar = await registry.loadGrammar("source.keil");
  const texts = JSON.parse(fs.readFileSync(0, "utf8"));
  const out = texts.map((text) => {
    const tokens = [];
    let stack = vsctm.INITIAL;
    text.split(/\r\n|\r|\n/).forEach((line, number) => {
      const result = grammar.tokenizeLine(line, stack);
      for (const token of result.tokens) {
        const end = Math.min(token.endIndex, line.length);
        if (token.scopes.length > 1 && end > token.startIndex) {
          tokens.push([number, token.startIndex, end, token.scopes.slice(1)]);
        }
      }
      stack = result.ruleStack;
    });
    return tokens;
  });
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
