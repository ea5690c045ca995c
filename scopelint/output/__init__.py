"""Output formats: each is a function of the run's results.

A formatter returns either a `rich.text.Text` (human formats: styled on a terminal, plain when piped)
or a `str` (machine formats, written verbatim).  Machine formats: json, json-lines, sarif, github,
gitlab, azure, junit, pylint, rdjson.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from rich.text import Text

from scopelint.diagnostics import Diagnostic
from scopelint.engine import RunResult
from scopelint.output.azure import format_azure
from scopelint.output.concise import format_concise
from scopelint.output.full import format_full
from scopelint.output.github import format_github
from scopelint.output.gitlab import format_gitlab
from scopelint.output.grouped import format_grouped
from scopelint.output.json_format import format_json
from scopelint.output.json_lines import format_json_lines
from scopelint.output.junit import format_junit
from scopelint.output.options import FormatOptions
from scopelint.output.pylint import format_pylint
from scopelint.output.rdjson import format_rdjson
from scopelint.output.sarif import format_sarif
from scopelint.output.statistics import format_statistics_json, format_statistics_text

Formatter = Callable[[RunResult, FormatOptions], "Text | str"]

FORMATTERS: dict[str, Formatter] = {
    "full": format_full,
    "concise": format_concise,
    "grouped": format_grouped,
    "json": format_json,
    "json-lines": format_json_lines,
    "sarif": format_sarif,
    "github": format_github,
    "gitlab": format_gitlab,
    "junit": format_junit,
    "pylint": format_pylint,
    "rdjson": format_rdjson,
    "azure": format_azure,
}

# Formats that a summary line ("Found 3 errors.") follows, as in ruff.
SUMMARY_FORMATS = frozenset({"full", "concise", "grouped"})

# --statistics in each format; human formats share the table.
STATISTICS_FORMATTERS: dict[str, Callable[[RunResult], "Text | str"]] = {
    "full": format_statistics_text,
    "concise": format_statistics_text,
    "grouped": format_statistics_text,
    "json": format_statistics_json,
    # The machine formats (sarif, github, junit, gitlab, ...) have none: a table in their stream made
    # it invalid for its reader, so `check` refuses the combination.
}


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def summary_line(findings: Sequence[Diagnostic], unchecked_files: int = 0) -> str:
    """ruff's closing line, with errors and warnings counted apart ("Found 2 errors and 1 warning.");
    it never claims success for a run in which some files went unchecked."""
    by_severity = Counter(finding.severity for finding in findings)
    parts = [
        _count(by_severity[severity], singular, plural)
        for severity, singular, plural in (("error", "error", "errors"), ("warning", "warning", "warnings"), ("info", "info", "info"))
        if by_severity[severity]
    ] or ["0 errors"]
    counted = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    if unchecked_files:
        return f"Found {counted}; {_count(unchecked_files, 'file', 'files')} could not be checked."
    if not findings:
        return "All checks passed!"
    return f"Found {counted}."


__all__ = ["FORMATTERS", "STATISTICS_FORMATTERS", "SUMMARY_FORMATS", "FormatOptions", "Formatter", "summary_line"]
