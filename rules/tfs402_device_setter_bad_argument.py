"""TFS402 device-setter-bad-argument: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from scopelint.diagnostics import Diagnostic, Fix, RuleInfo
from scopelint.fixes import FixInfo, FixSource
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS402",
    name="device-setter-bad-argument",
    severity="error",
    summary="An argument replica_device_setter does not take, such as task_index: TypeError.",
    rationale=(
        'replica_device_setter takes ps_tasks, ps_device, worker_device, merge_devices, cluster, ps_ops\n'
        'and ps_strategy, nothing else. `task_index=` is a common guess and raises TypeError at graph\n'
        'build. The worker\'s own task belongs in worker_device.\n'
        'Fix: worker_device="/job:worker/task:%d" % task_index.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

task_index = 0
setter = tf.train.replica_device_setter(ps_tasks=2, task_index=task_index)  # error: TFS402
with tf.device(setter):
    w = tf.get_variable("w", [4])
""",
    good="""\
import tensorflow.compat.v1 as tf

task_index = 0
setter = tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:%d" % task_index)
with tf.device(setter):
    w = tf.get_variable("w", [4])
""",
)

FIX = FixInfo(
    applicability="safe",
    description=(
        "`task_index=i` is taken out and the task goes into worker_device: \"/job:worker/task:%d\" % i\n"
        "(worker_device=\"/job:worker\" becomes \"/job:worker/task:%d\" % i; without worker_device, that is\n"
        "added, as /job:worker is its default). Nothing was built before (TensorFlow raised), the\n"
        "variables go to the ps tasks as the setter places them, and each worker keeps its own ops.\n"
        "When worker_device is a name assigned once from text that names a task, task_index= just goes; a\n"
        "misspelt keyword (cluster_spec=) is renamed. Not fixed: another unknown argument, or a worker_device\n"
        "that is neither a plain string nor such a name."
    ),
)

# replica_device_setter's parameters, in order (TF 1.15 and tf.compat.v1).
# Keywords that are evidently one of those, misspelt (isc-1 of the real-bug benchmark: cluster_spec=).
MISSPELT = {"cluster_spec": "cluster", "ps_task": "ps_tasks", "num_ps_tasks": "ps_tasks", "num_ps": "ps_tasks"}
SETTER_PARAMETERS = ("ps_tasks", "ps_device", "worker_device", "merge_devices", "cluster", "ps_ops", "ps_strategy")


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "device_setter_bad_argument")


def fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    call = source.node_at(diagnostic.site, cst.Call)
    if not isinstance(call, cst.Call):
        return None
    keywords = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    positional = [arg for arg in call.args if arg.keyword is None]
    if any(arg.star for arg in call.args) or len(positional) > 2:
        return None  # arguments scopelint cannot see
    unknown = set(keywords) - set(SETTER_PARAMETERS) - {"task_index"}
    if unknown:
        [wrong] = unknown if len(unknown) == 1 else [None]
        meant = MISSPELT.get(wrong or "")
        if meant is None or meant in keywords or "task_index" in keywords:
            return None
        return source.replace(
            "safe", f"Rename {wrong}= to {meant}= (replica_device_setter's name for it)",
            {keywords[wrong]: keywords[wrong].with_changes(keyword=cst.Name(meant))})
    task_arg = keywords.get("task_index")
    if task_arg is None:
        return None
    task = task_arg.value
    if not isinstance(task, (cst.Name, cst.Attribute, cst.Integer, cst.Call, cst.Subscript)):
        task = task.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    worker_arg = keywords.get("worker_device")
    if worker_arg is None:
        device = cst.BinaryOperation(cst.SimpleString('"/job:worker/task:%d"'), cst.Modulo(), task)
        replacements: dict[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel] = {
            task_arg: task_arg.with_changes(keyword=cst.Name("worker_device"), value=device)}
        shown = f'"/job:worker/task:%d" % {source.code(task)}'
    else:
        literal = worker_arg.value
        assigned = _assigned_text(source, call, literal)
        if assigned is not None and "/task:" in assigned:
            return source.replace(
                "safe",
                f"Drop task_index=: worker_device={source.code(literal)} already names the task ({assigned.strip()})",
                _without(call, task_arg),
            )
        if not isinstance(literal, cst.SimpleString) or "%" in literal.value or "/task:" in literal.value \
                or literal.value.rstrip("'\"").endswith("/") or literal.prefix.lower() not in ("", "u"):
            return None
        quote = literal.quote
        body = literal.value[len(literal.prefix) + len(quote):-len(quote)]
        device = cst.BinaryOperation(cst.SimpleString(f"{literal.prefix}{quote}{body}/task:%d{quote}"), cst.Modulo(), task)
        replacements = _without(call, task_arg)
        kept = replacements.get(worker_arg, worker_arg)  # it may have taken task_index's comma
        assert isinstance(kept, cst.Arg)
        replacements[worker_arg] = kept.with_changes(value=device)
        shown = f"{quote}{body}/task:%d{quote} % {source.code(task)}"
    return source.replace(
        "safe",
        f"Move task_index into worker_device={shown} (replica_device_setter takes no task_index)",
        replacements,
    )


def _assigned_text(source: FixSource, call: cst.CSTNode, value: cst.BaseExpression) -> str | None:
    """For a name: the code of its only assignment in the function (or module) around the call."""
    if not isinstance(value, cst.Name):
        return None
    body: list[cst.CSTNode] | None = None
    for ancestor in source.ancestors(call):
        if isinstance(ancestor, (cst.FunctionDef, cst.Module)):
            body = [ancestor.body] if isinstance(ancestor, cst.FunctionDef) else list(ancestor.body)
            break
    if body is None:
        return None
    found: list[cst.BaseExpression] = []

    class Assignments(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False  # another function's names

        def visit_Assign(self, node: cst.Assign) -> None:
            if any(isinstance(t.target, cst.Name) and t.target.value == value.value for t in node.targets):
                found.append(node.value)

    for node in body:
        node.visit(Assignments())
    return source.code(found[0]) if len(found) == 1 else None


def _without(call: cst.Call, arg: cst.Arg) -> dict[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel]:
    """Removing `arg` keeps the layout: the arguments that follow stay on their own lines, and a
    comment after the comma before it stays."""
    index = next(i for i, candidate in enumerate(call.args) if candidate is arg)
    if index == 0 or not isinstance(arg.comma, cst.Comma):
        return {arg: cst.RemoveFromParent()}
    before = call.args[index - 1]
    if isinstance(before.comma, cst.Comma) and not isinstance(before.comma.whitespace_after, cst.ParenthesizedWhitespace):
        # The comma before ends on this line: the removed one's (with its line break) replaces it.
        # One that ends the line (and may hold a comment) stays.
        return {arg: cst.RemoveFromParent(), before: before.with_changes(comma=arg.comma)}
    return {arg: cst.RemoveFromParent()}
