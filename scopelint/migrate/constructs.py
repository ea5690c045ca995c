"""A syntactic pass over one module: how it imports TensorFlow and which TF1 constructs it uses.

The trace says what a program creates; the migration report also needs what the program *uses*
(sessions, placeholders, collections, clusters, contrib, ...), including code the interpreter never
reaches.  This pass resolves TensorFlow names the way the analysis does (`tf_path_for_module` and
`canonical` from scopelint.analysis.tfapi) over a flat, file-wide alias table built in source order:
imports, `tf = tf.compat.v1`, `vs = tf.variable_scope`.  Each use of a TF name is classified into one
construct (see CONSTRUCT_PATHS); the recipes and weights are keyed by those construct ids.

It uses Python's `ast` (cheap, exact positions): the file has already been parsed by LibCST in the
analysis, and this pass only reads names and literal arguments.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from scopelint import pyparse
from scopelint.analysis.tfapi import canonical, tf_path_for_module
from scopelint.trace import Site

# The alias the official `tf_upgrade_v2` script understands: it matches names textually as `tf.X`.
UPGRADE_SCRIPT_ALIAS = "tf"

# Canonical TF path (exact, or a prefix followed by ".") -> construct id; the first match wins, so
# specific entries come before the namespaces that contain them.  Anything else under `tf` is "ops".
CONSTRUCT_PATHS: tuple[tuple[str, str], ...] = (
    ("tf.train.SyncReplicasOptimizer", "sync_replicas"),
    ("tf.train.replica_device_setter", "device_setter"),
    ("tf.train.ClusterSpec", "cluster"),
    ("tf.train.Server", "server"),
    ("tf.distribute.cluster_resolver", "cluster"),
    ("tf.fixed_size_partitioner", "partitioner"),
    ("tf.variable_axis_size_partitioner", "partitioner"),
    ("tf.min_max_variable_partitioner", "partitioner"),
    ("tf.AUTO_REUSE", "reuse"),
    ("tf.variable_scope", "variable_scope"),
    ("tf.VariableScope", "variable_scope"),
    ("tf.get_variable_scope", "variable_scope"),
    ("tf.get_variable", "get_variable"),
    ("tf.get_local_variable", "get_variable"),
    ("tf.make_template", "make_template"),
    ("tf.Variable", "tf_variable"),
    ("tf.layers", "v1_layers"),
    ("tf.contrib.slim", "slim"),
    ("tf.contrib.layers", "slim"),
    ("tf.contrib.framework.arg_scope", "slim"),
    ("tf.contrib.tpu.TPUEstimator", "estimator"),
    ("tf.contrib.tpu.TPUEstimatorSpec", "estimator"),
    ("tf.contrib", "contrib"),
    ("tf.keras.layers", "keras_layers"),
    ("tf.keras.Model", "keras_layers"),
    ("tf.keras.Sequential", "keras_layers"),
    ("tf.nn.rnn_cell", "rnn"),
    ("tf.nn.dynamic_rnn", "rnn"),
    ("tf.nn.static_rnn", "rnn"),
    ("tf.nn.bidirectional_dynamic_rnn", "rnn"),
    ("tf.nn.static_bidirectional_rnn", "rnn"),
    ("tf.get_collection", "collections"),
    ("tf.get_collection_ref", "collections"),
    ("tf.add_to_collection", "collections"),
    ("tf.add_to_collections", "collections"),
    ("tf.GraphKeys", "collections"),
    ("tf.trainable_variables", "collections"),
    ("tf.global_variables", "collections"),
    ("tf.local_variables", "collections"),
    ("tf.model_variables", "collections"),
    ("tf.all_variables", "collections"),
    ("tf.losses.get_regularization_loss", "collections"),
    ("tf.losses.get_regularization_losses", "collections"),
    ("tf.Session", "session"),
    ("tf.InteractiveSession", "session"),
    ("tf.global_variables_initializer", "initializers"),
    ("tf.local_variables_initializer", "initializers"),
    ("tf.tables_initializer", "initializers"),
    ("tf.initialize_all_variables", "initializers"),
    ("tf.variables_initializer", "initializers"),
    ("tf.placeholder", "placeholder"),
    ("tf.placeholder_with_default", "placeholder"),
    ("tf.sparse_placeholder", "placeholder"),
    ("tf.train.get_or_create_global_step", "global_step"),
    ("tf.train.get_global_step", "global_step"),
    ("tf.train.create_global_step", "global_step"),
    ("tf.train.ExponentialMovingAverage", "ema"),
    ("tf.train.Saver", "saver"),
    ("tf.train.init_from_checkpoint", "saver"),
    ("tf.train.MonitoredTrainingSession", "monitored_session"),
    ("tf.train.MonitoredSession", "monitored_session"),
    ("tf.train.SingularMonitoredSession", "monitored_session"),
    ("tf.train.Supervisor", "monitored_session"),
    ("tf.train.Scaffold", "monitored_session"),
    ("tf.train.SessionRunHook", "monitored_session"),
    ("tf.train.start_queue_runners", "queue_runners"),
    ("tf.train.Coordinator", "queue_runners"),
    ("tf.train.batch", "queue_runners"),
    ("tf.train.shuffle_batch", "queue_runners"),
    ("tf.train.string_input_producer", "queue_runners"),
    ("tf.FIFOQueue", "queue_runners"),
    ("tf.RandomShuffleQueue", "queue_runners"),
    ("tf.estimator", "estimator"),
    ("tf.summary", "summary"),
    ("tf.app", "flags_logging"),
    ("tf.flags", "flags_logging"),
    ("tf.logging", "flags_logging"),
    ("tf.gfile", "flags_logging"),
)
# Hooks and optimizers are whole families.
_SUFFIX_CONSTRUCTS = (("tf.train.", "Hook", "monitored_session"), ("tf.train.", "Optimizer", "v1_optimizer"))


def construct_of(path: str) -> str:
    """The construct id of a canonical TF path ("tf.get_variable" -> "get_variable")."""
    for prefix, construct in CONSTRUCT_PATHS:
        if path == prefix or path.startswith(prefix + "."):
            return construct
    for namespace, suffix, construct in _SUFFIX_CONSTRUCTS:
        if path.startswith(namespace) and path.split(".")[-1].endswith(suffix):
            return construct
    return "ops"


@dataclass(frozen=True)
class ImportStyle:
    """One statement that binds a TensorFlow name."""

    style: str  # the statement as written, normalised ("import tensorflow.compat.v1 as tf")
    bound: str  # the name it binds
    tf_path: str  # what that name stands for ("tf", "tf.contrib.slim")
    site: Site
    seen_by_upgrade_script: bool  # tf_upgrade_v2 reads only names written `tf.X`


@dataclass(frozen=True)
class ConstructSite:
    construct: str
    api: str  # the canonical TF path, or what was recognised ("reuse=True", "reuse_variables()")
    site: Site
    certain: bool = True  # False when a value that decides the construct is not a literal
    detail: tuple[tuple[str, Any], ...] = ()

    def detail_dict(self) -> dict[str, Any]:
        return dict(self.detail)


@dataclass
class ModuleConstructs:
    imports: list[ImportStyle] = field(default_factory=list)
    sites: list[ConstructSite] = field(default_factory=list)


def scan_constructs(source: str, path: str) -> ModuleConstructs:
    """Imports and construct sites of one module; raises SyntaxError/ValueError when `ast` cannot
    parse it (the caller has already recorded the parse failure through the analysis)."""
    tree = pyparse.parse(source, filename=path)
    scanner = _Scanner(path)
    scanner.visit(tree)
    return scanner.found


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return f"{owner}.{node.attr}" if owner else None
    return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.aliases: dict[str, str] = {}  # local name -> canonical TF path
        self.found = ModuleConstructs()
        self.consumed: set[int] = set()  # ids of nodes already read as part of a longer TF name

    def site(self, node: ast.AST) -> Site:
        line = getattr(node, "lineno", 1)
        column = getattr(node, "col_offset", 0) + 1
        return Site(self.path, line, column, getattr(node, "end_lineno", None) or line,
                    (getattr(node, "end_col_offset", None) or column - 1) + 1)

    def tf_path(self, node: ast.AST) -> str | None:
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        base = self.aliases.get(head)
        if base is None:
            return None
        return canonical(f"{base}.{rest}" if rest else base)

    # ---------------------------------------------------------------- bindings
    def _bind(self, name: str, tf_path: str, style: str, node: ast.AST) -> None:
        self.aliases[name] = tf_path
        self.found.imports.append(ImportStyle(style, name, tf_path, self.site(node), name == UPGRADE_SCRIPT_ALIAS))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            tf_path = tf_path_for_module(alias.name)
            if tf_path is None:
                continue
            if alias.asname:
                self._bind(alias.asname, tf_path, f"import {alias.name} as {alias.asname}", node)
            else:
                top = alias.name.split(".")[0]
                top_path = tf_path_for_module(top)
                if top_path is not None:
                    self._bind(top, top_path, f"import {alias.name}", node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or node.module is None:
            return
        base = tf_path_for_module(node.module)
        if base is None:
            return
        for alias in node.names:
            if alias.name == "*":
                continue
            bound = alias.asname or alias.name
            style = f"from {node.module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
            self._bind(bound, canonical(f"{base}.{alias.name}"), style, node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        value_path = self.tf_path(node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else None
        for target in node.targets:
            if not isinstance(target, ast.Name):
                self.visit(target)
            elif value_path is None or _is_constant_name(value_path.rsplit(".", 1)[-1]):
                # Rebound to something else, or to a TF object (FLAGS = tf.flags.FLAGS): that
                # statement was counted once; reads of the object's attributes are not TF API uses.
                self.aliases.pop(target.id, None)
            else:
                self.aliases[target.id] = value_path
                leaf = value_path.rsplit(".", 1)[-1]
                if leaf == leaf.lower():  # a module or function alias (tf = tf.compat.v1, vs = tf.variable_scope)
                    self._bind(target.id, value_path, f"{target.id} = {_dotted(node.value)} (rebinding)", node)

    # ---------------------------------------------------------------- uses
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "reuse_variables" and not node.args:
            self.add("reuse", "reuse_variables()", node)
        path = self.tf_path(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if path is not None:
            self.consume(func)
            self.add_path(path, node)
            self.read_arguments(path, node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._reference(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._reference(node)

    def _reference(self, node: ast.Attribute | ast.Name) -> None:
        if id(node) in self.consumed or isinstance(node.ctx, ast.Store):
            return
        path = self.tf_path(node)
        if path is None:
            if isinstance(node, ast.Attribute):
                self.generic_visit(node)
            return
        self.consume(node)
        self.add_path(path, node)

    def consume(self, node: ast.AST) -> None:
        while isinstance(node, ast.Attribute):
            self.consumed.add(id(node))
            node = node.value
        self.consumed.add(id(node))

    def add(self, construct: str, api: str, node: ast.AST, certain: bool = True, **detail: Any) -> None:
        self.found.sites.append(ConstructSite(construct, api, self.site(node), certain, tuple(sorted(detail.items()))))

    def add_path(self, path: str, node: ast.AST) -> None:
        if path == "tf" or not path.startswith("tf"):
            return
        self.add(construct_of(path), path, node)

    def read_arguments(self, path: str, node: ast.Call) -> None:
        keywords = {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}
        if path in ("tf.variable_scope", "tf.get_variable", "tf.VariableScope") and "custom_getter" in keywords:
            if not (isinstance(keywords["custom_getter"], ast.Constant) and keywords["custom_getter"].value is None):
                self.add("custom_getter", f"{path}(custom_getter=...)", node)
        if path == "tf.variable_scope" and "reuse" in keywords:
            value = keywords["reuse"]
            if isinstance(value, ast.Constant):
                if value.value is True:
                    self.add("reuse", "variable_scope(reuse=True)", node)
            elif self.tf_path(value) == "tf.AUTO_REUSE":
                pass  # counted as the tf.AUTO_REUSE reference itself
            else:
                self.add("reuse", f"variable_scope(reuse={ast.unparse(value)})", node, certain=False)
        if path == "tf.train.ClusterSpec" and node.args and isinstance(node.args[0], ast.Dict):
            jobs = _literal_jobs(node.args[0])
            if jobs is not None:
                self.found.sites[-1] = _with_detail(self.found.sites[-1], jobs=jobs)
        if path == "tf.train.replica_device_setter":
            given = sorted(keywords) + [f"<positional {index}>" for index in range(len(node.args))]
            detail: dict[str, Any] = {"arguments": tuple(given)}
            if isinstance(keywords.get("ps_tasks"), ast.Constant):
                detail["ps_tasks"] = keywords["ps_tasks"].value  # type: ignore[union-attr]
            self.found.sites[-1] = _with_detail(self.found.sites[-1], **detail)
        if self.found.sites and self.found.sites[-1].construct == "partitioner" and self.found.sites[-1].site == self.site(node):
            arguments = {keyword.arg: ast.unparse(keyword.value) for keyword in node.keywords if keyword.arg}
            arguments.update({f"arg{index}": ast.unparse(arg) for index, arg in enumerate(node.args)})
            self.found.sites[-1] = _with_detail(self.found.sites[-1], arguments=tuple(sorted(arguments.items())))


def _is_constant_name(name: str) -> bool:
    return name.isupper()


def _literal_jobs(node: ast.Dict) -> tuple[tuple[str, int], ...] | None:
    """{"ps": ["h:1", "h:2"], "worker": [...]} -> (("ps", 2), ("worker", 1)); None when not literal."""
    jobs = []
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        if isinstance(value, (ast.List, ast.Tuple)):
            jobs.append((key.value, len(value.elts)))
        elif isinstance(value, ast.Dict):
            jobs.append((key.value, len(value.keys)))
        else:
            return None
    return tuple(jobs)


def _with_detail(site: ConstructSite, **detail: Any) -> ConstructSite:
    merged = dict(site.detail)
    merged.update(detail)
    return ConstructSite(site.construct, site.api, site.site, site.certain, tuple(sorted(merged.items())))
