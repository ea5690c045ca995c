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
    """Interpret one module and return its trace.  Raises ParseFailure for unparsable source."""
    from scopelint.analysis.interpreter import interpret_module

    return interpret_module(source, path)
