"""Latent and manifest findings (issue 9 item 3, the split of Infer's Pulse analysis).

A function no entry point reaches runs alone, with unknown arguments, in an unknown scope context.
What it raises for every argument value (and every context) is reported there: manifest.  What
depends on its arguments stays latent: nothing is reported until a caller makes it happen, and
then at the caller's path (its call is in the finding's chain).  The fixtures
tests/fixtures/patterns/latent_*.py are run under TensorFlow by the fixture suite.
"""
from __future__ import annotations

import textwrap

from scopelint.analysis import analyze_source

FUNCTIONS = textwrap.dedent("""\
    import tensorflow.compat.v1 as tf

    def fresh(units):
        with tf.Graph().as_default():
            tf.get_variable("v", [units])
            tf.get_variable("v", [units])

    def setter(task):
        return tf.train.replica_device_setter(ps_tasks=2, task_index=task)

    def maybe(units, again):
        with tf.Graph().as_default():
            tf.get_variable("v", [units])
            if again:
                tf.get_variable("v", [units])

    def contextual():
        with tf.variable_scope("a"):
            tf.get_variable("v", [2])
            tf.get_variable("v", [2])
    """)


def certain(source: str) -> list[tuple[str, int, tuple[int, ...]]]:
    """(kind, line, lines of the calls in its chain) of each certain event, sorted."""
    trace = analyze_source(source, "m.py")
    return sorted({(e.kind, e.site.line, tuple(sorted({r.site.line for r in e.related if "call of" in r.note})))
                   for e in trace.events if e.certain})


CALL = len(FUNCTIONS.splitlines()) + 1  # the line of a call appended to FUNCTIONS
# Unreached, each runs alone: its chain names its own definition line.
MANIFEST = [("already_exists", 6, (3,)), ("device_setter_bad_argument", 9, (8,))]


def test_unreached_functions_report_only_what_holds_for_every_argument() -> None:
    # fresh: a graph of its own, a duplicate whatever `units` is; setter: a TypeError whatever
    # `task` is.  maybe: only when `again`; contextual: a caller may open a reuse scope around it.
    assert certain(FUNCTIONS) == MANIFEST


def test_a_caller_makes_a_latent_duplicate_happen_on_its_path() -> None:
    assert certain(FUNCTIONS + "maybe(3, False)\n") == MANIFEST
    assert certain(FUNCTIONS + "maybe(3, True)\n") == sorted(MANIFEST + [("already_exists", 15, (CALL,))])
    assert certain(FUNCTIONS + "contextual()\n") == sorted(MANIFEST + [("already_exists", 20, (CALL,))])
    # Inside a reusing scope the same call only looks its variables up: only the first call raises.
    source = FUNCTIONS + ("with tf.variable_scope('s'):\n    contextual()\n"
                          "with tf.variable_scope('s', reuse=True):\n    contextual()\n")
    assert certain(source) == sorted(MANIFEST + [("already_exists", 20, (CALL + 1,))])


def test_a_flag_decides_the_latent_duplicate_and_the_condition_names_it() -> None:
    source = FUNCTIONS + ("flags = tf.app.flags\nflags.DEFINE_boolean('again', False, '')\n"
                          "maybe(3, flags.FLAGS.again)\n")
    trace = analyze_source(source, "m.py")
    assert [e for e in trace.events if e.certain and e.site.line == 15] == []  # not with the defaults
    [other] = [t for t in trace.other_paths if any(e.certain and e.site.line == 15 for e in t.events)]
    assert other.condition is not None and other.condition.label == "when --again"
