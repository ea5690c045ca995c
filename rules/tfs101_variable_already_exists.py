"""TFS101 variable-already-exists: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import libcst as cst

from scopelint.analysis.bindings import bound_names
from scopelint import pyparse
from scopelint.diagnostics import Diagnostic, Fix, RuleInfo
from scopelint.fixes import FixInfo, FixSource
from scopelint.trace import Related, Site, Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS101",
    name="variable-already-exists",
    severity="error",
    summary="get_variable creates a variable whose full name already exists in a scope without reuse.",
    rationale=(
        'A variable_scope is create-only unless reuse is on: when get_variable asks for a store key\n'
        '(scope name + "/" + name) that already exists, TensorFlow raises ValueError "Variable K already\n'
        'exists, disallowed" while the graph is built. Typical causes are a function with a fixed scope\n'
        'called twice, a re-entered parent scope around unnamed tf.layers calls, and optimizer slots or a\n'
        'second RNN built in the same scope. Re-entering a string scope reuses its var-scope name even\n'
        'though its name scope becomes `s_1`.\n'
        'Fix: share on purpose with reuse=True (after the first creation) or reuse=tf.AUTO_REUSE, or give\n'
        'each copy its own scope name.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

def encoder(x):
    with tf.variable_scope("enc"):
        w = tf.get_variable("w", shape=[4, 4])  # error: TFS101
        return tf.matmul(x, w)

x = tf.ones([2, 4])
train_out = encoder(x)
eval_out = encoder(x)
""",
    good="""\
import tensorflow.compat.v1 as tf

def encoder(x):
    with tf.variable_scope("enc", reuse=tf.AUTO_REUSE):
        w = tf.get_variable("w", shape=[4, 4])
        return tf.matmul(x, w)

x = tf.ones([2, 4])
train_out = encoder(x)
eval_out = encoder(x)
print([v.name for v in tf.global_variables()])  # prints: ['enc/w:0']
""",
)

FIX = FixInfo(
    applicability="safe",
    description=(
        "When a function evidently means to share: the variable that already exists was created by the\n"
        "same get_variable line on an earlier call, inside the function's own `with\n"
        "tf.variable_scope(\"fixed name\"):` (a literal name, no reuse=, no default_name), then that scope\n"
        "gets reuse=tf.AUTO_REUSE. The first call creates exactly what it created before, under the same\n"
        "names; later calls share it instead of raising. And when the failing call of that code passes\n"
        "reuse=False (or None) after an earlier call of it created the variable, or opens the same literal\n"
        "variable_scope with reuse=None/False a second time around it, that reuse becomes True (in this\n"
        "file). In a loop whose call passes `reuse=flag`, where the same call created the variable on an\n"
        "earlier iteration and the loop body sets `flag = False` again, that assignment becomes True.\n"
        "Not fixed: a variable first created by other code, a call in another file, a loop inside one\n"
        "call that creates the same name twice (a naming slip: sharing is not evidently meant)."
    ),
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "already_exists")


