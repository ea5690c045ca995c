"""`pylint`: `path:line: [CODE] message`, the parseable format pylint and ruff write, which editors
and CI problem matchers already read."""
from __future__ import annotations

from scopelint.engine import RunResult
from scopelint.output.paths import cell_prefix, file_lines, workspace_path
from scopelint.output.options import FormatOptions


def format_pylint(run: RunResult, options: FormatOptions) -> str:
    lines = []
    for diagnostic in run.diagnostics:
        site = diagnostic.site
        lines.append(f"{workspace_path(site.path)}:{file_lines(site)[0]}: [{diagnostic.code}] {cell_prefix(site)}{diagnostic.message_with_condition}\n")
    return "".join(lines)
