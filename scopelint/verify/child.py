"""The child side of `scopelint verify`: run the program for real on an in-process cluster.

Run as `python -m scopelint.verify.child REQUEST.json` by `scopelint.verify.runner`, inside its own
process group (and, where the system allows, a private network namespace).  This is the only
module of scopelint that imports TensorFlow, and it does so inside `main()`.

What it does, in order:
1. Patches TensorFlow so that the program's `ClusterSpec` is captured and its addresses are
   mapped onto in-process servers on 127.0.0.1 (started on first need), the program's own
   `Server(...)` calls get those servers, every `Session` connects to the master task with
   `device_filters` (an unstarted task can then never hang a run), and session runs of the main
   thread are counted and cut after `steps` (tf1-semantics 5.1, 5.2).
2. Runs the program as `__main__` (or imports a module and calls a zero-argument builder).
3. Observes the graph that is left: every variable's name, shape, dtype and requested device;
   runs the initializers of the variables still uninitialized, reads every variable back, and
   takes each variable's placement from the partition graphs of that read run.
4. Writes the result as JSON; progress lines go to a status file so that the parent can say
   where a killed child was.
"""
from __future__ import annotations

import json
import os
import runpy
import socket
import sys
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from scopelint.verify.plan import ChildRequest
from scopelint.verify.tf1 import ContribUnavailable

# Collections a variable can be found in, in the order the oracle lists them (tests/oracle.py).
VARIABLE_COLLECTIONS = ("variables", "local_variables", "trainable_variables", "moving_average_variables")
SERVER_START_ATTEMPTS = 3
RECOVERY_WAIT_SECONDS = 0.2
CLUSTER_FILE_POLL_SECONDS = 0.05
MESSAGE_LIMIT = 2000


class StepLimitReached(BaseException):
    """Raised into the program at its (steps+1)-th session run; BaseException so that the
    program's own `except Exception` does not swallow it."""


class ServerJoinCalled(BaseException):
    """`server.join()` would serve forever (a ps task's main loop): the program ends here."""


@dataclass
class ProgramEnd:
    how: str  # finished | steps | join | exit | exception
    exit_code: int | None = None
    error_type: str | None = None
    message: str | None = None
    line: int = 0  # innermost line of the program in the traceback (0 when none)
    traceback: str | None = None
    # The innermost frame in the program's folder (its own modules, not site-packages): where a
    # finding in an imported module of the program (model.py run by main.py) is matched.
    site_file: str | None = None
    site_line: int = 0


@dataclass
class ObservedVariable:
    name: str
    shape: list[int | None] | None
    dtype: str
    device: str  # Variable.device as the graph holds it
    placement: str | None  # where the run put the variable op; None when it did not run
    collections: list[str]
    op_type: str


@dataclass
class ChildResult:
    program: ProgramEnd
    variables: list[ObservedVariable] = field(default_factory=list)
    session_runs: int = 0
    cluster: dict[str, list[str]] = field(default_factory=dict)  # job -> our addresses by task
    cluster_source: str = ""  # program | option | fallback | none
    address_map: dict[str, str] = field(default_factory=dict)  # program address -> ours
    master: str = ""
    sessions: list[dict[str, str]] = field(default_factory=list)  # {"requested", "used"}
    servers_adopted: list[str] = field(default_factory=list)  # "/job:ps/task:0", ...
    initialized: int = 0
    read_back: int = 0
    observe_error: ProgramEnd | None = None
    notes: list[str] = field(default_factory=list)
    tf1: list[str] = field(default_factory=list)  # TF1 mode: what was mapped ("tensorflow -> ...")
    stubbed: list[str] = field(default_factory=list)  # --stub-data: what was replaced
    writes: list[str] = field(default_factory=list)  # verify/writes.py: what was kept out of the user's files
    lines_reached: list[list[Any]] = field(default_factory=list)  # [file, line] of request.watch_lines


class Status:
    """Progress lines for the parent: the last one says where a killed child was."""

    def __init__(self, path: str) -> None:
        self._file = open(path, "a", encoding="utf-8")

    def write(self, phase: str, **data: Any) -> None:
        self._file.write(json.dumps({"phase": phase, "time": time.time(), **data}) + "\n")
        self._file.flush()


