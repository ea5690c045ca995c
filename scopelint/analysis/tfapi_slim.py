"""tf.contrib.slim / tf.contrib.layers / tf_slim as the interpreter models them.

The layers (`conv2d`, `fully_connected`, `batch_norm`, ...) open their variable scope with
tf_slim's default names and create their variables with get_variable in it (tables in
`scopelint.model.slim`), so reuse, duplicates and shapes follow the store.  `arg_scope` keeps a
stack of per-op default arguments; `repeat` and `stack` call a layer with `scope_1`, `scope_2`, ...

The arg-scope stack is per interpreter (tf_slim's is per thread): `interp.slim_arg_scope`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis import tfapi
from scopelint.analysis.tfapi import HANDLERS, Entered, deps_of, is_tf_value, lib_config
from scopelint.analysis.values import (
    UNKNOWN,
    BoundMethod,
    ContextValue,
    PartialStr,
    Tensor,
    TFRef,
    UserFunction,
)
from scopelint.model import slim as slimlib
from scopelint.model.graph import Initializer
from scopelint.trace import UNKNOWN_PART, VariableRecord

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

_PREFIXES = ("tf.contrib.slim", "tf.contrib.layers", "tf.contrib.slim.layers", "tf.contrib.slim.layers.layers",
             "tf.contrib.layers.layers", "tf.contrib.framework", "tf.contrib.slim.ops.variables",
             "tf.contrib.framework.ops.variables")


@dataclass(eq=False)
class SlimArgScope:
    """The defaults in force (`with slim.arg_scope(...) as sc` binds one; `arg_scope(sc)` restores it).

    `unknown`: an op of some arg_scope in force was not recognised, so any slim op may get
    defaults the analysis does not know."""

    defaults: dict[Any, dict[str, Any]] = field(default_factory=dict)
    unknown: bool = False


def current_scope(interp: "Interpreter") -> SlimArgScope:
    scope = getattr(interp, "slim_arg_scope", None)
    if scope is None:
        scope = SlimArgScope()
        interp.slim_arg_scope = scope  # type: ignore[attr-defined]
    return scope


def op_key(value: Any) -> Any:
    """What arg_scope keys defaults by: the canonical slim op, or the user function's definition."""
    if isinstance(value, TFRef):
        leaf = value.path.split(".")[-1]
        if value.path.startswith("tf.contrib.") and leaf in slimlib.ALIASES:
            return slimlib.ALIASES[leaf]
        return None
    if isinstance(value, UserFunction):
        return ("user", id(value.node))
    return None


