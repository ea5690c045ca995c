"""`scopelint verify --workers N` and `--target grpc://HOST:PORT`: real runs against one shared
cluster (the host's, or one this test starts), and the pure parts on their own.

The real runs start in parallel once per module; a cluster for `--target` is started by the test as
its own process (tests/cluster_server.py) on 127.0.0.1 and killed by PID at the end.
"""
from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator

import pytest

from scopelint import cli
from scopelint.verify import COMPARED, TIMED_OUT, VerifyOptions, VerifyReport, VerifyUsageError, WorkersReport, verify
from scopelint.verify.compare import MATCHED, UNKNOWN
from scopelint.verify.plan import (
    PlanError, parse_cluster_addresses, parse_target, substitute_task, workers_layout,
)
from scopelint.verify.report import format_json, format_text
from scopelint.verify.workers import (
    DEVICE_DIFFERS, MISSING, SAME, SHAPE_DIFFERS, WorkerView, compare_workers, cross_agree, relative_device,
)

TESTS = Path(__file__).resolve().parent
FIXTURES = TESTS / "fixtures" / "verify"
MARKER = f"scopelint-workers-test-{uuid.uuid4().hex}"
CLUSTER_START_SECONDS = 60.0
HANG_TIMEOUT_SECONDS = 30.0  # room for three TensorFlow imports at once on a loaded 2-core machine

needs_tf = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed")


