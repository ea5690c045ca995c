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


SLIM_NET = '''\
from tf_slim import layers
from tf_slim.layers import layers as layers_lib
from tf_slim.layers import utils
from tf_slim.ops.arg_scope import arg_scope
from tensorflow.python.ops import variable_scope


def tiny_net(inputs, num_classes=10, scope="tiny_net"):
    with variable_scope.variable_scope(scope, "tiny_net", [inputs]) as sc:
        collection = sc.original_name_scope + "_end_points"
        with arg_scope([layers.conv2d], outputs_collections=[collection]):
            net = layers_lib.repeat(inputs, 2, layers.conv2d, 8, [3, 3], scope="conv1")
            net = layers.conv2d(net, num_classes, [1, 1], scope="logits")
            end_points = utils.convert_collection_to_dict(collection)
            return net, end_points
'''

SLIM_NET_TEST = '''\
import tensorflow.compat.v1 as tf
from tf_slim.nets import tiny
from tensorflow.python.ops import random_ops
from tensorflow.python.ops import variable_scope
from tensorflow.python.platform import test


class TinyTest(test.TestCase):

    def testTrainEvalWithReuse(self):
        with self.cached_session():
            tiny.tiny_net(random_ops.random_uniform((2, 8, 8, 3)))
            %s
            tiny.tiny_net(random_ops.random_uniform((1, 8, 8, 3)))


if __name__ == "__main__":
    test.main()
'''


@pytest.mark.parametrize("between, expected", [
    ("variable_scope.get_variable_scope().reuse_variables()", []),
    ("pass", ["TFS101"]),
])
def test_a_project_holding_tf_slim_nets_runs_their_source(tmp_path, between: str, expected: list[str]) -> None:
    """tf-slim's own tests (or a vendored copy): `from tf_slim.nets import x` runs the project's
    x.py, whose private TF imports (tensorflow.python.ops...) and slim.layers.utils helpers are
    the public API: the second build without reuse collides; with reuse it is silent."""
    from scopelint.engine import CheckSettings, check_source, known_rules

    nets = tmp_path / "tf_slim" / "nets"
    nets.mkdir(parents=True)
    (tmp_path / "tf_slim" / "__init__.py").write_text("")
    (nets / "__init__.py").write_text("")
    (nets / "tiny.py").write_text(SLIM_NET)
    test_file = nets / "tiny_test.py"
    test_file.write_text(SLIM_NET_TEST % between)
    settings = CheckSettings(enabled=frozenset(info.code for info in known_rules()))
    result = check_source(test_file.read_bytes(), str(test_file), settings)
    assert sorted({d.code for d in result.diagnostics}) == expected, [d.message for d in result.diagnostics]


ARG_SCOPE_USER = '''\
import tensorflow.compat.v1 as tf
from tensorflow.contrib.framework.python.ops import add_arg_scope, arg_scope


def get_name(layer, counters):
    if layer not in counters:
        counters[layer] = 0
    name = layer + "_" + str(counters[layer])
    counters[layer] += 1
    return name


@add_arg_scope
def dense(x, units, counters={}):
    with tf.variable_scope(get_name("dense", counters)):
        return tf.matmul(x, tf.get_variable("W", [int(x.get_shape()[1]), units]))


def model(x):
    counters = {}
    with arg_scope([dense], counters=counters):
        return dense(dense(x, 8), 2)


template = tf.make_template("model", model)
x = tf.placeholder(tf.float32, [4, 3])
template(x)
template(x)
'''


@pytest.mark.parametrize("scope_arguments, expected", [
    ("[dense], counters=counters", []),
    ("[dense]", ["TFS102"]),
])
def test_arg_scope_defaults_reach_user_functions_decorated_with_add_arg_scope(scope_arguments: str, expected: list[str]) -> None:
    """pixel-cnn's pattern: arg_scope hands each template call a fresh layer counter; without it the
    function's mutable default counter keeps counting and the second call looks up dense_2
    (TensorFlow 2.21 with tf_slim's add_arg_scope/arg_scope: "Variable model/dense_2/W does not exist")."""
    from scopelint.engine import CheckSettings, check_source, known_rules

    source = ARG_SCOPE_USER.replace("arg_scope([dense], counters=counters)", f"arg_scope({scope_arguments})")
    settings = CheckSettings(enabled=frozenset(info.code for info in known_rules()))
    result = check_source(source.encode(), "model.py", settings)
    assert [d.code for d in result.diagnostics] == expected, [d.message for d in result.diagnostics]
