"""Device-setter and session facts for the TFS4xx rules.

Wraps the device handlers of `tfapi` (replica_device_setter, device, Session) to record what the
distributed rules need, and registers the wrappers into `tfapi.HANDLERS`:

- TFS402: an argument `replica_device_setter` does not take (TypeError at graph build);
- TFS404: a setter that is certainly None (no ps job in a literal cluster, or ps_tasks 0);
- TFS405: a local `Session()` for a graph that already holds variables placed on a `/job:`;
- TFS407: `tf.device(fn)` where `tf` is TensorFlow 2's namespace (RuntimeError at graph build);
- TFS401: a setter whose result is discarded or bound to a name never read, reported by
  `finish_module` when the module has run;
- `add_device_facts` fills `Trace.setters` and `Trace.placements` (from each graph's
  `RecordingDeviceStack`) for the rules that read them (TFS403, 406, 408-411).

Imported at the bottom of tfapi.py, so the handlers it wraps are already registered.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis import config_values as cfg
from scopelint.analysis.bindings import BindingVisitor, plain_names
from scopelint.analysis import tfapi
from scopelint.analysis.positions import walk
from scopelint.analysis.values import GraphValue, PartialStr, UserFunction
from scopelint.model import devices as devmodel
from scopelint.model.cluster import ClusterValue
from scopelint.model.graph import Where
from scopelint.model.placement import RecordingDeviceStack
from scopelint.trace import UNKNOWN_PART, Event, Placement, Related, SetterRecord, Site, Trace

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

SETTER_PARAMETERS = ("ps_tasks", "ps_device", "worker_device", "merge_devices", "cluster", "ps_ops", "ps_strategy")
# Jobs a plain local Session has: only `localhost` (tf1-semantics 5.3).
LOCAL_JOBS = frozenset({"localhost"})


@dataclass
class SetterCreation:
    """One execution of a `replica_device_setter(...)` call."""

    call: cst.Call
    where: Where
    certain: bool  # created on a path that certainly runs
    value: Any  # the ReplicaDeviceSetter, None, or UNKNOWN
    cluster: Any = None  # the `cluster` argument: a ClusterValue, None, or another (unknown) value
    worker_device_given: bool = True  # False when TensorFlow's default '/job:worker' applies
    none_reason: str = ""  # why TensorFlow returns None, when it does (TFS404)


@dataclass
class DeviceFacts:
    """What one interpreter run learnt about setters (kept per Interpreter)."""

    setters: list[SetterCreation] = field(default_factory=list)
    pushed: list[Any] = field(default_factory=list)  # setter objects that reached device(...)
    # The run builds a cluster (ClusterSpec or Server): its variables are meant for ps tasks.
    distributed: bool = False


_FACTS: "weakref.WeakKeyDictionary[Any, DeviceFacts]" = weakref.WeakKeyDictionary()


def known_facts(interp: "Interpreter") -> "DeviceFacts | None":
    """What this run learnt about setters so far, without creating it (replay.py reads it)."""
    return _FACTS.get(interp)


def facts_of(interp: "Interpreter") -> DeviceFacts:
    facts = _FACTS.get(interp)
    if facts is None:
        facts = DeviceFacts()
        _FACTS[interp] = facts
    return facts


# ---------------------------------------------------------------------------------------------
# replica_device_setter: TFS402, TFS404, and the creations TFS401 looks at

_original_setter = tfapi.HANDLERS["tf.train.replica_device_setter"]


@tfapi.handles("tf.train.replica_device_setter")
def _setter(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    graph = interp.graph
    where = interp.where(node)
    unknown_keywords = [name for name in kwargs if name not in SETTER_PARAMETERS]
    doubled = [name for name in SETTER_PARAMETERS[: len(args)] if name in kwargs]
    if unknown_keywords:
        hint = (" The worker's task goes into worker_device, e.g. worker_device='/job:worker/task:%d' % task_index"
                if "task_index" in unknown_keywords else "")
        graph._event("device_setter_bad_argument",
                     f"replica_device_setter() got an unexpected keyword argument '{unknown_keywords[0]}'.{hint}",
                     where, raises=True, error="TypeError", argument=unknown_keywords[0])
    elif len(args) > len(SETTER_PARAMETERS):
        graph._event("device_setter_bad_argument",
                     f"replica_device_setter() takes from 0 to {len(SETTER_PARAMETERS)} positional arguments "
                     f"but {len(args)} were given", where, raises=True, error="TypeError")
    elif doubled:
        graph._event("device_setter_bad_argument",
                     f"replica_device_setter() got multiple values for argument '{doubled[0]}'",
                     where, raises=True, error="TypeError", argument=doubled[0])
    rejected = bool(unknown_keywords or len(args) > len(SETTER_PARAMETERS) or doubled)
    # Recovery (model/graph.py, "Continuing past an error"): the setter the remaining arguments
    # give, as after the fix of this call; the rejected ones are dropped.
    kwargs = {name: value for name, value in kwargs.items()
              if name in SETTER_PARAMETERS and name not in doubled}
    args = list(args[: len(SETTER_PARAMETERS)])
    args, kwargs = _with_cluster_value(interp, args, kwargs, node)
    value = _original_setter(interp, args, kwargs, node)
    if isinstance(node, cst.Call):
        bound = tfapi.bind(SETTER_PARAMETERS, args, kwargs)
        facts_of(interp).setters.append(SetterCreation(
            node, where, graph.certain_now, value, bound.get("cluster"), bound.has("worker_device"),
            # A call TensorFlow rejects returns nothing: the recovered setter's None is our guess at
            # the fix (the rejected keyword dropped), not the program's, so no TFS404 on it.
            none_reason=_none_reason(args, kwargs) if value is None and not rejected else ""))
    return value


def note_config_decisions(interp: "Interpreter", callee: Any, args: list[Any], kwargs: dict[str, Any]) -> None:
    """A configuration value TensorFlow itself tests: `replica_device_setter(ps_tasks=FLAGS.ps_tasks)`
    returns None exactly when it is 0 (and no cluster is given), so the path driver must also run
    the program with another value, and a TFS404 found only at the default says "with the default
    flags", not "on every path"."""
    # TFRef paths are canonical already (the interpreter resolves them so).
    if not isinstance(callee, tfapi.TFRef) or callee.path != "tf.train.replica_device_setter":
        return
    bound = tfapi.bind(SETTER_PARAMETERS, args, kwargs)
    ps_tasks = bound.get("ps_tasks")
    if isinstance(ps_tasks, cfg.Tagged) and bound.get("cluster") is None:
        interp.config.on_truth(ps_tasks)


