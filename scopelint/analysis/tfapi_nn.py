"""Convolutions and pooling of `tf.nn` (what hand-written TF1 layers call, DCGAN's conv2d and
deconv2d helpers): the output's static shape, and its dependencies, which come from the input and
the filter only.

The generic handling of a TF call takes every argument as a possible tensor, so an `output_shape`
list holding one unknown size (the image channels read from data) made the result depend on
"anything": every loss after it lost the variables it depends on, and the optimizer's slots were
no longer proven.  Shapes follow TensorFlow's rules for NHWC and dilation 1; anything else is an
unknown shape.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis.tfapi import bind, deps_of, handles, is_tf_value
from scopelint.analysis.values import Tensor

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter


def _shape(value: Any) -> tuple[Any, ...] | None:
    shape = getattr(value, "shape", None) if is_tf_value(value) else None
    return tuple(shape) if isinstance(shape, tuple) else None


def _ints(value: Any, length: int) -> tuple[int, ...] | None:
    if isinstance(value, (list, tuple)) and len(value) == length \
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
        return tuple(value)
    return None


def _out(size: Any, window: Any, stride: int, padding: Any) -> Any:
    if not isinstance(size, int) or isinstance(size, bool):
        return None
    if padding == "SAME":
        return -(-size // stride)
    if padding == "VALID" and isinstance(window, int) and not isinstance(window, bool) and size >= window:
        return -(-(size - window + 1) // stride)
    return None


def _spatial(in_shape: Any, windows: tuple[Any, Any], strides: Any, padding: Any, data_format: Any,
             channels: Any) -> tuple[Any, ...] | None:
    steps = _ints(strides, 4)
    if in_shape is None or len(in_shape) != 4 or steps is None or data_format not in (None, "NHWC") \
            or steps[0] != 1 or steps[3] != 1 or padding not in ("SAME", "VALID"):
        return None
    return (in_shape[0], _out(in_shape[1], windows[0], steps[1], padding),
            _out(in_shape[2], windows[1], steps[2], padding), channels)


@handles("tf.nn.conv2d")
def _conv2d(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("input", "filter", "strides", "padding", "use_cudnn_on_gpu", "data_format", "dilations",
                  "name", "filters"), args, kwargs)
    value, kernel = bound.get("input"), bound.get("filter", bound.get("filters"))
    kernel_shape = _shape(kernel)
    shape = None
    dilations = bound.get("dilations")
    if kernel_shape is not None and len(kernel_shape) == 4 and (dilations is None or _ints(dilations, 4) == (1, 1, 1, 1)):
        shape = _spatial(_shape(value), (kernel_shape[0], kernel_shape[1]), bound.get("strides"),
                         bound.get("padding"), bound.get("data_format"), kernel_shape[3])
    return Tensor(shape, None, deps_of(value, kernel))


@handles("tf.nn.conv2d_transpose", "tf.nn.deconv2d")
def _conv2d_transpose(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("value", "filter", "output_shape", "strides", "padding", "data_format", "name"), args, kwargs)
    value, kernel = bound.get("value", bound.get("input")), bound.get("filter", bound.get("filters"))
    output_shape = bound.get("output_shape")
    shape = None
    if isinstance(output_shape, (list, tuple)) and len(output_shape) == 4:
        # A size the analysis could not compute is unknown, the others are still known.
        shape = tuple(d if isinstance(d, int) and not isinstance(d, bool) else None for d in output_shape)
    return Tensor(shape, None, deps_of(value, kernel))


@handles("tf.nn.max_pool", "tf.nn.avg_pool")
def _pool(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = bind(("value", "ksize", "strides", "padding", "data_format", "name", "input"), args, kwargs)
    value = bound.get("value", bound.get("input"))
    window = _ints(bound.get("ksize"), 4)
    in_shape = _shape(value)
    shape = None
    if window is not None and window[0] == 1 and window[3] == 1 and in_shape is not None and len(in_shape) == 4:
        shape = _spatial(in_shape, (window[1], window[2]), bound.get("strides"), bound.get("padding"),
                         bound.get("data_format"), in_shape[3])
    return Tensor(shape, None, deps_of(value))
