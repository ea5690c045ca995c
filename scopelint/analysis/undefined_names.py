"""Names a module provably never defines: evaluating one raises NameError (issue 9 item 8).

A name is provably undefined when nothing in the module can bind it: no binding anywhere in the
file (any scope, any target, parameter, import, `def`, `class`, `as`, walrus), no `from x import *`,
no dynamic binding (`globals()`, `locals()`, `vars()`, `exec`, `eval`, `__import__`, `sys.modules`,
the `builtins` module), and it is neither a builtin of Python 3 nor of Python 2 (TF1 programs were
often written for Python 2, where `xrange` or `unicode` exist: a NameError there is not proven) nor
a dunder (`__file__`, `__class__`, ...).  Anything less certain stays an unknown value.

The answer is a set of the ids of the `Name` nodes (loads) of one module, computed once per parsed
module and kept with its position table, so it is asked by node: a node of another module is never
in the set.
"""
from __future__ import annotations

import ast
import builtins
import weakref
from typing import Any

import libcst as cst

from scopelint.analysis.bindings import BindingVisitor

# Python 2 builtins that Python 3 dropped: code written for Python 2 may still run under it.
_PYTHON2_BUILTINS = frozenset({
    "xrange", "unicode", "basestring", "long", "raw_input", "reduce", "file", "execfile", "unichr",
    "cmp", "reload", "buffer", "apply", "coerce", "intern", "StandardError",
})
_BUILTIN_NAMES = frozenset(dir(builtins)) | _PYTHON2_BUILTINS
# Names whose presence means the module may bind names no syntax shows.
_DYNAMIC = frozenset({"globals", "locals", "vars", "exec", "eval", "execfile", "__import__",
                      "builtins", "__builtin__", "__builtins__", "get_ipython"})

_CACHE: "weakref.WeakKeyDictionary[Any, frozenset[int]]" = weakref.WeakKeyDictionary()


def undefined_name_ids(positions: Any) -> frozenset[int]:
    """Ids of the Name loads of `positions.module` that provably raise NameError (may be empty)."""
    result = _CACHE.get(positions)
    if result is None:
        module = getattr(positions, "module", None)
        tree = positions.python_tree("names") if hasattr(positions, "python_tree") else None
        if tree is not None and not _may_have_undefined(tree):
            result = frozenset()
        else:
            result = _compute(module)
        _CACHE[positions] = result
    return result


def _may_have_undefined(tree: ast.Module) -> bool:
    """False when Python's own parse shows every name the module mentions bound somewhere or a
    builtin: then LibCST's walk, which costs ten times more, has nothing to find.  Every name the
    exact walk below can report is a Name of this parse that none of these bindings binds."""
    mentioned: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            mentioned.add(node.id)
            if isinstance(node.ctx, ast.Store):  # not Del: `del x` binds nothing
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return any(name not in bound and name not in _BUILTIN_NAMES
               and not (name.startswith("__") and name.endswith("__")) for name in mentioned)


def _compute(module: Any) -> frozenset[int]:
    if not isinstance(module, cst.Module):
        return frozenset()
    collector = _Collector()
    module.visit(collector)
    if collector.dynamic:
        return frozenset()
    return frozenset(
        id(node) for node in collector.loads
        if node.value not in collector.bound and node.value not in _BUILTIN_NAMES
        and not (node.value.startswith("__") and node.value.endswith("__"))
    )


class _Collector(BindingVisitor):
    """Every name the module may bind, and every Name that could be a load."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.loads: list[cst.Name] = []
        self.dynamic = False
        self._not_loads: set[int] = set()  # Name nodes that are not expressions (attribute names, ...)

    def bind_target(self, target: cst.BaseExpression) -> None:
        # Conservative: every Name inside a target binds (`a.b = 1` counts `a` as bound too).
        target.visit(_Names(self.bound))

    def bind_name(self, name: cst.Name) -> None:
        self.bound.add(name.value)
        self._not_loads.add(id(name))  # a def, class or parameter name is no load

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self._not_loads.add(id(item.name))

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self._not_loads.add(id(item.name))

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.bound.add(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.bound.add(node.name.value)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            if alias.asname is not None:
                self.bind_target(alias.asname.name)
            else:
                first = alias.name
                while isinstance(first, cst.Attribute):
                    first = first.value  # `import a.b` binds `a`
                if isinstance(first, cst.Name):
                    self.bound.add(first.value)
            self._note_module(alias.name)
        return False  # the dotted module names are not loads

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            self.dynamic = True
            return False
        for alias in node.names:
            if alias.asname is not None:
                self.bind_target(alias.asname.name)
            elif isinstance(alias.name, cst.Name):
                self.bound.add(alias.name.value)
        if node.module is not None:
            self._note_module(node.module)
        return False

    def _note_module(self, name: cst.BaseExpression) -> None:
        names: set[str] = set()
        name.visit(_Names(names))
        if names & _DYNAMIC:
            self.dynamic = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_loads.add(id(node.attr))
        if node.attr.value == "modules" and isinstance(node.value, cst.Name) and node.value.value == "sys":
            self.dynamic = True  # sys.modules[__name__] may have names set on it

    def visit_Del(self, node: cst.Del) -> None:
        node.target.visit(_NotLoads(self._not_loads))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_loads.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        # Parents visit first, so an attribute or keyword name is already known not to be a load
        # (`tensor.eval()` calls no eval: only a load of `eval` may bind names dynamically).
        if id(node) in self._not_loads:
            return
        if node.value in _DYNAMIC:
            self.dynamic = True
        self.loads.append(node)


class _Names(cst.CSTVisitor):
    def __init__(self, into: set[str]) -> None:
        self.into = into

    def visit_Name(self, node: cst.Name) -> None:
        self.into.add(node.value)


class _NotLoads(cst.CSTVisitor):
    def __init__(self, into: set[int]) -> None:
        self.into = into

    def visit_Name(self, node: cst.Name) -> None:
        self.into.add(id(node))
