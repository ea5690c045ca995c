"""Element-wise ops broadcast their operands' static shapes as tf.broadcast_static_shape does
(analysis/shapes.broadcast); the expected shapes were printed by TF 2.21."""
from __future__ import annotations

import pytest

from scopelint.analysis import analyze_source
from scopelint.analysis.shapes import broadcast


@pytest.mark.parametrize(("left", "right", "expected"), [
    ((4,), (2, 4), (2, 4)),
    ((2, 1), (1, 3), (2, 3)),
    ((), (5, 4), (5, 4)),
    ((None, 4), (4,), (None, 4)),
    ((None, 1), (3, 4), (3, 4)),
    ((None,), (1,), (None,)),
    ((2, 3), (4,), None),  # TensorFlow raises: incompatible
    (None, (4,), None),
])
def test_broadcast_matches_tensorflow(left, right, expected) -> None:
    assert broadcast(left, right) == expected


def test_a_bias_added_before_the_input_takes_the_larger_shape() -> None:
    trace = analyze_source(
        "import tensorflow.compat.v1 as tf\n"
        "x = tf.zeros([2, 4])\n"
        "b = tf.zeros([4])\n"
        "tf.get_variable('w1', tf.add(b, x).shape)\n"
        "tf.get_variable('w2', (b + x).get_shape())\n"
        "tf.get_variable('w3', (x * 2.0).shape)\n",
        "m.py",
    )
    assert [(r.name, r.shape) for r in trace.variables] == [("w1", (2, 4)), ("w2", (2, 4)), ("w3", (2, 4))]


def test_reshape_infers_its_minus_one_from_the_element_count() -> None:
    # TF 2.21: (2, 1024), (None, 3136), (6,), (3, None)
    trace = analyze_source(
        "import tensorflow.compat.v1 as tf\n"
        "tf.get_variable('a', tf.reshape(tf.zeros([2, 8, 8, 16]), [2, -1]).shape)\n"
        "tf.get_variable('b', tf.reshape(tf.placeholder(tf.float32, [None, 7, 7, 64]), [-1, 3136]).shape[1:])\n"
        "tf.get_variable('c', tf.reshape(tf.zeros([2, 3]), [-1]).shape)\n"
        "tf.get_variable('d', [tf.reshape(tf.zeros([2, 3]), [3, -1]).shape[1]])\n",
        "m.py",
    )
    assert [(r.name, r.shape) for r in trace.variables] == [("a", (2, 1024)), ("b", (3136,)), ("c", (6,)), ("d", (2,))]
