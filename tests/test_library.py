"""Pure tests of the library tables (no TensorFlow): the measured examples and the UNKNOWN rules."""
from __future__ import annotations

import pytest

from scopelint.model.layers import (
    LayerNameUids,
    keras_base_name,
    keras_layer_variables,
    layer_base_name,
    layer_output_shape,
    layer_variables,
    resolve_dtype,
)
from scopelint.model.optimizers import optimizer_slots, slot_graph_name, slot_store_key
from scopelint.model.rnn import (
    cell_base_name,
    cell_kind,
    cell_output_size,
    cell_variables,
    rnn_function_scopes,
    shared_cell_depth_conflicts,
    unwrap_cell,
)
from scopelint.model.unknown import UNKNOWN
from scopelint.model.varspec import VarSpec


def names_shapes(specs: list[VarSpec] | None) -> list[tuple[str, tuple | None]]:
    assert specs is not None
    return [(s.name, s.shape) for s in specs]


@pytest.mark.parametrize("name,base", [
    ("dense", "dense"), ("Dense", "dense"), ("conv2d", "conv2d"), ("Conv2D", "conv2d"),
    ("batch_normalization", "batch_normalization"), ("BatchNormalization", "batch_normalization"),
    ("separable_conv2d", "separable_conv2d"), ("SeparableConv2D", "separable_conv2d"),
    ("Conv2DTranspose", "conv2d_transpose"), ("dropout", "dropout"), ("MaxPooling2D", "max_pooling2d"),
])
def test_layer_base_name(name: str, base: str) -> None:
    assert layer_base_name(name) == base


@pytest.mark.parametrize("name,base", [
    ("Conv2D", "conv2d"), ("BatchNormalization", "batch_normalization"), ("LSTM", "lstm"),
    ("PReLU", "p_re_lu"), ("ConvLSTM2D", "conv_lstm2d"), ("_Private", "private__private"),
])
def test_keras_base_name(name: str, base: str) -> None:
    assert keras_base_name(name) == base


@pytest.mark.parametrize("cls,base", [
    ("BasicLSTMCell", "basic_lstm_cell"), ("LSTMCell", "lstm_cell"), ("GRUCell", "gru_cell"),
    ("BasicRNNCell", "basic_rnn_cell"), ("MultiRNNCell", "multi_rnn_cell"),
])
def test_cell_base_name(cls: str, base: str) -> None:
    assert cell_base_name(cls) == base


def test_dense() -> None:
    assert names_shapes(layer_variables("dense", {"units": 7}, (2, 5))) == [("kernel", (5, 7)), ("bias", (7,))]
    assert names_shapes(layer_variables("dense", {"units": 4, "use_bias": False}, (2, 3, 5))) == [("kernel", (5, 4))]
    assert layer_output_shape("dense", {"units": 4}, (2, 3, 5)) == (2, 3, 4)


def test_unknown_values_become_unknown_dims_or_none() -> None:
    assert names_shapes(layer_variables("dense", {"units": UNKNOWN}, (2, 5))) == [("kernel", (5, None)), ("bias", (None,))]
    assert names_shapes(layer_variables("dense", {"units": 3}, None)) == [("kernel", (None, 3)), ("bias", (3,))]
    # A flag that decides which variables exist: the whole answer is unknown.
    assert layer_variables("dense", {"units": 3, "use_bias": UNKNOWN}, (2, 5)) is None
    assert layer_variables("batch_normalization", {"center": UNKNOWN}, (2, 5)) is None
    assert layer_variables("dense", {"units": 3, "trainable": UNKNOWN}, (2, 5)) is None
    assert names_shapes(layer_variables("conv2d", {"filters": 4, "kernel_size": UNKNOWN}, (1, 8, 8, 3))) == [
        ("kernel", (None, None, 3, 4)), ("bias", (4,))]
    assert layer_output_shape("conv2d", {"filters": 4, "kernel_size": 3, "padding": UNKNOWN}, (1, 8, 8, 3)) is None
    assert layer_output_shape("conv2d", {"filters": 4, "kernel_size": 3}, (None, None, 8, 3)) == (None, None, 6, 4)


def test_not_modelled_is_none() -> None:
    assert layer_variables("layer_normalization", {}, (2, 3)) is None  # not in tf.compat.v1.layers
    assert keras_layer_variables("LayerNormalization", {}, (2, 3)) == [VarSpec("gamma", (3,)), VarSpec("beta", (3,))]
    assert layer_variables("my_layer", {}, (2, 3)) is None
    assert layer_variables("dense", {"units": 3}, (5,)) is None  # rank < 2 raises in TensorFlow
    assert layer_variables("batch_normalization", {"virtual_batch_size": 2}, (4, 3)) is None


