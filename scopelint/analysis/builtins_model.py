"""Python's introspection builtins on abstract values: super, isinstance, issubclass, type,
hasattr, getattr with a default, callable.

Each answers True/False (or a value) only when the answer holds in every run: a class whose bases
are not all project classes (a Keras or unknown base) may have any attribute and any ancestor, and
an instance handed to code the analysis does not follow may have gained attributes, so there the
answer stays UNKNOWN.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scopelint.analysis import user_layers
from scopelint.analysis.values import (
    UNKNOWN,
    AbstractOp,
    BoundMethod,
    Builtin,
    GeneratorContext,
    Instance,
    ModuleValue,
    PartialStr,
    TFRef,
    UserClass,
    UserFunction,
)

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

# The builtin type names whose instances the interpreter holds as plain Python values.
PY_TYPES: dict[str, type] = {
    "str": str, "int": int, "float": float, "bool": bool, "list": list, "tuple": tuple, "dict": dict,
    "range": range, "set": set, "frozenset": frozenset,
}
_PLAIN = (str, int, float, bool, type(None), list, tuple, dict, range, set, frozenset)
# Local names the interpreter binds in a method's env for zero-argument super().
SUPER_CLASS = "__class__"
SUPER_SELF = " self"
NOOP = Builtin(" noop")  # object.__init__ and friends: a call that does nothing


@dataclass(eq=False)
class SuperValue:
    """`super(cls, obj)`: attribute lookups start after cls in the MRO of obj's class."""

    cls: UserClass
    obj: Any


def is_plain(value: Any) -> bool:
    return value is not UNKNOWN and isinstance(value, _PLAIN)


def mro(cls: UserClass) -> list[Any] | None:
    """C3 linearisation; bases that are not project classes stay as opaque entries."""
    sequences: list[list[Any]] = [[cls]]
    for base in cls.bases:
        if isinstance(base, UserClass):
            inner = mro(base)
            if inner is None:
                return None
            sequences.append(list(inner))
        else:
            sequences.append([base])
    sequences.append(list(cls.bases))
    result: list[Any] = []
    while True:
        sequences = [s for s in sequences if s]
        if not sequences:
            return result
        for sequence in sequences:
            head = sequence[0]
            if not any(_contains(other[1:], head) for other in sequences):
                break
        else:
            return None  # Python raises TypeError: no consistent MRO
        result.append(head)
        for sequence in sequences:
            if _same_entry(sequence[0], head):
                del sequence[0]


def _same_entry(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, Builtin) and isinstance(b, Builtin):
        return a.name == b.name  # Builtin values are made per lookup
    return isinstance(a, TFRef) and a == b


def _contains(sequence: list[Any], item: Any) -> bool:
    return any(_same_entry(entry, item) for entry in sequence)


def _is_object(entry: Any) -> bool:
    return isinstance(entry, Builtin) and entry.name == "object"


def fully_known(cls: UserClass) -> list[UserClass] | None:
    """The MRO when every class in it is a project class (or object), else None."""
    order = mro(cls)
    if order is None or any(not isinstance(entry, UserClass) and not _is_object(entry) for entry in order):
        return None
    return [entry for entry in order if isinstance(entry, UserClass)]


def make_super(interp: "Interpreter", args: list[Any], env: Any) -> Any:
    if not args:
        try:
            cls, obj = env.lookup(SUPER_CLASS), env.lookup(SUPER_SELF)
        except KeyError:
            return UNKNOWN
    elif len(args) == 2:
        cls, obj = args
    else:
        return UNKNOWN
    if not isinstance(cls, UserClass) or not isinstance(obj, (Instance, UserClass)):
        return UNKNOWN
    return SuperValue(cls, obj)


def super_getattr(interp: "Interpreter", value: SuperValue, name: str, node: Any) -> Any:
    owner = value.obj.cls if isinstance(value.obj, Instance) else value.obj
    order = mro(owner)
    if order is None:
        return UNKNOWN
    index = next((i for i, entry in enumerate(order) if entry is value.cls), None)
    if index is None:
        return UNKNOWN
    for entry in order[index + 1:]:
        if isinstance(entry, UserClass):
            if name in entry.attrs:
                return _bind(interp, entry.attrs[name], value.obj, node)
            continue
        if _is_object(entry) and name == "__init__":
            return NOOP
        if user_layers.is_layer_base(entry) and user_layers.is_layer_instance(value.obj):
            return user_layers.base_attribute(value.obj, name)
        return UNKNOWN  # a Keras or unknown base: anything
    return UNKNOWN


def _bind(interp: "Interpreter", attr: Any, obj: Any, node: Any) -> Any:
    if not isinstance(attr, UserFunction) or attr.is_static:
        return attr
    if attr.is_classmethod:
        return BoundMethod(attr, obj.cls if isinstance(obj, Instance) else obj)
    if attr.is_property:
        return interp.call_user(attr, [], {}, node, receiver=obj)
    return BoundMethod(attr, obj)


