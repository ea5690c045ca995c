"""TFS104 reuse-false-ignored: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS104",
    name="reuse-false-ignored",
    severity="warning",
    summary="reuse=False (or None) inside a reuse=True or AUTO_REUSE scope has no effect.",
    rationale=(
        'A scope\'s reuse is "the requested value if truthy, else the parent\'s": reuse=False cannot switch\n'
        'off an enclosing reuse=True or AUTO_REUSE. The child stays in reuse mode, so a new variable in it\n'
        'fails with "does not exist" (under reuse=True) or is silently shared (under AUTO_REUSE). Nothing\n'
        'warns at the scope itself.\n'
        'Fix: open the scope that must create variables outside the reusing block (or reuse only the\n'
        'block that needs it).'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("model"):
    w = tf.get_variable("w", shape=[2])
with tf.variable_scope("model", reuse=True):
    w_again = tf.get_variable("w", shape=[2])
    with tf.variable_scope("head", reuse=False) as head:  # error: TFS104
        print(head.reuse)  # prints: True
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("model"):
    w = tf.get_variable("w", shape=[2])
with tf.variable_scope("model", reuse=True):
    w_again = tf.get_variable("w", shape=[2])
with tf.variable_scope("model/head") as head:
    print(head.reuse)  # prints: False
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "reuse_false_ignored")
