"""The rule registry.

One module per rule, named `tfsNNN_<snake_name>.py`, each exposing `RULE: RuleInfo` and
`check(trace: Trace) -> Iterable[Diagnostic]`.  This directory is installed as `scopelint.rules`;
the registry finds its modules with pkgutil, so adding a rule is adding a file.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from types import ModuleType

from scopelint.diagnostics import RuleInfo

# The file name carries the code and the name: tfs101_variable_already_exists.py.
_RULE_MODULE = re.compile(r"^tfs(?P<number>\d{3})_(?P<snake>[a-z0-9_]+)$")


class RuleRegistryError(Exception):
    """A rule module that breaks the registry's contract (a bug in that module, not in user code)."""


@lru_cache(maxsize=1)
def _load_rules() -> tuple[ModuleType, ...]:
    modules: dict[str, ModuleType] = {}
    for found in pkgutil.iter_modules(__path__):
        match = _RULE_MODULE.match(found.name)
        if match is None:
            continue
        module = importlib.import_module(f"{__name__}.{found.name}")
        info = getattr(module, "RULE", None)
        if not isinstance(info, RuleInfo) or not callable(getattr(module, "check", None)):
            raise RuleRegistryError(f"{module.__name__}: a rule module needs RULE: RuleInfo and check(trace)")
        expected_code = f"TFS{match['number']}"
        expected_name = match["snake"].replace("_", "-")
        if (info.code, info.name) != (expected_code, expected_name):
            raise RuleRegistryError(
                f"{module.__name__}: file name says {expected_code} {expected_name}, "
                f"RULE says {info.code} {info.name}"
            )
        if info.code in modules:
            raise RuleRegistryError(f"{info.code} is defined twice")
        modules[info.code] = module
    return tuple(modules[code] for code in sorted(modules))


def all_rules() -> list[ModuleType]:
    """Every rule module, sorted by code."""
    return list(_load_rules())


def all_rule_infos() -> list[RuleInfo]:
    """Every rule's RuleInfo, sorted by code."""
    return [module.RULE for module in _load_rules()]


def rule_by_code_or_name(text: str) -> ModuleType | None:
    """The rule whose code (any case) or kebab-case name is `text`, or None."""
    wanted = text.strip()
    for module in _load_rules():
        if module.RULE.code == wanted.upper() or module.RULE.name == wanted.lower():
            return module
    return None
