"""TFS303 empty-name-segment: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS303",
    name="empty-name-segment",
    severity="warning",
    summary="A trailing '/' or variable_scope('') produces an empty name segment such as a//w.",
    rationale=(
        'TensorFlow joins scope and variable names with "/" without normalising them: a scope or prefix\n'
        'that ends in "/" (variable_scope("a/")), a name that starts with "/", or variable_scope("")\n'
        'inside another scope all produce a double slash such as encoder//w. The variable works, but its\n'
        'name no longer matches what other code, checkpoints or get_collection(scope=...) filters expect.\n'
        'Fix: strip trailing slashes before joining names, and do not open variable_scope("").'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

prefix = "encoder/"
w = tf.get_variable(prefix + "/w", shape=[4])  # error: TFS303
print(w.name)  # prints: encoder//w:0
""",
    good="""\
import tensorflow.compat.v1 as tf

prefix = "encoder"
w = tf.get_variable(prefix + "/w", shape=[4])
print(w.name)  # prints: encoder/w:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "empty_name_segment")
