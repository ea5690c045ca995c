"""TFS107 invalid-scope-arguments: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS107",
    name="invalid-scope-arguments",
    severity="error",
    summary="Arguments that variable_scope or get_variable reject with TypeError or ValueError.",
    rationale=(
        'Some argument combinations fail at graph build: variable_scope(None) without default_name\n'
        '(TypeError), default_name together with reuse=True or AUTO_REUSE ("reuse=True cannot be used\n'
        'without a name_or_scope"), a reuse value other than True/False/None/AUTO_REUSE, get_variable\n'
        'without shape and initializer, and a constant or Tensor initializer together with a shape.\n'
        'A default-named scope cannot be reused because its name changes on every entry.\n'
        'Fix: give the scope a fixed name when it must be shared; give get_variable a shape or an\n'
        'initializer, but not a shape for a constant initializer.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def block(x, reuse):
    with tf.variable_scope(None, default_name="block", reuse=reuse):  # error: TFS107
        w = tf.get_variable("w", shape=[4, 4])
        return tf.matmul(x, w)

x = tf.ones([2, 4])
y = block(x, reuse=tf.AUTO_REUSE)
z = block(y, reuse=tf.AUTO_REUSE)
""",
    good="""\
import tensorflow.compat.v1 as tf

def block(x, reuse):
    with tf.variable_scope("block", reuse=reuse):
        w = tf.get_variable("w", shape=[4, 4])
        return tf.matmul(x, w)

x = tf.ones([2, 4])
y = block(x, reuse=tf.AUTO_REUSE)
z = block(y, reuse=tf.AUTO_REUSE)
print([v.name for v in tf.global_variables()])  # prints: ['block/w:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "invalid_arguments")
