"""Finding and reading the project's own modules that an analysed file imports.

`import model` or `from .layers import dense_block` in a checked file runs that module's code in
the analysis too, as Python would at import time, so that calls into it are followed.  Modules
are looked up next to the importing file and from the root of its package (the first folder up
that has no `__init__.py`), never on the installed sys.path: only code that ships with the
project is analysed.
"""
from __future__ import annotations

import os
import tokenize
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import libcst as cst

from scopelint.analysis.module_files import find_module_file  # noqa: F401 (re-exported: cache.py records lookups through it)
from scopelint.analysis.nesting import python_tree
from scopelint.analysis.positions import Positions, walk

# A generated or data-like module this large is not worth following.
MAX_MODULE_BYTES = 2_000_000
# How much of the project's import graph one analysis follows: a work budget, not a depth.  A small
# project's main -> model -> ops chain is followed whole, however deep (a depth limit of 3 cut
# 112-168 imports of real entry points in tensor2tensor, Sonnet and seq2seq, whose chains of small
# modules run deeper); a large project's import closure is not (tensor2tensor: 150 modules for one
# test file), so past these bounds imported names stay unknown: calls that reach unknown code make
# the trace incomplete, never a finding.
MAX_IMPORTED_MODULES = 60  # project modules run for one checked file
MAX_IMPORTED_LINES = 20_000  # source lines of project modules run for one checked file
# The module budget also bounds how deep imports nest (each nested import is one more module run),
# so Python's stack holds at most MAX_IMPORTED_MODULES imports' frames.


@dataclass(frozen=True)
class ProjectModule:
    path: str  # as findings should name it: relative to the working directory when possible
    source: str
    module: cst.Module
    positions: Positions  # computed once per parsed file, shared by every importer
    rebinds_globals: bool  # some function says `global`: its module state can change after import


def display_path(file: Path, importer: str) -> str:
    """Relative like the importer's path when that one was given relative."""
    if os.path.isabs(importer):
        return str(file)
    try:
        return os.path.relpath(file)
    except ValueError:
        return str(file)


def load_module(file: Path, importer: str) -> ProjectModule | None:
    """The parsed module, or None when it cannot be read or parsed (then it stays unknown)."""
    try:
        stat = file.stat()
    except OSError:
        return None
    if stat.st_size > MAX_MODULE_BYTES:
        return None
    parsed = _parse(str(file), stat.st_mtime_ns, stat.st_size)
    if parsed is None:
        return None
    source, module, positions, rebinds_globals = parsed
    return ProjectModule(display_path(file, importer), source, module, positions, rebinds_globals)


def file_stamps(paths: object) -> tuple[tuple[str, int, int], ...]:
    """(path, mtime, size) of each file, to notice that a cached module's sources changed."""
    stamps = []
    for path in sorted(paths):  # type: ignore[call-overload]
        try:
            stat = os.stat(path)
        except OSError:
            stamps.append((path, -1, -1))
            continue
        stamps.append((path, stat.st_mtime_ns, stat.st_size))
    return tuple(stamps)


@dataclass(frozen=True)
class Parsed:
    module: cst.Module
    positions: Positions

    @cached_property
    def rebinds_globals(self) -> bool:
        """Some function says `global`: the module's state can change after import.  Asked only of
        imported modules, so it is computed on demand."""
        if "global" not in self.positions.source:
            return False  # no `global` statement without the word: the tree walk is not needed
        return any(isinstance(node, cst.Global) for node in walk(self.module))


@lru_cache(maxsize=512)
def parse_text(source: str) -> Parsed:
    """Parse once per process: a module is both checked and imported by other checked files.
    Raises SyntaxError (Python's), NestingTooDeep, or what cst.parse_module raises (failures are
    not cached)."""
    tree = python_tree(source)  # first: LibCST's parser crashes the process (SIGSEGV) on very deep nesting
    module = cst.parse_module(source)
    return Parsed(module, Positions(module, source, tree))


@lru_cache(maxsize=512)
def _parse(path: str, mtime_ns: int, size: int) -> tuple[str, cst.Module, Positions, bool] | None:
    # mtime and size are part of the key so that an edited file is read again.
    try:
        with tokenize.open(path) as handle:
            source = handle.read()
        parsed = parse_text(source)
        return source, parsed.module, parsed.positions, parsed.rebinds_globals
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError, cst.ParserSyntaxError, RecursionError):
        return None
