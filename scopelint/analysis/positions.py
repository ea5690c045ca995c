"""Source positions for CST nodes, cheaply.

LibCST's PositionProvider regenerates the whole module's code to count characters, which cost
more than the rest of the analysis together.  The nodes sites are taken from (calls, attributes,
defs, parameters) are matched instead with the `ast` module's positions: both trees list each
type in the same pre-order, so the n-th CST call is the n-th ast call ordered by (start, -end).
Any other node, or a type for which the two parsers disagree, falls back to PositionProvider,
computed once and only when needed.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Any, Iterator

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from scopelint import pyparse


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
_IS_NODE: dict[type, bool] = {}  # type -> is it a LibCST node class

# The node types whose positions come from `ast`: every node a site is taken from (calls, the
# attribute of a property access, a def for an isolated run, a parameter for TFS106, a loop whose
# count is a path decision).  One node of any other type asked for costs PositionProvider's
# regeneration of the whole module, about 0.1 s for a file of a few hundred lines.
_AST_TYPES: dict[type, type] = {
    cst.Call: ast.Call,
    cst.FunctionDef: ast.FunctionDef,
    cst.Attribute: ast.Attribute,
    cst.Param: ast.arg,
    cst.For: ast.For,
    cst.While: ast.While,
}
# CST's FunctionDef and For cover the async forms too.
_ASYNC_AS = {ast.AsyncFunctionDef: ast.FunctionDef, ast.AsyncFor: ast.For}
_MATCHED_TYPES = tuple(_AST_TYPES)


def _child_fields(node_type: type) -> list[str]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        names = [f.name for f in dataclasses.fields(node_type)
                 if f.name not in _SKIPPED_FIELDS and not f.name.startswith(_SKIPPED_PREFIXES)]
        first = [name for name in _SOURCE_ORDER.get(node_type, ()) if name in names]
        fields = first + [name for name in names if name not in first]
        _FIELDS[node_type] = fields
    return fields


def walk(node: cst.CSTNode, skip: tuple[type, ...] = ()) -> Iterator[cst.CSTNode]:
    """Every node below `node` (itself included) in source pre-order.

    Several times faster than a CSTVisitor, which dispatches visit/leave calls for every node,
    whitespace included.
    """
    stack = [node]
    is_node = _IS_NODE
    while stack:
        current = stack.pop()
        yield current
        if skip and isinstance(current, skip):
            continue
        children: list[cst.CSTNode] = []
        for name in _FIELDS.get(type(current)) or _child_fields(type(current)):
            value = getattr(current, name)
            kind = type(value)
            # isinstance against LibCST's abstract base classes was most of the walk's time.
            node_kind = is_node.get(kind)
            if node_kind is None:
                node_kind = is_node[kind] = issubclass(kind, cst.CSTNode)
            if node_kind:
                children.append(value)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    item_kind = is_node.get(type(item))
                    if item_kind is None:
                        item_kind = is_node[type(item)] = issubclass(type(item), cst.CSTNode)
                    if item_kind:
                        children.append(item)
        stack.extend(reversed(children))


class Positions:
    def __init__(self, module: cst.Module, source: str, tree: ast.Module | None = None) -> None:
        self.module = module
        self.source = source
        self._tree = tree  # Python's parse of the same source, when the caller already has it
        self._matched: dict[int, Any] | None = None  # id -> CodeRange, or its 4-tuple until asked for
        self._full: Any = None
        # Python's tree has two users, the matching below and undefined_names.py: kept until both ran.
        self._tree_users_left = {"match", "names"}

    def python_tree(self, user: str) -> ast.Module | None:
        """Python's parse of the source for `user` ("match" or "names"), parsed again only when the
        other user already released it; None for a source Python rejects."""
        tree = self._tree
        if tree is None:
            try:
                tree = pyparse.parse(self.source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        self._tree_users_left.discard(user)
        self._tree = tree if self._tree_users_left else None
        return tree

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._matched is None:
            self._matched = self._match_nodes()
        found = self._matched.get(id(node))
        if found is not None:
            if type(found) is tuple:  # built on first use: most matched nodes are never asked for
                found = self._matched[id(node)] = CodeRange(CodePosition(found[0], found[1]),
                                                            CodePosition(found[2], found[3]))
            return found
        if self._full is None:
            self._full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._full[node]

    def _match_nodes(self) -> dict[int, CodeRange]:
        found: dict[type, list[cst.CSTNode]] = {cst_type: [] for cst_type in _MATCHED_TYPES}
        # Dotted names in imports are Attributes in CST but plain strings in ast: not walked.
        for node in walk(self.module, skip=(cst.Import, cst.ImportFrom)):
            bucket = found.get(type(node))
            if bucket is not None:
                bucket.append(node)
        tree = self.python_tree("match")
        if tree is None:
            return {}
        by_type: dict[type, list[Any]] = {ast_type: [] for ast_type in _AST_TYPES.values()}
        for node in ast.walk(tree):
            ast_type = _ASYNC_AS.get(type(node), type(node))
            bucket = by_type.get(ast_type)
            if bucket is not None:
                bucket.append(node)
        order = lambda n: (n.lineno, n.col_offset, -(n.end_lineno or 0), -(n.end_col_offset or 0))  # noqa: E731
        pairs: list[tuple[cst.CSTNode, Any]] = []
        for cst_type, ast_type in _AST_TYPES.items():
            ast_nodes = sorted(by_type[ast_type], key=order)
            # Counts differ only if the two parsers disagree: then that type falls back.
            if len(ast_nodes) == len(found[cst_type]):
                pairs += list(zip(found[cst_type], ast_nodes))
                if cst_type is cst.FunctionDef:
                    # A user decorator's call site is its expression; a call or an attribute is
                    # matched above already, a bare name (`@register`) only here.
                    pairs += [(decorator.decorator, expression)
                              for cst_def, ast_def in zip(found[cst_type], ast_nodes)
                              for decorator, expression in zip(cst_def.decorators, ast_def.decorator_list)
                              if type(decorator.decorator) is cst.Name]
        lines = self.source.splitlines()
        result: dict[int, Any] = {}
        for cst_node, ast_node in pairs:
            line = ast_node.lineno
            end_line = ast_node.end_lineno or line
            result[id(cst_node)] = (line, _char_column(lines, line, ast_node.col_offset),
                                    end_line, _char_column(lines, end_line, ast_node.end_col_offset or 0))
        return result


def _char_column(lines: list[str], line: int, byte_offset: int) -> int:
    """ast gives UTF-8 byte offsets; sites use character columns."""
    if line - 1 >= len(lines):
        return byte_offset
    text = lines[line - 1]
    if text.isascii():
        return byte_offset
    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
