"""TFS302 scope-prefix-repeated: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS302",
    name="scope-prefix-repeated",
    severity="warning",
    summary="A variable or scope name repeats the enclosing scope path, giving names like a/a/w.",
    rationale=(
        'get_variable and variable_scope always prepend the current variable scope, so a name that\n'
        'already spells out the scope path (built by hand, or a helper that opens a scope of the same\n'
        'name as its caller) yields a doubled prefix such as encoder/encoder/w. Nothing fails, but\n'
        'checkpoints, summaries and get_collection(scope=...) filters see unexpected names.\n'
        'Fix: pass the name relative to the current scope.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("encoder"):
    w = tf.get_variable("encoder/w", shape=[4])  # error: TFS302
print(w.name)  # prints: encoder/encoder/w:0
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("encoder"):
    w = tf.get_variable("w", shape=[4])
print(w.name)  # prints: encoder/w:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "scope_prefix_repeated")
