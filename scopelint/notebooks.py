"""Jupyter notebooks (`.ipynb`): checked as one program, cell by cell, reported at `cell N:line:col`.

As ruff does it: the code cells, in order, are concatenated into one module (a notebook runs its
cells top to bottom in one namespace, so a variable created in cell 2 and again in cell 5 is the
same TFS101 a script has); the engine checks that text as any Python file (noqa comments in a cell
work as in a file; `# scopelint: noqa` in any cell speaks for the notebook), and each finding's
place is translated back to its cell: `cell` is the cell's 1-based position among all the
notebook's cells (markdown cells count, as Jupyter shows them), lines count from the cell's first.

IPython syntax is not Python: a line magic (`%matplotlib inline`), a shell escape (`!pip install`,
`files = !ls`) or a help request (`tf.get_variable?`) becomes `pass` (or `files = None`) at the same
indentation, so that line numbers and blocks are kept; a cell that starts with a cell magic
(`%%bash`, `%%writefile`) is not Python and is left out, except the magics that run their cell as
Python (`%%time`, `%%capture`, ...), whose first line alone is left out.  Markdown and raw cells
are left out; a notebook whose kernel is not Python is not checked.
"""
from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

NOTEBOOK_SUFFIX = ".ipynb"
# Cell magics whose body is Python that runs in the notebook's namespace.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "pypy"})

_ASSIGNED_ESCAPE = re.compile(r"^(?P<indent>\s*)(?P<target>[A-Za-z_][\w.]*\s*=\s*)[%!]")
_LINE_ESCAPE = re.compile(r"^(?P<indent>\s*)(?:[%!?]|[^#'\"]*\?\??\s*$)")


def is_notebook(path: str) -> bool:
    return path.lower().endswith(NOTEBOOK_SUFFIX)


class NotANotebook(ValueError):
    """The file is not a notebook scopelint can read (not JSON, no cells)."""


@dataclass(frozen=True)
class Concatenated:
    """The notebook's Python, and where each included cell starts in it."""

    source: str
    cells: tuple[int, ...]  # 1-based cell numbers of the included cells, in order
    starts: tuple[int, ...]  # the 1-based line of `source` where each of those cells begins

    def cell_of(self, line: int) -> tuple[int, int]:
        """(cell, line in that cell) of a line of `source`."""
        if not self.starts:
            return 1, line
        index = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return self.cells[index], line - self.starts[index] + 1

    def start_of(self, cell: int) -> int | None:
        """The line of `source` where `cell` begins (None when the cell is not included)."""
        try:
            return self.starts[self.cells.index(cell)]
        except ValueError:
            return None


def _cell_text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _without_escapes(line: str) -> str:
    """A line with IPython syntax replaced by Python that does nothing, same indentation."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return line
    assigned = _ASSIGNED_ESCAPE.match(line)
    if assigned is not None:
        return f"{assigned.group('indent')}{assigned.group('target')}None"
    if stripped[0] in "%!?" or (stripped.endswith("?") and _LINE_ESCAPE.match(line)):
        return f"{line[: len(line) - len(line.lstrip())]}pass"
    return line


def _python_lines(text: str) -> list[str] | None:
    """The cell's lines as Python (None when the cell is not Python at all)."""
    lines = text.splitlines()
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:
            return None
        lines[first] = ""
    result: list[str] = []
    continued = False
    for line in lines:
        if continued:  # the rest of a magic continued with a backslash
            continued = line.rstrip().endswith("\\")
            result.append("")
            continue
        replaced = _without_escapes(line)
        continued = replaced != line and line.rstrip().endswith("\\")
        result.append(replaced)
    return result


def is_python_notebook(document: dict[str, Any]) -> bool:
    metadata = document.get("metadata") or {}
    language = (metadata.get("language_info") or {}).get("name") or (metadata.get("kernelspec") or {}).get("language")
    return language is None or str(language).lower() == "python"


def concatenate(document: dict[str, Any]) -> Concatenated:
    cells: list[int] = []
    starts: list[int] = []
    lines: list[str] = []
    for number, cell in enumerate(document.get("cells") or [], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        python = _python_lines(_cell_text(cell))
        if python is None:
            continue
        cells.append(number)
        starts.append(len(lines) + 1)
        lines.extend(python or [""])  # an empty cell still has its line, so that cells never share one
    return Concatenated("".join(line + "\n" for line in lines), tuple(cells), tuple(starts))


def read_notebook(data: bytes) -> dict[str, Any]:
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise NotANotebook(f"not a valid Jupyter notebook: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells", []), list):
        raise NotANotebook("not a valid Jupyter notebook: no list of cells")
    return document


def _translated(site, path: str, concatenated: Concatenated):
    if site is None or site.path != path or site.cell is not None:
        return site
    cell, line = concatenated.cell_of(site.line)
    start = concatenated.start_of(cell) or 1
    return replace(site, line=line, end_line=max(site.end_line - start + 1, line), cell=cell)


def translate(diagnostic, path: str, concatenated: Concatenated):
    """The finding with its place, and its related places in this notebook, at cell:line."""
    from scopelint.trace import Related

    return replace(
        diagnostic,
        site=_translated(diagnostic.site, path, concatenated),
        related=tuple(Related(_translated(item.site, path, concatenated), item.note) for item in diagnostic.related),
    )


def translate_trace(trace, path: str, concatenated: Concatenated) -> None:
    """The trace's variable and event places (in every explored run) moved to cell:line, in place:
    for `scopelint layout` of a notebook."""
    for run in [trace, *trace.other_paths]:
        for item in [*run.variables, *run.events]:
            item.site = _translated(item.site, path, concatenated)


def check_notebook(data: bytes, path: str, settings, check_python: Callable):
    """engine.check_source for a notebook: `check_python` checks the concatenated cells."""
    from scopelint import engine

    try:
        document = read_notebook(data)
    except NotANotebook as problem:
        result = engine.FileResult(path=path)
        failure = engine._parse_error(path, str(problem), 1, 1)
        result.diagnostics = [failure] if failure.code in settings.enabled_for(path) else []
        return result
    if not is_python_notebook(document):
        return engine.FileResult(path=path, skipped=True)
    concatenated = concatenate(document)
    result = check_python(concatenated.source.encode("utf-8"), path, settings)
    result.diagnostics = [translate(diagnostic, path, concatenated) for diagnostic in result.diagnostics]
    note = result.budget_note
    if note is not None and note.call_site is not None:
        result.budget_note = replace(note, call_site=_translated(note.call_site, path, concatenated))
    if result.source_lines:
        result.cell_starts = dict(zip(concatenated.cells, concatenated.starts))
    return result
