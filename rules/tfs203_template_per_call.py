"""TFS203 template-per-call: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS203",
    name="template-per-call",
    severity="warning",
    summary="make_template is called inside a function that runs more than once, so nothing is shared.",
    rationale=(
        'A template shares variables between calls of the same template object. Each make_template call\n'
        'builds a new template with its own default-named scope (scale, scale_1, ...), so creating the\n'
        'template inside a function that is called repeatedly creates a fresh set of variables on every\n'
        'call, silently.\n'
        'Fix: call make_template once (at module level or in a constructor) and call the template\n'
        'object wherever the shared computation is needed.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def scale(x):
    return x * tf.get_variable("s", shape=[], initializer=tf.ones_initializer())

def model(x):
    scale_tmpl = tf.make_template("scale", scale)  # error: TFS203
    return scale_tmpl(x)

x = tf.ones([2])
a = model(x)
b = model(x)
print([v.name for v in tf.global_variables()])  # prints: ['scale/s:0', 'scale_1/s:0']
""",
    good="""\
import tensorflow.compat.v1 as tf

def scale(x):
    return x * tf.get_variable("s", shape=[], initializer=tf.ones_initializer())

scale_tmpl = tf.make_template("scale", scale)

def model(x):
    return scale_tmpl(x)

x = tf.ones([2])
a = model(x)
b = model(x)
print([v.name for v in tf.global_variables()])  # prints: ['scale/s:0']
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "template_per_call")
