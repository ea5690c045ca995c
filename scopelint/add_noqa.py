"""`check --add-noqa`: a `# noqa: CODE` comment on the line of each current finding.

Only comments are added: a line without a directive gets `  # noqa: CODES` at its end, a line with
`# noqa: A` gets `, CODES` after its last code.  Nothing else in the file changes (line endings,
encoding and BOM are kept), and a file is written only when its syntax tree is the same before and
after.  Files that do not parse (TFS000), that scopelint failed on, or stdin are never touched.
A finding whose line ends inside a string or with a backslash continuation cannot take a comment
there, and is listed as skipped.  Parse errors and unused-noqa findings get no directive.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from scopelint.engine import PARSE_ERROR_CODE, STDIN_PATH, UNUSED_NOQA_CODE, RunResult, resolve_code
from scopelint.noqa import parse_noqa
from scopelint.notebooks import is_notebook

# Python's own line ends (str.splitlines also splits on form feeds and other characters).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


@dataclass
class AddNoqaReport:
    added: int = 0  # directives added or extended
    files: list[str] = field(default_factory=list)  # files written
    skipped: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, why)


def _split_lines(text: str) -> list[str]:
    lines = [match.group() for match in _LINE.finditer(text)]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _commentable_lines(source: str) -> set[int]:
    """Lines whose end is a newline token (not inside a string, not a backslash continuation)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NEWLINE, tokenize.NL):
            lines.add(token.start[0])
    return lines


def _with_directives(source: str, codes_by_line: dict[int, list[str]], path: str, report: AddNoqaReport) -> str:
    lines = _split_lines(source)
    directives = parse_noqa(source)
    commentable = _commentable_lines(source)
    for number, codes in sorted(codes_by_line.items()):
        if number not in commentable or not 1 <= number <= len(lines):
            report.skipped.append((path, number, "the line ends inside a string or continues with a backslash"))
            continue
        text = lines[number - 1]
        body = text.rstrip("\r\n")
        ending = text[len(body):]
        existing = directives.by_line.get(number)
        if existing is not None:
            if existing.codes is None:
                continue  # a bare `# noqa` already covers everything
            present = {resolve_code(written) for written in existing.codes}
            missing = [code for code in codes if code not in present]
            if not missing:
                continue
            cut = existing.end_column - 1
            body = body[:cut] + ", " + ", ".join(missing) + body[cut:]
        else:
            body = body + "  # noqa: " + ", ".join(codes)
        lines[number - 1] = body + ending
        report.added += 1
    return "".join(lines)


def add_noqa(run: RunResult) -> AddNoqaReport:
    """Add directives for every finding of `run` to the files on disk."""
    report = AddNoqaReport()
    untouchable = {result.path for result in run.files
                   if result.error is not None or result.internal_errors
                   or any(d.code == PARSE_ERROR_CODE for d in result.diagnostics)}
    wanted: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for diagnostic in run.diagnostics:
        if diagnostic.code in (PARSE_ERROR_CODE, UNUSED_NOQA_CODE):
            continue
        path, line = diagnostic.site.path, diagnostic.site.line
        if path == STDIN_PATH or path in untouchable:
            report.skipped.append((path, line, "the file is stdin, did not parse, or scopelint failed on it"))
            continue
        if is_notebook(path):
            # Its lines count in cells of a JSON document: the comment goes in the cell, by hand.
            report.skipped.append((path, line, f"a notebook (cell {diagnostic.site.cell}): add the comment in the cell"))
            continue
        if diagnostic.code not in wanted[path][line]:
            wanted[path][line].append(diagnostic.code)
    for path, codes_by_line in wanted.items():
        _edit_file(Path(path), codes_by_line, report)
    return report


def _edit_file(file: Path, codes_by_line: dict[int, list[str]], report: AddNoqaReport) -> None:
    try:
        data = file.read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding)
        before = ast.dump(ast.parse(source))
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError, ValueError):
        report.skipped.extend((str(file), line, "the file cannot be read or parsed") for line in codes_by_line)
        return
    added_before = report.added
    edited = _with_directives(source, codes_by_line, str(file), report)
    if edited == source:
        return
    try:
        unchanged = ast.dump(ast.parse(edited)) == before
    except (SyntaxError, ValueError):
        unchanged = False
    if not unchanged:  # never write a file whose code the comments would change
        report.added = added_before
        report.skipped.extend((str(file), line, "adding a comment would change the code") for line in codes_by_line)
        return
    file.write_bytes(edited.encode(encoding))
    report.files.append(str(file))


def line_with_noqa(source: str, line: int, codes: list[str]) -> tuple[str, str] | None:
    """One line's text before and after adding `codes` to its directive (without the line end), as
    --add-noqa would write it: for the language server's code action.  None when the line cannot
    take a comment or already suppresses these codes."""
    report = AddNoqaReport()
    lines = _split_lines(source)
    if not 1 <= line <= len(lines):
        return None
    try:
        edited = _split_lines(_with_directives(source, {line: codes}, "", report))
    except (tokenize.TokenError, SyntaxError):
        return None
    if report.added == 0:
        return None
    return lines[line - 1].rstrip("\r\n"), edited[line - 1].rstrip("\r\n")
