"""Python's `re` on known strings names variables (scopelint/analysis/pyre.py).

The fixture tests/fixtures/patterns/re_slot_names.py runs the same pattern under TensorFlow.
"""
from __future__ import annotations

import textwrap

import pytest

from scopelint.analysis import analyze_source


def names(body: str) -> list[tuple[str, bool]]:
    source = "import re\nimport tensorflow.compat.v1 as tf\n" + textwrap.dedent(body)
    trace = analyze_source(source, "m.py")
    return [(v.name, v.certain) for v in trace.variables]


@pytest.mark.parametrize("expression, expected", [
    ('re.match("^(.*):\\\\d+$", "a/b:0").group(1)', "a/b"),
    ('re.match("^(.*):(\\\\d+)$", "a/b:0").groups()[0]', "a/b"),
    ('re.match("^(?P<base>.*):\\\\d+$", "a/b:0")["base"]', "a/b"),
    ('re.search(":\\\\d+$", "a/b:0").start() and "a/b:0"[:re.search(":", "a/b:0").start()]', "a/b"),
    ('re.sub(":0$", "", "a/b:0")', "a/b"),
    ('re.compile(":\\\\d+$").sub("", "a/b:0")', "a/b"),
    ('re.split("/", "a/b:0")[0]', "a"),
    ('"x" if re.fullmatch("a", "ab") is None else "y"', "x"),
    ('re.sub("B", "c", "aB", flags=re.IGNORECASE)', "ac"),
])
def test_known_strings_give_known_names(expression: str, expected: str) -> None:
    assert names(f"v = tf.get_variable({expression}, [1])\n") == [(expected, True)]


def test_unknown_subject_gives_an_unknown_name() -> None:
    [(_, certain)] = names("""\
        import sys
        v = tf.get_variable(re.sub(":0$", "", sys.stdin.readline()), [1])
        """)
    assert not certain


def test_bad_pattern_is_unknown_not_a_crash() -> None:
    [(_, certain)] = names('v = tf.get_variable(re.sub("(", "", "a"), [1])\n')
    assert not certain


def test_slot_names_from_param_name_collide() -> None:
    source = textwrap.dedent("""\
        import re
        import tensorflow.compat.v1 as tf
        w = tf.get_variable("w", [2])
        base = re.match("^(.*):\\\\d+$", w.name).group(1)
        tf.get_variable(base + "/m", [2])
        tf.get_variable(base + "/m", [2])
        """)
    trace = analyze_source(source, "m.py")
    assert [(e.kind, e.certain) for e in trace.events] == [("already_exists", True)]
