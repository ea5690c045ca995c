"""Configuration a user chooses when running a program: command-line flags (`tf.flags`,
`tf.app.flags`, `absl.flags`), `argparse` arguments, `sys.argv` and environment variables.

Each is a `ConfigVar` with a default.  In one run of the program (one path, see `paths.py`) a
variable has one concrete value, carried as a *tagged* value (`ConfigStr`, `ConfigInt`, ...) that
behaves as the plain value and remembers its variable.  When the program tests a tagged value
(a comparison, a truth test, `range(n)`, a dict lookup), the run records the variable as consulted
and learns the other values worth trying: the literals it is compared with, its `choices`, the
other truth value, one and two loop iterations.  The path driver then runs the program again with
those values, one run per assignment.

TensorFlow never sees a tagged value: `plain()` unwraps them at every call into the TF model.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping
from typing import Any, Callable

from scopelint.analysis.values import Instance, PartialStr, UserClass
from scopelint.model.unknown import UNKNOWN

MISSING: Any = object()  # a variable without a default (a positional argument, sys.argv[1])


@dataclass(frozen=True)
class Other:
    """A value other than every literal the program compared the variable with ("--dataset=x")."""

    excluded: tuple[Any, ...] = ()


# What an `Other` string is in the run: no literal equals it; in a name it reads as unknown.
OTHER_TEXT = "?"
# And what the TensorFlow oracle passes on the command line for it.
OTHER_COMMAND_LINE = "other"


@dataclass(frozen=True)
class ConfigVar:
    key: str  # unique within a program: "flag:dataset", "arg:lr", "argv:1", "env:HOME"
    spelling: str  # as the user writes it: "--dataset", "sys.argv[1]", "$HOME"
    kind: str  # flag | arg | argv | env | loop (loop_counts.py)
    default: Any = MISSING
    value_type: str = "str"  # str | int | float | bool | any
    choices: tuple[Any, ...] = ()
    negatable: bool = False  # absl booleans: --noflag
    store_true: bool = False  # argparse action='store_true' / 'store_false'


class Tagged:
    """Mixin of the tagged values; `var` is set right after construction."""

    var: ConfigVar


class ConfigStr(str, Tagged):
    pass


class ConfigInt(int, Tagged):
    pass


class ConfigFloat(float, Tagged):
    pass


class ConfigBool(int, Tagged):
    """A boolean flag (bool cannot be subclassed): prints as True/False, equals them."""

    def __repr__(self) -> str:
        return repr(bool(self))

    __str__ = __repr__


class ConfigNone(Tagged):
    """A flag whose value is None (`DEFINE_string('init_checkpoint', None, ...)`)."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "None"


def tag(var: ConfigVar, value: Any) -> Any:
    if isinstance(value, Other):
        tagged: Any = ConfigStr(OTHER_TEXT)
    elif value is None:
        tagged = ConfigNone()
    elif isinstance(value, bool):
        tagged = ConfigBool(int(value))
    elif isinstance(value, int):
        tagged = ConfigInt(value)
    elif isinstance(value, float):
        tagged = ConfigFloat(value)
    elif isinstance(value, str):
        tagged = ConfigStr(value)
    else:
        return value  # lists (DEFINE_list) and other values stay plain
    tagged.var = var
    return tagged


def plain(value: Any) -> Any:
    """The untagged value, recursively through lists, tuples and dicts (what TensorFlow gets)."""
    if isinstance(value, Tagged):
        if isinstance(value, ConfigNone):
            return None
        if isinstance(value, ConfigBool):
            return bool(value)
        if isinstance(value, ConfigStr):
            return str.__str__(value)
        if isinstance(value, ConfigInt):
            return int(value)
        if isinstance(value, ConfigFloat):
            return float(value)
    if type(value) is list and any(isinstance(v, (Tagged, list, tuple, dict)) for v in value):
        return [plain(v) for v in value]
    if type(value) is tuple and any(isinstance(v, (Tagged, list, tuple, dict)) for v in value):
        return tuple(plain(v) for v in value)
    if type(value) is dict and any(isinstance(v, (Tagged, list, tuple, dict)) for v in value.values()):
        return {k: plain(v) for k, v in value.items()}
    return value


def is_literal(value: Any) -> bool:
    """A value the program spelled out: not a configuration value, and no `?` part in a string."""
    return value is None or isinstance(value, (str, int, float, bool)) and not isinstance(value, (Tagged, PartialStr))


