"""A progress bar for `check` on a terminal: files done of all, findings so far.

It is drawn on stderr only when stderr is a terminal, and removed when the run ends (transient), so
the findings printed afterwards stand alone; piped or redirected, nothing is drawn.  A run of a
single file (the pre-commit case) draws nothing.
"""
from __future__ import annotations

from typing import TextIO

from typing import TYPE_CHECKING

from rich.console import Console

from scopelint.engine import FileResult

if TYPE_CHECKING:
    from rich.progress import Progress

# Below this many files a run is over before a bar would help.
MIN_FILES = 2


class ProgressBar:
    """An engine.RunProgress that draws a rich progress bar; `close()` removes it."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Progress | None = None
        self.task = None
        self.findings = 0

    def started(self, total: int) -> None:
        if total < MIN_FILES:
            return
        # Imported here: rich.progress costs ~40 ms of start-up, paid only when a bar is drawn.
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("checking"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("files"),
            TextColumn("{task.fields[findings]} findings"),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        self.task = self.progress.add_task("check", total=total, findings=0)
        self.progress.start()

    def advanced(self, result: FileResult) -> None:
        self.findings += len(result.diagnostics)
        if self.progress is not None:
            self.progress.update(self.task, advance=1, findings=self.findings)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def progress_bar(stream: TextIO) -> ProgressBar | None:
    """A bar on `stream` when it is a terminal, else None."""
    console = Console(file=stream, highlight=False, emoji=False, markup=False)
    return ProgressBar(console) if console.is_terminal else None
