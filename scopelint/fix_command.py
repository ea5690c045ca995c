"""`check --fix`, `--diff`, `--unsafe-fixes`, `--show-fixes`: the command-line side of fixes.py.

cli.py declares the flags (add_fix_arguments) and hands over after the run; everything else is here,
so that the check command keeps one line per job.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from scopelint import engine
from scopelint.diagnostics import Diagnostic, Fix

if TYPE_CHECKING:
    from scopelint.fixes import FileFix

PROGRAM = "scopelint"


def add_fix_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("fixes")
    group.add_argument("--fix", action="store_true", help="apply the safe fixes to the files (and the unsafe ones with --unsafe-fixes)")
    group.add_argument("--unsafe-fixes", action="store_true",
                       help="include the unsafe fixes: they rename variables, move them to other devices or change what is shared (each says what)")
    group.add_argument("--diff", action="store_true", help="print the fixes as a unified diff and change nothing; exit 1 when there is something to fix")
    group.add_argument("--show-fixes", action="store_true", help="with --fix: list the fixed findings per file")


@dataclass
class _Reader:
    """The text of a file being checked (stdin's from the bytes read), decoded as the engine does."""

    stdin_name: str | None
    stdin_data: bytes | None

    def __call__(self, path: str) -> str | None:
        if self.stdin_data is not None and path in (engine.STDIN_PATH, self.stdin_name):
            data: bytes | None = self.stdin_data
        else:
            try:
                data = Path(path).read_bytes()
            except OSError:
                data = None
        if data is None:
            return None
        text, _ = engine.decode_source(data, path)
        return text


def fixable_by_settings(settings_for: Callable[[str], engine.CheckSettings]) -> Callable[[Diagnostic], bool]:
    """`fixable` / `unfixable` in each file's configuration."""
    def fixable(diagnostic: Diagnostic) -> bool:
        allowed = settings_for(diagnostic.site.path).fixable
        return allowed is None or diagnostic.code in allowed
    return fixable


def attach(result: engine.RunResult, args: argparse.Namespace, stdin_data: bytes | None,
           settings_for: Callable[[str], engine.CheckSettings]) -> None:
    """Fixes on the run's findings, for the output formats (JSON `fix`, SARIF `fixes`, marks)."""
    fixable = fixable_by_settings(settings_for)
    pending = []
    for diagnostic in result.diagnostics:
        if not diagnostic.fix_computed:
            pending.append(diagnostic)
        elif diagnostic.fix is not None and not fixable(diagnostic):
            diagnostic.fix = None
    if not pending:
        return  # every fix came with its file's result: no LibCST to import (a warm run)
    from scopelint.fixes import attach_fixes

    failed = attach_fixes(pending, _Reader(args.stdin_filename, stdin_data), fixable)
    for error in failed:
        print(f"{PROGRAM}: internal error in a fix on {error} (a bug in scopelint; the finding is shown without it)",
              file=sys.stderr)


def fix_summary(findings: list[Diagnostic], unsafe: bool) -> str | None:
    """ruff's closing hint: how many `--fix` would repair, and how many more with --unsafe-fixes."""
    now = sum(1 for finding in findings if finding.fixable(unsafe))
    hidden = sum(1 for finding in findings if finding.fix is not None and not finding.fixable(unsafe))
    hint = f" ({hidden} hidden fix{'es' if hidden != 1 else ''} can be enabled with the `--unsafe-fixes` option)" if hidden else ""
    if now:
        return f"[*] {now} fixable with the `--fix` option.{hint}"
    if hidden:
        return f"No fixes available{hint}."
    return None


def diff_summary(would_fix: int, findings: list[Diagnostic], unsafe: bool) -> str:
    """--diff's closing line, as ruff words it: what the patch repairs, and how many fixes more
    `--unsafe-fixes` would add (`findings` carry their fixes: see `attach`)."""
    hidden = 0 if unsafe else sum(1 for finding in findings if finding.fix is not None and not finding.fixable(False))
    more = f"{hidden} {'additional ' if would_fix else ''}fix{'es' if hidden != 1 else ''} available with `--unsafe-fixes`"
    if would_fix:
        return f"Would fix {would_fix} finding{'s' if would_fix != 1 else ''}" + (f" ({more})." if hidden else ".")
    return f"No findings would be fixed ({more})." if hidden else "Would fix 0 findings."


def run_fixes(args: argparse.Namespace, result: engine.RunResult,
              settings_for: Callable[[str], engine.CheckSettings]) -> tuple[list[FileFix], list[str]]:
    """Fix every file of the run (in memory): the results with changes or problems, and problems."""
    from scopelint import fixes

    fixable = fixable_by_settings(settings_for)

    def wanted(diagnostic: Diagnostic, fix: Fix) -> bool:
        return fixable(diagnostic) and (args.unsafe_fixes or fix.applicability == "safe")

    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in result.diagnostics:
        by_path.setdefault(diagnostic.site.path, []).append(diagnostic)
    outcomes: list[FileFix] = []
    read = _Reader(None, None)
    for path, findings in sorted(by_path.items()):
        if path == engine.STDIN_PATH or engine.PARSE_ERROR_CODE in {finding.code for finding in findings}:
            continue
        text = read(path)
        if text is None:
            continue
        settings = settings_for(path)

        def analyse(new_text: str, path: str = path, settings: engine.CheckSettings = settings) -> list[Diagnostic]:
            return engine.check_source(new_text.encode("utf-8"), path, settings).diagnostics

        outcome = fixes.fix_file(path, text, analyse, wanted, first=findings)
        if outcome.changed or outcome.problem or outcome.errors:
            outcomes.append(outcome)
    problems = [f"{PROGRAM}: {outcome.path}: {outcome.problem}" for outcome in outcomes if outcome.problem]
    problems += [f"{PROGRAM}: internal error in a fix on {outcome.path}: {error} (a bug in scopelint; not applied)"
                 for outcome in outcomes for error in outcome.errors]
    return outcomes, problems


def write_fixed(outcomes: list[FileFix]) -> None:
    """Write each changed file, in its own encoding (a BOM stays)."""
    for outcome in outcomes:
        if not outcome.changed:
            continue
        path = Path(outcome.path)
        data = path.read_bytes()
        import io
        import tokenize

        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        path.write_bytes(outcome.fixed.encode(encoding))


def print_diff(outcomes: list[FileFix]) -> int:
    """--diff: the patch on stdout, the count on stderr; how many findings it repairs."""
    from scopelint import fixes

    fixed = 0
    for outcome in outcomes:
        if outcome.changed:
            sys.stdout.write(fixes.unified_diff(outcome.path, outcome.original, outcome.fixed))
            fixed += len(outcome.applied)
    return fixed


def show_fixes(outcomes: list[FileFix]) -> str:
    """--show-fixes, as ruff prints it: per file, how many of each rule were fixed."""
    total = sum(len(outcome.applied) for outcome in outcomes)
    if not total:
        return "No findings fixed.\n"
    lines = [f"Fixed {total} finding{'s' if total != 1 else ''}:"]
    for outcome in outcomes:
        if not outcome.applied:
            continue
        lines.append(f"- {outcome.path}:")
        counts = Counter((finding.code, finding.name) for finding in outcome.applied)
        for (code, name), count in sorted(counts.items()):
            lines.append(f"    {count} × {code} ({name})")
    return "\n".join(lines) + "\n"


def fixed_summary(fixed: int, remaining: list[Diagnostic]) -> str:
    """ruff's closing line after --fix: `Found 3 findings (2 fixed, 1 remaining).`"""
    total = fixed + len(remaining)
    return f"Found {total} finding{'s' if total != 1 else ''} ({fixed} fixed, {len(remaining)} remaining)."
