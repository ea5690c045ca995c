"""Formatting a VerifyReport: plain text for people, JSON for machines.  No TensorFlow, no printing."""
from __future__ import annotations

import json
import re
import signal
from dataclasses import asdict
from typing import Any

from scopelint.verify import (
    COMPARED, CRASHED, INSTALL_HINT, INTERNAL, INTERRUPTED, TIMED_OUT, UNAVAILABLE, VerifyReport, WorkersReport,
)
from scopelint.verify.workers import SAME, CROSS_ORDER, CrossRow
from scopelint.verify.compare import (
    MATCHED, NOT_AS_PREDICTED, NOT_RAISED, PREDICTED, STATUS_ORDER, UNPREDICTED, VariableRow,
)

TRACEBACK_LINES = 12
# TensorFlow's and absl's start-up log lines (oneDNN, CUDA drivers): noise in a program's stderr.
_TF_LOG_LINE = re.compile(r"^([IWEF]\d{4} \d\d:\d\d:\d\d|WARNING: All log messages before absl)")
_PROGRAM_ENDS = {
    "finished": "ran to the end",
    "exit": "exited",
    "steps": "cut after {runs} session runs (--steps {steps}), stopped cleanly",
    "join": "called server.join() (a ps task's loop); verify ended it there",
    "exception": "raised {error_type} at line {line}",
    "unavailable": "stopped at line {line}: {message}",
}
_CLUSTER_SOURCES = {
    "program": "the program's ClusterSpec",
    "option": "--cluster",
    "fallback": "default: 2 ps + 1 worker, grown to the predicted devices",
    "none": "not started",
    "target": "an existing cluster (--target); verify started no server",
    "host": "the host's cluster, shared by every worker copy",
}


def _shape_text(shape: list[int | None] | None) -> str:
    if shape is None:
        return "?"
    return "[" + ", ".join("?" if dim is None else str(dim) for dim in shape) + "]"


def _device_text(device: str | None) -> str:
    return "?" if device is None else (device or "''")


def _pair(predicted: str, observed: str, has_prediction: bool, has_observation: bool) -> str:
    if not has_prediction:
        return observed
    if not has_observation or predicted == observed:
        return predicted
    return f"{predicted} vs {observed}"


def _row_cells(row: VariableRow) -> list[str]:
    has_p = row.predicted_line is not None
    has_o = row.observed_dtype is not None
    return [
        row.status,
        row.name,
        _pair(_shape_text(row.predicted_shape), _shape_text(row.observed_shape), has_p, has_o),
        _pair(str(row.predicted_dtype or "?"), str(row.observed_dtype or "?"), has_p, has_o),
        _device_text(row.predicted_device) if has_p else "-",
        _device_text(row.observed_device) if has_o else "-",
        row.placement or "-",
        "; ".join(row.notes),
    ]


def _output_tails(child: Any, whose: str) -> list[str]:
    """The last meaningful lines of a child's stdout and stderr (TensorFlow's log noise left out)."""
    lines: list[str] = []
    for label, text in (("stdout", child.stdout_tail), ("stderr", child.stderr_tail)):
        kept = [line for line in text.rstrip().splitlines()
                if line.strip() and not _TF_LOG_LINE.match(line)][-TRACEBACK_LINES:]
        if kept:
            lines.append("")
            lines.append(f"{whose} {label} (last lines):")
            lines.extend("    " + line for line in kept)
    return lines


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def _signal_note(status: int | None) -> str:
    # A negative status is a signal; through the namespace's sh, a signal N arrives as 128 + N.
    number = -status if status is not None and status < 0 else (status - 128 if status and 128 < status < 160 else None)
    if number is None:
        return ""
    try:
        return f" ({signal.Signals(number).name})"
    except ValueError:
        return ""


