"""Which variables `tf.compat.v1.nn.rnn_cell` cells create, and the scopes the RNN functions open.

Pure tables: no LibCST, no TensorFlow.  Measured on TensorFlow 2.21 `tf.compat.v1` graph mode with
tf-keras 2.21 (TF_USE_LEGACY_KERAS=1), where these cells live in tf_keras legacy_cells; re-checked
by tests/test_library_tf.py.  `tf.compat.v1.nn.rnn_cell` has BasicRNNCell, BasicLSTMCell, LSTMCell,
GRUCell, MultiRNNCell and the DropoutWrapper/ResidualWrapper/DeviceWrapper wrappers; there is no
LSTMBlockCell (it was tf.contrib).

Scopes, outermost first (measured):
- `dynamic_rnn(cell, x)`, `static_rnn`, `raw_rnn`, `static_state_saving_rnn`: string scope `rnn`
  (or the `scope=` argument: a string scope, or an object re-entry when it is a VariableScope).
  Being a *string* scope, a second unnamed dynamic_rnn in the same parent re-enters `rnn`, the
  default-name counter under it was reset on exit, and the new cell gets `lstm_cell` again:
  `ValueError: Variable rnn/lstm_cell/kernel already exists, disallowed. ...`.
- `bidirectional_dynamic_rnn(fw, bw, x)` / `static_bidirectional_rnn`: string scope
  `bidirectional_rnn` (or `scope=`), then string scopes `fw` and `bw`:
  `bidirectional_rnn/fw/lstm_cell/kernel`, `bidirectional_rnn/bw/gru_cell/gates/kernel`.
- A "layer" cell (BasicRNNCell, BasicLSTMCell, LSTMCell, GRUCell) at its FIRST call opens
  `variable_scope(None, default_name=name or cell_base_name(cls))` in the current var scope and
  creates `cell_variables(...)` there: `rnn/lstm_cell/kernel` [depth+units, 4*units].  Two cells in
  one scope: `lstm_cell`, `lstm_cell_1`.  LATER calls of the same cell object create nothing and
  use the built weights wherever they are called: the same cell in `dynamic_rnn(..., scope='a')`
  and `scope='b'` gives only `a/lstm_cell/*` (silent sharing); with another input depth the second
  call fails with a MatMul shape error, not a variable-store error:
  `ValueError: Dimensions must be equal, but are 15 and 13 for '{{node a/while/lstm_cell/MatMul_1}} = MatMul[...](a/while/lstm_cell/concat_1, a/lstm_cell/kernel/read)' with input shapes: [2,15], [13,32].`
- MultiRNNCell (not a layer cell): opens `default_name='multi_rnn_cell'` INSIDE an object re-entry
  of the current var scope, whose sub-scope counters are restored on exit, so the count is lost:
  two MultiRNNCells called in the same scope both get `multi_rnn_cell` -> "Variable
  multi_rnn_cell/cell_0/gru_cell/gates/kernel already exists" (measured), while a plain
  default-named `multi_rnn_cell` scope opened afterwards still gets `multi_rnn_cell`.  Inside it,
  cell i runs in string scope `cell_%d`: `rnn/multi_rnn_cell/cell_0/lstm_cell/kernel`,
  `.../cell_1/gru_cell/...`; a nested MultiRNNCell adds `cell_0/multi_rnn_cell/cell_0/...`.
- `MultiRNNCell([cell] * 2)`: the one cell object is built in `cell_0` and silently reused in
  `cell_1` (only `cell_0/lstm_cell/*` exist).  If the depths differ (input 5, units 8) TensorFlow
  raises: `ValueError: Dimensions must be equal, but are 16 and 13 for '{{node
  rnn/while/rnn/multi_rnn_cell/cell_0/lstm_cell/MatMul_1}} = MatMul[...]' with input shapes:
  [2,16], [13,32].`  (TF 1.x before layer-based cells said "Trying to share variable
  rnn/multi_rnn_cell/cell_1/lstm_cell/kernel, but specified shape (16, 32) and found shape (13, 32)";
  not re-checked here.)  See `shared_cell_depth_conflicts`.
- Wrappers (DropoutWrapper, ResidualWrapper, DeviceWrapper) open no scope: `rnn/lstm_cell/kernel`.

Dtype: cell variables take the input's dtype (float64 input -> float64 kernel) unless the cell's
`dtype=` is given.  Input depth must be static: `dynamic_rnn` with depth None raises `ValueError:
Input size (depth of inputs) must be accessible via shape inference, but saw value None for ...`.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from scopelint.model.varspec import UNKNOWN, VarSpec, get_arg, int_or_none, known_bool, to_snake_case

LAYER_CELLS = frozenset({"BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell"})
MULTI_CELLS = frozenset({"MultiRNNCell"})
WRAPPER_CELLS = frozenset({"DropoutWrapper", "ResidualWrapper", "DeviceWrapper"})

# Positional constructor parameters (a prefix of the real signature, measured with inspect).
CELL_POSITIONAL: dict[str, tuple[str, ...]] = {
    "BasicRNNCell": ("num_units", "activation", "reuse", "name", "dtype"),
    "BasicLSTMCell": ("num_units", "forget_bias", "state_is_tuple", "activation", "reuse", "name", "dtype"),
    "LSTMCell": ("num_units", "use_peepholes", "cell_clip", "initializer", "num_proj", "proj_clip",
                 "num_unit_shards", "num_proj_shards", "forget_bias", "state_is_tuple",
                 "activation", "reuse", "name", "dtype"),
    "GRUCell": ("num_units", "activation", "reuse", "kernel_initializer", "bias_initializer", "name", "dtype"),
    "MultiRNNCell": ("cells", "state_is_tuple"),
    "DropoutWrapper": ("cell",),
    "ResidualWrapper": ("cell",),
    "DeviceWrapper": ("cell", "device"),
}

# The var scopes (relative to the current one) in which each RNN function calls its cell(s).
# Each path component is a string scope (not uniquified).  `scope=` replaces the first component.
RNN_FUNCTION_SCOPES: dict[str, tuple[str, ...]] = {
    "dynamic_rnn": ("rnn",),
    "static_rnn": ("rnn",),
    "raw_rnn": ("rnn",),
    "static_state_saving_rnn": ("rnn",),
    "bidirectional_dynamic_rnn": ("bidirectional_rnn/fw", "bidirectional_rnn/bw"),
    "static_bidirectional_rnn": ("bidirectional_rnn/fw", "bidirectional_rnn/bw"),
}
RNN_FUNCTION_POSITIONAL: dict[str, tuple[str, ...]] = {
    "dynamic_rnn": ("cell", "inputs", "sequence_length", "initial_state", "dtype",
                    "parallel_iterations", "swap_memory", "time_major", "scope"),
    "static_rnn": ("cell", "inputs", "initial_state", "dtype", "sequence_length", "scope"),
    "bidirectional_dynamic_rnn": ("cell_fw", "cell_bw", "inputs", "sequence_length",
                                  "initial_state_fw", "initial_state_bw", "dtype",
                                  "parallel_iterations", "swap_memory", "time_major", "scope"),
    "static_bidirectional_rnn": ("cell_fw", "cell_bw", "inputs", "initial_state_fw",
                                 "initial_state_bw", "dtype", "sequence_length", "scope"),
}

CellArg = tuple[str, Mapping[str, Any]]
"""A cell given to MultiRNNCell or a wrapper: (class name, config).  Pass the SAME tuple object
for the same Python cell object (`[cell] * 2`): identity is what TensorFlow shares on."""


def cell_base_name(cell_class: str) -> str:
    """Default scope name of a cell: "BasicLSTMCell" -> "basic_lstm_cell", "MultiRNNCell" -> "multi_rnn_cell"."""
    return to_snake_case(cell_class)


def cell_kind(cell_class: str) -> str | None:
    """"layer" (default-named scope, counted), "multi" (default-named scope, count lost: see module
    docstring), "wrapper" (no scope, delegates to `config['cell']`), or None if not modelled."""
    if cell_class in LAYER_CELLS:
        return "layer"
    if cell_class in MULTI_CELLS:
        return "multi"
    if cell_class in WRAPPER_CELLS:
        return "wrapper"
    return None


def rnn_function_scopes(function: str, scope: Any = None) -> tuple[str, ...] | None:
    """Relative var-scope paths in which `function` calls its cell(s); `scope` is the call's scope=
    argument when it is a known string (None = not given)."""
    paths = RNN_FUNCTION_SCOPES.get(function)
    if paths is None or (scope is not None and not isinstance(scope, str)):
        return None
    if scope is None:
        return paths
    return tuple("/".join([scope, *path.split("/")[1:]]) for path in paths)


def _cell_scope_name(cell_class: str, config: Mapping[str, Any]) -> str | None:
    name = get_arg(config, "name", None)
    if name is None:
        return cell_base_name(cell_class)
    return name if isinstance(name, str) and name else None


def _layer_cell_variables(cell_class: str, config: Mapping[str, Any], depth: int | None) -> list[VarSpec] | None:
    units = int_or_none(config.get("num_units", UNKNOWN))

    def plus(a: int | None, b: int | None) -> int | None:
        return None if a is None or b is None else a + b

    def times(a: int | None, k: int) -> int | None:
        return None if a is None else a * k

    if cell_class == "BasicRNNCell":
        return [VarSpec("kernel", (plus(depth, units), units)), VarSpec("bias", (units,))]
    if cell_class == "BasicLSTMCell":
        return [VarSpec("kernel", (plus(depth, units), times(units, 4))), VarSpec("bias", (times(units, 4),))]
    if cell_class == "GRUCell":
        return [
            VarSpec("gates/kernel", (plus(depth, units), times(units, 2))),
            VarSpec("gates/bias", (times(units, 2),)),
            VarSpec("candidate/kernel", (plus(depth, units), units)),
            VarSpec("candidate/bias", (units,)),
        ]
    # LSTMCell
    peepholes = known_bool(config, "use_peepholes", False)
    num_proj_arg = get_arg(config, "num_proj", None)
    for shards in ("num_unit_shards", "num_proj_shards"):
        # Sharding partitions kernel into kernel/part_k: not modelled.
        if get_arg(config, shards, None) not in (None, 1):
            return None
    if peepholes is None or num_proj_arg is UNKNOWN:
        return None
    num_proj = None if num_proj_arg is None else int_or_none(num_proj_arg)
    if num_proj_arg is not None and num_proj is None:
        return None
    output = num_proj if num_proj_arg is not None else units
    specs = [VarSpec("kernel", (plus(depth, output), times(units, 4))), VarSpec("bias", (times(units, 4),))]
    if peepholes:
        specs += [VarSpec(n, (units,)) for n in ("w_f_diag", "w_i_diag", "w_o_diag")]
    if num_proj_arg is not None:
        specs.append(VarSpec("projection/kernel", (units, num_proj)))
    return specs


def _cells(config: Mapping[str, Any]) -> Sequence[CellArg] | None:
    cells = config.get("cells", UNKNOWN)
    if not isinstance(cells, (list, tuple)) or not cells:
        return None
    return cells


def cell_variables(cell_class: str, config: Mapping[str, Any], input_depth: int | None) -> list[VarSpec] | None:
    """Variables a cell creates at its first call, relative to the cell's own scope, in creation order.

    LSTMCell(num_units=8) with depth 5: kernel [13, 32], bias [32].  MultiRNNCell: names relative
    to `multi_rnn_cell` ("cell_0/lstm_cell/kernel"), each sub-cell fed the previous one's output
    size; a cell object repeated in `cells` creates nothing the second time (TensorFlow reuses it).
    Wrappers: None (they open no scope; use `unwrap_cell` and model the wrapped cell).
    """
    kind = cell_kind(cell_class)
    if kind == "layer":
        return _layer_cell_variables(cell_class, config, input_depth)
    if kind != "multi":
        return None
    cells = _cells(config)
    if cells is None:
        return None
    specs: list[VarSpec] = []
    seen: list[CellArg] = []
    depth = input_depth
    for index, cell in enumerate(cells):
        cell = unwrap_cell(cell)
        if cell is None:
            return None
        inner_class, inner_config = cell
        scope = _cell_scope_name(inner_class, inner_config)
        if scope is None:
            return None
        if not any(cell is s for s in seen):
            inner = cell_variables(inner_class, inner_config, depth)
            if inner is None:
                return None
            prefix = f"cell_{index}/{scope}/"
            specs += [VarSpec(prefix + s.name, s.shape, s.trainable, s.collections, s.dtype) for s in inner]
            seen.append(cell)
        depth = cell_output_size(inner_class, inner_config)
    return specs


def shared_cell_depth_conflicts(config: Mapping[str, Any], input_depth: int | None) -> list[tuple[int, int, int]]:
    """For a MultiRNNCell: (index, built depth, new depth) for each repeated cell object fed another
    input depth than at its first use: TensorFlow raises the MatMul "Dimensions must be equal" error."""
    cells = _cells(config)
    if cells is None:
        return []
    built: list[tuple[CellArg, int | None]] = []
    conflicts: list[tuple[int, int, int]] = []
    depth = input_depth
    for index, wrapped in enumerate(cells):
        cell = unwrap_cell(wrapped)
        if cell is None:
            return []
        first = next((d for c, d in built if c is cell), UNKNOWN)
        if first is UNKNOWN:
            built.append((cell, depth))
        elif first is not None and depth is not None and first != depth:
            conflicts.append((index, first, depth))
        depth = cell_output_size(*cell)
    return conflicts


def unwrap_cell(cell: Any) -> CellArg | None:
    """The cell a (possibly nested) wrapper delegates to; wrappers open no scope (measured:
    DropoutWrapper(LSTMCell) in dynamic_rnn -> rnn/lstm_cell/kernel).  None when unknown."""
    while isinstance(cell, tuple) and len(cell) == 2 and cell_kind(cell[0]) == "wrapper":
        cell = cell[1].get("cell", UNKNOWN)
    if not (isinstance(cell, tuple) and len(cell) == 2 and isinstance(cell[0], str)):
        return None
    return cell


def cell_output_size(cell_class: str, config: Mapping[str, Any]) -> int | None:
    """The depth a cell hands to the next layer: num_units, or num_proj for a projected LSTMCell."""
    kind = cell_kind(cell_class)
    if kind == "layer":
        if cell_class == "LSTMCell":
            num_proj = get_arg(config, "num_proj", None)
            if num_proj is not None:
                return int_or_none(num_proj)
        return int_or_none(config.get("num_units", UNKNOWN))
    if kind == "multi":
        cells = _cells(config)
        last = None if cells is None else unwrap_cell(cells[-1])
        return None if last is None else cell_output_size(*last)
    if kind == "wrapper":
        cell = unwrap_cell(config.get("cell", UNKNOWN))
        return None if cell is None else cell_output_size(*cell)
    return None
