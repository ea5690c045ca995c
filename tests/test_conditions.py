"""How a finding's condition is spelled from the runs that have it (scopelint/conditions.py and
analysis/paths.py): the value that tells the runs apart, never one that stands for several."""
from __future__ import annotations

import textwrap

from scopelint.engine import CheckSettings, check_source, known_rules

SETTINGS = CheckSettings(enabled=frozenset(info.code for info in known_rules()))


def conditions(body: str) -> list[tuple[str, str | None]]:
    source = textwrap.dedent("""\
        import tensorflow.compat.v1 as tf
        flags = tf.app.flags
        flags.DEFINE_string("model", "a", "")
        FLAGS = flags.FLAGS

        def main(_):
            tf.get_variable("w", [2])
        """) + textwrap.indent(textwrap.dedent(body), "    ") + "\ntf.app.run()\n"
    result = check_source(source.encode(), "m.py", SETTINGS)
    return [(d.code, d.condition) for d in result.diagnostics]


def test_a_default_never_compared_is_no_single_value_to_negate() -> None:
    # The default 'a' stands for every value but 'b' and 'c' ('d' behaves like it): "!= 'a'" is false.
    assert conditions("""\
        if FLAGS.model == "b" or FLAGS.model == "c":
            tf.get_variable("w", [2])
        """) == [("TFS101", "when --model=b or --model=c")]


def test_a_default_never_compared_reads_as_the_negation_of_the_compared_value() -> None:
    assert conditions("""\
        if FLAGS.model != "b":
            tf.get_variable("w", [2])
        """) == [("TFS101", "when FLAGS.model != 'b' (the default)")]


def test_an_option_not_given_reads_without_when_and_comes_last() -> None:
    from scopelint.conditions import when_all, when_any

    assert when_all(["without --test"]) == "without --test"
    assert when_all(["without --ema", "--model=mlp"]) == "when --model=mlp, without --ema"
    assert when_all(["--ema", "--model=mlp"]) == "when --ema and --model=mlp"
    assert when_any(["without --test (the default)"]) == "without --test (the default)"
    assert when_any(["--model=b", "--model=c"]) == "when --model=b or --model=c"


def test_every_choice_of_a_flag_is_run_when_the_default_run_is_cheap() -> None:
    """A `--model` choice whose default builds almost nothing must not leave the other choices
    unexplored: each is a real command line (the path work budget has a floor, paths.py)."""
    choices = ["tiny"] + [f"m{index}" for index in range(1, 10)]
    source = textwrap.dedent(f"""\
        import argparse
        import tensorflow.compat.v1 as tf


        def dense_stack(prefix, count):
            for index in range(count):
                with tf.variable_scope("%s_%d" % (prefix, index)):
                    tf.get_variable("w", [4, 4])


        def build(name):
            if name == "tiny":
                tf.get_variable("tiny/w", [2])
            elif name == "m9":
                dense_stack("m9", 40)
                dense_stack("m9", 1)
            else:
                dense_stack(name, 40)


        parser = argparse.ArgumentParser()
        parser.add_argument("--model", default="tiny", choices={choices!r})
        args = parser.parse_args()
        build(args.model)
        """)
    result = check_source(source.encode(), "m.py", SETTINGS)
    assert [(d.code, d.condition) for d in result.diagnostics] == [("TFS101", "when --model=m9")]
