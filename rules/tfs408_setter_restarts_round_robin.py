"""TFS408 setter-restarts-round-robin: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Related, Site, Trace

from ._devices import diagnostic, ps_placed

RULE = RuleInfo(
    code="TFS408",
    name="setter-restarts-round-robin",
    severity="warning",
    summary="A new replica_device_setter restarts the round robin at ps task 0 while an earlier one was mid-cycle.",
    rationale=(
        'The round-robin counter lives in the setter object. A new setter per `with` block (or per call\n'
        'of a model function) starts again at ps task 0, so every block\'s first variables pile up on\n'
        'the first ps tasks while the last ones get little or nothing.\n'
        'Fix: create the setter once and pass the same object to every `with tf.compat.v1.device(...)`.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    a = tf.get_variable("a", [4])
with tf.device(tf.train.replica_device_setter(ps_tasks=2)):  # error: TFS408
    b = tf.get_variable("b", [4])
print(a.device, b.device)  # prints: /job:ps/task:0 /job:ps/task:0
""",
    good="""\
import tensorflow.compat.v1 as tf

setter = tf.train.replica_device_setter(ps_tasks=2)
with tf.device(setter):
    a = tf.get_variable("a", [4])
with tf.device(setter):
    b = tf.get_variable("b", [4])
print(a.device, b.device)  # prints: /job:ps/task:0 /job:ps/task:1
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    """Walk each graph's round-robin placements in creation order.  Report a setter whose first
    placement follows one by a different setter with the same ps job and task count (at least 2)
    whose counter was certainly not back at 0: continuing that setter would have used another task.
    """
    reported: set[Site] = set()
    previous: dict[int, tuple[int, int]] = {}  # graph -> (setter index, its known next task)
    started: set[int] = set()
    for placement in trace.placements:
        if placement.setter is None:
            continue  # no setter ran: no counter moved
        graph = trace.variables[placement.variable].graph
        first = placement.setter not in started
        started.add(placement.setter)
        if placement.next_task is None or not placement.known:
            previous.pop(graph, None)  # a counter we cannot follow breaks the chain of proof
            continue
        earlier = previous.get(graph)
        previous[graph] = (placement.setter, placement.next_task)
        placed = ps_placed(trace, placement)
        if (not first or earlier is None or earlier[0] == placement.setter or placed is None
                or placement.round_robin_task != 0):
            continue
        record, setter = placed
        before, continuing = trace.setters[earlier[0]], earlier[1]
        if (setter.site in reported or setter.ps_tasks is None or setter.ps_tasks < 2
                or before.ps_tasks != setter.ps_tasks or before.ps_device != setter.ps_device or continuing == 0):
            continue
        reported.add(setter.site)
        earlier_one = ("the setter this line created before" if before.site == setter.site
                       else f"the setter created at line {before.site.line}")
        yield diagnostic(
            RULE, setter.site,
            f"this new replica_device_setter restarts the round robin: its first variable '{record.name}' "
            f"goes to ps task 0, where {earlier_one} would have continued with task {continuing}. Each new "
            "setter starts at task 0, piling variables on the first ps tasks; create the setter once and "
            "reuse it",
            (*setter.chain, Related(before.site, "the earlier setter"),
             Related(record.site, f"'{record.name}' is placed on {record.device}")),
        )