def _free_port() -> int:
    # Bind to port 0 and close: a small race (tf1-semantics 5.2), retried on failure.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalCluster:
    """In-process servers for every task of one cluster layout, started on first need."""

    def __init__(self, tf: Any, request: ChildRequest, result: ChildResult, status: Status) -> None:
        from tensorflow.python.training import server_lib

        self.tf = tf
        self.server_lib = server_lib
        self.request = request
        self.result = result
        self.status = status
        self.addresses: dict[tuple[str, int], str] = {}
        self.servers: dict[tuple[str, int], Any] = {}
        self.creating_own = False
        self.program_master: tuple[str, int] | None = None
        # --workers N: worker tasks beyond the copies get an address but no server (nobody runs
        # them), as in a cluster where a worker is down, not started yet or finished.
        self.absent: set[tuple[str, int]] = set()

    @property
    def started(self) -> bool:
        return bool(self.servers)

    def ensure_started(self, program_layout: dict[str, list[int]] | None = None) -> None:
        if self.started:
            return
        if self.request.cluster_override is not None:
            layout = {job: list(range(count)) for job, count in self.request.cluster_override.items()}
            self.result.cluster_source = "option"
        elif program_layout:
            layout = program_layout
            self.result.cluster_source = "program"
        else:
            layout = {job: list(range(count)) for job, count in self.request.fallback_cluster.items()}
            self.result.cluster_source = "fallback"
        last_error: Exception | None = None
        for _ in range(SERVER_START_ATTEMPTS):
            try:
                self._start(layout)
                break
            except self.tf.errors.OpError as error:  # a port taken between probe and bind
                last_error = error
                self.servers.clear()
        else:
            raise RuntimeError(f"could not start the in-process cluster: {last_error}")
        self.result.cluster = {
            job: [self.addresses[(job, index)] for index in sorted(indices)] for job, indices in layout.items()
        }
        self.status.write("cluster", cluster=self.result.cluster)

    def _start(self, layout: dict[str, list[int]]) -> None:
        self.addresses = {(job, index): f"127.0.0.1:{_free_port()}" for job, indices in layout.items() for index in indices}
        spec_dict = {job: {index: self.addresses[(job, index)] for index in indices} for job, indices in layout.items()}
        self.creating_own = True
        try:
            spec = self.server_lib.ClusterSpec(spec_dict)
            for job, index in self.addresses:
                if (job, index) in self.absent:
                    continue
                server = self.server_lib.Server(spec, job_name=job, task_index=index, start=True)
                server._scopelint_own = True
                self.servers[(job, index)] = server
        finally:
            self.creating_own = False

    def server_for(self, key: tuple[str, int]) -> Any:
        """The in-process server the program's `Server(...)` for this task gets; None: not ours."""
        return self.servers.get(key)

    def master_key(self) -> tuple[str, int]:
        if self.program_master is not None and self.program_master in self.servers:
            return self.program_master
        for job in ("worker", "chief", "master"):
            if (job, 0) in self.servers:
                return (job, 0)
        return min(self.servers)

    def master_target(self) -> str:
        self.ensure_started()
        target = self.servers[self.master_key()].target
        self.result.master = target.decode() if isinstance(target, bytes) else str(target)
        return self.result.master

    def device_filters(self) -> list[str]:
        return [f"/job:{job}/task:{index}" for job, index in sorted(self.servers)]

    def session_config(self, config: Any, program: bool = True) -> Any:
        merged = self.tf.compat.v1.ConfigProto()
        if config is not None:
            merged.CopyFrom(config)
        del merged.device_filters[:]
        merged.device_filters.extend(self.device_filters())
        return merged


class StandInServer:
    """What the program's `Server(...)` gets when verify starts no server (an existing cluster): the
    task's target, and a `join()` that ends the program as the real one's would never return."""

    def __init__(self, target: str, job_name: str, task_index: int) -> None:
        self._target = target
        self.job_name = job_name
        self.task_index = task_index

    @property
    def target(self) -> bytes:
        return self._target.encode()  # what TensorFlow's Server.target returns

    def start(self) -> None:
        pass

    def join(self) -> None:
        raise ServerJoinCalled()


