"""A JSON array, one object per finding, with ruff's field names plus `name`, `severity`, `related`."""
from __future__ import annotations

import json
import os
from typing import Any

from scopelint.diagnostics import DOCS_URL, Diagnostic, Fix
from scopelint.engine import STDIN_PATH, RunResult, rule_info
from scopelint.output.options import FormatOptions
from scopelint.trace import Site


def _filename(path: str) -> str:
    # ruff writes absolute paths; stdin without --stdin-filename stays "-".
    return path if path == STDIN_PATH else os.path.abspath(path)


def _location(site: Site) -> dict[str, int]:
    return {"row": site.line, "column": site.column}


def rule_url(code: str) -> str:
    info = rule_info(code)
    return info.url if info is not None else f"{DOCS_URL}/README.md"  # no page of its own: the index


def fix_to_json(fix: Fix) -> dict[str, Any]:
    """ruff's fix object: applicability, message, edits with content and 1-based locations."""
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "edits": [
            {"content": edit.content,
             "location": {"row": edit.start[0], "column": edit.start[1]},
             "end_location": {"row": edit.end[0], "column": edit.end[1]}}
            for edit in fix.edits
        ],
    }


def diagnostic_to_json(diagnostic: Diagnostic) -> dict[str, Any]:
    site = diagnostic.site
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "filename": _filename(site.path),
        "cell": site.cell,  # ruff's field: in a notebook, the cell the rows count in; else null
        "location": _location(site),
        "end_location": {"row": site.end_line, "column": site.end_column},
        "fix": fix_to_json(diagnostic.fix) if diagnostic.fix is not None else None,
        "noqa_row": site.line,
        "url": rule_url(diagnostic.code),
        "certain": diagnostic.certain,
        "condition": diagnostic.condition,
        "paths": diagnostic.extra.get("paths", []),
        "related": [
            {
                "message": related.note,
                "filename": _filename(related.site.path) if related.site else None,
                "cell": related.site.cell if related.site else None,
                "location": _location(related.site) if related.site else None,
            }
            for related in diagnostic.related
        ],
    }


def format_json(run: RunResult, options: FormatOptions) -> str:
    return json.dumps([diagnostic_to_json(diagnostic) for diagnostic in run.diagnostics], indent=2) + "\n"