def fix(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    if not any(related.site == diagnostic.site and related.note == "first created here" for related in diagnostic.related):
        return None  # first created by other code: sharing is not evidently meant
    return _reuse_turned_off(diagnostic, source) or _loop_flag_off(diagnostic, source) or _own_scope(diagnostic, source)


def _chain_notes(diagnostic: Diagnostic) -> tuple[list[Related], list[Related]]:
    """The call notes that led to the failing creation and to the first one, innermost last (the
    related notes list the failing chain, "first created here", then the first chain)."""
    notes = list(diagnostic.related)
    split = next(i for i, related in enumerate(notes) if related.note == "first created here")
    failing = [r for r in notes[:split] if " call of " in r.note]
    first = [r for r in notes[split + 1:] if " call of " in r.note]
    return failing, first


def _chains(diagnostic: Diagnostic) -> tuple[list[Site], list[Site]]:
    """The call sites of `_chain_notes`."""
    failing, first = _chain_notes(diagnostic)
    return [r.site for r in failing if r.site is not None], [r.site for r in first if r.site is not None]


def _reuse_turned_off(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    """The failing call of the shared code turns reuse off after an earlier call of it created the
    variable: `model(x, reuse=False)`, or `with variable_scope("Model", reuse=None): Model(...)` a
    second time beside another call of the same code under the same scope. That reuse becomes True."""
    failing, first = _chains(diagnostic)
    first_calls = [source.node_at(site, cst.Call) for site in first if site.path == source.path]
    for site in reversed(failing):
        if site.path != source.path:
            continue
        call = source.node_at(site, cst.Call)
        if not isinstance(call, cst.Call):
            continue
        same_callee = [other for other in first_calls if isinstance(other, cst.Call) and other is not call
                       and source.code(other.func) == source.code(call.func)]
        if not same_callee:
            continue
        argument = _reuse_off(call)
        if argument is not None:  # the code takes a reuse argument, and this later call turns it off
            return _set_true(source, argument, f"Pass reuse=True to this second call of `{source.code(call.func)}` "
                                               "(line {line}): it shares the variables the first call creates, "
                                               "under the same names, instead of raising")
        scope = _enclosing_scope(source, call)
        if scope is None:
            continue
        argument = _reuse_off(scope)
        name = scope.args[0].value if scope.args else None
        if argument is None or not isinstance(name, cst.SimpleString):
            continue
        if any((other_scope := _enclosing_scope(source, other)) is not None and other_scope is not scope
               and other_scope.args and isinstance(other_scope.args[0].value, cst.SimpleString)
               and pyparse.literal_eval(other_scope.args[0].value.value) == pyparse.literal_eval(name.value)
               for other in same_callee):
            return _set_true(source, argument, f"Open variable_scope({name.value}) at line {{line}} with reuse=True: "
                                               f"this second `{source.code(call.func)}` shares the variables the first "
                                               "creates, under the same names, instead of raising")
    return None


def _loop_flag_off(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    """`model(x, reuse=reuse_vars)` in a loop, where the same call created the variable on an earlier
    iteration and the loop body sets `reuse_vars = False` (or None) again: that assignment becomes
    True, so the first iteration creates and the later ones share (the multi-GPU tower idiom)."""
    failing, first = _chains(diagnostic)
    for site in reversed(failing):
        if site.path != source.path or site not in first:
            continue  # not the same call, an iteration earlier
        call = source.node_at(site, cst.Call)
        flag = next((arg.value.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "reuse"
                     and isinstance(arg.value, cst.Name) and arg.value.value not in ("True", "False", "None")),
                    None) if isinstance(call, cst.Call) else None
        loop = next((a for a in source.ancestors(call) if isinstance(a, (cst.For, cst.While, cst.FunctionDef,
                                                                          cst.ClassDef, cst.Lambda))), None)
        if flag is None or not isinstance(loop, (cst.For, cst.While)) or not isinstance(loop.body, cst.IndentedBlock):
            continue
        settings = [small for line in _unconditional_lines(loop.body.body)
                    for small in line.body if isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == flag]
        every_store = [name for name in bound_names(loop.body) if name == flag]
        if len(settings) != 1 or len(every_store) != 1 or not isinstance(settings[0].value, cst.Name) \
                or settings[0].value.value not in ("False", "None"):
            continue
        line = source.position(settings[0]).start.line
        return source.replace(
            "safe",
            f"Set `{flag} = True` at line {line}: the first iteration of the loop creates the variables, the later "
            "ones share them, under the same names, instead of raising",
            {settings[0].value: cst.Name("True")},
        )
    return None


def _unconditional_lines(body: Sequence[cst.BaseStatement]) -> list[cst.SimpleStatementLine]:
    """The simple statements of a block that run whenever it runs: its own and those in its `with` blocks."""
    lines: list[cst.SimpleStatementLine] = []
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            lines.append(statement)
        elif isinstance(statement, cst.With) and isinstance(statement.body, cst.IndentedBlock):
            lines.extend(_unconditional_lines(statement.body.body))
    return lines


def _reuse_off(call: cst.Call) -> cst.Arg | None:
    """The call's `reuse=False` or `reuse=None` argument."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "reuse" and isinstance(arg.value, cst.Name) \
                and arg.value.value in ("False", "None"):
            return arg
    return None


def _enclosing_scope(source: FixSource, node: cst.CSTNode) -> cst.Call | None:
    """The variable_scope(...) of the nearest `with` around the node, in the same function."""
    for ancestor in source.ancestors(node):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return None
        if isinstance(ancestor, cst.With):
            for item in ancestor.items:
                if _is_variable_scope(item.item):
                    return item.item  # type: ignore[return-value]
    return None


def _set_true(source: FixSource, argument: cst.Arg, message: str) -> Fix | None:
    line = source.position(argument).start.line
    return source.replace("safe", message.format(line=line), {argument: argument.with_changes(value=cst.Name("True"))})


def _same_call(diagnostic: Diagnostic) -> bool:
    """Both creations happened in one call of the code (its loop ran the line twice): the chains of
    calls that led to them read the same ("first call of `f`" both times)."""
    failing, first = _chain_notes(diagnostic)
    return [(r.site, r.note) for r in failing] == [(r.site, r.note) for r in first]


def _own_scope(diagnostic: Diagnostic, source: FixSource) -> Fix | None:
    if _same_call(diagnostic):
        # A loop inside one call builds the line twice under one fixed name (`"layer_%d" % 0`):
        # a naming slip, not a second call meant to share; AUTO_REUSE would silently share them.
        return None
    call = source.node_at(diagnostic.site, cst.Call)
    if call is None:
        return None
    for ancestor in source.ancestors(call):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)):
            return None  # no scope of the function's own
        if isinstance(ancestor, cst.With):
            scope = next((item.item for item in ancestor.items if _is_variable_scope(item.item)), None)
            if scope is not None:
                break
    else:
        return None
    assert isinstance(scope, cst.Call) and isinstance(scope.func, cst.Attribute)
    if not _fixed_name_only(scope) or not any(isinstance(a, cst.FunctionDef) for a in source.ancestors(scope)):
        return None
    auto_reuse = scope.func.with_changes(attr=cst.Name("AUTO_REUSE"))
    args = list(scope.args)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(cst.Arg(auto_reuse, keyword=cst.Name("reuse"),
                        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    first = scope.args[0].value
    assert isinstance(first, cst.SimpleString)
    return source.replace(
        "safe",
        f"Open variable_scope({first.value}) with reuse={source.code(auto_reuse)}: the later calls share the variables "
        "the first call creates, under the same names, instead of raising",
        {scope: scope.with_changes(args=args)},
    )


def _is_variable_scope(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "variable_scope"


def _fixed_name_only(scope: cst.Call) -> bool:
    """variable_scope("literal", ...) with neither reuse nor default_name, nothing unpacked."""
    if not scope.args or scope.args[0].keyword is not None or not isinstance(scope.args[0].value, cst.SimpleString):
        return False
    if any(arg.star for arg in scope.args) or sum(1 for arg in scope.args if arg.keyword is None) > 1:
        return False
    return not {arg.keyword.value for arg in scope.args if arg.keyword is not None} & {"reuse", "default_name"}