class ExternalCluster:
    """A cluster that already runs (`--target`, or the host's servers for a worker copy): no server is
    started here; sessions connect to `master`; device filters name the tasks known to exist."""

    def __init__(self, tf: Any, request: ChildRequest, result: ChildResult, status: Status, master: str,
                 addresses: dict[str, list[str]] | None, source: str) -> None:
        self.tf = tf
        self.request = request
        self.result = result
        self.status = status
        self.master = master
        self.source = source  # "host" or "target"
        self.known = addresses
        self.addresses: dict[tuple[str, int], str] = {
            (job, index): address for job, tasks in (addresses or {}).items() for index, address in enumerate(tasks)
        }
        self.layout: dict[str, list[int]] | None = None
        self.creating_own = False
        self.program_master: tuple[str, int] | None = None

    @property
    def started(self) -> bool:
        return self.layout is not None

    def ensure_started(self, program_layout: dict[str, list[int]] | None = None) -> None:
        if self.layout is not None:
            return
        if self.known:
            self.layout = {job: list(range(len(tasks))) for job, tasks in self.known.items()}
            self.result.cluster_source = self.source
        elif self.request.cluster_override is not None:
            self.layout = {job: list(range(count)) for job, count in self.request.cluster_override.items()}
            self.result.cluster_source = "option"
        elif program_layout:
            self.layout = program_layout
            self.result.cluster_source = "program"
        else:
            self.layout = {}  # nothing known: no device filters; the target's own cluster decides
            self.result.cluster_source = self.source
        self.result.cluster = {job: [self.addresses.get((job, index), "?") for index in sorted(indices)]
                               for job, indices in self.layout.items()}
        self.status.write("cluster", cluster=self.result.cluster, external=True)

    def server_for(self, key: tuple[str, int]) -> Any:
        address = self.addresses.get(key)
        return StandInServer(f"grpc://{address}" if address else self.master, key[0], key[1])

    def master_target(self) -> str:
        self.ensure_started()
        self.result.master = self.master
        return self.master

    def device_filters(self) -> list[str]:
        return [f"/job:{job}/task:{index}" for job, indices in sorted((self.layout or {}).items()) for index in indices]

    def session_config(self, config: Any, program: bool = True) -> Any:
        merged = self.tf.compat.v1.ConfigProto()
        if config is not None:
            merged.CopyFrom(config)
        if self.source == "host" and self.request.task_index is not None:
            # A copy of --workers N runs as the real worker would: the program's own config, its
            # device_filters or none (TFS412).  verify's own read-back talks to the other jobs and
            # to the copy's own worker task only, so that a task nobody runs cannot hold it.
            if not program:
                own = f"/job:{self.request.worker_job}/task:{self.request.task_index}"
                del merged.device_filters[:]
                merged.device_filters.extend(
                    [f"/job:{job}" for job in sorted(self.layout or {}) if job != self.request.worker_job] + [own])
            return merged
        filters = self.device_filters()
        if filters:
            del merged.device_filters[:]
            merged.device_filters.extend(filters)
        return merged


