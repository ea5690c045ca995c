"""Property tests: the analysis terminates, quickly and without an exception, on random programs,
and its trace keeps its invariants.

Two sources of programs: `hypothesmith` (random valid Python from the grammar: nothing
TensorFlow-like, but every statement and expression form) and a small grammar of TF-scope programs
of our own (nested variable_scope/name_scope, get_variable, tf.Variable, layers, loops, ifs,
functions, graphs, device setters; names and bounds literal or unknown).  Both run derandomized
(the same examples on every run, so CI failures reproduce) with bounded example counts: the whole
file takes well under 30 s.
"""
from __future__ import annotations

import time
from collections import Counter

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scopelint.analysis import ParseFailure, analyze_source, paths
from scopelint.trace import EVENT_KINDS, UNKNOWN_PART, Trace

# Wall time is not asserted (speed is measured in benchmarks/): what bounds the analysis is its work
# budget, asserted below in steps.  This is only a hang guard, minutes above the slowest program
# (about 2 s alone), so a loaded machine never fails it and a real hang still does.
HANG_SECONDS = 120.0
_PROPERTY_SETTINGS = settings(
    derandomize=True, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def bounded(examples: int) -> settings:
    return settings(_PROPERTY_SETTINGS, max_examples=examples)


def analyse_within_bound(source: str) -> Trace | None:
    """The trace (None when the source does not parse), asserting the time bound."""
    started = time.monotonic()
    try:
        trace = analyze_source(source, "generated.py")
    except ParseFailure:
        trace = None
    elapsed = time.monotonic() - started
    assert elapsed < HANG_SECONDS, f"analysis hung ({elapsed:.0f} s) on:\n{source}"
    if trace is not None:
        assert_work_bounded(trace, source)
    return trace


def assert_work_bounded(trace: Trace, source: str) -> None:
    """Exploration stops once its budget is spent: at most one run beyond it."""
    runs = [trace, *trace.other_paths]
    total = sum(run.steps for run in runs)
    budget = paths.work_budget(trace.steps)
    assert len(runs) <= paths.MAX_PATHS, f"{len(runs)} runs on:\n{source}"
    assert total <= budget + max(run.steps for run in runs), f"{total} steps against a budget of {budget} on:\n{source}"


def assert_invariants(trace: Trace, source: str) -> None:
    certain_names = Counter((record.graph, record.name) for record in trace.variables if record.certain)
    repeated = [key for key, count in certain_names.items() if count > 1]
    assert not repeated, f"certain variables recorded twice: {repeated}\n{source}"
    for record in trace.variables:
        if record.certain:
            assert UNKNOWN_PART not in record.name, f"certain record with an unknown name part: {record}\n{source}"
    unknown_kinds = {event.kind for event in trace.events} - set(EVENT_KINDS)
    assert not unknown_kinds, f"event kinds not in EVENT_KINDS: {unknown_kinds}"


# --- random valid Python (hypothesmith) -----------------------------------------------------------


@bounded(40)
@given(hypothesmith.from_grammar())
def test_random_python_from_the_grammar(source: str) -> None:
    trace = analyse_within_bound("import tensorflow.compat.v1 as tf\n" + source)
    if trace is not None:
        assert_invariants(trace, source)


@bounded(20)
@given(hypothesmith.from_node())
def test_random_python_from_libcst_nodes(source: str) -> None:
    trace = analyse_within_bound(source)
    if trace is not None:
        assert_invariants(trace, source)


# --- random TF-scope programs from a small grammar ----------------------------------------------------

LITERAL_NAMES = ("a", "b", "w", "dense", "a/b", "")
SHAPES = ("[2]", "[2, 3]", "[3]", "None")


@st.composite
def names(draw: st.DrawFn) -> str:
    """A name expression: literal, formatted with a loop variable, or unknown."""
    kind = draw(st.sampled_from(("literal", "literal", "literal", "format", "unknown", "fstring")))
    if kind == "literal":
        return repr(draw(st.sampled_from(LITERAL_NAMES)))
    if kind == "format":
        return "'t_%d' % i"
    if kind == "fstring":
        return "f'{prefix}_x'"
    return "sys.argv[1]"


def indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines] or ["    pass"]


@st.composite
def blocks(draw: st.DrawFn, depth: int, functions: tuple[str, ...]) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        lines += draw(statements(depth, functions))
    return lines


