"""`check --add-noqa`: a `# noqa: CODE` comment on the line of each current finding.

Only comments are added: a line without a directive gets `  # noqa: CODES` at its end, a line with
`# noqa: A` gets `, CODES` after its last code.  Nothing else in the file changes (line endings,
encoding and BOM are kept), and a file is written only when its syntax tree is the same before and
after.  Files that do not parse (TFS000), that scopelint failed on, or stdin are never touched.
A finding whose line ends inside a string or with a backslash continuation cannot take a comment
there, and is listed as skipped.  Parse errors and unused-noqa findings get no directive.

In a Jupyter notebook the comment goes on the finding's line of its cell (`cell 3:4`), as ruff
does it; the notebook is written back only when scopelint can write its JSON exactly as it was
(Jupyter's layout: one-space indent, keys in the file's order or sorted), so that the only change
is the comment.
"""
from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from scopelint.engine import PARSE_ERROR_CODE, STDIN_PATH, UNUSED_NOQA_CODE, RunResult, resolve_code
from scopelint.noqa import parse_noqa
from scopelint import notebooks, pyparse
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


def _with_directives(source: str, codes_by_line: dict[int, list[str]], path: str, report: AddNoqaReport,
                     python: str | None = None) -> str:
    """`source` with the directives added; `python` is its text as Python, line for line, when it
    is not (a notebook cell with IPython syntax), read for the places comments can go."""
    lines = _split_lines(source)
    directives = parse_noqa(source if python is None else python)
    commentable = _commentable_lines(source if python is None else python)
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
    # notebooks: path -> cell -> line in the cell -> codes
    in_cells: dict[str, dict[int, dict[int, list[str]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for diagnostic in run.diagnostics:
        if diagnostic.code in (PARSE_ERROR_CODE, UNUSED_NOQA_CODE):
            continue
        path, line = diagnostic.site.path, diagnostic.site.line
        if path == STDIN_PATH or path in untouchable:
            report.skipped.append((path, line, "the file is stdin, did not parse, or scopelint failed on it"))
            continue
        if is_notebook(path):
            cell = diagnostic.site.cell
            if cell is None:
                report.skipped.append((path, line, "a notebook finding without a cell"))
                continue
            if diagnostic.code not in in_cells[path][cell][line]:
                in_cells[path][cell][line].append(diagnostic.code)
            continue
        if diagnostic.code not in wanted[path][line]:
            wanted[path][line].append(diagnostic.code)
    for path, codes_by_line in wanted.items():
        _edit_file(Path(path), codes_by_line, report)
    for path, codes_by_cell in in_cells.items():
        _edit_notebook(Path(path), codes_by_cell, report)
    return report


# Jupyter (nbformat) writes one-space indents, non-ASCII as is, keys sorted; other tools keep
# the keys' order or indent more.  The first layout that reproduces the file is the file's.
_NOTEBOOK_LAYOUTS = ((1, True), (1, False), (2, False), (2, True), (4, False), (4, True))


def _notebook_layout(text: str, document: object) -> tuple[int, bool, bool] | None:
    """(indent, sort_keys, final newline) under which json.dumps gives back `text` exactly."""
    for indent, sort_keys in _NOTEBOOK_LAYOUTS:
        written = json.dumps(document, indent=indent, sort_keys=sort_keys, ensure_ascii=False)
        if text == written or text == written + "\n":
            return indent, sort_keys, text.endswith("\n")
    return None


def _cell_python(text: str) -> str | None:
    lines = notebooks._python_lines(text)
    return None if lines is None else "".join(line + "\n" for line in lines)


def _edit_notebook(file: Path, codes_by_cell: dict[int, dict[int, list[str]]], report: AddNoqaReport) -> None:
    lines_of = [(str(file), line) for by_line in codes_by_cell.values() for line in by_line]
    try:
        text = file.read_bytes().decode("utf-8")
        document = notebooks.read_notebook(text.encode("utf-8"))
    except (OSError, UnicodeDecodeError, notebooks.NotANotebook):
        report.skipped.extend((path, line, "the notebook cannot be read") for path, line in lines_of)
        return
    layout = _notebook_layout(text, document)
    if layout is None:
        report.skipped.extend((path, line, "the notebook's JSON layout cannot be written back unchanged")
                              for path, line in lines_of)
        return
    added_before = report.added
    changed = False
    cells = document.get("cells") or []
    for number, codes_by_line in sorted(codes_by_cell.items()):
        cell = cells[number - 1] if 1 <= number <= len(cells) else None
        source = notebooks._cell_text(cell) if isinstance(cell, dict) else None
        python = None if source is None else _cell_python(source)
        if cell is None or source is None or python is None:
            report.skipped.extend((str(file), line, f"cell {number} is not a Python cell") for line in codes_by_line)
            continue
        try:
            before = ast.dump(pyparse.parse(python))
            edited = _with_directives(source, codes_by_line, f"{file}:cell {number}", report, python)
            edited_python = _cell_python(edited)
            unchanged = edited_python is not None and ast.dump(pyparse.parse(edited_python)) == before
        except (SyntaxError, ValueError, tokenize.TokenError):
            unchanged = False
        if not unchanged:
            report.skipped.extend((str(file), line, "adding a comment would change the code") for line in codes_by_line)
            continue
        if edited != source:
            cell["source"] = edited.splitlines(keepends=True) if isinstance(cell.get("source"), list) else edited
            changed = True
    if not changed:
        return
    indent, sort_keys, final_newline = layout
    written = json.dumps(document, indent=indent, sort_keys=sort_keys, ensure_ascii=False)
    try:
        file.write_bytes((written + ("\n" if final_newline else "")).encode("utf-8"))
    except OSError:
        report.added = added_before
        report.skipped.extend((path, line, "the notebook cannot be written") for path, line in lines_of)
        return
    report.files.append(str(file))


def _edit_file(file: Path, codes_by_line: dict[int, list[str]], report: AddNoqaReport) -> None:
    try:
        data = file.read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding)
        before = ast.dump(pyparse.parse(source))
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError, ValueError):
        report.skipped.extend((str(file), line, "the file cannot be read or parsed") for line in codes_by_line)
        return
    added_before = report.added
    edited = _with_directives(source, codes_by_line, str(file), report)
    if edited == source:
        return
    try:
        unchanged = ast.dump(pyparse.parse(edited)) == before
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
