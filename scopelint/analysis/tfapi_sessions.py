"""Session facts for TFS412 (session-without-device-filters).

Between-graph replication: each worker process starts its own `tf.train.Server(cluster,
job_name="worker", task_index=i)` and opens its session on it (`MonitoredTrainingSession`,
`Supervisor`, `Session(server.target)`).  Without `device_filters` in the session's ConfigProto, the
master of that session asks every task of the cluster for its devices and waits until all of them
answer: a worker waits for every other worker ("CreateSession still waiting for response from
worker: /job:worker/replica:0/task:1"), for ever when one of them is down or already finished
(tensorflow/tensorflow#13075).  With `device_filters=["/job:ps", "/job:worker/task:%d" % i]` it
talks only to the ps tasks and itself.

Reported only when it is proven: a worker Server of this process (its job known to be a worker job)
in a literal cluster with two or more tasks in that job, a session opened after it, and a config
that is certainly without filters (none given, or a `ConfigProto(...)` call without
`device_filters`, in a file that mentions `device_filters` only as such a keyword).  In-graph replication (one
client, no Server of its own) is not reported.
"""
from __future__ import annotations

import io
import tokenize
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import libcst as cst

from scopelint.analysis import tfapi
from scopelint.analysis.values import ContextValue
from scopelint.model.cluster import ClusterValue
from scopelint.trace import Event

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

KIND = "session_without_device_filters"
WORKER_JOBS = ("worker", "chief", "master")
SERVER_PARAMETERS = ("server_or_cluster_def", "job_name", "task_index", "protocol", "config", "start")
NO_FILTERS = "no device_filters"  # ConfigProto args key: the call certainly gave none


@dataclass
class WorkerServer:
    job: str
    tasks: int  # tasks in that job of the literal cluster
    task_index: Any
    site: Any


@dataclass
class SessionFacts:
    servers: list[WorkerServer] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


_FACTS: "weakref.WeakKeyDictionary[Any, SessionFacts]" = weakref.WeakKeyDictionary()


def _facts(interp: "Interpreter") -> SessionFacts:
    facts = _FACTS.get(interp)
    if facts is None:
        facts = _FACTS[interp] = SessionFacts()
    return facts


def _cluster_of(interp: "Interpreter", value: Any, node: cst.CSTNode) -> ClusterValue | None:
    if isinstance(value, dict):
        value = tfapi.HANDLERS["tf.train.ClusterSpec"](interp, [value], {}, node)
    return value if isinstance(value, ClusterValue) else None


_original_server = tfapi.HANDLERS["tf.train.Server"]


