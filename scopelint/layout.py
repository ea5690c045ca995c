"""`scopelint layout`: the predicted variable inventory of a program's final default graph (or,
when that holds none, of the graphs an Estimator's model_fn builds).

Pure formatting of a Trace: which variables exist, where they live, and how the load spreads over
the ps tasks.  No analysis and no TensorFlow here; the CLI analyses the file and hands the Trace in.

Devices are written as TensorFlow writes `Variable.device` ("/job:ps/task:0", or "" for none);
a device the analysis could not compute is None (JSON null, "?" in the table and CSV).
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from scopelint.model.devices import DeviceSpec
from scopelint.model.sizes import bytes_of
from scopelint.trace import Shape, Trace, VariableRecord

FORMATS = ("table", "json", "csv")
# The job `replica_device_setter` sends variables to by default; its tasks are the "ps tasks".
PS_JOB = "ps"
BAR_WIDTH = 30
# Width of the table when the output is not a terminal (a file or a pipe).
PIPED_WIDTH = 200


@dataclass(frozen=True)
class LayoutRow:
    """One predicted variable."""

    name: str
    shape: Shape
    dtype: str | None
    bytes: int | None  # None when the shape or dtype is not fully known
    device: str | None  # "" for none, None when unknown
    kind: str
    certain: bool
    location: str  # path:line:col


@dataclass(frozen=True)
class TaskLoad:
    """What one ps task holds, counted over the certain variables placed on it."""

    device: str  # "/job:ps/task:0" (replica kept when the device names one)
    variables: int
    bytes: int  # the sum over variables whose size is known
    unsized: int  # variables on this task whose size is not known


@dataclass(frozen=True)
class Layout:
    path: str
    rows: tuple[LayoutRow, ...]
    ps_tasks: tuple[TaskLoad, ...]
    uncertain: int  # rows whose existence or name the analysis could not prove
    # Where TensorFlow certainly raises while the graph is built ("model.py:5:10", its message): a
    # real run stops at the first; the rows after it are predicted for the program as fixed there.
    raises: tuple[tuple[str, str], ...] = ()
    unmodelled: bool = False  # the program calls code scopelint does not model
    # "with the default flags" when the program has other configurations: the rows and raises are
    # those of the default run.
    condition: str | None = None

    @property
    def complete(self) -> bool:
        """False when something unmodelled may have created more variables, or when TensorFlow
        raises: a file it crashes on has no complete layout, the run never gets past the error."""
        return not self.unmodelled and not self.raises


def location_of(record: VariableRecord) -> str:
    return f"{record.site.path}:{record.site.position()}"  # path:cell N:line:col in a notebook


def row_of(record: VariableRecord) -> LayoutRow:
    return LayoutRow(
        name=record.name,
        shape=record.shape,
        dtype=record.dtype,
        bytes=bytes_of(record.shape, record.dtype),
        device=record.device,
        kind=record.kind,
        certain=record.certain,
        location=location_of(record),
    )


def ps_task_of(device: str | None) -> str | None:
    """The ps task a device string names ("/job:ps/task:1/device:CPU:0" -> "/job:ps/task:1"), or None
    when the device is unknown, not on the ps job, or its task is not a known number."""
    if not device:
        return None
    spec = DeviceSpec.parse_or_none(device)
    if spec is None or spec.job != PS_JOB or not isinstance(spec.task, int):
        return None
    if spec.replica is not None and not isinstance(spec.replica, int):
        return None
    return DeviceSpec(job=spec.job, replica=spec.replica, task=spec.task).to_string()


def _task_sort_key(device: str) -> tuple[int, int]:
    spec = DeviceSpec.parse(device)
    return (spec.replica if isinstance(spec.replica, int) else -1, spec.task if isinstance(spec.task, int) else -1)


def build_layout(trace: Trace) -> Layout:
    # The final default graph is what a session of the program runs; a program that builds its
    # variables only in graphs of their own (an Estimator's model_fn) is shown with those.
    records = trace.final_variables() or trace.inventory()
    rows = tuple(row_of(record) for record in records)
    loads: dict[str, list[LayoutRow]] = {}
    for row in rows:
        task = ps_task_of(row.device) if row.certain else None
        if task is not None:
            loads.setdefault(task, []).append(row)
    ps_tasks = tuple(
        TaskLoad(
            device=task,
            variables=len(members),
            bytes=sum(member.bytes for member in members if member.bytes is not None),
            unsized=sum(1 for member in members if member.bytes is None),
        )
        for task, members in sorted(loads.items(), key=lambda item: _task_sort_key(item[0]))
    )
    raises = tuple((f"{event.site.path}:{event.site.position()}", event.message)
                   for event in trace.raising_events())
    return Layout(trace.path, rows, ps_tasks, sum(1 for row in rows if not row.certain), raises,
                  unmodelled=not trace.complete,
                  # Other runs exist: this layout, and its raises, are the default run's.
                  condition=trace.condition.label if trace.condition is not None and trace.other_paths else None)


# --- machine formats ------------------------------------------------------------------------------


def _shape_json(shape: Shape) -> list[int | None] | None:
    return None if shape is None else list(shape)


def layout_data(layout: Layout) -> dict[str, Any]:
    """The JSON document (design.md: `{"variables": [...], ...}`)."""
    return {
        "path": layout.path,
        "complete": layout.complete,
        "variables": [
            {
                "name": row.name,
                "shape": _shape_json(row.shape),
                "dtype": row.dtype,
                "bytes": row.bytes,
                "device": row.device,
                "kind": row.kind,
                "certain": row.certain,
                "location": row.location,
            }
            for row in layout.rows
        ],
        "ps_tasks": [
            {"device": load.device, "variables": load.variables, "bytes": load.bytes, "unsized": load.unsized}
            for load in layout.ps_tasks
        ],
        "raises": [{"location": location, "message": message} for location, message in layout.raises],
        "condition": layout.condition,
    }


def layout_json(layout: Layout) -> str:
    return json.dumps(layout_data(layout), indent=2) + "\n"


CSV_COLUMNS = ("name", "shape", "dtype", "bytes", "device", "kind", "certain", "location")


def shape_text(shape: Shape) -> str:
    """"[2, 3]", "[None, 3]", "[]" for a scalar, "?" when even the rank is unknown."""
    if shape is None:
        return "?"
    return "[" + ", ".join("None" if dim is None else str(dim) for dim in shape) + "]"


def layout_csv(layout: Layout) -> str:
    return layout_csv_many([layout])


def layout_csv_many(layouts: Sequence[Layout]) -> str:
    """One header, then every file's rows (each row's location names its file)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in (row for layout in layouts for row in layout.rows):
        writer.writerow([
            row.name, shape_text(row.shape), row.dtype or "", "" if row.bytes is None else row.bytes,
            "?" if row.device is None else row.device, row.kind, "true" if row.certain else "false", row.location,
        ])
    return buffer.getvalue()


