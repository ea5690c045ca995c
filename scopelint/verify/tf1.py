"""TF1 mode for `scopelint verify`: run a program written for TensorFlow 1.x under TensorFlow 2.

Real TF1 programs start with `import tensorflow as tf` and call `tf.placeholder`,
`tf.train.replica_device_setter`, `tf.contrib.slim`; under TensorFlow 2 they fail at the first
such name (an AttributeError), long before the code scopelint reasons about.  In TF1 mode the
child (and only the child: the user's files are never changed) resolves, for imports made by the
program's own files:

- `tensorflow` to `tensorflow.compat.v1`, with v2 behaviour disabled (`disable_v2_behavior`);
- `tf.contrib.slim`, `tf.contrib.layers`, `tf.contrib.framework` to `tf_slim` (their maintained
  successor), `tf.contrib.rnn` to `tf.compat.v1.nn.rnn_cell` (and `nn` for `static_rnn`...);
- any other `tf.contrib.X` ends the run with "not available in TensorFlow 2: tf.contrib.X" at the
  program's line (ContribUnavailable), not with a traceback deep inside a proxy.

`detect` (parent side, no TensorFlow) decides whether a program is written for TF1.
`install` (child side) puts the import hook in place.
"""
from __future__ import annotations

import ast
import builtins
import os
import types
from typing import Any, Callable

from scopelint import pyparse

# TF1-only names under `tensorflow` (TF2 lacks them at the top level or under these modules):
# seeing one of them through a name bound by `import tensorflow` means the program is TF1.
TF1_ONLY_TOP = frozenset({
    "placeholder", "placeholder_with_default", "Session", "InteractiveSession", "get_variable", "variable_scope",
    "get_variable_scope", "global_variables_initializer", "initialize_all_variables", "local_variables_initializer",
    "global_variables", "trainable_variables", "all_variables", "contrib", "layers", "app", "flags", "GraphKeys",
    "get_collection", "add_to_collection", "ConfigProto", "random_normal", "random_uniform", "truncated_normal",
    "to_float", "to_int32", "reset_default_graph", "get_default_graph", "AUTO_REUSE", "variables_initializer",
    "log", "squared_difference", "Print", "assign", "assign_add", "set_random_seed",
    "sparse_placeholder", "get_local_variable", "make_template", "no_regularizer", "RunOptions", "RunMetadata",
    "GPUOptions", "tables_initializer", "model_variables", "report_uninitialized_variables",
})
# `tf.train.X` names TF2 moved or dropped (its tf.train keeps Checkpoint, ClusterSpec, ...).
TF1_ONLY_TRAIN = frozenset({
    "replica_device_setter", "Saver", "Supervisor", "MonitoredTrainingSession", "MonitoredSession",
    "SyncReplicasOptimizer", "Server", "get_global_step", "get_or_create_global_step", "create_global_step",
    "global_step", "exponential_decay", "string_input_producer", "shuffle_batch", "batch", "start_queue_runners",
    "Coordinator", "StopAtStepHook", "SessionRunHook", "ChiefSessionCreator", "import_meta_graph", "SummarySaverHook",
    "LoggingTensorHook", "CheckpointSaverHook", "Scaffold", "NewCheckpointReader", "latest_checkpoint",
    "piecewise_constant", "polynomial_decay", "slice_input_producer", "input_producer", "QueueRunner",
})
# tf.summary.scalar exists in TF2 too (with another meaning); these do not.
TF1_ONLY_SUMMARY_WRITER = frozenset({"FileWriter", "merge_all", "merge", "FileWriterCache"})


class ContribUnavailable(BaseException):
    """A `tf.contrib` name with no maintained successor.  A BaseException, so that the program's
    own `except Exception` cannot hide it: the run ends at that line."""


def unavailable_message(name: str) -> str:
    return f"not available in TensorFlow 2: tf.contrib.{name}"


# ------------------------------------------------------------------------------ parent: detection


