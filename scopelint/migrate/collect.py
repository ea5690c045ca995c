"""Files in, facts out: every file under the given paths, analysed once, nothing judged yet.

Discovery, the `tensorflow` pre-filter and decoding are the engine's (`engine.discover`,
`engine.PREFILTER_MARKER`, `engine.decode_source`), so `migrate` sees exactly the files `check`
sees.  A file that cannot be read, decoded or parsed is kept with its reason: the report counts it
as not analysed, never as fine.
"""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from scopelint import analysis, engine, pyparse
from scopelint.migrate.constructs import ModuleConstructs, scan_constructs
from scopelint.migrate.observe import StoreObservations, observing_store
from scopelint.trace import Trace

# Why a file has no (complete) analysis.
NO_TENSORFLOW = "no_tensorflow"  # never mentions tensorflow, or imports nothing from it
ANALYSED = "analysed"
NOT_PARSED = "not_parsed"  # decoding or parsing failed
UNREADABLE = "unreadable"
ANALYZER_FAILED = "analyzer_failed"  # a bug in scopelint: constructs are known, variables are not


@dataclass
class ModuleFacts:
    path: str
    status: str
    problem: str | None = None  # the reason, with its position, when not analysed
    trace: Trace | None = None
    store: StoreObservations = field(default_factory=StoreObservations)
    constructs: ModuleConstructs = field(default_factory=ModuleConstructs)

    @property
    def uses_tensorflow(self) -> bool:
        if self.status in (NO_TENSORFLOW, UNREADABLE):
            return False
        return bool(self.constructs.imports) or (self.trace is not None and self.trace.uses_tensorflow)


def collect_source(data: bytes, path: str) -> ModuleFacts:
    if engine.PREFILTER_MARKER not in data:
        return ModuleFacts(path, NO_TENSORFLOW)
    oversize = engine.too_large(data)
    if oversize is not None:
        return ModuleFacts(path, NOT_PARSED, f"1:1: {oversize}")
    source, failure = engine.decode_source(data, path)
    if failure is not None:
        return ModuleFacts(path, NOT_PARSED, f"{failure.site.line}:{failure.site.column}: {failure.message}")
    assert source is not None
    try:
        with observing_store() as store:
            trace = analysis.analyze_source(source, path)
    except analysis.ParseFailure as parse_failure:
        return ModuleFacts(path, NOT_PARSED, f"{parse_failure.line}:{parse_failure.column}: {parse_failure.message}")
    except Exception as error:  # a bug in the analyzer: keep the file's constructs, say so
        facts = ModuleFacts(path, ANALYZER_FAILED, f"{type(error).__name__}: {error}")
        facts.problem += "\n" + pyparse.format_exception(error)[-2000:]
        facts.constructs = _constructs_or_empty(source, path)
        return facts
    facts = ModuleFacts(path, ANALYSED, trace=trace, store=store, constructs=_constructs_or_empty(source, path))
    if not facts.uses_tensorflow:
        facts.status = NO_TENSORFLOW
    return facts


def _constructs_or_empty(source: str, path: str) -> ModuleConstructs:
    try:
        return scan_constructs(source, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ModuleConstructs()  # LibCST parsed it but `ast` did not: no construct counts


def collect_task(task: engine.FileTask) -> ModuleFacts:
    data, unreadable = engine.read_task(task, None)  # as `check` reads: a FIFO is refused, not waited on
    if unreadable is not None:
        return ModuleFacts(task.display_path, UNREADABLE, unreadable.error or "cannot be read")
    assert data is not None
    return collect_source(data, task.display_path)


def collect(paths: Sequence[str], exclude: tuple[str, ...] = engine.DEFAULT_EXCLUDE, jobs: int | None = 1,
            root: str = ".", stdin_data: bytes | None = None, stdin_filename: str | None = None) -> list[ModuleFacts]:
    """Facts for every Python file under `paths`, in discovery order; `-` is `stdin_data` (reported
    as `stdin_filename`).  `jobs` worker processes (None: one per core)."""
    settings = engine.CheckSettings(enabled=frozenset(), root=root, exclude=exclude)
    tasks = engine.discover(paths, settings)
    files = [task for task in tasks if task.path != engine.STDIN_PATH]
    workers = jobs if jobs is not None and jobs > 0 else (os.cpu_count() or 1)
    if workers > 1 and len(files) > 1:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ProcessPoolExecutor(max_workers=min(workers, len(files)), mp_context=context) as executor:
            found = dict(zip(map(id, files), executor.map(collect_task, files)))
    else:
        found = {id(task): collect_task(task) for task in files}
    # Stdin is analysed here: its bytes were read by this process.
    return [
        collect_source(stdin_data or b"", stdin_filename or engine.STDIN_PATH) if task.path == engine.STDIN_PATH else found[id(task)]
        for task in tasks
    ]
