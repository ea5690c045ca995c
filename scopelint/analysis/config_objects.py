"""Hyper-parameter objects and command-line options beyond flags and argparse (issue 9 item 1).

- `tf.contrib.training.HParams(units=4, ...)` (also `tf.training.HParams`): an object whose
  attributes are the literals it was built from.  `parse("a=1,b=x")`, `override_from_dict({...})`,
  `set_hparam` and `add_hparam` change them as TensorFlow does when their arguments are known; a
  string or dict the analysis does not know (a `--hparams` the user gives) makes every attribute
  unknown.  The default run (`--hparams=''`) keeps the defaults, so it is a real run.
- `collections.namedtuple`: a class whose instances hold their fields as attributes (with
  `_replace` and `_asdict`), so `HParams(units=4, share=False)` built at module level gives known
  values.  Dicts of literals already are known values.
- `click`: `@click.option('--lr', default=0.1)`, `type=click.Choice([...])`, `is_flag=True`,
  `'--x/--no-x'`, `@click.argument('name')` declare configuration variables like argparse's
  (`config_values.argparse_var`); the decorated function gets their values in this run as its
  parameter defaults, so `main()` under `if __name__ == "__main__"` runs as `python main.py` does.
  `@click.command()` / `@click.group()` leave the function as it is.

Values are plain (not tagged) where they are literals of the program: only the user's choices
(click options) are configuration variables whose other values the path driver explores.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from scopelint.analysis import config_values as cfg
from scopelint.analysis.values import Builtin, Instance, UserClass, UserFunction, is_known
from scopelint.model.unknown import UNKNOWN

def std_module(dotted: str) -> Any:
    """The object `import click` / `import collections` binds, or None."""
    if dotted == "click":
        return ClickModule()
    if dotted == "collections":
        return CollectionsModule()
    return None


# ---------------------------------------------------------------------------------------------
# HParams

_HPARAMS_CLASS = UserClass("HParams", {}, [])
HPARAMS_METHODS = ("parse", "override_from_dict", "set_hparam", "add_hparam", "values", "get", "del_hparam")


def make_hparams(kwargs: dict[str, Any]) -> Instance:
    """`HParams(**kwargs)` (a positional `hparam_def` proto is not modelled: pass no kwargs)."""
    hparams = Instance(_HPARAMS_CLASS)
    for name in HPARAMS_METHODS:
        hparams.attrs[name] = HParamsMethod(hparams, name)
    for name, value in kwargs.items():
        if name not in ("hparam_def", "model_structure"):
            hparams.attrs[name] = value
    return hparams


def _hparam_names(hparams: Instance) -> list[str]:
    return [name for name in hparams.attrs if name not in HPARAMS_METHODS]


def _forget_all(hparams: Instance) -> None:
    for name in _hparam_names(hparams):
        hparams.attrs[name] = UNKNOWN


def _parse_value(text: str, current: Any) -> Any:
    """One `name=value` of `HParams.parse`, converted to the type of the current value."""
    if isinstance(current, bool):
        lowered = text.strip().lower()
        return True if lowered in ("true", "1") else False if lowered in ("false", "0") else UNKNOWN
    try:
        if isinstance(current, int):
            return int(text)
        if isinstance(current, float):
            return float(text)
    except ValueError:
        return UNKNOWN
    if isinstance(current, str):
        return text
    return UNKNOWN  # lists and values of other types: not modelled


def _split_assignments(text: str) -> list[str] | None:
    """'a=1,b=[1,2],c=x' -> ['a=1', 'b=[1,2]', 'c=x']; None when it does not parse."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    parts = [part.strip() for part in parts if part.strip()]
    return parts if all("=" in part for part in parts) else None


