"""TFS000 parse-error: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

RULE = RuleInfo(
    code="TFS000",
    name="parse-error",
    severity="error",
    summary="A file scopelint cannot parse; it is skipped and the run continues.",
    rationale=(
        'scopelint reads source with a Python 3 grammar and never runs it. A file that does not parse\n'
        '(often Python 2 code such as a print statement) is reported here and otherwise skipped, so\n'
        'none of its variables, scopes or findings appear in the results.\n'
        'Python itself would refuse the file with a SyntaxError at the same line.\n'
        'Fix the syntax (for Python 2 code, run it through a 2-to-3 converter), or exclude the file.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("model"):
    w = tf.get_variable("w", shape=[3])
print "created", w.name  # error: TFS000
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("model"):
    w = tf.get_variable("w", shape=[3])
print("created", w.name)  # prints: created model/w:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    # The engine reports files it cannot parse; this module only documents the rule.
    return ()
