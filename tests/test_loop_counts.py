"""Loops whose length the analysis does not know (analysis/loop_counts.py): once speculatively on
every run, and twice for certain on a run of their own when their body builds something."""
from __future__ import annotations

import textwrap

from scopelint import conditions
from scopelint.analysis import paths
from scopelint.diagnostics import Diagnostic
from scopelint.engine import CheckSettings, check_source, known_rules
from scopelint.trace import PathCondition, Site

SETTINGS = CheckSettings(enabled=frozenset(info.code for info in known_rules()))
HEADER = "import tensorflow.compat.v1 as tf\n"


def findings(body: str) -> list[tuple[str, int, str | None]]:
    source = HEADER + textwrap.dedent(body)
    result = check_source(source.encode(), "m.py", SETTINGS)
    return [(d.code, d.site.line, d.condition) for d in result.diagnostics]


def test_one_scope_name_for_every_iteration_raises_when_the_loop_runs_twice() -> None:
    assert findings("""\
        def build(n):
            for i in range(n):
                with tf.variable_scope("layer"):
                    tf.get_variable("w", [2])
        build(int(open("n.txt").read()))
        """) == [("TFS101", 5, "when the loop at m.py:3 runs twice")]


def test_one_scope_per_iteration_is_fine_however_often_the_loop_runs() -> None:
    assert findings("""\
        def build(n):
            for i in range(n):
                with tf.variable_scope("layer_%d" % i):
                    tf.get_variable("w", [2])
        for start in range(int(open("n.txt").read())):
            pass
        build(int(open("n.txt").read()))
        """) == []


def _certain_names_per_run(body: str) -> list[list[str]]:
    trace = paths.analyze(HEADER + textwrap.dedent(body), "m.py")
    return [[record.name for record in run.variables if record.certain] for run in [trace, *trace.other_paths]]


def test_the_second_iteration_sees_the_next_item_of_a_range_and_of_enumerate() -> None:
    # The default run builds nothing certain; each loop's own run builds its two iterations.
    assert _certain_names_per_run("""\
        n = int(open("n.txt").read())
        for i in range(1, n, 2):
            tf.get_variable("w%d" % i, [2])
        for i, width in enumerate(open("w.txt").read().split()):
            tf.get_variable("v%d" % i, [2])
        """) == [[], ["w1", "w3"], ["v0", "v1"]]
    # Different names on each iteration: nothing raises.
    assert findings("""\
        n = int(open("n.txt").read())
        for i in range(1, n, 2):
            tf.get_variable("w%d" % i, [2])
        """) == []


def test_a_bound_that_calls_something_is_not_evaluated_twice() -> None:
    # `next_start()` ran when the loop's range was built; the second iteration's item is unknown.
    assert _certain_names_per_run("""\
        def next_start():
            return 1
        for i in range(next_start(), int(open("n.txt").read())):
            with tf.variable_scope("s"):
                tf.get_variable("w%s" % i, [2])
        """)[1] == []


def test_a_loop_that_builds_nothing_is_no_path_of_its_own() -> None:
    trace = paths.analyze(HEADER + textwrap.dedent("""\
        total = 0
        for line in open("data.txt"):
            total += 1
        tf.get_variable("w", [2])
        """), "m.py")
    assert trace.other_paths == []


def test_a_loop_inside_an_unknown_branch_is_not_run_twice() -> None:
    # Its context is itself speculative: what it builds is uncertain on every run.
    trace = paths.analyze(HEADER + textwrap.dedent("""\
        if open("flag.txt").read():
            for i in range(int(open("n.txt").read())):
                tf.get_variable("w", [2])
        """), "m.py")
    assert trace.other_paths == []


def test_the_run_where_a_loop_runs_once_tells_nothing_apart() -> None:
    # A finding of the default run only holds "with the default flags", not "when the loop runs
    # once": once is a speculative run standing for any count, not a count.
    once = PathCondition("with the default flags", True, decisions=(("loop:m.py:1", "the loop at m.py:3 runs once", None),))
    twice = PathCondition("when the loop at m.py:3 runs twice", False,
                          decisions=(("loop:m.py:1", "the loop at m.py:3 runs twice", None),))
    only_default = Diagnostic("TFS101", "variable-already-exists", "error", "m", Site("m.py", 5, 1, 5, 2))
    both = Diagnostic("TFS101", "variable-already-exists", "error", "n", Site("m.py", 6, 1, 6, 2))
    merged = conditions.merge([(once, [only_default, both]), (twice, [both])])
    assert [d.condition for d in merged] == ["with the default flags", conditions.EVERY_PATH]
    # ...while the run where it runs twice is told apart by it.
    assert conditions.merge([(once, []), (twice, [both])])[0].condition == "when the loop at m.py:3 runs twice"


def test_a_while_loop_the_analysis_can_decide_runs_as_python_runs_it() -> None:
    assert _certain_names_per_run("""\
        i = 0
        while i < 3:
            tf.get_variable("w%d" % i, [2])
            i += 1
        else:
            tf.get_variable("after", [2])
        """) == [["w0", "w1", "w2", "after"]]


def test_a_while_loop_with_an_undecidable_condition_raises_when_it_runs_twice() -> None:
    assert findings("""\
        def build(depth):
            while depth > 1:
                with tf.variable_scope("layer"):
                    tf.get_variable("w", [2])
                depth //= 2
        build(int(open("n.txt").read()))
        """) == [("TFS101", 5, "when the loop at m.py:3 runs twice")]


def test_a_break_that_may_happen_ends_the_certain_iterations() -> None:
    # TensorFlow raises at the second iteration only if the first did not break: that depends on a
    # value nobody can choose, so nothing is certain after the first iteration.
    body = """\
        while True:
            with tf.variable_scope("layer"):
                tf.get_variable("w", [2])
            if open("stop.txt").read():
                break
        """
    assert findings(body) == []
    assert _certain_names_per_run(body) == [["layer/w"]]


def test_a_training_loop_bounded_by_a_flag_makes_no_run_per_step() -> None:
    trace = paths.analyze(HEADER + textwrap.dedent("""\
        tf.app.flags.DEFINE_integer("max_steps", 100000, "")
        FLAGS = tf.app.flags.FLAGS
        step = 0
        while True:
            step += 1
            if step >= FLAGS.max_steps:
                break
        """), "m.py")
    # The first two steps show which values end the loop early (0, 1, 2); later steps learn nothing.
    assert sorted(run.condition.argv for run in trace.other_paths) == [
        ("--max_steps=0",), ("--max_steps=1",), ("--max_steps=2",)]