def _with_cluster_value(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any],
                        node: cst.CSTNode) -> tuple[list[Any], dict[str, Any]]:
    """A literal dict `cluster=` means what `ClusterSpec(dict)` means (TensorFlow wraps it alike)."""
    position = SETTER_PARAMETERS.index("cluster")
    if isinstance(kwargs.get("cluster"), dict):
        kwargs = {**kwargs, "cluster": _cluster_handler(interp, [kwargs["cluster"]], {}, node)}
    elif len(args) > position and isinstance(args[position], dict):
        args = [*args[:position], _cluster_handler(interp, [args[position]], {}, node), *args[position + 1:]]
    return args, kwargs


_cluster_handler = tfapi.HANDLERS["tf.train.ClusterSpec"]
_original_server = tfapi.HANDLERS["tf.train.Server"]


@tfapi.handles("tf.train.ClusterSpec")
def _cluster_spec(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    facts_of(interp).distributed = True
    return _cluster_handler(interp, args, kwargs, node)


@tfapi.handles("tf.train.Server")
def _server(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    facts_of(interp).distributed = True
    return _original_server(interp, args, kwargs, node)


def _none_reason(args: list[Any], kwargs: dict[str, Any]) -> str:
    bound = tfapi.bind(SETTER_PARAMETERS, args, kwargs)
    cluster = bound.get("cluster")
    lead = "replica_device_setter(...) returns None here"
    if isinstance(cluster, ClusterValue):
        ps_device = bound.get("ps_device", "/job:ps")
        job = devmodel.DeviceSpec.parse_or_none(ps_device).job if isinstance(ps_device, str) else None
        jobs = ", ".join(sorted(cluster.jobs)) or "none"
        return f"{lead}: the cluster has no job '{job}' (its jobs: {jobs})"
    return f"{lead}: ps_tasks is 0 and no cluster is given"


# ---------------------------------------------------------------------------------------------
# device(...): pushes (TFS401) and device functions given to TF2's tf.device (TFS407)

_original_device = tfapi.HANDLERS["tf.device"]


@tfapi.handles("tf.device")
def _device(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    argument = tfapi.bind(("device_name_or_function",), args, kwargs).get("device_name_or_function")
    if isinstance(argument, devmodel.ReplicaDeviceSetter):
        facts_of(interp).pushed.append(argument)
    elif argument is None:
        _note_setter_none_drops(interp, node)
    if isinstance(argument, (devmodel.ReplicaDeviceSetter, UserFunction)) and _is_tf2_device_call(interp, node):
        interp.graph._event(
            "device_function_in_tf2_device",
            "tf.device does not support functions. (This `tf.device` is TensorFlow 2's; "
            "use tf.compat.v1.device for a device function such as replica_device_setter)",
            interp.where(node), raises=True, error="RuntimeError",
        )
    return _original_device(interp, args, kwargs, node)


def _note_setter_none_drops(interp: "Interpreter", node: cst.CSTNode) -> None:
    """TFS404, as a consequence (issue 9 item 6): `device(None)` from a setter that returned None,
    entered where an enclosing device scope is in force, which it then drops.  A None setter with
    nothing around it (`replica_device_setter(ps_tasks=FLAGS.ps_tasks)` with the default 0 on a
    local run) changes no device and is not a finding; nor is a literal `device(None)`, which says
    what it means."""
    if not isinstance(node, cst.Call) or not node.args:
        return
    argument = node.args[0].value
    if isinstance(argument, cst.Name) and argument.value == "None":
        return
    setters = facts_of(interp).setters
    if isinstance(argument, cst.Call):
        creation = next((c for c in reversed(setters) if c.call is argument), None)
    elif isinstance(argument, cst.Name):
        # `s = replica_device_setter(...)` then `device(s)`: the setter assigned to that name.
        targets = _assignment_targets(interp)
        creation = next((c for c in reversed(setters)
                         if c.value is None and c.none_reason and argument.value in targets.get(id(c.call), ())), None)
    else:
        return  # a None from elsewhere (an attribute, a call's result): no setter is known to give it
    if creation is None or creation.value is not None or not creation.none_reason:
        return
    dropped, unknown = interp.graph.devices.dropped_by_barrier()
    if not dropped and not unknown:
        if facts_of(interp).distributed and (creation.worker_device_given or isinstance(creation.cluster, ClusterValue)):
            # A worker of a cluster asked for ps placement and got none: every worker keeps its own
            # copy of the variables created inside, and nothing is shared through a ps task.
            interp.graph._event(
                "device_setter_returns_none",
                f"{creation.none_reason}: in this cluster run nothing created inside goes to a ps task, so "
                "each worker trains its own unshared copy of the variables", creation.where,
                certain=creation.certain)
        return
    what = (f"the enclosing device {dropped[0]}" if dropped and dropped[0].startswith("'")
            else "the enclosing device function" if dropped else "an enclosing device scope")
    related = () if argument is creation.call else (Related(interp.where(node).site, "device(None) entered here"),)
    interp.graph._event(
        "device_setter_returns_none",
        f"{creation.none_reason}, so `with device(None)` drops {what}: what is created inside gets only "
        "the devices of scopes opened inside it", creation.where,
        certain=creation.certain and bool(dropped), related=related)


def _assignment_targets(interp: "Interpreter") -> dict[int, tuple[str, ...]]:
    """id of an assigned value -> the plain names it is assigned to, in the module being run."""
    module = _module_of(interp)
    return {} if module is None else _assigned_names(module)


# The syntactic facts below are of a module's text alone: computed once per parsed module, not once
# per run (a module is run once per configuration, and each walk of the tree costs more than a
# short program's run).  Their results are shared: read, never changed.
_SYNTAX_CACHE_SIZE = 64


@lru_cache(maxsize=_SYNTAX_CACHE_SIZE)
def _assigned_names(module: cst.Module) -> dict[int, tuple[str, ...]]:
    found: dict[int, tuple[str, ...]] = {}
    for assign in (node for node in walk(module) if type(node) is cst.Assign):
        names = tuple(t.target.value for t in assign.targets if isinstance(t.target, cst.Name))
        if names:
            found[id(assign.value)] = names
    return found


def _is_tf2_device_call(interp: "Interpreter", node: cst.CSTNode) -> bool:
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.Name) and node.func.attr.value == "device"):
        return False
    return node.func.value.value in _tf2_names(_module_of(interp))


def _module_of(interp: "Interpreter") -> cst.Module | None:
    """The module being interpreted (the position table keeps it)."""
    module = getattr(interp.module.positions, "module", None) if interp.module is not None else None
    return module if isinstance(module, cst.Module) else None


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr.value}"
    return None