def summary_line(report: VerifyReport) -> str:
    child = report.child
    waits = [line for line in child.status if line["phase"] == "model not ready"]
    if report.outcome == TIMED_OUT and waits and child.last_phase in ("session", "model not ready"):
        options = report.options
        limit = f"{options.timeout:g} s" if options else "the time limit"
        return (f"Waiting: the program's session started but the model was never ready within {limit} "
                f"(TensorFlow: {waits[-1].get('message') or 'not ready'}): a non-chief worker waits until the "
                "chief has initialized every variable of its graph, and none initializes a variable on the "
                "worker's own task; the child and every process it started were killed.")
    if report.outcome == TIMED_OUT and child.last_phase == "session":
        options = report.options
        limit = f"{options.timeout:g} s" if options else "the time limit"
        filters = child.status[-1].get("device_filters") or []
        why = ("its config has no device_filters, so its master waits for every task of the cluster (TFS412)"
               if not filters else f"its master waits for a task its device_filters name ({', '.join(filters)})")
        return (f"Waiting: the program's session did not start within {limit}: {why}; the child and every "
                "process it started were killed.")
    if report.outcome == TIMED_OUT:
        options = report.options
        limit = f"{options.timeout:g} s" if options else "the time limit"
        return (f"Timed out: the program did not finish within {limit} (last phase: {child.last_phase}, "
                f"after {child.session_runs} session runs); the child and every process it started were killed.")
    if report.outcome == INTERRUPTED:
        return "Interrupted: the child and every process it started were killed."
    if report.outcome == CRASHED:
        return (f"Crashed: the child process ended with status {child.exit_status}{_signal_note(child.exit_status)} without a report "
                f"(last phase: {child.last_phase}); nothing to compare.")
    if report.outcome == UNAVAILABLE:
        end = (report.result or {}).get("program") or {}
        return (f"Not verified: {end.get('message')} ({report.path}:{end.get('line')}); the program stopped there, "
                "nothing to compare.")
    if report.outcome == INTERNAL:
        return (f"Internal error: the child failed before the program started (status {child.exit_status}); "
                f"is TensorFlow installed? ({INSTALL_HINT})")
    comparison = report.comparison
    assert comparison is not None
    counts = comparison.counts()
    total = len(comparison.rows)
    parts = [f"{counts[status]} {status}" for status in STATUS_ORDER if counts[status] and status != MATCHED]
    raised = [row for row in comparison.exceptions if row.status == PREDICTED]
    wrong = [row for row in comparison.exceptions if row.status != PREDICTED]
    if report.agree:
        exceptions = (f"{len(raised)} exception(s) raised as predicted" if raised
                      else "no exception raised, none predicted")
        return f"Agree: {counts[MATCHED]} of {total} variables matched; {exceptions}."
    text = f"Differ: {counts[MATCHED]} of {total} variables matched"
    if parts:
        text += ", " + ", ".join(parts)
    unpredicted = sum(1 for row in wrong if row.status == UNPREDICTED)
    not_raised = sum(1 for row in wrong if row.status == NOT_RAISED)
    mismatched = sum(1 for row in wrong if row.status == NOT_AS_PREDICTED)
    if mismatched:
        text += f"; {mismatched} exception(s) not as predicted"
    if unpredicted:
        text += f"; {unpredicted} exception(s) nothing predicted"
    if not_raised:
        text += f"; {not_raised} predicted exception(s) not raised"
    return text + "."


def _header(report: VerifyReport) -> list[str]:
    result = report.result or {}
    options = report.options
    lines = [f"scopelint verify {report.path}" + (f" --entry {options.entry}" if options and options.entry else "")
             + (f" --target {options.target}" if options and options.target else "")]
    lines.append(_network_line(report))
    if result.get("cluster") or result.get("cluster_source") == "target":
        jobs = ", ".join(f"{job}: {len(addresses)}" for job, addresses in result["cluster"].items()) or "jobs unknown"
        attached = result.get("cluster_source") in ("target", "host") or bool(report.options and report.options.target)
        where = "" if attached else " on 127.0.0.1"
        lines.append(f"cluster:   {jobs}{where} ({_CLUSTER_SOURCES.get(result.get('cluster_source', ''), '?')}); "
                     f"master {result.get('master') or '-'}")
        for program_address, ours in result.get("address_map", {}).items():
            lines.append(f"           {program_address} -> {ours}")
    if report.result is not None:
        end = result["program"]
        steps = report.options.steps if report.options else "?"
        how = _PROGRAM_ENDS.get(end["how"], end["how"]).format(
            runs=result.get("session_runs", 0), steps=steps, error_type=end.get("error_type"), line=end.get("line"),
            message=end.get("message"))
        if end["how"] == "exit":
            how += f" with status {end.get('exit_code') or 0}"
        sessions = result.get("sessions", [])
        redirected = f"; {len(sessions)} session(s) connected to the master with device filters" if sessions else ""
        if sessions and result.get("cluster_source") == "host":
            # --workers: each copy keeps the program's own session config (verify/child.py).
            redirected = f"; {len(sessions)} session(s) on the copy's worker task with the program's own config"
        runs = "" if end["how"] == "steps" else f" ({result.get('session_runs', 0)} session runs)"
        lines.append(f"program:   {how}{runs}{redirected}")
        lines.append(f"variables: {result.get('initialized', 0)} initialized by verify, "
                     f"{result.get('read_back', 0)} read back from the cluster")
    if report.parse_note:
        lines.append(f"note:      {report.parse_note}")
    if not report.complete_prediction:
        lines.append("note:      the prediction is incomplete: the analysis met code it does not model")
    lines.extend(_tf1_lines(report.tf1_reason, result))
    return lines


