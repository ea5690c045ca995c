"""TFS407 device-function-in-tf2-device: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS407",
    name="device-function-in-tf2-device",
    severity="error",
    summary="A device function given to TensorFlow 2's tf.device: RuntimeError.",
    rationale=(
        'In TensorFlow 2, `tf.device` accepts only device strings; given a function, such as the one\n'
        'replica_device_setter returns, it raises `RuntimeError: tf.device does not support functions.`,\n'
        'even in graph mode. Only tf.compat.v1.device takes device functions.\n'
        'Fix: use tf.compat.v1.device(setter).'
    ),
    bad="""\
import tensorflow.compat.v1 as tf
import tensorflow as tf2

setter = tf.train.replica_device_setter(ps_tasks=2)
with tf2.device(setter):  # error: TFS407
    w = tf.get_variable("w", [4])
""",
    good="""\
import tensorflow.compat.v1 as tf
import tensorflow as tf2

setter = tf.train.replica_device_setter(ps_tasks=2)
with tf2.compat.v1.device(setter):
    w = tf.get_variable("w", [4])
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "device_function_in_tf2_device")
