"""`scopelint verify --confirm`: run the program once per finding's path condition, judge each finding.

Every finding carries the configuration it happens on (analysis/paths.py: the run's PathCondition,
with the command-line arguments and environment that select it).  `--confirm` groups the findings
of the program's files by the first run that has them (the default run first), runs the program
once per group with that run's arguments (`-- --is_train=True --dataset=mnist`) and environment,
and says for each finding:

- confirmed: TensorFlow raised exactly what the finding says (same type, same line, message naming
  the same variable or keyword);
- refuted: the finding's line ran and TensorFlow raised nothing there, or raised something else;
- not reached: the program never executed the finding's line on that run (it stopped earlier, was
  cut after --steps, timed out...): no evidence either way.

A finding TensorFlow raises nothing for (a silent duplicate, a discarded setter) cannot be confirmed
by an exception: it is `reached` or `not reached`, and the run's variable rows show its effect.
No TensorFlow here: the runs are verify's own children.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from typing import Any

from scopelint.diagnostics import Diagnostic
from scopelint.verify import (
    COMPARED, EXIT_AGREE, EXIT_DIFFER, EXIT_ERROR, INTERNAL, VerifyOptions, VerifyReport, _findings, _predict,
    fallback_cluster, raising_findings, require_tensorflow, run_once,
)
from scopelint.verify.compare import PredictedRaise, describe_finding, raised_at

CONFIRMED = "confirmed"
REFUTED = "refuted"
NOT_REACHED = "not reached"
REACHED = "reached"  # a silent finding whose line ran
VERDICT_ORDER = (CONFIRMED, REFUTED, NOT_REACHED, REACHED)


@dataclass
class FindingCheck:
    finding: Diagnostic
    condition: str  # the run's condition label ("with the default flags", "when --is_train")
    argv: list[str]
    environment: dict[str, str]
    raises: PredictedRaise | None  # None: TensorFlow raises nothing for this finding
    verdict: str = NOT_REACHED
    detail: str = ""
    run: int = 0  # index into ConfirmReport.runs


@dataclass
class ConfirmRun:
    condition: str
    argv: list[str]
    environment: dict[str, str]
    report: VerifyReport


@dataclass
class ConfirmReport:
    path: str
    checks: list[FindingCheck] = field(default_factory=list)
    runs: list[ConfirmRun] = field(default_factory=list)
    parse_note: str | None = None

    @property
    def exit_code(self) -> int:
        if any(run.report.outcome == INTERNAL for run in self.runs):
            return EXIT_ERROR
        if not self.checks:
            return EXIT_AGREE
        return EXIT_AGREE if all(check.verdict in (CONFIRMED, REACHED) for check in self.checks) else EXIT_DIFFER


def _key(finding: Diagnostic) -> tuple[Any, ...]:
    return (finding.code, finding.site.path, finding.site.line, finding.site.column, finding.message)


def confirm(options: VerifyOptions) -> ConfirmReport:
    prediction = _predict(options)
    require_tensorflow()
    report = ConfirmReport(path=prediction.program.path, parse_note=prediction.parse_note)
    trace = prediction.trace
    if trace is None:
        return report
    program_root = os.path.dirname(os.path.abspath(prediction.program.path))
    seen: set[tuple[Any, ...]] = set()
    groups: list[tuple[Any, list[PredictedRaise], list[FindingCheck]]] = []  # (run's trace, its raises, new findings)
    for run in [trace, *trace.other_paths]:
        found = [finding for finding in _findings(run)
                 if os.path.abspath(finding.site.path).startswith(program_root + os.sep)]
        run_raising = raising_findings(run, found)
        raising = {id(item.finding): item for item in run_raising}
        condition = run.condition
        checks = []
        for finding in found:
            if _key(finding) in seen:
                continue
            seen.add(_key(finding))
            checks.append(FindingCheck(
                finding=finding, condition=condition.label if condition else "with the default flags",
                argv=list(condition.argv) if condition else [],
                environment=dict(condition.environment) if condition else {}, raises=raising.get(id(finding)),
            ))
        if checks:
            groups.append((run, run_raising, checks))
    for run, run_raising, checks in groups:
        first = checks[0]
        # The run is compared with what the analysis predicted for that configuration.
        run_prediction = replace(prediction, predicted=run.final_variables(), raising=run_raising,
                                 fallback=fallback_cluster(run), complete=run.complete)
        run_options = replace(options, args=_merged_args(options.args, first.argv),
                              environment=first.environment or None,
                              watch_lines=[[os.path.abspath(check.finding.site.path), check.finding.site.line]
                                           for check in checks])
        verified = run_once(run_options, run_prediction)
        report.runs.append(ConfirmRun(first.condition, first.argv, first.environment, verified))
        for check in checks:
            check.run = len(report.runs) - 1
            _judge(check, verified)
        report.checks.extend(checks)
    return report


def _merged_args(given: list[str], condition: list[str]) -> list[str]:
    """The user's arguments, then the condition's.  A condition value `other` (any value but the
    ones the program compares with: `--input_dir=other`) is left out when the user gives that
    option: the user's real value stands for it (a directory that exists, not the word "other")."""
    from scopelint.analysis.config_values import OTHER_COMMAND_LINE
    from scopelint.verify import _normalized

    given_options = {arg.split("=", 1)[0] for arg in _normalized(given) if arg.startswith("--")}
    kept = [item for item in condition
            if not (item.partition("=")[2] == OTHER_COMMAND_LINE and item.partition("=")[0] in given_options)]
    return [*given, *kept]


