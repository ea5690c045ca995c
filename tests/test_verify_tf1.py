"""`verify` on real TF1 programs (issue 13): TF1 mode, honest exception matching, `--confirm`, and
TFS412 (a worker's session without device_filters) with its `--workers 2` demonstration.

The real runs (marked `tf`) start together once per module, two at a time; the tests read their
reports.  Each start imports TensorFlow in a child, so they are few.
"""
from __future__ import annotations

import importlib.util
import json
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from scopelint.analysis import analyze_source
from scopelint.diagnostics import Diagnostic
from scopelint.trace import Site
from scopelint.verify import (
    COMPARED, TIMED_OUT, UNAVAILABLE, VerifyOptions, VerifyReport, WorkersReport, run_for_args, verify,
)
from scopelint.verify.compare import (
    NOT_AS_PREDICTED, NOT_RAISED, PREDICTED, UNPREDICTED, Comparison, PredictedRaise, compare_exceptions,
)
from scopelint.verify.confirm import (
    CONFIRMED, NOT_REACHED, REFUTED, ConfirmReport, FindingCheck, _judge, confirm, format_confirm_text,
)
from scopelint.verify.report import format_json, format_text, summary_line
from scopelint.verify.runner import ChildRun, Isolation
from scopelint.verify.tf1 import detect

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "verify"
MARKER = f"scopelint-tf1-test-{uuid.uuid4().hex}"
# The session of a copy without device_filters never starts: the run ends at this limit.  It must
# cover starting the host and two copies (each imports TensorFlow) on a loaded machine.
WAIT_TIMEOUT_SECONDS = 90.0
# A non-chief worker whose model is never ready: its session starts, then polls until this limit.
MODEL_WAIT_TIMEOUT_SECONDS = 60.0

needs_tf = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed")


def _run(name: str, **options: Any) -> Any:
    return verify(VerifyOptions(path=str(FIXTURES / name), **options))


@pytest.fixture(scope="module")
def reports() -> dict[str, Any]:
    demo = "between_graph_filters.py"
    jobs = {
        # The slowest first: it waits until its time limit.
        "no filters": lambda: _run(demo, workers=2, timeout=WAIT_TIMEOUT_SECONDS,
                                   args=["--task_index={task}", f"--run_id={MARKER}-wait"]),
        "filters": lambda: _run(demo, workers=2, timeout=WAIT_TIMEOUT_SECONDS,
                                args=["--task_index={task}", "--filters", f"--run_id={MARKER}-filters"]),
        "local variables": lambda: _run("between_graph_local_variables.py", workers=2, timeout=MODEL_WAIT_TIMEOUT_SECONDS,
                                        args=["--task_index={task}", f"--run_id={MARKER}-model"]),
        "tf1 setter": lambda: _run("tf1_setter_task_index.py"),
        "tf2 setter": lambda: _run("tf1_setter_task_index.py", tf1=False),
        "tf1 discarded": lambda: _run("tf1_setter_discarded.py"),
        "slim": lambda: _run("tf1_contrib_slim.py"),
        "contrib missing": lambda: _run("tf1_contrib_missing.py"),
        "gpu towers": lambda: _run("gpu_towers.py"),
        "confirm": lambda: confirm(VerifyOptions(path=str(FIXTURES / "confirm_two_paths.py"), timeout=120)),
    }
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


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


# ------------------------------------------------------------------------------------ TF1 mode


def test_tf1_programs_are_detected() -> None:
    assert detect("import tensorflow as tf\nx = tf.placeholder(tf.float32, [None])\n") is not None
    assert detect("import tensorflow as tf\ns = tf.train.replica_device_setter(ps_tasks=1)\n") is not None
    assert detect("import tensorflow.contrib.slim as slim\n") is not None
    assert detect("from tensorflow.examples.tutorials.mnist import input_data\n") is not None
    # TF2 code, and TF1 code written against tf.compat.v1, runs as written.
    assert detect("import tensorflow as tf\nx = tf.keras.layers.Dense(3)\ns = tf.train.Checkpoint()\n") is None
    assert detect("import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32)\n") is None
    assert detect("import tensorflow as tf\nv1 = tf.compat.v1\nx = v1.placeholder(tf.float32)\n") is None


