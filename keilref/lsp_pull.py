"""Diagnostics pulled by the editor (``textDocument/diagnostic``): the same
diagnostics the server pushes to an editor that cannot pull, each report
named by a result id so that the editor's next pull of an unchanged list is
answered ``unchanged`` rather than with the whole list again.

An editor that says it can pull (its ``textDocument.diagnostic``
capability) is not pushed to: it would show each diagnostic twice, once
from each.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from lsprotocol import types as lsp

__all__ = ["Pulled", "Report", "pulls"]

Report = lsp.RelatedFullDocumentDiagnosticReport | lsp.RelatedUnchangedDocumentDiagnosticReport


def pulls(capabilities: lsp.ClientCapabilities) -> bool:
    """Whether the client pulls diagnostics (and so is not pushed them)."""
    text_document = capabilities.text_document
    return text_document is not None and text_document.diagnostic is not None


@dataclass
class Pulled:
    """The diagnostics last reported to each document's pulls, under their result id."""

    last: dict[str, tuple[str, Sequence[lsp.Diagnostic]]] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def report(self, uri: str, diagnostics: Sequence[lsp.Diagnostic] | None, previous: str | None) -> Report:
        """The report of ``diagnostics``: ``unchanged`` where the client's
        ``previous`` result holds them already; for a document that is not
        open (``None``), none, and nothing kept."""
        if diagnostics is None:
            self.forget(uri)
            return lsp.RelatedFullDocumentDiagnosticReport(items=[])
        last = self.last.get(uri)
        if last is None or list(last[1]) != list(diagnostics):
            last = str(next(self.ids)), diagnostics
            self.last[uri] = last
        elif previous == last[0]:
            return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=last[0])
        return lsp.RelatedFullDocumentDiagnosticReport(items=list(diagnostics), result_id=last[0])

    def forget(self, uri: str) -> None:
        self.last.pop(uri, None)
