"""TFS412 session-without-device-filters: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Trace

from ._common import report_events

RULE = RuleInfo(
    code="TFS412",
    name="session-without-device-filters",
    severity="warning",
    summary="A worker's session on its own server, in a cluster with several workers, without device_filters.",
    rationale=(
        'Between-graph replication: each worker starts tf.train.Server(cluster, job_name="worker", task_index=i)\n'
        "and opens its session on it. Without device_filters that master waits until every task of the cluster\n"
        "answers, for ever when a peer is down, not started yet or finished (\"CreateSession still waiting for\n"
        'response from worker", tensorflow/tensorflow#13075). In-graph replication (one client) is not affected.\n'
        'Fix: config=tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % task_index]).\n'
        "`scopelint verify --workers 2` shows it on a cluster whose third worker is not running: waiting\n"
        "without the filters, completed with them."
    ),
    bad="""\
import tensorflow.compat.v1 as tf

cluster = tf.train.ClusterSpec({"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]})
server = tf.train.Server(cluster, job_name="worker", task_index=0)
with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
    step = tf.train.get_or_create_global_step()
    train = tf.assign_add(step, 1)
with tf.train.MonitoredTrainingSession(master=server.target, is_chief=True) as session:  # error: TFS412
    session.run(train)
""",
    good="""\
import tensorflow.compat.v1 as tf

cluster = tf.train.ClusterSpec({"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]})
server = tf.train.Server(cluster, job_name="worker", task_index=0)
with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
    step = tf.train.get_or_create_global_step()
    train = tf.assign_add(step, 1)
config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
with tf.train.MonitoredTrainingSession(master=server.target, is_chief=True, config=config) as session:
    session.run(train)
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    return report_events(trace, RULE, "session_without_device_filters")