class _Bindings(BindingVisitor):
    """Every place a name is bound, and whether the file uses tf.compat.v1."""

    def __init__(self) -> None:
        self.bindings: dict[str, list[str]] = {}  # name -> how it is bound ("tensorflow", "other")
        self.uses_compat_v1 = False
        self.dotted: list[str] = []

    def _bind(self, name: str, how: str) -> None:
        self.bindings.setdefault(name, []).append(how)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            module = _dotted(alias.name) or ""
            if module.startswith("tensorflow.compat.v1") or module.startswith("tensorflow.compat.v2"):
                self.uses_compat_v1 = self.uses_compat_v1 or module.startswith("tensorflow.compat.v1")
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, "tensorflow" if module == "tensorflow" else "other")
            else:
                self._bind(module.split(".")[0], "tensorflow" if module.split(".")[0] == "tensorflow" else "other")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = _dotted(node.module) if node.module is not None else ""
        module = module or ""
        if isinstance(node.names, cst.ImportStar):
            self._bind("*", "other")
            return
        for alias in node.names:
            imported = _dotted(alias.name) or ""
            if f"{module}.{imported}".startswith("tensorflow.compat.v1"):
                self.uses_compat_v1 = True
            target = alias.asname.name if alias.asname is not None else None
            self._bind(target.value if isinstance(target, cst.Name) else imported.split(".")[0], "other")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        text = _dotted(node)
        if text is not None:
            self.dotted.append(text)

    def bind_target(self, target: cst.BaseExpression) -> None:
        for name in plain_names(target):
            self._bind(name, "other")

    def bind_name(self, name: cst.Name) -> None:
        self._bind(name.value, "other")

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self._bind(item.name.value, "other")


