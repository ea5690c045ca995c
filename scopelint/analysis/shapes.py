"""`TensorShape` members on the analysis' shapes.

The analysis holds a static shape (`x.get_shape()`, `x.shape`, a variable's shape) as a plain tuple
of ints and None (an unknown dimension).  Python tuples have none of TensorShape's members, so a
member of that name on a tuple can only be the TensorShape one: `shape.as_list()[1]` (DCGAN's
`linear`), `shape.ndims`, `shape.num_elements()`.  An unknown rank is not a tuple (it is UNKNOWN),
so it never reaches here.
"""
from __future__ import annotations

from typing import Any

from scopelint.analysis.values import UNKNOWN

# Members read as attributes (properties of TensorShape).
PROPERTIES = frozenset({"ndims", "rank", "dims"})
# Members called as methods.
METHODS = frozenset({"as_list", "num_elements", "is_fully_defined"})


def shape_property(shape: tuple[Any, ...], name: str) -> Any:
    if name in ("ndims", "rank"):
        return len(shape)
    return list(shape)  # dims: in TF1 Dimensions, whose `.value` is the int (tfapi.getattr_value)


def call_shape_method(shape: tuple[Any, ...], name: str, args: list[Any]) -> Any:
    if args:
        return UNKNOWN
    if name == "as_list":
        return list(shape)
    if any(not isinstance(dim, int) and dim is not None for dim in shape):
        return UNKNOWN  # a dimension the analysis could not compute
    if name == "is_fully_defined":
        return None not in shape
    if None in shape:
        return None  # num_elements() of a partly known shape
    count = 1
    for dim in shape:
        count *= dim
    return count


def broadcast(left: tuple[Any, ...] | None, right: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    """`tf.broadcast_static_shape`: dimensions aligned from the right; 1 stretches to the other; an
    unknown dimension against d > 1 is d, against 1 or unknown stays unknown.  None (unknown rank, or
    shapes TensorFlow rejects as incompatible, which is not this module's finding) when not known."""
    if left is None or right is None:
        return None
    result: list[Any] = []
    for index in range(1, max(len(left), len(right)) + 1):
        a = left[-index] if index <= len(left) else 1
        b = right[-index] if index <= len(right) else 1
        if a == b:
            result.append(a)
        elif a == 1 or b == 1:
            result.append(b if a == 1 else a)
        elif a is None or b is None:
            result.append(b if a is None else a)
        else:
            return None
    return tuple(reversed(result))