def test_convolutions() -> None:
    assert names_shapes(layer_variables("conv2d", {"filters": 6, "kernel_size": (3, 2)}, (2, 10, 11, 3))) == [
        ("kernel", (3, 2, 3, 6)), ("bias", (6,))]
    assert names_shapes(layer_variables("conv2d_transpose", {"filters": 4, "kernel_size": 3}, (2, 5, 6, 3))) == [
        ("kernel", (3, 3, 4, 3)), ("bias", (4,))]
    assert names_shapes(layer_variables("separable_conv2d", {"filters": 8, "kernel_size": 3, "depth_multiplier": 2},
                                        (2, 10, 10, 3))) == [
        ("depthwise_kernel", (3, 3, 3, 2)), ("pointwise_kernel", (1, 1, 6, 8)), ("bias", (8,))]
    assert names_shapes(layer_variables("conv2d", {"filters": 6, "kernel_size": 3, "data_format": "channels_first"},
                                        (2, 3, 10, 11)))[0] == ("kernel", (3, 3, 3, 6))
    assert layer_output_shape("conv2d", {"filters": 6, "kernel_size": 3, "data_format": "channels_first",
                                         "dilation_rate": 2}, (2, 3, 10, 11)) == (2, 6, 6, 7)
    assert layer_output_shape("conv2d_transpose", {"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"},
                              (2, 5, 6, 3)) == (2, 10, 12, 4)
    assert layer_output_shape("conv3d_transpose", {"filters": 4, "kernel_size": 3, "strides": (1, 2, 3)},
                              (2, 5, 6, 7, 3)) == (2, 7, 13, 21, 4)
    assert layer_output_shape("conv1d", {"filters": 6, "kernel_size": 3, "padding": "causal", "dilation_rate": 3},
                              (2, 9, 4)) == (2, 9, 6)
    assert layer_output_shape("max_pooling2d", {"pool_size": 2, "strides": 2}, (2, 10, 10, 3)) == (2, 5, 5, 3)
    assert layer_output_shape("flatten", {}, (2, 10, 10, 3)) == (2, 300)
    assert layer_output_shape("flatten", {}, (2, None, 3)) == (2, None)
    assert layer_variables("dropout", {}, (2, 3)) == []


def test_batch_normalization() -> None:
    specs = layer_variables("batch_normalization", {}, (2, 4, 4, 3))
    assert names_shapes(specs) == [("gamma", (3,)), ("beta", (3,)), ("moving_mean", (3,)), ("moving_variance", (3,))]
    assert specs is not None and [s.trainable for s in specs] == [True, True, False, False]
    assert all(s.collections == ("variables",) for s in specs)
    assert names_shapes(layer_variables("batch_normalization", {"axis": 1, "center": False}, (2, 4, 4, 3))) == [
        ("gamma", (4,)), ("moving_mean", (4,)), ("moving_variance", (4,))]
    renorm = layer_variables("batch_normalization", {"renorm": True, "scale": False}, (2, 5))
    assert [s.name for s in renorm or []] == ["beta", "moving_mean", "moving_variance", "moving_stddev",
                                              "renorm_mean", "renorm_stddev"]
    frozen = layer_variables("batch_normalization", {"trainable": False}, (2, 5))
    assert frozen is not None and not any(s.trainable for s in frozen)
    assert resolve_dtype("batch_normalization", frozen[0], "float16") == "float32"
    assert resolve_dtype("dense", VarSpec("kernel", (2, 2)), "float64") == "float64"


def test_keras_only_layers() -> None:
    assert names_shapes(keras_layer_variables("LSTM", {"units": 5}, (2, 3, 4))) == [
        ("lstm_cell/kernel", (4, 20)), ("lstm_cell/recurrent_kernel", (5, 20)), ("lstm_cell/bias", (20,))]
    assert names_shapes(keras_layer_variables("GRU", {"units": 5}, (2, 3, 4)))[-1] == ("gru_cell/bias", (2, 15))
    assert names_shapes(keras_layer_variables("GRU", {"units": 3, "reset_after": False}, (2, 3, 4)))[-1] == (
        "gru_cell/bias", (9,))
    assert names_shapes(keras_layer_variables("Embedding", {"input_dim": 10, "output_dim": 3}, (2, 4))) == [
        ("embeddings", (10, 3))]
    assert names_shapes(keras_layer_variables("DepthwiseConv2D", {"kernel_size": 3, "depth_multiplier": 2},
                                              (2, 6, 6, 3))) == [("depthwise_kernel", (3, 3, 3, 2)), ("bias", (6,))]
    # Measured: Keras trainable=False still lands in TRAINABLE_VARIABLES in v1 graph mode.
    assert all(s.trainable for s in keras_layer_variables("Dense", {"units": 2, "trainable": False}, (2, 4)) or [])