@dataclass(eq=False)
class HParamsMethod(cfg.ConfigObject):
    owner: Instance
    name: str

    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        hparams = self.owner
        args = [cfg.plain(a) for a in args]
        kwargs = {k: cfg.plain(v) for k, v in kwargs.items()}
        if self.name == "parse":
            text = args[0] if args else kwargs.get("values")
            assignments = _split_assignments(text) if isinstance(text, str) and is_known(text) else None
            if assignments is None:
                _forget_all(hparams)  # --hparams the user gives: any value
                return hparams
            for assignment in assignments:
                name, _, value = assignment.partition("=")
                name = name.strip()
                hparams.attrs[name] = _parse_value(value, hparams.attrs.get(name, UNKNOWN)) \
                    if name in hparams.attrs and name not in HPARAMS_METHODS else UNKNOWN
            return hparams
        if self.name == "override_from_dict":
            values = args[0] if args else kwargs.get("values_dict")
            if not isinstance(values, dict):
                _forget_all(hparams)
                return hparams
            for name, value in values.items():
                if isinstance(name, str) and is_known(name) and name not in HPARAMS_METHODS:
                    hparams.attrs[name] = value
                else:
                    _forget_all(hparams)
            return hparams
        if self.name in ("set_hparam", "add_hparam"):
            name = args[0] if args else kwargs.get("name")
            value = args[1] if len(args) > 1 else kwargs.get("value", UNKNOWN)
            if isinstance(name, str) and is_known(name) and name not in HPARAMS_METHODS:
                hparams.attrs[name] = value
            else:
                _forget_all(hparams)
            return None
        if self.name == "del_hparam":
            name = args[0] if args else kwargs.get("name")
            if isinstance(name, str) and is_known(name) and name not in HPARAMS_METHODS:
                hparams.attrs.pop(name, None)
            else:
                _forget_all(hparams)
            return None
        if self.name == "values":
            return {name: hparams.attrs[name] for name in _hparam_names(hparams)}
        if self.name == "get":
            name = args[0] if args else kwargs.get("key")
            default = args[1] if len(args) > 1 else kwargs.get("default")
            if isinstance(name, str) and is_known(name):
                return hparams.attrs.get(name, default)
            return UNKNOWN
        return UNKNOWN


# ---------------------------------------------------------------------------------------------
# collections.namedtuple


@dataclass(eq=False)
class CollectionsModule(cfg.ConfigObject):
    """`import collections`: only `namedtuple` is modelled; the rest stays unknown, as before."""

    def attr(self, config: cfg.ConfigState, name: str) -> Any:
        return NamedTupleFactory() if name == "namedtuple" else UNKNOWN


@dataclass(eq=False)
class NamedTupleFactory(cfg.ConfigObject):
    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        args = [cfg.plain(a) for a in args]
        typename = args[0] if args else kwargs.get("typename")
        names = args[1] if len(args) > 1 else kwargs.get("field_names")
        if isinstance(names, str):
            names = names.replace(",", " ").split()
        defaults = cfg.plain(kwargs.get("defaults", ()))
        if not isinstance(typename, str) or not isinstance(names, (list, tuple)) \
                or not all(isinstance(n, str) for n in names) or not isinstance(defaults, (list, tuple)):
            return UNKNOWN
        return NamedTupleClass(typename, tuple(names), tuple(defaults))


@dataclass(eq=False)
class NamedTupleClass(cfg.ConfigObject):
    typename: str
    fields: tuple[str, ...]
    defaults: tuple[Any, ...] = ()
    cls: UserClass = field(init=False)

    def __post_init__(self) -> None:
        self.cls = UserClass(self.typename, {}, [])

    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if len(args) > len(self.fields) or any(name not in self.fields for name in kwargs):
            return UNKNOWN  # TypeError in Python; not modelled
        values: dict[str, Any] = dict(zip(self.fields, args))
        values.update(kwargs)
        first_default = len(self.fields) - len(self.defaults)
        for index, name in enumerate(self.fields):
            if name not in values:
                if index < first_default:
                    return UNKNOWN  # a required field is missing: TypeError, not modelled
                values[name] = self.defaults[index - first_default]
        return self.instance(values)

    def instance(self, values: dict[str, Any]) -> Instance:
        made = Instance(self.cls, dict(values))
        made.attrs["_replace"] = _NamedTupleMethod(self, made, "_replace")
        made.attrs["_asdict"] = _NamedTupleMethod(self, made, "_asdict")
        made.attrs["_fields"] = self.fields
        return made


@dataclass(eq=False)
class _NamedTupleMethod(cfg.ConfigObject):
    owner: NamedTupleClass
    instance: Instance
    name: str

    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        current = {name: self.instance.attrs.get(name, UNKNOWN) for name in self.owner.fields}
        if self.name == "_asdict":
            return current
        if args or any(name not in self.owner.fields for name in kwargs):
            return UNKNOWN
        return self.owner.instance({**current, **kwargs})


# ---------------------------------------------------------------------------------------------
# click


@dataclass(eq=False)
class ClickModule(cfg.ConfigObject):
    def attr(self, config: cfg.ConfigState, name: str) -> Any:
        if name in ("option", "argument"):
            return _ClickDeclaration(name)
        if name in ("command", "group"):
            return _ClickCommand()
        if name == "Choice":
            return _ClickChoiceClass()
        if name in ("INT", "FLOAT", "STRING", "BOOL"):
            return Builtin({"INT": "int", "FLOAT": "float", "STRING": "str", "BOOL": "bool"}[name])
        return UNKNOWN


