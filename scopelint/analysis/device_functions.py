"""The program's own device functions: `with tf.device(assign_to_device("/gpu:0")):`.

TensorFlow calls a device function with every op created inside and sets the op's device to what
it returns.  The common one (multi-GPU examples, copied from project to project) keeps variables
on the CPU and the rest on the tower's GPU:

    def assign_to_device(device, ps_device="/cpu:0"):
        def _assign(op):
            node_def = op if isinstance(op, tf.NodeDef) else op.node_def
            return "/" + ps_device if node_def.op in PS_OPS else device
        return _assign

For a variable the analysis interprets that function with an abstract op (`AbstractOp`): its
`type` and `node_def.op` are the variable's op type, `device` what the inner device scopes gave it,
its name unknown.  The op type depends on the variables TensorFlow makes (TF 2.21, measured):
`VariableV2` (ref variables) after `tf.disable_v2_behavior()` or `disable_resource_variables()`,
and in a TF1 program (plain `import tensorflow`, no `compat.v1`); `VarHandleOp` (resource
variables) after `enable_resource_variables()` / `enable_v2_behavior()`.  A `compat.v1` program
that calls neither may run on TF 1.x or 2.x: the function is asked about both op types, and the
device is known only when both answers agree (`PS_OPS` above lists only ref variable ops, so
there it is not).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis import tfapi
from scopelint.analysis.values import UNKNOWN, AbstractOp, BoundMethod, PartialStr, UserFunction
from scopelint.model import devices as devmodel

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

REF_VARIABLE = "VariableV2"
RESOURCE_VARIABLE = "VarHandleOp"


def is_device_function(value: Any) -> bool:
    return isinstance(value, (UserFunction, BoundMethod))


def entry(interp: "Interpreter", function: Any, node: cst.CSTNode) -> devmodel.DeviceFunction:
    """The device stack entry for `device(function)`, entered at `node`."""

    def place(op_type: str, current: str | None) -> Any:
        op_types = variable_op_types(interp) if op_type in devmodel.VARIABLE_OP_TYPES else (op_type,)
        answers = [_ask(interp, function, AbstractOp(kind, current), node) for kind in op_types]
        first = answers[0]
        if first is UNKNOWN or any(answer != first for answer in answers[1:]):
            return UNKNOWN
        return first

    return devmodel.DeviceFunction(place)


def _ask(interp: "Interpreter", function: Any, op: AbstractOp, node: cst.CSTNode) -> Any:
    """What the function returns for `op`: a device string, or UNKNOWN."""
    try:
        returned = interp.call_value(function, [op], {}, node)
    except Exception:  # noqa: BLE001 - the function raised, or the analysis stopped inside it
        return UNKNOWN
    if isinstance(returned, str) and not isinstance(returned, PartialStr):
        return returned
    return UNKNOWN


def variable_op_types(interp: "Interpreter") -> tuple[str, ...]:
    chosen = interp.resource_variables
    if chosen is None:
        chosen = False if not _uses_compat_v1(interp) else None
    if chosen is None:
        return (REF_VARIABLE, RESOURCE_VARIABLE)
    return (RESOURCE_VARIABLE,) if chosen else (REF_VARIABLE,)


def _uses_compat_v1(interp: "Interpreter") -> bool:
    """Whether the module reaches TensorFlow through `compat.v1` (so it may run on TF 2), or
    cannot be read for it."""
    source = getattr(interp.module.positions, "source", None) if interp.module is not None else None
    if not isinstance(source, str):
        return True
    return "compat.v1" in source or "compat import v1" in source


def _set_resource_variables(value: bool) -> tfapi.Handler:
    def handler(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
        interp.resource_variables = value
        return None

    return handler


tfapi.handles("tf.disable_v2_behavior", "tf.disable_resource_variables")(_set_resource_variables(False))
tfapi.handles("tf.enable_v2_behavior", "tf.enable_resource_variables")(_set_resource_variables(True))
