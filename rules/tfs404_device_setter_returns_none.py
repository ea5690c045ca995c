"""TFS404 device-setter-returns-none: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS404",
    name="device-setter-returns-none",
    severity="warning",
    summary="replica_device_setter returns None (no ps job, or ps_tasks 0) and device(None) drops an enclosing device.",
    rationale=(
        'With a cluster that has no job named after ps_device (\'ps\' by default), or with no cluster and\n'
        'ps_tasks=0 (a call with no arguments), replica_device_setter returns None. `device(None)` does not\n'
        'fail: it drops every enclosing device scope, so an outer worker (or GPU) device is lost.\n'
        'Reported where an enclosing device scope is really dropped, and in a cluster run (the program\n'
        'builds a ClusterSpec or Server) where the setter was given a cluster or a worker_device: nothing\n'
        'then goes to a ps task and each worker trains its own unshared copy. A setter whose ps_tasks is 0\n'
        'on a local run, with no device scope around it, changes nothing.\n'
        'Fix: list the ps job in the cluster (or pass ps_tasks), or match ps_device to its job name.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

cluster = {"worker": ["localhost:2222"]}
with tf.device("/job:worker/task:0"):
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):  # error: TFS404
        w = tf.get_variable("w", [4])
print(repr(w.device))  # prints: ''
""",
    good="""\
import tensorflow.compat.v1 as tf

cluster = {"ps": ["localhost:2223"], "worker": ["localhost:2222"]}
with tf.device("/job:worker/task:0"):
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        w = tf.get_variable("w", [4])
print(repr(w.device))  # prints: '/job:ps/task:0'
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "device_setter_returns_none")