class Patches:
    """Everything the program's TensorFlow calls are redirected through."""

    def __init__(self, tf: Any, cluster: "LocalCluster | ExternalCluster", request: ChildRequest, result: ChildResult, status: Status) -> None:
        self.tf = tf
        self.cluster = cluster
        self.request = request
        self.result = result
        self.status = status
        self.counting = True
        self.depth = 0  # nested runs (a MonitoredSession step calls the plain session's run)
        self.cut_graph: Any = None
        # Multi-GPU programs pin towers to /gpu:N; on a machine without a GPU TensorFlow refuses
        # to run them at all ("Cannot assign a device ... GPU:0").  verify then lets those ops run
        # on the task's CPU (allow_soft_placement): the graph and its device strings, which are
        # what is compared, stay as the program wrote them.  Said in the report once seen.
        self.no_gpu = not tf.config.list_physical_devices("GPU")
        self.gpu_noted = False

    def install(self) -> None:
        from tensorflow.python.client import session as session_lib
        from tensorflow.python.training import monitored_session, server_lib, supervisor

        self._patch_cluster_spec(server_lib)
        self._patch_server(server_lib)
        self._patch_session(session_lib)
        counted = self._counted
        uncounted = self._uncounted
        monitored = monitored_session._MonitoredSession
        monitored.run = counted(monitored.run)
        monitored.run_step_fn = counted(monitored.run_step_fn)
        monitored.__init__ = uncounted(monitored.__init__)
        monitored.close = uncounted(monitored.close)
        monitored.__exit__ = uncounted(monitored.__exit__)
        for name in ("__init__", "prepare_or_wait_for_session", "stop"):
            setattr(supervisor.Supervisor, name, uncounted(getattr(supervisor.Supervisor, name)))
        self._patch_recovery_wait()
        self._patch_model_ready()

    @staticmethod
    def _patch_recovery_wait() -> None:
        # A non-chief worker polls every `recovery_wait_secs` (30 s by default) until the chief has
        # initialized the model: poll often instead, which changes when it looks, not what it sees.
        from tensorflow.python.training import session_manager

        original_init = session_manager.SessionManager.__init__

        def init(manager: Any, *args: Any, **kwargs: Any) -> None:
            original_init(manager, *args, **kwargs)
            manager._recovery_wait_secs = min(manager._recovery_wait_secs, RECOVERY_WAIT_SECONDS)

        session_manager.SessionManager.__init__ = init

    def _patch_model_ready(self) -> None:
        # A session that started but waits for the model (a non-chief worker whose variables the
        # chief never initializes: they live on its own task) is another hang than TFS412's, and
        # TensorFlow says why only at INFO level: record what it waits for.
        from tensorflow.python.training import session_manager

        original = session_manager.SessionManager._model_ready
        status = self.status

        def model_ready(manager: Any, sess: Any) -> Any:
            ready, message = original(manager, sess)
            if not ready:
                status.write("model not ready", message=str(message or ""))
            return ready, message

        session_manager.SessionManager._model_ready = model_ready

    # -- ClusterSpec: capture the layout, start the cluster, map the program's addresses
    def _patch_cluster_spec(self, server_lib: Any) -> None:
        original_init = server_lib.ClusterSpec.__init__
        patches = self

        def init(spec: Any, cluster: Any) -> None:
            original_init(spec, cluster)
            if patches.cluster.creating_own:
                return
            layout = {job: sorted(tasks) for job, tasks in spec._cluster_spec.items()}
            patches.cluster.ensure_started(layout)
            changed = False
            for job, tasks in spec._cluster_spec.items():
                for index, address in list(tasks.items()):
                    ours = patches.cluster.addresses.get((job, index))
                    if ours is not None and address != ours:
                        patches.result.address_map[f"/job:{job}/task:{index} {address}"] = ours
                        tasks[index] = ours
                        changed = True
            if changed:
                spec._make_cluster_def()

        server_lib.ClusterSpec.__init__ = init

    # -- Server: the program's servers are ours; join() ends the program
    def _patch_server(self, server_lib: Any) -> None:
        Server = server_lib.Server
        original_init = Server.__init__
        patches = self

        def new(cls: type, server_or_cluster_def: Any = None, job_name: Any = None, task_index: Any = None, *args: Any, **kwargs: Any) -> Any:
            if patches.cluster.creating_own:
                return object.__new__(cls)
            adopted = patches._adopt(server_lib, server_or_cluster_def, job_name, task_index)
            if adopted is None and isinstance(patches.cluster, ExternalCluster):
                # On an existing cluster verify starts no server, whatever the program asks for.
                adopted = StandInServer(patches.cluster.master_target(), str(job_name), int(task_index or 0))
                patches.result.notes.append("a Server(...) of the program matched no task: it got the target")
            return adopted if adopted is not None else object.__new__(cls)

        def init(server: Any, *args: Any, **kwargs: Any) -> None:
            if getattr(server, "_scopelint_own", False):
                return  # one of ours, handed to the program: already started
            original_init(server, *args, **kwargs)

        def join(server: Any) -> None:
            raise ServerJoinCalled()

        Server.__new__ = new
        Server.__init__ = init
        Server.join = join

    def _adopt(self, server_lib: Any, definition: Any, job_name: Any, task_index: Any) -> Any:
        from tensorflow.core.protobuf import tensorflow_server_pb2

        if isinstance(definition, tensorflow_server_pb2.ServerDef):
            spec = server_lib.ClusterSpec(definition.cluster)
            job_name = job_name or definition.job_name or None
            task_index = task_index if task_index is not None else definition.task_index
        elif isinstance(definition, (dict, server_lib.ClusterSpec)) or type(definition).__name__ == "ClusterDef":
            spec = server_lib.ClusterSpec(definition)  # starts the cluster from the program's layout
        else:
            return None
        jobs = spec.jobs
        if job_name is None and len(jobs) == 1:
            job_name = jobs[0]
        key = (str(job_name), int(task_index or 0))
        server = self.cluster.server_for(key)
        if server is None:
            return None  # TensorFlow itself reports an unknown job or task
        self.result.servers_adopted.append(f"/job:{key[0]}/task:{key[1]}")
        if key[0] != "ps" and self.cluster.program_master is None:
            self.cluster.program_master = key
        return server

    # -- Session: every session goes to the master with device filters; runs are counted
    def _patch_session(self, session_lib: Any) -> None:
        BaseSession = session_lib.BaseSession
        original_init = BaseSession.__init__
        original_run = BaseSession.run
        patches = self

        def init(session: Any, target: Any = "", graph: Any = None, config: Any = None) -> None:
            used = patches.cluster.master_target()
            requested = target.decode() if isinstance(target, bytes) else str(target)
            program = patches.counting  # the program's sessions, not verify's own read-back session
            merged = patches.cluster.session_config(config, program=program)
            if patches.no_gpu:
                merged.allow_soft_placement = True
            if program:
                patches.result.sessions.append({"requested": requested, "used": used})
                # A run killed while its session starts says so (and with which filters).
                patches.status.write("session", master=used, device_filters=list(merged.device_filters))
            original_init(session, used, graph, merged)

        def run(session: Any, *args: Any, **kwargs: Any) -> Any:
            if not patches._counts_now():
                return original_run(session, *args, **kwargs)
            patches._note_gpu_ops(session.graph)
            patches._count(session.graph)
            patches.depth += 1
            try:
                return original_run(session, *args, **kwargs)
            finally:
                patches.depth -= 1

        BaseSession.__init__ = init
        BaseSession.run = run

    def _note_gpu_ops(self, graph: Any) -> None:
        if not self.no_gpu or self.gpu_noted:
            return
        pinned = [op for op in graph.get_operations() if "GPU" in op.device.upper()]
        if pinned:
            self.gpu_noted = True
            devices = sorted({self.tf.DeviceSpec.from_string(op.device).to_string() for op in pinned})
            self.result.stubbed.append(
                f"no GPU on this machine: {len(pinned)} op(s) pinned to {', '.join(devices[:4])}"
                f"{', ...' if len(devices) > 4 else ''} run on the task's CPU (allow_soft_placement); "
                "their device strings, which are compared, are the program's")

    def _counts_now(self) -> bool:
        return self.counting and self.depth == 0 and threading.current_thread() is threading.main_thread()

    def _count(self, graph: Any) -> None:
        if self.result.session_runs >= self.request.steps:
            self.cut_graph = graph
            raise StepLimitReached()
        self.result.session_runs += 1
        self.status.write("run", runs=self.result.session_runs)

    def _counted(self, method: Any) -> Any:
        patches = self

        def wrapper(this: Any, *args: Any, **kwargs: Any) -> Any:
            if not patches._counts_now():
                return method(this, *args, **kwargs)
            patches._count(getattr(this, "graph", None))
            patches.depth += 1
            try:
                return method(this, *args, **kwargs)
            finally:
                patches.depth -= 1

        return wrapper

    def _uncounted(self, method: Any) -> Any:
        patches = self

        def wrapper(this: Any, *args: Any, **kwargs: Any) -> Any:
            patches.depth += 1
            try:
                return method(this, *args, **kwargs)
            finally:
                patches.depth -= 1

        return wrapper


