"""`grouped`: findings under their file's name, `line:col CODE message`, as ruff's grouped format.

    model.py:
      2:1  TFS101 Variable s/w already exists, disallowed. ...
      13:5 TFS201 tf.Variable ignores reuse ...
"""
from __future__ import annotations

from itertools import groupby

from rich.text import Text

from scopelint.engine import RunResult
from scopelint.output.options import FormatOptions
from scopelint.output.styles import code_text


def format_grouped(run: RunResult, options: FormatOptions) -> Text:
    groups = []
    # run.diagnostics is sorted by path, then position: one group per file, in that order.
    for path, found in groupby(run.diagnostics, key=lambda diagnostic: diagnostic.site.path):
        findings = list(found)
        width = max(len(d.site.position()) for d in findings)  # messages start in one column
        lines = [Text(f"{path}:", style="bold underline")]
        for diagnostic in findings:
            position = diagnostic.site.position()  # `cell 3:2:5` in a notebook
            lines.append(Text.assemble("  ", (f"{position:<{width}}", "cyan"), " ", code_text(diagnostic),
                                       f" {diagnostic.message_with_condition}"))
        groups.append(Text("\n").join(lines))
    return Text("\n\n").join(groups)
