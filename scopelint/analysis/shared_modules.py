"""Project modules shared by the files checked in one process: each is interpreted once, and
every later file that imports it takes the result, as if it had run the module itself.

A module is shared when its import touched no graph and left a heap the next file can be given
back exactly: immutable values, functions, classes, modules, and the lists, dicts and sets it owns
(a table of URLs, a `_function_cache = {}` that calls fill).  Its heap is snapshotted right after
its import, and restored in place before another file takes it, so whatever one file's analysis
put in a cache or a class attribute never reaches the next.  A container another shared module
owns (`from data import FILES`) is left to that module's snapshot; a module whose import changed
another module's heap (a registry that `@register` fills) is not shared, since taking it would
not repeat that change.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from scopelint.analysis import config_objects, project, pycompat, pymath, pyre
from scopelint.analysis import config_values as cfg
from scopelint.analysis.values import (UNKNOWN, BoundMethod, Builtin, InitializerValue, Instance, ModuleValue,
                                       ReuseValue, TFRef, UserClass, UserFunction, replace_contents)

# The modelled standard modules and what they make hold no state a program can change (an
# assignment to one of their attributes is dropped, as one to a module is): `import math`,
# `PATTERN = re.compile(...)` leave a module as shareable as a function does; so do the TensorFlow
# values nothing changes once made (`bias_initializer=tf.zeros_initializer()`, `tf.AUTO_REUSE`).
_STATELESS = (cfg.StdModule, pymath.MathModule, pyre.ReModule, pyre.PatternObject, pycompat.SixModule,
              config_objects.CollectionsModule, config_objects.NamedTupleFactory, InitializerValue, ReuseValue)
_CONTAINERS = (list, dict, set)


@dataclass
class Heap:
    """The containers a module owns (its lists, dicts and sets, its classes' and instances'
    attribute dicts), each with a copy of what it held right after the module's import, and
    whether each instance had been handed to code the analysis does not follow."""

    snapshots: list[tuple[Any, Any]] = field(default_factory=list)
    escaped: list[tuple[Instance, bool]] = field(default_factory=list)

    def ids(self) -> set[int]:
        return {id(container) for container, _ in self.snapshots} | {id(instance) for instance, _ in self.escaped}

    def restore(self) -> None:
        for instance, escaped in self.escaped:
            instance.escaped = escaped
        for container, contents in self.snapshots:
            replace_contents(container, contents)

    def unchanged(self, lost: Callable[[Any], bool]) -> bool:
        """Every container holds the very objects it held after the import, and the analysis has
        not lost track of its contents (an item set at an unknown key)."""
        if any(instance.escaped != escaped for instance, escaped in self.escaped):
            return False
        for container, contents in self.snapshots:
            if lost(container):
                return False
            if isinstance(container, set):
                if container != contents:
                    return False
            elif len(container) != len(contents):
                return False
            elif isinstance(container, list):
                if any(a is not b for a, b in zip(container, contents)):
                    return False
            elif any(key not in contents or contents[key] is not value for key, value in container.items()):
                return False
        return True


def owned_heap(values: list[Any], foreign: set[int], lost: Callable[[Any], bool]) -> Heap | None:
    """The heap a module's names reach, containers in `foreign` (other modules' own) left out; None
    when they reach a value whose state cannot be copied back (a TensorFlow object, a container
    whose contents the analysis lost)."""
    heap = Heap()
    seen: set[int] = set()
    pending = list(values)
    while pending:
        value = pending.pop()
        if id(value) in seen or id(value) in foreign:
            continue
        seen.add(id(value))
        if isinstance(value, (str, int, float, bool, type(None), range, frozenset, ModuleValue, TFRef, Builtin)) \
                or value is UNKNOWN or isinstance(value, _STATELESS):
            continue
        if isinstance(value, tuple):
            pending.extend(value)
        elif isinstance(value, _CONTAINERS):
            if lost(value):
                return None
            heap.snapshots.append((value, value.copy()))
            pending.extend(value.items() if isinstance(value, dict) else value)
        elif isinstance(value, UserClass):
            pending.append(value.attrs)
        elif isinstance(value, Instance):  # `REGISTRY = Registry()`, `CONFIG = Config()`
            heap.escaped.append((value, value.escaped))
            pending.extend([value.cls, value.attrs])
        elif isinstance(value, BoundMethod):
            pending.extend([value.function, value.receiver])
        elif isinstance(value, UserFunction):
            pending.extend(value.defaults.values())
        elif isinstance(value, cfg.Method):
            pending.append(value.owner)
        elif isinstance(value, config_objects.NamedTupleClass):
            pending.append(value.defaults)
        else:
            return None
    return heap


@dataclass
class SharedModule:
    """A project module's import, taken by the files that import it after the first."""

    key: str  # its resolved file
    value: ModuleValue
    loaded: dict[str, ModuleValue | None]  # it and the project modules it imported
    stamps: tuple[tuple[str, int, int], ...]
    # The heap of each module in `loaded` (its own included): restored for the modules a file
    # takes with it, and required unchanged for those the file had loaded already.
    heaps: dict[str, Heap] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # of each module in `loaded` (the import budget)
    lookups: list[tuple[str, str, int]] = field(default_factory=list)  # the module lookups its import made

    def still_valid(self) -> bool:
        return project.file_stamps(self.loaded) == self.stamps


# (resolved file, display path) -> its shared import, for the whole process.
SHARED: dict[tuple[str, str], SharedModule] = {}


def heap_of(value: ModuleValue) -> Heap | None:
    """The recorded heap of a shared module's value, or None when it is not shared as this value."""
    for shared in SHARED.values():
        if shared.value is value:
            return shared.heaps[shared.key]
    return None
