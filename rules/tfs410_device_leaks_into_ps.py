"""TFS410 device-leaks-into-ps: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Related, Site, Trace

from ._devices import diagnostic, ps_placed, spec_of

RULE = RuleInfo(
    code="TFS410",
    name="device-leaks-into-ps",
    severity="warning",
    summary="A device scope around the replica_device_setter changes where its ps variables go.",
    rationale=(
        'Device scopes apply innermost first: the setter decides, then each enclosing scope fills the\n'
        "fields still unset. An outer `device('/gpu:0')` therefore puts the ps variables on a GPU of the\n"
        'ps task (/job:ps/task:0/device:GPU:0), which a CPU-only parameter server cannot place; an outer\n'
        'replica or device index leaks in the same way.\n'
        'Fix: open the device scope inside the setter block, or put the GPU in worker_device.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.device("/gpu:0"):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        w = tf.get_variable("w", [4])  # error: TFS410
print(w.device)  # prints: /job:ps/task:0/device:GPU:0
""",
    good="""\
import tensorflow.compat.v1 as tf

setter = tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/device:GPU:0")
with tf.device(setter):
    w = tf.get_variable("w", [4])
    y = w * 2.0
print(w.device, y.device)  # prints: /job:ps/task:0 /job:worker/device:GPU:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    """A certain variable that a working setter put on its ps job, whose device differs from what
    that setter (with the scopes inside it) gave: the difference comes from the scopes around it.
    Reported at the first such variable of each setter, with the number affected."""
    affected: dict[int, list[tuple[int, str, str]]] = {}  # setter -> (variable, device, setter's device)
    for placement in trace.placements:
        placed = ps_placed(trace, placement)
        if placed is None or placement.setter is None:
            continue
        record, _ = placed
        alone = placement.setter_device
        if alone is None or spec_of(record.device) is None or record.device == alone:
            continue
        affected.setdefault(placement.setter, []).append((placement.variable, record.device or "", alone))
    reported: set[Site] = set()
    for setter_index, rows in affected.items():
        index, device, alone = rows[0]
        record = trace.variables[index]
        if record.site in reported:
            continue
        reported.add(record.site)
        others = f" ({len(rows)} ps variables of this setter are affected)" if len(rows) > 1 else ""
        setter = trace.setters[setter_index]
        yield diagnostic(
            RULE, record.site,
            f"'{record.name}' is placed on {device}, not {alone}: a device scope around the "
            f"replica_device_setter fills in {_added(device, alone)}{others}. Open that scope inside "
            "the setter block, or give the worker's device in worker_device",
            (*record.chain, Related(setter.site, "the setter")),
        )


def _added(device: str, alone: str) -> str:
    """The fields the outer scopes set, in TensorFlow's spelling."""
    full, own = spec_of(device), spec_of(alone)
    assert full is not None and own is not None
    fields = []
    if full.job != own.job:
        fields.append(f"job:{full.job}")
    if full.replica != own.replica:
        fields.append(f"replica:{full.replica}")
    if full.task != own.task:
        fields.append(f"task:{full.task}")
    if (full.device_type, full.device_index) != (own.device_type, own.device_index):
        index = "*" if full.device_index is None else full.device_index
        fields.append(f"device:{full.device_type}:{index}")
    return " and ".join(fields) or "fields the setter left unset"