def _arg_scope(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    ops = args[0] if args else kwargs.pop("list_ops_or_scope", UNKNOWN)
    kwargs = {k: v for k, v in kwargs.items() if k != "list_ops_or_scope"}
    current = current_scope(interp)
    if isinstance(ops, SlimArgScope):
        new = SlimArgScope({k: dict(v) for k, v in ops.defaults.items()}, ops.unknown)
    elif isinstance(ops, (list, tuple)):
        new = SlimArgScope({k: dict(v) for k, v in current.defaults.items()}, current.unknown)
        for op in ops:
            key = op_key(op)
            if key is None:
                new.unknown = True
                continue
            merged = dict(new.defaults.get(key, {}))
            merged.update(kwargs)
            new.defaults[key] = merged
    else:
        new = SlimArgScope({}, True)
    return ContextValue("slim_arg_scope", {"scope": new})


def enter_arg_scope(interp: "Interpreter", manager: ContextValue) -> Entered:
    previous = current_scope(interp)
    new = manager.args["scope"]
    interp.slim_arg_scope = new  # type: ignore[attr-defined]

    def leave() -> None:
        interp.slim_arg_scope = previous  # type: ignore[attr-defined]

    return Entered(new, leave)


def with_defaults(interp: "Interpreter", op: str, config: dict[str, Any]) -> dict[str, Any] | None:
    """The call's arguments over the arg_scope defaults; None when unknown defaults may apply."""
    scope = current_scope(interp)
    if scope.unknown:
        return None
    merged = dict(scope.defaults.get(op, {}))
    merged.update(config)
    return merged


def user_function_defaults(interp: "Interpreter", function: UserFunction) -> dict[str, Any]:
    """The keyword defaults an arg_scope in force gives a user function (one decorated with
    @add_arg_scope: TensorFlow rejects listing any other), as add_arg_scope merges them: under the
    call's own keywords."""
    scope = getattr(interp, "slim_arg_scope", None)
    if scope is None:
        return {}
    return scope.defaults.get(op_key(function), {})


def _bind(op: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    inputs = args[0] if args else kwargs.get("inputs", UNKNOWN)
    config = dict(zip(slimlib.POSITIONAL.get(op, ()), args[1:]))
    config.update({k: v for k, v in kwargs.items() if k != "inputs"})
    return inputs, config


def _shape(value: Any) -> Any:
    shape = getattr(value, "shape", None) if is_tf_value(value) else None
    return tuple(shape) if isinstance(shape, tuple) else None


def layer_op(interp: "Interpreter", op: str, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    inputs, given = _bind(op, args, kwargs)
    config = with_defaults(interp, op, given)
    if config is None:
        graph.note_unmodelled_creation()
        config = given
    in_shape = _shape(inputs)
    table_config = lib_config(config)
    for key in ("normalizer_fn", "biases_initializer"):
        if key in config:  # only None or not matters here
            table_config[key] = None if config[key] is None else (UNKNOWN if config[key] is UNKNOWN else "<callable>")
    if "num_outputs" in config and config["num_outputs"] is None:
        table_config["num_outputs"] = None
    out_shape = slimlib.output_shape(op, table_config, in_shape)
    deps = deps_of(inputs)
    if op in slimlib.NO_VARIABLES:
        return Tensor(out_shape, None, deps)
    specs = slimlib.op_variables(op, table_config, in_shape)
    if specs is None:
        graph.note_unmodelled_creation()
    elif not slimlib.variable_order_known(op, table_config, in_shape) and graph.devices is not None:
        graph.devices.forget_counters()  # which of them a round-robin setter places first is unknown
    frame = tfapi.enter_variable_scope(
        interp, {"name_or_scope": config.get("scope"), "default_name": slimlib.DEFAULT_SCOPES[op],
                 "reuse": config.get("reuse")}, node)
    created: list[VariableRecord] = []
    try:
        dtype = getattr(inputs, "dtype", None) if isinstance(inputs, Tensor) else None
        where = interp.where(node)
        normalizer = config.get("normalizer_fn")
        for spec in specs or []:
            if spec.name == "biases" and normalizer is not None:
                continue
            record = graph.get_variable(
                spec.name, where, shape=spec.shape, shape_given=True, dtype=dtype or "float32",
                initializer=Initializer(True), trainable=spec.trainable,
                collections=("variables", "model_variables"), kind="layer")
            if isinstance(record, VariableRecord):
                created.append(record)
        result = Tensor(out_shape, None, None if deps is None else deps | frozenset(id(r) for r in created))
        if normalizer is not None and op not in ("batch_norm", "layer_norm"):
            params = config.get("normalizer_params") or {}
            if not isinstance(params, dict) or normalizer is UNKNOWN:
                graph.note_unmodelled_creation()
                result = Tensor(out_shape, None, None)
            else:
                normalized = interp.call_value(normalizer, [result], dict(params), node)
                if is_tf_value(normalized):
                    result = Tensor(out_shape, None, deps_of(result, normalized))
                else:
                    result = Tensor(out_shape, None, None)
        activation = config.get("activation_fn")
        if isinstance(activation, (UserFunction, BoundMethod)):
            activated = interp.call_value(activation, [result], {}, node)
            result = Tensor(out_shape, None, deps_of(result, activated) if is_tf_value(activated) else None)
    finally:
        graph.exit_variable_scope(frame)
    return result


def _layer_name(layer: Any) -> str | None:
    """`layer.__name__`, the scope prefix repeat/stack use when given no scope."""
    if isinstance(layer, TFRef):
        leaf = layer.path.split(".")[-1]
        return slimlib.FUNCTION_NAMES.get(slimlib.ALIASES.get(leaf, ""), leaf)
    if isinstance(layer, UserFunction):
        return layer.name
    if isinstance(layer, BoundMethod):
        return layer.function.name
    return None


def _repeated(interp: "Interpreter", kind: str, inputs: Any, layer: Any, calls: list[list[Any]] | None,
              kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    """slim.repeat / slim.stack: `variable_scope(scope, 'Repeat'|'Stack')`, then call i with scope_{i+1}."""
    graph = interp.graph
    scope = kwargs.pop("scope", None)
    if calls is None or not (scope is None or isinstance(scope, str)):
        graph.note_unmodelled_creation()
        return Tensor(None, None, None)
    frame = tfapi.enter_variable_scope(interp, {"name_or_scope": scope, "default_name": kind}, node)
    try:
        prefix = scope if scope is not None else _layer_name(layer)
        if prefix is None:
            prefix = kind.lower()
        if isinstance(prefix, PartialStr):
            prefix = UNKNOWN_PART
        outputs = inputs
        for index, layer_args in enumerate(calls):
            call_kwargs = dict(kwargs)
            call_kwargs["scope"] = f"{prefix}_{index + 1}"
            outputs = interp.call_value(layer, [outputs, *layer_args], call_kwargs, node)
        return outputs
    finally:
        graph.exit_variable_scope(frame)


def _repeat(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    if len(args) < 3:
        interp.graph.note_unmodelled_creation()
        return Tensor(None, None, None)
    inputs, repetitions, layer, rest = args[0], args[1], args[2], list(args[3:])
    count = repetitions if isinstance(repetitions, int) and not isinstance(repetitions, bool) \
        and 0 <= repetitions <= 1024 else None
    calls = None if count is None else [rest] * count
    return _repeated(interp, "Repeat", inputs, layer, calls, dict(kwargs), node)


def _stack(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    if len(args) < 3:
        interp.graph.note_unmodelled_creation()
        return Tensor(None, None, None)
    inputs, layer, stack_args = args[0], args[1], args[2]
    calls = None
    if isinstance(stack_args, (list, tuple)):
        calls = [list(a) if isinstance(a, (list, tuple)) else [a] for a in stack_args]
    return _repeated(interp, "Stack", inputs, layer, calls, dict(kwargs), node)


def _variable(interp: "Interpreter", op: str, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    """slim.variable / model_variable: get_variable with slim's collections (and its `device`)."""
    config = dict(zip(slimlib.VARIABLE_POSITIONAL, args))
    config.update(kwargs)
    merged = with_defaults(interp, op, config)
    if merged is None:
        interp.graph.note_unmodelled_creation()
        merged = config
    collections = merged.pop("collections", None)
    if collections is not None and not isinstance(collections, (list, tuple)):
        collections = [UNKNOWN_PART]
    collections = list(collections or [])
    collections += ["variables", "model_variables"] if op == "model_variable" else ([] if collections else ["variables"])
    merged["collections"] = list(dict.fromkeys(collections))
    device = merged.pop("device", None)
    merged.pop("regularizer", None)
    entered = None
    if device is not None:
        entered = tfapi.enter_context(interp, ContextValue("device", {"device": device}), node)
    try:
        return tfapi.get_variable(interp, [], merged, node)
    finally:
        if entered is not None:
            entered.exit()


def _register() -> None:
    for leaf, op in slimlib.ALIASES.items():
        if op in ("variable", "model_variable"):
            handler = (lambda o: lambda i, a, k, n: _variable(i, o, a, k, n))(op)
        else:
            handler = (lambda o: lambda i, a, k, n: layer_op(i, o, a, k, n))(op)
        for prefix in _PREFIXES:
            HANDLERS[f"{prefix}.{leaf}"] = handler
    for prefix in _PREFIXES:
        HANDLERS[f"{prefix}.arg_scope"] = _arg_scope
        HANDLERS[f"{prefix}.repeat"] = _repeat
        HANDLERS[f"{prefix}.stack"] = _stack
    HANDLERS["tf.contrib.framework.arg_scope"] = _arg_scope
    HANDLERS["tf.contrib.slim.ops.arg_scope.arg_scope"] = _arg_scope


_register()
