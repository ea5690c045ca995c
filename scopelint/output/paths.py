"""How the CI formats name a file: as the checkout's workflow sees it."""
from __future__ import annotations

import os

from scopelint.trace import Site


def file_lines(site: Site) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) for formats that place a finding by the file's lines.

    A notebook is a JSON file whose lines are not its cells' lines: those formats get 1:1, ruff's
    fallback ("clearly a fallback"), and the message starts with cell_prefix(site)."""
    if site.cell is not None:
        return 1, 1, 1, 1
    return site.line, site.column, site.end_line, site.end_column


def cell_prefix(site: Site) -> str:
    """`cell 3:2:5: ` for a finding in a notebook (prefixed to the messages of the line formats)."""
    return "" if site.cell is None else f"{site.position()}: "


def workspace_path(path: str) -> str:
    """Relative to the working directory (the checkout, in a workflow) when under it: annotations
    attach to repository-relative paths."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative == ".." or relative.startswith(".." + os.sep) else relative
