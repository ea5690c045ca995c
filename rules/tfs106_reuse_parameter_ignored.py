"""TFS106 reuse-parameter-ignored: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS106",
    name="reuse-parameter-ignored",
    severity="warning",
    summary="A function takes a reuse argument and never passes it on.",
    rationale=(
        'TensorFlow only shares variables through the scope (or layer) that creates them; a parameter\n'
        'named reuse does nothing unless the function hands it to variable_scope or to the layer.\n'
        'Callers that pass reuse=True believe they share weights, but each call builds new variables\n'
        '(auto-named layers become dense, dense_1, ...) or fails with "already exists".\n'
        'Fix: pass the argument on, e.g. tf.variable_scope(name, reuse=reuse) or\n'
        'tf.layers.dense(..., name=name, reuse=reuse), or remove the parameter.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def block(x, reuse=None):  # error: TFS106
    return tf.layers.dense(x, 4)

x = tf.ones([2, 4])
a = block(x)
b = block(x, reuse=True)
print(len(tf.trainable_variables()))  # prints: 4
""",
    good="""\
import tensorflow.compat.v1 as tf

def block(x, reuse=None):
    return tf.layers.dense(x, 4, name="block", reuse=reuse)

x = tf.ones([2, 4])
a = block(x)
b = block(x, reuse=True)
print(len(tf.trainable_variables()))  # prints: 2
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "reuse_param_ignored")
