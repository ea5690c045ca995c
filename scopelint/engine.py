"""Files in, results out: discovery, pre-filter, decoding, analysis, rules, suppressions.

The engine never prints; the CLI turns a RunResult into output and an exit code.  With a
ResultCache (cache.py), stored results for unchanged files are used instead of analysing them; a
RunProgress is told of each result as it arrives.

Pre-filter: a file whose bytes never contain `tensorflow` is not parsed nor analysed (it cannot import
TensorFlow, so it cannot build variables with it) and counts as checked with no findings.  A module
that only receives TensorFlow objects from another module (`from mymodel import layers`) is still
analysed as soon as it mentions `tensorflow` anywhere, even in a comment; one that never does is
skipped, and this is the price of not parsing every Python file in a tree.

Limits, so that no file stops or stalls a run: a file over MAX_SOURCE_BYTES gets a TFS000 "too
large to analyse" (analysis time grows faster than size: a 2 MB generated module took 14-23 s on a
2-core machine, so a 10 MB one would take minutes); nesting too deep for LibCST is refused before
parsing (analysis/nesting.py); only regular files are read (a FIFO would block the run: named on
the command line it is an error, met while walking a folder it is skipped, like sockets, broken
symlinks and symlink loops); and a worker process that dies (a crash in a C extension, the OOM
killer) costs only the file it was analysing: the files it took down with it are analysed again,
each in a process of its own, and the file that kills its process again gets an internal error.
"""
from __future__ import annotations

import stat
import io
import signal
import os
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from scopelint import analysis, file_selection, gc_tuning, notebooks, pyparse
from scopelint.analysis.module_files import lookups_memoized
from scopelint.cache import CachedResult, ResultCache, recording_module_lookups
from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.noqa import NoqaDirectives, apply_noqa, parse_noqa, unused_directives
from scopelint import conditions
from scopelint.budget_notes import BudgetNote, note_of
from scopelint.trace import Site, Trace

if TYPE_CHECKING:
    # Imported where workers start: a one-file check (the pre-commit case) never needs them, and
    # they cost about 15 ms of its start-up.
    from concurrent.futures import ProcessPoolExecutor

PREFILTER_MARKER = b"tensorflow"
PARSE_ERROR_CODE = "TFS000"
UNUSED_NOQA_CODE = "TFS900"
STDIN_PATH = "-"
# Files a folder walk checks, as ruff's default `include`: Python modules and Jupyter notebooks
# (`include` / `extend-include` in the configuration change it).
DEFAULT_INCLUDE: tuple[str, ...] = ("*.py", "*.ipynb")
# Larger files get TFS000 "too large to analyse" (see the module docstring for the measurement);
# the same bound as for following a project module through an import.
MAX_SOURCE_BYTES = 2_000_000

# Directory and file names never descended into unless given explicitly (ruff's list, roughly).
# `.*` covers hidden directories (.git, .venv, .tox, ...).  A directory holding `pyvenv.cfg` is a
# virtual environment and is skipped whatever its name.
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".*",
    "__pycache__",
    "__pypackages__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

# Used when rules/tfs000_parse_error.py is absent, so that parse errors are still reported.
_PARSE_ERROR_FALLBACK = RuleInfo(
    code=PARSE_ERROR_CODE,
    name="parse-error",
    severity="error",
    summary="A file scopelint cannot parse",
    rationale="",
    bad="",
    good="",
)


@lru_cache(maxsize=1)
def _rule_modules() -> tuple:
    from scopelint.rules import all_rules

    return tuple(all_rules())


def known_rules() -> list[RuleInfo]:
    """Every rule's RuleInfo, including TFS000 even when its module is missing; sorted by code."""
    infos = {module.RULE.code: module.RULE for module in _rule_modules()}
    infos.setdefault(PARSE_ERROR_CODE, _PARSE_ERROR_FALLBACK)
    return [infos[code] for code in sorted(infos)]


def rule_info(code: str) -> RuleInfo | None:
    return next((info for info in known_rules() if info.code == code), None)


def resolve_code(written: str) -> str | None:
    """A code or rule name as written in a comment, mapped to a known code (None when unknown)."""
    for info in known_rules():
        if info.code == written.upper() or info.name == written.lower():
            return info.code
    return None


