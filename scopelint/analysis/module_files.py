"""Which file `import x` loads from the project: the lookup alone, without LibCST.

A warm run (results cached) checks that every module a cached result read still resolves to the
same file; importing LibCST for that cost more than the rest of a warm run.  project.py re-exports
these (the interpreter and the cache's recording go through `project.find_module_file`).
"""
from __future__ import annotations

from pathlib import Path


def package_root(folder: Path) -> Path:
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


def find_module_file(importer: str, dotted: str, level: int) -> Path | None:
    """The file `import dotted` (level 0) or `from .<dotted> import ...` (level > 0) loads."""
    here = Path(importer).resolve().parent
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
