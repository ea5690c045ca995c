"""Python's `math` module on known numbers.

Projects compute layer sizes with it (`int(math.ceil(float(size) / float(stride)))` in DCGAN-style
generators, `math.sqrt(fan_in)` for initializer scales); an unknown there makes every shape after
it unknown, and the shape checks (TFS103) silent.  Only pure functions of plain numbers are
modelled; anything else (an unknown or tensor argument, a math error) is UNKNOWN.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scopelint.analysis.config_values import ConfigObject, ConfigState, Method, plain
from scopelint.analysis.values import UNKNOWN

_FUNCTIONS = frozenset({
    "ceil", "floor", "trunc", "sqrt", "exp", "log", "log2", "log10", "pow", "fabs", "gcd", "isqrt",
    "factorial", "hypot", "copysign", "fmod", "isclose", "isfinite", "isinf", "isnan", "prod",
    "sin", "cos", "tan", "atan", "atan2", "degrees", "radians",
})
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
# Results beyond this are left unknown (factorial/pow of a large flag value: data, not structure).
_MAX_INT = 1 << 64


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and value is not UNKNOWN


@dataclass(eq=False)
class MathModule(ConfigObject):
    def attr(self, config: ConfigState, name: str) -> Any:
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in _FUNCTIONS:
            return Method(self, name)
        return UNKNOWN

    def call_method(self, config: ConfigState, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        values = [plain(v) for v in args]
        if name == "prod" and len(values) == 1 and isinstance(values[0], (list, tuple)):
            values = [list(values[0])]
            if not all(_number(v) for v in values[0]):
                return UNKNOWN
        elif kwargs or not all(_number(v) for v in values):
            return UNKNOWN
        if name in ("factorial", "pow") and any(abs(v) > 1000 for v in values):
            return UNKNOWN
        try:
            result = getattr(math, name)(*values)
        except (ValueError, OverflowError, TypeError, ZeroDivisionError):
            return UNKNOWN  # the program raises here; the analysis does not model that error
        if isinstance(result, int) and not isinstance(result, bool) and abs(result) > _MAX_INT:
            return UNKNOWN
        return result