def test_layer_name_uids() -> None:
    uids = LayerNameUids()
    assert [uids.tf_layers_name("dense"), uids.keras_name("dense"), uids.tf_layers_name("dense"),
            uids.keras_name("dense"), uids.keras_name("conv2d")] == ["dense_1", "dense_1", "dense_3", "dense_3",
                                                                     "conv2d"]


def test_lstm_cell() -> None:
    assert names_shapes(cell_variables("LSTMCell", {"num_units": 8}, 5)) == [("kernel", (13, 32)), ("bias", (32,))]
    assert names_shapes(cell_variables("LSTMCell", {"num_units": 8, "use_peepholes": True, "num_proj": 3}, 5)) == [
        ("kernel", (8, 32)), ("bias", (32,)), ("w_f_diag", (8,)), ("w_i_diag", (8,)), ("w_o_diag", (8,)),
        ("projection/kernel", (8, 3))]
    assert cell_variables("LSTMCell", {"num_units": 8, "use_peepholes": UNKNOWN}, 5) is None
    assert cell_variables("LSTMCell", {"num_units": 8, "num_proj": UNKNOWN}, 5) is None
    assert cell_variables("LSTMCell", {"num_units": 8, "num_unit_shards": 2}, 5) is None
    assert names_shapes(cell_variables("LSTMCell", {"num_units": 8}, None)) == [("kernel", (None, 32)), ("bias", (32,))]
    assert cell_output_size("LSTMCell", {"num_units": 8, "num_proj": 3}) == 3


def test_other_cells() -> None:
    assert names_shapes(cell_variables("GRUCell", {"num_units": 8}, 5)) == [
        ("gates/kernel", (13, 16)), ("gates/bias", (16,)), ("candidate/kernel", (13, 8)), ("candidate/bias", (8,))]
    assert names_shapes(cell_variables("BasicLSTMCell", {"num_units": 8}, 5)) == [("kernel", (13, 32)), ("bias", (32,))]
    assert names_shapes(cell_variables("BasicRNNCell", {"num_units": 4}, 5)) == [("kernel", (9, 4)), ("bias", (4,))]
    assert cell_variables("LSTMBlockCell", {"num_units": 4}, 5) is None
    assert cell_variables("DropoutWrapper", {"cell": ("GRUCell", {"num_units": 3})}, 5) is None
    assert cell_kind("DropoutWrapper") == "wrapper" and cell_kind("MultiRNNCell") == "multi"
    assert unwrap_cell(("ResidualWrapper", {"cell": ("DropoutWrapper", {"cell": ("GRUCell", {})})})) == ("GRUCell", {})
    assert unwrap_cell(("DropoutWrapper", {"cell": UNKNOWN})) is None


def test_multi_rnn_cell() -> None:
    config = {"cells": [("LSTMCell", {"num_units": 8}), ("DropoutWrapper", {"cell": ("GRUCell", {"num_units": 4})}),
                        ("LSTMCell", {"num_units": 2, "name": "top"})]}
    assert names_shapes(cell_variables("MultiRNNCell", config, 5)) == [
        ("cell_0/lstm_cell/kernel", (13, 32)), ("cell_0/lstm_cell/bias", (32,)),
        ("cell_1/gru_cell/gates/kernel", (12, 8)), ("cell_1/gru_cell/gates/bias", (8,)),
        ("cell_1/gru_cell/candidate/kernel", (12, 4)), ("cell_1/gru_cell/candidate/bias", (4,)),
        ("cell_2/top/kernel", (6, 8)), ("cell_2/top/bias", (8,))]
    assert cell_output_size("MultiRNNCell", config) == 2
    assert cell_variables("MultiRNNCell", {"cells": UNKNOWN}, 5) is None


