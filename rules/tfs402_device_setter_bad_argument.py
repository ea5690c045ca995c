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
        "Not fixed: another unknown argument, or a worker_device that is not a plain string naming no task."
    ),
)

# replica_device_setter's parameters, in order (TF 1.15 and tf.compat.v1).
SETTER_PARAMETERS = ("ps_tasks", "ps_device", "worker_device", "merge_devices", "cluster", "ps_ops", "ps_strategy")


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "device_setter_bad_argument")


def fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    call = source.node_at(diagnostic.site, cst.Call)
    if not isinstance(call, cst.Call):
        return None
    keywords = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    positional = [arg for arg in call.args if arg.keyword is None]
    task_arg = keywords.get("task_index")
    if (task_arg is None or any(arg.star for arg in call.args) or len(positional) > 2
            or set(keywords) - set(SETTER_PARAMETERS) - {"task_index"}):
        return None  # another mistake than task_index, or arguments scopelint cannot see
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
        if not isinstance(literal, cst.SimpleString) or "%" in literal.value or "/task:" in literal.value \
                or literal.value.rstrip("'\"").endswith("/") or literal.prefix.lower() not in ("", "u"):
            return None
        quote = literal.quote
        body = literal.value[len(literal.prefix) + len(quote):-len(quote)]
        device = cst.BinaryOperation(cst.SimpleString(f"{literal.prefix}{quote}{body}/task:%d{quote}"), cst.Modulo(), task)
        replacements = {worker_arg: worker_arg.with_changes(value=device), task_arg: cst.RemoveFromParent()}
        shown = f"{quote}{body}/task:%d{quote} % {source.code(task)}"
    return source.replace(
        "safe",
        f"Move task_index into worker_device={shown} (replica_device_setter takes no task_index)",
        replacements,
    )
