"""Identities of findings that survive lines moving: for baselines and SARIF `partialFingerprints`.

A finding is identified by the file (relative to a base directory), its code, its message and the
stripped text of the line it starts on, never by its line number: inserting or deleting lines above
it keeps its identity, editing the line itself changes it.  Identical keys in one file (the same
finding on two identical lines) are told apart by their order in the file, so each identity is
(key, occurrence), occurrence counting from 0 in line order.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from scopelint.diagnostics import Diagnostic
from scopelint.engine import STDIN_PATH, RunResult

# Bumped when the key's definition changes, so that old fingerprints are not silently compared.
FINGERPRINT_VERSION = 1


@dataclass(frozen=True, order=True)
class FindingKey:
    path: str  # relative to the base directory, `/`-separated ("-" for stdin)
    code: str
    message: str
    line_text: str  # the finding's first line, stripped; "" when the source is not available


def relative_path(path: str, base: str | os.PathLike[str]) -> str:
    """`path` relative to `base` (`../` when outside it), with `/` separators."""
    if path == STDIN_PATH:
        return path
    try:
        return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(base))).as_posix()
    except ValueError:  # another drive on Windows
        return Path(os.path.abspath(path)).as_posix()


def source_line_reader(run: RunResult) -> Callable[[str, int], str]:
    """Line text by (path, 1-based line): from the run's kept source lines, else read from disk once.

    A finding can be placed in a module other than the file checked (the analysis followed a call),
    whose lines the run did not keep."""
    loaded: dict[str, tuple[str, ...]] = {}

    def line_of(path: str, line: int) -> str:
        if path not in loaded:
            lines = run.source_lines(path)
            if not lines and path != STDIN_PATH:
                try:
                    lines = tuple(Path(path).read_text(encoding="utf-8", errors="replace").splitlines())
                except OSError:
                    lines = ()
            loaded[path] = lines
        lines = loaded[path]
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    return line_of


def _line_text(run: RunResult, site, line_of: Callable[[str, int], str]) -> str:
    """The stripped text of the site's first line (in a notebook, of its line in its cell)."""
    if site.cell is None:
        return line_of(site.path, site.line).strip()
    lines = run.lines_at(site)
    return lines[site.line - 1].strip() if 1 <= site.line <= len(lines) else ""


def keyed_findings(run: RunResult, base: str | os.PathLike[str], diagnostics: Sequence[Diagnostic] | None = None) -> list[tuple[Diagnostic, FindingKey, int]]:
    """(finding, key, occurrence) for each of the run's findings (or `diagnostics`), in run order."""
    line_of = source_line_reader(run)
    found = run.diagnostics if diagnostics is None else diagnostics
    seen: dict[FindingKey, int] = {}
    keyed: list[tuple[Diagnostic, FindingKey, int]] = []
    for diagnostic in found:  # sorted by path and line, so occurrences count in line order
        site = diagnostic.site
        key = FindingKey(
            path=relative_path(site.path, base),
            code=diagnostic.code,
            message=diagnostic.message,
            line_text=_line_text(run, site, line_of),
        )
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        keyed.append((diagnostic, key, occurrence))
    return keyed


def fingerprint(key: FindingKey, occurrence: int) -> str:
    """A stable hex digest of a finding's identity."""
    text = "\0".join((str(FINGERPRINT_VERSION), key.path, key.code, key.message, key.line_text, str(occurrence)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
