"""TFS202 unnamed-layer-duplicated: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS202",
    name="unnamed-layer-duplicated",
    severity="warning",
    summary="An unnamed tf.layers call (or default-named scope) meant to be shared gets a new name instead.",
    rationale=(
        'An unnamed tf.layers call opens variable_scope(None, default_name="dense"), which picks the\n'
        'first free name: dense, dense_1, ... Within one entry of a reuse=True or AUTO_REUSE scope, a\n'
        'second unnamed call therefore builds a new layer instead of reusing the first one, silently\n'
        'doubling the weights. (Across re-entries of a parent the counter resets, which is why the same\n'
        'code sometimes shares and sometimes fails with "already exists".)\n'
        'Fix: give every layer that is meant to be shared an explicit name.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def head(x):
    return tf.layers.dense(x, 2)  # error: TFS202

x = tf.ones([2, 4])
with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
    train_logits = head(x)
    eval_logits = head(x)
kernels = [v.name for v in tf.trainable_variables() if "kernel" in v.name]
print(kernels)  # prints: ['model/dense/kernel:0', 'model/dense_1/kernel:0']
""",
    good="""\
import tensorflow.compat.v1 as tf

def head(x):
    return tf.layers.dense(x, 2, name="logits")

x = tf.ones([2, 4])
with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
    train_logits = head(x)
    eval_logits = head(x)
kernels = [v.name for v in tf.trainable_variables() if "kernel" in v.name]
print(kernels)  # prints: ['model/logits/kernel:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "unnamed_layer_duplicated")
