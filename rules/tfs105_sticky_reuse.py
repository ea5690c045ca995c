"""TFS105 sticky-reuse: the rule's documentation and its check.

The judgement is here, on the trace: a `reuse_variables()` on the root scope is a finding only
where a later creation in the same graph fails because of it.  The model records each such call
(`sticky_reuse`) and, on every "does not exist", where the failing scope's reuse came from
(`reuse_origin`, inherited through the scopes opened later) and what was being created.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

import libcst as cst

from scopelint.diagnostics import Diagnostic, Fix, RuleInfo
from scopelint.fixes import FixInfo, FixSource
from scopelint.trace import UNKNOWN_PART, Event, Related, Trace

RULE = RuleInfo(
    code="TFS105",
    name="sticky-reuse",
    severity="warning",
    summary="reuse_variables() on the root scope leaks reuse into the rest of the graph, and a later creation fails.",
    rationale=(
        'scope.reuse_variables() sets reuse=True on that VariableScope object for good. Called on\n'
        'tf.get_variable_scope() at the top level, it switches the root scope to reuse for the rest of\n'
        'the graph, with no public way back: every scope opened later inherits reuse=True, and the next\n'
        'new variable (a get_variable, a layer, an optimizer slot, a moving average) fails with "does not\n'
        'exist". Reported where such a later creation is affected, naming it; a leak that affects nothing\n'
        'is not a finding. Fix: call reuse_variables() inside the `with variable_scope(...)` block that\n'
        'should share, or pass reuse=True / tf.AUTO_REUSE to that scope.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("encoder"):
    w = tf.get_variable("w", shape=[2])
tf.get_variable_scope().reuse_variables()  # error: TFS105
try:
    with tf.variable_scope("decoder"):
        v = tf.get_variable("v", shape=[2])
except ValueError as error:
    print(str(error).split(",")[0])  # prints: Variable decoder/v does not exist
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.variable_scope("encoder") as encoder:
    w = tf.get_variable("w", shape=[2])
    encoder.reuse_variables()
    w_again = tf.get_variable("w", shape=[2])
with tf.variable_scope("decoder"):
    v = tf.get_variable("v", shape=[2])
print(v.name)  # prints: decoder/v:0
""",
)

FIX = FixInfo(
    applicability="safe",
    description=(
        "When the reuse_variables() call is in a loop (a tower loop), the loop goes inside\n"
        "`with tf.variable_scope(tf.get_variable_scope()):`. That block works on a copy of the root\n"
        "scope, so the towers share exactly as before, every variable keeps its name, and the reuse\n"
        "ends with the block: what is created after the loop (optimizer slots, ...) is created as new.\n"
        "Not fixed: a call outside a loop, or in a function the loop calls."
    ),
)

# How many affected creations the finding points to.
MAX_RELATED = 5


def check(trace: Trace) -> Iterable[Diagnostic]:
    failures = [event for event in trace.events_of("does_not_exist") if _failed_for_sure(event)]
    reported = set()
    for sticky in trace.events_of("sticky_reuse"):
        if not sticky.certain or sticky.site in reported:
            continue
        affected = [event for event in failures if event.data["reuse_origin"].site == sticky.site]
        if not affected:
            continue  # the leak affects no creation: reuse on purpose, nothing to report
        reported.add(sticky.site)
        first = affected[0]
        more = len(affected) - 1
        tail = f" ({more} more creation{'s' if more > 1 else ''} fail{'' if more > 1 else 's'} the same way)" if more else ""
        message = (
            "reuse_variables() on the root variable scope keeps the rest of the graph in reuse mode: "
            f"{describe(first)} created at line {first.site.line} then fails (\"does not exist\"){tail}. "
            "Call reuse_variables() inside the variable_scope that should share, or pass reuse= to it."
        )
        related = tuple(Related(event.site, f"{describe(event)} fails here under the leaked reuse")
                        for event in affected[:MAX_RELATED])
        yield Diagnostic(code=RULE.code, name=RULE.name, severity=RULE.severity, message=message,
                         site=sticky.site, related=sticky.related + related, certain=True)


def _failed_for_sure(event: Event) -> bool:
    """A creation that certainly fails: a certain "does not exist", or one recorded as the same
    mistake as the one before it (certain, but not reported twice); never on a partly unknown name."""
    key = event.data.get("key")
    if not isinstance(key, str) or UNKNOWN_PART in key or event.data.get("reuse_origin") is None:
        return False
    return event.certain or bool(event.data.get("same_mistake"))


def describe(event: Event) -> str:
    """`the Adam slot `d_h0_conv/w/Adam``, `the variable `decoder/v``, ..."""
    key = str(event.data.get("key", "")).rstrip("/")
    creation = event.data.get("creation")
    if creation == "slot":
        optimizer = re.sub(r"_\d+$", "", key.rsplit("/", 1)[-1])
        return f"the {optimizer} slot `{key}`"
    if creation == "ema":
        return f"the moving average `{key}`"
    if creation in ("layer", "rnn", "keras"):
        return f"the layer variable `{key}`"
    if creation == "local_variable":
        return f"the local variable `{key}`"
    return f"the variable `{key}`"


def fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    call = source.node_at(diagnostic.site, cst.Call)
    if not isinstance(call, cst.Call) or not _is_root_reuse_call(call):
        return None
    assert isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call)
    get_scope = call.func.value
    assert isinstance(get_scope.func, cst.Attribute)
    loop = None
    for ancestor in source.ancestors(call):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            break  # the loop that calls this function may be anywhere: not mechanical
        if isinstance(ancestor, (cst.For, cst.While)):
            loop = ancestor
            break
    if loop is None:
        return None
    # tf.variable_scope(tf.get_variable_scope()), spelled with the program's own module name.
    scope = cst.Call(func=get_scope.func.with_changes(attr=cst.Name("variable_scope")),
                     args=[cst.Arg(get_scope.deep_clone())])
    wrapped = cst.With(
        items=[cst.WithItem(scope)],
        body=cst.IndentedBlock([loop.with_changes(leading_lines=())]),
        leading_lines=loop.leading_lines,
    )
    return source.replace(
        "safe",
        f"Run the loop at line {source.position(loop).start.line} inside `with "
        f"{source.code(scope)}:`: the reuse ends with the loop, every variable keeps its name",
        {loop: wrapped},
    )


def _is_root_reuse_call(call: cst.Call) -> bool:
    """`<tf>.get_variable_scope().reuse_variables()`, with no arguments."""
    func = call.func
    if call.args or not isinstance(func, cst.Attribute) or func.attr.value != "reuse_variables":
        return False
    receiver = func.value
    return (isinstance(receiver, cst.Call) and not receiver.args and isinstance(receiver.func, cst.Attribute)
            and receiver.func.attr.value == "get_variable_scope")
