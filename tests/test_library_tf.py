"""Differential test: the library tables against real TensorFlow 2.21 (tf.compat.v1 graph mode,
tf-keras with TF_USE_LEGACY_KERAS=1).

The TensorFlow side runs once in a subprocess (`python3 tests/test_library_tf.py --probe`), so
`disable_v2_behavior()` cannot leak into other tests.  Each case builds one construct in a fresh
graph and reports every global variable (name, shape, trainable, dtype), some collections, the
output shape and any error.  The pytest side composes the tables exactly as the interpreter will
(scope prefix + "/" + spec.name) and compares.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Callable

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from scopelint.model.layers import (  # noqa: E402
    TF_LAYERS_POSITIONAL,
    LayerNameUids,
    keras_base_name,
    keras_layer_output_shape,
    keras_layer_variables,
    layer_base_name,
    layer_output_shape,
    layer_variables,
    resolve_dtype,
)
from scopelint.model.optimizers import (  # noqa: E402
    OPTIMIZER_POSITIONAL,
    optimizer_slots,
    slot_store_key,
)
from scopelint.model.rnn import (  # noqa: E402
    CELL_POSITIONAL,
    RNN_FUNCTION_POSITIONAL,
    cell_base_name,
    cell_variables,
    rnn_function_scopes,
    shared_cell_depth_conflicts,
)

# ------------------------------------------------------------------------------------------------
# Layer cases: (function or class, config passed as kwargs, input shape).  Shared by both sides.

TF_LAYER_CASES: list[tuple[str, dict[str, Any], list[int]]] = [
    ("dense", {"units": 7}, [2, 5]),
    ("dense", {"units": 4, "use_bias": False}, [2, 3, 5]),
    ("dense", {"units": 3, "trainable": False}, [2, 5]),
    ("conv1d", {"filters": 6, "kernel_size": 3, "strides": 2, "padding": "same"}, [2, 10, 3]),
    ("conv1d", {"filters": 6, "kernel_size": 3, "dilation_rate": 3, "padding": "causal"}, [2, 9, 4]),
    ("conv2d", {"filters": 6, "kernel_size": [3, 2], "strides": [2, 3], "padding": "valid"}, [2, 10, 11, 3]),
    ("conv2d", {"filters": 6, "kernel_size": 3, "data_format": "channels_first", "dilation_rate": 2}, [2, 3, 10, 11]),
    ("conv2d", {"filters": 6, "kernel_size": 3, "strides": 2, "padding": "SAME"}, [2, 7, 7, 4]),
    ("conv3d", {"filters": 4, "kernel_size": 2, "use_bias": False}, [2, 8, 8, 8, 3]),
    ("conv2d_transpose", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"}, [2, 5, 6, 3]),
    ("conv2d_transpose", {"filters": 4, "kernel_size": [3, 2], "strides": 2}, [2, 5, 6, 3]),
    ("conv2d_transpose", {"filters": 6, "kernel_size": 3, "strides": 2, "padding": "same",
                          "data_format": "channels_first"}, [2, 7, 7, 4]),
    ("conv3d_transpose", {"filters": 4, "kernel_size": 3, "strides": [1, 2, 3]}, [2, 5, 6, 7, 3]),
    ("separable_conv2d", {"filters": 8, "kernel_size": 3, "depth_multiplier": 2}, [2, 10, 10, 3]),
    ("separable_conv2d", {"filters": 6, "kernel_size": 3, "strides": 2, "data_format": "channels_first"}, [2, 4, 9, 9]),
    ("separable_conv1d", {"filters": 8, "kernel_size": 3, "padding": "same", "strides": 2}, [2, 10, 3]),
    ("batch_normalization", {}, [2, 4, 4, 3]),
    ("batch_normalization", {"axis": 1, "center": False, "training": True}, [2, 4, 4, 3]),
    ("batch_normalization", {"scale": False, "fused": False}, [2, 4, 4, 3]),
    ("batch_normalization", {"center": False, "scale": False}, [2, 5]),
    ("batch_normalization", {"renorm": True}, [2, 5]),
    ("batch_normalization", {"trainable": False}, [2, 5]),
    ("dropout", {"rate": 0.5}, [2, 4, 3]),
    ("flatten", {}, [2, 10, 10, 3]),
    ("max_pooling2d", {"pool_size": 2, "strides": 2}, [2, 10, 10, 3]),
    ("average_pooling2d", {"pool_size": 3, "strides": 2, "padding": "same"}, [2, 10, 10, 3]),
    ("max_pooling1d", {"pool_size": 2, "strides": 2}, [2, 9, 3]),
    ("average_pooling3d", {"pool_size": 2, "strides": [1, 2, 2]}, [2, 5, 6, 7, 3]),
    # Class forms: same tables, scope from the class name.
    ("Dense", {"units": 2}, [2, 5]),
    ("Conv2D", {"filters": 3, "kernel_size": 2}, [2, 5, 5, 3]),
    ("BatchNormalization", {"center": False}, [2, 5]),
    ("SeparableConv1D", {"filters": 3, "kernel_size": 2, "depth_multiplier": 3}, [2, 5, 4]),
    ("Conv2DTranspose", {"filters": 3, "kernel_size": 2}, [2, 5, 5, 3]),
]

KERAS_LAYER_CASES: list[tuple[str, dict[str, Any], list[int]]] = [
    ("Dense", {"units": 3, "use_bias": False}, [2, 6, 4]),
    ("Dense", {"units": 2, "trainable": False}, [2, 4]),
    ("BatchNormalization", {"trainable": False, "scale": False}, [2, 4]),
    ("Conv2D", {"filters": 4, "kernel_size": 3}, [2, 6, 6, 3]),
    ("Conv1D", {"filters": 4, "kernel_size": 2, "groups": 2}, [2, 6, 4]),
    ("Conv2DTranspose", {"filters": 4, "kernel_size": 3, "strides": 2, "output_padding": 1}, [2, 5, 5, 3]),
    ("Conv1DTranspose", {"filters": 4, "kernel_size": 3, "strides": 2}, [2, 5, 3]),
    ("SeparableConv2D", {"filters": 4, "kernel_size": 3}, [2, 6, 6, 3]),
    ("DepthwiseConv2D", {"kernel_size": 3, "depth_multiplier": 2}, [2, 6, 6, 3]),
    ("BatchNormalization", {}, [2, 6, 6, 3]),
    ("BatchNormalization", {"axis": 1}, [2, 6, 4]),
    ("BatchNormalization", {"axis": [1, 2]}, [2, 6, 4, 3]),
    ("LayerNormalization", {}, [2, 6, 6, 3]),
    ("LayerNormalization", {"axis": [1, 2], "center": False}, [2, 6, 4]),
    ("PReLU", {}, [2, 6, 4]),
    ("PReLU", {"shared_axes": [1]}, [2, 6, 4]),
    ("Embedding", {"input_dim": 10, "output_dim": 3}, [2, 4]),
    ("LSTM", {"units": 5}, [2, 3, 4]),
    ("GRU", {"units": 5}, [2, 3, 4]),
    ("GRU", {"units": 3, "reset_after": False, "return_sequences": True}, [2, 3, 4]),
    ("SimpleRNN", {"units": 5, "return_sequences": True}, [2, 3, 4]),
    ("MaxPooling2D", {"pool_size": 2}, [2, 6, 6, 3]),
    ("Flatten", {}, [2, 6, 4]),
]

SNAKE_NAMES = ["Conv2D", "BatchNormalization", "LSTM", "GRU", "SimpleRNN", "Conv2DTranspose",
               "SeparableConv2D", "LayerNormalization", "PReLU", "LSTMCell", "MultiRNNCell",
               "BasicLSTMCell", "GRUCell", "BasicRNNCell", "DepthwiseConv2D", "ReLU",
               "GlobalAveragePooling2D", "MaxPool2D", "UpSampling2D", "ConvLSTM2D", "Dense",
               "_Private", "dense", "conv2d_transpose", "EinsumDense"]


# ------------------------------------------------------------------------------------------------
# The TensorFlow side (only runs in the --probe subprocess).

def _probe() -> dict[str, Any]:
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import inspect
    import warnings

    warnings.filterwarnings("ignore")
    import tensorflow.compat.v1 as tf
    import tf_keras as keras
    from tf_keras.src.utils import generic_utils

    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
    L = tf.layers
    rnn = tf.nn.rnn_cell
    T = tf.train

    def x(*shape: int, dtype: Any = None) -> Any:
        return tf.zeros(shape, dtype=dtype or tf.float32)

    cases: dict[str, Callable[[], Any]] = {}

    for i, (layer, config, shape) in enumerate(TF_LAYER_CASES):
        def build(layer: str = layer, config: dict = config, shape: list = shape) -> Any:
            if layer[0].isupper():
                return getattr(L, layer)(**config)(x(*shape)).shape.as_list()
            return getattr(L, layer)(x(*shape), **config).shape.as_list()
        cases[f"tf_layer_{i}"] = build
    for i, (layer, config, shape) in enumerate(KERAS_LAYER_CASES):
        def build(layer: str = layer, config: dict = config, shape: list = shape) -> Any:
            inp = tf.zeros(shape, tf.int32) if layer == "Embedding" else x(*shape)
            return getattr(keras.layers, layer)(**config)(inp).shape.as_list()
        cases[f"keras_layer_{i}"] = build

    def bn_half() -> None:
        L.batch_normalization(x(2, 5, dtype=tf.float16))
        L.dense(x(2, 5, dtype=tf.float64), 3)
    cases["layer_dtypes"] = bn_half

    def uids() -> Any:
        names = [L.Dense(3).name, keras.layers.Dense(3).name, L.Dense(3).name]
        inp = x(2, 5)
        with tf.variable_scope("ks"):
            keras.layers.Dense(4)(inp)
            L.dense(inp, 2)
        with tf.name_scope("kns"):
            keras.layers.Dense(4)(inp)
        return names
    cases["layer_uids"] = uids

    # RNN ---------------------------------------------------------------------------------------
    def seq(depth: int = 5, dtype: Any = None) -> Any:
        return x(2, 3, depth, dtype=dtype)

    cases["rnn_lstm"] = lambda: tf.nn.dynamic_rnn(rnn.LSTMCell(8), seq(), dtype=tf.float32) and None
    cases["rnn_gru_f64"] = lambda: tf.nn.dynamic_rnn(rnn.GRUCell(8), seq(dtype=tf.float64), dtype=tf.float64) and None
    cases["rnn_basic"] = lambda: (tf.nn.dynamic_rnn(rnn.BasicLSTMCell(8), seq(), dtype=tf.float32),
                                  tf.nn.dynamic_rnn(rnn.BasicRNNCell(4), seq(), dtype=tf.float32)) and None
    cases["rnn_peep_proj"] = lambda: tf.nn.dynamic_rnn(
        rnn.LSTMCell(8, use_peepholes=True, num_proj=3), seq(), dtype=tf.float32) and None
    cases["rnn_named"] = lambda: tf.nn.dynamic_rnn(rnn.LSTMCell(8, name="mycell"), seq(), dtype=tf.float32,
                                                   scope="enc") and None

    def multi() -> None:
        cell = rnn.MultiRNNCell([rnn.LSTMCell(8), rnn.DropoutWrapper(rnn.GRUCell(4)),
                                 rnn.MultiRNNCell([rnn.BasicRNNCell(2)])])
        tf.nn.dynamic_rnn(cell, seq(), dtype=tf.float32)
    cases["rnn_multi"] = multi

    def bidi() -> None:
        tf.nn.bidirectional_dynamic_rnn(rnn.LSTMCell(8), rnn.GRUCell(4), seq(), dtype=tf.float32)
        tf.nn.static_bidirectional_rnn(rnn.LSTMCell(2), rnn.LSTMCell(3), tf.unstack(seq(), axis=1),
                                       dtype=tf.float32, scope="bi")
        tf.nn.static_rnn(rnn.GRUCell(2), tf.unstack(seq(), axis=1), dtype=tf.float32)
    cases["rnn_bidi_static"] = bidi

    def same_cell_same_depth() -> None:
        c = rnn.LSTMCell(8)
        tf.nn.dynamic_rnn(rnn.MultiRNNCell([c] * 2), seq(8), dtype=tf.float32)
    cases["rnn_shared_ok"] = same_cell_same_depth

    def same_cell_other_depth() -> None:
        c = rnn.LSTMCell(8)
        tf.nn.dynamic_rnn(rnn.MultiRNNCell([c] * 2), seq(5), dtype=tf.float32)
    cases["rnn_shared_bad"] = same_cell_other_depth

    def same_cell_two_scopes() -> None:
        c = rnn.LSTMCell(8)
        tf.nn.dynamic_rnn(c, seq(), dtype=tf.float32, scope="a")
        tf.nn.dynamic_rnn(c, seq(), dtype=tf.float32, scope="b")
    cases["rnn_same_cell_two_scopes"] = same_cell_two_scopes

    def two_default() -> None:
        tf.nn.dynamic_rnn(rnn.LSTMCell(8), seq(), dtype=tf.float32)
        tf.nn.dynamic_rnn(rnn.LSTMCell(8), seq(), dtype=tf.float32)
    cases["rnn_two_default_scopes"] = two_default

    def two_multi_direct() -> None:
        for _ in range(2):
            m = rnn.MultiRNNCell([rnn.GRUCell(3)])
            m(x(2, 5), m.zero_state(2, tf.float32))
    cases["rnn_two_multi_direct"] = two_multi_direct

    # Optimizers ----------------------------------------------------------------------------------
    def opt_case(make: Callable[[], Any]) -> Callable[[], None]:
        def build() -> None:
            w = tf.get_variable("w", [3])
            b = tf.get_variable("b", [2])
            tf.get_variable("u", [1])  # trainable, not connected: no slot
            nt = tf.get_variable("nt", [1], trainable=False)
            make().minimize(tf.reduce_sum(w) + tf.reduce_sum(b) + tf.reduce_sum(nt))
        return build

    for cls, kwargs in OPTIMIZER_CASES:
        cases[f"opt_{cls}_{json.dumps(kwargs, sort_keys=True)}"] = opt_case(
            lambda cls=cls, kwargs=kwargs: getattr(T, cls)(**kwargs))

    def adam_scopes() -> None:
        w = tf.get_variable("w", [3])
        with tf.variable_scope("m"):
            mw = tf.get_variable("w", [3], dtype=tf.float64)
        p = tf.get_variable("p", [10, 2], partitioner=tf.fixed_size_partitioner(3))
        with tf.variable_scope("train"):
            T.AdamOptimizer().minimize(tf.reduce_sum(w))
        with tf.name_scope("ns"):
            T.AdamOptimizer().minimize(tf.reduce_sum(w) + tf.reduce_sum(p))
        T.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(mw), var_list=[mw])
    cases["opt_scopes"] = adam_scopes

    def adam_reuse() -> None:
        w = tf.get_variable("w", [3])
        with tf.variable_scope("x"):
            pass
        with tf.variable_scope("x", reuse=True):
            T.AdamOptimizer().minimize(tf.reduce_sum(w))
    cases["opt_reuse_error"] = adam_reuse

    def adam_own() -> None:
        w = tf.get_variable("w", [3])
        with tf.variable_scope("c"):
            o = T.AdamOptimizer(use_own_namescope_for_non_slot_vars=True)
        o.minimize(tf.reduce_sum(w))
    cases["opt_own_namescope"] = adam_own

    def var_list_order() -> None:
        a = tf.get_variable("zz", [3])
        b = tf.get_variable("aa", [2])
        c = tf.get_variable("mm", [1])
        T.AdamOptimizer().minimize(tf.reduce_sum(a) + tf.reduce_sum(b) + tf.reduce_sum(c), var_list=[c, a, b])
    cases["opt_var_list_order"] = var_list_order

    def ema() -> None:
        w = tf.get_variable("w", [3])
        tf.get_variable("nt", [3], trainable=False)
        with tf.variable_scope("s"):
            tf.get_variable("b", [2])
        T.ExponentialMovingAverage(0.9).apply()
        with tf.variable_scope("q"):
            T.ExponentialMovingAverage(0.9, name="EMA").apply([w])
        T.ExponentialMovingAverage(0.5).apply([w])
    cases["ema"] = ema

    results: dict[str, Any] = {}
    for name, build in cases.items():
        graph = tf.Graph()
        with graph.as_default():
            record: dict[str, Any] = {"error": None, "out": None}
            try:
                record["out"] = build()
            except Exception as exc:  # the error message is part of what is compared
                record["error"] = f"{type(exc).__name__}: {exc}"
            trainable = {id(v) for v in tf.trainable_variables()}
            record["vars"] = [
                [v.op.name, v.shape.as_list(), id(v) in trainable, v.dtype.base_dtype.name]
                for v in tf.global_variables()
            ]
            record["collections"] = {
                key: [getattr(v, "op", v).name for v in graph.get_collection(key)]
                for key in ("moving_average_variables", "local_variables")
            }
            results[name] = record

    def params(fn: Any, skip: int = 0) -> list[str]:
        return list(inspect.signature(fn).parameters)[skip:]

    signatures = {
        "layers": {n: params(getattr(L, n), 1) for n in TF_LAYERS_POSITIONAL},
        "cells": {n: params(getattr(rnn, n)) for n in CELL_POSITIONAL},
        "optimizers": {n: params(getattr(T, n)) for n in OPTIMIZER_POSITIONAL},
        "rnn": {n: params(getattr(tf.nn, n)) for n in RNN_FUNCTION_POSITIONAL},
        "rnn_cell_names": sorted(n for n in dir(rnn) if not n.startswith("_")),
    }
    snake = {n: generic_utils.to_snake_case(n) for n in SNAKE_NAMES}
    return {"cases": results, "signatures": signatures, "snake": snake}


OPTIMIZER_CASES: list[tuple[str, dict[str, Any]]] = [
    ("GradientDescentOptimizer", {"learning_rate": 0.1}),
    ("MomentumOptimizer", {"learning_rate": 0.1, "momentum": 0.9}),
    ("AdamOptimizer", {}),
    ("AdamOptimizer", {"name": "MyAdam"}),
    ("AdagradOptimizer", {"learning_rate": 0.1}),
    ("RMSPropOptimizer", {"learning_rate": 0.1}),
    ("RMSPropOptimizer", {"learning_rate": 0.1, "centered": True, "momentum": 0.0}),
    ("AdadeltaOptimizer", {}),
    ("FtrlOptimizer", {"learning_rate": 0.1}),
    ("FtrlOptimizer", {"learning_rate": 0.1, "accum_name": "acc", "linear_name": "lin"}),
    ("ProximalAdagradOptimizer", {"learning_rate": 0.1}),
    ("ProximalGradientDescentOptimizer", {"learning_rate": 0.1}),
]


# ------------------------------------------------------------------------------------------------
# The prediction side.

Var = tuple[str, list[int | None] | None, bool, str]


@pytest.fixture(scope="module")
def observed() -> dict[str, Any]:
    pytest.importorskip("tensorflow")
    pytest.importorskip("tf_keras")
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--probe"], capture_output=True,
                          text=True, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def composed(prefix: str, specs: list[Any], layer: str = "", layer_dtype: str = "float32") -> list[Var]:
    """What the interpreter will record: scope prefix + "/" + spec.name, in order."""
    return [(f"{prefix}/{s.name}", None if s.shape is None else list(s.shape), s.trainable,
             resolve_dtype(layer, s, layer_dtype)) for s in specs]


def as_vars(record: dict[str, Any]) -> list[Var]:
    return [(n, shape, trainable, dtype) for n, shape, trainable, dtype in record["vars"]]


def config_without(config: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k not in keys}


@pytest.mark.parametrize("index", range(len(TF_LAYER_CASES)))
def test_tf_layers(observed: dict[str, Any], index: int) -> None:
    layer, config, shape = TF_LAYER_CASES[index]
    record = observed["cases"][f"tf_layer_{index}"]
    assert record["error"] is None
    specs = layer_variables(layer, config, tuple(shape))
    assert specs is not None
    assert as_vars(record) == composed(layer_base_name(layer), specs, layer)
    assert tuple(record["out"]) == layer_output_shape(layer, config, tuple(shape))


@pytest.mark.parametrize("index", range(len(KERAS_LAYER_CASES)))
def test_keras_layers(observed: dict[str, Any], index: int) -> None:
    layer, config, shape = KERAS_LAYER_CASES[index]
    record = observed["cases"][f"keras_layer_{index}"]
    assert record["error"] is None
    specs = keras_layer_variables(layer, config, tuple(shape))
    assert specs is not None
    # A fresh graph: the first Keras layer of a class is named keras_base_name(class).
    assert as_vars(record) == composed(keras_base_name(layer), specs, layer)
    assert tuple(record["out"]) == keras_layer_output_shape(layer, config, tuple(shape))


def test_layer_dtypes(observed: dict[str, Any]) -> None:
    record = observed["cases"]["layer_dtypes"]
    expected = composed("batch_normalization", layer_variables("batch_normalization", {}, (2, 5)),
                        "batch_normalization", "float16")
    expected += composed("dense", layer_variables("dense", {"units": 3}, (2, 5)), "dense", "float64")
    assert as_vars(record) == expected


def test_layer_name_uids_shared_between_keras_and_tf_layers(observed: dict[str, Any]) -> None:
    record = observed["cases"]["layer_uids"]
    uids = LayerNameUids()
    names = [uids.tf_layers_name("dense"), uids.keras_name("dense"), uids.tf_layers_name("dense")]
    assert record["out"] == names == ["dense_1", "dense_1", "dense_3"]
    ks_keras = uids.keras_name("dense")
    uids.tf_layers_name("dense")  # the functional tf.layers.dense constructs a Dense: takes a number
    kns_keras = uids.keras_name("dense")
    dense = layer_variables("dense", {"units": 2}, (2, 5))
    keras_dense = keras_layer_variables("Dense", {"units": 4}, (2, 5))
    expected = (composed(f"ks/{ks_keras}", keras_dense) + composed("ks/dense", dense)
                + composed(f"kns/{kns_keras}", keras_dense))
    assert as_vars(record) == expected


def cell_vars(scope: str, cell_class: str, config: dict[str, Any], depth: int, dtype: str = "float32",
              name: str | None = None) -> list[Var]:
    specs = cell_variables(cell_class, config, depth)
    assert specs is not None
    return composed(f"{scope}/{name or cell_base_name(cell_class)}", specs, cell_class, dtype)


def test_rnn_single_cells(observed: dict[str, Any]) -> None:
    (rnn_scope,) = rnn_function_scopes("dynamic_rnn")
    cases = observed["cases"]
    assert as_vars(cases["rnn_lstm"]) == cell_vars(rnn_scope, "LSTMCell", {"num_units": 8}, 5)
    assert as_vars(cases["rnn_gru_f64"]) == cell_vars(rnn_scope, "GRUCell", {"num_units": 8}, 5, "float64")
    assert as_vars(cases["rnn_basic"]) == (cell_vars(rnn_scope, "BasicLSTMCell", {"num_units": 8}, 5)
                                           + cell_vars(rnn_scope, "BasicRNNCell", {"num_units": 4}, 5))
    peep = {"num_units": 8, "use_peepholes": True, "num_proj": 3}
    assert as_vars(cases["rnn_peep_proj"]) == cell_vars(rnn_scope, "LSTMCell", peep, 5)
    (enc,) = rnn_function_scopes("dynamic_rnn", "enc")
    assert as_vars(cases["rnn_named"]) == cell_vars(enc, "LSTMCell", {"num_units": 8, "name": "mycell"}, 5,
                                                    name="mycell")


def test_rnn_multi_and_wrappers(observed: dict[str, Any]) -> None:
    (rnn_scope,) = rnn_function_scopes("dynamic_rnn")
    config = {"cells": [("LSTMCell", {"num_units": 8}),
                        ("DropoutWrapper", {"cell": ("GRUCell", {"num_units": 4})}),
                        ("MultiRNNCell", {"cells": [("BasicRNNCell", {"num_units": 2})]})]}
    expected = cell_vars(rnn_scope, "MultiRNNCell", config, 5)
    assert as_vars(observed["cases"]["rnn_multi"]) == expected
    assert "rnn/multi_rnn_cell/cell_2/multi_rnn_cell/cell_0/basic_rnn_cell/kernel" in [v[0] for v in expected]


def test_rnn_bidirectional_and_static(observed: dict[str, Any]) -> None:
    fw, bw = rnn_function_scopes("bidirectional_dynamic_rnn")
    sfw, sbw = rnn_function_scopes("static_bidirectional_rnn", "bi")
    (static,) = rnn_function_scopes("static_rnn")
    expected = (cell_vars(fw, "LSTMCell", {"num_units": 8}, 5) + cell_vars(bw, "GRUCell", {"num_units": 4}, 5)
                + cell_vars(sfw, "LSTMCell", {"num_units": 2}, 5) + cell_vars(sbw, "LSTMCell", {"num_units": 3}, 5)
                + cell_vars(static, "GRUCell", {"num_units": 2}, 5))
    assert as_vars(observed["cases"]["rnn_bidi_static"]) == expected
    assert (fw, sbw) == ("bidirectional_rnn/fw", "bi/bw")


def test_rnn_shared_cell_objects(observed: dict[str, Any]) -> None:
    cases = observed["cases"]
    cell = ("LSTMCell", {"num_units": 8})
    config = {"cells": [cell, cell]}
    # Same depth: silently shared, only cell_0 exists.
    assert cases["rnn_shared_ok"]["error"] is None
    assert shared_cell_depth_conflicts(config, 8) == []
    assert as_vars(cases["rnn_shared_ok"]) == cell_vars("rnn", "MultiRNNCell", config, 8)
    # Other depth: TensorFlow's MatMul error, rows = depth + units.
    ((index, built, new),) = shared_cell_depth_conflicts(config, 5)
    assert (index, built, new) == (1, 5, 8)
    error = cases["rnn_shared_bad"]["error"]
    assert error.startswith(f"ValueError: Dimensions must be equal, but are {new + 8} and {built + 8}")
    assert as_vars(cases["rnn_shared_bad"]) == cell_vars("rnn", "MultiRNNCell", config, 5)
    # One cell object in two dynamic_rnn scopes: variables only in the first.
    assert cases["rnn_same_cell_two_scopes"]["error"] is None
    assert as_vars(cases["rnn_same_cell_two_scopes"]) == cell_vars("a", "LSTMCell", cell[1], 5)


def test_rnn_scope_collisions(observed: dict[str, Any]) -> None:
    cases = observed["cases"]
    assert cases["rnn_two_default_scopes"]["error"].startswith(
        "ValueError: Variable rnn/lstm_cell/kernel already exists, disallowed.")
    assert cases["rnn_two_multi_direct"]["error"].startswith(
        "ValueError: Variable multi_rnn_cell/cell_0/gru_cell/gates/kernel already exists, disallowed.")


def uniquified(names: tuple[str, ...]) -> list[str]:
    """The default-name counter for scopes opened one after another in one var scope."""
    counts: dict[str, int] = {}
    out = []
    for name in names:
        n = counts.get(name, 0)
        counts[name] = n + 1
        out.append(f"{name}_{n}" if n else name)
    return out


def slot_vars(prefix: str, primaries: list[tuple[str, list[int], str]], slots: tuple[str, ...],
              counts: dict[str, int] | None = None) -> list[Var]:
    counts = {} if counts is None else counts
    out: list[Var] = []
    for primary, shape, dtype in primaries:
        for slot in slots:
            key = f"{prefix}{primary}/{slot}"
            n = counts.get(key, 0)
            counts[key] = n + 1
            out.append((f"{key}_{n}" if n else key, shape, False, dtype))
    return out


def non_slot_vars(prefix: str, table: Any) -> list[Var]:
    return [(prefix + s.name, list(s.shape), s.trainable, s.dtype) for s in table.non_slot]


PRIMARIES = [("w", [3], "float32"), ("b", [2], "float32")]
BASE_VARS: list[Var] = [("w", [3], True, "float32"), ("b", [2], True, "float32"),
                        ("u", [1], True, "float32"), ("nt", [1], False, "float32")]


@pytest.mark.parametrize("cls,kwargs", OPTIMIZER_CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(OPTIMIZER_CASES)])
def test_optimizer_slots(observed: dict[str, Any], cls: str, kwargs: dict[str, Any]) -> None:
    record = observed["cases"][f"opt_{cls}_{json.dumps(kwargs, sort_keys=True)}"]
    assert record["error"] is None
    table = optimizer_slots(cls, config_without(kwargs, "learning_rate"))
    assert table is not None and table.non_slot_scope is None
    expected = BASE_VARS + non_slot_vars("", table) + slot_vars("", PRIMARIES, table.slot_scope_names)
    assert as_vars(record) == expected


def test_optimizer_scopes_partitions_dtypes(observed: dict[str, Any]) -> None:
    adam = optimizer_slots("AdamOptimizer", {})
    momentum = optimizer_slots("MomentumOptimizer", {})
    assert adam is not None and momentum is not None
    parts = [(f"p/part_{i}", [n, 2], "float32") for i, n in enumerate([4, 3, 3])]
    counts: dict[str, int] = {}
    expected = [("w", [3], True, "float32"), ("m/w", [3], True, "float64")]
    expected += [(f"p/part_{i}", [n, 2], True, "float32") for i, n in enumerate([4, 3, 3])]
    # In variable_scope('train'): name scope train/ for the non-slot tf.Variables, var scope for slots.
    expected += non_slot_vars("train/", adam) + slot_vars("train/", [PRIMARIES[0]], adam.slot_scope_names, counts)
    # In name_scope('ns'): only the non-slot tf.Variables move; slots are at the root var scope.
    expected += non_slot_vars("ns/", adam)
    expected += slot_vars("", [PRIMARIES[0], *parts], adam.slot_scope_names, counts)
    expected += slot_vars("", [("m/w", [3], "float64")], momentum.slot_scope_names, counts)
    assert as_vars(observed["cases"]["opt_scopes"]) == expected


def test_optimizer_under_reuse_raises_with_slot_store_key(observed: dict[str, Any]) -> None:
    record = observed["cases"]["opt_reuse_error"]
    adam = optimizer_slots("AdamOptimizer", {})
    assert adam is not None
    key = slot_store_key("x/w/" + uniquified(adam.slot_scope_names)[0])
    assert key == "x/w/Adam/"
    assert record["error"] == (f"ValueError: Variable {key} does not exist, or was not created with "
                               "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
    # The non-slot tf.Variables were already created, in the re-entered name scope x_1/.
    assert [v[0] for v in as_vars(record)] == ["w", "x_1/beta1_power", "x_1/beta2_power"]


def test_optimizer_own_namescope(observed: dict[str, Any]) -> None:
    table = optimizer_slots("AdamOptimizer", {"use_own_namescope_for_non_slot_vars": True})
    assert table is not None and table.non_slot_scope == "Adam"
    expected = [("w", [3], True, "float32")] + non_slot_vars(f"c/{table.non_slot_scope}/", table)
    expected += slot_vars("", [PRIMARIES[0]], table.slot_scope_names)
    assert as_vars(observed["cases"]["opt_own_namescope"]) == expected


def test_optimizer_var_list_order(observed: dict[str, Any]) -> None:
    adam = optimizer_slots("AdamOptimizer", {})
    primaries = [("mm", [1], "float32"), ("zz", [3], "float32"), ("aa", [2], "float32")]
    expected = [("zz", [3], True, "float32"), ("aa", [2], True, "float32"), ("mm", [1], True, "float32")]
    expected += non_slot_vars("", adam) + slot_vars("", primaries, adam.slot_scope_names)
    assert as_vars(observed["cases"]["opt_var_list_order"]) == expected


def test_exponential_moving_average(observed: dict[str, Any]) -> None:
    record = observed["cases"]["ema"]
    default = optimizer_slots("ExponentialMovingAverage", {})
    named = optimizer_slots("ExponentialMovingAverage", {"name": "EMA"})
    assert default is not None and named is not None and not default.needs_gradient
    counts: dict[str, int] = {}
    expected = [("w", [3], True, "float32"), ("nt", [3], False, "float32"), ("s/b", [2], True, "float32")]
    expected += slot_vars("", [("w", [3], "float32"), ("s/b", [2], "float32")], default.slot_scope_names, counts)
    expected += slot_vars("q/", [("w", [3], "float32")], named.slot_scope_names, counts)
    expected += slot_vars("", [("w", [3], "float32")], default.slot_scope_names, counts)
    assert as_vars(record) == expected
    assert expected[-1][0] == "w/ExponentialMovingAverage_1"
    assert record["collections"]["moving_average_variables"] == ["w", "s/b", "w", "w"]


def test_positional_tables_are_prefixes_of_real_signatures(observed: dict[str, Any]) -> None:
    signatures = observed["signatures"]
    tables = {"layers": TF_LAYERS_POSITIONAL, "cells": CELL_POSITIONAL,
              "optimizers": OPTIMIZER_POSITIONAL, "rnn": RNN_FUNCTION_POSITIONAL}
    for group, table in tables.items():
        for name, params in table.items():
            assert tuple(signatures[group][name][: len(params)]) == params, (group, name)
    assert "LSTMBlockCell" not in signatures["rnn_cell_names"]


def test_snake_case_matches_keras(observed: dict[str, Any]) -> None:
    assert {n: keras_base_name(n) for n in SNAKE_NAMES} == observed["snake"]


if __name__ == "__main__" and sys.argv[1:] == ["--probe"]:
    print(json.dumps(_probe()))