@dataclass(frozen=True)
class CheckSettings:
    """What the engine needs to know, resolved from config and flags (picklable for the workers)."""

    enabled: frozenset[str]  # rule codes that report
    root: str = "."  # directory that exclude and per-file-ignores patterns are relative to
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    include: tuple[str, ...] = DEFAULT_INCLUDE  # gitignore-style patterns of the files a walk checks
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()  # (glob, codes)
    respect_gitignore: bool = True  # skip what .gitignore lists when walking folders
    force_exclude: bool = False  # apply exclude to paths named on the command line too
    fixable: frozenset[str] | None = None  # codes --fix may repair (`fixable` less `unfixable`); None: all

    def enabled_for(self, path: str) -> frozenset[str]:
        ignored: set[str] = set()
        for pattern, codes in self.per_file_ignores:
            if path_matches(path, pattern, self.root):
                ignored |= codes
        return self.enabled - ignored


def path_matches(path: str, pattern: str, root: str) -> bool:
    """Gitignore-style match relative to `root`, as ruff does (file_selection.py)."""
    return file_selection.matches(path, (pattern,), root)


@dataclass(frozen=True)
class InternalError:
    """scopelint itself failed on a file: a bug to report, not a finding."""

    path: str
    rule: str | None  # the failing rule's code; None when the analyzer failed
    message: str  # "ValueError: ..."
    details: str  # the traceback


@dataclass
class FileResult:
    path: str  # as displayed
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None  # why the file could not be read (strerror), or None
    internal_errors: list[InternalError] = field(default_factory=list)
    skipped: bool = False  # pre-filtered: never mentions tensorflow
    source_lines: tuple[str, ...] = ()  # kept only when there are diagnostics, for the output
    # A notebook's source_lines are its concatenated cells: the line where each cell starts in them.
    cell_starts: dict[int, int] = field(default_factory=dict)
    # Set when a run of the analysis stopped at its work budget: findings past it are missing.
    budget_note: BudgetNote | None = None


