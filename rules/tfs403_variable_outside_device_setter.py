"""TFS403 variable-outside-device-setter: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Related, Site, Trace, VariableRecord

from ._devices import diagnostic, ps_placed

RULE = RuleInfo(
    code="TFS403",
    name="variable-outside-device-setter",
    severity="warning",
    summary="A variable created outside the replica_device_setter that places the program's other variables.",
    rationale=(
        'A program that places its variables with replica_device_setter shares them through the ps tasks.\n'
        'A variable created outside every `with tf.compat.v1.device(setter):` block, often the global\n'
        'step, gets no device at all: it lives on each worker, is never shared, and a chief that saves\n'
        'or a Supervisor that checks it sees only its own copy.\n'
        'Fix: create it inside the setter block (get_or_create_global_step() included).'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

step = tf.train.get_or_create_global_step()  # error: TFS403
with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    w = tf.get_variable("w", [4])
print(repr(step.device), repr(w.device))  # prints: '' '/job:ps/task:0'
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    step = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [4])
print(repr(step.device), repr(w.device))  # prints: '/job:ps/task:0' '/job:ps/task:1'
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    """A certain global variable of a graph where a setter certainly placed another variable on ps,
    created with no setter and no device scope at all (device "", every scope known, no
    `device(None)`, not colocated).  Explicitly placed variables are the author's choice."""
    on_ps: dict[int, VariableRecord] = {}  # graph -> first variable a setter put on ps
    for placement in trace.placements:
        placed = ps_placed(trace, placement)
        if placed is not None:
            on_ps.setdefault(placed[0].graph, placed[0])
    reported: set[Site] = set()
    for placement in trace.placements:
        record = trace.variables[placement.variable]
        example = on_ps.get(record.graph)
        if (example is None or not record.certain or record.is_local or record.device != ""
                or placement.setter is not None or not placement.known or placement.cleared
                or placement.colocated or record.site in reported):
            continue
        reported.add(record.site)
        yield diagnostic(
            RULE, record.site,
            f"'{record.name}' is created outside the replica_device_setter that places this graph's "
            f"variables ('{example.name}' goes to {example.device}): it gets no device, so it stays on "
            "each worker and is not shared. Create it inside `with tf.compat.v1.device(setter):`",
            (*record.chain, Related(example.site, f"'{example.name}' is placed on {example.device} here")),
        )