@dataclass
class ConfigState:
    """The configuration of one run: the values chosen for it and what the run learned."""

    assignment: dict[str, Any] = field(default_factory=dict)  # key -> value (default when absent)
    declared: dict[str, ConfigVar] = field(default_factory=dict)
    flags: dict[str, ConfigVar] = field(default_factory=dict)  # flag name -> its variable
    # key -> values worth a run of their own, in the order learned
    candidates: dict[str, list[Any]] = field(default_factory=dict)
    compared: dict[str, list[Any]] = field(default_factory=dict)  # key -> literals compared with
    reads: int = 0  # how many configuration values were read (import caching must see them)
    # While not None, every read and every learning step is appended here (replay.py records the
    # unreached-functions phase of a run this way, to replay it in another run).
    log: list[tuple[Any, ...]] | None = field(default=None, repr=False, compare=False)
    # `FLAGS.x = value` in the program (after parsing): later reads of FLAGS.x see the value.
    overrides: dict[str, Any] = field(default_factory=dict)
    # While above 0, tests of configuration values learn nothing: the third and later iterations of
    # a `while` (`step >= FLAGS.max_steps` at step 3, 4, ...) would each make a run of their own.
    muted: int = 0

    # -------------------------------------------------------------- declaring and reading
    def declare(self, var: ConfigVar) -> ConfigVar:
        if self.log is not None:
            self.log.append(("declare", var))
        self.declared.setdefault(var.key, var)
        if var.kind == "flag":
            self.flags.setdefault(var.key.split(":", 1)[1], var)
        return self.declared[var.key]

    def value(self, var: ConfigVar) -> Any:
        self.reads += 1
        if self.log is not None:
            self.log.append(("value", var, self.current(var)))
        if var.key in self.assignment:
            chosen = self.assignment[var.key]
        elif var.default is not MISSING:
            chosen = var.default
        elif var.choices:
            chosen = var.choices[0]
        else:
            chosen = Other()
        return tag(var, chosen)

    def current(self, var: ConfigVar) -> Any:
        """The value the variable has in this run, untagged (Other for a placeholder)."""
        if var.key in self.assignment:
            return self.assignment[var.key]
        if var.default is not MISSING:
            return var.default
        return var.choices[0] if var.choices else Other()

    def flag(self, name: str) -> Any:
        if name in self.overrides:
            self.reads += 1
            return self.overrides[name]
        var = self.flags.get(name)
        return UNKNOWN if var is None else self.value(var)

    def set_flag(self, name: str, value: Any, certain: bool) -> None:
        """`FLAGS.name = value` (DCGAN's `if FLAGS.output_width is None: FLAGS.output_width =
        FLAGS.output_height`); an assignment that may not run leaves the flag unknown, unless it
        writes the value the flag already has."""
        if not certain and not _same_value(self.flag(name), value):
            value = UNKNOWN
        self.reads += 1
        self.overrides[name] = value
        if self.log is not None:
            self.log.append(("set_flag", name, value))

    # -------------------------------------------------------------- learning alternatives
    def learn(self, var: ConfigVar, values: list[Any]) -> None:
        """Values of `var` worth a run of their own (by the tests below, by replay.py, and for a
        loop's count by loop_counts.py)."""
        if self.muted:
            return
        if self.log is not None:
            self.log.append(("learn", var, list(values)))
        known = self.candidates.setdefault(var.key, [])
        for value in list(var.choices) or values:
            if isinstance(value, bool) and var.value_type not in ("bool", "any"):
                continue
            if isinstance(value, Other):
                if not any(isinstance(k, Other) for k in known):
                    known.append(value)
            elif not any(type(k) is type(value) and k == value for k in known):
                known.append(value)

    def on_compare(self, value: Tagged, other: Any, decide: Callable[[Any], Any]) -> None:
        """`value <op> other`: the literal it is compared with is worth a run, and so is a value
        equal to none of them (for strings) or on either side of it (for numbers); `decide(v)` is
        the comparison with `v` in place of the value, so that only values that change its
        outcome are kept (another value on the same side runs the same path again)."""
        var = value.var
        literals = [v for v in (list(other) if isinstance(other, (list, tuple, set, frozenset, dict)) else [other])
                    if is_literal(v)]
        literals = [plain(v) for v in literals]
        self._saw(var.key, literals)
        learned: list[Any] = []
        for literal in literals:
            if var.value_type == "bool":
                learned.append(not bool(plain(value)))
            elif var.value_type in ("int", "float") and isinstance(literal, (int, float)) \
                    and not isinstance(literal, bool):
                learned.extend([literal, literal + 1] + ([literal - 1] if literal > 0 else []))
            elif isinstance(literal, str):
                learned.append(literal)
            # `is None`: no command line gives None to a flag that has a value; "any other value"
            # (below) covers one whose default is None.
        if var.value_type in ("str", "any") and not var.choices:
            learned.append(Other())
        self.learn(var, [v for v in learned if _changes_outcome(decide, v, plain(value))])

    def _saw(self, key: str, literals: list[Any]) -> None:
        """The literals a value was compared with, in the order first seen (for conditions)."""
        if self.muted:
            return
        if self.log is not None:
            self.log.append(("saw", key, list(literals)))
        seen = self.compared.setdefault(key, [])
        seen.extend(v for v in literals if v not in seen)

    def on_truth(self, value: Tagged) -> None:
        var = value.var
        current = plain(value)
        if var.value_type == "bool" or isinstance(current, bool):
            self.learn(var, [not current])
        elif var.value_type in ("int", "float"):
            self.learn(var, [0 if current else 1])
        else:
            self.learn(var, ["" if current else Other()])

    def on_count(self, value: Tagged) -> None:
        """`range(n)`: one and two iterations (the second is where reuse bugs live)."""
        self.learn(value.var, [1, 2])

    def on_lookup(self, value: Tagged, keys: list[Any]) -> None:
        """`MODELS[FLAGS.model]`: every key of the registry is a value to try."""
        self.learn(value.var, [k for k in keys if is_literal(k)])


