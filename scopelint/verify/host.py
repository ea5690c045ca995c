"""The host of `scopelint verify --workers N`: one cluster, started once, and N copies of the program.

The parent starts this host as its one child (`role="host"`), so the host and everything it starts
share the child's process group and, where the system allows, its private network namespace: the
copies reach the host's servers on the namespace's loopback, and the parent's kill-by-PID of the
child's tree ends them all.  In order:
1. start the N copies at once (each `scopelint.verify.child` with its task index, in its own process
   group), so that their TensorFlow imports overlap with the host's;
2. unless `--target` names an existing cluster, import TensorFlow, start every task of the layout as
   an in-process server on 127.0.0.1, and publish the addresses in a file the copies wait for;
3. wait for the copies until the host's deadline, kill every copy still running (by PID, with its
   process group and descendants), and write one result holding each copy's own result.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from scopelint.verify.plan import ChildRequest, substitute_task
from scopelint.verify.runner import OUTPUT_TAIL_CHARS, end_process_tree, read_status_lines

POLL_SECONDS = 0.05


class _Status:
    def __init__(self, path: str) -> None:
        self._file = open(path, "a", encoding="utf-8")

    def write(self, phase: str, **data: Any) -> None:
        self._file.write(json.dumps({"phase": phase, "time": time.time(), **data}) + "\n")
        self._file.flush()


def _copy_request(request: ChildRequest, index: int, folder: Path) -> ChildRequest:
    own_cluster = request.target is None
    target = request.target
    known = request.cluster_addresses or {}
    if not own_cluster and index < len(known.get(request.worker_job, [])):
        target = "grpc://" + known[request.worker_job][index]  # the copy's own worker task is its master
    return replace(
        request, role="program", workers=1, timeout=0.0, task_index=index,
        args=substitute_task(request.args, index),
        status_path=str(folder / f"status-{index}.jsonl"), result_path=str(folder / f"result-{index}.json"),
        cluster_file=str(folder / "cluster.json") if own_cluster else None, target=target,
    )


def _tail(path: Path) -> str:
    try:
        return path.read_bytes()[-OUTPUT_TAIL_CHARS:].decode("utf-8", errors="replace")
    except OSError:
        return ""


def _start_cluster(request: ChildRequest) -> dict[str, list[str]]:
    """Import TensorFlow and start every task of the layout (the child's own LocalCluster)."""
    import tensorflow as tf

    from scopelint.verify.child import ChildResult, LocalCluster, ProgramEnd, Status

    tf.compat.v1.disable_eager_execution()
    result = ChildResult(program=ProgramEnd(how="finished"))
    cluster = LocalCluster(tf, request, result, Status(request.status_path))
    layout = request.cluster_override or request.fallback_cluster
    # Worker tasks without a copy are not run (nobody would run them): a cluster with a worker down.
    cluster.absent = {(request.worker_job, index) for index in range(request.workers, layout.get(request.worker_job, 0))}
    cluster.ensure_started()  # writes the "cluster" status line
    return result.cluster


def run_host(request: ChildRequest) -> int:
    status = _Status(request.status_path)
    status.write("host", workers=request.workers)
    folder = Path(request.result_path).parent / "copies"
    folder.mkdir(exist_ok=True)
    started = time.monotonic()
    deadline = started + request.timeout if request.timeout > 0 else None
    copies: list[tuple[ChildRequest, subprocess.Popen[bytes], float]] = []
    timed_out: set[int] = set()
    finished_at: dict[int, float] = {}  # when the host saw each copy end (a copy may end before it looks)
    combined: dict[str, Any] = {"role": "host", "cluster": {}, "cluster_source": "", "cluster_error": None, "workers": []}
    try:
        for index in range(request.workers):
            copy = _copy_request(request, index, folder)
            request_file = folder / f"request-{index}.json"
            request_file.write_text(json.dumps(asdict(copy)), encoding="utf-8")
            with open(folder / f"stdout-{index}", "wb") as stdout, open(folder / f"stderr-{index}", "wb") as stderr:
                process = subprocess.Popen(
                    [sys.executable, "-m", "scopelint.verify.child", str(request_file)],
                    stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, start_new_session=True,
                )
            copies.append((copy, process, time.monotonic()))
        status.write("copies", pids=[process.pid for _, process, _ in copies])
        if request.target is None:
            published: dict[str, Any]
            try:
                combined["cluster"] = _start_cluster(request)
                layout = request.cluster_override or request.fallback_cluster
                combined["absent"] = [f"/job:{request.worker_job}/task:{index}"
                                      for index in range(request.workers, layout.get(request.worker_job, 0))]
                combined["cluster_source"] = "option" if request.cluster_override is not None else "fallback"
                published = {"cluster": combined["cluster"]}
            except Exception as error:  # noqa: BLE001 - reported; the copies stop on it
                combined["cluster_error"] = str(error)[:2000]
                published = {"error": combined["cluster_error"]}
            staging = folder / "cluster.json.partial"
            staging.write_text(json.dumps(published), encoding="utf-8")
            os.replace(staging, folder / "cluster.json")  # the copies never see half a file
        else:
            combined["cluster"] = request.cluster_addresses or {}
            combined["cluster_source"] = "target"
        status.write("wait")
        running = set(range(len(copies)))
        while running:
            for index in sorted(running):
                if copies[index][1].poll() is not None:
                    finished_at[index] = time.monotonic()
                    running.discard(index)
            if running and deadline is not None and time.monotonic() >= deadline:
                timed_out.update(running)
                break
            time.sleep(POLL_SECONDS)
    finally:
        for _, process, _ in copies:
            end_process_tree(process)  # every copy, its process group and its descendants, by PID
    for index, (copy, process, began) in enumerate(copies):
        result_path = Path(copy.result_path)
        result = None
        if result_path.exists() and index not in timed_out:
            try:
                result = json.loads(result_path.read_text(encoding="utf-8"))
            except ValueError:
                result = None
        combined["workers"].append({
            # The pid as the host sees it: inside a private PID namespace it means nothing outside.
            "task_index": index, "args": copy.args, "pid": process.pid, "result": result,
            "status": read_status_lines(Path(copy.status_path)), "exit_status": process.returncode,
            "timed_out": index in timed_out, "seconds": finished_at.get(index, time.monotonic()) - began,
            "stdout_tail": _tail(folder / f"stdout-{index}"), "stderr_tail": _tail(folder / f"stderr-{index}"),
        })
    Path(request.result_path).write_text(json.dumps(combined), encoding="utf-8")
    status.write("done")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # the host's servers have no clean shutdown (tf1-semantics 5.2)