def _isinstance_one(value: Any, spec: Any) -> bool | None:
    if isinstance(value, AbstractOp):
        if isinstance(spec, TFRef):
            return value.is_instance(spec.path)
        return False if isinstance(spec, Builtin) and spec.name in PY_TYPES else None
    if _is_object(spec):
        return None if value is UNKNOWN else True
    if isinstance(spec, Builtin) and spec.name in PY_TYPES:
        if is_plain(value):
            return isinstance(value, PY_TYPES[spec.name])
        if isinstance(value, Instance):
            return False if fully_known(value.cls) is not None else None
        if isinstance(value, (UserFunction, BoundMethod, UserClass, Builtin, ModuleValue, GeneratorContext)):
            return False
        return None
    if isinstance(spec, UserClass):
        if isinstance(value, Instance):
            order = mro(value.cls)
            if order is not None and any(entry is spec for entry in order):
                return True
            return False if fully_known(value.cls) is not None else None
        if is_plain(value) or isinstance(value, (UserFunction, BoundMethod, UserClass, Builtin, ModuleValue)):
            return False
    return None


def _any_of(results: list[bool | None]) -> Any:
    if any(result is True for result in results):
        return True
    if results and all(result is False for result in results):
        return False
    return UNKNOWN


def _specs(spec: Any) -> list[Any] | None:
    if isinstance(spec, tuple):
        return list(spec)
    return [spec]


def isinstance_(value: Any, spec: Any) -> Any:
    specs = _specs(spec)
    return _any_of([_isinstance_one(value, s) for s in specs]) if specs else False


def issubclass_(cls: Any, spec: Any) -> Any:
    results: list[bool | None] = []
    for one in _specs(spec) or []:
        if _is_object(one):
            results.append(True if isinstance(cls, (UserClass, Builtin)) else None)
        elif isinstance(cls, UserClass) and isinstance(one, (UserClass, Builtin)):
            order = mro(cls)
            if order is not None and any(_same_entry(entry, one) for entry in order):
                results.append(True)
            else:
                results.append(False if fully_known(cls) is not None else None)
        elif isinstance(cls, Builtin) and cls.name in PY_TYPES and isinstance(one, Builtin) and one.name in PY_TYPES:
            results.append(issubclass(PY_TYPES[cls.name], PY_TYPES[one.name]))
        elif isinstance(cls, Builtin) and cls.name in PY_TYPES and isinstance(one, UserClass):
            results.append(False)
        else:
            results.append(None)
    return _any_of(results)


def type_of(value: Any) -> Any:
    if isinstance(value, PartialStr):
        return Builtin("str")
    if is_plain(value) and type(value).__name__ in PY_TYPES:
        return Builtin(type(value).__name__)
    if isinstance(value, Instance):
        return value.cls
    return UNKNOWN


def has_attribute(interp: "Interpreter", value: Any, name: Any) -> Any:
    """True/False when it is certain, else UNKNOWN."""
    if not isinstance(name, str) or isinstance(name, PartialStr):
        return UNKNOWN
    if is_plain(value):
        return hasattr(value, name)
    if isinstance(value, Instance):
        if name in value.attrs:
            return True
        if any(isinstance(c, UserClass) and name in c.attrs for c in mro(value.cls) or []):
            return True
        if fully_known(value.cls) is None or value.escaped or name.startswith("__"):
            return UNKNOWN
        return False
    if isinstance(value, UserClass):
        order = fully_known(value)
        if any(name in c.attrs for c in (order or [])):
            return True
        return False if order is not None and not name.startswith("__") else UNKNOWN
    return UNKNOWN


def get_attribute(interp: "Interpreter", args: list[Any], node: Any) -> Any:
    """getattr(x, name) and getattr(x, name, default)."""
    if len(args) < 2 or not isinstance(args[1], str) or isinstance(args[1], PartialStr):
        return UNKNOWN
    if len(args) == 3:
        present = has_attribute(interp, args[0], args[1])
        if present is False:
            return args[2]
        if present is UNKNOWN:
            return UNKNOWN
    if is_plain(args[0]):
        return UNKNOWN  # a bound method of a plain value: the interpreter models those by call syntax
    return interp.getattr(args[0], args[1], node)


def callable_(value: Any) -> Any:
    if isinstance(value, (UserFunction, BoundMethod, UserClass, Builtin)):
        return True
    if is_plain(value) or isinstance(value, (ModuleValue, GeneratorContext)):
        return False
    if isinstance(value, Instance):
        order = mro(value.cls)
        if order is not None and any(isinstance(c, UserClass) and "__call__" in c.attrs for c in order):
            return True
        return False if fully_known(value.cls) is not None else UNKNOWN
    if isinstance(value, TFRef):
        return UNKNOWN
    return UNKNOWN


def is_class_like(value: Any) -> bool:
    return isinstance(value, UserClass) or isinstance(value, Builtin) and value.name in PY_TYPES


def same_class(left: Any, right: Any) -> bool:
    if isinstance(left, UserClass) or isinstance(right, UserClass):
        return left is right
    return bool(left.name == right.name)  # Builtin values are made per lookup


def mark_escaped(values: Any) -> None:
    """Instances handed to code the analysis does not follow may gain any attribute there."""
    for value in values:
        if isinstance(value, Instance):
            value.escaped = True
        elif isinstance(value, (list, tuple)) and not isinstance(value, str):
            for item in value:
                if isinstance(item, Instance):
                    item.escaped = True
