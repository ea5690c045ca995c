"""TFS102 variable-does-not-exist: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS102",
    name="variable-does-not-exist",
    severity="error",
    summary="get_variable under reuse=True asks for a variable that was never created.",
    rationale=(
        'With reuse=True a scope only fetches: get_variable for a store key that is not in the variable\n'
        'store raises ValueError "Variable K does not exist, or was not created with tf.get_variable()".\n'
        'Usual causes: reuse=True on the first use (calls in the wrong order), a child scope that inherits\n'
        'reuse=True and then creates, optimizer slots or moving averages built under reuse, auto-named\n'
        'layers whose counter differs under reuse, and variables made with tf.Variable, which never enter\n'
        'the store. Fix: create first with reuse off (or use reuse=tf.AUTO_REUSE), and create every shared\n'
        'variable with get_variable.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def embed(ids, reuse):
    with tf.variable_scope("embed", reuse=reuse):
        table = tf.get_variable("table", shape=[100, 8])  # error: TFS102
        return tf.nn.embedding_lookup(table, ids)

ids = tf.constant([1, 2])
eval_out = embed(ids, reuse=True)
train_out = embed(ids, reuse=False)
""",
    good="""\
import tensorflow.compat.v1 as tf

def embed(ids, reuse):
    with tf.variable_scope("embed", reuse=reuse):
        table = tf.get_variable("table", shape=[100, 8])
        return tf.nn.embedding_lookup(table, ids)

ids = tf.constant([1, 2])
train_out = embed(ids, reuse=False)
eval_out = embed(ids, reuse=True)
print([v.name for v in tf.global_variables()])  # prints: ['embed/table:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    # "Does not exist" is proven only if nothing unmodelled could have created the variable: the
    # event is certain only when its graph was complete when the lookup ran (model/graph.py
    # _existing), so what the program does afterwards (an unmodelled call, a handler of the
    # error) cannot undo it.
    return report_events(trace, RULE, "does_not_exist")