@dataclass
class RunResult:
    files: list[FileResult]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every finding, sorted by path, line, column and code; a finding that two files' analyses
        both placed in the same module (a shared helper) is listed once."""
        unique: dict[tuple, Diagnostic] = {}
        for result in self.files:
            for diagnostic in result.diagnostics:
                unique.setdefault((diagnostic.code, diagnostic.site, diagnostic.message), diagnostic)
        return sorted(unique.values(), key=diagnostic_sort_key)

    @property
    def internal_errors(self) -> list[InternalError]:
        return [error for result in self.files for error in result.internal_errors]

    @property
    def read_errors(self) -> list[FileResult]:
        return [result for result in self.files if result.error is not None]

    @property
    def files_checked(self) -> int:
        return sum(1 for result in self.files if result.error is None)

    @property
    def files_unchecked(self) -> int:
        """Files that could not be read, or that the analyzer or a rule failed on."""
        return sum(1 for result in self.files if result.error is not None or result.internal_errors)

    def source_lines(self, path: str) -> tuple[str, ...]:
        return next((result.source_lines for result in self.files if result.path == path), ())

    def lines_at(self, site: Site) -> tuple[str, ...]:
        """The lines `site.line` counts in: its file's, or in a notebook its cell's and after."""
        if site.cell is None:
            return self.source_lines(site.path)
        result = next((result for result in self.files if result.path == site.path), None)
        start = result.cell_starts.get(site.cell) if result is not None else None
        return () if result is None or start is None else result.source_lines[start - 1:]


def diagnostic_sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, int, str]:
    return (diagnostic.site.path, diagnostic.site.cell or 0, diagnostic.site.line, diagnostic.site.column, diagnostic.code)


# ---------------------------------------------------------------------------------------------------
# discovery


@dataclass(frozen=True)
class FileTask:
    path: str  # to open
    display_path: str  # to report
    missing: bool = False  # an explicit path that does not exist
    settings: CheckSettings | None = None  # its own nearest configuration's, when not the run's


SettingsFor = Callable[[str], CheckSettings]  # a path's own settings (its nearest configuration)


def _is_excluded(path: str, settings: CheckSettings, is_dir: bool | None = None) -> bool:
    return file_selection.matches(path, settings.exclude, settings.root, is_dir)


def _skipped_when_walking(path: str, settings: CheckSettings, is_dir: bool) -> bool:
    return _is_excluded(path, settings, is_dir) or (settings.respect_gitignore and file_selection.gitignored(path, is_dir))


def discover(paths: Sequence[str], settings: CheckSettings, settings_for: SettingsFor | None = None) -> list[FileTask]:
    """The files to check, in a deterministic order, without duplicates; stdin is `-`.

    With `settings_for`, each file gets its own settings, and each folder's exclude (and
    .gitignore) decisions are taken with the settings of the folder it is in."""
    tasks: list[FileTask] = []
    seen: set[str] = set()
    file_selection.clear_caches()  # .gitignore files may have changed since the last run
    lookup = settings_for or (lambda _path: settings)

    def add(path: str, missing: bool = False) -> None:
        key = path if path == STDIN_PATH else os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            own = settings_for(path) if settings_for is not None and path != STDIN_PATH else None
            tasks.append(FileTask(path=path, display_path=os.path.normpath(path) if path != STDIN_PATH else path,
                                  missing=missing, settings=own))

    for given in paths:
        if given == STDIN_PATH:
            add(STDIN_PATH)
        elif os.path.isdir(given):
            # --force-exclude: a named folder that is excluded is skipped (pre-commit passes files).
            if not (lookup(given).force_exclude and _is_excluded(given, lookup(os.path.dirname(os.path.abspath(given))), True)):
                for file_path in _walk(given, lookup):
                    add(file_path)
        elif os.path.lexists(given):
            # Explicit files are checked even when an exclude pattern matches them, unless
            # --force-exclude; a broken symlink, a symlink loop or a FIFO is read (and reported)
            # with its own reason.
            if not (lookup(given).force_exclude and _is_excluded(given, lookup(given), False)):
                add(given)
        else:
            add(given, missing=True)
    return tasks


def _walk(directory: str, settings_for: SettingsFor) -> Iterable[str]:
    for current, dirnames, filenames in os.walk(directory):
        settings = settings_for(current)
        kept = []
        for name in sorted(dirnames):
            child = os.path.join(current, name)
            if _skipped_when_walking(child, settings, True) or os.path.exists(os.path.join(child, "pyvenv.cfg")):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            child = os.path.join(current, name)
            # Regular files only (symlinks followed): a FIFO would block the read, and a socket,
            # a broken symlink or a loop cannot be read at all; none of them is source code.
            if file_selection.matches(child, settings.include, settings.root, False) and not _skipped_when_walking(child, settings, False) and os.path.isfile(child):
                yield child


# ---------------------------------------------------------------------------------------------------
# checking one file


def _parse_error(path: str, message: str, line: int, column: int) -> Diagnostic:
    info = rule_info(PARSE_ERROR_CODE) or _PARSE_ERROR_FALLBACK
    line, column = max(line, 1), max(column, 1)
    return Diagnostic(
        code=info.code,
        name=info.name,
        severity=info.severity,
        message=message,
        site=Site(path, line, column, line, column + 1),
    )


def _position_of_byte(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def decode_source(data: bytes, path: str) -> tuple[str | None, Diagnostic | None]:
    """Decode as Python does (BOM, PEP 263 cookie, else UTF-8); a TFS000 finding when it cannot."""
    nul = data.find(b"\0")
    if nul >= 0:
        line, column = _position_of_byte(data, nul)
        return None, _parse_error(path, "source code cannot contain null bytes", line, column)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        return None, _parse_error(path, f"cannot determine the file's encoding: {error}", 1, 1)
    try:
        return data.decode(encoding), None
    except UnicodeDecodeError as error:
        line, column = _position_of_byte(data, error.start)
        reason = f"file is not valid {encoding}: byte 0x{data[error.start]:02x} cannot be decoded ({error.reason})"
        return None, _parse_error(path, reason, line, column)
    except LookupError as error:
        return None, _parse_error(path, f"unknown encoding: {error}", 1, 1)


def _internal_error(path: str, rule: str | None, error: BaseException) -> InternalError:
    return InternalError(
        path=path,
        rule=rule,
        message=f"{type(error).__name__}: {error}",
        details=pyparse.format_exception(error),
    )


def too_large(data: bytes) -> str | None:
    """Why a file is not analysed for its size, if it is over MAX_SOURCE_BYTES."""
    if len(data) <= MAX_SOURCE_BYTES:
        return None
    return (f"file too large to analyse ({len(data) / 1_000_000:.1f} MB; "
            f"scopelint analyses files up to {MAX_SOURCE_BYTES / 1_000_000:g} MB)")


def check_source(data: bytes, path: str, settings: CheckSettings) -> FileResult:
    """Check one file's bytes; `path` is used in findings and for per-file-ignores.  A Jupyter
    notebook's code cells are checked as one module, findings at cell:line (notebooks.py)."""
    if notebooks.is_notebook(path):
        return notebooks.check_notebook(data, path, settings, _check_python_source)
    return _check_python_source(data, path, settings)


