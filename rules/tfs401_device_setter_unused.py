"""TFS401 device-setter-unused: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from scopelint.diagnostics import Diagnostic, Fix, RuleInfo
from scopelint.fix_changes import variable_changes
from scopelint.fixes import FixInfo, FixSource
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS401",
    name="device-setter-unused",
    severity="warning",
    summary="replica_device_setter(...) whose result never reaches device(...): it does nothing.",
    rationale=(
        'replica_device_setter only returns a device function; it touches no global state. Unless that\n'
        'function is passed to `with tf.compat.v1.device(...)`, every variable stays where it was, on the\n'
        'worker, and nothing is shared through the parameter servers.\n'
        'Fix: open `with tf.compat.v1.device(setter):` around the model code.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

setter = tf.train.replica_device_setter(ps_tasks=2)  # error: TFS401
w = tf.get_variable("w", [4])
print(repr(w.device))  # prints: ''
""",
    good="""\
import tensorflow.compat.v1 as tf

setter = tf.train.replica_device_setter(ps_tasks=2)
with tf.device(setter):
    w = tf.get_variable("w", [4])
print(repr(w.device))  # prints: '/job:ps/task:0'
""",
)

FIX = FixInfo(
    applicability="unsafe",
    description=(
        "`setter = tf.train.replica_device_setter(...)` never used (or the call alone) is followed, in the\n"
        "same block, by the code it was evidently meant for: the statements after it, up to the first\n"
        "def or class, go inside `with tf.device(setter):`. Unsafe: placement changes; the message names\n"
        "the variables that move from the worker to the ps tasks, and where each goes."
    ),
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "device_setter_unused")


def fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    call = source.node_at(diagnostic.site, cst.Call)
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return None
    train = call.func.value  # <tf>.train.replica_device_setter: the device function is <tf>.device
    if call.func.attr.value != "replica_device_setter" or not isinstance(train, cst.Attribute) or train.attr.value != "train":
        return None
    line = source.parent(call)
    statement = source.parent(line) if line is not None else None
    if isinstance(line, cst.Assign) and len(line.targets) == 1 and isinstance(line.targets[0].target, cst.Name):
        name = line.targets[0].target.value
        device_argument: cst.BaseExpression = cst.Name(name)
    elif isinstance(line, cst.Expr):
        name, device_argument = None, call
    else:
        return None
    block = source.parent(statement) if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if not isinstance(block, (cst.Module, cst.IndentedBlock)):
        return None
    body = list(block.body)
    following = []
    for node in body[body.index(statement) + 1:]:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            break
        following.append(node)
    if not following or (name is not None and _used(source, block, name, line)):
        return None
    device = cst.Call(cst.Attribute(train.value, cst.Name("device")), [cst.Arg(device_argument)])
    wrapped = cst.With(
        items=[cst.WithItem(device)],
        body=cst.IndentedBlock([following[0].with_changes(leading_lines=()), *following[1:]]),
        leading_lines=following[0].leading_lines,
    )
    if name is None:
        # The call moves into the `with`: its blank lines and comments go with it.
        comment = statement.trailing_whitespace.comment
        kept = [*statement.leading_lines, *([cst.EmptyLine(comment=comment)] if comment else []), *wrapped.leading_lines]
        wrapped = wrapped.with_changes(leading_lines=kept)
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel] = {following[0]: wrapped}
    replacements.update({node: cst.RemoveFromParent() for node in following[1:]})
    if name is None:
        replacements[statement] = cst.RemoveFromParent()
    first_line = source.position(following[0]).start.line
    last_line = source.position(following[-1]).end.line
    fix = source.replace("unsafe", "", replacements)
    if fix is None:
        return None
    from scopelint.fixes import apply_fixes

    changes = variable_changes(source.path, source.text, apply_fixes(source.text, [fix])[0])
    if changes is None or not changes.moved:
        return None  # nothing proven to move: the setter may be meant for code elsewhere
    shown = source.code(device) if name is not None else f"{source.code(device.func)}(<the setter>)"
    return Fix("unsafe", f"Run lines {first_line}-{last_line} under `with {shown}:`: "
                         f"{changes.text()}", fix.edits)


def _used(source: FixSource, block: cst.CSTNode, name: str, assignment: cst.CSTNode) -> bool:
    """Is `name` read anywhere in the block (or the functions in it) but its assignment?"""
    uses = 0

    class Count(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nonlocal uses
            uses += node.value == name

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

    block.visit(Count())
    return uses > 1