def _program_end(how: str, error: BaseException, program_path: str) -> ProgramEnd:
    line = 0
    for frame in traceback.extract_tb(error.__traceback__):
        if program_path and os.path.abspath(frame.filename) == program_path and frame.lineno is not None:
            line = frame.lineno  # the innermost frame in the program
    if line == 0 and isinstance(error, SyntaxError) and error.filename and os.path.abspath(error.filename) == program_path:
        line = error.lineno or 0
    frames = traceback.extract_tb(error.__traceback__)
    # Start the traceback at the program's first frame: verify's and runpy's frames are noise.
    first = next((index for index, frame in enumerate(frames)
                  if program_path and os.path.abspath(frame.filename) == program_path), 0)
    text = "".join(["Traceback (most recent call last):\n", *traceback.format_list(frames[first:]),
                    *traceback.format_exception_only(error)])
    root = os.path.dirname(program_path) + os.sep if program_path else None
    own = [frame for frame in frames if root and frame.lineno is not None and _in_program_folder(frame.filename, root)]
    return ProgramEnd(
        how=how,
        error_type=type(error).__name__,
        message=str(error)[:MESSAGE_LIMIT],
        line=line,
        traceback=text[-6000:],
        site_file=os.path.abspath(own[-1].filename) if own else None,
        site_line=(own[-1].lineno or 0) if own else 0,
    )


