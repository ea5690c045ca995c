"""Bytes a variable holds: element count times TensorFlow's `DType.size`.

Used to predict the load per ps task (TFS409).  Pure: no TensorFlow import; the sizes are
TF 2.21's `tf.as_dtype(name).size`, checked by `tests/test_devices_tf.py`.
"""
from __future__ import annotations

from collections.abc import Sequence

# Element size in bytes by dtype name (and the aliases `tf.as_dtype` accepts).  Variable-size types
# (string, resource, variant) are absent: TensorFlow reports 0 for them, which is not a byte count.
DTYPE_BYTES: dict[str, int] = {
    "bool": 1,
    "int4": 1, "uint4": 1,  # TensorFlow stores one element per byte
    "int8": 1, "uint8": 1, "qint8": 1, "quint8": 1,
    "float8_e5m2": 1, "float8_e4m3fn": 1, "float8_e4m3fnuz": 1, "float8_e4m3b11fnuz": 1,
    "float8_e5m2fnuz": 1,
    "int16": 2, "uint16": 2, "qint16": 2, "quint16": 2,
    "float16": 2, "half": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "qint32": 4, "float32": 4, "float": 4,
    "int64": 8, "uint64": 8, "float64": 8, "double": 8, "complex64": 8,
    "complex128": 16,
}


def bytes_of(shape: Sequence[int | None] | None, dtype: str | None) -> int | None:
    """Bytes of a dense tensor of `shape` and `dtype` (a name such as "float32"; a ref dtype's
    "_ref" suffix is ignored).  None when the shape, any dimension, or the dtype's size is unknown."""
    if shape is None or dtype is None:
        return None
    name = dtype.removeprefix("tf.").removesuffix("_ref")
    element_bytes = DTYPE_BYTES.get(name)
    if element_bytes is None:
        return None
    count = 1
    for dimension in shape:
        if dimension is None or isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 0:
            return None
        count *= dimension
    return count * element_bytes
