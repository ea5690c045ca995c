"""`tf.cond` in graph mode: TensorFlow builds both branches.

`tf.compat.v1.cond(pred, true_fn, false_fn)` calls `true_fn()` then `false_fn()` while it builds the
graph, whatever `pred` will be at run time, so what each branch creates exists after the call (a
`variable_scope(..., reuse=True)` inside a branch looks its variables up at once).  A branch the
analysis cannot call (an unknown value) may create anything: the graph is then incomplete, as for
any unmodelled call.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tfapi import bind, deps_of, handles
from scopelint.analysis.values import UNKNOWN, BoundMethod, Tensor, UserFunction

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

_COND_PARAMETERS = ("pred", "true_fn", "false_fn", "strict", "name", "fn1", "fn2")


@handles("tf.cond")
def _cond(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(_COND_PARAMETERS, args, kwargs)
    branches = [bound.get("true_fn", bound.get("fn1")), bound.get("false_fn", bound.get("fn2"))]
    results = []
    for branch in branches:
        if isinstance(branch, (UserFunction, BoundMethod)):
            results.append(interp.call_value(branch, [], {}, node))
        elif branch is not None:
            interp.graph.note_unmodelled_creation()  # an unknown callable may create variables
    if len(results) == 2 and isinstance(results[0], Tensor) and isinstance(results[1], Tensor):
        same_shape = results[0].shape == results[1].shape
        return Tensor(results[0].shape if same_shape else None, None, deps_of(*results))
    return Tensor(None, None, deps_of(*[r for r in results if isinstance(r, Tensor)]))
