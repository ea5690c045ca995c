"""Project classes derived from a Keras `Layer` or `Model`: what Keras does around their methods.

Measured under tf_keras 2.21 in v1 graph mode (tests/fixtures/rules/tfs101_*keras_layer*):

- the layer's name is fixed when `Layer.__init__` runs: the `name` keyword, else the snake_case
  class name made unique per graph (`keras_dense`, `keras_dense_1`), one counter shared with
  Keras's own layers;
- the first call runs `build(input_shape)` and then `call(inputs)`; later calls only `call`.  Both
  run inside a name scope of the layer's name (uniquified per call: `keras_dense`, `keras_dense_1`)
  and under the caller's variable scope.  So `tf.get_variable` in `build` is named by the variable
  scope alone (two layers that use one scope name collide: "already exists"), while `add_weight` and
  `tf.Variable` take the name scope (`keras_dense/b`);
- `add_weight` ignores variable-scope reuse, as Keras's own layers do.

Subclasses of `tf.layers.Layer` (tf.compat.v1.layers) differ, as tf.layers objects do
(tfapi_layers.build_tf_layer): `self.name` takes a one-based uid (`my_dense_1`), but the variable
scope is fixed at the first call (`variable_scope(None, default_name=name)`: `my_dense`,
`outer/my_dense`); build and call run inside that scope, re-entered with reuse=True at later calls,
and `add_weight` is a `get_variable` there (so under a reusing parent it "does not exist").

Subclasses of a concrete Keras layer (`class ScaledDense(tf.keras.layers.Dense)`) keep that
layer's arguments (`super().__init__(units, **kwargs)`), build its variables when they do not
override `build` or when theirs calls `super().build(input_shape)` (`scaled_dense/kernel`, then
their own `add_weight`s), and compute its output when `call` is not overridden or calls
`super().call(inputs)`; `self.units`, `self.kernel`, `self.bias` read those arguments and variables.

The layer's state lives in hidden attributes of the instance (names no Python code can spell), so
speculative branches join it like any other attribute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tfapi import bind, deps_of, dtype_name, is_tf_value, lib_config, shape_known_dims
from scopelint.analysis.values import (
    UNKNOWN, Env, Instance, LayerObject, Tensor, TFRef, UserClass, UserFunction, VariableValue,
)
from scopelint.model import layers as layerlib
from scopelint.model.graph import Initializer
from scopelint.model.scopes import Reuse
from scopelint.trace import UNKNOWN_PART, VariableRecord

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

# Canonical TF paths of the classes whose subclasses get Keras's __call__.
LAYER_BASES = frozenset({
    "tf.keras.layers.Layer", "tf.keras.Model", "tf.keras.models.Model", "tf.keras.engine.base_layer.Layer",
    "tf.keras.engine.training.Model",
})
TF_LAYERS_BASES = frozenset({"tf.layers.Layer", "tf.layers.base.Layer"})
KERAS_LAYERS_MODULE = "tf.keras.layers."
NAME = " keras_name"
CONCRETE = " keras_concrete"  # the concrete Keras layer a class derives from: a LayerObject
FAMILY = " layer_family"  # "keras" or "layers"
SCOPE = " layer_scope"  # tf.layers: the variable scope fixed at the first call
SCOPE_DEFAULT = " layer_scope_default"  # tf.layers: that scope's default name
BUILT = " keras_built"
REUSE_NOTED = " keras_reuse_noted"
# Methods of the Keras base the analysis models; any other base attribute is unknown.
_METHODS = frozenset({"__init__", "__call__", "build", "add_weight", "add_variable", "call"})
_ADD_WEIGHT = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "constraint")


@dataclass(eq=False)
class LayerMethod:
    """A method of the Keras base class, bound to a project layer instance."""

    instance: Instance
    name: str


def is_layer_base(value: Any) -> bool:
    return isinstance(value, TFRef) and (value.path in LAYER_BASES or value.path in TF_LAYERS_BASES
                                         or concrete_layer_class(value) is not None)


def concrete_layer_class(base: Any) -> str | None:
    """"Dense" for tf.keras.layers.Dense: a Keras layer class whose variables the analysis knows."""
    if not isinstance(base, TFRef) or not base.path.startswith(KERAS_LAYERS_MODULE):
        return None
    leaf = base.path[len(KERAS_LAYERS_MODULE):]
    if "." in leaf or not leaf[:1].isupper() or layerlib.keras_base_name(leaf) not in layerlib.KERAS_LAYERS:
        return None
    return leaf


def _concrete_base(cls: UserClass, depth: int = 0) -> str | None:
    for base in cls.bases:
        leaf = concrete_layer_class(base)
        if leaf is not None:
            return leaf
        if isinstance(base, UserClass) and depth < 16:
            found = _concrete_base(base, depth + 1)
            if found is not None:
                return found
    return None


def layer_family(cls: UserClass, depth: int = 0) -> str | None:
    """"keras" or "layers" when the class derives from one of their base classes, else None."""
    for base in cls.bases:
        if isinstance(base, TFRef) and (base.path in LAYER_BASES or concrete_layer_class(base) is not None):
            return "keras"
        if isinstance(base, TFRef) and base.path in TF_LAYERS_BASES:
            return "layers"
        if isinstance(base, UserClass) and depth < 16:
            family = layer_family(base, depth + 1)
            if family is not None:
                return family
    return None


def is_layer_class(cls: UserClass) -> bool:
    return layer_family(cls) is not None


def is_layer_instance(value: Any) -> bool:
    return isinstance(value, Instance) and NAME in value.attrs


def construct(interp: "Interpreter", cls: UserClass, args: list[Any], kwargs: dict[str, Any],
              node: cst.CSTNode) -> Instance:
    """`MyLayer(...)`: the project's __init__ (which names the layer when it calls Keras's), or
    Keras's own when the class has none."""
    instance = Instance(cls)
    instance.attrs[FAMILY] = layer_family(cls)
    instance.attrs[NAME] = None
    instance.attrs[BUILT] = False
    init = cls.lookup("__init__")
    if isinstance(init, UserFunction):
        interp.call_user(init, args, dict(kwargs), node, receiver=instance)
    else:
        _keras_init(interp, instance, args, kwargs, node)
    if instance.attrs.get(NAME) is None:  # an __init__ that never reached Keras's: named at first use
        _keras_init(interp, instance, [], {}, node)
    return instance


