"""TFS205 rnn-cell-reused: the rule's documentation and its check."""
from __future__ import annotations

import re
from collections.abc import Iterable

import libcst as cst

from scopelint.analysis.bindings import bound_names
from scopelint.diagnostics import Diagnostic, Fix, RuleInfo
from scopelint.fixes import FixInfo, FixSource
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS205",
    name="rnn-cell-reused",
    severity="warning",
    summary="One RNN cell object is used for several layers or under several scopes.",
    rationale=(
        'An RNN cell keeps the variables it built on its first call and reuses them on every later call,\n'
        'whatever the scope. `MultiRNNCell([cell] * n)` therefore stacks n layers that share one set of\n'
        'weights when the sizes happen to match, and fails with a shape error when they do not (the first\n'
        "layer's input size differs from the others'). TensorFlow only logs a warning.\n"
        'Fix: build a new cell object per layer, e.g. `[GRUCell(n) for _ in range(layers)]`.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

cell = tf.nn.rnn_cell.GRUCell(4)
stack = tf.nn.rnn_cell.MultiRNNCell([cell] * 2)  # error: TFS205
x = tf.ones([2, 5, 4])
outputs, state = tf.nn.dynamic_rnn(stack, x, dtype=tf.float32)
print(len(tf.trainable_variables()))  # prints: 4
""",
    good="""\
import tensorflow.compat.v1 as tf

stack = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(4) for _ in range(2)])
x = tf.ones([2, 5, 4])
outputs, state = tf.nn.dynamic_rnn(stack, x, dtype=tf.float32)
print(len(tf.trainable_variables()))  # prints: 8
""",
)

FIX = FixInfo(
    applicability="unsafe",
    description=(
        "`MultiRNNCell([cell] * n)`, where `cell = SomeCell(...)` is assigned once and used nowhere else,\n"
        "becomes `MultiRNNCell([SomeCell(...) for _ in range(n)])`, and the assignment goes (unless commented). Unsafe: the\n"
        "first layer keeps its variables and their names (cell_0/...), but every later layer gets\n"
        "variables of its own (cell_1/..., ...) instead of sharing the first layer's, so a checkpoint of\n"
        "the shared stack lacks them. Not fixed: a cell passed in from elsewhere, or used again.\n"
        "A cell object that a second RNN uses again (`bw_cell = fw_cell`, or the same name passed for both\n"
        "directions or to a second call), where the cell is `cell = SomeCell(...)` assigned once: the second\n"
        "use gets its own `SomeCell(...)`. Unsafe: the first RNN keeps its variables; the second gets new\n"
        "ones under its own scope instead of sharing them."
    ),
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "rnn_cell_reused")


def fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    call = source.node_at(diagnostic.site, cst.Call)
    if not isinstance(call, cst.Call) or not call.args:
        return None
    repeated = call.args[0].value
    if not isinstance(repeated, cst.BinaryOperation) or not isinstance(repeated.operator, cst.Multiply):
        return _fix_second_use(diagnostic, source, call)
    listed, count = repeated.left, repeated.right
    if isinstance(count, cst.List):
        listed, count = count, listed
    if not isinstance(listed, cst.List) or len(listed.elements) != 1 or not isinstance(listed.elements[0].value, cst.Name):
        return None
    name = listed.elements[0].value.value
    body = _enclosing_body(source, call)
    if body is None:
        return None
    assignments = [
        line for line in body
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Assign)
        and [target.target for target in line.body[0].targets if isinstance(target.target, cst.Name)
             and target.target.value == name]
    ]
    uses = [node for node in _names(body) if node.value == name]
    if len(assignments) != 1 or len(uses) != 2:  # the assignment and the list: nothing else sees the cell
        return None
    statement = assignments[0]
    assign = statement.body[0]
    assert isinstance(assign, cst.Assign)
    if len(assign.targets) != 1 or not isinstance(assign.value, cst.Call) or not _plain(assign.value):
        return None
    per_layer = cst.ListComp(
        elt=assign.value.deep_clone(),
        for_in=cst.CompFor(target=cst.Name("_"), iter=cst.Call(cst.Name("range"), [cst.Arg(count.deep_clone())])),
    )
    # The assignment goes unless a comment is attached to it (a fix keeps comments).
    commented = statement.trailing_whitespace.comment is not None or any(line.comment for line in statement.leading_lines)
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel] = {repeated: per_layer}
    if not commented:
        replacements[statement] = cst.RemoveFromParent()
    return source.replace(
        "unsafe",
        f"Build one `{source.code(assign.value)}` per layer instead of sharing `{name}`: the first layer keeps "
        "its variables (cell_0/...); each later layer gets its own (cell_1/..., new, no longer shared)",
        replacements,
    )


_SCOPES = re.compile(r"first used under '([^']*)': calling it again under '([^']*)'")


def _fix_second_use(diagnostic: Diagnostic, source: FixSource, call: cst.Call) -> Fix | None:
    """One cell object handed to a second RNN: that use gets a cell of its own."""
    scopes = _SCOPES.search(diagnostic.message)
    body = _enclosing_body(source, call)
    if scopes is None or body is None:
        return None
    first_scope, second_scope = scopes.groups()
    assigned = _single_assignments(body)

    def origin(name: str) -> str:
        value = assigned.get(name)
        return value.value if isinstance(value, cst.Name) and value.value in assigned else name

    arguments = [arg.value for arg in call.args if isinstance(arg.value, cst.Name)]
    cells = [value for value in arguments if isinstance(assigned.get(origin(value.value)), cst.Call)]
    # Two arguments of this call that are one cell, or one argument whose cell an earlier call used.
    pairs = [(a, b) for i, a in enumerate(cells) for b in cells[i + 1:] if origin(a.value) == origin(b.value)]
    if len(pairs) > 1 or (not pairs and len(cells) != 1):
        return None
    second = pairs[0][1] if pairs else cells[0]
    cell_name = origin(second.value)
    constructor = assigned[cell_name]
    assert isinstance(constructor, cst.Call)
    if not _plain(constructor):
        return None
    aliases = [name for name, value in assigned.items() if isinstance(value, cst.Name) and value.value == cell_name]
    if second.value != cell_name:
        # `bw_cell = fw_cell`: the alias (assigned once) gets the cell's constructor.
        target = assigned[second.value]
    else:
        if not pairs and aliases:
            return None  # the earlier use may have been through an alias: which one is not clear
        target = second
    return source.replace(
        "unsafe",
        f"Build a new `{source.code(constructor)}` for the RNN under '{second_scope}' instead of sharing "
        f"`{cell_name}`: the RNN under '{first_scope}' keeps its variables; the one under '{second_scope}' "
        f"gets its own ({second_scope}/..., new, no longer shared)",
        {target: constructor.deep_clone()},
    )


def _single_assignments(body: list[cst.CSTNode]) -> dict[str, cst.BaseExpression]:
    """`name = value` statements of the body (not nested), for names assigned exactly once there."""
    found: dict[str, cst.BaseExpression] = {}
    for line in body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                found[small.targets[0].target.value] = small.value
    stores = bound_names(body)
    return {name: value for name, value in found.items() if stores.count(name) == 1}


def _enclosing_body(source: FixSource, node: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The statements of the function (or module) that holds `node`, walked in full below."""
    for ancestor in source.ancestors(node):
        if isinstance(ancestor, cst.FunctionDef):
            block = ancestor.body
            return list(block.body) if isinstance(block, cst.IndentedBlock) else None
        if isinstance(ancestor, cst.Module):
            return list(ancestor.body)
        if isinstance(ancestor, (cst.ClassDef, cst.Lambda)):
            return None
    return None


def _names(nodes: list[cst.CSTNode]) -> list[cst.Name]:
    found: list[cst.Name] = []

    class Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)  # `x.cell` is no use of `cell`
            return False

    for node in nodes:
        node.visit(Collect())
    return found


def _plain(call: cst.Call) -> bool:
    """A constructor whose arguments are names, constants and attributes: evaluating it once per
    layer, where the list is, gives each layer the same configuration."""
    allowed = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation, cst.Call, cst.Arg,
               cst.Dot, cst.Minus, cst.Comma, cst.AssignEqual, cst.LeftParen, cst.RightParen, cst.ParenthesizedWhitespace,
               cst.SimpleWhitespace, cst.Newline, cst.EmptyLine, cst.TrailingWhitespace, cst.Comment)
    ok = True

    class Check(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal ok
            if not isinstance(node, allowed):
                ok = False
            return ok

    call.visit(Check())
    return ok
