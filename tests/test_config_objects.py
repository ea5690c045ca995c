"""Hyper-parameter objects built from literals and click options are configuration (issue 9 item 1).

HParams needs tf.contrib (TensorFlow 1.x), which TensorFlow 2.21 does not have, so its cases are
checked against the documented behaviour of `HParams.parse` / `override_from_dict`; click and
namedtuple are run under TensorFlow in tests/fixtures/programs/click_namedtuple.
"""
from __future__ import annotations

import textwrap

import pytest

from scopelint.analysis import analyze_source

NET = textwrap.dedent("""\
    import tensorflow.compat.v1 as tf

    def net(x, units, share):
        with tf.variable_scope("net", reuse=share):
            return tf.layers.dense(x, units, name="fc")

    x = tf.placeholder(tf.float32, [1, 2])
    """)


def analyse(body: str):
    return analyze_source(NET + textwrap.dedent(body), "m.py")


def kernel(trace) -> tuple[tuple[int, ...] | None, bool]:
    [record] = [v for v in trace.variables if v.name == "net/fc/kernel"][:1]
    return record.shape, record.certain


def certain_codes(trace) -> list[str]:
    return [e.kind for e in trace.events if e.certain]


@pytest.mark.parametrize("build, expected_units", [
    ('hp = tf.contrib.training.HParams(units=4, share=False)', 4),
    ('hp = tf.training.HParams(units=4, share=False)', 4),
    ('hp = tf.contrib.training.HParams(units=4, share=False)\nhp.parse("units=6")', 6),
    ('hp = tf.contrib.training.HParams(units=4, share=False)\nhp.parse("")', 4),  # --hparams='' (default)
    ('hp = tf.contrib.training.HParams(units=4, share=False)\nhp.override_from_dict({"units": 5})', 5),
    ('hp = tf.contrib.training.HParams(units=4, share=False)\nhp.set_hparam("units", 7)', 7),
    ('hp = tf.contrib.training.HParams(units=4, share=False)\nhp.units = 3', 3),
])
def test_hparams_from_literals_are_known(build: str, expected_units: int) -> None:
    trace = analyse(build + "\nnet(x, hp.units, hp.share)\n")
    assert kernel(trace) == ((2, expected_units), True)


def test_hparams_parsed_from_an_unknown_string_are_unknown() -> None:
    trace = analyse("import somelib\nhp = tf.contrib.training.HParams(units=4, share=False)\n"
                    "hp.parse(somelib.text())\nnet(x, hp.units, hp.share)\nnet(x, hp.units, hp.share)\n")
    assert kernel(trace)[0] == (2, None)  # units: whatever --hparams says
    assert "already_exists" not in certain_codes(trace)  # share may be True: nothing proven


def test_hparams_default_run_reports_the_duplicate() -> None:
    trace = analyse("hp = tf.contrib.training.HParams(units=4, share=False)\n"
                    "net(x, hp.units, hp.share)\nnet(x, hp.units, hp.share)\n")
    assert certain_codes(trace) == ["already_exists"]


@pytest.mark.parametrize("build", [
    'import collections\nHP = collections.namedtuple("HP", ["units", "share"])\nhp = HP(units=4, share=False)',
    'import collections\nHP = collections.namedtuple("HP", "units share")\nhp = HP(4, False)',
    'from collections import namedtuple\nHP = namedtuple("HP", ["units", "share"], defaults=[False])\nhp = HP(4)',
    'import collections\nHP = collections.namedtuple("HP", ["units", "share"])\nhp = HP(3, True)._replace(units=4, share=False)',
])
def test_namedtuples_of_literals_are_known(build: str) -> None:
    trace = analyse(build + "\nnet(x, hp.units, hp.share)\nnet(x, hp.units, hp.share)\n")
    assert kernel(trace) == ((2, 4), True)
    assert certain_codes(trace) == ["already_exists"]


CLICK = NET + textwrap.dedent("""\
    import click
    import somelib  # not modelled: its values are unknown

    @click.command()
    {option}
    def main({parameter}):
        net(x, 2, False)
        {body}

    if __name__ == "__main__":
        main()
    """)


def analyse_click(option: str, parameter: str, body: str):
    return analyze_source(CLICK.format(option=option, parameter=parameter, body=body), "m.py")


def conditions(trace) -> list[str]:
    return sorted({t.condition.label for t in [trace, *trace.other_paths]
                   if t.condition is not None and any(e.certain and e.kind == "already_exists" for e in t.events)})


def test_click_choice_gives_one_path_per_choice() -> None:
    trace = analyse_click('@click.option("--model", default="a", type=click.Choice(["a", "b"]))', "model",
                          'if model == "b":\n            net(x, 2, False)')
    assert conditions(trace) == ["when --model=b"]


def test_click_flag_is_false_by_default_and_true_on_its_path() -> None:
    trace = analyse_click('@click.option("--again", is_flag=True)', "again", "if again:\n            net(x, 2, False)")
    assert conditions(trace) == ["when --again"]
    trace = analyse_click('@click.option("--again/--no-again", default=True)', "again",
                          "if again:\n            net(x, 2, False)")
    assert conditions(trace) == ["with the default flags"]


def test_click_option_default_is_the_value_of_the_default_run() -> None:
    trace = analyse_click('@click.option("--units", default=3)', "units", "")
    assert kernel(trace) == ((2, 2), True)
    trace = analyse_click('@click.option("--units", "-u", "width", default=5)', "width", "net(x, width, True)")
    assert [v.shape for v in trace.variables] == [(2, 2), (2,)]
    mismatches = [e.message for e in trace.events if e.certain]
    assert len(mismatches) == 2 and "specified shape (2, 5)" in mismatches[0], mismatches


def test_an_option_click_cannot_be_modelled_keeps_the_function_opaque() -> None:
    trace = analyse_click('@click.option("--again", type=click.Path())', "again", "net(x, 2, False)")
    assert "already_exists" not in [e.kind for e in trace.events if e.certain]


def test_an_option_with_an_unknown_argument_keeps_the_function_opaque() -> None:
    # `is_flag=True, default=somelib.DEFAULT`: the default is not known, so the option is not
    # modelled (truth-testing the unknown default was an internal error).
    trace = analyse_click('@click.option("--again", is_flag=True, default=somelib.DEFAULT)', "again",
                          "net(x, 2, False)")
    assert "already_exists" not in [e.kind for e in trace.events if e.certain]


def test_hparams_parse_of_a_partly_known_string_forgets_the_values() -> None:
    # `share={unknown}`: a name or value with an unknown part is no literal assignment.
    trace = analyse("import somelib\nhp = tf.contrib.training.HParams(units=4, share=False)\n"
                    "hp.parse(f'units=4,share={somelib.flag()}')\nnet(x, hp.units, hp.share)\nnet(x, hp.units, hp.share)\n")
    assert kernel(trace)[0] == (2, None)
    assert "already_exists" not in certain_codes(trace)  # share may be True: nothing proven


def test_a_click_option_is_spelled_as_on_the_command_line() -> None:
    trace = analyse_click('@click.option("--model", default="a")', "model",
                          'if model == "b":\n            net(x, 2, False)')
    assert trace.condition is not None and trace.condition.label == "with the default flags"
    assert [d[1] for d in trace.condition.decisions] == ["--model != 'b' (the default)"]
