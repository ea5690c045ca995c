"""`scopelint migrate`: the TF1 -> TF2 migration report, built on scopelint's trace.

collect (files -> ModuleFacts: trace, store observations, constructs) -> report (judged values) ->
render_markdown / render_html / render_json; inventory (variables, reuse map, name map),
recipes (the one recipe table), effort (the one weight table), checkpoint (--checkpoint, the only
place TensorFlow is imported, lazily).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scopelint.migrate.report import MigrationReport

# Report formats; the renderers are imported only when a report is written, so that registering
# the subcommand (done for every scopelint command line) costs nothing.
FORMATS = ("markdown", "html", "json")

# The name map's placeholder for the tf.train.Checkpoint attribute that holds the shim layer.
SHIM_ATTRIBUTE_PLACEHOLDER = "<attr>"


def render(report: "MigrationReport", report_format: str) -> str:
    if report_format == "html":
        from scopelint.migrate.render_html import render_html

        return render_html(report)
    if report_format == "json":
        from scopelint.migrate.render_json import render_json

        return render_json(report)
    from scopelint.migrate.render_markdown import render_markdown

    return render_markdown(report)
