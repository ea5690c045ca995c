"""`--statistics`: how many findings of each rule, most frequent first (as ruff prints them)."""
from __future__ import annotations

import json
from collections import Counter

from rich.text import Text

from scopelint.engine import RunResult


def _counts(run: RunResult) -> list[tuple[str, str, int]]:
    """(code, name, count), most frequent first, then by code."""
    counter = Counter((diagnostic.code, diagnostic.name) for diagnostic in run.diagnostics)
    return sorted(((code, name, count) for (code, name), count in counter.items()), key=lambda row: (-row[2], row[0]))


def format_statistics_text(run: RunResult) -> Text:
    rows = _counts(run)
    if not rows:
        return Text("")
    width = max(len(str(count)) for _, _, count in rows)
    lines = [
        Text.assemble(f"{count:>{width}}\t", (code, "bold red"), f"\t{name}") for code, name, count in rows
    ]
    return Text("\n").join(lines)


def format_statistics_json(run: RunResult) -> str:
    rows = [{"code": code, "name": name, "count": count, "fixable": False} for code, name, count in _counts(run)]
    return json.dumps(rows, indent=2) + "\n"
