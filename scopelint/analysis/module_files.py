"""Which file `import x` loads from the project: the lookup alone, without LibCST.

A warm run (results cached) checks that every module a cached result read still resolves to the
same file; importing LibCST for that cost more than the rest of a warm run.  project.py re-exports
these (the interpreter and the cache's recording go through `project.find_module_file`).
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any
from pathlib import Path

# Lookups made while a module is explored (paths.py runs it up to 12 times, each run importing
# the same modules: 7% of the analysis was these file-system probes): the files do not change
# meanwhile, so each lookup is made once.  None outside an exploration.
_MEMO: dict[tuple[Any, ...], Any] | None = None  # ("folder", importer), ("file", folder, dotted, level), ...


@contextlib.contextmanager
def lookups_memoized() -> Iterator[None]:
    global _MEMO
    outer = _MEMO
    if outer is None:
        _MEMO = {}
    try:
        yield
    finally:
        if outer is None:
            _MEMO = None


def package_root(folder: Path) -> Path:
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


def find_module_file(importer: str, dotted: str, level: int) -> Path | None:
    """The file `import dotted` (level 0) or `from .<dotted> import ...` (level > 0) loads."""
    # The lookup depends on the importer's folder only: the files of one folder share it (a warm
    # run checks every cached result's lookups, most of them the same imports from the same folder).
    here = memoized(("folder", importer), lambda: Path(importer).resolve().parent)
    return memoized(("file", here, dotted, level), lambda: _find_module_file(here, dotted, level))


def memoized(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """compute(), once per key inside lookups_memoized() (the files do not change meanwhile)."""
    memo = _MEMO
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _find_module_file(here: Path, dotted: str, level: int) -> Path | None:
    if level:
        base = here
        for _ in range(level - 1):
            base = base.parent
        bases = [base]
    else:
        bases = [here, package_root(here)]
    parts = [part for part in dotted.split(".") if part]
    for base in dict.fromkeys(bases):
        target = base.joinpath(*parts) if parts else base
        candidates = [target / "__init__.py"] if not parts else [Path(f"{target}.py"), target / "__init__.py"]
        for candidate in candidates:
            if candidate.is_file():
                return candidate
    return None
