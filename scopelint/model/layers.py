"""Which variables `tf.compat.v1.layers` (and tf_keras) layers create, and the shapes they output.

Pure tables: no LibCST, no TensorFlow.  Every rule below was measured on TensorFlow 2.21 in
`tf.compat.v1` graph mode with tf-keras 2.21 and TF_USE_LEGACY_KERAS=1 (tests/test_library_tf.py
re-checks them).

Scopes (what the interpreter composes with these tables; see tf1-semantics 3.2/3.3):
- tf.layers: the layer's var scope is `variable_scope(None, default_name=layer_base_name(...))` in the
  current var scope, decided at the first call (a functional call with `name='fc'` uses
  `variable_scope('fc')` exactly).  Each VarSpec is then created with get_variable, store key
  `<scope>/<spec.name>`, in list order.  Measured: `tf.layers.dense(x[2,5], 7)` -> `dense/kernel`
  [5, 7], `dense/bias` [7]; a second unnamed call -> `dense_1/...`.
- Keras layers (tf_keras in v1 graph mode): no variable store.  Variables are `tf.Variable`s named
  `<name scope at first call>/<layer.name>/<spec.name>` where the `<layer.name>` name scope is
  uniquified by the graph like any name scope.  Measured: inside `variable_scope('ks')`
  `Dense(4)` -> `ks/dense_3/kernel` (uid 3, see `LayerNameUids`); inside `name_scope('kns')`
  -> `kns/dense_6/kernel`; a Keras `Dense(name='dense')` called in `v` after a tf.layers Dense had
  opened name scope `v/dense/` -> `v/dense_1/kernel`.

Layer names (`LayerNameUids`): Keras and tf.layers share ONE per-graph counter keyed by the snake
case class name.  Keras numbers from zero (`dense`, `dense_1`), tf.layers objects from one
(`dense_1`, `dense_2`) - and every unnamed tf.layers *functional* call constructs a layer object, so
it consumes a number too.  Measured sequence in one graph: tf.layers.Dense() -> `dense_1`;
keras Dense() -> `dense_1` (the same name!); tf.layers.Dense() -> `dense_3`.  A new tf.Graph has a
fresh counter.  The uid name of a tf.layers object is NOT its scope (its scope comes from the
default-name counter): first `tf.layers.Dense()` has name `dense_1` and scope `dense`.

Dtypes: a tf.layers layer takes its dtype from the first input (float64 input -> float64 kernel);
batch normalization keeps float16/bfloat16 layers' parameters in float32 (`resolve_dtype`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from scopelint.model.varspec import (
    UNKNOWN,
    Shape,
    VarSpec,
    get_arg,
    int_or_none,
    known_bool,
    to_snake_case,
)

# Layer kinds by default (snake case) name.  Convolution rank is the spatial rank.
_CONV = {"conv1d": 1, "conv2d": 2, "conv3d": 3}
_CONV_TRANSPOSE = {"conv1d_transpose": 1, "conv2d_transpose": 2, "conv3d_transpose": 3}
_SEPARABLE = {"separable_conv1d": 1, "separable_conv2d": 2}
_DEPTHWISE = {"depthwise_conv1d": 1, "depthwise_conv2d": 2}
_POOLING = {
    f"{kind}{rank}d": rank
    for kind in ("max_pooling", "average_pooling", "max_pool", "avg_pool", "average_pool")
    for rank in (1, 2, 3)
}
_NO_VARIABLES = frozenset({"dropout", "flatten", *_POOLING})

# What `tf.compat.v1.layers` offers (functional snake names; the classes map to the same names).
TF_LAYERS = frozenset(
    {"dense", "batch_normalization", *_CONV, "conv2d_transpose", "conv3d_transpose", *_SEPARABLE,
     "dropout", "flatten"}
    | {f"{kind}{rank}d" for kind in ("max_pooling", "average_pooling") for rank in (1, 2, 3)}
)
# Keras layers modelled here (by keras_base_name).
KERAS_LAYERS = frozenset(
    TF_LAYERS | set(_CONV_TRANSPOSE) | set(_DEPTHWISE) | set(_POOLING)
    | {"layer_normalization", "embedding", "p_re_lu", "lstm", "gru", "simple_rnn"}
)

# Positional parameters of the tf.layers functions after `inputs` (a prefix of the real signature:
# only as far as the last parameter these tables read).  Measured with inspect.signature.
TF_LAYERS_POSITIONAL: dict[str, tuple[str, ...]] = {
    "dense": ("units", "activation", "use_bias"),
    **{n: ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
           "activation", "use_bias") for n in _CONV},
    **{n: ("filters", "kernel_size", "strides", "padding", "data_format", "activation",
           "use_bias") for n in ("conv2d_transpose", "conv3d_transpose")},
    **{n: ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
           "depth_multiplier", "activation", "use_bias") for n in _SEPARABLE},
    "batch_normalization": ("axis", "momentum", "epsilon", "center", "scale"),
    "dropout": ("rate", "noise_shape", "seed", "training", "name"),
    "flatten": ("name", "data_format"),
    **{f"{kind}{rank}d": ("pool_size", "strides", "padding", "data_format", "name")
       for kind in ("max_pooling", "average_pooling") for rank in (1, 2, 3)},
}


def layer_base_name(layer: str) -> str:
    """Default scope name of a tf.layers function or class: "Conv2D" -> "conv2d", "dense" -> "dense"."""
    return to_snake_case(layer)


def keras_base_name(class_name: str) -> str:
    """Keras default layer name before uniquification: "BatchNormalization" -> "batch_normalization"."""
    return to_snake_case(class_name)


@dataclass
class LayerNameUids:
    """The per-graph layer-name counter shared by Keras layers and tf.layers objects.

    Keyed by the snake-case class name.  A layer constructed with an explicit name takes no number.
    """

    counts: dict[str, int] = field(default_factory=dict)

    def keras_name(self, base: str) -> str:
        """Zero-based: dense, dense_1, ... (reads the count, then increments)."""
        number = self.counts.get(base, 0)
        self.counts[base] = number + 1
        return f"{base}_{number}" if number else base

    def tf_layers_name(self, base: str) -> str:
        """One-based: dense_1, dense_2, ... (increments, then reads)."""
        self.counts[base] = self.counts.get(base, 0) + 1
        return f"{base}_{self.counts[base]}"


# ---------------------------------------------------------------------------------------------
# Argument normalisation


def _tuple_arg(value: Any, rank: int) -> tuple[int | None, ...] | None:
    """kernel_size/strides/dilation_rate as `rank` ints (None for unknown entries)."""
    if isinstance(value, (list, tuple)):
        if len(value) != rank:
            return None
        return tuple(int_or_none(v) for v in value)
    if value is UNKNOWN:
        return (None,) * rank
    number = int_or_none(value)
    return (number,) * rank


def _channels_first(config: Mapping[str, Any]) -> bool | None:
    data_format = get_arg(config, "data_format", "channels_last")
    if data_format is None or data_format == "channels_last":
        return False
    if data_format == "channels_first":
        return True
    return None


def _padding(config: Mapping[str, Any]) -> str | None:
    padding = get_arg(config, "padding", "valid")
    return padding.lower() if isinstance(padding, str) else None


def _dim(input_shape: Shape, axis: int) -> int | None:
    if input_shape is None or not -len(input_shape) <= axis < len(input_shape):
        return None
    return input_shape[axis]


def _mul(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a * b


def _channel_axis(channels_first: bool) -> int:
    return 1 if channels_first else -1


# ---------------------------------------------------------------------------------------------
# Variables


def _bias(config: Mapping[str, Any], size: int | None) -> list[VarSpec] | None:
    use_bias = known_bool(config, "use_bias", True)
    if use_bias is None:
        return None
    return [VarSpec("bias", (size,))] if use_bias else []


def _dense(config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    if input_shape is not None and len(input_shape) < 2:
        return None  # TensorFlow rejects rank < 2
    units = int_or_none(config.get("units", UNKNOWN))
    bias = _bias(config, units)
    if bias is None:
        return None
    return [VarSpec("kernel", (_dim(input_shape, -1), units)), *bias]


def _conv(kind: str, rank: int, config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    channels_first = _channels_first(config)
    kernel_size = _tuple_arg(config.get("kernel_size", UNKNOWN), rank)
    if channels_first is None or kernel_size is None:
        return None
    if input_shape is not None and len(input_shape) != rank + 2:
        return None
    in_channels = _dim(input_shape, _channel_axis(channels_first))
    filters = int_or_none(config.get("filters", UNKNOWN))
    if kind == "conv":
        groups = get_arg(config, "groups", 1)
        groups_n = int_or_none(groups)
        per_group = None if in_channels is None or groups_n is None else in_channels // groups_n
        kernels = [VarSpec("kernel", (*kernel_size, per_group, filters))]
        bias_size = filters
    elif kind == "transpose":
        kernels = [VarSpec("kernel", (*kernel_size, filters, in_channels))]
        bias_size = filters
    elif kind == "separable":
        multiplier = int_or_none(get_arg(config, "depth_multiplier", 1))
        kernels = [
            VarSpec("depthwise_kernel", (*kernel_size, in_channels, multiplier)),
            VarSpec("pointwise_kernel", (*(1,) * rank, _mul(in_channels, multiplier), filters)),
        ]
        bias_size = filters
    else:  # depthwise
        multiplier = int_or_none(get_arg(config, "depth_multiplier", 1))
        kernels = [VarSpec("depthwise_kernel", (*kernel_size, in_channels, multiplier))]
        bias_size = _mul(in_channels, multiplier)
    bias = _bias(config, bias_size)
    return None if bias is None else [*kernels, *bias]


def _normalized_axes(axis: Any, rank: int | None) -> list[int] | None:
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if any(int_or_none(a) is None for a in axes):
        return None
    if rank is None:
        return axes if all(a >= 0 for a in axes) else None
    if not all(-rank <= a < rank for a in axes):
        return None
    return sorted(a % rank for a in axes)


def _batch_normalization(config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    center = known_bool(config, "center", True)
    scale = known_bool(config, "scale", True)
    renorm = known_bool(config, "renorm", False)
    if center is None or scale is None or renorm is None:
        return None
    if get_arg(config, "virtual_batch_size", None) is not None:
        return None  # ghost batch norm reshapes the parameters: not modelled
    axis = get_arg(config, "axis", -1)
    rank = None if input_shape is None else len(input_shape)
    param_shape: Shape
    if isinstance(axis, (list, tuple)) and len(axis) != 1:
        axes = _normalized_axes(axis, rank)
        if axes is None or rank is None or input_shape is None:
            param_shape = None
        else:  # several axes: a broadcastable full-rank parameter (keras BatchNormalization.build)
            param_shape = tuple(input_shape[i] if i in axes else 1 for i in range(rank))
    else:
        single = axis[0] if isinstance(axis, (list, tuple)) else axis
        axes = _normalized_axes(single, rank)
        param_shape = (None if axes is None or input_shape is None else input_shape[axes[0]],)
    specs = []
    if scale:
        specs.append(VarSpec("gamma", param_shape))
    if center:
        specs.append(VarSpec("beta", param_shape))
    # Moving statistics: get_variable(trainable=False); only in GLOBAL_VARIABLES (no
    # MOVING_AVERAGE_VARIABLES, no model_variables): measured.
    stats = ["moving_mean", "moving_variance"]
    if renorm:
        stats += ["moving_stddev", "renorm_mean", "renorm_stddev"]
    specs += [VarSpec(name, param_shape, trainable=False) for name in stats]
    return specs


def _layer_normalization(config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    center = known_bool(config, "center", True)
    scale = known_bool(config, "scale", True)
    if center is None or scale is None:
        return None
    rank = None if input_shape is None else len(input_shape)
    axes = _normalized_axes(get_arg(config, "axis", -1), rank)
    param_shape = (
        None if axes is None or input_shape is None else tuple(input_shape[a] for a in axes)
    )
    return ([VarSpec("gamma", param_shape)] if scale else []) + (
        [VarSpec("beta", param_shape)] if center else []
    )


def _prelu(config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    shared_axes = get_arg(config, "shared_axes", None)
    if input_shape is None:
        return [VarSpec("alpha", None)]
    shape = list(input_shape[1:])
    if shared_axes is not None:
        axes = list(shared_axes) if isinstance(shared_axes, (list, tuple)) else [shared_axes]
        if any(int_or_none(a) is None for a in axes):
            return None
        for a in axes:
            shape[a - 1] = 1
    return [VarSpec("alpha", tuple(shape))]


def _keras_rnn(base: str, config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    """LSTM/GRU/SimpleRNN: the cell is always named `<base>_cell` (no uid), e.g. lstm/lstm_cell/kernel."""
    units = int_or_none(config.get("units", UNKNOWN))
    use_bias = known_bool(config, "use_bias", True)
    if use_bias is None:
        return None
    depth = _dim(input_shape, -1)
    gates = {"lstm": 4, "gru": 3, "simple_rnn": 1}[base]
    width = _mul(units, gates)
    cell = f"{base}_cell/"
    specs = [VarSpec(cell + "kernel", (depth, width)), VarSpec(cell + "recurrent_kernel", (units, width))]
    if use_bias:
        if base == "gru":
            # tf_keras 2.x defaults to reset_after=True: bias [2, 3*units].  (Keras in TF 1.15 did not.)
            reset_after = known_bool(config, "reset_after", True)
            if reset_after is None:
                return None
            specs.append(VarSpec(cell + "bias", (2, width) if reset_after else (width,)))
        else:
            specs.append(VarSpec(cell + "bias", (width,)))
    return specs


def _variables(base: str, config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    if base in _NO_VARIABLES:
        return []
    if base == "dense":
        return _dense(config, input_shape)
    if base in _CONV:
        return _conv("conv", _CONV[base], config, input_shape)
    if base in _CONV_TRANSPOSE:
        return _conv("transpose", _CONV_TRANSPOSE[base], config, input_shape)
    if base in _SEPARABLE:
        return _conv("separable", _SEPARABLE[base], config, input_shape)
    if base in _DEPTHWISE:
        return _conv("depthwise", _DEPTHWISE[base], config, input_shape)
    if base == "batch_normalization":
        return _batch_normalization(config, input_shape)
    if base == "layer_normalization":
        return _layer_normalization(config, input_shape)
    if base == "embedding":
        return [VarSpec("embeddings", (int_or_none(config.get("input_dim", UNKNOWN)),
                                       int_or_none(config.get("output_dim", UNKNOWN))))]
    if base == "p_re_lu":
        return _prelu(config, input_shape)
    if base in ("lstm", "gru", "simple_rnn"):
        return _keras_rnn(base, config, input_shape)
    return None


def _with_trainable(specs: list[VarSpec] | None, config: Mapping[str, Any]) -> list[VarSpec] | None:
    """`trainable=False` on a tf.layers layer makes every variable non-trainable (measured for dense
    and batch_normalization); they stay in "variables"."""
    trainable = known_bool(config, "trainable", True)
    if specs is None or trainable is None:
        return None
    if trainable:
        return specs
    return [VarSpec(s.name, s.shape, False, s.collections, s.dtype) for s in specs]


def layer_variables(layer: str, config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    """Variables a tf.layers layer creates at its first call, in creation order; None if not modelled
    (or if an UNKNOWN argument decides which variables exist).

    `config` holds the call's arguments by keyword name (see TF_LAYERS_POSITIONAL); absent keys take
    TensorFlow's defaults; values may be UNKNOWN (unknown sizes become None dimensions).
    """
    base = layer_base_name(layer)
    return _with_trainable(_variables(base, config, input_shape), config) if base in TF_LAYERS else None


def keras_layer_variables(layer_class: str, config: Mapping[str, Any], input_shape: Shape) -> list[VarSpec] | None:
    """Variables a Keras layer creates when built, named relative to `<name scope>/<layer.name>`.

    Same names and shapes as the tf.layers tables for the shared layers (measured), plus
    LayerNormalization, Embedding, PReLU, DepthwiseConv2D, Conv1DTranspose and LSTM/GRU/SimpleRNN.
    """
    base = keras_base_name(layer_class)
    if base not in KERAS_LAYERS or known_bool(config, "trainable", True) is None:
        return None
    # No _with_trainable here: measured, a Keras layer built with trainable=False in v1 graph mode
    # still puts its variables in TRAINABLE_VARIABLES (only layer.trainable_weights drops them), so
    # a default minimize() still trains them.
    return _variables(base, config, input_shape)


def resolve_dtype(layer: str, spec: VarSpec, layer_dtype: str) -> str:
    """The dtype a spec's variable really gets for a layer whose dtype is `layer_dtype`."""
    if spec.dtype is not None:
        return spec.dtype
    if to_snake_case(layer) == "batch_normalization" and layer_dtype in ("float16", "bfloat16"):
        return "float32"  # measured: float16 input -> float32 gamma/beta/moving_*
    return layer_dtype