def _survivors(marker: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in command:
                found.append(f"{entry}: {command}")
    return found


class ExistingCluster:
    """A cluster this test starts in its own process (and process group), killed by PID."""

    def __init__(self) -> None:
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
        self.process = subprocess.Popen(
            [sys.executable, str(TESTS / "cluster_server.py"), json.dumps({"ps": 3, "worker": 1}), MARKER + "-cluster"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True,
        )
        self.cluster: dict[str, list[str]] = {}
        self.lock = threading.Lock()  # two runs wait for the one line the cluster prints

    def wait_ready(self) -> dict[str, list[str]]:
        with self.lock:
            if not self.cluster:
                assert self.process.stdout is not None
                ready, _, _ = select.select([self.process.stdout], [], [], CLUSTER_START_SECONDS)
                line = self.process.stdout.readline() if ready else b""
                if not line:
                    raise RuntimeError("the test cluster did not start")
                self.cluster = json.loads(line)["cluster"]
            return self.cluster

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.kill()
        self.process.wait()


class Runs:
    def __init__(self, reports: dict[str, Any], cluster: dict[str, list[str]], cluster_alive_after: bool) -> None:
        self.reports = reports
        self.cluster = cluster
        self.cluster_alive_after = cluster_alive_after


@pytest.fixture(scope="module")
def runs() -> Iterator[Runs]:
    existing = ExistingCluster()
    try:
        def on_target(with_addresses: bool, **extra: Any) -> VerifyReport:
            cluster = existing.wait_ready()
            return verify(VerifyOptions(  # type: ignore[return-value]
                path=str(FIXTURES / "ps_worker_adam.py"), target="grpc://" + cluster["worker"][0], timeout=60,
                cluster_addresses=cluster if with_addresses else None, **extra))

        jobs = {
            "hang": lambda: verify(VerifyOptions(path=str(FIXTURES / "hangs_with_children.py"), workers=2,
                                                 args=[MARKER + "-hang"], timeout=HANG_TIMEOUT_SECONDS)),
            "agree": lambda: verify(VerifyOptions(path=str(FIXTURES / "between_graph_workers.py"), workers=2,
                                                  args=["--task_index={task}", "--run_id=" + MARKER + "-agree"])),
            "differ": lambda: verify(VerifyOptions(path=str(FIXTURES / "worker_dependent_branch.py"), workers=2)),
            "target": lambda: on_target(False),
            "target with addresses": lambda: on_target(True, steps=1),
        }
        with ThreadPoolExecutor(max_workers=2) as pool:  # the hanging run beside the others, one at a time
            futures = {name: pool.submit(job) for name, job in jobs.items()}
            reports = {name: future.result() for name, future in futures.items()}
        alive = existing.process.poll() is None
        yield Runs(reports, existing.cluster, alive)
    finally:
        existing.kill()


# ----------------------------------------------------------------------------------------- real runs


@needs_tf
@pytest.mark.tf
def test_two_workers_build_the_same_variables_on_one_shared_cluster(runs: Runs) -> None:
    report = runs.reports["agree"]
    text = format_text(report)
    assert isinstance(report, WorkersReport) and report.outcome == COMPARED, text
    assert report.agree and report.exit_code == 0, text
    assert report.cluster_source == "setter" and len(report.cluster["ps"]) == 2 and len(report.cluster["worker"]) == 2
    assert [worker.options.args[0] for worker in report.workers] == ["--task_index=0", "--task_index=1"]  # type: ignore[union-attr]
    masters = []
    for index, worker in enumerate(report.workers):
        result = worker.result
        assert result is not None and worker.agree, text
        assert result["program"]["how"] == "steps" and result["cluster_source"] == "host"
        # Each copy's session went to its own worker task of the one cluster.
        assert result["master"] == "grpc://" + report.cluster["worker"][index]
        assert result["cluster"] == report.cluster
        masters.append(result["master"])
    assert len(set(masters)) == 2
    # The ps state is shared: the chief initialized every variable, so the other copy (whose
    # MonitoredTrainingSession waited for the chief) found nothing left to initialize.
    assert report.workers[1].result["initialized"] == 0  # type: ignore[index]
    assert [row.status for row in report.cross] == [SAME] * 9
    assert "Agree: 2 workers built the same 9 variables on the same devices; each agrees with the prediction." in text
    assert not Path(f"/proc/{report.child.child_pid}").exists()
    assert _survivors(MARKER + "-agree") == []
    data = json.loads(format_json(report))
    assert data["agree"] is True and data["workers_agree"] is True and len(data["workers"]) == 2
    assert data["workers"][1]["args"] == ["--task_index=1", "--run_id=" + MARKER + "-agree"]


@needs_tf
@pytest.mark.tf
def test_a_worker_dependent_branch_shows_the_workers_differ(runs: Runs) -> None:
    report = runs.reports["differ"]
    text = format_text(report)
    assert isinstance(report, WorkersReport) and report.outcome == COMPARED, text
    assert not report.agree and not report.workers_agree and report.exit_code == 1, text
    rows = {row.name: row for row in report.cross}
    # The task index came from TF_CONFIG: only copy 0 built the chief's variable, which moved the
    # round robin, so the shared names landed on different ps tasks in the two copies.
    assert rows["summary_scale"].status == MISSING and rows["summary_scale"].per_worker[1] is None
    assert rows["weights"].status == DEVICE_DIFFERS
    assert [cell["device"] for cell in rows["weights"].per_worker] == ["/job:ps/task:1", "/job:ps/task:0"]  # type: ignore[index]
    assert [cell["device"] for cell in rows["bias"].per_worker] == ["/job:ps/task:0", "/job:ps/task:1"]  # type: ignore[index]
    assert "the workers differ: 0 of 3 variables the same, 1 missing on some, 2 device differs" in text
    # Against the prediction each copy is open where the analysis could not know the task index.
    assert {row.status for row in report.workers[0].comparison.rows} <= {UNKNOWN, MATCHED}  # type: ignore[union-attr]


@needs_tf
@pytest.mark.tf
def test_a_hanging_copy_is_killed_with_everything_it_started(runs: Runs) -> None:
    report = runs.reports["hang"]
    assert isinstance(report, WorkersReport)
    text = format_text(report)
    # The host stopped the copies at its own deadline, before the parent's, and still reported.
    assert report.outcome == COMPARED, text
    assert [worker.outcome for worker in report.workers] == [TIMED_OUT, TIMED_OUT], text
    # Both copies were running the program, so their helper processes had been started.
    assert [worker.child.last_phase for worker in report.workers] == ["program", "program"], text
    assert report.child.seconds < HANG_TIMEOUT_SECONDS + 5
    assert report.exit_code == 1 and "2 of 2 workers gave no result" in text
    assert _survivors(MARKER + "-hang") == []
    assert not Path(f"/proc/{report.child.child_pid}").exists()


@needs_tf
@pytest.mark.tf
def test_target_runs_against_an_existing_cluster_and_starts_no_server(runs: Runs) -> None:
    for name in ("target", "target with addresses"):
        report = runs.reports[name]
        text = format_text(report)
        assert isinstance(report, VerifyReport) and report.agree and report.exit_code == 0, text
        result = report.result
        assert result is not None
        assert result["master"] == "grpc://" + runs.cluster["worker"][0]
        assert all(session["used"] == result["master"] for session in result["sessions"])
        assert not report.child.isolation.private_network and "--target" in report.child.isolation.reason
        assert "verify started no server" in text
    # Without addresses the jobs come from the program's ClusterSpec (its addresses stay unmapped);
    # with --cluster addresses they are mapped onto the existing cluster's.
    assert runs.reports["target"].result["cluster_source"] == "program"  # type: ignore[index]
    mapped = runs.reports["target with addresses"].result
    assert mapped is not None and mapped["cluster_source"] == "target" and mapped["cluster"] == runs.cluster
    assert mapped["address_map"]["/job:ps/task:2 localhost:2224"] == runs.cluster["ps"][2]
    # verify ended only its own processes: the existing cluster outlived both runs.
    assert runs.cluster_alive_after


# ----------------------------------------------------------------------------------------- pure parts


def test_relative_device_marks_only_the_copys_own_task() -> None:
    assert relative_device("/job:worker/task:1", "worker", 1) == "/job:worker/task:<own>"
    assert relative_device("/job:worker/replica:0/task:1/device:CPU:0", "worker", 1) == \
        "/job:worker/replica:0/task:<own>/device:CPU:0"
    assert relative_device("/job:worker/task:0", "worker", 1) == "/job:worker/task:0"
    assert relative_device("/job:ps/task:1", "worker", 1) == "/job:ps/task:1"
    assert relative_device("", "worker", 0) == ""


def _item(name: str, device: str, shape: list[int] | None = None) -> dict[str, Any]:
    return {"name": name, "shape": shape or [2], "dtype": "float32", "device": device, "placement": None}


def test_compare_workers() -> None:
    views = [
        WorkerView(0, [_item("w", "/job:ps/task:0"), _item("local", "/job:worker/task:0"), _item("s", "/job:ps/task:1")]),
        WorkerView(1, [_item("w", "/job:ps/task:0"), _item("local", "/job:worker/task:1"), _item("s", "/job:ps/task:1", [3]),
                       _item("extra", "/job:ps/task:0")]),
    ]
    rows = {row.name: row.status for row in compare_workers(views)}
    assert rows == {"w": SAME, "local": SAME, "s": SHAPE_DIFFERS, "extra": MISSING}
    assert not cross_agree(views, compare_workers(views))
    same = [WorkerView(0, [_item("w", "/job:ps/task:0")]), WorkerView(1, [_item("w", "/job:ps/task:0")])]
    assert cross_agree(same, compare_workers(same))
    # A copy without a result never lets the workers agree.
    silent = [*same, WorkerView(2, None)]
    assert not cross_agree(silent, compare_workers(silent))


def test_plan_helpers() -> None:
    assert substitute_task(["--task_index={task}", "--x", "a{task}b"], 1) == ["--task_index=1", "--x", "a1b"]
    assert workers_layout({"ps": 2, "worker": 1}, 3) == {"ps": 2, "worker": 3}
    assert workers_layout({"ps": 2, "worker": 4}, 2) == {"ps": 2, "worker": 4}
    assert parse_target("grpc://127.0.0.1:2222") == "grpc://127.0.0.1:2222"
    assert parse_target("localhost:2222") == "grpc://localhost:2222"
    for bad in ("http://h:1", "grpc://nohost", "grpc://h:port"):
        with pytest.raises(PlanError):
            parse_target(bad)
    assert parse_cluster_addresses('{"ps": ["127.0.0.1:1", "127.0.0.1:2"], "worker": ["h:3"]}') == \
        {"ps": ["127.0.0.1:1", "127.0.0.1:2"], "worker": ["h:3"]}
    assert parse_cluster_addresses('{"ps": 2}') is None
    with pytest.raises(PlanError):
        parse_cluster_addresses('{"ps": ["nope"]}')


def test_workers_and_target_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["verify", "t.py", "--workers", "2", "--target", "grpc://127.0.0.1:5", "--", "--task_index={task}"])
    assert (args.workers, args.target, args.program_args) == (2, "grpc://127.0.0.1:5", ["--task_index={task}"])
    for bad in (["--workers", "0"], ["--workers", "x"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["verify", "t.py", *bad])
    program = tmp_path / "p.py"
    program.write_text("import tensorflow.compat.v1 as tf\n")
    assert cli.main(["verify", str(program), "--target", "http://x:1"]) == 2
    assert "--target must be grpc://HOST:PORT" in capsys.readouterr().err
    with pytest.raises(VerifyUsageError):
        verify(VerifyOptions(path=str(program), workers=99))
    # Nothing listens on a port just closed: a usage error at once, not a session that waits for it.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with pytest.raises(VerifyUsageError, match="cannot connect"):
        verify(VerifyOptions(path=str(program), target=f"grpc://127.0.0.1:{closed_port}"))