def _changes_outcome(decide: Callable[[Any], Any], candidate: Any, current: Any) -> bool:
    try:
        return bool(decide(OTHER_TEXT if isinstance(candidate, Other) else candidate)) != bool(decide(current))
    except Exception:  # noqa: BLE001 - a comparison Python would reject: not a path
        return False


# ---------------------------------------------------------------------------------------------
# Declarations


def flag_var(definer: str, args: list[Any], kwargs: dict[str, Any]) -> ConfigVar | None:
    """The variable a `DEFINE_xxx(name, default, help, ...)` call declares (None when its name
    is not a literal)."""
    args = [plain(a) for a in args]
    kwargs = {k: plain(v) for k, v in kwargs.items()}
    name = args[0] if args else kwargs.get("name", kwargs.get("flag_name"))
    if not isinstance(name, str):
        return None
    default = args[1] if len(args) > 1 else kwargs.get("default", None)
    kind = definer.replace("DEFINE_", "")
    choices: tuple[Any, ...] = ()
    value_type = {"string": "str", "integer": "int", "float": "float", "bool": "bool", "boolean": "bool",
                  "enum": "str"}.get(kind, "any")
    if kind == "enum":
        enum_values = args[2] if len(args) > 2 else kwargs.get("enum_values", ())
        if isinstance(enum_values, (list, tuple)):
            choices = tuple(v for v in enum_values if isinstance(v, str))
    if kind in ("list", "spaceseplist"):
        default = default.split("," if kind == "list" else None) if isinstance(default, str) else default
        value_type = "any"
    if kind.startswith("multi"):
        value_type = "any"
    if value_type == "bool" and isinstance(default, str):
        default = default.lower() in ("true", "1", "t", "yes")
    if not (default is None or isinstance(default, (str, int, float, bool, list, tuple))):
        return None
    if isinstance(default, list) or isinstance(default, tuple):
        default = list(default)
    return ConfigVar(f"flag:{name}", f"--{name}", "flag", default, value_type, choices,
                     negatable=value_type == "bool")


_ACTION_DEFAULTS = {"store_true": False, "store_false": True}


def argparse_var(args: list[Any], kwargs: dict[str, Any]) -> ConfigVar | None:
    """The variable `parser.add_argument('--lr', type=float, default=0.1, choices=...)` declares."""
    names = [plain(a) for a in args]
    kwargs = {k: plain(v) for k, v in kwargs.items()}
    if not names or not all(isinstance(n, str) for n in names):
        return None
    long_names = [n for n in names if n.startswith("--")]
    option = long_names[0] if long_names else names[0]
    dest = kwargs.get("dest")
    if not isinstance(dest, str):
        dest = option.lstrip("-").replace("-", "_")
    action = kwargs.get("action", "store")
    if not isinstance(action, str) or action not in ("store", "store_true", "store_false"):
        return None  # append, count, custom actions: their value is not one of a few choices
    positional = not option.startswith("-")
    if action in _ACTION_DEFAULTS:
        default: Any = _ACTION_DEFAULTS[action]
        value_type = "bool"
    else:
        if "default" in kwargs:
            default = kwargs["default"]
        elif positional or kwargs.get("required") is True:
            default = MISSING
        else:
            default = None
        converter = kwargs.get("type")
        value_type = {"int": "int", "float": "float", "str": "str"}.get(
            getattr(converter, "name", "str") if converter is not None else "str", "any")
        if isinstance(default, str) and value_type in ("int", "float"):
            # argparse converts a string default with `type`, as it converts the command line.
            try:
                default = int(default) if value_type == "int" else float(default)
            except ValueError:
                return None
        if default is not MISSING and not (default is None or isinstance(default, (str, int, float, bool))):
            return None
        if kwargs.get("nargs") not in (None, "?"):
            return None
    choices = kwargs.get("choices", ())
    choices = tuple(choices) if isinstance(choices, (list, tuple)) and all(map(is_literal, choices)) else ()
    spelling = option if not positional else dest
    return ConfigVar(f"arg:{dest}", spelling, "arg", default, value_type, choices,
                     store_true=action in _ACTION_DEFAULTS)


