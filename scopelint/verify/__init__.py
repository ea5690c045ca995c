"""`scopelint verify`: run a program for real on an in-process TensorFlow cluster and hold what
TensorFlow produced against what scopelint predicted.

    report = verify(VerifyOptions(path="train.py"))
    report.exit_code   # 0 agree, 1 differ (or the program hung / crashed), 2 usage or internal error

TensorFlow is imported only in the child process (`scopelint.verify.child`); this package's parent
side never imports it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scopelint.verify.compare import (
    PREDICTED, Comparison, compare_exceptions, compare_variables, raising_findings,
)
from scopelint.verify.plan import (
    DEFAULT_CLUSTER, MAX_WORKERS, PlanError, fallback_cluster, literal_cluster, parse_cluster_option, plan_program,
    workers_layout,
)
from scopelint.verify.runner import ChildRun, run_child
from scopelint.verify.workers import CrossRow, WorkerView, compare_workers, cross_agree

DEFAULT_STEPS = 3
DEFAULT_TIMEOUT_SECONDS = 120.0

EXIT_AGREE = 0
EXIT_DIFFER = 1
EXIT_ERROR = 2

# Outcomes of a run.
COMPARED = "compared"  # the child observed the graph; rows and exceptions were compared
TIMED_OUT = "timeout"  # the program (or TensorFlow) did not finish in time; the child was killed
CRASHED = "crashed"  # the child ended without a result (the program killed its own process, a crash)
INTERRUPTED = "interrupted"  # Ctrl-C
INTERNAL = "internal error"  # the child failed before the program started: an environment or scopelint problem
UNAVAILABLE = "unavailable"  # TF1 mode: the program reached a tf.contrib name TensorFlow 2 has no successor for

__all__ = [
    "VerifyOptions", "VerifyReport", "WorkersReport", "VerifyUsageError", "verify", "parse_cluster_option",
    "DEFAULT_STEPS", "DEFAULT_TIMEOUT_SECONDS", "EXIT_AGREE", "EXIT_DIFFER", "EXIT_ERROR",
]


class VerifyUsageError(ValueError):
    """A problem with the command line or the program file: exit code 2."""


@dataclass
class VerifyOptions:
    path: str | None
    args: list[str] = field(default_factory=list)
    entry: str | None = None  # "module:function", a zero-argument graph builder
    cluster: dict[str, int] | None = None  # --cluster (parsed)
    steps: int = DEFAULT_STEPS
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    isolate: bool = True  # try a private network namespace
    workers: int = 1  # --workers N: N copies of the program against one cluster
    target: str | None = None  # --target grpc://HOST:PORT: an existing cluster; no server is started
    cluster_addresses: dict[str, list[str]] | None = None  # --cluster with addresses (job -> host:port by task)
    tf1: bool | None = None  # --tf1 / --no-tf1; None: detected from the program (verify/tf1.py)
    stub_data: bool = False  # --stub-data (verify/stubs.py)
    environment: dict[str, str] | None = None  # set in the child (a --confirm run's condition)
    watch_lines: list[list[Any]] | None = None  # [file, line] whose execution the child records (--confirm)


@dataclass
class VerifyReport:
    path: str
    outcome: str
    comparison: Comparison | None  # None unless outcome is COMPARED
    child: ChildRun
    cluster_used: dict[str, int]  # job -> tasks the cluster had (or would have had)
    result: dict[str, Any] | None  # the child's raw result
    parse_note: str | None = None  # the analysis could not read the program
    complete_prediction: bool = True  # False: something unmodelled may have created variables
    options: VerifyOptions | None = None
    tf1_reason: str | None = None  # why the program ran in TF1 mode (None: it did not)

    @property
    def agree(self) -> bool:
        return self.outcome == COMPARED and self.comparison is not None and self.comparison.agree

    @property
    def exit_code(self) -> int:
        if self.outcome in (INTERNAL,):
            return EXIT_ERROR
        if self.outcome == INTERRUPTED:
            return 130
        return EXIT_AGREE if self.agree else EXIT_DIFFER


@dataclass
class WorkersReport:
    """`--workers N`: one report per copy (each against the prediction) and the comparison across them."""

    path: str
    outcome: str  # COMPARED when the host gave its result; else how the whole run ended
    child: ChildRun  # the host process
    workers: list[VerifyReport]
    cross: list[CrossRow]
    cluster: dict[str, list[str]]  # job -> addresses of the one shared cluster
    cluster_source: str  # option | fallback | target
    cluster_error: str | None
    complete_prediction: bool = True
    parse_note: str | None = None
    options: VerifyOptions | None = None
    absent: list[str] = field(default_factory=list)  # tasks of the cluster no copy runs (no server)

    @property
    def workers_agree(self) -> bool:
        """Every copy built the same variables on the same devices."""
        views = [WorkerView(index, _observed_of(report)) for index, report in enumerate(self.workers)]
        return bool(self.workers) and cross_agree(views, self.cross)

    @property
    def agree(self) -> bool:
        return self.outcome == COMPARED and self.workers_agree and all(report.agree for report in self.workers)

    @property
    def exit_code(self) -> int:
        if self.outcome == INTERNAL:
            return EXIT_ERROR
        if self.outcome == INTERRUPTED:
            return 130
        return EXIT_AGREE if self.agree else EXIT_DIFFER


def _observed_of(report: VerifyReport) -> list[dict[str, Any]] | None:
    return report.result["variables"] if report.outcome == COMPARED and report.result is not None else None


def _findings(trace: Any) -> list[Any]:
    from scopelint.rules import all_rules

    found = []
    for module in all_rules():
        try:
            found.extend(module.check(trace))
        except Exception:  # noqa: BLE001 - a rule bug must not hide the run; check reports it
            continue
    return found


@dataclass
class _Prediction:
    program: Any  # plan.Program
    predicted: list[Any]
    raising: list[Any]
    complete: bool
    fallback: dict[str, int]
    literal: dict[str, int] | None  # a setter's literal cluster
    parse_note: str | None
    tf1_reason: str | None = None  # TF1 mode and why (None: the program runs as written)
    trace: Any = None  # the analysis' trace (with the other paths), for --confirm


def _predict(options: VerifyOptions) -> _Prediction:
    from scopelint.analysis import ParseFailure, analyze_source

    if options.steps < 0:
        raise VerifyUsageError("--steps must be 0 or more")
    if options.timeout <= 0:
        raise VerifyUsageError("--timeout must be positive")
    if not 1 <= options.workers <= MAX_WORKERS:
        raise VerifyUsageError(f"--workers must be 1 to {MAX_WORKERS}")
    try:
        program = plan_program(options.path, options.entry)
    except PlanError as problem:
        raise VerifyUsageError(str(problem)) from None
    try:
        trace = analyze_source(program.prediction_source, program.path)
    except ParseFailure as failure:
        # Python cannot run it either: say so now instead of starting a cluster to watch a SyntaxError.
        _refuse_what_python_cannot_compile(program.prediction_source, program.path)
        note = f"scopelint cannot parse the program (line {failure.line}): {failure.message}"
        return _Prediction(program, [], [], False, dict(DEFAULT_CLUSTER), None, note, _tf1_reason(options, program))
    run = _run_for_command_line(program, trace, options.args, options.environment)
    return _Prediction(program, run.final_variables(), raising_findings(run, _findings(run)), run.complete,
                       fallback_cluster(run), literal_cluster(run), None, _tf1_reason(options, program), trace)


def _run_for_command_line(program: Any, trace: Any, args: list[str], environment: dict[str, str] | None) -> Any:
    """The analysed run for the program's command line: the program interpreted with the values its
    arguments give (`-- --job_name=worker --task_index=1`: the worker's device strings), else the
    explored run those arguments select (run_for_args)."""
    from scopelint.analysis import paths

    if args or environment:
        dedicated = paths.analyze_for_args(program.prediction_source, program.path, _normalized(list(args)),
                                           dict(environment or {}))
        if dedicated is not None:
            return dedicated
    return run_for_args(trace, args)


def _prediction_for_copy(options: "VerifyOptions", prediction: _Prediction) -> _Prediction:
    """The prediction for one worker copy, whose arguments name its own task."""
    if prediction.trace is None or not options.args:
        return prediction
    run = _run_for_command_line(prediction.program, prediction.trace, options.args, options.environment)
    return _Prediction(prediction.program, run.final_variables(), raising_findings(run, _findings(run)), run.complete,
                       prediction.fallback, prediction.literal, prediction.parse_note, prediction.tf1_reason,
                       prediction.trace)


def run_for_args(trace: Any, args: list[str]) -> Any:
    """The analysed run (analysis/paths.py) whose configuration the program's arguments select:
    `-- --job_name=worker` is compared with the run where FLAGS.job_name == 'worker', not with the
    default run.  The run whose condition's arguments all appear in `args`, the most of them; else
    the default run."""
    from scopelint.analysis.config_values import OTHER_COMMAND_LINE

    given = set(_normalized(args))
    given_options = {arg.split("=", 1)[0] for arg in given if arg.startswith("--") and "=" in arg}

    def selected(item: str) -> bool:
        # `--input_dir=other` stands for any value but those the program compared with (paths.py).
        option, _, value = item.partition("=")
        return item in given or (value == OTHER_COMMAND_LINE and option in given_options)

    best, best_count = trace, 0
    for run in trace.other_paths:
        wanted = _normalized(list(run.condition.argv)) if run.condition is not None else []
        if wanted and all(selected(item) for item in wanted) and len(wanted) > best_count:
            best, best_count = run, len(wanted)
    return best


def _normalized(args: list[str]) -> list[str]:
    """`--flag value` as `--flag=value`, so that both spellings select the same run."""
    result: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("--") and "=" not in arg and index + 1 < len(args) and not args[index + 1].startswith("-"):
            result.append(f"{arg}={args[index + 1]}")
            index += 2
            continue
        result.append(arg)
        index += 1
    return result


def _tf1_reason(options: VerifyOptions, program: Any) -> str | None:
    from scopelint.verify import tf1

    if options.tf1 is False:
        return None
    detected = tf1.detect(program.prediction_source)
    if options.tf1:
        return detected or "--tf1"
    return detected


def _refuse_what_python_cannot_compile(source: str, path: str) -> None:
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as error:  # IndentationError, TabError included
        where = f"{path}:{error.lineno or 0}:{error.offset or 0}"
        raise VerifyUsageError(f"{where}: {type(error).__name__}: {error.msg}; Python cannot run the program, "
                               "so no cluster was started") from None
    except ValueError as error:  # null bytes
        raise VerifyUsageError(f"{path}: {error}; Python cannot run the program, so no cluster was started") from None


# What `verify` needs that `check` does not; the hint names the extra that installs it.
INSTALL_HINT = 'pip install "scopelint[verify]"'


def require_tensorflow() -> None:
    """Raises VerifyUsageError when TensorFlow cannot be found (the child would die importing it).

    Found without importing: the parent side never imports TensorFlow."""
    import importlib.util

    try:
        found = importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise VerifyUsageError(f"verify runs the program under TensorFlow, which is not installed: {INSTALL_HINT}")


def _isolation_choice(options: VerifyOptions) -> tuple[bool, str]:
    if options.target is not None:
        # The existing cluster is outside any namespace verify could make: the run must reach it.
        return False, "--target: the run connects to an existing cluster; verify started no server"
    return options.isolate, "disabled with --no-isolate"


def _single_report(options: VerifyOptions, prediction: _Prediction, child: ChildRun) -> VerifyReport:
    """Compare one run of the program (a child's result) with the prediction."""
    program = prediction.program
    report = VerifyReport(
        path=program.path, outcome=COMPARED, comparison=None, child=child,
        cluster_used=options.cluster or prediction.fallback, result=child.result, parse_note=prediction.parse_note,
        complete_prediction=prediction.complete, options=options,
    )
    if child.interrupted:
        report.outcome = INTERRUPTED
    elif child.timed_out:
        report.outcome = TIMED_OUT
    elif child.result is None:
        # Before the program started, a failure is the environment's or scopelint's; after, the program's.
        report.outcome = INTERNAL if child.last_phase in ("start", "import") else CRASHED
    report.tf1_reason = prediction.tf1_reason
    if report.outcome != COMPARED or child.result is None:
        return report
    result = child.result
    if result["program"]["how"] == "unavailable":
        report.outcome = UNAVAILABLE
        return report
    if result.get("cluster"):
        report.cluster_used = {job: len(addresses) for job, addresses in result["cluster"].items()}
    program_end = result["program"]
    program_error = program_end if program_end["how"] == "exception" or (
        program_end["how"] == "exit" and program_end.get("exit_code")) else None
    if program_error is not None and program_end["how"] == "exit":
        program_error = {**program_error, "error_type": "SystemExit"}
    exceptions = compare_exceptions(
        program.path, prediction.raising, program_error, result.get("observe_error"),
        program_ran_to_end=program_end["how"] in ("finished", "exit", "exception"),
    )
    predicted = prediction.predicted
    if any(row.status == PREDICTED and row.phase == "program" for row in exceptions):
        # TensorFlow raised where predicted and the program ended there: what the analysis built
        # past that error (it goes on as if the call had succeeded) was never built for real.
        predicted = [record for record in predicted if not record.after_error]
    rows = compare_variables(predicted, result["variables"])
    report.comparison = Comparison(rows=rows, exceptions=exceptions)
    return report


TARGET_CONNECT_SECONDS = 5.0


def _check_target_listens(target: str) -> None:
    """A target nobody listens on would make the first session wait until --timeout: say so now."""
    import socket

    host, _, port = target[len("grpc://"):].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=TARGET_CONNECT_SECONDS):
            pass
    except (OSError, ValueError) as problem:
        raise VerifyUsageError(f"--target {target}: cannot connect ({problem})") from None


def verify(options: VerifyOptions) -> VerifyReport | WorkersReport:
    """Predict, run, compare.  Raises VerifyUsageError for usage problems.

    With `workers` > 1 the result is a WorkersReport (one VerifyReport per copy plus the comparison
    across copies); otherwise a VerifyReport.
    """
    prediction = _predict(options)
    require_tensorflow()
    if options.target is not None:
        _check_target_listens(options.target)
    if options.workers > 1:
        return _verify_workers(options, prediction)
    return run_once(options, prediction)


def run_once(options: VerifyOptions, prediction: _Prediction) -> VerifyReport:
    """One run of the program in a child, compared with `prediction`."""
    from scopelint.verify.plan import ChildRequest

    request = ChildRequest(
        path=prediction.program.path, args=list(options.args), entry=prediction.program.entry,
        cluster_override=options.cluster, fallback_cluster=prediction.fallback, steps=options.steps,
        status_path="", result_path="", target=options.target, cluster_addresses=options.cluster_addresses,
        tf1=prediction.tf1_reason is not None, stub_data=options.stub_data, environment=options.environment,
        watch_lines=options.watch_lines,
    )
    isolate, reason = _isolation_choice(options)
    child = run_child(request, options.timeout, isolate=isolate, no_isolation_reason=reason)
    return _single_report(options, prediction, child)


# The host keeps this share of the time limit back to kill late copies and still write its report.
HOST_MARGIN_SHARE = 0.1
HOST_MARGIN_MAX_SECONDS = 5.0


def _verify_workers(options: VerifyOptions, prediction: _Prediction) -> WorkersReport:
    from scopelint.verify.plan import ChildRequest

    # One layout for the shared cluster, chosen before anything runs: --cluster, else the setter's
    # literal cluster, else the fallback; the worker job grown to the number of copies.
    base = options.cluster or prediction.literal or prediction.fallback
    layout = workers_layout(base, options.workers)
    margin = min(HOST_MARGIN_MAX_SECONDS, HOST_MARGIN_SHARE * options.timeout)
    request = ChildRequest(
        path=prediction.program.path, args=list(options.args), entry=prediction.program.entry,
        cluster_override=layout if options.cluster is not None else None, fallback_cluster=layout,
        steps=options.steps, status_path="", result_path="", role="host", workers=options.workers,
        timeout=options.timeout - margin, target=options.target, cluster_addresses=options.cluster_addresses,
        tf1=prediction.tf1_reason is not None, stub_data=options.stub_data, environment=options.environment,
    )
    isolate, reason = _isolation_choice(options)
    host = run_child(request, options.timeout, isolate=isolate, no_isolation_reason=reason)
    report = WorkersReport(
        path=prediction.program.path, outcome=COMPARED, child=host, workers=[], cross=[], cluster={},
        cluster_source="", cluster_error=None, complete_prediction=prediction.complete,
        parse_note=prediction.parse_note, options=options,
    )
    if host.interrupted:
        report.outcome = INTERRUPTED
    elif host.timed_out:
        report.outcome = TIMED_OUT
    elif host.result is None:
        report.outcome = INTERNAL if host.last_phase == "start" else CRASHED
    if report.outcome != COMPARED or host.result is None:
        return report
    combined = host.result
    report.cluster = combined.get("cluster") or {}
    report.cluster_source = combined.get("cluster_source", "")
    if report.cluster_source == "fallback" and prediction.literal and options.cluster is None:
        report.cluster_source = "setter"  # the host was given the setter's literal cluster as its layout
    report.cluster_error = combined.get("cluster_error")
    report.absent = list(combined.get("absent") or [])
    for copy in combined["workers"]:
        child = ChildRun(
            result=copy["result"], status=copy["status"], exit_status=copy["exit_status"],
            timed_out=copy["timed_out"], interrupted=False, seconds=copy["seconds"],
            stdout_tail=copy["stdout_tail"], stderr_tail=copy["stderr_tail"],
            isolation=host.isolation, child_pid=copy["pid"],
        )
        copy_options = VerifyOptions(**{**options.__dict__, "args": copy["args"], "workers": 1})
        report.workers.append(_single_report(copy_options, _prediction_for_copy(copy_options, prediction), child))
    views = [WorkerView(index, _observed_of(worker)) for index, worker in enumerate(report.workers)]
    report.cross = compare_workers(views)
    return report
