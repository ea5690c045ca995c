"""TFS900 unused-noqa: a suppression comment that suppresses nothing.

The engine produces this finding itself (it needs every other rule's results for the file), and only
when asked: `--show-unused-noqa`, or TFS900 selected.  `check` therefore has nothing to add.
"""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

RULE = RuleInfo(
    code="TFS900",
    name="unused-noqa",
    severity="warning",
    summary="A `# noqa` or `# scopelint: noqa` directive that suppresses no finding",
    rationale=(
        "A suppression comment outlives the problem it hid: after the code is fixed, or after a rule "
        "is disabled, the comment stays and silently hides the next real finding on that line. "
        "Unused directives, codes that are not enabled, and codes scopelint does not know are "
        "reported so the comments can be removed or corrected."
    ),
    bad=(
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        'with tf.variable_scope("layer"):\n'
        '    w = tf.get_variable("w", shape=[3, 3])  # noqa: TFS101\n'
    ),
    good=(
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        'with tf.variable_scope("layer"):\n'
        '    w = tf.get_variable("w", shape=[3, 3])\n'
    ),
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return ()