# ---------------------------------------------------------------------------------------------
# Output shapes


def _conv_length(n: int | None, k: int | None, padding: str, stride: int | None, dilation: int | None) -> int | None:
    """keras conv_utils.conv_output_length."""
    if n is None or k is None or stride is None or dilation is None:
        return None
    dilated = k + (k - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        length = n
    elif padding == "valid":
        length = n - dilated + 1
    elif padding == "full":
        length = n + dilated - 1
    else:
        return None
    return (length + stride - 1) // stride


def _deconv_length(n: int | None, k: int | None, padding: str, stride: int | None,
                   dilation: int | None, output_padding: int | None) -> int | None:
    """keras conv_utils.deconv_output_length (output_padding None = not given)."""
    if n is None or k is None or stride is None or dilation is None:
        return None
    k = k + (k - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return n * stride + max(k - stride, 0)
        if padding == "full":
            return n * stride - (stride + k - 2)
        if padding == "same":
            return n * stride
        return None
    pad = {"same": k // 2, "valid": 0, "full": k - 1}.get(padding)
    return None if pad is None else (n - 1) * stride + k - 2 * pad + output_padding


def _spatial_output(base: str, rank: int, config: Mapping[str, Any], input_shape: Shape,
                    channels: int | None, pooling: bool = False) -> Shape:
    channels_first = _channels_first(config)
    padding = _padding(config)
    if input_shape is None or len(input_shape) != rank + 2 or channels_first is None or padding is None:
        return None
    size_key = "pool_size" if pooling else "kernel_size"
    kernel = _tuple_arg(config.get(size_key, UNKNOWN), rank)
    strides_default = config.get(size_key, UNKNOWN) if pooling else 1
    strides_value = get_arg(config, "strides", strides_default)
    strides = _tuple_arg(kernel if pooling and strides_value is None else strides_value, rank)
    dilation = _tuple_arg(get_arg(config, "dilation_rate", 1), rank)
    if kernel is None or strides is None or dilation is None:
        return None
    spatial = input_shape[2:] if channels_first else input_shape[1:-1]
    if base in _CONV_TRANSPOSE:
        output_padding_value = get_arg(config, "output_padding", None)
        output_padding = (None,) * rank if output_padding_value is None else _tuple_arg(output_padding_value, rank)
        if output_padding is None:
            return None
        if output_padding_value is not None and None in output_padding:
            return None
        lengths = tuple(_deconv_length(n, k, padding, s, d, p) for n, k, s, d, p
                        in zip(spatial, kernel, strides, dilation, output_padding))
    else:
        lengths = tuple(_conv_length(n, k, padding, s, d)
                        for n, k, s, d in zip(spatial, kernel, strides, dilation))
    if pooling:
        channels = input_shape[1] if channels_first else input_shape[-1]
    batch = input_shape[0]
    return (batch, channels, *lengths) if channels_first else (batch, *lengths, channels)


def _output_shape(base: str, config: Mapping[str, Any], input_shape: Shape) -> Shape:
    if base in ("dropout", "batch_normalization", "layer_normalization", "p_re_lu"):
        return input_shape
    if input_shape is None:
        return None
    if base == "dense":
        return (*input_shape[:-1], int_or_none(config.get("units", UNKNOWN)))
    if base == "flatten":
        rest = input_shape[1:]
        size = None if any(d is None for d in rest) else math.prod(d for d in rest if d is not None)
        return (input_shape[0], size)
    filters = int_or_none(config.get("filters", UNKNOWN))
    for table in (_CONV, _CONV_TRANSPOSE, _SEPARABLE):
        if base in table:
            return _spatial_output(base, table[base], config, input_shape, filters)
    if base in _DEPTHWISE:
        channels_first = _channels_first(config)
        if channels_first is None:
            return None
        multiplier = int_or_none(get_arg(config, "depth_multiplier", 1))
        channels = _mul(_dim(input_shape, _channel_axis(channels_first)), multiplier)
        return _spatial_output(base, _DEPTHWISE[base], config, input_shape, channels)
    if base in _POOLING:
        return _spatial_output(base, _POOLING[base], config, input_shape, None, pooling=True)
    if base == "embedding":
        return (*input_shape, int_or_none(config.get("output_dim", UNKNOWN)))
    if base in ("lstm", "gru", "simple_rnn"):
        units = int_or_none(config.get("units", UNKNOWN))
        sequences = known_bool(config, "return_sequences", False)
        if sequences is None or len(input_shape) != 3:
            return None
        return (input_shape[0], input_shape[1], units) if sequences else (input_shape[0], units)
    return None


def layer_output_shape(layer: str, config: Mapping[str, Any], input_shape: Shape) -> Shape:
    """Static output shape of a tf.layers call (so that the next layer knows its input depth)."""
    base = layer_base_name(layer)
    return _output_shape(base, config, input_shape) if base in TF_LAYERS else None


def keras_layer_output_shape(layer_class: str, config: Mapping[str, Any], input_shape: Shape) -> Shape:
    base = keras_base_name(layer_class)
    return _output_shape(base, config, input_shape) if base in KERAS_LAYERS else None