def detect(source: str) -> str | None:
    """Why the program is written for TF1 (a short reason), or None when nothing says so.

    TF1: it imports `tensorflow` itself (not `tensorflow.compat.v1`) and, through a name that import
    binds, uses an API TensorFlow 2 dropped; or it imports from `tensorflow.contrib`.
    """
    try:
        tree = pyparse.parse(source)
    except (SyntaxError, ValueError):
        return None
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("tensorflow.contrib"):
                    return f"it imports {alias.name}"
                if alias.name == "tensorflow":
                    bound.add(alias.asname or "tensorflow")
                elif alias.name.startswith("tensorflow.") and alias.asname is None:
                    bound.add("tensorflow")  # `import tensorflow.x` binds `tensorflow`
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("tensorflow.contrib") or (
                    node.module == "tensorflow" and any(alias.name == "contrib" for alias in node.names)):
                return f"it imports from {node.module}"
            if node.module == "tensorflow.examples.tutorials.mnist":
                return "it imports tensorflow.examples.tutorials.mnist (TF1 only)"
    if not bound:
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = _chain(node)
        if chain is None or chain[0] not in bound or len(chain) < 2:
            continue
        if chain[1] == "compat":
            continue
        if chain[1] == "contrib":
            return f"it uses {chain[0]}.contrib (TensorFlow 1 only)"
        if chain[1] in TF1_ONLY_TOP:
            return f"it uses {'.'.join(chain[:2])}, which TensorFlow 2 has only under tf.compat.v1"
        if len(chain) >= 3 and chain[1] == "train" and (chain[2] in TF1_ONLY_TRAIN or chain[2].endswith("Optimizer")):
            return f"it uses {'.'.join(chain[:3])}, which TensorFlow 2 has only under tf.compat.v1"
        if len(chain) >= 3 and chain[1] == "summary" and chain[2] in TF1_ONLY_SUMMARY_WRITER:
            return f"it uses {'.'.join(chain[:3])}, which TensorFlow 2 has only under tf.compat.v1"
    return None


def _chain(node: ast.Attribute) -> list[str] | None:
    """`tf.train.Saver` -> ["tf", "train", "Saver"]; only for the outermost attribute of a chain."""
    parts: list[str] = []
    current: ast.AST = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    if not isinstance(current, ast.Name):
        return None
    parts.append(current.id)
    return parts[::-1]


# ------------------------------------------------------------------------------ child: the hook


class _Lookup(types.ModuleType):
    """A module made of other modules: an attribute is looked up in each, in order."""

    def __init__(self, name: str, sources: list[Any], missing: Callable[[str], Any] | None = None) -> None:
        super().__init__(name)
        self._sources = sources
        self._missing = missing

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        for source in self._sources:
            try:
                return getattr(source, attribute)
            except AttributeError:
                continue
        if self._missing is not None:
            return self._missing(attribute)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attribute!r}")

    def __dir__(self) -> list[str]:
        return sorted({name for source in self._sources for name in dir(source)})


def repair_what_tf_slim_reaches() -> None:
    """Names tf_slim 1.1.0 (its last release) reaches and current TensorFlow lost; without them
    every slim.batch_norm and optimize_loss fails inside tf_slim.  The child puts them back where
    it looks.

    - `ops.Tensor` and `ops.IndexedSlices`, with `ops` = tensorflow.python.framework.ops, which
      TensorFlow 2.16 emptied of both (now framework.tensor and framework.indexed_slices);
    - tensorflow.python.layers.normalization loads `tf_keras.legacy_tf_layers.normalization`, a
      module tf_keras keeps as `tf_keras.src.legacy_tf_layers.normalization` (TF 2.21)."""
    import importlib
    import importlib.util
    import sys

    from tensorflow.python.framework import indexed_slices, ops, tensor

    if not hasattr(ops, "Tensor"):
        ops.Tensor = tensor.Tensor
    if not hasattr(ops, "IndexedSlices"):
        ops.IndexedSlices = indexed_slices.IndexedSlices
    try:
        found = importlib.util.find_spec("tf_keras.legacy_tf_layers") is not None
    except ModuleNotFoundError:  # no tf_keras at all: the Keras 3 error stays TensorFlow's own
        return
    if not found and importlib.util.find_spec("tf_keras.src.legacy_tf_layers") is not None:
        sys.modules["tf_keras.legacy_tf_layers"] = importlib.import_module("tf_keras.src.legacy_tf_layers")
        sys.modules["tf_keras.legacy_tf_layers.normalization"] = importlib.import_module(
            "tf_keras.src.legacy_tf_layers.normalization")


