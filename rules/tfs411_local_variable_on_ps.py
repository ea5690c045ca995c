"""TFS411 local-variable-on-ps: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Related, Site, Trace

from ._devices import diagnostic, ps_placed

RULE = RuleInfo(
    code="TFS411",
    name="local-variable-on-ps",
    severity="warning",
    summary="A local or metric variable sent to a ps task by the replica_device_setter.",
    rationale=(
        'replica_device_setter sends every variable op to ps, local ones included: metric totals and\n'
        'counts, get_local_variable, collections=[LOCAL_VARIABLES]. They belong to one worker, yet each\n'
        'update now crosses the network, and every worker that builds the same graph uses the same ps\n'
        'copy, so workers overwrite and re-initialise each other\'s values.\n'
        "Fix: create them inside `with tf.compat.v1.device('/job:worker/task:%d' % task_index):`."
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    seen = tf.get_local_variable("seen", [], dtype=tf.int64)  # error: TFS411
print(seen.device)  # prints: /job:ps/task:0
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    with tf.device("/job:worker/task:0"):
        seen = tf.get_local_variable("seen", [], dtype=tf.int64)
print(seen.device)  # prints: /job:worker/task:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    """A certain local variable that a working setter put on its ps job."""
    reported: set[Site] = set()
    for placement in trace.placements:
        placed = ps_placed(trace, placement)
        if placed is None:
            continue
        record, setter = placed
        if not record.is_local or record.site in reported:
            continue
        reported.add(record.site)
        yield diagnostic(
            RULE, record.site,
            f"local variable '{record.name}' is placed on {record.device} by the replica_device_setter: "
            "each update crosses the network, and every worker building this graph shares that one copy. "
            "Create local and metric variables under the worker's own device, "
            "e.g. tf.compat.v1.device('/job:worker/task:%d' % task_index)",
            (*record.chain, Related(setter.site, "the setter")),
        )
