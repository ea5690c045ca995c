"""From source text to trace: parse, resolve TensorFlow names, interpret."""
from __future__ import annotations

from scopelint.trace import Trace


class ParseFailure(Exception):
    """The source could not be parsed; `line`/`column` are 1-based (0 when unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def analyze_source(source: str, path: str) -> Trace:
    """Interpret one module and return its trace.  Raises ParseFailure for unparsable source.

    The trace is the run with the default configuration; when the program tests its flags,
    arguments or environment, its runs with other configurations are in `other_paths`."""
    from scopelint.analysis import paths

    return paths.analyze(source, path)
