"""`pylint`: `path:line: [CODE] message`, the parseable format pylint and ruff write, which editors
and CI problem matchers already read."""
from __future__ import annotations

from scopelint.engine import RunResult
from scopelint.output.paths import workspace_path
from scopelint.output.options import FormatOptions


def format_pylint(run: RunResult, options: FormatOptions) -> str:
    lines = []
    for diagnostic in run.diagnostics:
        lines.append(f"{workspace_path(diagnostic.site.path)}:{diagnostic.site.line}: [{diagnostic.code}] {diagnostic.message_with_condition}\n")
    return "".join(lines)