@needs_tf
@pytest.mark.tf
def test_tf1_mode_runs_import_tensorflow_programs(reports: dict[str, Any]) -> None:
    # Acceptance 1: the bad setter keyword is TensorFlow 1's TypeError, as TFS402 predicted ...
    report = reports["tf1 setter"]
    text = format_text(report)
    assert report.outcome == COMPARED and report.tf1_reason is not None, text
    assert report.agree and report.exit_code == 0, text
    [row] = report.comparison.exceptions
    assert row.status == PREDICTED and row.error_type == "TypeError" and row.line == 7, text
    assert row.finding.startswith("TFS402 at line 7"), text
    assert "tf1 mode:  tensorflow -> tensorflow.compat.v1" in text
    # ... and with the keyword fixed the discarded setter (TFS401) leaves the variables on the worker.
    fixed = reports["tf1 discarded"]
    text = format_text(fixed)
    assert fixed.agree, text
    assert {row.name for row in fixed.comparison.rows} == {"weights", "bias"}
    for row in fixed.comparison.rows:
        assert row.predicted_device == "" and row.observed_device == ""
        assert row.placement.startswith("/job:worker/replica:0/task:0"), text
    assert "TFS401" in {d.code for d in _check(FIXTURES / "tf1_setter_discarded.py")}


@needs_tf
@pytest.mark.tf
def test_contrib_slim_and_layers_run_as_tf_slim(reports: dict[str, Any]) -> None:
    report = reports["slim"]
    text = format_text(report)
    assert report.agree, text
    assert report.result["tf1"][1:] == ["tf.contrib.slim -> tf_slim", "tf.contrib.layers -> tf_slim"], text
    assert {row.name for row in report.comparison.rows} == {
        "net/conv1/weights", "net/conv1/biases", "net/bn1/beta", "net/bn1/moving_mean", "net/bn1/moving_variance",
        "net/logits/weights", "net/logits/biases"}


@needs_tf
@pytest.mark.tf
def test_ops_pinned_to_a_missing_gpu_run_on_the_cpu_and_say_so(reports: dict[str, Any]) -> None:
    """Without a GPU TensorFlow would refuse to run the towers at all; verify lets their ops run
    on the CPU, lists that, and still compares the devices the program wrote."""
    import tensorflow as tf

    report = reports["gpu towers"]
    text = format_text(report)
    if tf.config.list_physical_devices("GPU"):
        pytest.skip("this machine has a GPU: nothing is stood in")
    assert report.agree and report.exit_code == 0, text
    assert "stubbed:   no GPU on this machine: " in text and "/device:GPU:0, /device:GPU:1" in text, text
    [row] = report.comparison.rows
    assert row.name == "model/w" and row.observed_device == "/device:CPU:0", text


@needs_tf
@pytest.mark.tf
def test_a_contrib_name_without_successor_ends_the_run_with_file_and_line(reports: dict[str, Any]) -> None:
    report = reports["contrib missing"]
    text = format_text(report)
    assert report.outcome == UNAVAILABLE and report.exit_code == 1, text
    end = report.result["program"]
    assert end["message"] == "not available in TensorFlow 2: tf.contrib.learn" and end["line"] == 6
    assert f"Not verified: not available in TensorFlow 2: tf.contrib.learn ({report.path}:6)" in summary_line(report)
    assert "Traceback" not in text


# ------------------------------------------------------------------------------------ honest matching


def _finding(line: int, path: str = "p.py") -> Diagnostic:
    return Diagnostic("TFS402", "device-setter-bad-argument", "error", "m", Site(path, line, 1, line, 2))


