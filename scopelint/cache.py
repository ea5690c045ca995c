"""Results cache: a file whose bytes, settings and scopelint are unchanged is not analysed again.

Entries live in `.scopelint_cache/` under the project root (the folder of the `pyproject.toml` in
use, else the working directory), one JSON file per (file, settings) key:

- The key hashes the file's bytes, the path findings are reported under, the rule codes enabled for
  it (select/ignore/per-file-ignores, TFS900 included), scopelint's version, a signature of its own
  source files (so that an edited checkout never reads stale results) and the analyzer and rule
  modules in use.
- The analysis follows imports of the project's own modules (analysis/project.py), so a file's
  findings also depend on those modules.  Each entry records every module lookup the analysis made
  (importer, module, level, the file found or none) and a hash of each file found; an entry is used
  only when every lookup finds the same file again with the same bytes.
- An entry that cannot be read or decoded is deleted and the file analysed again.  Results with
  internal errors are never stored.  Writes are atomic (temporary file, then rename), so parallel
  workers and concurrent runs never see half an entry.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from scopelint.budget_notes import BudgetNote
from scopelint.diagnostics import APPLICABILITIES, Diagnostic, Edit, Fix
from scopelint.trace import Related, Site

CACHE_DIR_NAME = ".scopelint_cache"
# Bumped when the entry layout changes; old entries then sit in another folder, never misread.
CACHE_FORMAT = 1
_IGNORE_ALL = "# Created by scopelint: results cache, safe to delete.\n*\n"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is scopelint's results cache.\n"


@dataclass(frozen=True)
class ModuleLookup:
    """One `import` the analysis resolved against the project's files."""

    importer: str
    dotted: str
    level: int
    found: str | None  # the resolved file, or None when no project module matched
    digest: str | None  # sha256 of the found file's bytes


@dataclass(frozen=True)
class CachedResult:
    diagnostics: list[Diagnostic]
    source_lines: tuple[str, ...]
    cell_starts: dict[int, int] = field(default_factory=dict)  # a notebook's (engine.FileResult)
    budget_note: BudgetNote | None = None  # engine.FileResult's


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def code_signature() -> str:
    """Size and mtime of every source file of scopelint and its rules: changes when scopelint does."""
    import scopelint
    import scopelint.rules
    from scopelint.version import VERSION  # here: importlib.metadata costs a one-file check 13 ms

    hasher = hashlib.sha256(VERSION.encode())
    for package_file in (scopelint.__file__, scopelint.rules.__file__):
        if package_file is None:
            continue
        folder = Path(package_file).parent
        for source in sorted(folder.rglob("*.py")):
            try:
                stat = source.stat()
            except OSError:
                continue
            hasher.update(f"{source.relative_to(folder)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return hasher.hexdigest()


# ---------------------------------------------------------------------------------------------------
# module lookups made during one analysis


@contextlib.contextmanager
def recording_module_lookups() -> Iterator[list[ModuleLookup] | None]:
    """Record the project-module lookups made inside the block (None: they cannot be recorded,
    and the result must then not be cached)."""
    try:
        from scopelint.analysis import project
    except ImportError:  # no import following: a file's result depends on its bytes alone
        yield []
        return
    original = getattr(project, "find_module_file", None)
    if original is None:
        yield None
        return
    lookups: list[ModuleLookup] = []
    # Path exploration runs a module once per configuration, and each run makes the same lookups:
    # each is recorded (its file read and digested) once, so that a warm run checks it once.
    recorded: set[tuple[str, str, int, Path | None]] = set()

    def find_and_record(importer: str, dotted: str, level: int) -> Path | None:
        found = original(importer, dotted, level)
        if (importer, dotted, level, found) not in recorded:
            recorded.add((importer, dotted, level, found))
            lookups.append(_lookup(importer, dotted, level, found))
        return found

    project.find_module_file = find_and_record
    try:
        yield lookups
    finally:
        project.find_module_file = original


def _lookup(importer: str, dotted: str, level: int, found: Path | None) -> ModuleLookup:
    if found is None:
        return ModuleLookup(importer, dotted, level, None, None)
    from scopelint.analysis.module_files import memoized  # no LibCST: a warm run needs none

    # Each module file once while a run checks its cached results, not once per result that read it.
    resolved, digest = memoized(("digest", found), lambda: (str(found.resolve()), _digest_file(found)))
    return ModuleLookup(importer, dotted, level, resolved, digest)


def _digest_file(path: Path) -> str | None:
    try:
        return digest_bytes(path.read_bytes())
    except OSError:
        return None


def _lookups_still_hold(lookups: Sequence[ModuleLookup]) -> bool:
    if not lookups:
        return True
    from scopelint.analysis.module_files import find_module_file  # no LibCST: a warm run needs none

    for recorded in lookups:
        found = find_module_file(recorded.importer, recorded.dotted, recorded.level)
        if _lookup(recorded.importer, recorded.dotted, recorded.level, found) != recorded:
            return False
    return True


# ---------------------------------------------------------------------------------------------------
# (de)serialising results


def _site_to_json(site: Site) -> list[Any]:
    return [site.path, site.line, site.column, site.end_line, site.end_column, site.cell]


def _site_from_json(value: list[Any]) -> Site:
    path, line, column, end_line, end_column, *cell = value
    return Site(str(path), int(line), int(column), int(end_line), int(end_column),
                int(cell[0]) if cell and cell[0] is not None else None)


def _budget_note_to_json(note: BudgetNote | None) -> dict[str, Any] | None:
    if note is None:
        return None
    stored = dataclasses.asdict(note)  # call_site becomes a dict: stored as the other sites are
    stored["call_site"] = None if note.call_site is None else _site_to_json(note.call_site)
    stored["test_methods"] = list(note.test_methods)
    return stored


def _budget_note_from_json(value: dict[str, Any] | None) -> BudgetNote | None:
    if value is None:
        return None
    site = value["call_site"]
    return BudgetNote(int(value["runs"]), int(value["stopped_runs"]), bool(value["default_stopped"]),
                      None if site is None else _site_from_json(site), value["function"],
                      tuple(str(name) for name in value["test_methods"]))


def _diagnostic_to_json(diagnostic: Diagnostic) -> dict[str, Any]:
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "severity": diagnostic.severity,
        "message": diagnostic.message,
        "site": _site_to_json(diagnostic.site),
        "related": [[_site_to_json(r.site) if r.site else None, r.note] for r in diagnostic.related],
        "certain": diagnostic.certain,
        "extra": diagnostic.extra,
        **({"fix": _fix_to_json(diagnostic.fix)} if diagnostic.fix_computed else {}),
    }


