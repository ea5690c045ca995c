"""TensorFlow's API as the interpreter sees it: name resolution and one handler per modelled call.

Handlers translate abstract argument values into calls on the pure model (`scopelint.model`).
A TF call that is not modelled returns an unknown tensor; if it lives in a namespace that creates
variables, the graph is marked incomplete so that "does not exist" is no longer claimed.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from scopelint.analysis import shapes
from scopelint.analysis.values import (
    UNKNOWN,
    ContextValue,
    EMAValue,
    EstimatorValue,
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
from scopelint.model import rnn as rnnlib
from scopelint.model.cluster import ClusterValue
from scopelint.model.graph import GraphModel, Initializer, PartitionedEntry
from scopelint.model.partitions import FixedSizePartitioner, OpaquePartitioner
from scopelint.model.placement import RecordingDeviceStack
from scopelint.model.scopes import UNKNOWN_SETTING, Reuse
from scopelint.trace import UNKNOWN_PART, VariableRecord

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
    "tf.python.keras": "tf.keras", "tf.keras.compat.v1": "tf", "tf.absl.app": "tf.app",
    # More private modules that library code (tf-slim, tensorflow/models) imports directly; each is
    # the implementation of the public names it maps to.
    "tf.python.ops.random_ops": "tf", "tf.python.ops.nn_ops": "tf.nn", "tf.python.ops.nn": "tf.nn",
    "tf.python.ops.nn_impl": "tf.nn", "tf.python.ops.state_ops": "tf", "tf.python.ops.standard_ops": "tf",
    "tf.python.ops.control_flow_ops": "tf", "tf.python.ops.partitioned_variables": "tf",
    "tf.python.framework.dtypes": "tf", "tf.python.framework.constant_op": "tf",
    "tf.python.framework.tensor_shape": "tf", "tf.python.platform.test": "tf.test",
    "tf.contrib.framework.python.ops": "tf.contrib.framework",
    "tf.contrib.framework.python.ops.arg_scope": "tf.contrib.framework",
}
# Cell classes also reachable as tf.nn.rnn_cell.X through tf.contrib.rnn; the RNN functions that
# tf.contrib.rnn exposes keep their tf.nn names.
_RNN_FUNCTIONS = ("static_rnn", "static_bidirectional_rnn", "static_state_saving_rnn")


@lru_cache(maxsize=8192)
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
    if path in _MODE_KEYS:
        return _MODE_KEYS[path]
    if path.startswith(_FLAG_VALUES) or path == "tf.__version__":
        return UNKNOWN  # a command-line flag's value (FLAGS.do_train), not an API object
    return TFRef(path)


_FLAG_VALUES = ("tf.flags.FLAGS.", "tf.app.flags.FLAGS.")


# tf.estimator.ModeKeys are plain strings; knowing them lets `if mode == ModeKeys.TRAIN:` be decided.
_MODE_KEYS = {
    f"{prefix}.ModeKeys.{key}": value
    for prefix in ("tf.estimator", "tf.estimator.tpu", "tf.contrib.tpu", "tf.contrib.learn")
    for key, value in (("TRAIN", "train"), ("EVAL", "eval"), ("PREDICT", "infer"), ("INFER", "infer"))
}


def tf_path_for_module(module: str) -> str | None:
    """The TF path a Python module name stands for ("tensorflow.compat.v1" -> "tf")."""
    if module == "tensorflow" or module.startswith("tensorflow."):
        return canonical("tf" + module[len("tensorflow"):])
    if module == "absl.flags":
        return "tf.absl.flags"
    if module == "absl.app" or module == "absl":
        # tf.app.run is absl's app.run: both call the program's main(argv).
        return "tf.app" if module == "absl.app" else "tf.absl"
    if module in ("tf_slim",) or module.startswith("tf_slim."):
        return "tf.contrib.slim" + module[len("tf_slim"):]
    return None


# Namespaces whose unmodelled calls may create variables or advance default-name counters.
_MAY_CREATE = (
    "tf.contrib", "tf.keras", "tf.layers", "tf.nn.rnn_cell", "tf.nn.dynamic_rnn", "tf.nn.static_rnn",
    "tf.nn.bidirectional", "tf.nn.raw_rnn", "tf.metrics", "tf.train", "tf.estimator", "tf.feature_column",
    "tf.make_template", "tf.get_variable", "tf.Variable", "tf.get_local_variable", "tf.hub",
    # lookup tables are no variables, but their ops are ps ops: they advance a setter's counter
    "tf.lookup", "tf.tpu", "tf.distribute",
    # these call user functions the analysis does not follow
    "tf.while_loop", "tf.cond", "tf.map_fn", "tf.scan", "tf.foldl", "tf.foldr", "tf.case", "tf.function",
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
    return Tensor(shapes.broadcast(_operand_shape(left), _operand_shape(right)), None, deps_of(left, right))


def _operand_shape(value: Any) -> tuple[Any, ...] | None:
    """The static shape of an operand of an element-wise op: a Python number is a scalar."""
    if is_tf_value(value):
        shape = getattr(value, "shape", None)
        return shape if isinstance(shape, tuple) else None
    if isinstance(value, (int, float)):
        return ()
    return None


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
        return _dtype_of_path(value.path)
    if isinstance(value, str) and value in _DTYPES:
        return value
    return None


def _dtype_of_path(path: str) -> str | None:
    """The dtype a TensorFlow path names (`tf.float32`, `tf.double`), or None."""
    name = path.split(".")[-1]
    if name in _DTYPES:
        return {"half": "float16", "double": "float64"}.get(name, name)
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
    graph.devices = RecordingDeviceStack(graph)  # notes which setter placed each variable (TFS4xx)
    if unknown:
        graph.devices.push(UNKNOWN)


# ---------------------------------------------------------------------------------------------
# Context managers


def enter_context(interp: "Interpreter", manager: Any, node: cst.CSTNode) -> Entered:
    graph = interp.graph
    if isinstance(manager, ContextValue):
        if manager.kind == "variable_scope":
            frame = enter_variable_scope(interp, manager.args, node, manager.literal_reuse_false)
            return Entered(ScopeValue(frame.scope), lambda: graph.exit_variable_scope(frame))
        if manager.kind == "name_scope":
            name = manager.args.get("name")
            frame = graph.enter_name_scope(_scope_text(name), interp.where(node))
            return Entered(frame.name, lambda: graph.exit_name_scope(frame))
        if manager.kind == "device":
            entry = manager.args.get("device")
            if device_functions.is_device_function(entry):
                entry = device_functions.entry(interp, entry, node)
            try:
                graph.devices.push(_device_entry(entry))
            except devmodel.DeviceSpecError as error:
                graph._event("invalid_arguments", str(error), interp.where(node), raises=True,
                             error="ValueError")
                graph.devices.push(UNKNOWN)  # Recovery: the device the fix names, unknown here.
            return Entered(None, graph.devices.pop)
        if manager.kind == "graph":
            target = manager.args["graph"]
            previous = interp.graph
            interp.graph = target
            if target not in interp.graphs:
                interp.graphs.append(target)
            # Entered in code that may not run (an unknown branch): what it builds may not exist.
            inherited = previous.speculative
            target.speculative += inherited

            def leave() -> None:
                target.speculative -= inherited
                interp.graph = previous

            return Entered(GraphValue(target), leave)
        if manager.kind == "slim_arg_scope":
            return tfapi_slim.enter_arg_scope(interp, manager)
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
    if isinstance(value, (devmodel.ReplicaDeviceSetter, devmodel.DeviceFunction)):
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


def enter_variable_scope(interp: "Interpreter", args: dict[str, Any], node: cst.CSTNode,
                         literal_reuse_false: bool = False) -> Any:
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
        # TFS104 only for a literal `reuse=False`: a False passed along from a parameter default
        # (`def block(x, reuse=False)` called inside a reusing tower) is the author relying on
        # inheritance, not asking for creation.
        reuse_explicit_false=literal_reuse_false and reuse_arg is False,
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
    if isinstance(owner, (LayerObject, TemplateValue, OptimizerValue, EMAValue, GraphValue, EstimatorValue)):
        if isinstance(owner, TemplateValue) and name == "variable_scope_name":
            return owner.scope.name + "/" if owner.scope is not None else UNKNOWN
        if isinstance(owner, LayerObject) and name in ("variables", "trainable_variables", "weights",
                                                         "trainable_weights"):
            if owner.scope is None and not owner.variables:
                return []
            return [VariableValue(record) for record in owner.variables]
        return TFMethod(owner, name)
    if isinstance(owner, ContextValue) and owner.kind == "runner":
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
        route = _unhandled_route(callee.path)
        if route is _Route.LAYER:
            return tfapi_layers.layer_call(interp, callee.path, args, kwargs, node)
        if route is _Route.CELL:
            return tfapi_layers.make_cell(interp, callee.path.split(".")[-1], args, kwargs, node)
        if route is _Route.DTYPE:
            return UNKNOWN
        if route is _Route.INITIALIZER:
            return InitializerValue(True)
        if route is _Route.MAY_CREATE:
            interp.graph.note_unmodelled_creation()
        if any(is_tf_value(v) for v in list(args) + list(kwargs.values())) or callee.path.startswith("tf."):
            name = kwargs.get("name")
            if isinstance(name, str) and not isinstance(name, PartialStr) and name:
                interp.graph.record_op_name(name)
            return Tensor(None, None, deps_of(*args, *kwargs.values()))
        return UNKNOWN
    if isinstance(callee, TFMethod):
        return call_method(interp, callee, args, kwargs, node)
    if isinstance(callee, LayerObject):
        return tfapi_layers.call_layer_object(interp, callee, args, kwargs, node)
    if isinstance(callee, TemplateValue):
        return tfapi_training.call_template(interp, callee, args, kwargs, node)
    return NotImplemented


class _Route(enum.Enum):
    """What a TensorFlow path without a handler of its own is (tfapi.call's fallbacks, in order)."""

    LAYER = "layer"  # tf.layers.* and tf.keras.layers.*
    CELL = "cell"  # an RNN cell class
    DTYPE = "dtype"
    INITIALIZER = "initializer"
    MAY_CREATE = "may create"  # an API that may build variables the analysis does not see
    OP = "op"


@lru_cache(maxsize=4096)  # a path's route depends on the path alone: worked out once, not at every call
def _unhandled_route(path: str) -> _Route:
    leaf = path.split(".")[-1]
    if path.startswith("tf.layers.") or path.startswith("tf.keras.layers."):
        return _Route.LAYER
    if path.startswith("tf.nn.rnn_cell.") and rnnlib.cell_kind(leaf) is not None:
        return _Route.CELL
    if _dtype_of_path(path) is not None:
        return _Route.DTYPE
    if _is_initializer_path(path):
        return _Route.INITIALIZER
    if path.startswith(_MAY_CREATE):
        return _Route.MAY_CREATE
    return _Route.OP


@handles("tf.variable_scope", "tf.VariableScope")
def _variable_scope(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(_VARIABLE_SCOPE_SIG, args, kwargs)
    context = ContextValue("variable_scope", bound.values, interp.site(node))
    context.literal_reuse_false = _literal_false_argument(node, "reuse", _VARIABLE_SCOPE_SIG.index("reuse"))
    return context


def _literal_false_argument(node: cst.CSTNode, keyword: str, position: int) -> bool:
    """Whether the call writes `keyword=False` (or False at that position) literally."""
    if not isinstance(node, cst.Call):
        return False
    for index, arg in enumerate(node.args):
        matches = arg.keyword.value == keyword if arg.keyword is not None else index == position and not arg.star
        if matches:
            return isinstance(arg.value, cst.Name) and arg.value.value == "False"
    return False


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
         "tf.contrib.slim.arg_scope", "tf.GradientTape")
def _opaque_context(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return ContextValue("other", {"value": UNKNOWN})


@handles("tf.estimator.EstimatorSpec", "tf.estimator.tpu.TPUEstimatorSpec", "tf.contrib.tpu.TPUEstimatorSpec",
         "tf.estimator.RunConfig", "tf.estimator.tpu.RunConfig", "tf.contrib.tpu.RunConfig",
         "tf.estimator.TrainSpec", "tf.estimator.EvalSpec", "tf.estimator.tpu.TPUConfig",
         "tf.contrib.tpu.TPUConfig", "tf.train.Scaffold")
def _plain_record(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    """Configuration and result records: they hold values and create nothing."""
    return UNKNOWN


# TF objects that run or serve a graph but never add variables to it: their methods (`run`,
# `join`, `close`, `save`, ...) change nothing the analysis tracks.
@handles("tf.Session", "tf.InteractiveSession", "tf.train.MonitoredTrainingSession", "tf.train.MonitoredSession",
         "tf.train.SingularMonitoredSession", "tf.train.Supervisor", "tf.train.Server", "tf.train.Saver",
         "tf.train.Coordinator", "tf.ConfigProto", "tf.GPUOptions", "tf.RunOptions", "tf.RunMetadata",
         "tf.summary.FileWriter", "tf.train.start_queue_runners", "tf.train.SessionRunHook",
         "tf.train.StopAtStepHook", "tf.train.CheckpointSaverHook", "tf.train.LoggingTensorHook")
def _graph_runner(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    runner = ContextValue("runner")
    runner.args["value"] = runner  # `with tf.Session() as sess:` binds the session itself
    return runner


@handles("tf.app.run")
def _app_run(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    """`tf.app.run(main=None)`: calls main(argv), by default the running module's `main`."""
    bound = bind(("main", "argv"), args, kwargs)
    main = bound.get("main")
    if main is None and interp.module is not None:
        main = interp.module.env.vars.get("main")
    if main is None or main is UNKNOWN:
        return UNKNOWN
    interp.call_value(main, [UNKNOWN], {}, node)
    return UNKNOWN


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
    graph.speculative = interp.graph.speculative  # a reset that may not run: its graph may not exist
    interp.graph = graph
    interp.graphs.append(graph)
    return None


@handles("tf.get_variable_scope")
def _get_variable_scope(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return ScopeValue(interp.graph.var_scope)


_GET_VARIABLE_SIG = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "collections",
                     "caching_device", "partitioner", "validate_shape", "use_resource", "custom_getter",
                     "constraint", "synchronization", "aggregation")


def _is_initializer_path(path: str) -> bool:
    """`tf.zeros_initializer`, `tf.initializers.zeros`, `tf.keras.initializers.Zeros`: an initializer."""
    return path.startswith("tf.") and (path.split(".")[-1].endswith("_initializer")
                                       or path.startswith(("tf.initializers.", "tf.keras.initializers.")))


def _has_required_parameters(function: UserFunction) -> bool:
    """Whether calling the function with no arguments fails (a parameter without a default)."""
    params = function.node.params
    required = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    return any(p.default is None for p in required)


def _initializer_of(value: Any) -> Initializer | None:
    if value is None:
        return None
    if isinstance(value, InitializerValue):
        return Initializer(True, needs_arguments=True)  # TF initializers are called with the shape
    if isinstance(value, UserFunction):
        return Initializer(True, needs_arguments=None if value.opaque else _has_required_parameters(value))
    if isinstance(value, TFRef):  # an initializer class TensorFlow instantiates, or some other function
        return Initializer(True, needs_arguments=True if _is_initializer_path(value.path) else None)
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
        graph.note_unmodelled_creation()
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
    # Which variables a value depends on decides optimizer slots (gradients): a placeholder, a
    # constant or a fresh zeros/ones/random tensor depends on none, whatever its (maybe unknown)
    # shape argument; an identity or fill passes its input's on.
    if leaf in ("identity", "convert_to_tensor", "placeholder_with_default"):
        deps = deps_of(args[0] if args else kwargs.get("input", kwargs.get("value", UNKNOWN)))
    elif leaf == "fill":
        deps = deps_of(bind(("dims", "value"), args, kwargs).get("value", UNKNOWN))
    else:
        deps = frozenset()
    return Tensor(shape if isinstance(shape, tuple) else None, dtype, deps)


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
         "tf.exp", "tf.log", "tf.abs", "tf.negative", "tf.sqrt")
def _elementwise(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    first = args[0] if args else next(iter(kwargs.values()), UNKNOWN)
    shape = getattr(first, "shape", None) if is_tf_value(first) else None
    return Tensor(shape, None, deps_of(*args, *kwargs.values()))


@handles("tf.nn.bias_add", "tf.add", "tf.multiply", "tf.subtract", "tf.maximum", "tf.minimum")
def _broadcasting(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    operands = list(args[:2]) + [value for key, value in kwargs.items() if key in ("x", "y", "value", "bias")]
    shape = shapes.broadcast(_operand_shape(operands[0]), _operand_shape(operands[1])) if len(operands) == 2 else None
    return Tensor(shape, None, deps_of(*args, *kwargs.values()))


@handles("tf.reshape")
def _reshape(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("tensor", "shape"), args, kwargs)
    given, shape = shape_value(bound.get("shape"))
    if shape is not None and any(d == -1 for d in shape):
        shape = _inferred_dimension(_operand_shape(bound.get("tensor")), shape)
    return Tensor(shape, None, deps_of(bound.get("tensor")))


def _inferred_dimension(tensor_shape: tuple[int | None, ...] | None, shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """`tf.reshape(x, [2, -1])`: the -1 is what the element count leaves (TensorFlow computes the
    static shape the same way), when the input's and the other dimensions are all known."""
    inferred: Any = None
    if tensor_shape is not None and all(isinstance(d, int) for d in tensor_shape) and list(shape).count(-1) == 1:
        total = 1
        for dim in tensor_shape:
            total *= dim  # type: ignore[operator]
        known = [d for d in shape if d != -1]
        product = 1
        for dim in known:
            product = product * dim if isinstance(dim, int) else 0
        if product > 0 and total % product == 0:
            inferred = total // product
    return tuple(inferred if d == -1 else d for d in shape)


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
    if isinstance(owner, (Tensor, VariableValue, PartitionedValue)):
        if name == "get_shape":
            return tuple(owner.shape) if owner.shape is not None else UNKNOWN
        if name in ("read_value", "value", "initialized_value", "assign", "assign_add", "assign_sub"):
            return Tensor(owner.shape, None, owner.deps)
        return Tensor(None, None, deps_of(owner, *args, *kwargs.values()))
    if isinstance(owner, LayerObject):
        if name in ("apply", "__call__", "call"):
            return tfapi_layers.call_layer_object(interp, owner, args, kwargs, node)
        return UNKNOWN
    if isinstance(owner, OptimizerValue):
        return tfapi_training.optimizer_method(interp, owner, name, args, kwargs, node)
    if isinstance(owner, EMAValue):
        if name == "apply":
            return tfapi_training.ema_apply(interp, owner, args, kwargs, node)
        return UNKNOWN
    if isinstance(owner, GraphValue):
        if name == "as_default":
            return ContextValue("graph", {"graph": owner.graph})
        return UNKNOWN
    if isinstance(owner, TemplateValue):
        return UNKNOWN
    if isinstance(owner, EstimatorValue):
        return tfapi_training.estimator_method(interp, owner, name, node)
    if isinstance(owner, ContextValue) and owner.kind == "runner":
        # sess.run(...), server.join(), sess.as_default(), supervisor.managed_session(), ...
        if name in ("managed_session", "prepare_or_wait_for_session"):
            tfapi_sessions.supervisor_session(interp, name, args, kwargs, node)  # TFS412
        return owner if name in ("as_default", "managed_session", "prepare_or_wait_for_session") else UNKNOWN
    return UNKNOWN


# The construct families live in their own modules; they register their handlers on import.
from scopelint.analysis import tfapi_layers, tfapi_training  # noqa: E402

# Device-setter and session facts for the TFS4xx rules (registers into HANDLERS).
from scopelint.analysis import tfapi_devices  # noqa: E402,F401
from scopelint.analysis import tfapi_sessions  # noqa: E402  (after tfapi_devices: it wraps its handlers)

# Variable-free calls (derived from TF's API) and the tf_slim / tf.contrib layers.
from scopelint.analysis import tfapi_gradients, tfapi_inputs, tfapi_nn, tfapi_pure, tfapi_slim  # noqa: E402,F401

# Control flow that builds user functions into the graph.
from scopelint.analysis import tfapi_control  # noqa: E402,F401

# The program's own device functions, and the calls that decide which variable ops they see.
from scopelint.analysis import device_functions  # noqa: E402
