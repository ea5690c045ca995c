"""`scopelint verify`: real runs on an in-process TensorFlow cluster, and the pure parts on their own.

The real runs (marked `tf`) start in parallel once per session, because each child imports
TensorFlow (about 3 s of CPU); the tests then read their reports.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from scopelint import cli
from scopelint.trace import Site, VariableRecord
from scopelint.verify import (
    COMPARED, CRASHED, TIMED_OUT, VerifyOptions, VerifyReport, VerifyUsageError, parse_cluster_option, verify,
)
from scopelint.verify.compare import (
    DEVICE_DIFFERS, DTYPE_DIFFERS, MATCHED, ONLY_OBSERVED, ONLY_PREDICTED, PREDICTED, SHAPE_DIFFERS, UNKNOWN,
    UNPREDICTED, compare_variables,
)
from scopelint.verify.plan import PlanError, fallback_cluster, plan_program
from scopelint.verify.report import format_json, format_text

REPO = Path(__file__).resolve().parents[1]

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "verify"
AGREEING = [
    "ps_worker_adam.py",
    "partitioned_with_server.py",
    "monitored_momentum.py",
    "two_towers_adagrad.py",
    "main_with_ps_branch.py",
    "predicted_already_exists.py",
]
HANG_TIMEOUT_SECONDS = 30.0  # room for importing TensorFlow on a loaded 2-core machine (15 s was too short at load 10)
MARKER = f"scopelint-verify-test-{uuid.uuid4().hex}"

needs_tf = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed")


@dataclass
class Runs:
    reports: dict[str, VerifyReport]


def _run(name: str, **options: object) -> VerifyReport:
    return verify(VerifyOptions(path=str(FIXTURES / name), **options))  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def runs() -> Runs:
    # The hanging run first: its clock includes importing TensorFlow, which is slower under load.
    jobs = {"hangs_with_children.py": lambda: _run("hangs_with_children.py", args=[MARKER + "-hang"], timeout=HANG_TIMEOUT_SECONDS)}
    for name in [*AGREEING, "unmodelled_metrics.py", "kills_itself.py"]:
        jobs[name] = lambda name=name: _run(name)
    # One step only, and --cluster with a third ps task the program does not use.
    jobs["monitored_momentum.py"] = lambda: _run("monitored_momentum.py", steps=1, cluster={"ps": 3, "worker": 1})
    jobs["crashes_with_child.py"] = lambda: _run("crashes_with_child.py", args=[MARKER + "-crash"])
    jobs["entry"] = lambda: verify(VerifyOptions(path=str(FIXTURES / "entry_builder.py"), entry="entry_builder:build_graph"))
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(job) for name, job in jobs.items()}
        return Runs(reports={name: future.result() for name, future in futures.items()})


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


# ----------------------------------------------------------------------------------------- real runs


@needs_tf
@pytest.mark.tf
@pytest.mark.parametrize("name", AGREEING)
def test_cluster_fixtures_agree(runs: Runs, name: str) -> None:
    report = runs.reports[name]
    text = format_text(report)
    assert report.outcome == COMPARED, text
    assert report.agree and report.exit_code == 0, text
    assert report.comparison is not None and report.comparison.rows, text
    # Every variable really ran somewhere: read back from the cluster and placed by the run.
    assert report.result is not None and report.result["read_back"] == len(report.comparison.rows)
    assert all(row.placement and row.placement.startswith("/job:") for row in report.comparison.rows), text
    assert "Agree:" in text


@needs_tf
@pytest.mark.tf
def test_agreeing_fixtures_put_variables_on_several_ps_tasks(runs: Runs) -> None:
    for name in ("ps_worker_adam.py", "partitioned_with_server.py", "two_towers_adagrad.py"):
        report = runs.reports[name]
        assert report.comparison is not None
        tasks = {row.placement.split("/device:")[0] for row in report.comparison.rows if row.placement}
        assert len(tasks) >= 2, (name, tasks)
    adam = runs.reports["ps_worker_adam.py"]
    assert adam.result is not None
    assert adam.result["cluster_source"] == "program" and len(adam.result["cluster"]["ps"]) == 3
    assert adam.result["program"]["how"] == "steps" and adam.result["session_runs"] == 3
    assert any(row.name == "w/Adam_1" for row in adam.comparison.rows)  # type: ignore[union-attr]
    assert any(address.startswith("/job:ps/task:2 localhost:2224") for address in adam.result["address_map"])
    server = runs.reports["partitioned_with_server.py"].result
    assert server is not None and server["servers_adopted"] == ["/job:worker/task:0"]
    assert server["master"] == "grpc://" + server["cluster"]["worker"][0]
    assert any(row.name == "table/part_2" for row in runs.reports["partitioned_with_server.py"].comparison.rows)  # type: ignore[union-attr]


@needs_tf
@pytest.mark.tf
def test_predicted_exception_is_matched_with_its_finding(runs: Runs) -> None:
    report = runs.reports["predicted_already_exists.py"]
    assert report.comparison is not None
    [exception] = report.comparison.exceptions
    assert exception.status == PREDICTED and exception.error_type == "ValueError" and exception.line == 8
    assert exception.finding is not None and exception.finding.startswith("TFS101 at line 8")


@needs_tf
@pytest.mark.tf
def test_monitored_session_is_cut_after_the_given_steps(runs: Runs) -> None:
    report = runs.reports["monitored_momentum.py"]
    assert report.result is not None
    assert report.result["program"]["how"] == "steps" and report.result["session_runs"] == 1
    # --cluster wins over the default: three ps tasks were started although the program uses two.
    assert report.result["cluster_source"] == "option" and len(report.result["cluster"]["ps"]) == 3
    assert report.agree, format_text(report)


@needs_tf
@pytest.mark.tf
def test_entry_calls_the_builder_and_not_the_main_block(runs: Runs) -> None:
    report = runs.reports["entry"]
    assert report.agree, format_text(report)
    assert report.comparison is not None
    assert [row.name for row in report.comparison.rows] == ["entry/a", "entry/b/part_0", "entry/b/part_1"]


@needs_tf
@pytest.mark.tf
def test_unsupported_prediction_shows_the_difference(runs: Runs) -> None:
    report = runs.reports["unmodelled_metrics.py"]
    text = format_text(report)
    assert report.outcome == COMPARED and not report.agree and report.exit_code == 1, text
    assert report.comparison is not None
    statuses = {row.name: row.status for row in report.comparison.rows}
    # After the unmodelled metric the setter's counter is unknown: the later tasks are predicted as
    # `/job:ps/task:?`, shown as unknown (not agreement); the metric's variables are only observed.
    assert statuses == {
        "weights": MATCHED, "bias": UNKNOWN, "also": UNKNOWN,
        "mean/total": ONLY_OBSERVED, "mean/count": ONLY_OBSERVED,
    }, text
    bias = next(row for row in report.comparison.rows if row.name == "bias")
    assert (bias.predicted_device, bias.observed_device) == ("/job:ps/task:?", "/job:ps/task:0")
    assert "Differ: 1 of 5 variables matched, 2 only observed, 2 unknown." in text


@needs_tf
@pytest.mark.tf
def test_json_output(runs: Runs) -> None:
    data = json.loads(format_json(runs.reports["unmodelled_metrics.py"]))
    assert data["outcome"] == "compared" and data["agree"] is False and data["exit_code"] == 1
    assert data["counts"]["only observed"] == 2 and data["counts"]["unknown"] == 2
    assert {row["name"] for row in data["variables"]} >= {"mean/total", "mean/count"}
    assert set(data["isolation"]) == {"private_network", "how", "reason"}


@needs_tf
@pytest.mark.tf
def test_hanging_program_times_out_and_leaves_no_process(runs: Runs) -> None:
    report = runs.reports["hangs_with_children.py"]
    assert report.outcome == TIMED_OUT and report.exit_code == 1
    assert report.child.last_phase == "program", report.child.status  # the helpers were started
    assert HANG_TIMEOUT_SECONDS <= report.child.seconds < HANG_TIMEOUT_SECONDS + 5
    assert "Timed out" in format_text(report)
    # Both helpers (one of them left the process group) and the child itself are gone.
    assert _survivors(MARKER + "-hang") == []
    assert not Path(f"/proc/{report.child.child_pid}").exists()


@needs_tf
@pytest.mark.tf
def test_crashing_program_gives_a_report_and_leaves_no_process(runs: Runs) -> None:
    report = runs.reports["crashes_with_child.py"]
    text = format_text(report)
    assert report.outcome == COMPARED and report.exit_code == 1
    assert report.comparison is not None
    [exception] = report.comparison.exceptions
    assert (exception.status, exception.error_type, exception.line) == (UNPREDICTED, "RuntimeError", 10)
    assert "the input pipeline is missing" in text and "scopelint/verify" not in text  # the program's frames only
    assert _survivors(MARKER + "-crash") == []
    assert not Path(f"/proc/{report.child.child_pid}").exists()


@needs_tf
@pytest.mark.tf
def test_program_that_kills_itself_is_reported_as_crashed(runs: Runs) -> None:
    report = runs.reports["kills_itself.py"]
    assert report.outcome == CRASHED and report.exit_code == 1
    assert "SIGKILL" in format_text(report)
    assert json.loads(format_json(report))["outcome"] == "crashed"


# ----------------------------------------------------------------------------------------- pure parts


def _record(name: str, shape: tuple[int | None, ...] | None = (2,), device: str | None = "/job:ps/task:0",
            dtype: str | None = "float32") -> VariableRecord:
    return VariableRecord(name=name, store_key=name, shape=shape, dtype=dtype, kind="get_variable",
                          site=Site("p.py", 1, 1, 1, 2), device=device)


def _observed(name: str, shape: list[int | None] | None = None, device: str = "/job:ps/task:0",
              placement: str | None = "/job:ps/replica:0/task:0/device:CPU:0", dtype: str = "float32") -> dict[str, object]:
    return {"name": name, "shape": [2] if shape is None else shape, "dtype": dtype, "device": device, "placement": placement}


def test_compare_variables_labels_every_kind_of_difference() -> None:
    predicted = [
        _record("same"), _record("moved", device="/job:ps/task:1"), _record("resized", shape=(3,)),
        _record("retyped", dtype="int64"), _record("vague", device=None), _record("tower_?/w"),
        _record("ghost"), _record("misplaced"),
    ]
    observed = [
        _observed("same"), _observed("moved"), _observed("resized"), _observed("retyped"), _observed("vague"),
        _observed("tower_3/w"), _observed("stranger"),
        _observed("misplaced", placement="/job:ps/replica:0/task:1/device:CPU:0"),
    ]
    rows = {row.name: row for row in compare_variables(predicted, observed)}
    assert {name: row.status for name, row in rows.items()} == {
        "same": MATCHED, "moved": DEVICE_DIFFERS, "resized": SHAPE_DIFFERS, "retyped": DTYPE_DIFFERS,
        "vague": UNKNOWN, "tower_3/w": UNKNOWN, "stranger": ONLY_OBSERVED, "ghost": ONLY_PREDICTED,
        "misplaced": DEVICE_DIFFERS,
    }
    assert rows["tower_3/w"].notes == ["name predicted only as tower_?/w"]
    assert "placed on /job:ps/replica:0/task:1/device:CPU:0" in rows["misplaced"].notes[0]


def test_cluster_option_and_fallback() -> None:
    assert parse_cluster_option('{"ps": 3, "worker": ["a:1", "b:2"]}') == {"ps": 3, "worker": 2}
    for bad in ("[1]", "{}", '{"ps": 0}', '{"Bad Job": 1}', "not json"):
        with pytest.raises(PlanError):
            parse_cluster_option(bad)
    from scopelint.trace import Trace

    trace = Trace("p.py", variables=[_record("a", device="/job:ps/task:4"), _record("b", device="/job:eval/task:0")])
    assert fallback_cluster(trace) == {"ps": 5, "worker": 1, "eval": 1}


def test_entry_prediction_silences_the_main_block(tmp_path: Path) -> None:
    module = tmp_path / "builder.py"
    module.write_text("import tensorflow.compat.v1 as tf\ndef build():\n    pass\nif __name__ == '__main__':\n    pass\n")
    program = plan_program(str(module), "builder:build")
    assert "'_NOMAIN_'" in program.prediction_source and program.prediction_source.endswith("\nbuild()\n")
    assert len(program.prediction_source.splitlines()[3]) == len("if __name__ == '__main__':")
    with pytest.raises(PlanError):
        plan_program(str(module), "builder")
    with pytest.raises(PlanError):
        plan_program(None, None)


def test_arguments_after_double_dash_go_to_the_program() -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["verify", "train.py", "--steps", "2", "--", "--job_name=worker", "-x"])
    assert (args.file, args.steps, args.program_args) == ("train.py", 2, ["--job_name=worker", "-x"])
    args = parser.parse_args(["verify", "--timeout", "5", "train.py"])
    assert (args.file, args.timeout, args.program_args) == ("train.py", 5.0, [])
    with pytest.raises(SystemExit):
        parser.parse_args(["verify", "train.py", "stray"])


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["verify", str(tmp_path / "missing.py")]) == 2
    assert cli.main(["verify", "x.py", "--cluster", "{bad"]) == 2
    assert cli.main(["verify"]) == 2
    assert "scopelint: error:" in capsys.readouterr().err
    with pytest.raises(VerifyUsageError):
        verify(VerifyOptions(path=str(tmp_path / "missing.py")))


def test_a_syntax_error_is_reported_without_starting_a_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import scopelint.verify as verify_package

    def no_child(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cluster was started for a program Python cannot compile")

    monkeypatch.setattr(verify_package, "run_child", no_child)
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow.compat.v1 as tf\nx = (\n")
    assert cli.main(["verify", str(broken)]) == 2
    err = capsys.readouterr().err
    assert f"{broken}:2:5: SyntaxError: '(' was never closed" in err and "no cluster was started" in err
    assert "Traceback" not in err


def test_without_tensorflow_verify_names_the_extra(tmp_path: Path) -> None:
    """No traceback from a child that cannot import TensorFlow: the install command instead."""
    program = tmp_path / "model.py"
    program.write_text("import tensorflow.compat.v1 as tf\nv = tf.get_variable('v', [2])\n")
    code = (
        "import sys\n"
        "sys.modules['tensorflow'] = None  # as if it were not installed\n"
        "from scopelint.cli import main\n"
        f"sys.exit(main(['verify', {str(program)!r}]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 2, run.stderr
    assert 'pip install "scopelint[verify]"' in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""


def test_the_command_line_becomes_the_programs_configuration() -> None:
    from scopelint.analysis import config_values as cfg

    declared = [cfg.ConfigVar("flag:job_name", "--job_name", "flag", "", "str"),
                cfg.ConfigVar("flag:task_index", "--task_index", "flag", 0, "int"),
                cfg.ConfigVar("flag:ema", "--ema", "flag", True, "bool", negatable=True),
                cfg.ConfigVar("arg:mode", "--mode", "arg", "train", "str", ("train", "test")),
                cfg.ConfigVar("argv:1", "sys.argv[1]", "argv")]
    assert cfg.assignment_from_args(declared, ["ps", "--job_name=worker", "--task_index", "2", "--noema",
                                               "--mode=bogus", "--unknown=1"]) == {
        "flag:job_name": "worker", "flag:task_index": 2, "flag:ema": False, "argv:1": "ps"}
    assert cfg.assignment_from_args(declared, ["--task_index=x"]) == {}


@needs_tf
@pytest.mark.tf
def test_a_variable_only_in_the_programs_own_collection_is_observed() -> None:
    report = _run("own_collection_variable.py")
    text = format_text(report)
    assert report.comparison is not None, text
    statuses = {row.name: row.status for row in report.comparison.rows}
    assert statuses == {"weights": "matched", "local_step": "matched"}, text
    assert report.agree, text