@lru_cache(maxsize=_SYNTAX_CACHE_SIZE)
def _tf2_names(module: cst.Module | None) -> frozenset[str]:
    """Names bound only by `import tensorflow [as X]`, in a file that also uses tf.compat.v1 (which
    proves TensorFlow 2).  Empty when either fact is not certain."""
    if module is None:
        return frozenset()
    visitor = _Bindings()
    module.visit(visitor)
    if "*" in visitor.bindings:
        return frozenset()
    candidates = {name for name, hows in visitor.bindings.items() if hows == ["tensorflow"]}
    uses_v1 = visitor.uses_compat_v1 or any(
        text.split(".", 1)[0] in candidates and text.split(".", 1)[1:] and text.split(".", 1)[1].startswith("compat.v1")
        for text in visitor.dotted
    )
    return frozenset(candidates) if uses_v1 else frozenset()


# ---------------------------------------------------------------------------------------------
# Sessions: TFS405

_original_session = tfapi.HANDLERS["tf.Session"]


def _session(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = tfapi.bind(("target", "graph", "config"), args, kwargs)
    target = bound.get("target", "")
    graph_arg = bound.get("graph")
    graph = interp.graph if graph_arg is None else (graph_arg.graph if isinstance(graph_arg, GraphValue) else None)
    local = isinstance(target, str) and not isinstance(target, PartialStr) and target == ""
    if local and graph is not None:
        placed = next((record for record in graph.records if record.certain and _cluster_job(record.device)), None)
        if placed is not None:
            graph._event(
                "local_session_for_cluster_graph",
                f"this Session has no target, so it runs in-process where the only job is 'localhost'; "
                f"'{placed.name}' is placed on {placed.device}, so running the graph raises "
                "InvalidArgumentError (allow_soft_placement does not help). Pass the server's target, "
                "e.g. tf.Session(server.target)",
                interp.where(node),
                related=(Related(placed.site, f"'{placed.name}' is placed on {placed.device} here"),),
            )
    return _original_session(interp, args, kwargs, node)


for _path in ("tf.Session", "tf.InteractiveSession"):
    tfapi.HANDLERS[_path] = _session


def _cluster_job(device: str | None) -> str | None:
    """The job a device names, when it is a known job other than the local one."""
    if not device:
        return None
    spec = devmodel.DeviceSpec.parse_or_none(device)
    if spec is None or spec.job is None or UNKNOWN_PART in spec.job or spec.job in LOCAL_JOBS:
        return None
    return spec.job


# ---------------------------------------------------------------------------------------------
# End of the module: TFS401


def finish_module(interp: "Interpreter", module: cst.Module) -> None:
    """Report setters whose result never reaches device(): discarded, or bound to a name that is
    never read anywhere in the file (a syntactic proof that holds whatever the values were)."""
    from scopelint.analysis import tfapi_sessions

    tfapi_sessions.finish_module(interp, module)  # TFS412: withdrawn where device_filters is mentioned
    facts = _FACTS.get(interp)
    if facts is None or not facts.setters:
        return
    usage = _setter_usage(module)
    reported: set[Site] = set()
    for creation in facts.setters:
        site = creation.where.site
        if site in reported or any(pushed is creation.value for pushed in facts.pushed):
            continue
        name = usage.assigned.get(id(creation.call))
        discarded = id(creation.call) in usage.discarded
        unread = name is not None and usage.reads.get(name, 0) == 0
        if not (discarded or unread):
            continue
        if any(other.where.site == site and other.value is not creation.value
               and any(pushed is other.value for pushed in facts.pushed) for other in facts.setters):
            continue  # another run of the same call did reach device()
        reported.add(site)
        what = "its result is discarded" if discarded else f"'{name}' is never used"
        interp.extra_events.append(Event(
            "device_setter_unused",
            site,
            f"replica_device_setter(...) does nothing here: {what}. It only places variables when passed "
            "to `with tf.compat.v1.device(...)`",
            True,
            creation.where.chain,
        ))


@lru_cache(maxsize=_SYNTAX_CACHE_SIZE)
def _setter_usage(module: cst.Module) -> "_SetterUsage":
    usage = _SetterUsage()
    module.visit(usage)
    return usage


class _SetterUsage(cst.CSTVisitor):
    """Calls whose value is discarded or assigned to one plain name, and how often each name is read."""

    def __init__(self) -> None:
        self.discarded: set[int] = set()
        self.assigned: dict[int, str] = {}
        self.reads: dict[str, int] = {}
        self._targets: set[int] = set()

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self.discarded.add(id(node.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._targets.add(id(target.target))
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(node.value, cst.Call):
            self.assigned[id(node.value)] = node.targets[0].target.value

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._targets:
            # Any other occurrence (a read, a global statement, a parameter) counts as a use.
            self.reads[node.value] = self.reads.get(node.value, 0) + 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # the attribute name itself (`x.setter`) is not a read of `setter`
        return False


# ---------------------------------------------------------------------------------------------
# Into the trace: setters and placements (TFS403, 406, 408, 409, 410, 411 read them)


def add_device_facts(interp: "Interpreter", trace: Trace) -> None:
    """Fill `trace.setters` and `trace.placements` once the module has run and `trace.variables`
    holds the records of `interp.graphs`, graph after graph."""
    facts = _FACTS.get(interp)
    creations = facts.setters if facts is not None else []
    index_of_setter: dict[int, int] = {}
    for creation in creations:
        value = creation.value
        if isinstance(value, devmodel.ReplicaDeviceSetter):
            index_of_setter.setdefault(id(value), len(trace.setters))
        trace.setters.append(_setter_record(creation, facts))
    offset = 0
    for graph in interp.graphs:
        stack = graph.devices
        if isinstance(stack, RecordingDeviceStack):
            for note in stack.notes:
                position = note.record_index
                # A note belongs to the record created right after it; check that it is that one.
                if position >= len(graph.records) or graph.records[position].device != note.device:
                    continue
                setter_index = None if note.setter is None else index_of_setter.get(id(note.setter))
                trace.placements.append(Placement(
                    variable=offset + position,
                    setter=setter_index,
                    setter_device=note.setter_device,
                    round_robin_task=note.round_robin_task,
                    next_task=note.next_task,
                    # A setter this module's run did not create (an unreached function's) is not known.
                    known=note.known and (note.setter is None or setter_index is not None),
                    cleared=note.cleared,
                    colocated=note.colocated,
                ))
        offset += len(graph.records)


def _setter_record(creation: SetterCreation, facts: DeviceFacts | None) -> SetterRecord:
    value = creation.value
    pushed = facts is not None and value is not None and any(item is value for item in facts.pushed)
    cluster = creation.cluster
    literal_cluster = dict(cluster.jobs) if isinstance(cluster, ClusterValue) and cluster.complete else None
    if isinstance(value, devmodel.ReplicaDeviceSetter):
        return SetterRecord(
            site=creation.where.site, certain=creation.certain, returns_none=False, ps_tasks=value.ps_tasks,
            ps_device=_known_or_none(value.ps_device), worker_device=_known_or_none(value.worker_device),
            worker_device_given=creation.worker_device_given, cluster=literal_cluster, pushed=pushed,
            chain=creation.where.chain,
        )
    return SetterRecord(
        site=creation.where.site, certain=creation.certain, returns_none=True if value is None else None,
        ps_tasks=None, ps_device=None, worker_device=None, worker_device_given=creation.worker_device_given,
        cluster=literal_cluster, pushed=pushed, chain=creation.where.chain,
    )


def _known_or_none(device: str | None) -> str | None:
    """A device argument with its partial parts ("?") kept; the wholly unknown "?" as None."""
    return None if device is None or device == UNKNOWN_PART else device
