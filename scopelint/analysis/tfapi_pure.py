"""TF calls that create no variables: they return a value or an opaque tensor, and the graph stays
complete.

An unmodelled call in a namespace that may create variables (`tf.train`, `tf.contrib`, ...) marks
the graph incomplete, which ends every "does not exist" and "already exists" proof after it.  The
calls listed in `tf_variable_free.VARIABLE_FREE` are derived from TensorFlow's API (by defining
module, see tests/test_variable_free_tf.py): checkpoint paths, protobuf builders, learning-rate
schedules, hooks, regularizer factories, losses, collection getters.  They get a handler here
unless a more precise one exists.

`tf.split` and `tf.unstack` return lists whose length is known when the count is: unpacking them
keeps each part's shape and dependencies (which variables a loss depends on decides optimizer
slots).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tf_variable_free import VARIABLE_FREE
from scopelint.analysis.tfapi import HANDLERS, bind, deps_of, handles, is_tf_value
from scopelint.analysis.values import UNKNOWN, Tensor

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

# A list longer than this is left opaque (the count is data, not structure).
_MAX_PARTS = 1024


def _tensor_result(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return Tensor(None, None, deps_of(*args, *kwargs.values()))


def _value_result(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    return UNKNOWN


for _path, _kind in VARIABLE_FREE.items():
    HANDLERS.setdefault(_path, _tensor_result if _kind == "tensor" else _value_result)


def _shape_of(value: Any) -> tuple[int | None, ...] | None:
    shape = getattr(value, "shape", None) if is_tf_value(value) else None
    return tuple(shape) if isinstance(shape, tuple) else None


def _axis(axis: Any, rank: int | None) -> int | None:
    if not isinstance(axis, int) or isinstance(axis, bool):
        return None
    if rank is None:
        return axis if axis >= 0 else None
    return axis % rank if -rank <= axis < rank else None


@handles("tf.split")
def _split(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("value", "num_or_size_splits", "axis", "num", "name"), args, kwargs)
    value = bound.get("value")
    splits = bound.get("num_or_size_splits")
    shape = _shape_of(value)
    axis = _axis(bound.get("axis", 0), None if shape is None else len(shape))
    deps = deps_of(value)
    if isinstance(splits, int) and not isinstance(splits, bool) and 0 < splits <= _MAX_PARTS:
        sizes: list[int | None] = [None] * splits
        if shape is not None and axis is not None and shape[axis] is not None and shape[axis] % splits == 0:
            sizes = [shape[axis] // splits] * splits
    elif isinstance(splits, (list, tuple)) and 0 < len(splits) <= _MAX_PARTS:
        sizes = [s if isinstance(s, int) and not isinstance(s, bool) and s >= 0 else None for s in splits]
    else:
        return Tensor(None, None, deps)
    parts = []
    for size in sizes:
        part_shape = None
        if shape is not None and axis is not None:
            part_shape = shape[:axis] + (size,) + shape[axis + 1:]
        parts.append(Tensor(part_shape, None, deps))
    return parts


@handles("tf.unstack", "tf.unpack")
def _unstack(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("value", "num", "axis", "name"), args, kwargs)
    value = bound.get("value")
    shape = _shape_of(value)
    axis = _axis(bound.get("axis", 0), None if shape is None else len(shape))
    deps = deps_of(value)
    num = bound.get("num")
    if not (isinstance(num, int) and not isinstance(num, bool)):
        num = shape[axis] if shape is not None and axis is not None else None
    if num is None or not 0 <= num <= _MAX_PARTS:
        return Tensor(None, None, deps)
    part_shape = shape[:axis] + shape[axis + 1:] if shape is not None and axis is not None else None
    return [Tensor(part_shape, None, deps) for _ in range(num)]


@handles("tf.expand_dims")
def _expand_dims(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("input", "axis", "name", "dim"), args, kwargs)
    value = bound.get("input")
    shape = _shape_of(value)
    axis = bound.get("axis", bound.get("dim"))
    result_shape = None
    if shape is not None and isinstance(axis, int) and not isinstance(axis, bool) \
            and -len(shape) - 1 <= axis <= len(shape):
        index = axis % (len(shape) + 1)
        result_shape = shape[:index] + (1,) + shape[index:]
    return Tensor(result_shape, None, deps_of(value))


@handles("tf.stack", "tf.pack")
def _stack(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("values", "axis", "name"), args, kwargs)
    values = bound.get("values")
    axis = bound.get("axis", 0)
    result_shape = None
    if isinstance(values, (list, tuple)) and values and isinstance(axis, int) and not isinstance(axis, bool):
        shapes = {_shape_of(v) for v in values}
        if len(shapes) == 1 and None not in shapes:
            (shape,) = shapes
            assert shape is not None
            if -len(shape) - 1 <= axis <= len(shape):
                index = axis % (len(shape) + 1)
                result_shape = shape[:index] + (len(values),) + shape[index:]
    return Tensor(result_shape, None, deps_of(values))


# tf_slim.layers.utils (tf.contrib.layers.python.layers.utils): helpers of slim's own model code
# (the nets' end points), not re-exported, so not in the generated table.  Read in tf_slim 1.1:
# none creates variables; smart_cond/static_cond, which call functions, are left out.
_SLIM_UTILS = ("append_tensor_alias", "channel_dimension", "constant_value", "convert_collection_to_dict",
               "gather_tensors_aliases", "get_tensor_aliases", "get_variable_collections", "last_dimension",
               "n_positive_integers", "two_element_tuple")
for _prefix in ("tf.contrib.slim.layers.utils.", "tf.contrib.layers.python.layers.utils."):
    for _name in _SLIM_UTILS:
        HANDLERS.setdefault(_prefix + _name, _value_result)


@handles("tf.contrib.slim.layers.utils.collect_named_outputs", "tf.contrib.layers.python.layers.utils.collect_named_outputs")
def _collect_named_outputs(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    """Adds `outputs` to collections under an alias and returns it unchanged."""
    return bind(("collections", "alias", "outputs"), args, kwargs).get("outputs", UNKNOWN)
