"""Source positions for CST nodes, cheaply.

LibCST's PositionProvider regenerates the whole module's code to count characters, which cost
more than the rest of the analysis together.  Calls (nearly every site a finding points at) are
matched instead with the `ast` module's positions: both trees list calls in the same pre-order,
so the n-th CST call is the n-th ast call ordered by (start, -end).  Any other node, or a module
where the two disagree, falls back to PositionProvider, computed once and only when needed.
"""
from __future__ import annotations

import ast
from typing import Any

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.functions: list[cst.FunctionDef] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)


class Positions:
    def __init__(self, module: cst.Module, source: str) -> None:
        self.module = module
        self.source = source
        self._calls: dict[int, CodeRange] | None = None
        self._full: Any = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if isinstance(node, (cst.Call, cst.FunctionDef)):
            if self._calls is None:
                self._calls = self._match_calls()
            found = self._calls.get(id(node))
            if found is not None:
                return found
        if self._full is None:
            self._full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._full[node]

    def _match_calls(self) -> dict[int, CodeRange]:
        collector = _Collector()
        self.module.visit(collector)
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return {}
        nodes = list(ast.walk(tree))
        calls: list[Any] = [n for n in nodes if isinstance(n, ast.Call)]
        functions: list[Any] = [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        order = lambda n: (n.lineno, n.col_offset, -(n.end_lineno or 0), -(n.end_col_offset or 0))  # noqa: E731
        calls.sort(key=order)
        functions.sort(key=order)
        pairs = list(zip(collector.calls, calls))
        if len(calls) != len(collector.calls):
            pairs = []
        # ast lists async defs too; CST's FunctionDef covers both, so the counts agree.
        if len(functions) == len(collector.functions):
            pairs += list(zip(collector.functions, functions))
        lines = self.source.splitlines()
        result: dict[int, CodeRange] = {}
        for cst_call, ast_call in pairs:
            start = CodePosition(ast_call.lineno, _char_column(lines, ast_call.lineno, ast_call.col_offset))
            end_line = ast_call.end_lineno or ast_call.lineno
            end = CodePosition(end_line, _char_column(lines, end_line, ast_call.end_col_offset or 0))
            result[id(cst_call)] = CodeRange(start, end)
        return result


def _char_column(lines: list[str], line: int, byte_offset: int) -> int:
    """ast gives UTF-8 byte offsets; sites use character columns."""
    if line - 1 >= len(lines):
        return byte_offset
    text = lines[line - 1]
    if text.isascii():
        return byte_offset
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
