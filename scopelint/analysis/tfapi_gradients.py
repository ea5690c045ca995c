"""Gradients as projects hand them to an optimizer: `tf.gradients(loss, tvars)`, clipped with
`tf.clip_by_global_norm`, zipped with the variables into `apply_gradients(zip(grads, tvars))`
(the PTB language model, BERT's optimization.py).

Each gradient is a tensor that depends on the loss, or None for a variable the loss does not
depend on, as TensorFlow returns it; the optimizer then creates slots for exactly the variables
with a gradient.  A list the analysis cannot enumerate stays opaque.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tfapi import bind, deps_of, handles, is_tf_value
from scopelint.analysis.values import UNKNOWN, PartitionedValue, Tensor, VariableValue

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter


def _gradient(loss_deps: frozenset[int] | None, x: Any) -> Any:
    if isinstance(x, VariableValue):
        if loss_deps is not None and id(x.record) not in loss_deps:
            return None  # not connected to the loss: TensorFlow's gradient is None
        return Tensor(x.record.shape, x.record.dtype, loss_deps)
    return Tensor(None, None, loss_deps)  # a gradient with respect to a tensor


@handles("tf.gradients")
def _gradients(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("ys", "xs", "grad_ys", "name"), args, kwargs)
    xs = bound.get("xs")
    loss_deps = deps_of(bound.get("ys"))
    if isinstance(xs, (VariableValue, Tensor)):
        return [_gradient(loss_deps, xs)]
    if not isinstance(xs, (list, tuple)) or any(isinstance(x, PartitionedValue) or not is_tf_value(x) for x in xs):
        return UNKNOWN
    return [_gradient(loss_deps, x) for x in xs]


@handles("tf.clip_by_global_norm")
def _clip_by_global_norm(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("t_list", "clip_norm", "use_norm", "name"), args, kwargs)
    t_list = bound.get("t_list")
    if not isinstance(t_list, (list, tuple)) or not all(t is None or isinstance(t, Tensor) for t in t_list):
        return UNKNOWN
    clipped = [None if t is None else Tensor(t.shape, t.dtype, t.deps) for t in t_list]
    return (clipped, Tensor((), None, deps_of(*[t for t in t_list if t is not None])))
