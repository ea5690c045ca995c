"""What to run and on which cluster: the parent's preparation for a verify run.  No TensorFlow.

The cluster comes, in this order, from `--cluster`, from the program's own `ClusterSpec` (captured
in the child when the program builds it), or from this fallback: 2 ps tasks and 1 worker, grown to
cover every job and task the prediction places a variable on (a `ps_tasks=3` setter needs 3 ps).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from pathlib import Path

from scopelint.model.devices import DeviceSpec, DeviceSpecError
from scopelint.trace import Trace

DEFAULT_CLUSTER = {"ps": 2, "worker": 1}
MAX_TASKS_PER_JOB = 64  # a bound on servers started in one process
_JOB_NAME = re.compile(r"^[a-z][a-z0-9_]*$")  # what TensorFlow accepts as a job name
_ADDRESS = re.compile(r"^[A-Za-z0-9_.\-]+:[0-9]{1,5}$|^\[[0-9A-Fa-f:]+\]:[0-9]{1,5}$")  # host:port, [v6]:port
TASK_PLACEHOLDER = "{task}"  # in the program's arguments: replaced by each worker copy's task index
MAX_WORKERS = 16
# `if __name__ == "__main__":` with the literal replaced by one of equal length, so that the
# prediction for `--entry` (the module imported, not run) keeps every line and column.
_MAIN_LITERAL = re.compile(r"""(["'])__main__\1""")


class PlanError(ValueError):
    """A usage problem: exit code 2."""


@dataclass
class ChildRequest:
    """What the parent asks the child (scopelint.verify.child) to do; sent as JSON."""

    path: str  # the program file ("" with an entry whose module is found on sys.path)
    args: list[str]
    entry: str | None  # "module:function"
    cluster_override: dict[str, int] | None  # --cluster: job -> task count
    fallback_cluster: dict[str, int]  # used when the program builds no ClusterSpec
    steps: int
    status_path: str
    result_path: str
    # "program": run the program once.  "host": start the cluster once and run `workers` copies of
    # the program as child processes against it (scopelint.verify.host).
    role: str = "program"
    workers: int = 1
    worker_job: str = "worker"
    timeout: float = 0.0  # the host's budget for its copies (0: none; the parent's timeout still holds)
    # A copy of several: its index in the worker job, and the file in which the host publishes the
    # cluster's addresses once its servers listen.
    task_index: int | None = None
    cluster_file: str | None = None
    # --target: connect to a cluster that already exists; start no server.
    target: str | None = None
    cluster_addresses: dict[str, list[str]] | None = None  # --cluster with addresses: job -> "host:port" by task
    # TF1 mode (verify/tf1.py): `tensorflow` is compat.v1 for the program's imports, contrib mapped.
    tf1: bool = False
    environment: dict[str, str] | None = None  # set in the child before the program starts (--confirm)
    watch_lines: list[list[Any]] | None = None  # [file, line] whose execution the child records (--confirm)
    stub_data: bool = False  # --stub-data: stand-ins for the data reads verify knows (verify/stubs.py)


@dataclass(frozen=True)
class Program:
    path: str  # the file scopelint analyses and the child runs (or imports, with an entry)
    entry: str | None  # "module:function"
    prediction_source: str  # the source the analysis reads


def parse_cluster_option(text: str) -> dict[str, int]:
    """`--cluster` JSON: {"ps": 2, "worker": 1} or {"ps": ["host:port", ...], ...}."""
    try:
        raw = json.loads(text)
    except ValueError as problem:
        raise PlanError(f"--cluster is not JSON: {problem}") from None
    if not isinstance(raw, dict) or not raw:
        raise PlanError('--cluster must be a JSON object such as {"ps": 2, "worker": 1}')
    cluster: dict[str, int] = {}
    for job, tasks in raw.items():
        count = len(tasks) if isinstance(tasks, list) else tasks
        if not isinstance(job, str) or not _JOB_NAME.match(job):
            raise PlanError(f"--cluster: {job!r} is not a valid job name")
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_TASKS_PER_JOB:
            raise PlanError(f"--cluster: job {job!r} needs 1 to {MAX_TASKS_PER_JOB} tasks (a count or a list of addresses)")
        cluster[job] = count
    return cluster


def parse_cluster_addresses(text: str) -> dict[str, list[str]] | None:
    """The addresses of `--cluster` when every job lists them ({"ps": ["host:port", ...]}), else None."""
    raw = json.loads(text)
    if not isinstance(raw, dict) or not all(isinstance(tasks, list) for tasks in raw.values()):
        return None
    addresses: dict[str, list[str]] = {}
    for job, tasks in raw.items():
        if not all(isinstance(address, str) and _ADDRESS.match(address) for address in tasks):
            raise PlanError(f"--cluster: job {job!r} needs addresses as 'host:port' strings")
        addresses[job] = list(tasks)
    return addresses


def parse_target(text: str) -> str:
    """`--target grpc://HOST:PORT` (the scheme may be left out)."""
    address = text[len("grpc://"):] if text.startswith("grpc://") else text
    if "://" in address or not _ADDRESS.match(address):
        raise PlanError(f"--target must be grpc://HOST:PORT, got {text!r}")
    return "grpc://" + address


def substitute_task(args: list[str], task_index: int) -> list[str]:
    """The program's arguments for one worker copy: the literal `{task}` becomes its index."""
    return [arg.replace(TASK_PLACEHOLDER, str(task_index)) for arg in args]


def literal_cluster(trace: Trace) -> dict[str, int] | None:
    """The literal, complete cluster a setter of the program was given (`cluster=ClusterSpec({...})`)."""
    for setter in trace.setters:
        if setter.cluster and all(isinstance(count, int) and count >= 1 for count in setter.cluster.values()):
            if all(_JOB_NAME.match(job) for job in setter.cluster):
                return {job: min(MAX_TASKS_PER_JOB, int(count)) for job, count in setter.cluster.items()}  # type: ignore[arg-type]
    return None


def workers_layout(base: dict[str, int], workers: int, worker_job: str = "worker") -> dict[str, int]:
    """The cluster for `--workers N`: `base` with the worker job grown to at least N tasks."""
    layout = dict(base)
    layout[worker_job] = max(layout.get(worker_job, 0), workers)
    return layout


def fallback_cluster(trace: Trace) -> dict[str, int]:
    """The default cluster, grown to every job and task the predicted devices name."""
    cluster = dict(DEFAULT_CLUSTER)
    for record in trace.final_variables():
        if not record.device:
            continue
        try:
            spec = DeviceSpec.parse(record.device)
        except DeviceSpecError:
            continue
        if spec.job is None or not _JOB_NAME.match(spec.job):
            continue
        needed = spec.task + 1 if isinstance(spec.task, int) else 1
        cluster[spec.job] = min(MAX_TASKS_PER_JOB, max(cluster.get(spec.job, 0), needed))
    # A setter's ps task count says how many tasks it cycles over, even where the prediction could
    # not say which task a variable got (`/job:ps/task:?`).
    for setter in trace.setters:
        job = _setter_job(setter.ps_device)
        if setter.ps_tasks and job is not None:
            cluster[job] = min(MAX_TASKS_PER_JOB, max(cluster.get(job, 0), setter.ps_tasks))
    return cluster


def _setter_job(ps_device: str | None) -> str | None:
    try:
        job = DeviceSpec.parse(ps_device).job if ps_device else None
    except DeviceSpecError:
        return None
    return job if job is not None and _JOB_NAME.match(job) else None


def _module_file(module: str, search: list[Path]) -> Path | None:
    """Find a module's source without importing it (importing would run the program here)."""
    parts = module.split(".")
    for folder in search:
        base = folder.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def plan_program(path: str | None, entry: str | None) -> Program:
    if entry is not None:
        module, _, function = entry.partition(":")
        if not module or not function.isidentifier() or not all(part.isidentifier() for part in module.split(".")):
            raise PlanError(f"--entry must be module:function, got {entry!r}")
        search = [Path(path).resolve().parent] if path else []
        search.append(Path.cwd())
        found = Path(path) if path and Path(path).suffix == ".py" and Path(path).stem == module.split(".")[-1] else None
        found = found or _module_file(module, search)
        if found is None:
            raise PlanError(f"--entry: cannot find module {module!r} (searched {', '.join(map(str, search))})")
        source = _read(found)
        # The module is imported, not run: its __main__ block stays silent; then the builder runs.
        prediction = _MAIN_LITERAL.sub(lambda match: match[1] + "_NOMAIN_" + match[1], source)
        prediction = prediction.rstrip("\n") + f"\n{function}()\n"
        return Program(path=str(found), entry=entry, prediction_source=prediction)
    if path is None:
        raise PlanError("verify needs a FILE or --entry module:function")
    source = _read(Path(path))
    return Program(path=path, entry=None, prediction_source=source)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as problem:
        raise PlanError(f"{path}: {problem}") from None
