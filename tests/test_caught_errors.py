"""TensorFlow's errors that the program catches (issue 9 item 5, model/graph.py "Continuing past an
error"): where the error goes, and that a caught error does not hide the next one.

Each program is also run under TensorFlow, which shows which lines really ran."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scopelint.analysis import analyze_source

NESTED = textwrap.dedent("""\
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()


    def build():
        try:
            try:
                w = tf.get_variable("w", [2])
            except AttributeError:
                w = None
            v = tf.get_variable("v", [2])
            print("v created")
        except ValueError:
            print("caught")
            v = None
        return v


    build()
    build()
    """)


def certain_duplicates(source: str) -> list[int]:
    trace = analyze_source(source, "m.py")
    return [event.site.line for event in trace.events if event.kind == "already_exists" and event.certain]


def test_an_inner_handler_for_other_errors_lets_the_error_reach_the_outer_try() -> None:
    # The second build raises at `w` (line 8); the outer handler catches it, so `v` is never
    # created twice: before, the inner handler caught it and the run went on to a false TFS101 at v.
    assert certain_duplicates(NESTED) == [8]


@pytest.mark.tf
def test_tensorflow_jumps_from_the_inner_body_to_the_outer_handler(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(NESTED)
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["v", "created", "caught"]
