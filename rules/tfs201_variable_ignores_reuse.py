"""TFS201 variable-ignores-reuse: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from scopelint import pyparse
from scopelint.diagnostics import Diagnostic, Fix, RuleInfo
from scopelint.fixes import FixInfo, FixSource
from scopelint.trace import UNKNOWN_PART, Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS201",
    name="variable-ignores-reuse",
    severity="warning",
    summary="tf.Variable created under reuse: it is never shared.",
    rationale=(
        'tf.Variable is not in the variable store and ignores variable_scope reuse. Its name comes from\n'
        'the name scope, which is uniquified, so every call under a reused scope silently creates another\n'
        'variable (shared/w, shared_1/w, ...), and get_variable(reuse=True) can never find it.\n'
        'Code that expects the copies to share weights trains independent ones.\n'
        'Fix: create variables meant to be shared with tf.get_variable (or tf.layers / make_template).'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def layer(x):
    w = tf.Variable(tf.ones([4, 4]), name="w")  # error: TFS201
    return tf.matmul(x, w)

x = tf.ones([2, 4])
with tf.variable_scope("shared"):
    a = layer(x)
with tf.variable_scope("shared", reuse=True):
    b = layer(x)
print([v.name for v in tf.global_variables()])  # prints: ['shared/w:0', 'shared_1/w:0']
""",
    good="""\
import tensorflow.compat.v1 as tf

def layer(x):
    w = tf.get_variable("w", initializer=tf.ones([4, 4]))
    return tf.matmul(x, w)

x = tf.ones([2, 4])
with tf.variable_scope("shared"):
    a = layer(x)
with tf.variable_scope("shared", reuse=True):
    b = layer(x)
print([v.name for v in tf.global_variables()])  # prints: ['shared/w:0']
""",
)

FIX = FixInfo(
    applicability="unsafe",
    description=(
        "`tf.Variable(initial, name=\"w\")` becomes `tf.get_variable(\"w\", initializer=initial)` (dtype= and\n"
        "trainable= kept), so that the calls under reuse share the first call's variable. Unsafe: the\n"
        "first variable keeps its name, but the copies made under reuse (shared_1/w, ...) are no longer\n"
        "created, and their users now read the shared one; the message names them. Not fixed: no\n"
        "literal name=, an initial value that may be a function (a name or a lambda), other arguments."
    ),
)

# The tf.Variable arguments the fix carries over to get_variable.
_KEPT = ("dtype", "trainable")


def check(trace: Trace) -> Iterable[Diagnostic]:
    found = report_events(trace, RULE, "variable_ignores_reuse")
    for diagnostic in found:
        # The variables this tf.Variable creates, in order: the fix says which copies go.
        names = [record.name for record in trace.inventory() if record.site == diagnostic.site]
        diagnostic.extra["created"] = names
    return found


def fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    call = source.node_at(diagnostic.site, cst.Call)
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
            or call.func.attr.value not in ("Variable", "VariableV1"):
        return None
    created = [str(name) for name in diagnostic.extra.get("created", [])]
    if len(created) < 2 or any(UNKNOWN_PART in name for name in created):
        return None  # nothing proven to go
    keywords = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    positional = [arg for arg in call.args if arg.keyword is None]
    initial = positional[0].value if len(positional) == 1 and not positional[0].star else None
    if initial is None and not positional and "initial_value" in keywords:
        initial = keywords["initial_value"].value
    name = keywords.get("name")
    if (initial is None or len(positional) > 1 or set(keywords) - {"initial_value", "name", *_KEPT}
            or name is None or not isinstance(name.value, cst.SimpleString)
            or not isinstance(initial, (cst.Call, cst.List, cst.Integer, cst.Float, cst.UnaryOperation))):
        return None
    literal = pyparse.literal_eval(name.value.value)
    first = created[0]
    if not isinstance(literal, str) or first.rsplit("/", 1)[-1] != literal:
        return None  # the first variable was renamed (w_1): get_variable would not find the same one
    args = [cst.Arg(name.value), cst.Arg(initial, keyword=cst.Name("initializer"),
                                         equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))]
    args += [keywords[key] for key in _KEPT if key in keywords]
    args = [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in args]
    new_call = call.with_changes(func=call.func.with_changes(attr=cst.Name("get_variable")), args=args)
    copies = ", ".join(f"`{copy}`" for copy in created[1:])
    return source.replace(
        "unsafe",
        f"Create `{literal}` with get_variable, so that it is shared under reuse: `{first}` stays, "
        f"{copies} {'is' if len(created) == 2 else 'are'} no longer created (their users read `{first}`)",
        {call: new_call},
    )
