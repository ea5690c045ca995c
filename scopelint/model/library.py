"""What TensorFlow's library constructs create: one import point for the interpreter.

The tables live in `layers` (tf.layers and Keras layers), `rnn` (rnn_cell cells and the RNN
functions' scopes) and `optimizers` (slots, non-slot variables, ExponentialMovingAverage); the
shared values (`VarSpec`, `UNKNOWN`) in `varspec`.  Each module's docstring records the TensorFlow
2.21 measurements its rules come from.  Pure: no LibCST, no TensorFlow.
"""
from __future__ import annotations

from scopelint.model.layers import (
    KERAS_LAYERS,
    TF_LAYERS,
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
from scopelint.model.optimizers import (
    EMA_CLASS,
    OPTIMIZER_POSITIONAL,
    OptimizerSlots,
    optimizer_slots,
    slot_graph_name,
    slot_store_key,
)
from scopelint.model.rnn import (
    CELL_POSITIONAL,
    RNN_FUNCTION_POSITIONAL,
    RNN_FUNCTION_SCOPES,
    cell_base_name,
    cell_kind,
    cell_output_size,
    cell_variables,
    rnn_function_scopes,
    shared_cell_depth_conflicts,
    unwrap_cell,
)
from scopelint.model.varspec import UNKNOWN, Shape, VarSpec, to_snake_case

__all__ = [
    "CELL_POSITIONAL",
    "EMA_CLASS",
    "KERAS_LAYERS",
    "OPTIMIZER_POSITIONAL",
    "RNN_FUNCTION_POSITIONAL",
    "RNN_FUNCTION_SCOPES",
    "TF_LAYERS",
    "TF_LAYERS_POSITIONAL",
    "UNKNOWN",
    "LayerNameUids",
    "OptimizerSlots",
    "Shape",
    "VarSpec",
    "cell_base_name",
    "cell_kind",
    "cell_output_size",
    "cell_variables",
    "keras_base_name",
    "keras_layer_output_shape",
    "keras_layer_variables",
    "layer_base_name",
    "layer_output_shape",
    "layer_variables",
    "optimizer_slots",
    "resolve_dtype",
    "rnn_function_scopes",
    "shared_cell_depth_conflicts",
    "slot_graph_name",
    "slot_store_key",
    "to_snake_case",
    "unwrap_cell",
]