def _tf1_lines(reason: str | None, result: dict[str, Any]) -> list[str]:
    lines = []
    if reason is not None:
        mapped = "; ".join(result.get("tf1") or ["tensorflow -> tensorflow.compat.v1 (v2 behaviour disabled)"])
        lines.append(f"tf1 mode:  {mapped} (because {reason})")
    for stub in result.get("stubbed") or []:
        lines.append(f"stubbed:   {stub}")
    for kept in result.get("writes") or []:
        lines.append(f"writes:    {kept}")
    return lines


def _network_line(report: VerifyReport | WorkersReport) -> str:
    isolation = report.child.isolation
    if isolation.private_network:
        return f"network:   private namespace: {isolation.how}"
    if report.options is not None and report.options.target is not None:
        return f"network:   not isolated ({isolation.reason})"
    return (f"network:   NOT ISOLATED ({isolation.reason}): TensorFlow's servers listened on every "
            "interface of this machine during the run")


def format_text(report: VerifyReport | WorkersReport) -> str:
    if isinstance(report, WorkersReport):
        return format_workers_text(report)
    lines = _header(report)
    lines.extend(_body(report))
    lines.append("")
    lines.append(f"{summary_line(report)} ({report.child.seconds:.1f} s)")
    return "\n".join(lines) + "\n"


def _body(report: VerifyReport) -> list[str]:
    lines: list[str] = []
    comparison = report.comparison
    if comparison is not None:
        lines.append("")
        if comparison.rows:
            header = ["STATUS", "NAME", "SHAPE", "DTYPE", "PREDICTED DEVICE", "OBSERVED DEVICE", "PLACED ON", "NOTES"]
            lines.extend(_table([header, *(_row_cells(row) for row in comparison.rows)]))
        else:
            lines.append("no variables predicted or observed")
        lines.append("")
        if not comparison.exceptions:
            lines.append("exceptions: none raised, none predicted")
        for row in comparison.exceptions:
            where = f" at line {row.line}" if row.line else ""
            if row.status == NOT_AS_PREDICTED:
                lines.append(f"exception {row.status} ({row.phase}): {row.error_type}{where}: {_first_line(row.message)}")
                lines.append(f"    at the line of {row.finding}")
                continue
            if row.status == NOT_RAISED:
                lines.append(f"exception {row.status}: {row.finding} ({row.message})")
                continue
            lines.append(f"exception {row.status} ({row.phase}): {row.error_type}{where}: {_first_line(row.message)}")
            if row.finding:
                lines.append(f"    predicted by {row.finding}")
        traceback_text = ((report.result or {}).get("program") or {}).get("traceback")
        if traceback_text and any(row.status in (UNPREDICTED, NOT_AS_PREDICTED) and row.phase == "program"
                                  for row in comparison.exceptions):
            lines.append("")
            lines.append("the program's traceback (last lines):")
            lines.extend("    " + line for line in traceback_text.rstrip().splitlines()[-TRACEBACK_LINES:])
    if report.outcome not in (COMPARED, UNAVAILABLE):
        lines.extend(_output_tails(report.child, "the program's"))
    return lines


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0]


def report_json(report: VerifyReport) -> dict[str, Any]:
    result = report.result or {}
    child = report.child
    comparison = report.comparison
    data: dict[str, Any] = {
        "file": report.path,
        "outcome": report.outcome,
        "agree": report.agree,
        "exit_code": report.exit_code,
        "summary": summary_line(report),
        "seconds": round(child.seconds, 3),
        "isolation": asdict(child.isolation),
        "cluster": {
            "source": result.get("cluster_source"),
            "jobs": result.get("cluster", {}),
            "master": result.get("master"),
            "address_map": result.get("address_map", {}),
        },
        "program": {
            **{key: value for key, value in (result.get("program") or {}).items() if key != "traceback"},
            "session_runs": result.get("session_runs", child.session_runs),
            "last_phase": child.last_phase,
        },
        "sessions": result.get("sessions", []),
        "servers_adopted": result.get("servers_adopted", []),
        "initialized": result.get("initialized", 0),
        "read_back": result.get("read_back", 0),
        "prediction_complete": report.complete_prediction,
        "parse_note": report.parse_note,
        "tf1": {"reason": report.tf1_reason, "mapped": result.get("tf1", [])} if report.tf1_reason else None,
        "stubbed": result.get("stubbed", []),
        "writes": result.get("writes", []),
        "counts": comparison.counts() if comparison else {},
        "variables": [asdict(row) for row in comparison.rows] if comparison else [],
        "exceptions": [asdict(row) for row in comparison.exceptions] if comparison else [],
    }
    if report.outcome != COMPARED:
        data["stdout_tail"] = child.stdout_tail
        data["stderr_tail"] = child.stderr_tail
    return data


def format_json(report: VerifyReport | WorkersReport) -> str:
    data = workers_json(report) if isinstance(report, WorkersReport) else report_json(report)
    return json.dumps(data, indent=2) + "\n"


