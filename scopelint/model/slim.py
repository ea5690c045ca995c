"""What `tf.contrib.slim` / `tf.contrib.layers` (today's `tf_slim`) layers create and output.

Pure tables: no LibCST, no TensorFlow.  Measured on tf_slim 1.1 under TensorFlow 2.21 in
`tf.compat.v1` graph mode (tests/test_slim_tf.py re-checks every case):

- Every variable-creating op opens `variable_scope(scope, <DEFAULT_SCOPES[op]>, reuse=reuse)` in the
  current var scope and creates its variables with get_variable there, in `op_variables` order:
  `slim.conv2d(x[2,8,8,3], 4, 3)` -> `Conv/weights` [3, 3, 3, 4], `Conv/biases` [4]; the next
  unnamed one -> `Conv_1/...`.  Weights, biases, beta, gamma and the moving statistics are all in
  MODEL_VARIABLES; the moving statistics are not trainable.
- A `normalizer_fn` runs inside the layer's scope instead of the biases:
  `conv2d(..., normalizer_fn=batch_norm)` -> `Conv/weights`, `Conv/BatchNorm/...`.
- batch_norm: `scale=False` by default (no gamma).  Rank-2 inputs (or zero_debias_moving_mean, or
  updates_collections other than UPDATE_OPS) take the fused path, which creates beta before gamma;
  otherwise the core layer creates gamma before beta.
- `repeat(x, n, layer, ..., scope=s)` / `stack(x, layer, [args...], scope=s)`: `variable_scope(s,
  'Repeat' | 'Stack')`, then each call with `scope=f"{s}_{i + 1}"`, where an absent `s` is the
  layer function's `__name__` (`convolution2d` for slim.conv2d): `conv1/conv1_1/weights`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scopelint.model.layers import _conv_length, _deconv_length, _dim, _mul
from scopelint.model.varspec import UNKNOWN, Shape, int_or_none, known_bool

# Canonical op name for every alias tf_slim exports (the key arg_scope stores defaults under:
# tf_slim's arg_scope_func_key is the function object, and the aliases are the same object).
ALIASES: dict[str, str] = {
    "conv2d": "convolution2d", "convolution2d": "convolution2d",
    "conv1d": "convolution1d", "convolution1d": "convolution1d",
    "conv2d_transpose": "convolution2d_transpose", "convolution2d_transpose": "convolution2d_transpose",
    "separable_conv2d": "separable_convolution2d", "separable_convolution2d": "separable_convolution2d",
    "fully_connected": "fully_connected", "linear": "fully_connected",
    "batch_norm": "batch_norm", "layer_norm": "layer_norm",
    "max_pool2d": "max_pool2d", "avg_pool2d": "avg_pool2d", "flatten": "flatten", "dropout": "dropout",
    "softmax": "softmax", "one_hot_encoding": "one_hot_encoding", "unit_norm": "unit_norm",
    "bias_add": "bias_add", "variable": "variable", "model_variable": "model_variable",
}

# Positional parameters after `inputs` (from inspect.signature; a prefix of the real signature).
_CONV_PARAMS = ("num_outputs", "kernel_size", "stride", "padding", "data_format", "rate", "activation_fn",
                "normalizer_fn", "normalizer_params", "weights_initializer", "weights_regularizer",
                "biases_initializer", "biases_regularizer", "reuse", "variables_collections",
                "outputs_collections", "trainable", "scope")
POSITIONAL: dict[str, tuple[str, ...]] = {
    "convolution2d": _CONV_PARAMS,
    "convolution1d": _CONV_PARAMS,
    "convolution2d_transpose": ("num_outputs", "kernel_size", "stride", "padding", "data_format",
                                "activation_fn", "normalizer_fn", "normalizer_params", "weights_initializer",
                                "weights_regularizer", "biases_initializer", "biases_regularizer", "reuse",
                                "variables_collections", "outputs_collections", "trainable", "scope"),
    "separable_convolution2d": ("num_outputs", "kernel_size", "depth_multiplier", "stride", "padding",
                                "data_format", "rate", "activation_fn", "normalizer_fn", "normalizer_params",
                                "weights_initializer", "pointwise_initializer", "weights_regularizer",
                                "biases_initializer", "biases_regularizer", "reuse", "variables_collections",
                                "outputs_collections", "trainable", "scope"),
    "fully_connected": ("num_outputs", "activation_fn", "normalizer_fn", "normalizer_params",
                        "weights_initializer", "weights_regularizer", "biases_initializer",
                        "biases_regularizer", "reuse", "variables_collections", "outputs_collections",
                        "trainable", "scope"),
    "batch_norm": ("decay", "center", "scale", "epsilon", "activation_fn", "param_initializers",
                   "param_regularizers", "updates_collections", "is_training", "reuse",
                   "variables_collections", "outputs_collections", "trainable", "batch_weights", "fused",
                   "data_format", "zero_debias_moving_mean", "scope", "renorm"),
    "layer_norm": ("center", "scale", "activation_fn", "reuse", "variables_collections",
                   "outputs_collections", "trainable", "begin_norm_axis", "begin_params_axis", "scope"),
    "max_pool2d": ("kernel_size", "stride", "padding", "data_format", "outputs_collections", "scope"),
    "avg_pool2d": ("kernel_size", "stride", "padding", "data_format", "outputs_collections", "scope"),
    "flatten": ("outputs_collections", "scope"),
    "dropout": ("keep_prob", "noise_shape", "is_training", "outputs_collections", "scope", "seed"),
    "softmax": ("scope",),
    "unit_norm": ("dim", "epsilon", "scope"),
    "bias_add": ("activation_fn", "initializer", "regularizer", "reuse", "variables_collections",
                 "outputs_collections", "trainable", "data_format", "scope"),
    "one_hot_encoding": ("num_classes", "on_value", "off_value", "outputs_collections", "scope"),
}
VARIABLE_POSITIONAL = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "collections",
                       "caching_device", "device", "partitioner", "custom_getter", "use_resource")

# The var scope each creating op opens by default.
DEFAULT_SCOPES: dict[str, str] = {
    "convolution2d": "Conv", "convolution1d": "Conv", "convolution2d_transpose": "Conv2d_transpose",
    "separable_convolution2d": "SeparableConv2d", "fully_connected": "fully_connected",
    "batch_norm": "BatchNorm", "layer_norm": "LayerNorm", "bias_add": "BiasAdd",
}
# The ops that create no variables (they only open name scopes).
NO_VARIABLES = frozenset({"max_pool2d", "avg_pool2d", "flatten", "dropout", "softmax", "one_hot_encoding",
                          "unit_norm"})
# Defaults of the arguments the tables read.
DEFAULTS: dict[str, Mapping[str, Any]] = {
    "convolution2d": {"stride": 1, "padding": "SAME", "data_format": None, "rate": 1},
    "convolution1d": {"stride": 1, "padding": "SAME", "data_format": None, "rate": 1},
    "convolution2d_transpose": {"stride": 1, "padding": "SAME", "data_format": "NHWC"},
    "separable_convolution2d": {"depth_multiplier": 1, "stride": 1, "padding": "SAME", "data_format": "NHWC",
                                "rate": 1},
    "batch_norm": {"center": True, "scale": False, "data_format": "NHWC", "fused": None,
                   "zero_debias_moving_mean": False, "renorm": False, "batch_weights": None,
                   "updates_collections": "update_ops"},
    "layer_norm": {"center": True, "scale": True, "begin_params_axis": -1},
    "max_pool2d": {"stride": 2, "padding": "VALID", "data_format": "NHWC"},
    "avg_pool2d": {"stride": 2, "padding": "VALID", "data_format": "NHWC"},
}
# `layer.__name__`, the default scope prefix of slim.repeat / slim.stack.
FUNCTION_NAMES = {op: op for op in set(ALIASES.values())}


@dataclass(frozen=True)
class SlimVar:
    name: str
    shape: Shape
    trainable: bool = True


def arg(config: Mapping[str, Any], op: str, key: str) -> Any:
    if key in config:
        return config[key]
    return DEFAULTS.get(op, {}).get(key)


def _pair(value: Any, rank: int) -> tuple[int | None, ...] | None:
    if isinstance(value, (list, tuple)):
        return tuple(int_or_none(v) for v in value) if len(value) == rank else None
    if value is UNKNOWN:
        return (None,) * rank
    return (int_or_none(value),) * rank


def _channels_first(config: Mapping[str, Any], op: str) -> bool | None:
    data_format = arg(config, op, "data_format")
    if data_format in (None, "NHWC", "NWC", "NDHWC"):
        return False
    if data_format in ("NCHW", "NCW", "NCDHW"):
        return True
    return None


def has_biases(config: Mapping[str, Any]) -> bool | None:
    """Biases exist unless a normalizer replaces them or biases_initializer=None."""
    if "normalizer_fn" in config and config["normalizer_fn"] is not None:
        return False if config["normalizer_fn"] is not UNKNOWN else None
    if "biases_initializer" in config:
        return None if config["biases_initializer"] is UNKNOWN else config["biases_initializer"] is not None
    return True


def batch_norm_fused(config: Mapping[str, Any], rank: int | None) -> bool | None:
    """Whether tf_slim's batch_norm takes `_fused_batch_norm` (its variable order differs)."""
    fused = arg(config, "batch_norm", "fused")
    if fused is None:
        fused = True
    knowns = [fused, arg(config, "batch_norm", "renorm"), arg(config, "batch_norm", "zero_debias_moving_mean")]
    if any(v is UNKNOWN for v in knowns) or rank is None:
        return None
    if not fused or arg(config, "batch_norm", "renorm") or arg(config, "batch_norm", "batch_weights") is not None:
        return False
    if rank not in (2, 4):
        return False
    updates = arg(config, "batch_norm", "updates_collections")
    if updates is UNKNOWN:
        return None
    return bool(arg(config, "batch_norm", "zero_debias_moving_mean")) or rank == 2 or updates != "update_ops"


