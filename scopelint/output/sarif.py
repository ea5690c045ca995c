"""SARIF 2.1.0, as GitHub code scanning reads it (`github/codeql-action/upload-sarif`).

- `tool.driver.rules`: every known rule, with id, name, short and full description, help (text and
  markdown with the bad and good examples), helpUri and the default level.
- `results`: ruleId/ruleIndex, level, message, one physical location whose `artifactLocation.uri`
  is relative to the current directory with `uriBaseId` `%SRCROOT%` (absolute `file://` URIs for
  files outside it), a 1-based region whose `endColumn` is exclusive as SARIF defines it, related
  locations for the notes, and `partialFingerprints` that survive lines moving (see fingerprint.py).
- `invocations`: whether the run succeeded, with scopelint's own failures as notifications, and a
  note for each file whose analysis stopped at its work budget (budget_notes.py).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from scopelint.budget_notes import BudgetNote, describe
from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.engine import STDIN_PATH, RunResult, known_rules
from scopelint.fingerprint import keyed_findings, fingerprint
from scopelint.output.options import FormatOptions
from scopelint.output.paths import cell_prefix, file_lines
from scopelint.trace import Site

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "scopelint/v1"
INFORMATION_URI = "https://github.com/scopelint/scopelint"

# SARIF's levels; scopelint's `info` is SARIF's `note`.
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _level(severity: str) -> str:
    return LEVELS.get(severity, "warning")


def _help_markdown(info: RuleInfo) -> str:
    parts = [info.rationale or info.summary]
    for title, example in (("Bad", info.bad), ("Good", info.good)):
        if example.strip():
            parts.append(f"**{title}:**\n\n```python\n{example.rstrip()}\n```")
    return "\n\n".join(parts)


def _rule(info: RuleInfo) -> dict[str, Any]:
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.rationale or info.summary},
        "help": {"text": info.rationale or info.summary, "markdown": _help_markdown(info)},
        "helpUri": info.url,
        "defaultConfiguration": {"level": _level(info.severity)},
        "properties": {"tags": ["tensorflow", "variable-scope"], "precision": "high"},
    }


def _artifact_location(path: str) -> dict[str, str]:
    if path == STDIN_PATH:
        return {"uri": "stdin"}
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, os.getcwd())
    if relative == ".." or relative.startswith(".." + os.sep):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(Path(relative).as_posix()), "uriBaseId": SRCROOT}


def _physical_location(site: Site) -> dict[str, Any]:
    line, column, end_line, end_column = file_lines(site)  # 1:1 in a notebook (a JSON file)
    return {
        "artifactLocation": _artifact_location(site.path),
        "region": {
            "startLine": max(line, 1),
            "startColumn": max(column, 1),
            "endLine": max(end_line, line, 1),
            "endColumn": max(end_column, 1),
        },
    }


def _budget_notification(path: str, note: BudgetNote) -> dict[str, Any]:
    location = _physical_location(note.call_site) if note.call_site is not None \
        else {"artifactLocation": _artifact_location(path)}
    return {"level": "note", "message": {"text": f"{path}: {describe(note)}"}, "locations": [{"physicalLocation": location}]}


def _result(diagnostic: Diagnostic, rule_index: dict[str, int], fingerprint_value: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "level": _level(diagnostic.severity),
        "message": {"text": f"{cell_prefix(diagnostic.site)}{diagnostic.message}"},
        "locations": [{"physicalLocation": _physical_location(diagnostic.site)}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint_value},
        "properties": {"certain": diagnostic.certain, "name": diagnostic.name},
    }
    if diagnostic.site.cell is not None:
        # Where in the notebook: SARIF regions count the file's lines, and a notebook's are JSON.
        result["properties"]["cell"] = diagnostic.site.cell
        result["properties"]["cellLocation"] = {"row": diagnostic.site.line, "column": diagnostic.site.column}
    if diagnostic.condition is not None:
        result["properties"]["condition"] = diagnostic.condition
        result["properties"]["paths"] = diagnostic.extra.get("paths", [])
    if diagnostic.code in rule_index:
        result["ruleIndex"] = rule_index[diagnostic.code]
    related = [
        {"id": number, "message": {"text": f"{cell_prefix(note.site)}{note.note}"}, "physicalLocation": _physical_location(note.site)}
        for number, note in enumerate(diagnostic.related, start=1)
        if note.site is not None
    ]
    if related:
        result["relatedLocations"] = related
    if diagnostic.fix is not None:
        result["fixes"] = [_fix(diagnostic)]
    return result


def _fix(diagnostic: Diagnostic) -> dict[str, Any]:
    """SARIF 2.1.0 §3.55: a fix is replacements in one artifact (each edit a deleted region and its
    inserted text); its applicability goes in the description and the properties."""
    assert diagnostic.fix is not None
    fix = diagnostic.fix
    return {
        "description": {"text": f"{fix.message} ({fix.applicability} fix)"},
        "artifactChanges": [{
            "artifactLocation": _artifact_location(diagnostic.site.path),
            "replacements": [
                {
                    "deletedRegion": {"startLine": edit.start[0], "startColumn": edit.start[1],
                                      "endLine": edit.end[0], "endColumn": edit.end[1]},
                    "insertedContent": {"text": edit.content},
                }
                for edit in fix.edits
            ],
        }],
        "properties": {"applicability": fix.applicability},
    }


def sarif_log(run: RunResult) -> dict[str, Any]:
    from scopelint.version import VERSION  # importlib.metadata: only the SARIF output needs it

    rules = known_rules()
    rule_index = {info.code: index for index, info in enumerate(rules)}
    results = [
        _result(diagnostic, rule_index, fingerprint(key, occurrence))
        for diagnostic, key, occurrence in keyed_findings(run, os.getcwd())
    ]
    notifications = [
        {"level": "error", "message": {"text": f"{unreadable.path}: {unreadable.error}"}}
        for unreadable in run.read_errors
    ] + [
        {"level": "error", "message": {"text": f"internal error on {error.path}: {error.message}"}}
        for error in run.internal_errors
    ]
    # Files whose analysis ran out of its work budget: the run succeeded, but checked less there.
    notes = [_budget_notification(result.path, result.budget_note) for result in run.files
             if result.budget_note is not None]
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "scopelint",
                        "version": VERSION,
                        "semanticVersion": VERSION if VERSION[0].isdigit() and "+" not in VERSION else None,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(info) for info in rules],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": Path(os.getcwd()).as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [
                    {"executionSuccessful": not notifications, "toolExecutionNotifications": notifications + notes}
                ],
                "results": results,
            }
        ],
    }


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _drop_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_drop_none(item) for item in value]
    return value


def format_sarif(run: RunResult, options: FormatOptions) -> str:
    return json.dumps(_drop_none(sarif_log(run)), indent=2) + "\n"
