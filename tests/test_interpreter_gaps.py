"""Known gaps of the interpreter (issue 9, item 8), each on a few lines of code."""
from __future__ import annotations

from scopelint.analysis import analyze_source


def _names(source: str, certain_only: bool = True) -> list[str]:
    trace = analyze_source(source, "m.py")
    return [record.name for record in trace.variables if record.certain or not certain_only]


def _certain_kinds(source: str) -> list[str]:
    trace = analyze_source(source, "m.py")
    return [event.kind for event in trace.events if event.certain]


def test_return_inside_a_contextmanager_body_runs_the_generators_finally() -> None:
    source = (
        "import contextlib\n"
        "import tensorflow.compat.v1 as tf\n"
        "@contextlib.contextmanager\n"
        "def scoped(name):\n"
        "    try:\n"
        "        with tf.variable_scope(name):\n"
        "            yield\n"
        "    finally:\n"
        "        tf.get_variable('closed', [1])\n"
        "def build():\n"
        "    with scoped('s'):\n"
        "        w = tf.get_variable('w', [1])\n"
        "        return w\n"
        "    tf.get_variable('never', [1])\n"
        "build()\n"
        "tf.get_variable('after', [1])\n"
    )
    assert _names(source) == ["s/w", "closed", "after"]


def test_a_contextmanager_that_never_yields_ends_the_run() -> None:
    source = (
        "import contextlib\n"
        "import tensorflow.compat.v1 as tf\n"
        "@contextlib.contextmanager\n"
        "def broken():\n"
        "    tf.get_variable('before', [1])\n"
        "with broken():\n"
        "    tf.get_variable('body', [1])\n"
    )
    assert _names(source) == ["before"]