# ------------------------------------------------------------------------------------ --workers N


def _cross_cell(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "-"
    return f"{_shape_text(cell['shape'])} {cell['dtype']} {_device_text(cell['device'])}"


def workers_summary_line(report: WorkersReport) -> str:
    if report.outcome != COMPARED:
        return summary_line(report)  # type: ignore[arg-type]  # the host's own end: the same wording
    count = len(report.workers)
    answered = sum(1 for worker in report.workers if worker.outcome == COMPARED)
    agreeing = sum(1 for worker in report.workers if worker.agree)
    if report.workers_agree:
        across = f"{count} workers built the same {len(report.cross)} variables on the same devices"
    else:
        counted = {status: sum(1 for row in report.cross if row.status == status) for status in CROSS_ORDER}
        parts = [f"{counted[status]} {status}" for status in CROSS_ORDER if counted[status] and status != SAME]
        if answered < count:
            parts.append(f"{count - answered} of {count} workers gave no result")
        across = f"the workers differ: {counted[SAME]} of {len(report.cross)} variables the same" + (
            ", " + ", ".join(parts) if parts else "")
    prediction = ("each agrees with the prediction" if agreeing == count
                  else f"{agreeing} of {count} agree with the prediction")
    return f"{'Agree' if report.agree else 'Differ'}: {across}; {prediction}."


def format_workers_text(report: WorkersReport) -> str:
    options = report.options
    lines = [f"scopelint verify {report.path} --workers {len(report.workers) or (options.workers if options else '?')}"
             + (f" --target {options.target}" if options and options.target else "")]
    lines.append(_network_line(report))
    if report.cluster:
        jobs = ", ".join(f"{job}: {len(addresses)}" for job, addresses in report.cluster.items())
        where = "" if report.cluster_source == "target" else " on 127.0.0.1"
        source = {"option": "--cluster", "setter": "the cluster given to the program's setter",
                  "fallback": "default: 2 ps + 1 worker, grown to the predicted devices",
                  "target": "an existing cluster (--target); verify started no server"}.get(report.cluster_source, "?")
        if report.cluster_source == "target":
            lines.append(f"cluster:   {jobs} ({source}); shared by every copy")
        else:
            lines.append(f"cluster:   {jobs}{where} ({source}, worker job grown to the copies); started once, "
                         "shared by every copy")
    if report.absent:
        lines.append(f"           not running (no copy for them): {', '.join(report.absent)}")
    if report.cluster_error:
        lines.append(f"cluster:   could not be started: {report.cluster_error}")
    if report.parse_note:
        lines.append(f"note:      {report.parse_note}")
    if not report.complete_prediction:
        lines.append("note:      the prediction is incomplete: the analysis met code it does not model")
    for index, worker in enumerate(report.workers):
        lines.append("")
        args = " ".join(worker.options.args) if worker.options and worker.options.args else "(none)"
        lines.append(f"== worker {index}: arguments {args}; TF_CONFIG task {{\"type\": \"worker\", \"index\": {index}}}")
        lines.extend(_header(worker)[2:])
        lines.extend(_body(worker))
        lines.append(f"worker {index}: {summary_line(worker)} ({worker.child.seconds:.1f} s)")
    if report.cross:
        lines.append("")
        lines.append("across workers (a device on the copy's own worker task is written task:<own>):")
        header = ["STATUS", "NAME", *(f"WORKER {index}" for index in range(len(report.workers))), "NOTES"]
        rows = [[row.status, row.name, *(_cross_cell(cell) for cell in row.per_worker), "; ".join(row.notes)]
                for row in report.cross]
        lines.extend(_table([header, *rows]))
    if report.outcome != COMPARED:
        lines.extend(_output_tails(report.child, "the host's"))
    lines.append("")
    lines.append(f"{workers_summary_line(report)} ({report.child.seconds:.1f} s)")
    return "\n".join(lines) + "\n"


def _cross_json(row: CrossRow) -> dict[str, Any]:
    return asdict(row)


def workers_json(report: WorkersReport) -> dict[str, Any]:
    return {
        "file": report.path,
        "outcome": report.outcome,
        "agree": report.agree,
        "workers_agree": report.workers_agree,
        "exit_code": report.exit_code,
        "summary": workers_summary_line(report),
        "seconds": round(report.child.seconds, 3),
        "isolation": asdict(report.child.isolation),
        "cluster": {"source": report.cluster_source, "jobs": report.cluster, "error": report.cluster_error,
                    "not_running": report.absent},
        "prediction_complete": report.complete_prediction,
        "parse_note": report.parse_note,
        "workers": [{"task_index": index, "args": worker.options.args if worker.options else [], **report_json(worker)}
                    for index, worker in enumerate(report.workers)],
        "across_workers": [_cross_json(row) for row in report.cross],
    }