def _fix_to_json(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {"applicability": fix.applicability, "message": fix.message,
            "edits": [[edit.content, list(edit.start), list(edit.end)] for edit in fix.edits]}


def _fix_from_json(value: dict[str, Any] | None) -> Fix | None:
    if value is None:
        return None
    if value["applicability"] not in APPLICABILITIES:
        raise ValueError("unknown applicability")
    return Fix(str(value["applicability"]), str(value["message"]),
               tuple(Edit(str(content), (int(start[0]), int(start[1])), (int(end[0]), int(end[1])))
                     for content, start, end in value["edits"]))


def _diagnostic_from_json(value: dict[str, Any]) -> Diagnostic:
    return Diagnostic(
        code=str(value["code"]),
        name=str(value["name"]),
        severity=str(value["severity"]),
        message=str(value["message"]),
        site=_site_from_json(value["site"]),
        related=tuple(Related(_site_from_json(site) if site else None, str(note)) for site, note in value["related"]),
        certain=bool(value["certain"]),
        extra=dict(value["extra"]),
        fix=_fix_from_json(value["fix"]) if "fix" in value else None,
        fix_computed="fix" in value,  # entries stored without it: attach_fixes computes the fix
    )


# ---------------------------------------------------------------------------------------------------
# the cache


@dataclass(frozen=True)
class ResultCache:
    directory: Path  # .../.scopelint_cache/v<CACHE_FORMAT>
    salt: str  # what else the results depend on: scopelint's code, analyzer and rule modules

    @classmethod
    def under(cls, project_root: str | os.PathLike[str], analyzer_identity: str = "") -> ResultCache:
        root = Path(project_root) / CACHE_DIR_NAME
        return cls(directory=root / f"v{CACHE_FORMAT}", salt=f"{code_signature()}\0{analyzer_identity}")

    def key(self, display_path: str, enabled: frozenset[str], data: bytes) -> str:
        hasher = hashlib.sha256()
        for part in (self.salt, display_path, ",".join(sorted(enabled)), digest_bytes(data)):
            hasher.update(part.encode("utf-8", "surrogateescape"))
            hasher.update(b"\0")
        return hasher.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def load(self, key: str) -> CachedResult | None:
        entry = self._entry(key)
        try:
            text = entry.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            if entry.exists():
                _discard(entry)
            return None
        try:
            stored = json.loads(text)
            if stored.get("key") != key:
                raise ValueError("entry written for another key")
            lookups = [ModuleLookup(**lookup) for lookup in stored["lookups"]]
            result = CachedResult(
                diagnostics=[_diagnostic_from_json(item) for item in stored["diagnostics"]],
                source_lines=tuple(str(line) for line in stored["source_lines"]),
                cell_starts={int(cell): int(line) for cell, line in stored.get("cell_starts", [])},
                budget_note=_budget_note_from_json(stored.get("budget_note")),
            )
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):  # corrupt: drop it, analyse again
            _discard(entry)
            return None
        return result if _lookups_still_hold(lookups) else None

    def store(self, key: str, diagnostics: Sequence[Diagnostic], source_lines: Sequence[str], lookups: Sequence[ModuleLookup],
              cell_starts: dict[int, int] | None = None, budget_note: BudgetNote | None = None) -> None:
        try:
            text = json.dumps({
                "key": key,
                "lookups": [lookup.__dict__ for lookup in lookups],
                "diagnostics": [_diagnostic_to_json(diagnostic) for diagnostic in diagnostics],
                "source_lines": list(source_lines),
                "cell_starts": sorted((cell_starts or {}).items()),
                "budget_note": _budget_note_to_json(budget_note),
            })
        except (TypeError, ValueError):  # something in `extra` is not JSON: not cacheable
            return
        entry = self._entry(key)
        try:
            self._prepare()
            entry.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, entry)
        except OSError:  # a read-only tree still gets checked, just not cached
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(temporary)

    def _prepare(self) -> None:
        """Create the cache folder with a .gitignore and CACHEDIR.TAG, as ruff and pytest do."""
        top = self.directory.parent
        if (top / ".gitignore").is_file():
            return
        top.mkdir(parents=True, exist_ok=True)
        (top / "CACHEDIR.TAG").write_text(_CACHEDIR_TAG)
        (top / ".gitignore").write_text(_IGNORE_ALL)


def _discard(entry: Path) -> None:
    with contextlib.suppress(OSError):
        entry.unlink()
