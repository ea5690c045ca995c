"""TFS101 variable-already-exists: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS101",
    name="variable-already-exists",
    severity="error",
    summary="get_variable creates a variable whose full name already exists in a scope without reuse.",
    rationale=(
        'A variable_scope is create-only unless reuse is on: when get_variable asks for a store key\n'
        '(scope name + "/" + name) that already exists, TensorFlow raises ValueError "Variable K already\n'
        'exists, disallowed" while the graph is built. Typical causes are a function with a fixed scope\n'
        'called twice, a re-entered parent scope around unnamed tf.layers calls, and optimizer slots or a\n'
        'second RNN built in the same scope. Re-entering a string scope reuses its var-scope name even\n'
        'though its name scope becomes `s_1`.\n'
        'Fix: share on purpose with reuse=True (after the first creation) or reuse=tf.AUTO_REUSE, or give\n'
        'each copy its own scope name.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def encoder(x):
    with tf.variable_scope("enc"):
        w = tf.get_variable("w", shape=[4, 4])  # error: TFS101
        return tf.matmul(x, w)

x = tf.ones([2, 4])
train_out = encoder(x)
eval_out = encoder(x)
""",
    good="""\
import tensorflow.compat.v1 as tf

def encoder(x):
    with tf.variable_scope("enc", reuse=tf.AUTO_REUSE):
        w = tf.get_variable("w", shape=[4, 4])
        return tf.matmul(x, w)

x = tf.ones([2, 4])
train_out = encoder(x)
eval_out = encoder(x)
print([v.name for v in tf.global_variables()])  # prints: ['enc/w:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "already_exists")
