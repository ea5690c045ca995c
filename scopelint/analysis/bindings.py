"""Every place a module binds a name, for the syntax-only questions about names: which names a
module never binds (undefined_names.py) and which are bound only by `import tensorflow`
(tfapi_devices.py, TFS407).  Imports, `global` and pattern matching are left to each visitor:
what they bind, or mean, differs between the two questions."""
from __future__ import annotations

import libcst as cst


class BindingVisitor(cst.CSTVisitor):
    """Calls `bind_target` for each assignment target (=, +=, annotated, for, comprehension for,
    with ... as, except ... as, walrus) and `bind_name` for each def, class and parameter name."""

    def bind_target(self, target: cst.BaseExpression) -> None:
        raise NotImplementedError

    def bind_name(self, name: cst.Name) -> None:
        raise NotImplementedError

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind_target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bind_target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.bind_target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind_target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind_target(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bind_target(node.name.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.bind_name(node.name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.bind_name(node.name)

    def visit_Param(self, node: cst.Param) -> None:
        self.bind_name(node.name)


def plain_names(target: cst.BaseExpression) -> list[str]:
    """The names a target binds directly: `a`, `a, (b, *c)`; not `a.b` or `a[0]`."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in plain_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return plain_names(target.value)
    return []


def bound_names(nodes: "list[cst.CSTNode] | cst.CSTNode") -> list[str]:
    """Every name the nodes bind directly, once per binding (`x = `, `x += `, `for x in`, `with ...
    as x`, `except ... as x`, walrus, def, class and parameter names): how often a name is set there."""
    found: list[str] = []

    class Collect(BindingVisitor):
        def bind_target(self, target: cst.BaseExpression) -> None:
            found.extend(plain_names(target))

        def bind_name(self, name: cst.Name) -> None:
            found.append(name.value)

    for node in nodes if isinstance(nodes, list) else [nodes]:
        node.visit(Collect())
    return found
