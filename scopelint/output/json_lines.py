"""`json-lines`: one finding per line, each the object of the `json` format (as ruff's json-lines),
so that a stream reader can act on each finding as it reads it."""
from __future__ import annotations

import json

from scopelint.engine import RunResult
from scopelint.output.json_format import diagnostic_to_json
from scopelint.output.options import FormatOptions


def format_json_lines(run: RunResult, options: FormatOptions) -> str:
    return "".join(json.dumps(diagnostic_to_json(diagnostic)) + "\n" for diagnostic in run.diagnostics)
