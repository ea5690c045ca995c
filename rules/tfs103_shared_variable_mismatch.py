"""TFS103 shared-variable-mismatch: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS103",
    name="shared-variable-mismatch",
    severity="error",
    summary="A variable is reused with a shape or dtype incompatible with the one it was created with.",
    rationale=(
        'When get_variable returns an existing variable (reuse=True or AUTO_REUSE) it checks the requested\n'
        'shape and dtype against the stored one and raises ValueError "Trying to share variable K, but\n'
        'specified shape ... and found shape ..." (or dtype) when they are incompatible. Partitioned\n'
        'variables raise the same way when the partitioning differs. The two call sites usually drifted\n'
        'apart (a changed layer size, a float16 copy). Fix: request the same shape and dtype, or leave the\n'
        'shape out on reuse, or give the different variable its own name.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("proj"):
    w = tf.get_variable("w", shape=[8, 4])
with tf.variable_scope("proj", reuse=True):
    w_small = tf.get_variable("w", shape=[8, 2])  # error: TFS103
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("proj"):
    w = tf.get_variable("w", shape=[8, 4])
with tf.variable_scope("proj", reuse=True):
    w_again = tf.get_variable("w", shape=[8, 4])
print(w_again.name)  # prints: proj/w:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "shared_mismatch")
