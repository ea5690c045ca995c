"""TFS205 rnn-cell-reused: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS205",
    name="rnn-cell-reused",
    severity="warning",
    summary="One RNN cell object is used for several layers or under several scopes.",
    rationale=(
        'An RNN cell keeps the variables it built on its first call and reuses them on every later call,\n'
        'whatever the scope. `MultiRNNCell([cell] * n)` therefore stacks n layers that share one set of\n'
        'weights when the sizes happen to match, and fails with a shape error when they do not (the first\n'
        "layer's input size differs from the others'). TensorFlow only logs a warning.\n"
        'Fix: build a new cell object per layer, e.g. `[GRUCell(n) for _ in range(layers)]`.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

cell = tf.nn.rnn_cell.GRUCell(4)
stack = tf.nn.rnn_cell.MultiRNNCell([cell] * 2)  # error: TFS205
x = tf.ones([2, 5, 4])
outputs, state = tf.nn.dynamic_rnn(stack, x, dtype=tf.float32)
print(len(tf.trainable_variables()))  # prints: 4
""",
    good="""\
import tensorflow.compat.v1 as tf

stack = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(4) for _ in range(2)])
x = tf.ones([2, 5, 4])
outputs, state = tf.nn.dynamic_rnn(stack, x, dtype=tf.float32)
print(len(tf.trainable_variables()))  # prints: 8
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "rnn_cell_reused")
