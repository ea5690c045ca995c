"""Baselines for legacy code: record today's findings, report only new ones from then on.

`scopelint check --write-baseline FILE` stores every current finding as (path, code, message, the
stripped text of its line) with a count; `scopelint check --baseline FILE` hides up to that many
findings with each identity.  No line numbers are stored, so findings keep matching when lines
above them are added or removed; editing a finding's own line makes it new.  Paths are relative to
the baseline file's folder, so the baseline works from any working directory and in any checkout.
"""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from scopelint.engine import RunResult
from scopelint.fingerprint import FindingKey, keyed_findings

BASELINE_FORMAT = 1


class BaselineError(Exception):
    """A baseline file that cannot be read or is not a scopelint baseline."""


@dataclass(frozen=True)
class Baseline:
    counts: dict[FindingKey, int]  # identity -> how many findings with it are known
    base: Path  # the folder paths are relative to (the baseline file's)


def baseline_counts(run: RunResult, base: Path) -> Counter[FindingKey]:
    return Counter(key for _, key, _ in keyed_findings(run, base))


def write_baseline(run: RunResult, file: Path) -> int:
    """Write every finding of `run` to `file`; returns how many were written."""
    counts = baseline_counts(run, file.resolve().parent)
    document = {
        "scopelint_baseline": BASELINE_FORMAT,
        "findings": [
            {"path": key.path, "code": key.code, "message": key.message, "line": key.line_text, "count": count}
            for key, count in sorted(counts.items())
        ],
    }
    # `--write-baseline ci/known.json` in a fresh clone: the folder is created, as an output file's
    # folder is by most tools; other OSErrors (a folder in the way, no permission) go to the caller.
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return sum(counts.values())


def load_baseline(file: Path) -> Baseline:
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise BaselineError(f"cannot read baseline {file}: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise BaselineError(f"baseline {file} is not JSON: {error}") from None
    if not isinstance(document, dict) or document.get("scopelint_baseline") != BASELINE_FORMAT:
        raise BaselineError(f"{file} is not a scopelint baseline (format {BASELINE_FORMAT})")
    counts: dict[FindingKey, int] = {}
    try:
        for entry in document["findings"]:
            key = FindingKey(path=str(entry["path"]), code=str(entry["code"]), message=str(entry["message"]),
                             line_text=str(entry["line"]))
            counts[key] = counts.get(key, 0) + int(entry["count"])
    except (KeyError, TypeError, ValueError) as error:
        raise BaselineError(f"baseline {file} has a malformed entry: {error!r}") from None
    return Baseline(counts=counts, base=file.resolve().parent)


def without_baselined(run: RunResult, baseline: Baseline) -> tuple[RunResult, int]:
    """The run without the findings the baseline knows, and how many were hidden.

    Of several findings with one identity, the first ones in line order are the known ones."""
    known: set[tuple] = set()
    for diagnostic, key, occurrence in keyed_findings(run, baseline.base):
        if occurrence < baseline.counts.get(key, 0):
            known.add((diagnostic.code, diagnostic.site, diagnostic.message))
    if not known:
        return run, 0
    files = [
        dataclasses.replace(
            result,
            diagnostics=[d for d in result.diagnostics if (d.code, d.site, d.message) not in known],
        )
        for result in run.files
    ]
    return RunResult(files=files), len(known)