class Contrib(types.ModuleType):
    """`tf.contrib` in TF1 mode: successors where they exist, ContribUnavailable otherwise."""

    def __init__(self, v1: Any) -> None:
        super().__init__("tensorflow.contrib")
        self._v1 = v1
        self._made: dict[str, Any] = {}
        self.used: list[str] = []  # which successors the program reached, for the report

    def successor(self, name: str) -> Any:
        if name in self._made:
            return self._made[name]
        if name in ("slim", "layers", "framework"):
            repair_what_tf_slim_reaches()
            import tf_slim

            if name == "slim":
                module: Any = tf_slim
            elif name == "layers":
                module = _Lookup("tensorflow.contrib.layers", [tf_slim.layers, tf_slim])
            else:
                module = _Lookup("tensorflow.contrib.framework", [tf_slim, tf_slim.ops.variables if hasattr(
                    tf_slim, "ops") and hasattr(tf_slim.ops, "variables") else tf_slim])
            self.used.append(f"tf.contrib.{name} -> tf_slim")
        elif name == "rnn":
            module = _Lookup("tensorflow.contrib.rnn", [self._v1.nn.rnn_cell, self._v1.nn])
            self.used.append("tf.contrib.rnn -> tf.compat.v1.nn.rnn_cell")
        else:
            raise ContribUnavailable(unavailable_message(name))
        self._made[name] = module
        return module

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return self.successor(attribute)


class TF1Module(types.ModuleType):
    """What `import tensorflow` gives the program's files: tf.compat.v1, then TensorFlow itself."""

    def __init__(self, tf: Any, contrib: Contrib) -> None:
        super().__init__("tensorflow")
        self._sources = [tf.compat.v1, tf]
        self.contrib = contrib
        self.compat = tf.compat
        self.__version__ = tf.__version__

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        for source in self._sources:
            try:
                return getattr(source, attribute)
            except AttributeError:
                continue
        raise AttributeError(f"module 'tensorflow' (TF1 mode: tf.compat.v1) has no attribute {attribute!r}")

    def __dir__(self) -> list[str]:
        return sorted({name for source in self._sources for name in dir(source)} | {"contrib"})


class Hook:
    """The `__import__` wrapper: imports of `tensorflow...` made by the program's own files."""

    def __init__(self, tf: Any, program_root: str, stubs: dict[str, Any] | None = None) -> None:
        self.tf = tf
        self.root = os.path.abspath(program_root) + os.sep
        self.contrib = Contrib(tf.compat.v1)
        self.module = TF1Module(tf, self.contrib)
        self.stubs = stubs or {}  # "tensorflow.examples.tutorials.mnist" -> a stand-in module
        self.original = builtins.__import__

    def from_program(self, globals_: Any) -> bool:
        filename = (globals_ or {}).get("__file__") if isinstance(globals_, dict) else None
        if not filename:
            return False
        path = os.path.abspath(filename)
        return path.startswith(self.root) and "site-packages" not in path and "dist-packages" not in path

    def __call__(self, name: str, globals_: Any = None, locals_: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level != 0 or not (name == "tensorflow" or name.startswith("tensorflow.")) or not self.from_program(globals_):
            return self.original(name, globals_, locals_, fromlist, level)
        parts = name.split(".")
        if name == "tensorflow":
            return self.module
        if parts[1] == "contrib":
            target: Any = self.contrib
            for part in parts[2:]:
                target = getattr(target, part)  # ContribUnavailable at the program's import line
            return target if fromlist else self.module
        for prefix, stub in self.stubs.items():
            if name == prefix or name.startswith(prefix + "."):
                return _descend(stub, name[len(prefix) + 1:]) if fromlist else self.module
        if parts[1] == "compat":
            return self.original(name, globals_, locals_, fromlist, level)
        found = self.original(name, globals_, locals_, fromlist, level)
        return found if fromlist else self.module


def _descend(module: Any, rest: str) -> Any:
    for part in filter(None, rest.split(".")):
        module = getattr(module, part)
    return module


def install(tf: Any, program_root: str, stubs: dict[str, Any] | None = None) -> Hook:
    """TF1 behaviour for the whole process, `tensorflow` as compat.v1 for the program's imports."""
    tf.compat.v1.disable_v2_behavior()
    hook = Hook(tf, program_root, stubs)
    builtins.__import__ = hook
    return hook