def _in_program_folder(filename: str, root: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(root) and "site-packages" not in path and "dist-packages" not in path


def run_program(request: ChildRequest, status: Status) -> ProgramEnd:
    program_path = os.path.abspath(request.path) if request.path else ""
    sys.argv = [request.path or request.entry or "program", *request.args]
    status.write("program")
    try:
        if request.entry:
            import importlib

            module_name, function_name = request.entry.split(":", 1)
            if request.path:
                sys.path.insert(0, os.path.dirname(program_path))
            sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
            program_path = os.path.abspath(getattr(module, "__file__", "") or program_path)
            getattr(module, function_name)()
        else:
            sys.path.insert(0, os.path.dirname(program_path))
            runpy.run_path(program_path, run_name="__main__")
    except StepLimitReached:
        return ProgramEnd(how="steps")
    except ContribUnavailable as missing:
        end = _program_end("unavailable", missing, program_path)
        end.error_type = None
        return end
    except ServerJoinCalled:
        return ProgramEnd(how="join")
    except SystemExit as exit_request:
        code = exit_request.code
        if code is None or code == 0:
            return ProgramEnd(how="exit", exit_code=0)
        number = code if isinstance(code, int) else 1
        end = _program_end("exit", exit_request, program_path)
        end.exit_code = number
        end.message = str(code)
        return end
    except BaseException as error:  # noqa: BLE001 - whatever the program raised is an observation
        if isinstance(error, KeyboardInterrupt):
            raise
        return _program_end("exception", error, program_path)
    return ProgramEnd(how="finished")


def _collection_keys(tf: Any) -> dict[str, str]:
    keys = tf.compat.v1.GraphKeys
    return dict(zip(VARIABLE_COLLECTIONS, (keys.GLOBAL_VARIABLES, keys.LOCAL_VARIABLES,
                                           keys.TRAINABLE_VARIABLES, keys.MOVING_AVERAGE_VARIABLES)))


def _variables_of(tf: Any, graph: Any) -> list[Any]:
    """Every variable of the graph: global, local, then those only in the other collections, then
    those only in a collection of the program's own (`tf.Variable(..., collections=["mine"])`)."""
    from tensorflow.python.ops import variables as variables_lib

    ordered: list[Any] = []
    seen: set[int] = set()
    standard = list(_collection_keys(tf).values())
    own = sorted(key for key in graph.get_all_collection_keys() if isinstance(key, str) and key not in standard)
    for key in standard + own:
        for variable in graph.get_collection(key):
            if id(variable) not in seen and isinstance(variable, variables_lib.Variable):
                seen.add(id(variable))
                ordered.append(variable)
    return ordered


def _collections_of(tf: Any, graph: Any, variable: Any) -> list[str]:
    return [label for label, key in _collection_keys(tf).items()
            if any(item is variable for item in graph.get_collection(key))]


def observe(tf: Any, graph: Any, cluster: "LocalCluster | ExternalCluster", patches: Patches, result: ChildResult, status: Status) -> None:
    variables = _variables_of(tf, graph)
    observed = []
    for variable in variables:
        name = variable.name[:-2] if variable.name.endswith(":0") else variable.name
        shape = variable.shape.as_list() if variable.shape.rank is not None else None
        observed.append(ObservedVariable(
            name=name, shape=shape, dtype=variable.dtype.base_dtype.name, device=variable.device, placement=None,
            collections=_collections_of(tf, graph, variable), op_type=variable.op.type,
        ))
    result.variables = observed
    if not variables:
        return
    status.write("observe", variables=len(variables))
    patches.counting = False
    if graph.finalized:
        graph._unsafe_unfinalize()  # a MonitoredSession finalized it; verify only adds read ops
    v1 = tf.compat.v1
    try:
        with graph.as_default():
            uninitialized_op = v1.report_uninitialized_variables(variables)
            session = v1.Session(graph=graph)  # patched: the master, with device filters
            try:
                names = {item.decode() for item in session.run(uninitialized_op)}
                to_initialize = [variable for variable in variables if variable.op.name in names]
                if to_initialize:
                    session.run(v1.variables_initializer(to_initialize))
                result.initialized = len(to_initialize)
                options = v1.RunOptions(output_partition_graphs=True)
                metadata = v1.RunMetadata()
                session.run([variable.value() for variable in variables], options=options, run_metadata=metadata)
                result.read_back = len(variables)
            finally:
                session.close()
    except Exception as error:  # noqa: BLE001 - e.g. "Cannot assign a device": an observation
        result.observe_error = _program_end("exception", error, "")
        return
    placed = {node.name: node.device for partition in metadata.partition_graphs for node in partition.node}
    for variable, record in zip(variables, observed):
        record.placement = placed.get(variable.op.name)


def _program_root(request: ChildRequest) -> str:
    return os.path.dirname(os.path.abspath(request.path)) if request.path else os.getcwd()


def _install_tf1(tf: Any, request: ChildRequest, result: ChildResult) -> Any:
    from scopelint.verify import tf1

    stubs: dict[str, Any] = {}
    if request.stub_data:
        from scopelint.verify import stubs as stub_data

        stubs = stub_data.tf1_modules(result.stubbed)
    hook = tf1.install(tf, _program_root(request), stubs)
    result.tf1.append("tensorflow -> tensorflow.compat.v1 (v2 behaviour disabled) for the program's imports")
    return hook


def _watched(request: ChildRequest, result: ChildResult, run: Any) -> ProgramEnd:
    """Run the program, recording which of `watch_lines` of its file executed (--confirm: a finding's
    line never executed is "not reached", not refuted).  Only the program's own frames are traced."""
    if not request.watch_lines:
        return run()
    wanted: dict[str, set[int]] = {}
    for filename, line in request.watch_lines:
        wanted.setdefault(os.path.abspath(filename), set()).add(int(line))
    reached: set[tuple[str, int]] = set()
    ours: dict[str, set[int] | None] = {}  # co_filename -> its watched lines (abspath once per file)

    def tracer(lines: set[int], filename: str) -> Any:
        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line" and frame.f_lineno in lines:
                reached.add((filename, frame.f_lineno))
            return local
        return local

    def global_trace(frame: Any, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        if filename not in ours:
            ours[filename] = wanted.get(os.path.abspath(filename))
        lines = ours[filename]
        if lines is None:
            return None
        if frame.f_lineno in lines:
            reached.add((os.path.abspath(filename), frame.f_lineno))
        return tracer(lines, os.path.abspath(filename))

    sys.settrace(global_trace)
    try:
        return run()
    finally:
        sys.settrace(None)
        result.lines_reached = [[filename, line] for filename, line in sorted(reached)]


def _wait_for_host_cluster(request: ChildRequest, status: Status) -> None:
    """A worker copy: wait until the host's servers listen, then take their addresses."""
    assert request.cluster_file is not None and request.task_index is not None
    status.write("wait cluster")
    path = Path(request.cluster_file)
    while not path.exists():  # the host renames the file into place once complete; it kills us if it fails
        time.sleep(CLUSTER_FILE_POLL_SECONDS)
    published = json.loads(path.read_text(encoding="utf-8"))
    if published.get("error"):
        raise RuntimeError(f"the host could not start the cluster: {published['error']}")
    request.cluster_addresses = published["cluster"]
    request.target = "grpc://" + published["cluster"][request.worker_job][request.task_index]


def _tf_config(request: ChildRequest) -> str:
    """TF_CONFIG for one worker copy: the cluster's addresses and this copy's task."""
    return json.dumps({"cluster": request.cluster_addresses,
                       "task": {"type": request.worker_job, "index": request.task_index}})


# The child's address space (RLIMIT_AS, inherited by what it starts), so that a program that
# allocates without bound gets MemoryError (or dies) instead of exhausting the machine.  TensorFlow
# reserves much more address space than it uses (two in-process servers: VmPeak 4.1 GB, RSS 0.7 GB),
# so the cap is an allowance for it plus half the physical memory.  SCOPELINT_VERIFY_MAX_MEMORY
# (bytes) sets another cap; 0 turns it off.
MEMORY_LIMIT_ENV = "SCOPELINT_VERIFY_MAX_MEMORY"
TENSORFLOW_ADDRESS_SPACE = 8 * 1024**3


def cap_memory() -> int | None:
    """Lower RLIMIT_AS to the cap; returns it (None when there is none)."""
    import resource

    configured = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if configured:
        limit = int(configured)
    else:
        try:
            physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):
            return None
        limit = TENSORFLOW_ADDRESS_SPACE + physical // 2
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if limit <= 0:
        return None
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit


def main(request_path: str) -> int:
    cap_memory()
    raw = json.loads(Path(request_path).read_text(encoding="utf-8"))
    request = ChildRequest(**raw)
    if request.role == "host":
        from scopelint.verify.host import run_host

        return run_host(request)
    status = Status(request.status_path)
    status.write("import")
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    if request.environment:
        os.environ.update(request.environment)
    # A worker copy imports TensorFlow while the host does, then waits for the host's servers.
    if request.cluster_file is not None:
        _wait_for_host_cluster(request, status)
    if request.task_index is not None and request.cluster_addresses:
        os.environ["TF_CONFIG"] = _tf_config(request)
    result = ChildResult(program=ProgramEnd(how="finished"))
    cluster: LocalCluster | ExternalCluster
    if request.target is not None:
        cluster = ExternalCluster(tf, request, result, status, request.target, request.cluster_addresses,
                                  "host" if request.cluster_file is not None else "target")
    else:
        cluster = LocalCluster(tf, request, result, status)
    patches = Patches(tf, cluster, request, result, status)
    patches.install()
    # The program's checkpoints, logs and deletions go to the run's scratch folder (writes.py).
    from scopelint.verify.writes import WriteGuard

    work = os.path.dirname(os.path.abspath(request.result_path))
    guard = WriteGuard(os.path.join(work, "writes"), work)
    guard.install(tf)
    hook = _install_tf1(tf, request, result) if request.tf1 else None
    try:
        result.program = _watched(request, result, lambda: run_program(request, status))
    finally:
        result.writes = guard.summary()
    if hook is not None:
        import builtins

        builtins.__import__ = hook.original
        result.tf1.extend(hook.contrib.used)
    patches.counting = False
    status.write("ended", how=result.program.how)
    graph = patches.cut_graph if patches.cut_graph is not None else tf.compat.v1.get_default_graph()
    try:
        if not cluster.started:
            cluster.ensure_started()
        observe(tf, graph, cluster, patches, result, status)
    except Exception as error:  # noqa: BLE001
        result.observe_error = _program_end("exception", error, "")
    if not result.cluster_source:
        result.cluster_source = "none"
    Path(request.result_path).write_text(json.dumps(asdict(result)), encoding="utf-8")
    status.write("done")
    # Servers have no clean shutdown (tf1-semantics 5.2): leave without running their finalizers;
    # the parent ends the whole process group anyway.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
