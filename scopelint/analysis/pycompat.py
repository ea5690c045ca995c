"""`six` and `six.moves`: Python 2/3 compatibility names for builtins.

TF1 projects loop over towers and layers with `from six.moves import xrange` and walk config dicts
with `six.iteritems`; unknown there, the loop count is unknown and every variable built in the loop
is uncertain (a tower loop over `xrange(FLAGS.num_gpus)` proves nothing).  Only the names that
are Python builtins under another name are modelled.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scopelint.analysis.config_values import ConfigObject, ConfigState, Method
from scopelint.analysis.values import UNKNOWN, Builtin

# six.moves names -> the Python 3 builtin they are.
_MOVES = {"xrange": "range", "range": "range", "zip": "zip", "input": "input"}
_DICT_VIEWS = {"iteritems": "items", "iterkeys": "keys", "itervalues": "values",
               "viewitems": "items", "viewkeys": "keys", "viewvalues": "values"}


@dataclass(eq=False)
class SixModule(ConfigObject):
    name: str  # "six" | "six.moves"

    def attr(self, config: ConfigState, name: str) -> Any:
        if self.name == "six" and name == "moves":
            return SixModule("six.moves")
        if self.name == "six.moves" and _MOVES.get(name):
            return Builtin(_MOVES[name])  # type: ignore[arg-type]
        if self.name == "six" and name in _DICT_VIEWS:
            return Method(self, name)
        return UNKNOWN

    def call_method(self, config: ConfigState, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], dict):
            return list(getattr(args[0], _DICT_VIEWS[name])())
        return UNKNOWN
