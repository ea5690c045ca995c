"""A name the module provably never defines raises NameError: the path ends there (issue 9 item 8).

Before, such a name evaluated to an unknown value and the analysis went on, so what followed was
reported although Python never gets there.  Each case below is checked under TensorFlow too: the
program stops with NameError before the second creation, which never raises.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from scopelint.analysis import analyze_source

BODY = textwrap.dedent("""\
    import tensorflow.compat.v1 as tf
    {prelude}

    def build(flag):
        with tf.variable_scope("m"):
            tf.get_variable("w", [2])
        if flag:
            {call}
        with tf.variable_scope("m"):
            tf.get_variable("w", [2])

    build(True)
    """)


def program(call: str = "undefined_helper()", prelude: str = "") -> str:
    return BODY.format(call=call, prelude=prelude)


def duplicates(source: str, path: str = "m.py") -> list[int]:
    trace = analyze_source(source, path)
    return [event.site.line for event in trace.events if event.kind == "already_exists" and event.certain]


def test_a_provably_undefined_name_ends_the_path() -> None:
    assert duplicates(program()) == []
    # Defined as a function of the module: Python gets past it and the second creation raises.
    assert duplicates(program(prelude="def undefined_helper():\n    pass\n")) == [10 + 2]


def test_attribute_and_keyword_names_are_no_dynamic_binding() -> None:
    # `tensor.eval()` and `f(locals=1)` call neither eval nor locals: the name stays provably undefined.
    prelude = "x = tf.zeros([1])\ny = x.eval\nz = dict(locals=1, vars=2)\n"
    assert duplicates(program(prelude=prelude)) == []


@pytest.mark.parametrize("prelude, call", [
    ("from os.path import *", "undefined_helper()"),  # a star import may bind it
    ("", "globals()['undefined_helper'] = len\n        undefined_helper()"),  # bound dynamically
    ("", "xrange(2)"),  # a Python 2 builtin: the program may run under Python 2
    ("", "__file__"),  # a module dunder
    ("import builtins", "undefined_helper()"),  # names may be installed into builtins
])
def test_names_that_are_not_provably_undefined_stay_unknown(prelude: str, call: str) -> None:
    source = program(call, prelude)
    assert duplicates(source) == [source.splitlines().index("        tf.get_variable(\"w\", [2])", 6) + 1]


def test_a_function_of_another_module_is_judged_by_its_own_module(tmp_path) -> None:
    (tmp_path / "helpers.py").write_text("def helper():\n    return missing_name\n")
    (tmp_path / "other.py").write_text("missing_name = 1\n\ndef helper():\n    return missing_name\n")
    source = program("import helpers\n        helpers.helper()")
    assert duplicates(source, str(tmp_path / "m.py")) == []
    source = program("import other\n        other.helper()")
    assert len(duplicates(source, str(tmp_path / "m.py"))) == 1


@pytest.mark.tf
def test_tensorflow_stops_with_name_error_before_the_duplicate(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(program().replace("import tensorflow.compat.v1 as tf",
                                      "import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()"))
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode != 0
    assert "NameError: name 'undefined_helper' is not defined" in result.stderr
    assert "already exists" not in result.stderr


@pytest.mark.parametrize("prelude", ["", "def unused():\n    del undefined_helper\n",
                                     "def unused():\n    global undefined_helper\n"])
def test_the_quick_pre_check_agrees_with_the_exact_walk(prelude: str) -> None:
    # Python's own parse rules a module out only when every name it mentions is bound: a `del` or
    # a `global` statement binds nothing, so the name stays provably undefined there.
    from scopelint.analysis import project, undefined_names
    source = program(prelude=prelude)
    parsed = project.parse_text(source)
    quick = undefined_names._may_have_undefined(parsed.positions.python_tree("names"))
    exact = undefined_names._compute(parsed.module)
    assert quick and exact
    assert duplicates(source) == []
    bound = program(prelude="undefined_helper = len\n")
    parsed = project.parse_text(bound)
    assert not undefined_names._may_have_undefined(parsed.positions.python_tree("names"))
    assert undefined_names._compute(parsed.module) == frozenset()