def _check_python_source(data: bytes, path: str, settings: CheckSettings) -> FileResult:
    result = FileResult(path=path)
    if PREFILTER_MARKER not in data:
        result.skipped = True
        return result
    enabled = settings.enabled_for(path)
    oversize = too_large(data)
    if oversize is not None:
        # Not even decoded nor searched for noqa comments (tokenizing 10 MB takes 10 s or more):
        # per-file-ignores or exclude silence it.
        failure = _parse_error(path, oversize, 1, 1)
        result.diagnostics = [failure] if failure.code in enabled else []
        return result
    source, decode_failure = decode_source(data, path)
    found: list[Diagnostic] = []
    if decode_failure is not None:
        found.append(decode_failure)
    else:
        assert source is not None
        found.extend(_analyze_and_run_rules(source, path, enabled, result))
    found = [diagnostic for diagnostic in found if diagnostic.code in enabled]
    if source is not None:
        directives = parse_noqa(source)
        # This file's comments only speak for this file: a finding the analysis placed in another
        # module (a function defined there and called from here) is left as it is.
        elsewhere = [diagnostic for diagnostic in found if diagnostic.site.path != path]
        here = [diagnostic for diagnostic in found if diagnostic.site.path == path]
        found = apply_noqa(here, directives, resolve_code) + elsewhere
        if UNUSED_NOQA_CODE in enabled:
            found.extend(_unused_noqa_findings(directives, path, enabled))
        if found:
            result.source_lines = tuple(source.splitlines())
    result.diagnostics = sorted(found, key=diagnostic_sort_key)
    return result


def _analyze_and_run_rules(source: str, path: str, enabled: frozenset[str], result: FileResult) -> list[Diagnostic]:
    try:
        trace = analysis.analyze_source(source, path)
    except analysis.ParseFailure as failure:
        return [_parse_error(path, failure.message, failure.line, failure.column)]
    except Exception as error:  # a bug in the analyzer: report it, go on with other files
        result.internal_errors.append(_internal_error(path, None, error))
        return []
    # One run of the program per explored configuration: the rules judge each run, and the same
    # finding on several runs becomes one finding with their conditions joined.
    result.budget_note = note_of(trace)
    runs = [(run.condition, _run_rules(run, path, enabled, result)) for run in [trace, *trace.other_paths]]
    return conditions.merge(runs, trace.paths_merged)


def _run_rules(trace: Trace, path: str, enabled: frozenset[str], result: FileResult) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for module in _rule_modules():
        if module.RULE.code not in enabled:
            continue
        try:
            found.extend(list(module.check(trace)))  # all or nothing: no partial results from a failing rule
        except Exception as error:  # a bug in the rule: report it, run the other rules
            if not any(e.rule == module.RULE.code for e in result.internal_errors):
                result.internal_errors.append(_internal_error(path, module.RULE.code, error))
    return found


def _unused_noqa_findings(directives: NoqaDirectives, path: str, enabled: frozenset[str]) -> list[Diagnostic]:
    info = rule_info(UNUSED_NOQA_CODE)
    assert info is not None, "rules/tfs900_unused_noqa.py is part of scopelint"
    return [
        Diagnostic(
            code=info.code,
            name=info.name,
            severity=info.severity,
            message=report.message(),
            site=Site(path, report.directive.line, report.directive.column, report.directive.line, report.directive.end_column),
        )
        for report in unused_directives(directives, resolve_code, lambda code: code in enabled)
    ]


