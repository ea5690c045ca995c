"""TFS304 case-only-name-clash: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS304",
    name="case-only-name-clash",
    severity="warning",
    summary="Names that differ only by case: the graph silently renames the second one.",
    rationale=(
        "The variable store compares names exactly, but the graph's op-name uniquifier ignores case.\n"
        'get_variable("W") and then get_variable("w") are two store entries, yet the second op becomes\n'
        'w_1, so v.name, checkpoints and summaries say w_1 while get_variable(reuse=True) still looks up\n'
        'w. The same happens to scopes (S/ then s_1/) and tf.Variable names.\n'
        'Fix: use names that differ by more than case.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

w_matrix = tf.get_variable("W", shape=[4, 4])
w_vector = tf.get_variable("w", shape=[4])  # error: TFS304
print(w_vector.name)  # prints: w_1:0
""",
    good="""\
import tensorflow.compat.v1 as tf

w_matrix = tf.get_variable("W", shape=[4, 4])
b_vector = tf.get_variable("b", shape=[4])
print(b_vector.name)  # prints: b:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "case_only_clash")
