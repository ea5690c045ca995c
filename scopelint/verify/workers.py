"""Across worker copies (`verify --workers N`): did every worker build the same variables on the same
devices?  Pure: no TensorFlow.

In between-graph replication every worker builds its own copy of the graph, and the ps variables
are shared only if every copy names them alike and places them alike.  A device on the copy's own
worker task (`/job:worker/task:1` in copy 1, a local variable say) is the same place in every copy;
it is compared as `/job:worker/task:<own>`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scopelint.model.devices import DeviceSpec, DeviceSpecError

SAME = "same"
MISSING = "missing on some"
DEVICE_DIFFERS = "device differs"
SHAPE_DIFFERS = "shape differs"
DTYPE_DIFFERS = "dtype differs"
CROSS_ORDER = (MISSING, DEVICE_DIFFERS, SHAPE_DIFFERS, DTYPE_DIFFERS, SAME)
OWN_TASK = "<own>"


@dataclass
class WorkerView:
    """What one copy built: None for a copy that gave no result (crashed, timed out)."""

    task_index: int
    variables: list[dict[str, Any]] | None


@dataclass
class CrossRow:
    status: str
    name: str
    per_worker: list[dict[str, Any] | None]  # by copy: shape, dtype, device, placement (relative); None: absent
    notes: list[str] = field(default_factory=list)


def relative_device(device: str | None, worker_job: str, task_index: int) -> str | None:
    """The device with the copy's own worker task written as `<own>`; other devices unchanged."""
    if not device:
        return device
    try:
        spec = DeviceSpec.parse(device)
    except DeviceSpecError:
        return device
    if spec.job != worker_job or spec.task != task_index:
        return device
    own = f"/task:{task_index}"
    cut = device.find(own, device.find(f"/job:{worker_job}"))
    if cut < 0:
        return device
    return device[:cut] + f"/task:{OWN_TASK}" + device[cut + len(own):]


def compare_workers(views: list[WorkerView], worker_job: str = "worker") -> list[CrossRow]:
    """One row per variable name seen in any copy that gave a result, in first-seen order."""
    by_copy: list[dict[str, dict[str, Any]] | None] = []
    order: list[str] = []
    for view in views:
        if view.variables is None:
            by_copy.append(None)
            continue
        table: dict[str, dict[str, Any]] = {}
        for item in view.variables or []:
            table[item["name"]] = {
                "shape": item["shape"], "dtype": item["dtype"],
                "device": relative_device(item["device"], worker_job, view.task_index),
                "placement": relative_device(item.get("placement"), worker_job, view.task_index),
            }
            if item["name"] not in order:
                order.append(item["name"])
        by_copy.append(table)
    rows = []
    for name in order:
        cells = [table.get(name) if table is not None else None for table in by_copy]
        present = [cell for cell in cells if cell is not None]
        problems = []
        notes = []
        missing = [view.task_index for view, table, cell in zip(views, by_copy, cells) if table is not None and cell is None]
        if missing:
            problems.append(MISSING)
            notes.append("not built by worker " + ", ".join(map(str, missing)))
        if len({cell["device"] for cell in present}) > 1:
            problems.append(DEVICE_DIFFERS)
        elif len({cell["placement"] for cell in present if cell["placement"]}) > 1:
            problems.append(DEVICE_DIFFERS)
            notes.append("placed differently by the runs")
        if len({repr(cell["shape"]) for cell in present}) > 1:
            problems.append(SHAPE_DIFFERS)
        if len({cell["dtype"] for cell in present}) > 1:
            problems.append(DTYPE_DIFFERS)
        status = min(problems or [SAME], key=CROSS_ORDER.index)
        rows.append(CrossRow(status=status, name=name, per_worker=cells, notes=notes))
    return rows


def cross_agree(views: list[WorkerView], rows: list[CrossRow]) -> bool:
    return all(view.variables is not None for view in views) and all(row.status == SAME for row in rows)