def _keras_init(interp: "Interpreter", instance: Instance, args: list[Any], kwargs: dict[str, Any],
                node: cst.CSTNode) -> None:
    if instance.attrs.get(NAME) is not None:
        return  # Keras's __init__ run twice keeps the first name only if the same: rare, keep it
    concrete = _concrete_base(instance.cls)
    if concrete is not None:
        positional = layerlib.TF_LAYERS_POSITIONAL.get(layerlib.keras_base_name(concrete), ())
        config = dict(zip(positional, args))
        config.update(kwargs)
        instance.attrs[CONCRETE] = LayerObject("keras", concrete, config, None, interp.site(node))
    elif args:
        instance.attrs[CONCRETE] = None
    name = kwargs.get("name")
    base = layerlib.keras_base_name(instance.cls.name)
    if name is None and instance.attrs.get(FAMILY) == "layers":
        name = interp.graph.layer_uids.tf_layers_name(base)
        instance.attrs[SCOPE_DEFAULT] = base  # the scope's default name is the class's, not this one
    elif name is None:
        name = interp.graph.layer_uids.keras_name(base)
    elif not isinstance(name, str) or UNKNOWN_PART in name:
        name = UNKNOWN_PART
    instance.attrs[NAME] = name
    instance.attrs.setdefault(SCOPE_DEFAULT, name)


def base_attribute(instance: Instance, name: str) -> Any:
    """An attribute the project's classes do not define, read from the Keras base."""
    if name == "name":
        return instance.attrs.get(NAME, UNKNOWN)
    if name == "built":
        return instance.attrs.get(BUILT, UNKNOWN)
    if name in _METHODS:
        return LayerMethod(instance, name)
    concrete = instance.attrs.get(CONCRETE)
    if isinstance(concrete, LayerObject):
        if name in concrete.config:
            return concrete.config[name]
        # `self.kernel` after build: the variable Keras keeps under that attribute (spec names
        # are the attribute names: kernel, bias, gamma, beta, ...).
        for record in concrete.variables:
            if record.name.rsplit("/", 1)[-1] == name:
                return VariableValue(record)
    return UNKNOWN