@dataclass(frozen=True)
class ClickChoice:
    choices: tuple[Any, ...]


@dataclass(eq=False)
class _ClickChoiceClass(cfg.ConfigObject):
    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        choices = cfg.plain(args[0]) if args else cfg.plain(kwargs.get("choices"))
        if isinstance(choices, (list, tuple)) and choices and all(cfg.is_literal(c) for c in choices):
            return ClickChoice(tuple(choices))
        return UNKNOWN


@dataclass(eq=False)
class _ClickCommand(cfg.ConfigObject):
    """`click.command()` / `click.group()`: a decorator that leaves the function as it is."""

    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], UserFunction):
            return args[0]  # `@click.command` without parentheses
        return _Decorator(None)


@dataclass(eq=False)
class _ClickDeclaration(cfg.ConfigObject):
    kind: str  # option | argument

    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        var = click_var(self.kind, args, kwargs)
        # An option we cannot model: no decorator, so the interpreter leaves the function opaque.
        return UNKNOWN if var is None else _Decorator(config.declare(var))


@dataclass(eq=False)
class _Decorator(cfg.ConfigObject):
    var: cfg.ConfigVar | None

    def call(self, config: cfg.ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if len(args) != 1 or kwargs or not isinstance(args[0], UserFunction):
            return UNKNOWN
        function = args[0]
        if self.var is None:
            return function
        parameter = self.var.key.split(":", 1)[1]
        # The option's value in this run, handed to the function as click does (as a keyword).
        return dataclasses.replace(function, defaults={**function.defaults, parameter: config.value(self.var)})


_CLICK_TYPES = {"int": "int", "float": "float", "str": "str"}


def click_var(kind: str, args: list[Any], kwargs: dict[str, Any]) -> cfg.ConfigVar | None:
    """The variable `click.option('--learning-rate', 'lr', default=0.1, type=float)` declares."""
    names = [cfg.plain(a) for a in args]
    options = {k: (v if isinstance(v, (ClickChoice, Builtin)) else cfg.plain(v)) for k, v in kwargs.items()}
    if not names or not all(isinstance(n, str) for n in names):
        return None
    negatable = False
    declared: list[str] = []
    for name in names:
        if "/" in name and name.startswith("--"):
            negatable = True  # '--shuffle/--no-shuffle'
            name = name.split("/", 1)[0]
        declared.append(name)
    identifiers = [n for n in declared if n.isidentifier()]
    long_names = [n for n in declared if n.startswith("--")]
    short_names = [n for n in declared if n.startswith("-") and not n.startswith("--")]
    if kind == "argument":
        dest = declared[0]
        spelling = dest
    else:
        option = (long_names or short_names or [None])[0]
        if option is None:
            return None
        dest = identifiers[0] if identifiers else option.lstrip("-").replace("-", "_").lower()
        spelling = option
    if not dest.isidentifier():
        return None
    if any(name in options and not cfg.is_literal(options[name]) for name in ("default", "is_flag", "multiple", "count", "nargs")):
        return None  # an option whose meaning depends on a value the analysis does not know
    if options.get("multiple") or options.get("nargs") not in (None, 1) or options.get("count"):
        return None
    choice = options.get("type")
    choices: tuple[Any, ...] = choice.choices if isinstance(choice, ClickChoice) else ()
    if kind == "argument":
        default: Any = options.get("default", cfg.MISSING)
    elif options.get("is_flag") or negatable:
        default = bool(options.get("default", False))
        return cfg.ConfigVar(f"click:{dest}", spelling, "arg", default, "bool", (), negatable=negatable,
                             store_true=not negatable)
    else:
        default = options.get("default")  # click's default for an option without one: None
    converter = choice if not isinstance(choice, ClickChoice) else None
    if isinstance(converter, Builtin):
        value_type = _CLICK_TYPES.get(converter.name, "any")
    elif converter is None:
        value_type = "int" if isinstance(default, int) and not isinstance(default, bool) else \
            "float" if isinstance(default, float) else "str"
    else:
        return None  # a type the analysis does not know
    if default is not cfg.MISSING and not (default is None or isinstance(default, (str, int, float))) \
            or isinstance(default, bool):
        return None
    return cfg.ConfigVar(f"click:{dest}", spelling, "arg", default, value_type, choices)
