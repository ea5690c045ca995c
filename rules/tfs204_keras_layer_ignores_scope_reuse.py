"""TFS204 keras-layer-ignores-scope-reuse: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS204",
    name="keras-layer-ignores-scope-reuse",
    severity="warning",
    summary="A Keras layer built in a reused variable scope: Keras shares by object, not by scope.",
    rationale=(
        'Keras layers (tf.keras.layers.*) ignore variable_scope reuse and AUTO_REUSE. Their variables are\n'
        'named from the name scope and a per-graph layer counter (tower/dense, tower_1/dense_1, ...), so a\n'
        'new layer object built under a reused scope silently creates new weights instead of sharing\n'
        'them, and never raises "already exists".\n'
        'Fix: create the Keras layer object once and call that same object everywhere it is shared\n'
        '(or use tf.layers with explicit names if scope-based sharing is wanted).'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def tower(x):
    return tf.keras.layers.Dense(4)(x)  # error: TFS204

x = tf.ones([2, 4])
with tf.variable_scope("tower"):
    a = tower(x)
with tf.variable_scope("tower", reuse=True):
    b = tower(x)
kernels = [v.name for v in tf.global_variables() if "kernel" in v.name]
print(kernels)  # prints: ['tower/dense/kernel:0', 'tower_1/dense_1/kernel:0']
""",
    good="""\
import tensorflow.compat.v1 as tf

dense = tf.keras.layers.Dense(4)

def tower(x):
    return dense(x)

x = tf.ones([2, 4])
a = tower(x)
b = tower(x)
kernels = [v.name for v in tf.global_variables() if "kernel" in v.name]
print(kernels)  # prints: ['dense/kernel:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "keras_ignores_reuse")