@st.composite
def statements(draw: st.DrawFn, depth: int, functions: tuple[str, ...]) -> list[str]:
    leaves = ["get_variable", "variable", "layer", "reuse_variables", "call", "auto_layer"]
    nested = ["variable_scope", "name_scope", "for", "if", "graph", "device"] if depth < 4 else []
    kind = draw(st.sampled_from(leaves + nested * 2))
    name = draw(names())
    if kind == "get_variable":
        shape = draw(st.sampled_from(SHAPES))
        shape_argument = "" if shape == "None" else f", {shape}"
        return [f"v = tf.get_variable({name}{shape_argument})"]
    if kind == "variable":
        return [f"v = tf.Variable(tf.zeros([2]), name={name})"]
    if kind == "layer":
        return [f"h = tf.layers.dense(x, 4, name={name})"]
    if kind == "auto_layer":
        return ["h = tf.layers.dense(x, 4)"]
    if kind == "reuse_variables":
        return ["tf.get_variable_scope().reuse_variables()"]
    if kind == "call":
        if not functions:
            return ["pass"]
        function = draw(st.sampled_from(functions))
        reuse = draw(st.sampled_from(("", ", reuse=True", ", reuse=tf.AUTO_REUSE", ", reuse=unknown_flag")))
        return [f"{function}(x{reuse})"]
    body = draw(blocks(depth + 1, functions))
    if kind == "variable_scope":
        reuse = draw(st.sampled_from(("", ", reuse=True", ", reuse=tf.AUTO_REUSE", ", reuse=reuse", ", reuse=unknown_flag")))
        default = draw(st.sampled_from(("", ", default_name='d'")))
        return [f"with tf.variable_scope({name}{reuse}{default}):", *indent(body)]
    if kind == "name_scope":
        return [f"with tf.name_scope({name}):", *indent(body)]
    if kind == "for":
        bound = draw(st.sampled_from(("2", "3", "len(sys.argv)", "0")))
        return [f"for i in range({bound}):", *indent(body)]
    if kind == "if":
        condition = draw(st.sampled_from(("True", "False", "unknown_flag", "i > 0")))
        orelse = draw(blocks(depth + 1, functions))
        return [f"if {condition}:", *indent(body), "else:", *indent(orelse)]
    if kind == "graph":
        return ["with tf.Graph().as_default():", *indent(["x = tf.zeros([1, 2])", *body])]
    setter = draw(st.sampled_from(("tf.train.replica_device_setter(ps_tasks=2)", "'/gpu:0'", "None")))
    return [f"with tf.device({setter}):", *indent(body)]


@st.composite
def tf_programs(draw: st.DrawFn) -> str:
    lines = [
        "import sys",
        "import tensorflow.compat.v1 as tf",
        "unknown_flag = len(sys.argv) > 2",
        "prefix = sys.argv[2]",
        "i = 0",
        "reuse = None",
        "x = tf.zeros([1, 2])",
    ]
    functions: list[str] = []
    for index in range(draw(st.integers(0, 3))):
        name = f"block_{index}"
        body = draw(blocks(1, tuple(functions)))  # may call the functions defined before it
        # Some functions recurse on themselves: the interpreter's call depth bound must stop them.
        if draw(st.booleans()) and index == 0:
            body.append(f"{name}(x, reuse=True)")
        lines += [f"def {name}(x, reuse=None):", *indent(body), "    return x"]
        functions.append(name)
    lines += draw(blocks(0, tuple(functions)))
    return "\n".join(lines) + "\n"


@bounded(70)
@given(tf_programs())
def test_random_tf_scope_programs(source: str) -> None:
    trace = analyse_within_bound(source)
    assert trace is not None, f"the grammar only produces valid Python:\n{source}"
    assert_invariants(trace, source)


def test_the_grammar_reaches_the_interesting_cases() -> None:
    """The generator is not vacuous: over a fixed sample, programs create certain variables, hit
    TensorFlow errors, and produce uncertain records."""
    seen: Counter[str] = Counter()

    @bounded(30)
    @given(tf_programs())
    def collect(source: str) -> None:
        trace = analyse_within_bound(source)
        assert trace is not None
        if any(record.certain for record in trace.variables):
            seen["certain variable"] += 1
        if any(not record.certain for record in trace.variables):
            seen["uncertain variable"] += 1
        seen.update(event.kind for event in trace.events)

    collect()
    for wanted in ("certain variable", "uncertain variable", "already_exists", "does_not_exist"):
        assert seen[wanted] > 0, (wanted, seen)


@pytest.mark.parametrize("source", [
    # Cases the generator found worth keeping as plain examples.
    "import tensorflow.compat.v1 as tf\nwith tf.variable_scope(''):\n    v = tf.get_variable('', [2])\n",
    "import tensorflow.compat.v1 as tf\nfor i in range(3):\n    tf.Variable(tf.zeros([2]), name='t_%d' % i)\n    tf.Variable(tf.zeros([2]), name='t_%d' % i)\n",
    "import tensorflow.compat.v1 as tf\nimport sys\nwith tf.variable_scope(sys.argv[1]):\n    tf.layers.dense(tf.zeros([1, 2]), 4)\n    tf.layers.dense(tf.zeros([1, 2]), 4)\n",
])
def test_fixed_examples(source: str) -> None:
    trace = analyse_within_bound(source)
    assert trace is not None
    assert_invariants(trace, source)
