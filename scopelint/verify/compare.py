"""Predicted against observed: one row per variable, one row per exception.  Pure: no TensorFlow.

A variable row says `matched` only when the name, shape, dtype and device TensorFlow produced are
exactly what scopelint predicted, and the run really placed the variable where its device string
says.  A prediction that was left unknown (a `?` in the name, an unknown dimension or device) is
never counted as agreement: it is shown as `unknown`, which is honest, not a contradiction, but not
a confirmation either.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from scopelint.diagnostics import Diagnostic
from scopelint.model.devices import DeviceSpec, DeviceSpecError
from scopelint.trace import UNKNOWN_PART, Trace, VariableRecord

MATCHED = "matched"
ONLY_PREDICTED = "only predicted"
ONLY_OBSERVED = "only observed"
DEVICE_DIFFERS = "device differs"
SHAPE_DIFFERS = "shape differs"
DTYPE_DIFFERS = "dtype differs"
UNKNOWN = "unknown"  # the prediction left this field unknown
# The order in which a row with several differences is labelled.
STATUS_ORDER = (ONLY_OBSERVED, ONLY_PREDICTED, DEVICE_DIFFERS, SHAPE_DIFFERS, DTYPE_DIFFERS, UNKNOWN, MATCHED)

PREDICTED = "predicted"  # an exception TensorFlow raised, with the finding that predicted it
UNPREDICTED = "unpredicted"  # an exception no finding predicted
NOT_RAISED = "not raised"  # a finding said TensorFlow raises; it did not
# TensorFlow raised at a finding's line, but not what the finding said (another type, or a message
# that does not name the variable or keyword): the finding is not confirmed by it.
NOT_AS_PREDICTED = "not as predicted"

# What TensorFlow raises for each raising event kind when the event does not say (its `error`).
DEFAULT_ERROR_TYPES = {
    "already_exists": "ValueError", "does_not_exist": "ValueError", "shared_mismatch": "ValueError",
    "invalid_arguments": "ValueError", "device_setter_bad_argument": "TypeError",
    "device_function_in_tf2_device": "RuntimeError",
}


@dataclass
class VariableRow:
    status: str
    name: str
    predicted_shape: list[int | None] | None = None
    observed_shape: list[int | None] | None = None
    predicted_dtype: str | None = None
    observed_dtype: str | None = None
    predicted_device: str | None = None  # "" for none, None when the prediction did not know
    observed_device: str | None = None  # Variable.device in the graph
    placement: str | None = None  # where the run put the variable op
    predicted_line: int | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class ExceptionRow:
    status: str
    phase: str  # "program" (while the program ran) or "read back" (verify's initialize and read)
    error_type: str | None
    message: str
    line: int  # line in the program (0 when none)
    finding: str | None = None  # "TFS101 at line 20: ..." for the finding that predicted it


@dataclass
class Comparison:
    rows: list[VariableRow]
    exceptions: list[ExceptionRow]

    def counts(self) -> dict[str, int]:
        counted = {status: 0 for status in STATUS_ORDER}
        for row in self.rows:
            counted[row.status] += 1
        return counted

    @property
    def agree(self) -> bool:
        return all(row.status == MATCHED for row in self.rows) and all(
            row.status == PREDICTED for row in self.exceptions
        )


def _shape_list(shape: Any) -> list[int | None] | None:
    return None if shape is None else list(shape)


def _placement_satisfies(placement: str, requested: str) -> bool | None:
    """Does the runtime device fulfil every field the requested device string sets?"""
    try:
        placed = DeviceSpec.parse(placement)
        wanted = DeviceSpec.parse(requested)
    except DeviceSpecError:
        return None
    for field_name in ("job", "replica", "task", "device_type", "device_index"):
        want = getattr(wanted, field_name)
        if want is not None and want != getattr(placed, field_name):
            return False
    return True


def _compare_fields(row: VariableRow, record: VariableRecord, observed: dict[str, Any]) -> None:
    problems: list[str] = []
    # Device: the graph's own string, then where the run put it.
    if record.device is None:
        problems.append(UNKNOWN)
        row.notes.append("device not predicted")
    elif UNKNOWN_PART in record.device:
        # A partly known device (`/job:ps/task:?`): unknown when its known parts agree.
        pattern = ".*".join(re.escape(part) for part in record.device.split(UNKNOWN_PART))
        if re.fullmatch(pattern, observed["device"]):
            problems.append(UNKNOWN)
            row.notes.append("task not predicted")
        else:
            problems.append(DEVICE_DIFFERS)
    elif record.device != observed["device"]:
        problems.append(DEVICE_DIFFERS)
    placement = observed.get("placement")
    if placement and observed["device"] and _placement_satisfies(placement, observed["device"]) is False:
        problems.append(DEVICE_DIFFERS)
        row.notes.append(f"placed on {placement}, not on {observed['device']}")
    if not placement:
        row.notes.append("not placed: the read-back run did not place it")
    # Shape: an unknown rank or dimension in the prediction is unknown, not wrong, unless the
    # known parts already contradict TensorFlow.
    predicted_shape, observed_shape = row.predicted_shape, row.observed_shape
    if predicted_shape is None:
        problems.append(UNKNOWN)
        row.notes.append("shape not predicted")
    elif observed_shape is None or len(predicted_shape) != len(observed_shape):
        problems.append(SHAPE_DIFFERS)
    elif any(p is not None and p != o for p, o in zip(predicted_shape, observed_shape)):
        problems.append(SHAPE_DIFFERS)
    elif any(p is None and o is not None for p, o in zip(predicted_shape, observed_shape)):
        problems.append(UNKNOWN)
        row.notes.append("some dimensions not predicted")
    if record.dtype is None:
        problems.append(UNKNOWN)
        row.notes.append("dtype not predicted")
    elif record.dtype != observed["dtype"]:
        problems.append(DTYPE_DIFFERS)
    if not record.certain:
        row.notes.append("predicted as uncertain")
    row.status = min(problems or [MATCHED], key=STATUS_ORDER.index)


def _pattern_of(name: str) -> re.Pattern[str]:
    # An unknown part stands for any text within one name segment.
    return re.compile("[^/]*".join(re.escape(part) for part in name.split(UNKNOWN_PART)) + r"\Z")


def compare_variables(predicted: list[VariableRecord], observed: list[dict[str, Any]]) -> list[VariableRow]:
    exact: dict[str, VariableRecord] = {}
    partial: list[VariableRecord] = []
    for record in predicted:
        if UNKNOWN_PART in record.name:
            partial.append(record)
        else:
            exact.setdefault(record.name, record)
    used: set[int] = set()
    rows: list[VariableRow] = []
    for item in observed:
        record = exact.get(item["name"])
        partly = False
        if record is None:
            record = next((candidate for candidate in partial
                           if id(candidate) not in used and _pattern_of(candidate.name).match(item["name"])), None)
            partly = record is not None
        row = VariableRow(
            status=ONLY_OBSERVED, name=item["name"], observed_shape=_shape_list(item["shape"]),
            observed_dtype=item["dtype"], observed_device=item["device"], placement=item.get("placement"),
        )
        if record is not None:
            used.add(id(record))
            row.predicted_shape = _shape_list(record.shape)
            row.predicted_dtype = record.dtype
            row.predicted_device = record.device
            row.predicted_line = record.site.line
            _compare_fields(row, record, item)
            if partly:
                row.notes.append(f"name predicted only as {record.name}")
                if row.status == MATCHED:
                    row.status = UNKNOWN
        rows.append(row)
    observed_names = {item["name"] for item in observed}
    for record in predicted:
        if id(record) in used or record.name in observed_names:
            continue
        used.add(id(record))
        rows.append(VariableRow(
            status=ONLY_PREDICTED, name=record.name, predicted_shape=_shape_list(record.shape),
            predicted_dtype=record.dtype, predicted_device=record.device, predicted_line=record.site.line,
            notes=[] if record.certain else ["predicted as uncertain"],
        ))
    return rows

NAMING_KEY = frozenset({"already_exists", "does_not_exist", "shared_mismatch"})


@dataclass(frozen=True)
class PredictedRaise:
    """A finding that says TensorFlow raises, and what exactly: the type and the name the message holds."""

    finding: Diagnostic
    error_type: str
    names: str | None  # the variable (store key) or keyword TensorFlow's message names; None: not known

    def matches(self, error_type: str | None, message: str) -> bool:
        return error_type == self.error_type and (self.names is None or self.names in message)

    def describe(self) -> str:
        naming = f" naming {self.names!r}" if self.names else ""
        return f"{self.error_type}{naming}"


def raising_findings(trace: Trace, findings: list[Diagnostic]) -> list[PredictedRaise]:
    """The findings that say TensorFlow raises: those reported at a certain raising event."""
    events = {(event.site.path, event.site.line, event.site.column): event for event in trace.raising_events()}
    found = []
    for finding in findings:
        event = events.get((finding.site.path, finding.site.line, finding.site.column))
        # Another rule may report at the same call (TFS404 at a setter TFS402 rejects): only the
        # finding that states the event's error is the one that says TensorFlow raises.
        if event is None or event.message not in finding.message:
            continue
        error_type = event.data.get("error") or DEFAULT_ERROR_TYPES.get(event.kind, "ValueError")
        # Which name TensorFlow's message holds: the store key for reuse errors, the keyword for
        # the setter's; other messages ("If initializer is a constant, ...") name nothing.
        names = event.data.get("key") if event.kind in NAMING_KEY else event.data.get("argument")
        found.append(PredictedRaise(finding, str(error_type), str(names) if names else None))
    return found


def describe_finding(finding: Diagnostic) -> str:
    return f"{finding.code} at line {finding.site.line}: {finding.message}"


def raised_at(finding: Diagnostic, error: dict[str, Any], program_path: str) -> bool:
    """Did the exception come from the finding's line?  The innermost frame in the program's own
    files when the child recorded it (a finding in model.py of a program run as main.py), else
    the innermost line of the program file."""
    if error.get("site_file"):
        return (os.path.abspath(finding.site.path) == error["site_file"]
                and finding.site.line == int(error.get("site_line") or 0))
    line = int(error.get("line") or 0)
    return bool(line) and finding.site.line == line and finding.site.path == program_path


def compare_exceptions(
    program_path: str, raising: list[PredictedRaise], program_error: dict[str, Any] | None,
    read_error: dict[str, Any] | None, program_ran_to_end: bool,
) -> list[ExceptionRow]:
    """One row per exception TensorFlow raised and per predicted one it did not.

    A raised exception is `predicted` only by a finding at the same line of the same file that
    predicted the same type with a message naming the same variable or keyword; a finding at that
    line that predicted something else makes the row `not as predicted` (a difference)."""
    rows: list[ExceptionRow] = []
    matched: set[int] = set()
    for phase, error in (("program", program_error), ("read back", read_error)):
        if error is None:
            continue
        line = int(error.get("line") or 0)
        if error.get("error_type") == "SystemExit":
            message = f"the program exited with status {error.get('exit_code')}"
        else:
            message = error.get("message") or ""
        at_line = [candidate for candidate in raising
                   if phase == "program" and id(candidate) not in matched and raised_at(candidate.finding, error, program_path)]
        exact = next((candidate for candidate in at_line if candidate.matches(error.get("error_type"), message)), None)
        status = PREDICTED if exact is not None else NOT_AS_PREDICTED if at_line else UNPREDICTED
        chosen = exact or (at_line[0] if at_line else None)
        finding_text = None
        if chosen is not None:
            matched.add(id(chosen))
            finding_text = describe_finding(chosen.finding)
            if exact is None:
                finding_text += f" (it predicted {chosen.describe()})"
        rows.append(ExceptionRow(status=status, phase=phase, error_type=error.get("error_type"),
                                 message=message, line=line, finding=finding_text))
    for candidate in raising:
        if id(candidate) not in matched:
            reason = "TensorFlow raised nothing there" if program_ran_to_end else "the program stopped before it"
            rows.append(ExceptionRow(status=NOT_RAISED, phase="program", error_type=None, message=reason,
                                     line=candidate.finding.site.line, finding=describe_finding(candidate.finding)))
    return rows