# ---------------------------------------------------------------------------------------------
# Objects of the standard library that hold configuration


class ConfigObject:
    """A value of `sys`, `os`, `argparse`: the interpreter asks it for attributes, calls and items."""

    def attr(self, config: ConfigState, name: str) -> Any:
        return UNKNOWN

    def call(self, config: ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return UNKNOWN

    def item(self, config: ConfigState, key: Any) -> Any:
        return UNKNOWN


@dataclass(eq=False)
class Method(ConfigObject):
    owner: Any
    name: str

    def call(self, config: ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.owner.call_method(config, self.name, args, kwargs)


ARGV_POSITIONS = 4  # sys.argv[1] .. sys.argv[4]: what TF scripts read positionally


@dataclass(eq=False)
class StdModule(ConfigObject):
    name: str  # sys | os | argparse | os.environ

    def attr(self, config: ConfigState, name: str) -> Any:
        if self.name == "sys" and name == "argv":
            return Argv()
        if self.name == "os" and name == "environ":
            return StdModule("os.environ")
        if self.name == "os" and name == "getenv":
            return Method(self, "get")
        if self.name == "os.environ" and name == "get":
            return Method(self, "get")
        if self.name == "argparse" and name == "ArgumentParser":
            return ParserClass()
        return UNKNOWN

    def call_method(self, config: ConfigState, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        key = plain(args[0]) if args else plain(kwargs.get("key"))
        if name == "get" and isinstance(key, str):
            default = plain(args[1]) if len(args) > 1 else plain(kwargs.get("default", None))
            if not (default is None or isinstance(default, str)):
                return UNKNOWN
            return config.value(config.declare(ConfigVar(f"env:{key}", f"${key}", "env", default)))
        return UNKNOWN

    def item(self, config: ConfigState, key: Any) -> Any:
        key = plain(key)
        if self.name == "os.environ" and isinstance(key, str):
            return config.value(config.declare(ConfigVar(f"env:{key}", f"${key}", "env")))
        return UNKNOWN


@dataclass(eq=False)
class Argv(ConfigObject):
    """`sys.argv`: each position the program reads is a configuration value; its length, slices
    and iteration stay unknown (the user chooses how many arguments to give)."""

    def item(self, config: ConfigState, key: Any) -> Any:
        key = plain(key)
        if key == 0:
            return "main.py"
        if isinstance(key, int) and not isinstance(key, bool) and 0 < key <= ARGV_POSITIONS:
            return config.value(config.declare(ConfigVar(f"argv:{key}", f"sys.argv[{key}]", "argv")))
        return UNKNOWN


@dataclass(eq=False)
class ParserClass(ConfigObject):
    def call(self, config: ConfigState, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return ArgParser()


_NAMESPACE = UserClass("Namespace", {}, [])


@dataclass(eq=False)
class ArgParser(ConfigObject):
    arguments: list[ConfigVar] = field(default_factory=list)
    opaque: bool = False  # an argument we cannot model: parse_args gives an unknown namespace
    defaults: dict[str, Any] = field(default_factory=dict)

    def attr(self, config: ConfigState, name: str) -> Any:
        if name in ("add_argument", "add_argument_group", "add_mutually_exclusive_group", "parse_args",
                    "parse_known_args", "set_defaults", "print_help", "print_usage", "error", "exit"):
            return Method(self, name)
        return UNKNOWN

    def call_method(self, config: ConfigState, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if name == "add_argument":
            var = argparse_var(args, kwargs)
            if var is None:
                self.opaque = True
            else:
                self.arguments.append(config.declare(var))
            return UNKNOWN
        if name in ("add_argument_group", "add_mutually_exclusive_group"):
            return self  # a group adds its arguments to the parser
        if name == "set_defaults":
            self.defaults.update({k: plain(v) for k, v in kwargs.items()})
            return None
        if name in ("parse_args", "parse_known_args"):
            if self.opaque or args and args[0] is not None:
                namespace: Any = UNKNOWN  # parsing a list the program built: not the command line
            else:
                namespace = Instance(_NAMESPACE)
                for var in self.arguments:
                    dest = var.key.split(":", 1)[1]
                    namespace.attrs[dest] = config.value(var)
                for dest, value in self.defaults.items():
                    namespace.attrs.setdefault(dest, value)
            return (namespace, []) if name == "parse_known_args" else namespace
        return None


# Flags objects and definers as the TF name resolution spells them.
FLAGS_PATHS = frozenset({"tf.flags.FLAGS", "tf.app.flags.FLAGS", "tf.absl.flags.FLAGS"})
DEFINER_PREFIXES = ("tf.flags.DEFINE_", "tf.app.flags.DEFINE_", "tf.absl.flags.DEFINE_")
STD_MODULES = frozenset({"sys", "os", "argparse"})


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    a, b = plain(a), plain(b)
    return is_literal(a) and is_literal(b) and type(a) is type(b) and a == b


def std_module(dotted: str) -> Any:
    """The configuration-holding standard module `import NAME` binds, or None."""
    if dotted in STD_MODULES:
        return StdModule(dotted)
    if dotted == "math":  # not configuration, but pure arithmetic on it (layer sizes)
        from scopelint.analysis import pymath

        return pymath.MathModule()
    if dotted == "re":  # names built from other variables' names (slot variables, checkpoints)
        from scopelint.analysis import pyre

        return pyre.ReModule()
    if dotted in ("six", "six.moves"):  # builtins under Python 2/3 names (xrange, iteritems)
        from scopelint.analysis import pycompat

        return pycompat.SixModule(dotted)
    from scopelint.analysis import config_objects  # click, collections.namedtuple (imports this module)

    return config_objects.std_module(dotted)


# ---------------------------------------------------------------------------------------------
# A command line, read back: the configuration `python main.py <args>` runs with

_TRUE_TEXTS = frozenset({"true", "t", "1", "yes", "y"})
_FALSE_TEXTS = frozenset({"false", "f", "0", "no", "n"})


def assignment_from_args(declared: Iterable[ConfigVar], args: list[str],
                         environment: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The values `args` (`--job_name=worker`, `--task_index 1`, `--is_train`, `--noema`,
    positionals for sys.argv[i]) and `environment` give the declared configuration values; a
    value the program's declaration would reject (not an int, not one of its choices) is left out,
    as is anything no declaration names."""
    options: dict[str, ConfigVar] = {}
    positional_vars: dict[int, ConfigVar] = {}
    env_vars: dict[str, ConfigVar] = {}
    for var in declared:
        if var.kind in ("flag", "arg") and var.spelling.startswith("--"):
            options.setdefault(var.spelling[2:], var)
        elif var.kind == "argv" and var.key.split(":", 1)[1].isdigit():
            positional_vars[int(var.key.split(":", 1)[1])] = var
        elif var.kind == "env":
            env_vars[var.key.split(":", 1)[1]] = var
    assignment: dict[str, Any] = {}
    positionals: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if not arg.startswith("-") or arg == "-":
            positionals.append(arg)
            continue
        name, has_value, text = arg.lstrip("-").partition("=")
        var = options.get(name)
        if var is None and name.startswith("no") and not has_value:
            negated = options.get(name[2:])
            if negated is not None and negated.value_type == "bool":
                assignment[negated.key] = False
            continue
        if var is None:
            continue
        if not has_value and var.value_type == "bool":
            assignment[var.key] = True
            continue
        if not has_value:
            if index >= len(args):
                continue
            text, index = args[index], index + 1
        value = _parsed(var, text)
        if value is not MISSING:
            assignment[var.key] = value
    for position, text in enumerate(positionals, start=1):
        var = positional_vars.get(position)
        if var is not None:
            assignment[var.key] = text
    for key, text in (environment or {}).items():
        var = env_vars.get(key)
        if var is not None:
            assignment[var.key] = text
    return assignment


def _parsed(var: ConfigVar, text: str) -> Any:
    value: Any = text
    try:
        if var.value_type == "int":
            value = int(text)
        elif var.value_type == "float":
            value = float(text)
        elif var.value_type == "bool":
            lowered = text.lower()
            if lowered not in _TRUE_TEXTS | _FALSE_TEXTS:
                return MISSING
            value = lowered in _TRUE_TEXTS
    except ValueError:
        return MISSING
    if var.choices and value not in var.choices:
        return MISSING
    return value