def variable_order_known(op: str, config: Mapping[str, Any], input_shape: Shape) -> bool:
    """Whether op_variables' order is TensorFlow's: batch_norm orders beta and gamma by the fused
    path, which depends on the input's rank."""
    if op != "batch_norm" or input_shape is not None:
        return True
    center, scale = known_bool(config, "center", True), known_bool(config, "scale", False)
    if not (center and scale):
        return True  # one of beta and gamma: the order of the others is fixed
    return len({batch_norm_fused(config, rank) for rank in (2, 3, 4, 5)}) == 1


def op_variables(op: str, config: Mapping[str, Any], input_shape: Shape) -> list[SlimVar] | None:
    """The variables `op` creates in its scope, in creation order; None when not computable.

    A `normalizer_fn`'s variables are not included (the interpreter calls the normalizer).
    """
    trainable = known_bool(config, "trainable", True)
    if trainable is None:
        return None
    specs = _op_variables(op, config, input_shape)
    if specs is None:
        return None
    return [SlimVar(s.name, s.shape, s.trainable and trainable) for s in specs]


def _op_variables(op: str, config: Mapping[str, Any], input_shape: Shape) -> list[SlimVar] | None:
    if op in NO_VARIABLES:
        return []
    biases = has_biases(config)
    if op in ("convolution2d", "convolution1d", "convolution2d_transpose", "separable_convolution2d"):
        rank = 1 if op == "convolution1d" else 2
        channels_first = _channels_first(config, op)
        kernel = _pair(config.get("kernel_size", UNKNOWN), rank)
        if channels_first is None or kernel is None or biases is None:
            return None
        if input_shape is not None and len(input_shape) != rank + 2:
            return None
        in_channels = _dim(input_shape, 1 if channels_first else -1)
        outputs = config.get("num_outputs", UNKNOWN)
        out = int_or_none(outputs)
        if op == "separable_convolution2d":
            multiplier = int_or_none(arg(config, op, "depth_multiplier"))
            specs = [SlimVar("depthwise_weights", (*kernel, in_channels, multiplier))]
            if outputs is None:  # depthwise only: biases over the depthwise channels
                return specs + ([SlimVar("biases", (_mul(in_channels, multiplier),))] if biases else [])
            specs.append(SlimVar("pointwise_weights", (1, 1, _mul(in_channels, multiplier), out)))
        elif op == "convolution2d_transpose":
            specs = [SlimVar("weights", (*kernel, out, in_channels))]
        else:
            specs = [SlimVar("weights", (*kernel, in_channels, out))]
        return specs + ([SlimVar("biases", (out,))] if biases else [])
    if op == "fully_connected":
        if biases is None or (input_shape is not None and len(input_shape) < 2):
            return None
        out = int_or_none(config.get("num_outputs", UNKNOWN))
        return [SlimVar("weights", (_dim(input_shape, -1), out))] + ([SlimVar("biases", (out,))] if biases else [])
    if op == "batch_norm":
        center, scale = known_bool(config, "center", True), known_bool(config, "scale", False)
        channels_first = _channels_first(config, op)
        if center is None or scale is None or channels_first is None:
            return None
        rank = None if input_shape is None else len(input_shape)
        fused = batch_norm_fused(config, rank)
        if fused is None:
            # The input's rank is unknown to the analysis (TensorFlow raises on an undefined rank,
            # so it is known there): the variables and their names are known; their order is
            # that of a rank-4 input, TensorFlow's only when variable_order_known says so.
            fused = batch_norm_fused(config, 4) if rank is None else None
            if fused is None:
                return None
        params = (_dim(input_shape, 1 if channels_first else -1),)
        beta = [SlimVar("beta", params)] if center else []
        gamma = [SlimVar("gamma", params)] if scale else []
        stats = [SlimVar("moving_mean", params, False), SlimVar("moving_variance", params, False)]
        return (beta + gamma if fused else gamma + beta) + stats
    if op == "layer_norm":
        center, scale = known_bool(config, "center", True), known_bool(config, "scale", True)
        begin = int_or_none(arg(config, op, "begin_params_axis"))
        if center is None or scale is None or begin is None:
            return None
        params: Shape = None
        if input_shape is not None and -len(input_shape) <= begin < len(input_shape):
            params = tuple(input_shape[begin:])
        return ([SlimVar("beta", params)] if center else []) + ([SlimVar("gamma", params)] if scale else [])
    if op == "bias_add":
        channels_first = _channels_first(config, op)
        if channels_first is None:
            return None
        return [SlimVar("biases", (_dim(input_shape, 1 if channels_first else -1),))]
    return None