def _server(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = tfapi.bind(SERVER_PARAMETERS, args, kwargs)
    cluster = _cluster_of(interp, bound.get("server_or_cluster_def"), node)
    job = bound.get("job_name")
    if cluster is not None and isinstance(job, str) and job in WORKER_JOBS:
        tasks = cluster.num_tasks(job)
        if isinstance(tasks, int) and tasks >= 2:
            _facts(interp).servers.append(WorkerServer(job, tasks, bound.get("task_index"), interp.where(node).site))
    return _original_server(interp, args, kwargs, node)


_original_config = tfapi.HANDLERS["tf.ConfigProto"]


def _config(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    value = _original_config(interp, args, kwargs, node)
    if not args and "device_filters" not in kwargs and isinstance(value, ContextValue):
        value = ContextValue(value.kind, dict(value.args), value.site)
        value.args["value"] = value
        value.args[NO_FILTERS] = True
    return value


def _without_filters(config: Any, given: bool) -> bool:
    if not given or config is None:  # config=None is TensorFlow's default: no filters
        return True
    return isinstance(config, ContextValue) and bool(config.args.get(NO_FILTERS))


def _session_check(interp: "Interpreter", config: Any, config_given: bool, what: str, node: cst.CSTNode) -> None:
    facts = _FACTS.get(interp)
    if facts is None or not facts.servers or not _without_filters(config, config_given):
        return
    server = facts.servers[-1]
    # One wording for every task: the same finding on each worker's path is one finding.
    filters = f'device_filters=["/job:ps", "/job:{server.job}/task:%d" % task_index]'
    graph = interp.graph
    before = len(graph.events)
    graph._event(
        KIND,
        f"{what} on this worker's own server without device_filters: its master waits for every task of the "
        f"cluster ({server.tasks} '{server.job}' tasks) to answer before the session starts, so a worker whose "
        "peers are down, not started yet or finished waits for ever (\"CreateSession still waiting for response "
        f"from worker\"). Pass config=tf.ConfigProto({filters})",
        interp.where(node),
        related=(),
    )
    facts.events.extend(graph.events[before:])


MTS_PARAMETERS = ("master", "is_chief", "checkpoint_dir", "scaffold", "hooks", "chief_only_hooks",
                  "save_checkpoint_secs", "save_summaries_steps", "save_summaries_secs", "config")
_original_mts = tfapi.HANDLERS["tf.train.MonitoredTrainingSession"]


def _monitored(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = tfapi.bind(MTS_PARAMETERS, args, kwargs)
    _session_check(interp, bound.get("config"), "config" in kwargs or len(args) > MTS_PARAMETERS.index("config"),
                   "MonitoredTrainingSession opens its session", node)
    return _original_mts(interp, args, kwargs, node)


_original_session = tfapi.HANDLERS["tf.Session"]


def _session(interp: "Interpreter", args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode) -> Any:
    bound = tfapi.bind(("target", "graph", "config"), args, kwargs)
    target = bound.get("target", "")
    if target != "":  # Session() is local: it never talks to the cluster
        _session_check(interp, bound.get("config"), "config" in kwargs or len(args) > 2,
                       "this Session connects", node)
    return _original_session(interp, args, kwargs, node)


def supervisor_session(interp: "Interpreter", name: str, args: list[Any], kwargs: dict[str, Any],
                       node: cst.CSTNode) -> None:
    """`sv.prepare_or_wait_for_session(master, config=...)` / `sv.managed_session(master, config=...)`."""
    given = "config" in kwargs or len(args) > 1
    _session_check(interp, kwargs.get("config", args[1] if len(args) > 1 else None), given,
                   f"Supervisor.{name} opens its session", node)


def finish_module(interp: "Interpreter", module: cst.Module) -> None:
    """A file that mentions device_filters other than as a ConfigProto keyword may set them in ways
    not followed (a config's `device_filters.append(...)`): its reports are withdrawn (never build
    on the unknown)."""
    facts = _FACTS.get(interp)
    if facts is None or not facts.events:
        return
    positions = getattr(interp.module, "positions", None)
    # The text the module was parsed from: LibCST's `module.code` would generate it again.
    source = positions.source if getattr(positions, "module", None) is module else module.code
    if _mentioned_otherwise(source):
        for event in facts.events:
            event.certain = False


@lru_cache(maxsize=64)  # a module's runs (one per configuration) ask of the same text
def _mentioned_otherwise(code: str) -> bool:
    """`device_filters` in the code (not in strings or comments) other than as a keyword argument
    (`ConfigProto(device_filters=...)`, which the handler reads): `config.device_filters.append(...)`,
    a variable of that name, ..."""
    if "device_filters" not in code:
        return False
    try:
        tokens = [token for token in tokenize.generate_tokens(io.StringIO(code).readline)
                  if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                        tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return True
    for index, token in enumerate(tokens):
        if token.type == tokenize.NAME and token.string == "device_filters":
            before = tokens[index - 1].string if index else ""
            after = tokens[index + 1].string if index + 1 < len(tokens) else ""
            if not (before in ("(", ",") and after == "="):
                return True
    return False


tfapi.HANDLERS["tf.train.Server"] = _server
tfapi.HANDLERS["tf.ConfigProto"] = _config
tfapi.HANDLERS["tf.train.MonitoredTrainingSession"] = _monitored
for _path in ("tf.Session", "tf.InteractiveSession"):
    tfapi.HANDLERS[_path] = _session
