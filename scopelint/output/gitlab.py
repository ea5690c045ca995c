"""`gitlab`: a GitLab Code Quality report (the `codequality` artifact of a job), shown on merge
requests.  Each finding is an object with `description`, `check_name`, `fingerprint`, `severity`
and `location` (`path` relative to the project, `lines.begin`/`end`), as GitLab documents it.

Paths are relative to `$CI_PROJECT_DIR` (the checkout, in a GitLab job), else to the working
directory; fingerprints are the baseline's, so a finding keeps its identity when lines move.
"""
from __future__ import annotations

import json
import os
from typing import Any

from scopelint.engine import RunResult
from scopelint.fingerprint import fingerprint, keyed_findings
from scopelint.output.options import FormatOptions
from scopelint.output.paths import cell_prefix, file_lines

# GitLab's levels are info, minor, major, critical and blocker.  An error is what TensorFlow raises
# at graph build (the program cannot start): critical; a warning a silent wrong result: major.
SEVERITIES = {"error": "critical", "warning": "major", "info": "info"}


def project_dir() -> str:
    return os.environ.get("CI_PROJECT_DIR") or os.getcwd()


def gitlab_issues(run: RunResult) -> list[dict[str, Any]]:
    issues = []
    for diagnostic, key, occurrence in keyed_findings(run, project_dir()):
        issues.append({
            "description": f"{cell_prefix(diagnostic.site)}{diagnostic.code} {diagnostic.message_with_condition}",
            "check_name": diagnostic.code,
            "fingerprint": fingerprint(key, occurrence),
            "severity": SEVERITIES.get(diagnostic.severity, "major"),
            "location": {"path": key.path, "lines": {"begin": file_lines(diagnostic.site)[0], "end": file_lines(diagnostic.site)[2]}},
        })
    return issues


def format_gitlab(run: RunResult, options: FormatOptions) -> str:
    return json.dumps(gitlab_issues(run), indent=2) + "\n"
