"""Which paths a pattern names, and what `.gitignore` leaves out: ruff's file selection.

Patterns (`exclude`, `extend-exclude`, `per-file-ignores` keys) are gitignore-style, matched with
pathspec's `gitwildmatch` against the path relative to the configuration's directory (`root`):

- a pattern without `/` names a file or directory of that name at any depth (`build`, `*_pb2.py`);
- a pattern with `/` is anchored at `root` (`pkg/gen`, `./pkg/gen` and `/pkg/gen` are the same);
- `**` crosses directories, including none (`tests/**/*.py` matches `tests/test_y.py`);
- `{a,b}` alternatives are expanded first, as ruff's globset does (`**/{tests,gen}/*`);
- a pattern that names a directory covers everything under it (`third_party/*`, `pkg/gen`).

`.gitignore` files are respected inside a git work tree (a folder with `.git` above the path), as
ruff does by default: each one speaks for its own folder and below, the deepest match wins
(`!keep.py` re-includes), and `.git/info/exclude` counts as a `.gitignore` at the top.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec  # imported when a pattern is first compiled: pathspec 1.x loads asyncio (25 ms of start-up)

_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    """`a/{b,c}/*` -> [`a/b/*`, `a/c/*`] (nested and repeated groups too)."""
    match = _BRACES.search(pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end():]
    return [expanded for choice in match.group(1).split(",") for expanded in expand_braces(head + choice + tail)]


def _normalise(pattern: str) -> list[str]:
    pattern = pattern.strip()
    if pattern.startswith("./"):
        # ruff accepts `./pkg/gen`: relative to the configuration's folder, i.e. anchored there.
        pattern = "/" + pattern[2:].lstrip("/")
    return expand_braces(pattern)


@lru_cache(maxsize=1)
def _pattern_kind() -> str:
    import pathspec
    # pathspec 1.x calls git's wildmatch syntax "gitignore" and deprecates "gitwildmatch" (0.12's name).
    try:
        pathspec.util.lookup_pattern("gitignore")
        return "gitignore"
    except KeyError:
        return "gitwildmatch"


@lru_cache(maxsize=1024)
def compile_patterns(patterns: tuple[str, ...]) -> pathspec.PathSpec:
    import pathspec
    lines = [line for pattern in patterns for line in _normalise(pattern) if line]
    return pathspec.PathSpec.from_lines(_pattern_kind(), lines)


def _relative(path: str, root: str) -> str:
    """`path` relative to `root` with `/` separators; a path outside `root` keeps its absolute
    form without the leading `/`, so that name patterns still match it and anchored ones do not."""
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, os.path.abspath(root))
    if relative == ".." or relative.startswith(".." + os.sep):
        relative = absolute.lstrip(os.sep)
    return relative.replace(os.sep, "/")


def _candidates(relative: str, is_dir: bool) -> list[str]:
    # A directory is also tried with a trailing `/`, so that `gen/` (directories only) names it.
    return [relative, relative + "/"] if is_dir else [relative]


def matches(path: str, patterns: Sequence[str], root: str, is_dir: bool | None = None) -> bool:
    """Whether any of `patterns` names `path` or a folder above it (below `root`)."""
    if not patterns:
        return False
    if is_dir is None:
        is_dir = os.path.isdir(path)
    spec = compile_patterns(tuple(patterns))
    relative = _relative(path, root)
    if relative in (".", ""):
        return False
    if any(spec.match_file(candidate) for candidate in _candidates(relative, is_dir)):
        return True
    # A folder named by a pattern covers what is under it, even when walking did not pass through
    # it (an explicit path with --force-exclude, or per-file-ignores = {"gen/" = [...]}).
    parts = relative.split("/")
    return any(spec.match_file("/".join(parts[:end]) + "/") for end in range(1, len(parts)))


# ---------------------------------------------------------------------------------------------------
# .gitignore


@dataclass(frozen=True)
class _IgnoreFile:
    directory: str  # absolute: the folder its patterns are relative to
    spec: pathspec.GitIgnoreSpec


def git_root(start: str) -> str | None:
    """The work tree containing `start` (the nearest folder with a `.git` entry), or None."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


@lru_cache(maxsize=4096)
def _ignore_file(directory: str, name: str) -> _IgnoreFile | None:
    path = os.path.join(directory, name)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    import pathspec
    base = directory if name == ".gitignore" else os.path.dirname(os.path.dirname(directory))
    return _IgnoreFile(base, pathspec.GitIgnoreSpec.from_lines(lines))


def _ignore_files(directory: str, top: str) -> list[_IgnoreFile]:
    """The ignore files that speak for `directory`, deepest first, up to the work tree `top`."""
    found: list[_IgnoreFile] = []
    current = directory
    while True:
        ignore = _ignore_file(current, ".gitignore")
        if ignore is not None:
            found.append(ignore)
        if current == top or os.path.dirname(current) == current:
            break
        current = os.path.dirname(current)
    info = _ignore_file(os.path.join(top, ".git", "info"), "exclude")
    if info is not None:
        found.append(info)
    return found


def gitignored(path: str, is_dir: bool | None = None) -> bool:
    """Whether git would ignore `path` (False outside a git work tree)."""
    absolute = os.path.abspath(path)
    top = git_root(os.path.dirname(absolute))
    if top is None:
        return False
    if is_dir is None:
        is_dir = os.path.isdir(absolute)
    for ignore in _ignore_files(os.path.dirname(absolute), top):
        relative = os.path.relpath(absolute, ignore.directory).replace(os.sep, "/")
        result = ignore.spec.check_file(relative + ("/" if is_dir else ""))
        if result.include is not None:  # this file decides: ignored, or re-included with `!`
            return bool(result.include)
    return False


def clear_caches() -> None:
    """Forget ignore files read so far (a long-lived process whose files change)."""
    _ignore_file.cache_clear()


__all__: Iterable[str] = ["clear_caches", "compile_patterns", "expand_braces", "git_root", "gitignored", "matches"]