def test_an_exception_of_another_type_at_the_line_is_a_difference() -> None:
    predicted = PredictedRaise(_finding(7), "TypeError", "task_index")
    error = {"error_type": "AttributeError", "line": 7, "message": "module 'tensorflow._api.v2.train' has no attribute"}
    [row] = compare_exceptions("p.py", [predicted], error, None, program_ran_to_end=True)
    assert row.status == NOT_AS_PREDICTED and "it predicted TypeError naming 'task_index'" in row.finding
    assert not Comparison(rows=[], exceptions=[row]).agree
    # The right type, but a message about another keyword or variable, is no match either.
    error = {"error_type": "TypeError", "line": 7, "message": "got an unexpected keyword argument 'ps_task'"}
    [row] = compare_exceptions("p.py", [predicted], error, None, program_ran_to_end=True)
    assert row.status == NOT_AS_PREDICTED
    # Elsewhere: unpredicted, and the finding is not raised.
    error = {"error_type": "TypeError", "line": 9, "message": "argument 'task_index'"}
    rows = compare_exceptions("p.py", [predicted], error, None, program_ran_to_end=True)
    assert [row.status for row in rows] == [UNPREDICTED, NOT_RAISED]
    error = {"error_type": "TypeError", "line": 7, "message": "got an unexpected keyword argument 'task_index'"}
    [row] = compare_exceptions("p.py", [predicted], error, None, program_ran_to_end=True)
    assert row.status == PREDICTED


@needs_tf
@pytest.mark.tf
def test_without_tf1_mode_the_attribute_error_is_not_the_predicted_type_error(reports: dict[str, Any]) -> None:
    report = reports["tf2 setter"]
    text = format_text(report)
    assert report.tf1_reason is None and report.outcome == COMPARED, text
    [row] = report.comparison.exceptions
    assert row.status == NOT_AS_PREDICTED and row.error_type == "AttributeError", text
    assert not report.agree and report.exit_code == 1
    assert "1 exception(s) not as predicted" in summary_line(report)


def test_the_prediction_follows_the_programs_arguments() -> None:
    trace = analyze_source((FIXTURES / "confirm_two_paths.py").read_text(), str(FIXTURES / "confirm_two_paths.py"))
    assert run_for_args(trace, []) is trace
    chosen = run_for_args(trace, ["--twice"])
    assert chosen is not trace and chosen.condition.argv == ("--twice",)


# ------------------------------------------------------------------------------------ --confirm


@needs_tf
@pytest.mark.tf
def test_confirm_runs_each_finding_on_its_path(reports: dict[str, Any]) -> None:
    report: ConfirmReport = reports["confirm"]
    text = format_confirm_text(report)
    [check] = report.checks
    assert check.finding.code == "TFS101" and check.condition == "when --twice", text
    assert check.verdict == CONFIRMED and check.argv == ["--twice"], text
    [run] = report.runs
    assert run.report.options.args == ["--twice"]
    assert report.exit_code == 0 and "Confirmed: 1 finding(s) in 1 run(s): 1 confirmed." in text


def test_confirm_keeps_the_users_value_for_an_any_other_value() -> None:
    from scopelint.verify.confirm import _merged_args

    assert _merged_args(["--input_dir", "/data"], ["--mode=train", "--input_dir=other"]) == [
        "--input_dir", "/data", "--mode=train"]
    assert _merged_args([], ["--mode=train", "--input_dir=other"]) == ["--mode=train", "--input_dir=other"]


def _fake_run(end: dict[str, Any], reached: list[list[Any]]) -> VerifyReport:
    child = ChildRun(result=None, status=[], exit_status=0, timed_out=False, interrupted=False, seconds=1.0,
                     stdout_tail="", stderr_tail="", isolation=Isolation(False, "", "test"), child_pid=0)
    result = {"program": {"line": 0, "site_file": None, "site_line": 0, **end}, "lines_reached": reached}
    return VerifyReport(path="p.py", outcome=COMPARED, comparison=None, child=child, cluster_used={}, result=result)


def test_confirm_verdicts() -> None:
    finding = Diagnostic("TFS101", "variable-already-exists", "error", "m", Site("p.py", 13, 5, 13, 6))
    raises = PredictedRaise(finding, "ValueError", "tower/kernel")
    here = [[os.path.abspath("p.py"), 13]]

    def judged(end: dict[str, Any], reached: list[list[Any]]) -> str:
        check = FindingCheck(finding, "when --twice", ["--twice"], {}, raises)
        _judge(check, _fake_run(end, reached))
        return check.verdict

    raised = {"how": "exception", "error_type": "ValueError", "line": 13,
              "message": "Variable tower/kernel already exists, disallowed."}
    assert judged(raised, here) == CONFIRMED
    assert judged({**raised, "error_type": "TypeError"}, here) == REFUTED
    assert judged({"how": "finished"}, here) == REFUTED  # the line ran; nothing raised there
    assert judged({"how": "finished"}, []) == NOT_REACHED
    assert judged({"how": "exception", "error_type": "OSError", "line": 3, "message": "no data"}, []) == NOT_REACHED


