"""Abstract values the interpreter computes with.

Known Python constants are plain Python objects (str, int, float, bool, None, tuple, list, dict).
Everything the analysis cannot compute is `UNKNOWN`.  TensorFlow objects are small dataclasses.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from scopelint.model.scopes import Reuse, VarScope
from scopelint.model.unknown import UNKNOWN
from scopelint.trace import UNKNOWN_PART, Shape, VariableRecord




class PartialStr(str):
    """A string with parts the analysis could not compute, marked by UNKNOWN_PART."""


def is_known(value: Any) -> bool:
    return value is not UNKNOWN and not isinstance(value, PartialStr)


def text_of(value: Any) -> str | None:
    """A string value for naming: the exact string, a partial one, or None when not a string."""
    if isinstance(value, str):
        return value
    if value is UNKNOWN:
        return UNKNOWN_PART
    return None


@dataclass(frozen=True)
class TFRef:
    """A TensorFlow API object by canonical dotted path ("tf.variable_scope", "tf.train")."""

    path: str


@dataclass(eq=False)
class Tensor:
    shape: Shape = None
    dtype: str | None = None
    # Ids of the variables this value depends on; None when unknown (an op we do not model).
    deps: frozenset[int] | None = None


@dataclass(eq=False)
class VariableValue:
    record: VariableRecord

    @property
    def shape(self) -> Shape:
        return self.record.shape

    @property
    def deps(self) -> frozenset[int]:
        return frozenset({id(self.record)})


@dataclass(eq=False)
class PartitionedValue:
    key: str
    parts: list[VariableRecord]
    shape: Shape

    @property
    def deps(self) -> frozenset[int]:
        return frozenset(id(part) for part in self.parts)


@dataclass(eq=False)
class ReuseValue:
    reuse: Reuse  # tf.AUTO_REUSE


@dataclass(eq=False)
class InitializerValue:
    is_callable: bool
    dtype: str | None = None


@dataclass(eq=False)
class PartitionerValue:
    partitioner: Any


@dataclass(eq=False)
class ScopeValue:
    """A VariableScope object (`with variable_scope(...) as s`, `get_variable_scope()`)."""

    scope: VarScope


@dataclass(eq=False)
class ContextValue:
    """A context manager made by a TF call, entered by `with`: variable_scope, name_scope, device."""

    kind: str  # variable_scope | name_scope | device | graph | runner | other
    args: dict[str, Any] = field(default_factory=dict)
    site: Any = None
    # variable_scope: `reuse=False` written as a literal in the call (not a value passed along).
    literal_reuse_false: bool = False


@dataclass(eq=False)
class LayerObject:
    """A tf.layers / Keras layer or RNN cell object: its scope is fixed at the first call."""

    family: str  # layers | keras | cell
    class_name: str
    config: dict[str, Any]
    name: str | None
    site: Any
    scope: VarScope | None = None  # captured at the first call
    built_input_depth: int | None = None
    variables: list[VariableRecord] = field(default_factory=list)
    cells: list["LayerObject"] = field(default_factory=list)  # MultiRNNCell
    keras_name: str | None = None
    used_under: list[str] = field(default_factory=list)  # var scopes a cell was called under
    cells_known: bool = True  # MultiRNNCell/wrapper: False when its cell list is not literal
    reuse_reported: bool = False  # TFS205 already said for this cell object


@dataclass(eq=False)
class TemplateValue:
    name: str
    func: Any
    unique_name: str | None
    create_scope_now: bool
    kwargs: dict[str, Any]
    site: Any
    scope: VarScope | None = None
    calls: int = 0


@dataclass(eq=False)
class OptimizerValue:
    class_name: str
    config: dict[str, Any]
    site: Any
    non_slot_done: set[int] = field(default_factory=set)  # graph ids where beta powers exist
    # (graph id, primary's name, slot position) already made: Optimizer._zeros_slot keeps one slot per variable
    # and slot name, so a second apply_gradients of the same optimizer reuses it (no Adagrad_1)
    slots_done: set[tuple[int, str, int]] = field(default_factory=set)


@dataclass(eq=False)
class EMAValue:
    decay: Any
    name: str
    site: Any


@dataclass(eq=False)
class GraphValue:
    graph: Any  # GraphModel


@dataclass(eq=False)
class EstimatorValue:
    """A tf.estimator.Estimator (or TPUEstimator): its model_fn builds a new graph per train,
    evaluate or predict call."""

    model_fn: Any
    params: Any


@dataclass(eq=False)
class UserFunction:
    node: cst.FunctionDef | cst.Lambda
    name: str
    closure: "Env"
    defaults: dict[str, Any]
    module: Any  # the Interpreter module context
    opaque: bool = False  # wrapped by a decorator we do not understand
    is_static: bool = False
    is_classmethod: bool = False
    is_property: bool = False
    is_contextmanager: bool = False  # @contextlib.contextmanager: a call makes a GeneratorContext
    owner_class: Any = None  # the UserClass whose body defined it (for zero-argument super())


@dataclass(eq=False)
class GeneratorContext:
    """A call of a @contextmanager generator, not started yet: `with` runs it up to its yield,
    runs the with body there, then resumes it."""

    function: UserFunction
    args: list[Any]
    kwargs: dict[str, Any]
    node: Any
    receiver: Any = None


@dataclass(eq=False)
class BoundMethod:
    function: UserFunction
    receiver: Any


@dataclass(eq=False)
class UserClass:
    name: str
    attrs: dict[str, Any]
    bases: list[Any]

    def lookup(self, name: str) -> Any:
        if name in self.attrs:
            return self.attrs[name]
        for base in self.bases:
            if isinstance(base, UserClass):
                found = base.lookup(name)
                if found is not UNKNOWN:
                    return found
        return UNKNOWN


@dataclass(eq=False)
class Instance:
    cls: UserClass
    attrs: dict[str, Any] = field(default_factory=dict)
    # Handed to code the analysis does not follow: it may have gained attributes there.
    escaped: bool = False


@dataclass(eq=False)
class ModuleValue:
    """A project module imported by the analysed code (its top-level names)."""

    name: str
    env: "Env"


@dataclass(eq=False)
class Builtin:
    name: str


def replace_contents(container: Any, contents: Any) -> None:
    """Make a list, dict or set hold `contents`, in place (aliases see it)."""
    if isinstance(container, list):
        container[:] = contents
    else:
        container.clear()
        container.update(contents)


# While replay.py records a phase: the ids of the module namespaces (an Env without a parent)
# the phase read, so that a later run compares only those.  None the rest of the time.
MODULE_READS: set[int] | None = None


def note_module_read(env: "Env") -> None:
    """A read of a namespace's contents (Env.lookup reaching it, a module's attribute, an import
    from it, a scan of every name)."""
    if MODULE_READS is not None and env.parent is None:
        MODULE_READS.add(id(env))


class Env:
    """A Python namespace with a parent chain (function locals -> enclosing -> module)."""

    def __init__(self, parent: "Env | None" = None) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.globals_declared: set[str] = set()

    def lookup(self, name: str) -> Any:
        env = self
        while True:
            if env.parent is None:  # the module's namespace: found here or nowhere
                if MODULE_READS is not None:  # note_module_read, inlined: this is the hottest path
                    MODULE_READS.add(id(env))
                return env.vars[name]  # KeyError when it is not there either
            if name in env.vars:
                return env.vars[name]
            env = env.parent

    def module_env(self) -> "Env":
        env = self
        while env.parent is not None:
            env = env.parent
        return env

    def assign(self, name: str, value: Any) -> None:
        if name in self.globals_declared:
            self.module_env().vars[name] = value
        else:
            self.vars[name] = value



@dataclass
class ModuleContext:
    """The module being run: its file, position table and namespace, and which of its `def`s ran."""

    path: str
    positions: Any
    env: Env
    executed_defs: set[int] = field(default_factory=set)


_OPERATION_CLASSES = frozenset({"tf.Operation"})
_NODE_DEF_CLASSES = frozenset({"tf.NodeDef"})
_OTHER_GRAPH_CLASSES = frozenset({"tf.Tensor", "tf.Variable", "tf.SparseTensor", "tf.Graph"})


@dataclass(frozen=True)
class AbstractOp:
    """The op a device function is called with (analysis/device_functions.py) (`node_def` False), or its `node_def` (True)."""

    op_type: str
    device: str | None  # what inner device scopes set; None when unknown
    node_def: bool = False

    def attribute(self, name: str) -> "Any":
        if name == ("op" if self.node_def else "type"):
            return self.op_type
        if name == "device":
            return UNKNOWN if self.device is None else self.device
        if name == "node_def" and not self.node_def:
            return AbstractOp(self.op_type, self.device, node_def=True)
        return UNKNOWN  # name, inputs, attrs: not modelled

    def is_instance(self, class_path: str) -> bool | None:
        if class_path in _OPERATION_CLASSES:
            return not self.node_def
        if class_path in _NODE_DEF_CLASSES:
            return self.node_def
        if class_path in _OTHER_GRAPH_CLASSES:
            return False
        return None
