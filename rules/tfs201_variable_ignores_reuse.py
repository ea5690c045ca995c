"""TFS201 variable-ignores-reuse: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS201",
    name="variable-ignores-reuse",
    severity="warning",
    summary="tf.Variable created under reuse: it is never shared.",
    rationale=(
        'tf.Variable is not in the variable store and ignores variable_scope reuse. Its name comes from\n'
        'the name scope, which is uniquified, so every call under a reused scope silently creates another\n'
        'variable (shared/w, shared_1/w, ...), and get_variable(reuse=True) can never find it.\n'
        'Code that expects the copies to share weights trains independent ones.\n'
        'Fix: create variables meant to be shared with tf.get_variable (or tf.layers / make_template).'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def layer(x):
    w = tf.Variable(tf.ones([4, 4]), name="w")  # error: TFS201
    return tf.matmul(x, w)

x = tf.ones([2, 4])
with tf.variable_scope("shared"):
    a = layer(x)
with tf.variable_scope("shared", reuse=True):
    b = layer(x)
print([v.name for v in tf.global_variables()])  # prints: ['shared/w:0', 'shared_1/w:0']
""",
    good="""\
import tensorflow.compat.v1 as tf

def layer(x):
    w = tf.get_variable("w", initializer=tf.ones([4, 4]))
    return tf.matmul(x, w)

x = tf.ones([2, 4])
with tf.variable_scope("shared"):
    a = layer(x)
with tf.variable_scope("shared", reuse=True):
    b = layer(x)
print([v.name for v in tf.global_variables()])  # prints: ['shared/w:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "variable_ignores_reuse")