# --- the rich table -------------------------------------------------------------------------------


def _bar(value: int, largest: int) -> str:
    if largest <= 0:
        return ""
    cells = round(BAR_WIDTH * value / largest)
    return "█" * max(cells, 1 if value > 0 else 0)


def human_bytes(count: int | None) -> str:
    if count is None:
        return "?"
    size = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{count} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} B"  # unreachable: the loop returns at GiB


# Columns of the variable table; on a narrow terminal the last of DROPPED_FIRST go first (the JSON
# and CSV formats keep them all), so that the device, the reason to run `layout`, stays whole.
TABLE_COLUMNS = ("name", "shape", "dtype", "bytes", "device", "kind", "location")
DROPPED_FIRST = ("kind", "location", "dtype")


def _table_cells(layout: Layout) -> list[dict[str, str]]:
    return [
        {
            "name": row.name if row.certain else f"{row.name} (uncertain)",
            "shape": shape_text(row.shape),
            "dtype": row.dtype or "?",
            "bytes": human_bytes(row.bytes),
            "device": "?" if row.device is None else (row.device or "(none)"),
            "kind": row.kind,
            "location": row.location,
        }
        for row in layout.rows
    ]


# Names may wrap (over two or three lines) down to this width before a column is left out.
NAME_MIN_WIDTH = 24


def _table_width(cells: list[dict[str, str]], columns: Sequence[str]) -> int:
    """The width rich needs for these columns (a border and 2 padding per column), names wrapped
    to NAME_MIN_WIDTH and every other cell on one line."""
    def needed(column: str) -> int:
        widest = max([len(column), *(len(cell[column]) for cell in cells)])
        return min(widest, NAME_MIN_WIDTH) if column == "name" else widest

    return 1 + sum(3 + needed(column) for column in columns)


def visible_columns(cells: list[dict[str, str]], width: int | None) -> list[str]:
    columns = list(TABLE_COLUMNS)
    for column in DROPPED_FIRST:
        if width is None or _table_width(cells, columns) <= width:
            break
        columns.remove(column)
    return columns


def layout_table(layout: Layout, width: int | None = None) -> Group:
    """The tables for a terminal `width` columns wide (None: as wide as they need).  Names wrap
    rather than being cut; the device column is never cut (`/job:ps/t…` told nothing)."""
    cells = _table_cells(layout)
    columns = visible_columns(cells, width)
    variables = Table(title=f"Variables of {layout.path}", title_justify="left")
    longest_device = max([len("device"), *(len(cell["device"]) for cell in cells)])
    for column in columns:
        if column == "device":
            variables.add_column(column, no_wrap=True, min_width=longest_device)
        else:
            variables.add_column(column, justify="right" if column == "bytes" else "left", overflow="fold")
    for row, cell in zip(layout.rows, cells):
        variables.add_row(*(cell[column] for column in columns), style="" if row.certain else "dim")
    parts: list[Any] = [variables]
    if layout.ps_tasks:
        tasks = Table(title="Load per ps task", title_justify="left")
        tasks.add_column("task")
        tasks.add_column("variables", justify="right")
        tasks.add_column("bytes", justify="right")
        tasks.add_column("")
        largest = max(load.bytes for load in layout.ps_tasks)
        for load in layout.ps_tasks:
            size = human_bytes(load.bytes) + (f" + {load.unsized} unsized" if load.unsized else "")
            tasks.add_row(load.device, str(load.variables), size, Text(_bar(load.bytes, largest), style="cyan"))
        parts.append(tasks)
    notes = []
    left_out = [column for column in TABLE_COLUMNS if column not in columns]
    if left_out:
        notes.append(f"Columns left out to fit {width} columns: {', '.join(left_out)} (--output-format json or csv has them).")
    when = f" {layout.condition}" if layout.condition is not None else ""
    for location, message in layout.raises[:1]:
        notes.append(f"TensorFlow raises at {location}{when}: {message} A real run stops there; "
                     "the variables after it are predicted for the program as fixed there.")
    if layout.uncertain:
        notes.append(f"{layout.uncertain} variable(s) are uncertain and not counted per task.")
    if layout.unmodelled:
        notes.append("The program calls code scopelint does not model: it may create more variables.")
    if not layout.rows:
        notes.append("No variables predicted.")
    parts.extend(Text(note, style="yellow") for note in notes)
    return Group(*parts)
