"""Values shared by the library tables (`layers`, `rnn`, `optimizers`): what one variable a library
construct creates looks like, the UNKNOWN sentinel for call arguments the analysis could not compute,
and TensorFlow's CamelCase -> snake_case rule for default layer names.

Pure: no LibCST, no TensorFlow.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from scopelint.model.unknown import UNKNOWN  # noqa: F401  (re-exported for the tables)

Shape = tuple[int | None, ...] | None
"""A static shape: None when even the rank is unknown; a None dimension is unknown."""




@dataclass(frozen=True)
class VarSpec:
    """One variable a construct creates, named relative to the scope the construct opened.

    `name` is what the construct passes to get_variable inside its scope ("kernel", "gates/kernel"),
    so the store key is `<scope>/<name>`.  Optimizer slots are the exception: their name is "" and
    the store key is `<slot scope>/` (see optimizers.py).
    """

    name: str
    shape: Shape
    trainable: bool = True
    collections: tuple[str, ...] = ("variables",)
    dtype: str | None = None  # None = the layer dtype (the input's dtype, float32 by default)


def to_snake_case(name: str) -> str:
    """TensorFlow's default-name rule for layers and RNN cells (tf_keras generic_utils.to_snake_case).

    "Conv2D" -> "conv2d", "BatchNormalization" -> "batch_normalization", "LSTM" -> "lstm",
    "MultiRNNCell" -> "multi_rnn_cell", "PReLU" -> "p_re_lu".  Already-snake names are unchanged.
    """
    intermediate = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    # Keras keeps the result out of Python's private-name space.
    if insecure.startswith("_"):
        return "private" + insecure
    return insecure


def known(value: Any) -> bool:
    return value is not UNKNOWN


def int_or_none(value: Any) -> int | None:
    """An int argument, or None when the analysis does not know it (bools are not ints here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def get_arg(config: Mapping[str, Any], key: str, default: Any) -> Any:
    """The call's value for `key`, TensorFlow's default when the call did not pass it."""
    return config[key] if key in config else default


def known_bool(config: Mapping[str, Any], key: str, default: bool) -> bool | None:
    """A flag that decides which variables exist; None when it is UNKNOWN (or not a bool)."""
    value = get_arg(config, key, default)
    if isinstance(value, bool):
        return value
    if value is None:
        # TensorFlow treats None like False for these flags (e.g. num_proj=None, use_peepholes=None).
        return False
    return None