def call_method(interp: "Interpreter", method: LayerMethod, args: list[Any], kwargs: dict[str, Any],
                node: cst.CSTNode) -> Any:
    instance = method.instance
    if method.name == "__init__":
        _keras_init(interp, instance, args, kwargs, node)
        return None
    if method.name == "__call__":
        return call_layer(interp, instance, args, kwargs, node)
    if method.name == "build":
        _set(interp, instance, BUILT, True)
        _build_concrete(interp, instance, args[0] if args else kwargs.get("input_shape", UNKNOWN), node)
        return None
    if method.name == "call":
        inputs = args[0] if args else kwargs.get("inputs", UNKNOWN)
        return _call_concrete(instance, inputs)
    return add_weight(interp, instance, args, kwargs, node)


def _build_concrete(interp: "Interpreter", instance: Instance, input_shape: Any, node: cst.CSTNode) -> None:
    """The concrete Keras layer's own build: its variables in the current name scope (the layer's,
    inside `__call__`), named as Keras names them (`scaled_dense/kernel`)."""
    concrete = instance.attrs.get(CONCRETE)
    if not isinstance(concrete, LayerObject) or concrete.variables:
        return
    graph = interp.graph
    where = interp.where(node)
    shape = input_shape if isinstance(input_shape, tuple) else None
    specs = layerlib.keras_layer_variables(concrete.class_name, lib_config(concrete.config), shape)
    if specs is None:
        graph.note_unmodelled_creation()
        return
    if specs:
        _note_reuse_ignored(interp, instance, where)
    for spec in specs:
        record = graph.create_variable(spec.name, where, shape=spec.shape, dtype=spec.dtype or "float32",
                                       trainable=spec.trainable, kind="keras")
        concrete.variables.append(record)


def _call_concrete(instance: Instance, inputs: Any) -> Any:
    """The concrete Keras layer's own call: its output shape, depending on its variables."""
    concrete = instance.attrs.get(CONCRETE)
    if not isinstance(concrete, LayerObject):
        return inputs  # Layer.call: the identity
    in_shape = getattr(inputs, "shape", None) if is_tf_value(inputs) else None
    out_shape = layerlib.keras_layer_output_shape(concrete.class_name, lib_config(concrete.config), in_shape)
    deps = deps_of(inputs)
    if deps is not None:
        deps = deps | frozenset(id(record) for record in concrete.variables)
    return Tensor(out_shape if isinstance(out_shape, tuple) else None, None, deps)


def _note_reuse_ignored(interp: "Interpreter", instance: Instance, where: Any) -> None:
    if instance.attrs.get(REUSE_NOTED) is True or instance.attrs.get(FAMILY) != "keras":
        return
    _set(interp, instance, REUSE_NOTED, True)
    interp.graph.note_created_under_reuse(
        "keras_ignores_reuse",
        "Keras layer built in scope '{scope}' with reuse={reuse}: Keras ignores variable_scope reuse "
        "and creates new variables. Build the layer object once and call it again to share",
        where,
    )


def call_layer(interp: "Interpreter", instance: Instance, args: list[Any], kwargs: dict[str, Any],
               node: cst.CSTNode) -> Any:
    """`layer(inputs)`: build once, then call, inside the layer's name scope (Keras) or variable
    scope (tf.layers)."""
    if instance.attrs.get(FAMILY) == "layers":
        return _call_tf_layer(interp, instance, args, kwargs, node)
    graph = interp.graph
    name = instance.attrs.get(NAME)
    frame = graph.enter_name_scope(name if isinstance(name, str) else UNKNOWN_PART, interp.where(node), user=False)
    try:
        return _build_and_call(interp, instance, args, kwargs, node)
    finally:
        graph.exit_name_scope(frame, user=False)


def _call_tf_layer(interp: "Interpreter", instance: Instance, args: list[Any], kwargs: dict[str, Any],
                   node: cst.CSTNode) -> Any:
    graph = interp.graph
    where = interp.where(node)
    scope = instance.attrs.get(SCOPE)
    if scope is None or scope is UNKNOWN:  # UNKNOWN: set on some paths only; TF sets it once
        # `_set_scope`: variable_scope(None, default_name=<the given name, or the class's base name>).
        setup = graph.enter_variable_scope(None, where, default_name=instance.attrs.get(SCOPE_DEFAULT))
        scope = setup.scope
        graph.exit_variable_scope(setup)
        _set(interp, instance, SCOPE, scope)
        frame = graph.enter_variable_scope(scope, where, reuse=Reuse.FALSE, auxiliary_name_scope=False)
    else:
        frame = graph.enter_variable_scope(scope, where, reuse=Reuse.TRUE, auxiliary_name_scope=False)
    try:
        return _build_and_call(interp, instance, args, kwargs, node)
    finally:
        graph.exit_variable_scope(frame)


