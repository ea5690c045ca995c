"""Which `initializer=` values TensorFlow must call with the shape (TFS107 without a full shape).

Checked under TensorFlow (tf.compat.v1, graph mode): initializer objects and classes
(`tf.zeros_initializer()`, `tf.zeros_initializer`, `tf.keras.initializers.Zeros()`) and functions
with required parameters raise "The initializer passed is not valid" without a fully defined
shape; constants, tensors and no-argument lambdas do not.  The fixtures
tests/fixtures/rules/tfs107_bad_initializer_* run the same cases under TensorFlow.
"""
from __future__ import annotations

import textwrap

import pytest

from scopelint.analysis import analyze_source

PRELUDE = textwrap.dedent("""\
    import json
    import tensorflow.compat.v1 as tf

    def with_shape(shape, dtype=None, partition_info=None):
        return tf.zeros(shape, dtype)

    def no_arguments(scale=1.0):
        return tf.zeros([2]) * scale
    """)


def invalid_initializer_certain(body: str) -> list[bool]:
    trace = analyze_source(PRELUDE + textwrap.dedent(body), "m.py")
    return [e.certain for e in trace.events if e.message.startswith("The initializer passed is not valid")]


@pytest.mark.parametrize("initializer, raises", [
    ("tf.zeros_initializer()", True),
    ("tf.zeros_initializer", True),
    ("tf.truncated_normal_initializer(stddev=0.02)", True),
    ("tf.keras.initializers.Zeros()", True),
    ("with_shape", True),
    ("no_arguments", False),
    ("lambda: tf.zeros([2])", False),
    ("tf.constant([1.0, 2.0])", False),
    ("[1.0, 2.0]", False),
])
def test_initializer_without_shape(initializer: str, raises: bool) -> None:
    assert invalid_initializer_certain(f'v = tf.get_variable("v", initializer={initializer})\n') == (
        [True] if raises else [])


def test_partial_shape_is_not_certain() -> None:
    # TensorFlow raises on a literal None dimension too, but the analysis's shapes hold None for
    # dimensions it did not compute (`param.shape.as_list()`): not proven.
    assert invalid_initializer_certain('v = tf.get_variable("v", [None, 2], initializer=tf.zeros_initializer())\n') == [
        False]


def test_full_shape_is_accepted() -> None:
    assert invalid_initializer_certain('v = tf.get_variable("v", [2], initializer=tf.zeros_initializer())\n') == []


def test_attributes_written_through_dict_at_unknown_keys_are_unknown() -> None:
    # A config class filled from a JSON file through `__dict__` (BERT-style from_dict): its
    # `vocab_size=None` default is not the value the run uses.
    assert invalid_initializer_certain("""\
        class Config(object):
            def __init__(self, size=None):
                self.size = size

        config = Config()  # size=None: no shape
        for key, value in json.load(open("config.json")).items():
            config.__dict__[key] = value
        v = tf.get_variable("v", config.size, initializer=tf.zeros_initializer())
        """) == []


def test_attribute_written_through_dict_at_a_known_key() -> None:
    assert invalid_initializer_certain("""\
        class Config(object):
            def __init__(self):
                self.size = [2]

        config = Config()
        config.__dict__["size"] = None
        v = tf.get_variable("v", config.size, initializer=tf.zeros_initializer())
        """) == [True]