# ------------------------------------------------------------------------------------ TFS412


def _check(path: Path | str, source: str | None = None) -> list[Diagnostic]:
    from scopelint.engine import CheckSettings, check_source

    text = source if source is not None else Path(path).read_text()
    result = check_source(text.encode(), str(path), CheckSettings(enabled=frozenset({"TFS401", "TFS412"})))
    return list(result.diagnostics)


BETWEEN_GRAPH = """\
import tensorflow.compat.v1 as tf

cluster = tf.train.ClusterSpec({"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]})
server = tf.train.Server(cluster, job_name="worker", task_index=1)
step = tf.train.get_or_create_global_step()
CONFIG
SESSION
"""


@pytest.mark.parametrize("session, fires", [
    ("with tf.train.MonitoredTrainingSession(master=server.target, is_chief=False, config=config) as s:\n    pass", True),
    ("sv = tf.train.Supervisor(is_chief=False)\nsess = sv.prepare_or_wait_for_session(server.target, config=config)", True),
    ("sess = tf.Session(server.target, config=config)", True),
])
@pytest.mark.parametrize("config, filtered", [
    ("config = None", False),
    ("config = tf.ConfigProto(allow_soft_placement=True)", False),
    ('config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:1"])', True),
])
def test_device_filters_rule_on_between_graph_sessions(session: str, fires: bool, config: str, filtered: bool) -> None:
    source = BETWEEN_GRAPH.replace("CONFIG", config).replace("SESSION", session)
    found = [d for d in _check("w.py", source) if d.code == "TFS412"]
    assert len(found) == (0 if filtered else 1), found
    session_line = 1 + next(index for index, line in enumerate(source.splitlines()) if "server.target" in line)
    if found:
        assert found[0].site.line == session_line and 'device_filters=["/job:ps", "/job:worker/task:%d" % task_index]' in found[0].message


def test_device_filters_rule_is_silent_where_it_cannot_prove_the_wait() -> None:
    mts = "with tf.train.MonitoredTrainingSession(master=server.target, config=config) as s:\n    pass"
    # Filters added later on the config object: not followed, so not reported.
    later = BETWEEN_GRAPH.replace("CONFIG", 'config = tf.ConfigProto()\nconfig.device_filters.append("/job:ps")')
    assert not [d for d in _check("w.py", later.replace("SESSION", mts)) if d.code == "TFS412"]
    # One worker in the cluster: there is nobody else to wait for.
    single = BETWEEN_GRAPH.replace('"localhost:2223", "localhost:2224"', '"localhost:2223"').replace("task_index=1", "task_index=0")
    assert not [d for d in _check("w.py", single.replace("CONFIG", "config = None").replace("SESSION", mts))
                if d.code == "TFS412"]
    # A ps task's server: its process serves, it opens no worker session.
    ps = BETWEEN_GRAPH.replace('job_name="worker"', 'job_name="ps"').replace("task_index=1", "task_index=0")
    assert not [d for d in _check("w.py", ps.replace("CONFIG", "config = None").replace("SESSION", mts))
                if d.code == "TFS412"]


def test_device_filters_rule_is_silent_for_in_graph_replication() -> None:
    in_graph = """\
import tensorflow.compat.v1 as tf

cluster = tf.train.ClusterSpec({"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]})
towers = []
for task in range(2):
    with tf.device("/job:worker/task:%d" % task):
        towers.append(tf.get_variable("w%d" % task, [2]))
with tf.Session("grpc://localhost:2223") as session:
    session.run(towers)
"""
    assert not [d for d in _check("in_graph.py", in_graph) if d.code == "TFS412"]


def test_the_demonstration_fixture_has_the_finding_without_filters() -> None:
    found = [d for d in _check(FIXTURES / "between_graph_filters.py") if d.code == "TFS412"]
    assert len(found) == 1 and found[0].condition is not None and "without --filters" in found[0].condition


