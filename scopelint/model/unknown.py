"""The one value that stands for "the analysis could not compute this".

Shared by the model (setter arguments, layer configs, scope settings) and the interpreter's
abstract values, so that no layer converts one unknown into another.
"""
from __future__ import annotations

from typing import Any


class UnknownType:
    _instance: "UnknownType | None" = None

    def __new__(cls) -> "UnknownType":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        # Deciding a branch on an unknown would be a guess: make it an error, not a silent False.
        raise TypeError("the truth value of UNKNOWN is not known")


UNKNOWN: Any = UnknownType()
