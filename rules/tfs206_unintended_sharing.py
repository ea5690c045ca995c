"""TFS206 unintended-sharing: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS206",
    name="unintended-sharing",
    severity="warning",
    summary="Two different layers get the same explicit name under reuse or AUTO_REUSE and share weights.",
    rationale=(
        'Under reuse=True or AUTO_REUSE, a tf.layers call with an explicit name re-enters exactly that\n'
        'scope and reuses whatever is there. Two different layers given the same name (a copy-pasted\n'
        'name="fc") therefore silently share one set of weights instead of failing with "already\n'
        'exists" as they would without reuse; only a shape difference would raise.\n'
        'Fix: give each distinct layer its own name.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

x = tf.ones([2, 4])
with tf.variable_scope("net", reuse=tf.AUTO_REUSE):
    hidden = tf.layers.dense(x, 4, name="fc")
    logits = tf.layers.dense(hidden, 4, name="fc")  # error: TFS206
kernels = [v.name for v in tf.trainable_variables() if "kernel" in v.name]
print(kernels)  # prints: ['net/fc/kernel:0']
""",
    good="""\
import tensorflow.compat.v1 as tf

x = tf.ones([2, 4])
with tf.variable_scope("net", reuse=tf.AUTO_REUSE):
    hidden = tf.layers.dense(x, 4, name="hidden")
    logits = tf.layers.dense(hidden, 4, name="logits")
kernels = [v.name for v in tf.trainable_variables() if "kernel" in v.name]
print(kernels)  # prints: ['net/hidden/kernel:0', 'net/logits/kernel:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "unintended_sharing")
