"""TFS105 sticky-reuse: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS105",
    name="sticky-reuse",
    severity="warning",
    summary="reuse_variables() on the root scope, or on a scope object outside its own with block, never ends.",
    rationale=(
        'scope.reuse_variables() sets reuse=True on that VariableScope object for good. Inside its own\n'
        '`with` block that ends with the block; called on tf.get_variable_scope() at the top level, it\n'
        'switches the root scope to reuse for the rest of the graph, with no public way back. Every scope\n'
        'opened later inherits reuse=True, reuse=False cannot undo it, and the next new get_variable\n'
        'anywhere fails with "does not exist".\n'
        'Fix: call reuse_variables() only inside the `with variable_scope(...)` block that should share,\n'
        'or pass reuse=True / tf.AUTO_REUSE to that scope.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("encoder"):
    w = tf.get_variable("w", shape=[2])
tf.get_variable_scope().reuse_variables()  # error: TFS105
with tf.variable_scope("decoder") as decoder:
    print(decoder.reuse)  # prints: True
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("encoder") as encoder:
    w = tf.get_variable("w", shape=[2])
    encoder.reuse_variables()
    w_again = tf.get_variable("w", shape=[2])
with tf.variable_scope("decoder") as decoder:
    print(decoder.reuse)  # prints: False
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "sticky_reuse")