def read_task(task: FileTask, stdin_data: bytes | None) -> tuple[bytes | None, FileResult | None]:
    """The file's bytes, or a result saying why there are none."""
    if task.missing:
        return None, FileResult(path=task.display_path, error="No such file or directory")
    if task.path == STDIN_PATH:
        return (stdin_data if stdin_data is not None else b""), None
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused below).
        descriptor = os.open(task.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        return None, FileResult(path=task.display_path, error=_not_regular(task.path) or error.strerror or str(error))
    with os.fdopen(descriptor, "rb") as handle:
        try:
            mode = os.fstat(handle.fileno()).st_mode
            if not stat.S_ISREG(mode):
                return None, FileResult(path=task.display_path, error=_not_regular(task.path) or "not a regular file")
            return handle.read(), None
        except OSError as error:
            return None, FileResult(path=task.display_path, error=error.strerror or str(error))


def _not_regular(path: str) -> str | None:
    """Why `path` is not a file to read, when it exists as something else."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return f"not a regular file ({kind})"
    return None


def check_task(task: FileTask, settings: CheckSettings, stdin_data: bytes | None = None, cache: ResultCache | None = None) -> FileResult:
    """Read and check one file; a file that cannot be read gets `error` and no findings.

    With a cache, a stored result for the same bytes and settings is returned without analysing,
    and a new result is stored (stdin is never cached: it has no file to go stale against)."""
    settings = task.settings or settings
    data, unreadable = read_task(task, stdin_data)
    if unreadable is not None:
        return unreadable
    assert data is not None
    if cache is None or task.path == STDIN_PATH or PREFILTER_MARKER not in data:
        return check_source(data, task.display_path, settings)
    key = cache.key(task.display_path, settings.enabled_for(task.display_path), data)
    cached = cache.load(key)
    if cached is not None:
        return _from_cache(task, cached)
    with recording_module_lookups() as lookups:
        result = check_source(data, task.display_path, settings)
    if lookups is not None and not result.internal_errors:
        text = decode_source(data, task.display_path)[0] if result.diagnostics else None
        if text is not None:
            from scopelint import fixes  # libcst.metadata: only where there are findings

            # Kept with the findings: a warm run would otherwise parse the file again for its fixes.
            fixes.precompute_fixes(result.diagnostics, task.display_path, text)
        cache.store(key, result.diagnostics, result.source_lines, lookups, result.cell_starts, result.budget_note)
    return result


def _size(task: FileTask) -> int:
    try:
        return os.stat(task.path).st_size
    except OSError:
        return 0


def analyzer_identity() -> str:
    """Which analyzer and rule modules produce results (part of the cache key: tests swap them)."""
    analyze = analysis.analyze_source
    modules = ",".join(module.__name__ for module in _rule_modules())
    return f"{analyze.__module__}.{analyze.__qualname__}\0{modules}"


def _cached_result(task: FileTask, settings: CheckSettings, cache: ResultCache) -> FileResult | None:
    """A result that needs no analysis: stored in the cache, or pre-filtered, or unreadable."""
    settings = task.settings or settings
    data, unreadable = read_task(task, None)
    if unreadable is not None:
        return unreadable
    assert data is not None
    if PREFILTER_MARKER not in data:
        return check_source(data, task.display_path, settings)
    cached = cache.load(cache.key(task.display_path, settings.enabled_for(task.display_path), data))
    if cached is None:
        return None
    return _from_cache(task, cached)


def _from_cache(task: FileTask, cached: CachedResult) -> FileResult:
    return FileResult(path=task.display_path, diagnostics=cached.diagnostics, source_lines=cached.source_lines,
                      cell_starts=cached.cell_starts, budget_note=cached.budget_note)


def _check_in_own_process(task: FileTask, settings: CheckSettings, cache: ResultCache | None, context: object) -> FileResult:
    """Check one file in a process of its own: if that process dies too, the file is the cause."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1, mp_context=context) as alone:  # type: ignore[arg-type]
        try:
            return alone.submit(check_task, task, settings, None, cache).result()
        except BrokenProcessPool:
            crash = InternalError(
                path=task.display_path,
                rule=None,
                message="the process analysing this file died (killed by a signal or crashed in native code)",
                details="",
            )
            return FileResult(path=task.display_path, internal_errors=[crash])


def _worker_ignores_interrupt() -> None:
    """Ctrl-C reaches the whole process group: the parent alone decides (and stops the workers).
    A worker also collects garbage as seldom as the parent (gc_tuning.py), whichever way it starts."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc_tuning.tune()


def _stop_at_once(executor: ProcessPoolExecutor) -> None:
    """Ctrl-C: drop the queued files and end the workers now.  `shutdown()` alone, as the `with` block
    did, let every queued file run first (36 s after a Ctrl-C on 722 files)."""
    # concurrent.futures has no public way to end running work before Python 3.14
    # (terminate_workers); its worker processes are in `_processes` (cleared by shutdown).
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)


class RunProgress(Protocol):
    """Told how many files a run has and each result as it arrives (for a progress bar)."""

    def started(self, total: int) -> None: ...

    def advanced(self, result: FileResult) -> None: ...


# ---------------------------------------------------------------------------------------------------
# a run


def run(
    paths: Sequence[str],
    settings: CheckSettings,
    jobs: int | None = None,
    stdin_data: bytes | None = None,
    stdin_filename: str | None = None,
    cache: ResultCache | None = None,
    progress: RunProgress | None = None,
    settings_for: SettingsFor | None = None,
) -> RunResult:
    """Check `paths` (files, directories, `-` for stdin); results are in discovery order.

    `jobs` worker processes (None: one per core); with one job, or one file, everything runs in this
    process.  Stdin is always checked here, since its bytes were read by this process.  With a
    cache, stored results are looked up here first, so that an unchanged tree starts no workers.
    `settings_for` gives each file its own settings (project_settings.SettingsResolver).
    """
    # Two arguments when there is no resolver: tests replace discover with two-argument stand-ins.
    tasks = discover(paths, settings) if settings_for is None else discover(paths, settings, settings_for)
    if stdin_filename is not None:
        own = settings_for(stdin_filename) if settings_for is not None else None
        tasks = [
            FileTask(STDIN_PATH, stdin_filename, settings=own) if task.path == STDIN_PATH else task for task in tasks
        ]
    if progress is not None:
        progress.started(len(tasks))
    results: dict[int, FileResult] = {}

    def finished(task: FileTask, result: FileResult) -> None:
        results[id(task)] = result
        if progress is not None:
            progress.advanced(result)

    if cache is not None:
        with lookups_memoized():  # the tree does not change while the cached results are checked
            for task in tasks:
                if task.path != STDIN_PATH:
                    known = _cached_result(task, settings, cache)
                    if known is not None:
                        finished(task, known)
    workers = jobs if jobs is not None and jobs > 0 else (os.cpu_count() or 1)
    file_tasks = [task for task in tasks if task.path != STDIN_PATH and not task.missing and id(task) not in results]
    if workers > 1 and len(file_tasks) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        # Warm the rule registry and the analyzer (the interpreter and LibCST: a third of a
        # second to import) before forking so that workers inherit them instead of each importing.
        _rule_modules()
        from scopelint.analysis import paths as _paths  # noqa: F401
        # fork where there is one: workers start at once with the rules already imported.
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        executor = ProcessPoolExecutor(max_workers=min(workers, len(file_tasks)), mp_context=context,
                                       initializer=_worker_ignores_interrupt)
        try:
            # One file per task: analysis time varies by orders of magnitude between files, so
            # batches would leave a worker idle while another finishes a batch of large files.
            # Largest files first, so that no worker is left with a large file while the others idle.
            pending = {executor.submit(check_task, task, settings, None, cache): task
                       for task in sorted(file_tasks, key=_size, reverse=True)}
            lost: set[int] = set()  # tasks taken down by a worker that died
            for future in as_completed(pending):
                try:
                    finished(pending[future], future.result())
                except BrokenProcessPool:
                    lost.add(id(pending[future]))
        except KeyboardInterrupt:
            _stop_at_once(executor)
            raise
        finally:
            executor.shutdown()  # waits for nothing after _stop_at_once
        for task in file_tasks:
            if id(task) in lost:
                finished(task, _check_in_own_process(task, settings, cache, context))
    for task in tasks:
        if id(task) not in results:
            finished(task, check_task(task, settings, stdin_data, cache))
    return RunResult(files=[results[id(task)] for task in tasks])