def test_multi_rnn_cell_shared_object() -> None:
    cell = ("LSTMCell", {"num_units": 8})
    config = {"cells": [cell, cell]}
    assert [s.name for s in cell_variables("MultiRNNCell", config, 8) or []] == [
        "cell_0/lstm_cell/kernel", "cell_0/lstm_cell/bias"]
    assert shared_cell_depth_conflicts(config, 8) == []
    assert shared_cell_depth_conflicts(config, 5) == [(1, 5, 8)]
    # Equal but distinct objects are distinct cells.
    distinct = {"cells": [("LSTMCell", {"num_units": 8}), ("LSTMCell", {"num_units": 8})]}
    assert len(cell_variables("MultiRNNCell", distinct, 5) or []) == 4
    assert shared_cell_depth_conflicts(distinct, 5) == []


def test_rnn_function_scopes() -> None:
    assert rnn_function_scopes("dynamic_rnn") == ("rnn",)
    assert rnn_function_scopes("dynamic_rnn", "enc") == ("enc",)
    assert rnn_function_scopes("bidirectional_dynamic_rnn") == ("bidirectional_rnn/fw", "bidirectional_rnn/bw")
    assert rnn_function_scopes("static_bidirectional_rnn", "bi") == ("bi/fw", "bi/bw")
    assert rnn_function_scopes("dynamic_rnn", UNKNOWN) is None
    assert rnn_function_scopes("my_rnn") is None


@pytest.mark.parametrize("cls,config,slots", [
    ("GradientDescentOptimizer", {}, ()),
    ("ProximalGradientDescentOptimizer", {}, ()),
    ("MomentumOptimizer", {}, ("Momentum",)),
    ("AdamOptimizer", {}, ("Adam", "Adam")),
    ("AdamOptimizer", {"name": "MyAdam"}, ("MyAdam", "MyAdam")),
    ("AdagradOptimizer", {}, ("Adagrad",)),
    ("RMSPropOptimizer", {}, ("RMSProp", "RMSProp")),
    ("RMSPropOptimizer", {"centered": True}, ("RMSProp", "RMSProp", "RMSProp")),
    ("AdadeltaOptimizer", {}, ("Adadelta", "Adadelta")),
    ("FtrlOptimizer", {}, ("Ftrl", "Ftrl")),
    ("FtrlOptimizer", {"accum_name": "acc", "linear_name": None}, ("acc", "Ftrl")),
    ("ProximalAdagradOptimizer", {}, ("ProximalAdagrad",)),
    ("AdagradDAOptimizer", {}, ("AdagradDA", "AdagradDA")),
    ("ExponentialMovingAverage", {}, ("ExponentialMovingAverage",)),
])
def test_optimizer_slot_scope_names(cls: str, config: dict, slots: tuple[str, ...]) -> None:
    table = optimizer_slots(cls, config)
    assert table is not None and table.slot_scope_names == slots
    assert table.needs_gradient == (cls != "ExponentialMovingAverage")


def test_adam_non_slot() -> None:
    table = optimizer_slots("AdamOptimizer", {})
    assert table is not None and table.non_slot_scope is None
    assert table.non_slot == (VarSpec("beta1_power", (), False, ("variables",), "float32"),
                              VarSpec("beta2_power", (), False, ("variables",), "float32"))
    own = optimizer_slots("AdamOptimizer", {"use_own_namescope_for_non_slot_vars": True, "name": "A"})
    assert own is not None and own.non_slot_scope == "A"
    assert optimizer_slots("MomentumOptimizer", {}).non_slot == ()  # type: ignore[union-attr]


def test_optimizer_unknowns() -> None:
    assert optimizer_slots("AdamOptimizer", {"name": UNKNOWN}) is None
    assert optimizer_slots("AdamOptimizer", {"name": ""}) is None  # TF: "Must specify the optimizer name"
    assert optimizer_slots("RMSPropOptimizer", {"centered": UNKNOWN}) is None
    assert optimizer_slots("FtrlOptimizer", {"linear_name": UNKNOWN}) is None
    assert optimizer_slots("tf.keras.optimizers.Adam", {}) is None
    assert slot_store_key("x/w/Adam") == "x/w/Adam/" and slot_graph_name("x/w/Adam") == "x/w/Adam"


def test_unknown_is_one_sentinel() -> None:
    from scopelint.analysis.values import UNKNOWN as ANALYSIS_UNKNOWN
    from scopelint.model.devices import UNKNOWN as DEVICES_UNKNOWN
    from scopelint.model.unknown import UnknownType

    assert UnknownType() is UNKNOWN and repr(UNKNOWN) == "UNKNOWN"
    assert ANALYSIS_UNKNOWN is UNKNOWN and DEVICES_UNKNOWN is UNKNOWN