def output_shape(op: str, config: Mapping[str, Any], input_shape: Shape) -> Shape:
    """The static output shape (so the next layer knows its input depth); None when unknown."""
    if input_shape is None:
        return None
    if op in ("batch_norm", "layer_norm", "dropout", "softmax", "bias_add", "unit_norm"):
        return input_shape
    if op == "flatten":
        rest = input_shape[1:]
        size = 1
        for dim in rest:
            size = None if size is None or dim is None else size * dim
        return (input_shape[0], size)
    if op == "fully_connected":
        return (*input_shape[:-1], int_or_none(config.get("num_outputs", UNKNOWN)))
    rank = 1 if op == "convolution1d" else 2
    if len(input_shape) != rank + 2:
        return None
    channels_first = _channels_first(config, op)
    padding = arg(config, op, "padding")
    if channels_first is None or not isinstance(padding, str):
        return None
    padding = padding.lower()
    kernel = _pair(config.get("kernel_size", UNKNOWN), rank)
    stride = _pair(arg(config, op, "stride"), rank)
    rate = _pair(arg(config, op, "rate") or 1, rank)
    if kernel is None or stride is None or rate is None:
        return None
    spatial = input_shape[2:] if channels_first else input_shape[1:-1]
    if op in ("max_pool2d", "avg_pool2d"):
        channels = input_shape[1] if channels_first else input_shape[-1]
        lengths = tuple(_conv_length(n, k, padding, s, 1) for n, k, s in zip(spatial, kernel, stride))
    elif op == "convolution2d_transpose":
        channels = int_or_none(config.get("num_outputs", UNKNOWN))
        lengths = tuple(_deconv_length(n, k, padding, s, 1, None) for n, k, s in zip(spatial, kernel, stride))
    elif op in ("convolution2d", "convolution1d", "separable_convolution2d"):
        outputs = config.get("num_outputs", UNKNOWN)
        if op == "separable_convolution2d" and outputs is None:
            in_channels = input_shape[1] if channels_first else input_shape[-1]
            channels = _mul(in_channels, int_or_none(arg(config, op, "depth_multiplier")))
        else:
            channels = int_or_none(outputs)
        lengths = tuple(_conv_length(n, k, padding, s, d) for n, k, s, d in zip(spatial, kernel, stride, rate))
    else:
        return None
    batch = input_shape[0]
    return (batch, channels, *lengths) if channels_first else (batch, *lengths, channels)
