"""`rdjson`: reviewdog's Diagnostic Format (rdjson), so `reviewdog -f=rdjson` posts findings as review
comments.  One document: `source`, then `diagnostics`, each with `message`, `location` (path and a
1-based range), `severity` (ERROR, WARNING, INFO), `code` (value and the rule's page) and
`related_locations`.  Columns are counted in characters, as every scopelint format counts them
(rdjson counts UTF-8 bytes: the two differ only after a non-ASCII character on the line)."""
from __future__ import annotations

import json
from typing import Any

from scopelint.engine import RunResult
from scopelint.output.paths import cell_prefix, file_lines, workspace_path
from scopelint.output.json_format import rule_url
from scopelint.output.options import FormatOptions
from scopelint.trace import Site

SEVERITIES = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}
HOMEPAGE = "https://github.com/scopelint/scopelint"


def _location(site: Site) -> dict[str, Any]:
    line, column, end_line, end_column = file_lines(site)
    return {
        "path": workspace_path(site.path),
        "range": {"start": {"line": line, "column": column}, "end": {"line": end_line, "column": end_column}},
    }


def rdjson_document(run: RunResult) -> dict[str, Any]:
    diagnostics = []
    for diagnostic in run.diagnostics:
        entry: dict[str, Any] = {
            "message": f"{cell_prefix(diagnostic.site)}{diagnostic.message_with_condition}",
            "location": _location(diagnostic.site),
            "severity": SEVERITIES.get(diagnostic.severity, "WARNING"),
            "code": {"value": diagnostic.code, "url": rule_url(diagnostic.code)},
        }
        related = [{"message": f"{cell_prefix(r.site)}{r.note}", "location": _location(r.site)} for r in diagnostic.related if r.site is not None]
        if related:
            entry["related_locations"] = related
        diagnostics.append(entry)
    return {"source": {"name": "scopelint", "url": HOMEPAGE}, "diagnostics": diagnostics}


def format_rdjson(run: RunResult, options: FormatOptions) -> str:
    return json.dumps(rdjson_document(run), indent=2) + "\n"