@needs_tf
@pytest.mark.tf
def test_workers_without_device_filters_are_reported_waiting(reports: dict[str, Any]) -> None:
    waiting: WorkersReport = reports["no filters"]
    text = format_text(waiting)
    assert isinstance(waiting, WorkersReport) and waiting.absent == ["/job:worker/task:2"], text
    assert "not running (no copy for them): /job:worker/task:2" in text
    assert [worker.outcome for worker in waiting.workers] == [TIMED_OUT, TIMED_OUT], text
    assert [worker.child.last_phase for worker in waiting.workers] == ["session", "session"], text
    assert text.count("Waiting: the program's session did not start within") == 2, text
    assert "no device_filters, so its master waits for every task of the cluster (TFS412)" in text
    assert waiting.exit_code == 1
    assert waiting.child.seconds < WAIT_TIMEOUT_SECONDS + 10
    assert _survivors(MARKER + "-wait") == []
    assert not Path(f"/proc/{waiting.child.child_pid}").exists()
    # With the filters each worker talks to the ps task and itself: both complete, as predicted.
    done: WorkersReport = reports["filters"]
    text = format_text(done)
    assert done.agree and done.exit_code == 0, text
    for worker in done.workers:
        assert worker.result["program"]["how"] == "finished", text
        assert worker.result["sessions"], text
    assert _survivors(MARKER + "-filters") == []
    assert json.loads(format_json(done))["cluster"]["not_running"] == ["/job:worker/task:2"]


@needs_tf
@pytest.mark.tf
def test_a_worker_waiting_for_a_model_nobody_initializes_is_reported_so(reports: dict[str, Any]) -> None:
    # Not TFS412's hang (the sessions have device_filters and start): worker 1's own variables are
    # never initialized by the chief, and the report says what TensorFlow waits for.
    waiting: WorkersReport = reports["local variables"]
    text = format_text(waiting)
    chief, other = waiting.workers
    assert chief.agree, text
    assert other.outcome == TIMED_OUT and other.child.last_phase in ("session", "model not ready"), text
    assert ("Waiting: the program's session started but the model was never ready within 60 s "
            "(TensorFlow: Variables not initialized: Variable)") in text
    assert "TFS412" not in summary_line(other)
    assert waiting.exit_code == 1
    assert _survivors(MARKER + "-model") == []


def test_the_mnist_stand_in_gives_full_batches_larger_than_itself() -> None:
    # multigpu_cnn.py asks for batch_size * num_gpus rows and splits them per tower: a short batch
    # would leave the second tower empty and fail where the real 55000-example set does not.
    pytest.importorskip("numpy")
    from scopelint.verify.stubs import MNIST_TRAIN, _DataSet

    data = _DataSet(MNIST_TRAIN, one_hot=True, reshape=True, dtype_float=True)
    images, labels = data.next_batch(2 * 1024)
    assert images.shape == (2048, 784) and labels.shape == (2048, 10)
    assert data.epochs_completed == 2048 // MNIST_TRAIN
    images, _ = data.next_batch(100)
    assert images.shape == (100, 784)


REPAIRED_SLIM = """
import os
os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as real
from scopelint.verify.tf1 import repair_what_tf_slim_reaches
repair_what_tf_slim_reaches()
tf = real.compat.v1
tf.disable_v2_behavior()
import tf_slim as slim
x = tf.placeholder(tf.float32, [4, 8, 8, 3])
net = slim.batch_norm(slim.conv2d(x, 4, 3, scope="conv"), is_training=True, scope="bn")
loss = tf.reduce_sum(slim.fully_connected(slim.flatten(net), 1, scope="fc"))
slim.optimize_loss(loss, tf.train.get_or_create_global_step(), 0.1, "SGD")
print(sorted(v.op.name for v in tf.global_variables()))
"""


@needs_tf
@pytest.mark.tf
def test_tf_slim_runs_once_given_back_what_tensorflow_moved() -> None:
    """tf_slim 1.1.0 reaches framework.ops.Tensor / IndexedSlices and tf_keras.legacy_tf_layers,
    all gone from TensorFlow 2.21: without the repair batch_norm and optimize_loss fail inside it."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run([sys.executable, "-c", REPAIRED_SLIM], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"')) == [
        "OptimizeLoss/learning_rate", "bn/beta", "bn/moving_mean", "bn/moving_variance", "conv/biases",
        "conv/weights", "fc/biases", "fc/weights", "global_step"]
