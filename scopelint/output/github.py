"""GitHub Actions workflow commands: one annotation per finding, shown on the pull request's diff.

    ::error file=model.py,line=7,col=17,endLine=7,endColumn=62,title=TFS201 (variable-ignores-reuse)::message

Values are escaped as the Actions runner unescapes them: `%`, CR and LF everywhere, and also `:` and
`,` inside properties.
"""
from __future__ import annotations

from scopelint.diagnostics import Diagnostic
from scopelint.engine import RunResult
from scopelint.output.options import FormatOptions
from scopelint.output.paths import cell_prefix, file_lines, workspace_path

# Workflow command per severity; `info` findings are notices.
COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(diagnostic: Diagnostic) -> str:
    site = diagnostic.site
    line, column, end_line, end_column = file_lines(site)
    properties = {
        "file": workspace_path(site.path),
        "line": str(line),
        "col": str(column),
        "endLine": str(end_line),
        "endColumn": str(end_column),
        "title": f"{diagnostic.code} ({diagnostic.name})",
    }
    written = ",".join(f"{name}={escape_property(value)}" for name, value in properties.items())
    command = COMMANDS.get(diagnostic.severity, "warning")
    return f"::{command} {written}::{escape_data(f'{cell_prefix(site)}{diagnostic.code} {diagnostic.message_with_condition}')}"


def format_github(run: RunResult, options: FormatOptions) -> str:
    return "".join(annotation(diagnostic) + "\n" for diagnostic in run.diagnostics)
