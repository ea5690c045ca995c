"""TFS301 name-scope-ignored: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS301",
    name="name-scope-ignored",
    severity="warning",
    summary="get_variable or tf.layers inside a name_scope: the name scope does not prefix their variables.",
    rationale=(
        'tf.name_scope only prefixes op names, tf.Variable and Keras variables. get_variable,\n'
        'partitioned variables, tf.layers and templates take their names from the variable scope alone,\n'
        'so inside `name_scope("encoder")` a get_variable("w") is simply `w`. Two such blocks then\n'
        'collide ("already exists") or variables end up with an unexpected prefix in checkpoints.\n'
        'Fix: use tf.variable_scope where variables should be namespaced.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.name_scope("encoder"):
    w = tf.get_variable("w", shape=[4, 4])  # error: TFS301
print(w.name)  # prints: w:0
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("encoder"):
    w = tf.get_variable("w", shape=[4, 4])
print(w.name)  # prints: encoder/w:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "name_scope_ignored")
