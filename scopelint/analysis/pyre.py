"""Python's `re` module on known strings.

Optimizers and checkpoint loaders name their variables from other variables' names:
`re.match("^(.*):\\d+$", param.name).group(1)` strips the ":0" before `get_variable(name +
"/adam_m")` (BERT's AdamWeightDecayOptimizer), `re.sub(":0$", "", v.name)` maps graph names to
checkpoint names.  Unknown there, every slot variable's name is unknown and TFS101 cannot see two
slots given the same name.  The real `re` runs on str arguments (pattern, string, replacement
string, int flags); anything else (an unknown string, a callable replacement, bytes) is UNKNOWN,
as is a call the real module rejects (a bad pattern, a missing group).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from scopelint.analysis.config_values import ConfigObject, ConfigState, Method, plain
from scopelint.analysis.values import UNKNOWN

# Module functions whose arguments are (pattern, ...): the Pattern method of the same name takes
# the rest.  `escape` takes a string only.
_PATTERN_FUNCTIONS = frozenset({"match", "search", "fullmatch", "sub", "subn", "split", "findall"})
_FLAGS = {name: int(getattr(re, name)) for name in (
    "I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL", "X", "VERBOSE", "A", "ASCII", "U", "UNICODE")}
_MATCH_METHODS = frozenset({"group", "groups", "groupdict", "start", "end", "span", "expand"})
# Longer subjects are data (a file's contents), not names: not worth running a regex over.
_MAX_SUBJECT = 10_000


def _known_argument(value: Any) -> bool:
    """A str, an int (flags, count, group index) or None (a groups() default), fully known."""
    if value is None:
        return True
    if isinstance(value, bool) or value is UNKNOWN:
        return False
    if isinstance(value, str):
        return len(value) <= _MAX_SUBJECT
    return isinstance(value, int)


def _plain_arguments(args: list[Any], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]] | None:
    values = [plain(v) for v in args]
    named = {k: plain(v) for k, v in kwargs.items()}
    if all(_known_argument(v) for v in values) and all(_known_argument(v) for v in named.values()):
        return values, named
    return None


def _wrap(result: Any) -> Any:
    """The analysis value of what the real `re` returned."""
    if isinstance(result, re.Match):
        return MatchObject(result)
    if isinstance(result, re.Pattern):
        return PatternObject(result)
    if isinstance(result, tuple):
        return tuple(_wrap(v) for v in result)
    if isinstance(result, list):
        return [_wrap(v) for v in result]
    if result is None or isinstance(result, (str, int)):
        return result
    return UNKNOWN


def _run(function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    known = _plain_arguments(args, kwargs)
    if known is None:
        return UNKNOWN
    try:
        return _wrap(function(*known[0], **known[1]))
    except (re.error, TypeError, ValueError, IndexError, OverflowError, RecursionError):
        return UNKNOWN  # the program raises here; the analysis does not model that error


@dataclass(eq=False)
class ReModule(ConfigObject):
    def attr(self, config: ConfigState, name: str) -> Any:
        if name in _FLAGS:
            return _FLAGS[name]
        if name in _PATTERN_FUNCTIONS or name in ("compile", "escape"):
            return Method(self, name)
        return UNKNOWN

    def call_method(self, config: ConfigState, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return _run(getattr(re, name), args, kwargs)


@dataclass(eq=False)
class PatternObject(ConfigObject):
    """A compiled pattern (`re.compile(...)`), its methods running the real one."""

    pattern: re.Pattern[str]

    def attr(self, config: ConfigState, name: str) -> Any:
        if name in ("pattern", "flags", "groups"):
            return getattr(self.pattern, name)
        if name in _PATTERN_FUNCTIONS:
            return Method(self, name)
        return UNKNOWN

    def call_method(self, config: ConfigState, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return _run(getattr(self.pattern, name), args, kwargs)


@dataclass(eq=False)
class MatchObject(ConfigObject):
    """A successful match (a failed one is None, as in Python)."""

    match: re.Match[str]

    def attr(self, config: ConfigState, name: str) -> Any:
        if name in ("string", "pos", "endpos", "lastindex", "lastgroup"):
            return getattr(self.match, name)
        if name == "re":
            return PatternObject(self.match.re)
        if name in _MATCH_METHODS:
            return Method(self, name)
        return UNKNOWN

    def item(self, config: ConfigState, key: Any) -> Any:
        return _run(self.match.__getitem__, [key], {})

    def call_method(self, config: ConfigState, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return _run(getattr(self.match, name), args, kwargs)
