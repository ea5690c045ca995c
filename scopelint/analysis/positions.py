"""Source positions for CST nodes, cheaply.

LibCST's PositionProvider regenerates the whole module's code to count characters, which cost
more than the rest of the analysis together.  Calls (nearly every site a finding points at) are
matched instead with the `ast` module's positions: both trees list calls in the same pre-order,
so the n-th CST call is the n-th ast call ordered by (start, -end).  Any other node, or a module
where the two disagree, falls back to PositionProvider, computed once and only when needed.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Any, Iterator

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider


# Fields that hold only whitespace and punctuation: never a call, so never walked.
_SKIPPED_PREFIXES = ("whitespace", "lpar", "rpar", "leading_lines", "lines_after")
_SKIPPED_FIELDS = frozenset({
    "comma", "semicolon", "header", "footer", "equal", "colon", "operator", "lbracket", "rbracket",
    "lbrace", "rbrace", "newline", "asynchronous", "star", "dot", "trailing_whitespace", "first_line",
    "first_colon", "second_colon", "indent", "default_indent", "default_newline", "encoding",
    "has_trailing_newline", "posonly_ind",
})
# Where LibCST's field order is not source order: these fields come first, in this order.
_SOURCE_ORDER = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords"),
    cst.IfExp: ("body", "test"),
    cst.Arg: ("keyword",),
    cst.ExceptHandler: ("type", "name"),
    cst.MatchCase: ("pattern", "guard"),
    cst.TypeAlias: ("name", "type_parameters"),
}
_FIELDS: dict[type, list[str]] = {}


def _child_fields(node_type: type) -> list[str]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        names = [f.name for f in dataclasses.fields(node_type)
                 if f.name not in _SKIPPED_FIELDS and not f.name.startswith(_SKIPPED_PREFIXES)]
        first = [name for name in _SOURCE_ORDER.get(node_type, ()) if name in names]
        fields = first + [name for name in names if name not in first]
        _FIELDS[node_type] = fields
    return fields


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node below `node` (itself included) in source pre-order.

    Several times faster than a CSTVisitor, which dispatches visit/leave calls for every node,
    whitespace included.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        children: list[cst.CSTNode] = []
        for name in _child_fields(type(current)):
            value = getattr(current, name)
            if isinstance(value, cst.CSTNode):
                children.append(value)
            elif isinstance(value, (list, tuple)):
                children.extend(item for item in value if isinstance(item, cst.CSTNode))
        stack.extend(reversed(children))


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
        cst_calls: list[cst.Call] = []
        cst_functions: list[cst.FunctionDef] = []
        for node in walk(self.module):
            if isinstance(node, cst.Call):
                cst_calls.append(node)
            elif isinstance(node, cst.FunctionDef):
                cst_functions.append(node)
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
        pairs: list[tuple[cst.CSTNode, Any]] = list(zip(cst_calls, calls)) if len(calls) == len(cst_calls) else []
        # ast lists async defs too; CST's FunctionDef covers both, so the counts agree.
        if len(functions) == len(cst_functions):
            pairs += list(zip(cst_functions, functions))
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
