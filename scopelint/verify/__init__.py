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

from scopelint.verify.compare import Comparison, compare_exceptions, compare_variables, raising_findings
from scopelint.verify.plan import DEFAULT_CLUSTER, PlanError, fallback_cluster, parse_cluster_option, plan_program
from scopelint.verify.runner import ChildRun, run_child

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

__all__ = [
    "VerifyOptions", "VerifyReport", "VerifyUsageError", "verify", "parse_cluster_option",
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


def _findings(trace: Any) -> list[Any]:
    from scopelint.rules import all_rules

    found = []
    for module in all_rules():
        try:
            found.extend(module.check(trace))
        except Exception:  # noqa: BLE001 - a rule bug must not hide the run; check reports it
            continue
    return found


def verify(options: VerifyOptions) -> VerifyReport:
    """Predict, run, compare.  Raises VerifyUsageError for usage problems."""
    from scopelint.analysis import ParseFailure, analyze_source
    from scopelint.verify.plan import ChildRequest

    if options.steps < 0:
        raise VerifyUsageError("--steps must be 0 or more")
    if options.timeout <= 0:
        raise VerifyUsageError("--timeout must be positive")
    try:
        program = plan_program(options.path, options.entry)
    except PlanError as problem:
        raise VerifyUsageError(str(problem)) from None
    parse_note = None
    try:
        trace = analyze_source(program.prediction_source, program.path)
        predicted = trace.final_variables()
        raising = raising_findings(trace, _findings(trace))
        complete = trace.complete
        fallback = fallback_cluster(trace)
    except ParseFailure as failure:
        parse_note = f"scopelint cannot parse the program (line {failure.line}): {failure.message}"
        predicted, raising, complete = [], [], False
        fallback = dict(DEFAULT_CLUSTER)
    request = ChildRequest(
        path=program.path, args=list(options.args), entry=program.entry, cluster_override=options.cluster,
        fallback_cluster=fallback, steps=options.steps, status_path="", result_path="",
    )
    child = run_child(request, options.timeout, isolate=options.isolate)
    report = VerifyReport(
        path=program.path, outcome=COMPARED, comparison=None, child=child,
        cluster_used=options.cluster or fallback, result=child.result, parse_note=parse_note,
        complete_prediction=complete, options=options,
    )
    if child.interrupted:
        report.outcome = INTERRUPTED
    elif child.timed_out:
        report.outcome = TIMED_OUT
    elif child.result is None:
        # Before the program started, a failure is the environment's or scopelint's; after, the program's.
        report.outcome = INTERNAL if child.last_phase in ("start", "import") else CRASHED
    if report.outcome != COMPARED or child.result is None:
        return report
    result = child.result
    if result.get("cluster"):
        report.cluster_used = {job: len(addresses) for job, addresses in result["cluster"].items()}
    program_end = result["program"]
    program_error = program_end if program_end["how"] == "exception" or (
        program_end["how"] == "exit" and program_end.get("exit_code")) else None
    if program_error is not None and program_end["how"] == "exit":
        program_error = {**program_error, "error_type": "SystemExit"}
    rows = compare_variables(predicted, result["variables"])
    exceptions = compare_exceptions(
        program.path, raising, program_error, result.get("observe_error"),
        program_ran_to_end=program_end["how"] in ("finished", "exit", "exception"),
    )
    report.comparison = Comparison(rows=rows, exceptions=exceptions)
    return report