def _build_and_call(interp: "Interpreter", instance: Instance, args: list[Any], kwargs: dict[str, Any],
                    node: cst.CSTNode) -> Any:
    inputs = args[0] if args else kwargs.get("inputs", UNKNOWN)
    built = instance.attrs.get(BUILT, UNKNOWN)
    if built is not True:
        build = instance.cls.lookup("build")
        _set(interp, instance, BUILT, True)  # before build: Keras's own build() sets it too
        if isinstance(build, UserFunction):
            shape = _input_shape(inputs)
            if built is False:
                interp.call_user(build, [shape], {}, node, receiver=instance)
            else:  # built on some paths only: this build may not happen
                with interp.speculative() as spec:
                    spec.branch(Env(), lambda _env: interp.call_user(build, [shape], {}, node, receiver=instance))
        elif build is UNKNOWN and "build" not in _defined_names(instance.cls):
            shape = _input_shape(inputs)
            if built is False:
                _build_concrete(interp, instance, shape, node)
            else:
                with interp.speculative() as spec:
                    spec.branch(Env(), lambda _env: _build_concrete(interp, instance, shape, node))
    call = instance.cls.lookup("call")
    if isinstance(call, UserFunction):
        return interp.call_user(call, args, dict(kwargs), node, receiver=instance)
    return _call_concrete(instance, inputs) if call is UNKNOWN and "call" not in _defined_names(instance.cls) \
        else UNKNOWN


def add_weight(interp: "Interpreter", instance: Instance, args: list[Any], kwargs: dict[str, Any],
               node: cst.CSTNode) -> Any:
    """`self.add_weight(name, shape, ...)`: Keras: a variable named by the current name scope (the
    layer's, inside build and call), outside the variable store; tf.layers: a get_variable in the
    current variable scope (the layer's, inside build and call)."""
    graph = interp.graph
    where = interp.where(node)
    bound = bind(_ADD_WEIGHT, args, kwargs)
    name = bound.get("name")
    _, shape = shape_known_dims(bound.get("shape"))
    if shape is None and bound.get("shape") is None:
        shape = ()  # Keras's default: a scalar
    _note_reuse_ignored(interp, instance, where)
    trainable = bound.get("trainable")
    if instance.attrs.get(FAMILY) == "layers":
        result = graph.get_variable(
            name if isinstance(name, str) else UNKNOWN_PART, where, shape=shape, shape_given=True,
            dtype=dtype_name(bound.get("dtype")) or "float32", initializer=Initializer(True),
            trainable=trainable if isinstance(trainable, bool) else True, kind="layer",
        )
        return VariableValue(result) if isinstance(result, VariableRecord) else UNKNOWN
    record = graph.create_variable(
        name if isinstance(name, str) or name is None else UNKNOWN_PART,
        where,
        shape=shape,
        dtype=dtype_name(bound.get("dtype")) or "float32",
        trainable=trainable if isinstance(trainable, bool) else True,
        kind="keras",
    )
    if trainable is not None and not isinstance(trainable, bool):
        record.trainable = None
    return VariableValue(record)


def _set(interp: "Interpreter", instance: Instance, key: str, value: Any) -> None:
    """An attribute write, joined like `self.x = value` in a branch that may not run."""
    if interp.graph.speculative and instance.attrs.get(key, UNKNOWN) is not value:
        instance.attrs[key] = UNKNOWN
    else:
        instance.attrs[key] = value


def _input_shape(inputs: Any) -> Any:
    """What Keras hands build(): the inputs' shapes (a TensorShape, here a tuple), in their nesting."""
    if isinstance(inputs, (list, tuple)):
        shapes = [_input_shape(item) for item in inputs]
        return UNKNOWN if any(shape is UNKNOWN for shape in shapes) else type(inputs)(shapes)
    if is_tf_value(inputs):
        shape = getattr(inputs, "shape", None)
        return shape if isinstance(shape, tuple) else UNKNOWN
    return UNKNOWN


def _defined_names(cls: UserClass, depth: int = 0) -> set[str]:
    names = set(cls.attrs)
    for base in cls.bases:
        if isinstance(base, UserClass) and depth < 16:
            names |= _defined_names(base, depth + 1)
    return names

