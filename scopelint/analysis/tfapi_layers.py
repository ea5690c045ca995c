"""tf.layers, Keras layers, RNN cells and the RNN functions, as the interpreter models them.

Handlers register into `tfapi.HANDLERS`; the variables each construct creates come from the pure
tables in `scopelint.model.layers` and `scopelint.model.rnn`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tfapi import (
    HANDLERS,
    bind,
    deps_of,
    is_tf_value,
    lib_config,
    reuse_of,
)
from scopelint.analysis.values import UNKNOWN, LayerObject, ScopeValue, Tensor
from scopelint.model import layers as layerlib
from scopelint.model import rnn as rnnlib
from scopelint.model.graph import GraphModel, Initializer, Where
from scopelint.model.scopes import Reuse
from scopelint.trace import UNKNOWN_PART, Related, VariableRecord

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

# ---------------------------------------------------------------------------------------------
# tf.layers and Keras


def layer_call(interp: "Interpreter", path: str, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    leaf = path.split(".")[-1]
    keras = path.startswith("tf.keras.")
    if leaf[:1].isupper():
        return make_layer(interp, leaf, keras, args, kwargs, node)
    if keras:
        interp.graph.note_unmodelled_creation()
        return Tensor(None, None, None)
    return functional_layer(interp, leaf, args, kwargs, node)


def make_layer(interp: "Interpreter", class_name: str, keras: bool, args: list[Any], kwargs: dict[str, Any],
               node: cst.CSTNode) -> Any:
    base = layerlib.keras_base_name(class_name)
    table = layerlib.KERAS_LAYERS if keras else layerlib.TF_LAYERS
    if base not in table:
        interp.graph.note_unmodelled_creation()
        return UNKNOWN
    positional = layerlib.TF_LAYERS_POSITIONAL.get(base, ())
    config = dict(zip(positional, args))
    config.update(kwargs)
    name = config.get("name")
    return LayerObject("keras" if keras else "layers", class_name, config,
                       name if isinstance(name, str) else None, interp.site(node))


def functional_layer(interp: "Interpreter", leaf: str, args: list[Any], kwargs: dict[str, Any],
                     node: cst.CSTNode) -> Any:
    base = layerlib.layer_base_name(leaf)
    if base not in layerlib.TF_LAYERS:
        interp.graph.note_unmodelled_creation()
        return Tensor(None, None, None)
    inputs = args[0] if args else kwargs.get("inputs", UNKNOWN)
    positional = layerlib.TF_LAYERS_POSITIONAL.get(base, ())
    config = dict(zip(positional, args[1:]))
    config.update({k: v for k, v in kwargs.items() if k != "inputs"})
    name = config.get("name")
    reuse = reuse_of(config.get("reuse"))
    layer = LayerObject("layers", leaf, config, name if isinstance(name, str) else None, interp.site(node))
    graph = interp.graph
    # Functional layers construct a layer object, which takes a name uid (layers.py).
    uids = graph.layer_uids
    if layer.name is None:
        uids.tf_layers_name(base)
    return build_tf_layer(interp, layer, inputs, node, functional_reuse=reuse or Reuse.UNKNOWN,
                          functional=True)


def build_tf_layer(interp: "Interpreter", layer: LayerObject, inputs: Any, node: cst.CSTNode,
                   functional_reuse: Reuse = Reuse.FALSE, functional: bool = False) -> Any:
    graph = interp.graph
    where = interp.where(node)
    base = layerlib.layer_base_name(layer.class_name)
    in_shape = getattr(inputs, "shape", None) if is_tf_value(inputs) else None
    config = lib_config(layer.config)
    specs = layerlib.layer_variables(base, config, in_shape)
    out_shape = layerlib.layer_output_shape(base, config, in_shape)
    if specs is None:
        graph.note_unmodelled_creation()
    first_call = layer.scope is None
    if first_call:
        graph.note_name_scope_ignored(f"{layer.name or base}/...", where, what=f"tf.layers.{base}")
        # `_set_scope`: the scope is fixed at the first call.
        if functional and layer.name is not None:
            frame = graph.enter_variable_scope(layer.name, where, reuse=functional_reuse, auxiliary_name_scope=False)
        else:
            if functional_reuse in (Reuse.TRUE, Reuse.AUTO):
                setup = graph.enter_variable_scope(base, where)
            else:
                default = layer.name or base
                setup = graph.enter_variable_scope(None, where, default_name=default)
            layer.scope = setup.scope
            graph.exit_variable_scope(setup)
            frame = graph.enter_variable_scope(layer.scope, where, reuse=functional_reuse, auxiliary_name_scope=False)
        layer.scope = frame.scope
        if functional and layer.name is None and frame.scope.reuse is Reuse.AUTO:
            _note_auto_named_duplicate(graph, layer, where, frame.previous_scope.name)
        if functional and layer.name is not None and frame.scope.reuse is Reuse.AUTO:
            _note_named_sharing(graph, layer, where)
    else:
        frame = graph.enter_variable_scope(layer.scope, where, reuse=Reuse.TRUE, auxiliary_name_scope=False)
    try:
        created: list[VariableRecord] = []
        for spec in specs or []:
            dtype = spec.dtype or (getattr(inputs, "dtype", None) if isinstance(inputs, Tensor) else None) or "float32"
            record = graph.get_variable(
                spec.name, where, shape=spec.shape, shape_given=True,
                dtype=dtype, initializer=Initializer(True), trainable=spec.trainable,
                collections=tuple(c for c in spec.collections if c != "trainable_variables"),
                kind="layer",
            )
            if isinstance(record, VariableRecord):
                created.append(record)
        if first_call:
            layer.variables = created
    finally:
        graph.exit_variable_scope(frame)
    deps = deps_of(inputs)
    if deps is not None:
        deps = deps | frozenset(id(r) for r in layer.variables)
    return Tensor(out_shape if isinstance(out_shape, tuple) else None, None, deps)


def _note_auto_named_duplicate(graph: GraphModel, layer: LayerObject, where: Where, parent: str) -> None:
    """TFS202: the same unnamed layer call ran again under AUTO_REUSE in the same parent entry and
    got a new `_N` scope instead of sharing."""
    scopes = graph.auto_layer_scopes.setdefault((where.site, parent), [])
    assert layer.scope is not None
    if graph.speculative:
        return  # a run that may not happen proves no repetition
    if scopes and layer.scope.name not in scopes:
        graph._event(
            "unnamed_layer_duplicated",
            f"this unnamed layer ran again under reuse=AUTO_REUSE and got new variables under "
            f"'{layer.scope.name}' instead of sharing '{scopes[0]}'. Give it a name= to share it",
            where, certain=layer.scope.certain,
        )
    scopes.append(layer.scope.name)


def _note_named_sharing(graph: GraphModel, layer: LayerObject, where: Where) -> None:
    """TFS206: a named layer under AUTO_REUSE reusing variables a *different* call site created."""
    assert layer.scope is not None
    prefix = layer.scope.name + "/"
    for entry in graph.store.values():
        record = entry.record
        if record.store_key and record.store_key.startswith(prefix) and record.site != where.site \
                and record.kind == "layer" and not entry.maybe:
            graph._event(
                "unintended_sharing",
                f"layer name '{layer.name}' is already used by the layer at line {record.site.line}: under "
                f"AUTO_REUSE both share the variables of '{layer.scope.name}'",
                where, certain=layer.scope.certain, related=(Related(record.site, "first layer with that name"),),
            )
            return


def call_layer_object(interp: "Interpreter", layer: LayerObject, args: list[Any], kwargs: dict[str, Any],
                      node: cst.CSTNode) -> Any:
    inputs = args[0] if args else kwargs.get("inputs", UNKNOWN)
    if layer.family == "layers":
        return build_tf_layer(interp, layer, inputs, node)
    if layer.family == "keras":
        return build_keras_layer(interp, layer, inputs, node)
    if layer.family == "cell":
        return call_cell(interp, layer, inputs, node), UNKNOWN
    return UNKNOWN


def build_keras_layer(interp: "Interpreter", layer: LayerObject, inputs: Any, node: cst.CSTNode) -> Any:
    graph = interp.graph
    where = interp.where(node)
    base = layerlib.keras_base_name(layer.class_name)
    in_shape = getattr(inputs, "shape", None) if is_tf_value(inputs) else None
    config = lib_config(layer.config)
    if layer.keras_name is None:
        layer.keras_name = layer.name or graph.layer_uids.keras_name(base)
    if layer.scope is None and not layer.variables:
        specs = layerlib.keras_layer_variables(layer.class_name, config, in_shape)
        if specs:
            # Only a layer with weights duplicates anything (a Flatten or a pooling layer in a
            # reused tower creates nothing to share).
            graph.note_created_under_reuse(
                "keras_ignores_reuse",
                "Keras layer built in scope '{scope}' with reuse={reuse}: Keras ignores variable_scope reuse "
                "and creates new variables. Build the layer object once and call it again to share",
                where,
            )
        if specs is None:
            graph.note_unmodelled_creation()
        frame = graph.enter_name_scope(layer.keras_name, where, user=False)
        try:
            for spec in specs or []:
                record = graph.create_variable(spec.name, where, shape=spec.shape, dtype=spec.dtype or "float32",
                                               trainable=spec.trainable, kind="keras")
                layer.variables.append(record)
        finally:
            graph.exit_name_scope(frame, user=False)
        layer.scope = graph.var_scope
    out_shape = layerlib.keras_layer_output_shape(layer.class_name, config, in_shape)
    deps = deps_of(inputs)
    if deps is not None:
        deps = deps | frozenset(id(r) for r in layer.variables)
    return Tensor(out_shape if isinstance(out_shape, tuple) else None, None, deps)


# ---------------------------------------------------------------------------------------------
# RNN cells


def make_cell(interp: "Interpreter", class_name: str, args: list[Any], kwargs: dict[str, Any],
              node: cst.CSTNode) -> Any:
    positional = rnnlib.CELL_POSITIONAL.get(class_name, ())
    config = dict(zip(positional, args))
    config.update(kwargs)
    name = config.get("name")
    cell = LayerObject("cell", class_name, config, name if isinstance(name, str) else None, interp.site(node))
    if class_name == "MultiRNNCell":
        cells = config.get("cells")
        if isinstance(cells, (list, tuple)) and all(isinstance(c, LayerObject) for c in cells):
            cell.cells = list(cells)
            seen: set[int] = set()
            for sub in cells:
                if id(sub) in seen:
                    sub.reuse_reported = True
                    interp.graph._event(
                        "rnn_cell_reused",
                        "the same cell object is used for several layers of MultiRNNCell: they share one "
                        "set of weights (or fail with a shape error). Create one cell per layer",
                        interp.where(node),
                    )
                    break
                seen.add(id(sub))
        else:
            cell.cells_known = False
    elif class_name in rnnlib.WRAPPER_CELLS:
        inner = config.get("cell")
        cell.cells = [inner] if isinstance(inner, LayerObject) else []
    return cell


def call_cell(interp: "Interpreter", cell: LayerObject, inputs: Any, node: cst.CSTNode) -> Any:
    """Call a cell with inputs of known depth: creates its variables at the first call."""
    graph = interp.graph
    where = interp.where(node)
    depth = _depth(inputs)
    if cell.class_name in rnnlib.WRAPPER_CELLS:
        if cell.cells:
            return call_cell(interp, cell.cells[0], inputs, node)
        graph.note_unmodelled_creation()
        return Tensor(None, None, None)
    if cell.class_name == "MultiRNNCell":
        if not cell.cells_known:
            graph.note_unmodelled_creation()
            return Tensor(None, None, None)
        # A default-named scope inside an object re-entry of the current scope (rnn.py).
        outer = graph.enter_variable_scope(graph.var_scope, where, auxiliary_name_scope=False)
        try:
            frame = graph.enter_variable_scope(None, where, default_name="multi_rnn_cell")
            try:
                current = inputs
                for index, sub in enumerate(cell.cells):
                    sub_frame = graph.enter_variable_scope(f"cell_{index}", where)
                    try:
                        current = call_cell(interp, sub, current, node)
                    finally:
                        graph.exit_variable_scope(sub_frame)
            finally:
                graph.exit_variable_scope(frame)
        finally:
            graph.exit_variable_scope(outer)
        return current
    config = lib_config(cell.config)
    if cell.scope is None:
        base = cell.name or rnnlib.cell_base_name(cell.class_name)
        frame = graph.enter_variable_scope(None, where, default_name=base)
        cell.scope = frame.scope
        cell.used_under.append(frame.previous_scope.name)
        try:
            specs = rnnlib.cell_variables(cell.class_name, config, depth)
            if specs is None:
                graph.note_unmodelled_creation()
            for spec in specs or []:
                record = graph.get_variable(spec.name, where, shape=spec.shape, shape_given=True,
                                            dtype=spec.dtype or "float32", initializer=Initializer(True),
                                            trainable=spec.trainable, kind="rnn")
                if isinstance(record, VariableRecord):
                    cell.variables.append(record)
        finally:
            graph.exit_variable_scope(frame)
        cell.built_input_depth = depth
    else:
        parent = graph.var_scope.name
        if parent not in cell.used_under:
            cell.used_under.append(parent)
            if cell.reuse_reported:
                return Tensor(None, None, None)
            cell.reuse_reported = True
            graph._event(
                "rnn_cell_reused",
                f"this cell object was first used under '{cell.used_under[0]}': calling it again under "
                f"'{parent}' silently shares its weights (or fails if the input depth differs). "
                "Create a new cell for each RNN",
                where, certain=UNKNOWN_PART not in parent + cell.used_under[0],
            )
    size = rnnlib.cell_output_size(cell.class_name, config)
    batch = inputs.shape[0] if is_tf_value(inputs) and inputs.shape else None
    deps = deps_of(inputs)
    if deps is not None:
        deps = deps | frozenset(id(r) for r in cell.variables)
    return Tensor((batch, size) if size is not None else None, None, deps)


def _depth(inputs: Any) -> int | None:
    shape = getattr(inputs, "shape", None) if is_tf_value(inputs) else None
    if shape:
        return shape[-1]
    return None


def _rnn(interp: "Interpreter", function: str, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    where = interp.where(node)
    if function in ("bidirectional_dynamic_rnn", "static_bidirectional_rnn"):
        bound = bind(("cell_fw", "cell_bw", "inputs"), args, kwargs)
        cells = [bound.get("cell_fw"), bound.get("cell_bw")]
    else:
        bound = bind(("cell", "inputs"), args, kwargs)
        cells = [bound.get("cell")]
    inputs = bound.get("inputs")
    scope_arg = kwargs.get("scope")
    if function in ("static_rnn", "static_bidirectional_rnn") and isinstance(inputs, (list, tuple)) and inputs:
        step_input = inputs[0]
    elif is_tf_value(inputs) and inputs.shape is not None and len(inputs.shape) >= 2:
        step_input = Tensor((inputs.shape[0], inputs.shape[-1]), None, inputs.deps)
    else:
        step_input = Tensor(None, None, deps_of(inputs))
    if not all(isinstance(c, LayerObject) and c.family == "cell" for c in cells):
        graph.note_unmodelled_creation()
        return Tensor(None, None, None), UNKNOWN
    if isinstance(scope_arg, ScopeValue):
        outer_target: Any = scope_arg.scope
    elif scope_arg is None:
        outer_target = "bidirectional_rnn" if "bidirectional" in function else "rnn"
    elif isinstance(scope_arg, str):
        outer_target = scope_arg
    else:
        outer_target = UNKNOWN_PART
    outer = graph.enter_variable_scope(outer_target, where)
    outputs = []
    try:
        for index, cell in enumerate(cells):
            inner = None
            if len(cells) == 2:
                inner = graph.enter_variable_scope("fw" if index == 0 else "bw", where)
            try:
                outputs.append(call_cell(interp, cell, step_input, node))
            finally:
                if inner is not None:
                    graph.exit_variable_scope(inner)
    finally:
        graph.exit_variable_scope(outer)
    out = outputs[0]
    if function == "dynamic_rnn" and is_tf_value(inputs) and inputs.shape is not None and out.shape is not None:
        out = Tensor(tuple(inputs.shape[:-1]) + (out.shape[-1],), None, out.deps)
    return out, UNKNOWN


for _function in ("dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn"):
    HANDLERS[f"tf.nn.{_function}"] = (lambda f: lambda i, a, k, n: _rnn(i, f, a, k, n))(_function)