def _judge(check: FindingCheck, run: VerifyReport) -> None:
    result = run.result
    site = check.finding.site
    if result is None:
        check.verdict, check.detail = NOT_REACHED, f"the run gave no result ({run.outcome})"
        return
    end = result["program"]
    reached = [os.path.abspath(site.path), site.line] in [list(item) for item in result.get("lines_reached", [])]
    raised_here = end["how"] == "exception" and raised_at(check.finding, end, run.path)
    if check.raises is None:
        check.verdict = REACHED if reached else NOT_REACHED
        check.detail = ("its line ran; TensorFlow raises nothing for it (the variable rows show its effect)"
                        if reached else _why_not_reached(end, run))
        return
    if raised_here:
        if check.raises.matches(end.get("error_type"), end.get("message") or ""):
            check.verdict, check.detail = CONFIRMED, f"TensorFlow raised {end['error_type']}: {_first(end.get('message'))}"
        else:
            check.verdict = REFUTED
            check.detail = (f"TensorFlow raised {end.get('error_type')}: {_first(end.get('message'))}; "
                            f"the finding predicted {check.raises.describe()}")
        return
    if reached:
        check.verdict = REFUTED
        check.detail = ("its line ran and TensorFlow raised nothing there; the program "
                        + _ending(end, run))
        return
    check.verdict, check.detail = NOT_REACHED, _why_not_reached(end, run)


def _ending(end: dict[str, Any], run: VerifyReport) -> str:
    how = end["how"]
    if how == "exception":
        return f"raised {end.get('error_type')} at line {end.get('line')}"
    if how == "steps":
        return "was cut after --steps session runs"
    if how == "unavailable":
        return end.get("message") or "reached a tf.contrib name TensorFlow 2 lacks"
    return {"finished": "ran to the end", "exit": f"exited with status {end.get('exit_code') or 0}",
            "join": "called server.join()"}.get(how, how)


def _why_not_reached(end: dict[str, Any], run: VerifyReport) -> str:
    if run.outcome != COMPARED and end["how"] not in ("exception", "steps", "unavailable"):
        return f"the run ended as {run.outcome} before the line"
    return "its line never ran: the program " + _ending(end, run)


def _first(text: str | None) -> str:
    return ((text or "").strip().splitlines() or [""])[0]


def summary_line(report: ConfirmReport) -> str:
    if not report.checks:
        return "Nothing to confirm: no finding in the program's files."
    counts = {verdict: sum(1 for check in report.checks if check.verdict == verdict) for verdict in VERDICT_ORDER}
    parts = ", ".join(f"{counts[verdict]} {verdict}" for verdict in VERDICT_ORDER if counts[verdict])
    word = "Confirmed" if report.exit_code == EXIT_AGREE else "Not all confirmed"
    return f"{word}: {len(report.checks)} finding(s) in {len(report.runs)} run(s): {parts}."


def format_confirm_text(report: ConfirmReport) -> str:
    from scopelint.verify.report import summary_line as run_summary

    lines = [f"scopelint verify --confirm {report.path}"]
    if report.parse_note:
        lines.append(f"note:      {report.parse_note}")
    for index, run in enumerate(report.runs):
        ran_with = run.report.options.args if run.report.options is not None else run.argv
        args = " ".join(ran_with) or "(no arguments)"
        env = " ".join(f"{key}={value}" for key, value in run.environment.items())
        lines.append("")
        lines.append(f"== run {index + 1}: {run.condition}: -- {args}" + (f" (environment {env})" if env else ""))
        if run.report.tf1_reason:
            lines.append(f"   tf1 mode (because {run.report.tf1_reason})")
        for stub in (run.report.result or {}).get("stubbed", []):
            lines.append(f"   stubbed: {stub}")
        for check in report.checks:
            if check.run == index:
                lines.append(f"   {check.verdict:<11} {check.finding.path}:{check.finding.site.line}: "
                             f"{describe_finding(check.finding)}")
                lines.append(f"               {check.detail}")
        lines.append(f"   run: {run_summary(run.report)} ({run.report.child.seconds:.1f} s)")
    lines.append("")
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def format_confirm_json(report: ConfirmReport) -> str:
    from scopelint.verify.report import report_json

    data = {
        "file": report.path,
        "exit_code": report.exit_code,
        "summary": summary_line(report),
        "findings": [{
            "code": check.finding.code, "message": check.finding.message, "filename": check.finding.path,
            "line": check.finding.site.line, "condition": check.condition, "argv": check.argv,
            "environment": check.environment, "verdict": check.verdict, "detail": check.detail, "run": check.run,
            "predicted_exception": check.raises.describe() if check.raises else None,
        } for check in report.checks],
        "runs": [{"condition": run.condition, "argv": run.argv, "environment": run.environment,
                  **report_json(run.report)} for run in report.runs],
    }
    return json.dumps(data, indent=2) + "\n"
