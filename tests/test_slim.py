"""tf.contrib.slim / tf.contrib.layers / tf_slim spellings all reach the same slim model (the
TensorFlow side of these tables is checked by the lib_slim_* fixtures under the oracle)."""
from __future__ import annotations

import textwrap

import pytest

from scopelint.analysis import analyze_source
from scopelint.model import slim as slimlib

BODY = """
x = tf.placeholder(tf.float32, [2, 8, 8, 3])
with {slim}.arg_scope([{slim}.conv2d], normalizer_fn={slim}.batch_norm):
    net = {slim}.conv2d(x, 4, 3)
net = {layers}.layer_norm(net)
net = {layers}.fully_connected({layers}.flatten(net), 2)
"""
EXPECTED = ["Conv/weights", "Conv/BatchNorm/beta", "Conv/BatchNorm/moving_mean", "Conv/BatchNorm/moving_variance",
            "LayerNorm/beta", "LayerNorm/gamma", "fully_connected/weights", "fully_connected/biases"]

SPELLINGS = {
    "tf_slim": ("import tensorflow.compat.v1 as tf\nimport tf_slim as slim\n", "slim", "slim"),
    "contrib": ("import tensorflow as tf\nslim = tf.contrib.slim\n", "slim", "tf.contrib.layers"),
    "contrib-from": ("import tensorflow as tf\nfrom tensorflow.contrib import slim\n"
                     "from tensorflow.contrib import layers\n", "slim", "layers"),
    "slim-layers": ("import tensorflow.compat.v1 as tf\nimport tf_slim as slim\n", "slim", "slim.layers"),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_spellings_give_tf_slim_names(spelling: str) -> None:
    header, slim, layers = SPELLINGS[spelling]
    source = header + textwrap.dedent(BODY).format(slim=slim, layers=layers)
    trace = analyze_source(source, "model.py")
    assert [r.name for r in trace.final_variables()] == EXPECTED
    assert trace.complete and all(r.certain for r in trace.final_variables())
    shapes = {r.name: r.shape for r in trace.final_variables()}
    assert shapes["fully_connected/weights"] == (256, 2)


def test_unknown_op_in_arg_scope_makes_the_graph_incomplete() -> None:
    source = textwrap.dedent("""
        import tensorflow.compat.v1 as tf
        import tf_slim as slim
        from mystery import op
        with slim.arg_scope([op], reuse=True):
            net = slim.conv2d(tf.zeros([1, 4, 4, 1]), 2, 3)
    """)
    trace = analyze_source(source, "model.py")
    assert not trace.complete


def test_batch_norm_order_follows_the_fused_choice() -> None:
    rank2 = slimlib.op_variables("batch_norm", {"scale": True}, (2, 5))
    rank4 = slimlib.op_variables("batch_norm", {"scale": True}, (2, 4, 4, 5))
    assert rank2 is not None and rank4 is not None
    assert [v.name for v in rank2][:2] == ["beta", "gamma"]
    assert [v.name for v in rank4][:2] == ["gamma", "beta"]
    # An input of unknown rank: the variables are known, their order (beta, gamma) is not.
    unknown = slimlib.op_variables("batch_norm", {"scale": True}, None)
    assert unknown is not None and [v.name for v in unknown] == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert not slimlib.variable_order_known("batch_norm", {"scale": True}, None)
    assert slimlib.variable_order_known("batch_norm", {"scale": True, "updates_collections": None}, None) is False
    assert slimlib.variable_order_known("batch_norm", {}, None)  # no gamma: beta, then the statistics
    assert slimlib.variable_order_known("batch_norm", {"scale": True}, (2, 5))
