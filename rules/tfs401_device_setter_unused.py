"""TFS401 device-setter-unused: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
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


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "device_setter_unused")
