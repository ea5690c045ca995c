"""TensorFlow's API as the interpreter sees it: name resolution and one handler per modelled call.

Handlers translate abstract argument values into calls on the pure model (`scopelint.model`).
A TF call that is not modelled returns an unknown tensor; if it lives in a namespace that creates
variables, the graph is marked incomplete so that "does not exist" is no longer claimed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from scopelint.analysis.values import (
    UNKNOWN,
    ContextValue,
    EMAValue,
    GraphValue,
    InitializerValue,
    LayerObject,
    OptimizerValue,
    PartialStr,
    PartitionedValue,
    PartitionerValue,
    ReuseValue,
    ScopeValue,
    TemplateValue,
    Tensor,
    TFRef,
    UserFunction,
    VariableValue,
    is_known,
)
from scopelint.model import devices as devmodel
from scopelint.model import layers as layerlib
from scopelint.model import optimizers as optlib
from scopelint.model import rnn as rnnlib
from scopelint.model.cluster import ClusterValue
from scopelint.model.graph import GraphModel, Initializer, ModelRaise, PartitionedEntry, Where
from scopelint.model.partitions import FixedSizePartitioner, OpaquePartitioner
from scopelint.model.scopes import UNKNOWN_SETTING, Reuse
from scopelint.trace import UNKNOWN_PART, Event, Related, VariableRecord

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

# ---------------------------------------------------------------------------------------------
# Name resolution

_MODULE_PREFIXES = (
    ("tf.compat.v1.", "tf."), ("tf.compat.v2.", "tf."), ("tf.v1.", "tf."),
    ("tf.python.ops.variable_scope.", "tf."), ("tf.python.ops.variables.", "tf."),
    ("tf.python.ops.init_ops.", "tf."), ("tf.python.framework.ops.", "tf."),
    ("tf.python.ops.array_ops.", "tf."), ("tf.python.ops.math_ops.", "tf."),
    ("tf.python.ops.nn.", "tf.nn."), ("tf.python.ops.rnn.", "tf.nn."),
    ("tf.python.ops.rnn_cell_impl.", "tf.nn.rnn_cell."), ("tf.python.ops.rnn_cell.", "tf.nn.rnn_cell."),
    ("tf.python.ops.partitioned_variables.", "tf."), ("tf.python.ops.template.", "tf."),
    ("tf.python.layers.core.", "tf.layers."), ("tf.python.layers.convolutional.", "tf.layers."),
    ("tf.python.layers.normalization.", "tf.layers."), ("tf.python.layers.layers.", "tf.layers."),
    ("tf.python.training.device_setter.", "tf.train."), ("tf.python.training.server_lib.", "tf.train."),
    ("tf.python.training.training.", "tf.train."), ("tf.python.training.adam.", "tf.train."),
    ("tf.python.training.training_util.", "tf.train."),
    ("tf.python.training.moving_averages.", "tf.train."), ("tf.python.keras.", "tf.keras."),
    ("tf.contrib.rnn.", "tf.nn.rnn_cell."), ("tf.contrib.framework.get_or_create_global_step", "tf.train.get_or_create_global_step"),
    ("tf.initializers.", "tf.initializers."), ("tf.distribute.Server", "tf.train.Server"),
)
_EXACT = {
    "tf.compat.v1": "tf", "tf.compat.v2": "tf", "tf.compat": "tf.compat", "tf.v1": "tf",
    "tf.python.ops.variable_scope": "tf", "tf.python.ops.variables": "tf", "tf.python.ops.init_ops": "tf",
    "tf.python.ops.array_ops": "tf", "tf.python.ops.math_ops": "tf", "tf.python.framework.ops": "tf",
    "tf.python.ops.rnn_cell_impl": "tf.nn.rnn_cell", "tf.python.ops.rnn_cell": "tf.nn.rnn_cell",
    "tf.python.ops.rnn": "tf.nn", "tf.python.layers.core": "tf.layers", "tf.contrib.rnn": "tf.nn.rnn_cell",
    "tf.python.training.device_setter": "tf.train", "tf.python.training.training": "tf.train",
    "tf.python.keras": "tf.keras", "tf.keras.compat.v1": "tf",
}
# Cell classes also reachable as tf.nn.rnn_cell.X through tf.contrib.rnn; the RNN functions that
# tf.contrib.rnn exposes keep their tf.nn names.
_RNN_FUNCTIONS = ("static_rnn", "static_bidirectional_rnn", "static_state_saving_rnn")


def canonical(path: str) -> str:
    for _ in range(4):
        if path in _EXACT:
            path = _EXACT[path]
        for prefix, replacement in _MODULE_PREFIXES:
            if path.startswith(prefix):
                path = replacement + path[len(prefix):]
                break
        else:
            break
    if path.startswith("tf.nn.rnn_cell.") and path.split(".")[-1] in _RNN_FUNCTIONS:
        path = "tf.nn." + path.split(".")[-1]
    return path


def resolve_path(path: str) -> Any:
    """The value of a TF attribute path: constants become values, everything else a TFRef."""
    if path == "tf.AUTO_REUSE":
        return ReuseValue(Reuse.AUTO)
    return TFRef(path)


def tf_path_for_module(module: str) -> str | None:
    """The TF path a Python module name stands for ("tensorflow.compat.v1" -> "tf")."""
    if module == "tensorflow" or module.startswith("tensorflow."):
        return canonical("tf" + module[len("tensorflow"):])
    if module in ("tf_slim",) or module.startswith("tf_slim."):
        return "tf.contrib.slim" + module[len("tf_slim"):]
    return None


# Namespaces whose unmodelled calls may create variables or advance default-name counters.
_MAY_CREATE = (
    "tf.contrib", "tf.keras", "tf.layers", "tf.nn.rnn_cell", "tf.nn.dynamic_rnn", "tf.nn.static_rnn",
    "tf.nn.bidirectional", "tf.nn.raw_rnn", "tf.metrics", "tf.train", "tf.estimator", "tf.feature_column",
    "tf.make_template", "tf.get_variable", "tf.Variable", "tf.get_local_variable", "tf.hub",
    "tf.nn.embedding_lookup_sparse", "tf.lookup", "tf.summary", "tf.data", "tf.saved_model", "tf.losses",
    "tf.nn.sampled_softmax_loss", "tf.nn.nce_loss", "tf.tpu", "tf.distribute", "tf.while_loop",
    "tf.cond", "tf.map_fn", "tf.scan", "tf.foldl", "tf.foldr", "tf.case", "tf.function",
)

_DTYPES = {
    "float16", "float32", "float64", "bfloat16", "half", "double", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64", "complex128", "resource",
    "variant", "qint8", "quint8", "qint32",
}
_GRAPH_KEYS = {
    "GLOBAL_VARIABLES": "variables", "LOCAL_VARIABLES": "local_variables",
    "TRAINABLE_VARIABLES": "trainable_variables", "MODEL_VARIABLES": "model_variables",
    "MOVING_AVERAGE_VARIABLES": "moving_average_variables", "GLOBAL_STEP": "global_step",
    "METRIC_VARIABLES": "metric_variables",
}

# ---------------------------------------------------------------------------------------------
# Helpers on abstract values


def is_tf_value(value: Any) -> bool:
    return isinstance(value, (Tensor, VariableValue, PartitionedValue, LayerObject, ScopeValue))


def deps_of(*values: Any) -> frozenset[int] | None:
    result: set[int] = set()
    for value in values:
        if isinstance(value, (Tensor, VariableValue, PartitionedValue)):
            deps = value.deps
            if deps is None:
                return None
            result |= deps
        elif isinstance(value, (list, tuple)):
            inner = deps_of(*value)
            if inner is None:
                return None
            result |= inner
        elif value is UNKNOWN or isinstance(value, PartialStr):
            return None
    return frozenset(result)


def tensor_like(value: Any) -> Any:
    if isinstance(value, (Tensor, VariableValue, PartitionedValue)):
        return Tensor(None, None, value.deps)
    return UNKNOWN


def tensor_binop(left: Any, right: Any) -> Any:
    if not (is_tf_value(left) or is_tf_value(right)):
        return UNKNOWN
    shape = None
    left_shape = getattr(left, "shape", None) if is_tf_value(left) else ()
    right_shape = getattr(right, "shape", None) if is_tf_value(right) else ()
    if left_shape == right_shape or right_shape == ():
        shape = left_shape
    elif left_shape == ():
        shape = right_shape
    return Tensor(shape, None, deps_of(left, right))


def truth(value: Any) -> bool | None:
    if isinstance(value, (Tensor, VariableValue)):
        return None
    if isinstance(value, ReuseValue):
        return True
    return True if value is not None else False


def iterate(value: Any) -> list[Any] | None:
    if isinstance(value, PartitionedValue):
        return [VariableValue(part) for part in value.parts]
    return None


def subscript(value: Any, key: Any) -> Any:
    if isinstance(value, (Tensor, VariableValue, PartitionedValue)):
        shape = value.shape
        if isinstance(key, int) and shape is not None and len(shape) > 0:
            return Tensor(shape[1:], None, value.deps)
        return Tensor(None, None, value.deps)
    return UNKNOWN


def length(value: Any) -> Any:
    return UNKNOWN


def dtype_name(value: Any) -> str | None:
    if isinstance(value, TFRef):
        name = value.path.split(".")[-1]
        if name in _DTYPES:
            return {"half": "float16", "double": "float64"}.get(name, name)
        return None
    if isinstance(value, str) and value in _DTYPES:
        return value
    return None


def shape_value(value: Any) -> tuple[bool, Any]:
    """(given, shape) for a `shape=` argument; shape None when the analysis cannot compute it."""
    if value is None:
        return False, None
    if isinstance(value, int) and not isinstance(value, bool):
        return True, (value,)
    if isinstance(value, (list, tuple)):
        dims: list[int | None] = []
        for dim in value:
            if isinstance(dim, int) and not isinstance(dim, bool):
                dims.append(dim)
            else:
                dims.append(None)
        if any(not (isinstance(d, int) or d is None) for d in value):
            return True, None
        if any(d is UNKNOWN for d in value):
            return True, tuple(dims)
        return True, tuple(dims)
    return True, None


def shape_known_dims(value: Any) -> tuple[bool, Any]:
    """Like shape_value, but a dimension the analysis could not compute makes the shape unknown
    (only literal None dimensions stay None)."""
    if isinstance(value, (list, tuple)) and any(not (d is None or isinstance(d, int)) for d in value):
        return True, None
    return shape_value(value)


def lib_config(values: dict[str, Any]) -> dict[str, Any]:
    """Argument values as the pure library tables take them."""
    converted: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, (str, int, float, bool, type(None))) and not isinstance(value, PartialStr):
            converted[key] = value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, (int, type(None))) for v in value):
            converted[key] = tuple(value)
        elif isinstance(value, TFRef) and dtype_name(value):
            converted[key] = dtype_name(value)
        elif isinstance(value, (InitializerValue, TFRef, UserFunction)):
            converted[key] = "<callable>"
        else:
            converted[key] = UNKNOWN
    return converted


@dataclass
class Args:
    """Positional and keyword arguments bound to a TF signature."""

    values: dict[str, Any]
    given: set[str]

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def has(self, name: str) -> bool:
        return name in self.given


def bind(signature: tuple[str, ...], args: list[Any], kwargs: dict[str, Any]) -> Args:
    values: dict[str, Any] = {}
    for name, value in zip(signature, args):
        values[name] = value
    values.update(kwargs)
    return Args(values, set(values))


@dataclass(eq=False)
class TFMethod:
    owner: Any
    name: str


@dataclass
class Entered:
    value: Any
    exit: Callable[[], None] = lambda: None


def install_devices(graph: GraphModel, unknown: bool = False) -> None:
    graph.devices = devmodel.DeviceStack()
    if unknown:
        graph.devices.push(UNKNOWN)


# ---------------------------------------------------------------------------------------------
# Context managers


def enter_context(interp: "Interpreter", manager: Any, node: cst.CSTNode) -> Entered:
    graph = interp.graph
    if isinstance(manager, ContextValue):
        if manager.kind == "variable_scope":
            frame = enter_variable_scope(interp, manager.args, node)
            return Entered(ScopeValue(frame.scope), lambda: graph.exit_variable_scope(frame))
        if manager.kind == "name_scope":
            name = manager.args.get("name")
            frame = graph.enter_name_scope(_scope_text(name), interp.where(node))
            return Entered(frame.name, lambda: graph.exit_name_scope(frame))
        if manager.kind == "device":
            entry = manager.args.get("device")
            try:
                graph.devices.push(_device_entry(entry))
            except devmodel.DeviceSpecError as error:
                graph._event("invalid_arguments", str(error), interp.where(node), raises=True,
                             error="ValueError")
            return Entered(None, graph.devices.pop)
        if manager.kind == "graph":
            target = manager.args["graph"]
            previous = interp.graph
            interp.graph = target
            if target not in interp.graphs:
                interp.graphs.append(target)

            def leave() -> None:
                interp.graph = previous

            return Entered(GraphValue(target), leave)
        return Entered(manager.args.get("value", UNKNOWN))
    return Entered(UNKNOWN)


def _scope_text(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    return UNKNOWN_PART


def _device_entry(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str) and not isinstance(value, PartialStr):
        return value
    if isinstance(value, devmodel.ReplicaDeviceSetter):
        return value
    return UNKNOWN


_VARIABLE_SCOPE_SIG = ("name_or_scope", "default_name", "values", "initializer", "regularizer",
                       "caching_device", "partitioner", "custom_getter", "reuse", "dtype",
                       "use_resource", "constraint", "auxiliary_name_scope")


def reuse_of(value: Any) -> Reuse | None:
    """A `reuse=` value; None when TensorFlow would reject it."""
    if value is None or value is False:
        return Reuse.FALSE
    if value is True:
        return Reuse.TRUE
    if isinstance(value, ReuseValue):
        return value.reuse
    if isinstance(value, (int, float, str)) and not isinstance(value, PartialStr):
        return None
    return Reuse.UNKNOWN


def enter_variable_scope(interp: "Interpreter", args: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    where = interp.where(node)
    name_or_scope = args.get("name_or_scope")
    default_name = args.get("default_name")
    if isinstance(name_or_scope, ScopeValue):
        target: Any = name_or_scope.scope
    elif name_or_scope is None or isinstance(name_or_scope, str):
        target = name_or_scope
    elif isinstance(name_or_scope, (int, float, list, tuple, dict)):
        graph._event("invalid_arguments", "VariableScope: name_or_scope must be a string or VariableScope.",
                     where, raises=True, error="TypeError")
        target = UNKNOWN_PART
    else:
        target = UNKNOWN_PART
    if default_name is not None and not isinstance(default_name, str):
        default_name = UNKNOWN_PART
    reuse_arg = args.get("reuse")
    reuse = reuse_of(reuse_arg)
    if reuse is None:
        graph._event("invalid_arguments", "The reuse parameter must be True or False or None.", where,
                     raises=True, error="ValueError")
        reuse = Reuse.UNKNOWN
    aux = args.get("auxiliary_name_scope", True)
    if is_known(aux) and not isinstance(aux, bool):
        graph._event("invalid_arguments",
                     f"The auxiliary_name_scope must be `True` or `False`, while get {aux}", where,
                     raises=True, error="TypeError")
    partitioner = args.get("partitioner")
    if isinstance(partitioner, PartitionerValue):
        partitioner = partitioner.partitioner
    elif partitioner is not None:
        partitioner = UNKNOWN_SETTING
    return graph.enter_variable_scope(
        target,
        where,
        default_name=default_name,
        reuse=reuse,
        reuse_explicit_false=reuse_arg is False,
        auxiliary_name_scope=aux if isinstance(aux, bool) else True,
        partitioner=partitioner,
        dtype=dtype_name(args.get("dtype")),
        custom_getter=args.get("custom_getter") is not None,
    )


# ---------------------------------------------------------------------------------------------
# Attribute access on TF values


def getattr_value(interp: "Interpreter", owner: Any, name: str, node: cst.CSTNode) -> Any:
    if isinstance(owner, int) and name == "value":
        return owner  # TF1 Dimension.value
    if isinstance(owner, ScopeValue):
        if name == "name":
            return owner.scope.name
        if name == "original_name_scope":
            return owner.scope.original_name_scope
        if name == "reuse":
            reuse = owner.scope.reuse
            return {Reuse.FALSE: False, Reuse.TRUE: True, Reuse.AUTO: ReuseValue(Reuse.AUTO)}.get(reuse, UNKNOWN)
        return TFMethod(owner, name)
    if isinstance(owner, (Tensor, VariableValue, PartitionedValue)):
        if name in ("shape",):
            return tuple(owner.shape) if owner.shape is not None else UNKNOWN
        if name == "name" and isinstance(owner, VariableValue):
            return owner.record.name + ":0" if owner.record.certain else UNKNOWN
        if name == "dtype" and isinstance(owner, VariableValue) and owner.record.dtype:
            return TFRef("tf." + owner.record.dtype)
        return TFMethod(owner, name)
    if isinstance(owner, (LayerObject, TemplateValue, OptimizerValue, EMAValue, GraphValue)):
        if isinstance(owner, TemplateValue) and name == "variable_scope_name":
            return owner.scope.name + "/" if owner.scope is not None else UNKNOWN
        if isinstance(owner, LayerObject) and name in ("variables", "trainable_variables", "weights",
                                                         "trainable_weights"):
            if owner.scope is None and not owner.variables:
                return []
            return [VariableValue(record) for record in owner.variables]
        return TFMethod(owner, name)
    if isinstance(owner, (tuple, list)) and name == "as_list":
        return TFMethod(owner, name)
    return UNKNOWN


# ---------------------------------------------------------------------------------------------
# Calls

Handler = Callable[["Interpreter", list[Any], dict[str, Any], cst.CSTNode], Any]
HANDLERS: dict[str, Handler] = {}


def handles(*paths: str) -> Callable[[Handler], Handler]:
    def register(function: Handler) -> Handler:
        for path in paths:
            HANDLERS[path] = function
        return function

    return register


def call(interp: "Interpreter", callee: Any, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    if isinstance(callee, TFRef):
        interp.tensorflow_seen = True
        handler = HANDLERS.get(callee.path)
        if handler is not None:
            interp.current_callee = callee.path
            return handler(interp, args, kwargs, node)
        leaf = callee.path.split(".")[-1]
        if callee.path.startswith("tf.layers.") or callee.path.startswith("tf.keras.layers."):
            return layer_call(interp, callee.path, args, kwargs, node)
        if callee.path.startswith("tf.nn.rnn_cell.") and rnnlib.cell_kind(leaf) is not None:
            return make_cell(interp, leaf, args, kwargs, node)
        if dtype_name(callee) is not None:
            return UNKNOWN
        if callee.path.startswith("tf.") and (leaf.endswith("_initializer") or callee.path.startswith("tf.initializers.")
                                              or callee.path.startswith("tf.keras.initializers.")):
            return InitializerValue(True)
        if callee.path.startswith(_MAY_CREATE):
            interp.graph.complete = False
        if any(is_tf_value(v) for v in list(args) + list(kwargs.values())) or callee.path.startswith("tf."):
            name = kwargs.get("name")
            if isinstance(name, str) and not isinstance(name, PartialStr) and name:
                interp.graph.record_op_name(name)
            return Tensor(None, None, deps_of(*args, *kwargs.values()))
        return UNKNOWN
    if isinstance(callee, TFMethod):
        return call_method(interp, callee, args, kwargs, node)
    if isinstance(callee, LayerObject):
        return call_layer_object(interp, callee, args, kwargs, node)
    if isinstance(callee, TemplateValue):
        return call_template(interp, callee, args, kwargs, node)
    return NotImplemented


@handles("tf.variable_scope", "tf.VariableScope")
def _variable_scope(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(_VARIABLE_SCOPE_SIG, args, kwargs)
    return ContextValue("variable_scope", bound.values, interp.site(node))


@handles("tf.name_scope")
def _name_scope(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("name", "default_name", "values"), args, kwargs)
    name = bound.get("name")
    if name is None:
        name = bound.get("default_name")
    return ContextValue("name_scope", {"name": name})


@handles("tf.device")
def _device(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("device_name_or_function",), args, kwargs)
    return ContextValue("device", {"device": bound.get("device_name_or_function")})


@handles("tf.colocate_with", "tf.control_dependencies", "tf.contrib.framework.arg_scope",
         "tf.contrib.slim.arg_scope", "tf.GradientTape", "tf.Session", "tf.InteractiveSession",
         "tf.train.MonitoredTrainingSession", "tf.train.MonitoredSession", "tf.train.Supervisor")
def _opaque_context(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return ContextValue("other", {"value": UNKNOWN})


@handles("tf.Graph")
def _graph(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = GraphModel(interp.path)
    install_devices(graph)
    return GraphValue(graph)


@handles("tf.get_default_graph")
def _default_graph(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return GraphValue(interp.graph)


@handles("tf.reset_default_graph")
def _reset(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = GraphModel(interp.path)
    install_devices(graph)
    interp.graph = graph
    interp.graphs.append(graph)
    return None


@handles("tf.get_variable_scope")
def _get_variable_scope(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return ScopeValue(interp.graph.var_scope)


_GET_VARIABLE_SIG = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "collections",
                     "caching_device", "partitioner", "validate_shape", "use_resource", "custom_getter",
                     "constraint", "synchronization", "aggregation")


def _initializer_of(value: Any) -> Initializer | None:
    if value is None:
        return None
    if isinstance(value, (InitializerValue, UserFunction)):
        return Initializer(True)
    if isinstance(value, TFRef):
        return Initializer(True)
    if isinstance(value, (Tensor, VariableValue)):
        return Initializer(False, value.shape, None)
    if isinstance(value, bool):
        return Initializer(False, (), "bool")
    if isinstance(value, int):
        return Initializer(False, (), "int32")
    if isinstance(value, float):
        return Initializer(False, (), "float32")
    if isinstance(value, (list, tuple)):
        return Initializer(False, _literal_shape(value), None)
    return Initializer(None)


def _literal_shape(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,)
        inner = _literal_shape(value[0])
        if inner is None:
            return None
        return (len(value),) + inner
    if isinstance(value, (int, float, bool)):
        return ()
    if isinstance(value, (Tensor, VariableValue)):
        return value.shape
    return None


def _collections_of(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        names = []
        for item in value:
            if isinstance(item, TFRef) and item.path.split(".")[-1] in _GRAPH_KEYS:
                names.append(_GRAPH_KEYS[item.path.split(".")[-1]])
            elif isinstance(item, str) and not isinstance(item, PartialStr):
                names.append(item)
            else:
                names.append(UNKNOWN_PART)
        return tuple(names)
    return (UNKNOWN_PART,)


def _name_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return UNKNOWN_PART


def _trainable(value: Any) -> bool | None:
    if value is None:
        return None
    return value if isinstance(value, bool) else None


def get_variable(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode,
                 local: bool = False) -> Any:
    bound = bind(_GET_VARIABLE_SIG, args, kwargs)
    graph = interp.graph
    where = interp.where(node)
    given, shape = shape_known_dims(bound.get("shape"))
    partitioner = bound.get("partitioner")
    if isinstance(partitioner, PartitionerValue):
        partitioner = partitioner.partitioner
    elif partitioner is not None:
        partitioner = UNKNOWN_SETTING
    if bound.get("custom_getter") is not None:
        graph.complete = False
    trainable = _trainable(bound.get("trainable"))
    result = graph.get_variable(
        _name_text(bound.get("name")),
        where,
        shape=shape,
        shape_given=given,
        dtype=dtype_name(bound.get("dtype")),
        initializer=_initializer_of(bound.get("initializer")),
        partitioner=partitioner,
        trainable=trainable if trainable is not None else (not local),
        collections=_collections_of(bound.get("collections")),
        local=local,
        kind="local_variable" if local else "get_variable",
    )
    return _variable_value(result)


def _variable_value(result: Any) -> Any:
    if isinstance(result, VariableRecord):
        return VariableValue(result)
    if isinstance(result, PartitionedEntry):
        return PartitionedValue(result.key, result.parts, result.shape)
    return Tensor(None, None, None)


@handles("tf.get_variable")
def _get_variable(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return get_variable(interp, args, kwargs, node)


@handles("tf.get_local_variable")
def _get_local_variable(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return get_variable(interp, args, kwargs, node, local=True)


@handles("tf.Variable", "tf.VariableV1", "tf.variables.Variable")
def _tf_variable(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("initial_value", "trainable", "collections", "validate_shape", "caching_device", "name",
                  "variable_def", "dtype", "expected_shape", "import_scope", "constraint"), args, kwargs)
    graph = interp.graph
    where = interp.where(node)
    initial = bound.get("initial_value")
    shape = _literal_shape(initial) if not isinstance(initial, (InitializerValue, UserFunction)) else None
    dtype = dtype_name(bound.get("dtype"))
    if dtype is None:
        if isinstance(initial, bool):
            dtype = "bool"
        elif isinstance(initial, int):
            dtype = "int32"
        elif isinstance(initial, float):
            dtype = "float32"
        elif isinstance(initial, (Tensor, VariableValue)):
            dtype = getattr(initial, "dtype", None) if isinstance(initial, Tensor) else initial.record.dtype
    name = bound.get("name")
    trainable = bound.get("trainable")
    trainable = True if trainable is None else trainable
    collections = _collections_of(bound.get("collections")) or ("variables",)
    graph.note_created_under_reuse(
        "variable_ignores_reuse",
        "tf.Variable ignores reuse: scope '{scope}' has reuse={reuse}, but this creates a new variable "
        "each time. Use tf.get_variable to share it",
        where,
    )
    record = graph.create_variable(
        name if isinstance(name, str) or name is None else UNKNOWN_PART,
        where,
        shape=shape,
        dtype=dtype,
        trainable=trainable if isinstance(trainable, bool) else True,
        collections=collections,
    )
    if not isinstance(trainable, bool):
        record.trainable = None
    return VariableValue(record)


@handles("tf.constant", "tf.zeros", "tf.ones", "tf.random_normal", "tf.random_uniform", "tf.truncated_normal",
         "tf.fill", "tf.placeholder", "tf.random.normal", "tf.random.uniform", "tf.random.truncated_normal",
         "tf.zeros_like", "tf.ones_like", "tf.placeholder_with_default", "tf.convert_to_tensor", "tf.identity")
def _tensor_source(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    path = canonical(_callee_path(node, interp))
    leaf = path.split(".")[-1]
    shape: Any = None
    dtype = None
    if leaf == "placeholder":
        bound = bind(("dtype", "shape", "name"), args, kwargs)
        dtype = dtype_name(bound.get("dtype"))
        given, shape = shape_value(bound.get("shape"))
    elif leaf in ("zeros", "ones", "random_normal", "random_uniform", "truncated_normal", "normal", "uniform"):
        bound = bind(("shape",), args, kwargs)
        given, shape = shape_known_dims(bound.get("shape"))
        dtype = dtype_name(kwargs.get("dtype")) or "float32"
    elif leaf == "constant":
        bound = bind(("value", "dtype", "shape"), args, kwargs)
        given, shape = shape_known_dims(bound.get("shape"))
        if not given:
            shape = _literal_shape(bound.get("value"))
        dtype = dtype_name(bound.get("dtype"))
    elif leaf in ("zeros_like", "ones_like", "identity", "convert_to_tensor") and args:
        shape = getattr(args[0], "shape", None) if is_tf_value(args[0]) else _literal_shape(args[0])
    elif leaf == "fill":
        bound = bind(("dims", "value"), args, kwargs)
        given, shape = shape_known_dims(bound.get("dims"))
    name = kwargs.get("name")
    if isinstance(name, str) and not isinstance(name, PartialStr) and name:
        interp.graph.record_op_name(name)
    return Tensor(shape if isinstance(shape, tuple) else None, dtype, deps_of(*args, *kwargs.values()))


def _callee_path(node: cst.CSTNode, interp: "Interpreter") -> str:
    """The canonical path of the TF function being handled (set by `call`)."""
    return interp.current_callee


@handles("tf.matmul")
def _matmul(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("a", "b", "transpose_a", "transpose_b"), args, kwargs)
    a, b = bound.get("a"), bound.get("b")
    shape = None
    a_shape = getattr(a, "shape", None) if is_tf_value(a) else None
    b_shape = getattr(b, "shape", None) if is_tf_value(b) else None
    if a_shape is not None and b_shape is not None and len(a_shape) == 2 and len(b_shape) == 2 \
            and not bound.get("transpose_a") and not bound.get("transpose_b"):
        shape = (a_shape[0], b_shape[1])
    return Tensor(shape, None, deps_of(a, b))


@handles("tf.nn.relu", "tf.nn.tanh", "tf.tanh", "tf.sigmoid", "tf.nn.sigmoid", "tf.nn.elu", "tf.nn.leaky_relu",
         "tf.nn.relu6", "tf.nn.softmax", "tf.nn.dropout", "tf.stop_gradient", "tf.nn.selu", "tf.square",
         "tf.exp", "tf.log", "tf.abs", "tf.negative", "tf.sqrt", "tf.nn.bias_add", "tf.add", "tf.multiply",
         "tf.subtract", "tf.maximum", "tf.minimum")
def _elementwise(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    first = args[0] if args else next(iter(kwargs.values()), UNKNOWN)
    shape = getattr(first, "shape", None) if is_tf_value(first) else None
    return Tensor(shape, None, deps_of(*args, *kwargs.values()))


@handles("tf.reshape")
def _reshape(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("tensor", "shape"), args, kwargs)
    given, shape = shape_value(bound.get("shape"))
    if shape is not None and any(d == -1 for d in shape):
        shape = tuple(None if d == -1 else d for d in shape)
    return Tensor(shape, None, deps_of(bound.get("tensor")))


@handles("tf.concat")
def _concat(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("values", "axis"), args, kwargs)
    values = bound.get("values")
    axis = bound.get("axis")
    shape = None
    if isinstance(values, (list, tuple)) and values and isinstance(axis, int):
        shapes = [getattr(v, "shape", None) if is_tf_value(v) else None for v in values]
        if all(s is not None for s in shapes) and len({len(s) for s in shapes}) == 1:  # type: ignore[arg-type]
            rank = len(shapes[0])  # type: ignore[arg-type]
            axis = axis % rank if rank else 0
            dims = []
            for i in range(rank):
                column = [s[i] for s in shapes]  # type: ignore[index]
                if i == axis:
                    dims.append(None if None in column else sum(column))  # type: ignore[arg-type]
                else:
                    dims.append(column[0] if len(set(column)) == 1 else None)
            shape = tuple(dims)
    return Tensor(shape, None, deps_of(values))


@handles("tf.reduce_mean", "tf.reduce_sum", "tf.losses.mean_squared_error", "tf.nn.l2_loss",
         "tf.nn.softmax_cross_entropy_with_logits", "tf.nn.sparse_softmax_cross_entropy_with_logits",
         "tf.nn.sigmoid_cross_entropy_with_logits", "tf.nn.softmax_cross_entropy_with_logits_v2",
         "tf.reduce_max", "tf.add_n", "tf.losses.softmax_cross_entropy", "tf.losses.sparse_softmax_cross_entropy")
def _reduction(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    axis = kwargs.get("axis", args[1] if len(args) > 1 and isinstance(args[1], int) else None)
    return Tensor(() if axis is None else None, None, deps_of(*args, *kwargs.values()))


# Initializers and partitioners

@handles("tf.constant_initializer", "tf.zeros_initializer", "tf.ones_initializer", "tf.random_normal_initializer",
         "tf.truncated_normal_initializer", "tf.random_uniform_initializer", "tf.glorot_uniform_initializer",
         "tf.glorot_normal_initializer", "tf.orthogonal_initializer", "tf.variance_scaling_initializer",
         "tf.contrib.layers.xavier_initializer", "tf.contrib.layers.variance_scaling_initializer",
         "tf.uniform_unit_scaling_initializer")
def _initializer(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return InitializerValue(True, dtype_name(kwargs.get("dtype")))


@handles("tf.fixed_size_partitioner")
def _fixed_partitioner(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("num_shards", "axis"), args, kwargs)
    shards, axis = bound.get("num_shards"), bound.get("axis", 0)
    if isinstance(shards, int) and isinstance(axis, int):
        return PartitionerValue(FixedSizePartitioner(shards, axis))
    return PartitionerValue(OpaquePartitioner("fixed_size_partitioner"))


@handles("tf.min_max_variable_partitioner", "tf.variable_axis_size_partitioner")
def _opaque_partitioner(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return PartitionerValue(OpaquePartitioner("partitioner"))


# Devices and clusters

@handles("tf.train.replica_device_setter")
def _setter(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("ps_tasks", "ps_device", "worker_device", "merge_devices", "cluster", "ps_ops", "ps_strategy"),
                 args, kwargs)
    extra = set(kwargs) - {"ps_tasks", "ps_device", "worker_device", "merge_devices", "cluster", "ps_ops",
                           "ps_strategy"}
    if extra:
        return UNKNOWN
    values = {}
    for key, value in bound.values.items():
        if key == "cluster":
            values[key] = value if isinstance(value, ClusterValue) or value is None else UNKNOWN
        elif isinstance(value, (str, int, bool, type(None))) and not isinstance(value, PartialStr):
            values[key] = value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            values[key] = list(value)
        else:
            values[key] = UNKNOWN
    try:
        return devmodel.replica_device_setter(**values)
    except (TypeError, ValueError):
        return UNKNOWN


@handles("tf.train.ClusterSpec")
def _cluster(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    spec = args[0] if args else kwargs.get("cluster")
    if isinstance(spec, dict):
        try:
            return ClusterValue.from_literal({k: (v if isinstance(v, (list, tuple, dict)) else UNKNOWN)
                                              for k, v in spec.items()})
        except Exception:  # noqa: BLE001 - an odd literal is just unknown
            return UNKNOWN
    if isinstance(spec, ClusterValue):
        return spec
    return UNKNOWN


# ---------------------------------------------------------------------------------------------
# Methods on TF values


def call_method(interp: "Interpreter", method: TFMethod, args: list[Any], kwargs: dict[str, Any],
                node: cst.CSTNode) -> Any:
    owner, name = method.owner, method.name
    graph = interp.graph
    if isinstance(owner, ScopeValue):
        if name == "reuse_variables":
            graph.reuse_variables(owner.scope, interp.where(node))
            return None
        if name in ("global_variables", "trainable_variables"):
            return UNKNOWN
        return UNKNOWN
    if isinstance(owner, (tuple, list)) and name == "as_list":
        return list(owner)
    if isinstance(owner, (Tensor, VariableValue, PartitionedValue)):
        if name == "get_shape":
            return tuple(owner.shape) if owner.shape is not None else UNKNOWN
        if name in ("read_value", "value", "initialized_value", "assign", "assign_add", "assign_sub"):
            return Tensor(owner.shape, None, owner.deps)
        return Tensor(None, None, deps_of(owner, *args, *kwargs.values()))
    if isinstance(owner, LayerObject):
        if name in ("apply", "__call__", "call"):
            return call_layer_object(interp, owner, args, kwargs, node)
        return UNKNOWN
    if isinstance(owner, OptimizerValue):
        return optimizer_method(interp, owner, name, args, kwargs, node)
    if isinstance(owner, EMAValue):
        if name == "apply":
            return ema_apply(interp, owner, args, kwargs, node)
        return UNKNOWN
    if isinstance(owner, GraphValue):
        if name == "as_default":
            return ContextValue("graph", {"graph": owner.graph})
        return UNKNOWN
    if isinstance(owner, TemplateValue):
        return UNKNOWN
    return UNKNOWN


# ---------------------------------------------------------------------------------------------
# tf.layers and Keras


def layer_call(interp: "Interpreter", path: str, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    leaf = path.split(".")[-1]
    keras = path.startswith("tf.keras.")
    if leaf[:1].isupper():
        return make_layer(interp, leaf, keras, args, kwargs, node)
    if keras:
        interp.graph.complete = False
        return Tensor(None, None, None)
    return functional_layer(interp, leaf, args, kwargs, node)


def make_layer(interp: "Interpreter", class_name: str, keras: bool, args: list[Any], kwargs: dict[str, Any],
               node: cst.CSTNode) -> Any:
    base = layerlib.keras_base_name(class_name)
    table = layerlib.KERAS_LAYERS if keras else layerlib.TF_LAYERS
    if base not in table:
        interp.graph.complete = False
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
        interp.graph.complete = False
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
        graph.complete = False
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
        graph.note_created_under_reuse(
            "keras_ignores_reuse",
            "Keras layer built in scope '{scope}' with reuse={reuse}: Keras ignores variable_scope reuse "
            "and creates new variables. Build the layer object once and call it again to share",
            where,
        )
        specs = layerlib.keras_layer_variables(layer.class_name, config, in_shape)
        if specs is None:
            graph.complete = False
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
        graph.complete = False
        return Tensor(None, None, None)
    if cell.class_name == "MultiRNNCell":
        if not cell.cells_known:
            graph.complete = False
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
                graph.complete = False
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
        graph.complete = False
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


# ---------------------------------------------------------------------------------------------
# make_template


@handles("tf.make_template")
def _make_template(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("name_", "func_", "create_scope_now_", "unique_name_", "custom_getter_"), args, kwargs)
    extra = {k: v for k, v in kwargs.items() if k not in ("name_", "func_", "create_scope_now_", "unique_name_",
                                                         "custom_getter_")}
    name = bound.get("name_")
    template = TemplateValue(
        name if isinstance(name, str) else UNKNOWN_PART,
        bound.get("func_"),
        bound.get("unique_name_") if isinstance(bound.get("unique_name_"), str) else None,
        bound.get("create_scope_now_") is True,
        extra,
        interp.site(node),
    )
    if template.create_scope_now:
        graph = interp.graph
        where = interp.where(node)
        if template.unique_name:
            frame = graph.enter_variable_scope(template.unique_name, where, auxiliary_name_scope=False)
        else:
            relative, certain = graph.counts.unique_default(graph.var_scope.name, template.name)
            frame = graph.enter_variable_scope(relative if certain else UNKNOWN_PART, where,
                                               auxiliary_name_scope=False)
        template.scope = frame.scope
        graph.exit_variable_scope(frame)
    return template


def call_template(interp: "Interpreter", template: TemplateValue, args: list[Any], kwargs: dict[str, Any],
                  node: cst.CSTNode) -> Any:
    graph = interp.graph
    where = interp.where(node)
    call_kwargs = dict(template.kwargs)
    call_kwargs.update(kwargs)
    first = template.calls == 0
    template.calls += 1
    if template.scope is None:
        if graph.note_site("template first call", template.site):
            graph._event(
                "template_per_call",
                f"make_template('{template.name}') runs again on each call of the enclosing code: every "
                "template gets its own variables. Create the template once and call it repeatedly",
                Where(template.site, where.chain),
            )
        frame = graph.enter_variable_scope(template.unique_name, where,
                                           default_name=None if template.unique_name else template.name)
        template.scope = frame.scope
    else:
        frame = graph.enter_variable_scope(template.scope, where, reuse=Reuse.FALSE if first else Reuse.TRUE,
                                           auxiliary_name_scope=not first)
    try:
        return interp.call_value(template.func, list(args), call_kwargs, node)
    finally:
        graph.exit_variable_scope(frame)


# ---------------------------------------------------------------------------------------------
# Optimizers, global step, moving averages

_OPTIMIZERS = tuple(name for name in optlib.OPTIMIZER_POSITIONAL if name.endswith("Optimizer"))


@handles(*[f"tf.train.{name}" for name in _OPTIMIZERS])
def _optimizer(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    class_name = canonical(_callee_path(node, interp)).split(".")[-1]
    config = dict(zip(optlib.OPTIMIZER_POSITIONAL.get(class_name, ()), args))
    config.update(kwargs)
    return OptimizerValue(class_name, config, interp.site(node))


def _trainable_variables(graph: GraphModel) -> list[VariableRecord]:
    return [record for record in graph.records if record.trainable and "trainable_variables" in record.collections]


def optimizer_method(interp: "Interpreter", optimizer: OptimizerValue, name: str, args: list[Any],
                     kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    if name == "compute_gradients":
        bound = bind(("loss", "var_list"), args, kwargs)
        var_list = bound.get("var_list")
        records = _records_of(var_list) if var_list is not None else _trainable_variables(graph)
        if records is None:
            return UNKNOWN
        deps = deps_of(bound.get("loss"))
        return [(Tensor(None, None, deps if deps is None or id(r) in deps else frozenset()), VariableValue(r))
                for r in records]
    if name == "minimize":
        bound = bind(("loss", "global_step", "var_list"), args, kwargs)
        var_list = bound.get("var_list")
        records = _records_of(var_list) if var_list is not None else list(_trainable_variables(graph))
        loss_deps = deps_of(bound.get("loss"))
        if records is None or not graph.complete and var_list is None:
            graph.complete = False
            return Tensor(None, None, None)
        if loss_deps is None:
            with _speculative(graph):
                create_slots(interp, optimizer, records, node)
        else:
            create_slots(interp, optimizer, [r for r in records if id(r) in loss_deps], node)
        return Tensor(None, None, None)
    if name == "apply_gradients":
        bound = bind(("grads_and_vars", "global_step"), args, kwargs)
        pairs = bound.get("grads_and_vars")
        if not isinstance(pairs, (list, tuple)):
            graph.complete = False
            return Tensor(None, None, None)
        records: list[VariableRecord] = []
        unknown = False
        for pair in pairs:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[1], VariableValue)):
                graph.complete = False
                return Tensor(None, None, None)
            grad = pair[0]
            if grad is None:
                continue
            if isinstance(grad, Tensor) and grad.deps == frozenset():
                continue
            if not isinstance(grad, Tensor) or grad.deps is None:
                unknown = True
            records.append(pair[1].record)
        if unknown:
            with _speculative(graph):
                create_slots(interp, optimizer, records, node)
        else:
            create_slots(interp, optimizer, records, node)
        return Tensor(None, None, None)
    return UNKNOWN


class _speculative:
    def __init__(self, graph: GraphModel) -> None:
        self.graph = graph

    def __enter__(self) -> None:
        self.graph.speculative += 1

    def __exit__(self, *exc: Any) -> None:
        self.graph.speculative -= 1


def _records_of(value: Any) -> list[VariableRecord] | None:
    if isinstance(value, (list, tuple)):
        records = []
        for item in value:
            if isinstance(item, VariableValue):
                records.append(item.record)
            elif isinstance(item, PartitionedValue):
                records.extend(item.parts)
            else:
                return None
        return records
    return None


def create_slots(interp: "Interpreter", optimizer: OptimizerValue, records: list[VariableRecord],
                 node: cst.CSTNode) -> None:
    """The optimizer's first apply: non-slot variables once per graph, then each primary's slots."""
    graph = interp.graph
    where = interp.where(node)
    table = optlib.optimizer_slots(optimizer.class_name, lib_config(optimizer.config))
    if table is None:
        graph.complete = False
        return
    if not records:
        return
    if table.non_slot and id(graph) not in optimizer.non_slot_done:
        optimizer.non_slot_done.add(id(graph))
        if table.non_slot_scope is not None:
            graph.complete = False  # store variables in the optimizer's own scope: not modelled
        else:
            first = min(records, key=lambda r: r.name)
            for spec in table.non_slot:
                graph.create_variable(spec.name, where, shape=spec.shape, dtype=spec.dtype or first.dtype,
                                      trainable=False, kind="optimizer", colocate_with=first.device)
    for record in records:
        for slot in table.slot_scope_names:
            create_slot(graph, record, slot, where, "slot")


def create_slot(graph: GraphModel, primary: VariableRecord, slot_name: str, where: Where, kind: str) -> Any:
    """`slot_creator.create_slot`: a default-named scope `<primary op name>/<slot>`, then
    get_variable("") in it, so the store key ends in "/" (see optimizers in the model tables)."""
    frame = graph.enter_variable_scope(None, where, default_name=f"{primary.name}/{slot_name}")
    try:
        scope = frame.scope
        saved = scope.partitioner
        scope.partitioner = None
        return graph.get_variable("", where, shape=None, shape_given=False, dtype=primary.dtype,
                                  initializer=Initializer(False, primary.shape, primary.dtype),
                                  trainable=False, kind=kind, colocate_with=primary.device)
    finally:
        scope.partitioner = saved
        graph.exit_variable_scope(frame)


@handles("tf.train.get_or_create_global_step", "tf.train.create_global_step")
def _global_step(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    existing = graph.store.get("global_step")
    path = _callee_path(node, interp)
    if existing is not None and path.endswith("get_or_create_global_step"):
        return VariableValue(existing.record)
    frame = graph.enter_name_scope(None, interp.where(node), user=False)
    try:
        # create_global_step: get_variable in the current var scope, with the name scope cleared.
        result = graph.get_variable("global_step", interp.where(node), shape=(), shape_given=True, dtype="int64",
                                    initializer=Initializer(True), trainable=False,
                                    collections=("variables", "global_step"), kind="get_variable")
    finally:
        graph.exit_name_scope(frame, user=False)
    return _variable_value(result)


@handles("tf.train.ExponentialMovingAverage")
def _ema(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("decay", "num_updates", "zero_debias", "name"), args, kwargs)
    name = bound.get("name", "ExponentialMovingAverage")
    return EMAValue(bound.get("decay"), name if isinstance(name, str) else UNKNOWN_PART, interp.site(node))


def ema_apply(interp: "Interpreter", ema: EMAValue, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    var_list = args[0] if args else kwargs.get("var_list")
    records = _records_of(var_list) if var_list is not None else _trainable_variables(graph)
    if records is None:
        graph.complete = False
        return Tensor(None, None, None)
    where = interp.where(node)
    for record in records:
        create_slot(graph, record, ema.name, where, "ema")
        # MOVING_AVERAGE_VARIABLES lists the averaged variable itself, not its average.
        if "moving_average_variables" not in record.collections:
            record.collections = tuple(record.collections) + ("moving_average_variables",)
    return Tensor(None, None, None)


@handles("tf.global_variables", "tf.trainable_variables", "tf.all_variables", "tf.local_variables")
def _collections(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    path = _callee_path(node, interp)
    if args or kwargs or not graph.complete or graph.speculative:
        return UNKNOWN
    leaf = path.split(".")[-1]
    wanted = {"global_variables": "variables", "all_variables": "variables",
              "trainable_variables": "trainable_variables", "local_variables": "local_variables"}[leaf]
    return [VariableValue(r) for r in graph.records if wanted in r.collections and r.certain]





# Device-setter and session facts for the TFS4xx rules (registers into HANDLERS).
from scopelint.analysis import tfapi_devices  # noqa: E402,F401
