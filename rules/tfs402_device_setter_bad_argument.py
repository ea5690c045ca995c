"""TFS402 device-setter-bad-argument: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
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


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "device_setter_bad_argument")
