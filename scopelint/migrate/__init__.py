"""`scopelint migrate`: the TF1 -> TF2 migration report, built on scopelint's trace.

collect (files -> ModuleFacts: trace, store observations, constructs) -> report (judged values) ->
render_markdown / render_html / render_json; inventory (variables, reuse map, name map),
recipes (the one recipe table), effort (the one weight table), checkpoint (--checkpoint, the only
place TensorFlow is imported, lazily).
"""
from __future__ import annotations

from collections.abc import Callable

from scopelint.migrate.render_html import render_html
from scopelint.migrate.render_json import render_json
from scopelint.migrate.render_markdown import render_markdown
from scopelint.migrate.report import MigrationReport, build_report

RENDERERS: dict[str, Callable[[MigrationReport], str]] = {
    "markdown": render_markdown,
    "html": render_html,
    "json": render_json,
}

__all__ = ["RENDERERS", "MigrationReport", "build_report"]
