"""TFS405 local-session-for-cluster-graph: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS405",
    name="local-session-for-cluster-graph",
    severity="error",
    summary="A Session without a target for a graph whose variables are placed on a /job: device.",
    rationale=(
        'A Session with no target runs in-process, where the only job is `localhost`. A variable placed\n'
        'on /job:ps or /job:worker cannot be assigned a device there: the first run raises\n'
        'InvalidArgumentError, and allow_soft_placement does not help (it relaxes device types, not jobs).\n'
        'Fix: pass the cluster\'s target, tf.Session(server.target), or build without the setter locally.'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=1)):
    w = tf.get_variable("w", [4])
session = tf.Session()  # error: TFS405
try:
    session.run(w.initializer)
except tf.errors.InvalidArgumentError:
    print("InvalidArgumentError")  # prints: InvalidArgumentError
""",
    good="""\
import tensorflow.compat.v1 as tf

w = tf.get_variable("w", [4])
session = tf.Session()
session.run(w.initializer)
print(session.run(tf.shape(w)))  # prints: [4]
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "local_session_for_cluster_graph")
