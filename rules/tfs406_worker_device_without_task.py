"""TFS406 worker-device-without-task: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.trace import Site, Trace

from ._devices import diagnostic, spec_of, working_setter

RULE = RuleInfo(
    code="TFS406",
    name="worker-device-without-task",
    severity="info",
    summary="worker_device names the worker job but no task, in a cluster with several worker tasks.",
    rationale=(
        'replica_device_setter puts every op that is not a variable on worker_device, which defaults to\n'
        "'/job:worker'. Without a task the graph does not say which worker computes: the placer picks.\n"
        "TensorFlow 2.21 picks the task whose master runs the session (observed on a local cluster), so\n"
        'a session connected to another task, such as a shared chief target, runs every worker\'s\n'
        'computation there, and older releases may pick the first matching task.\n'
        "Fix: worker_device='/job:worker/task:%d' % task_index."
    ),
    bad="""\
import tensorflow.compat.v1 as tf

cluster = {"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]}
setter = tf.train.replica_device_setter(cluster=cluster)  # error: TFS406
with tf.device(setter):
    y = tf.get_variable("w", [4]) * 2.0
print(y.device)  # prints: /job:worker
""",
    good="""\
import tensorflow.compat.v1 as tf

cluster = {"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]}
task_index = 1
setter = tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % task_index)
with tf.device(setter):
    y = tf.get_variable("w", [4]) * 2.0
print(y.device)  # prints: /job:worker/task:1
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    """A working setter with a literal cluster whose worker_device (given or the default) is a known
    device naming a job with more than one task in that cluster, and no task."""
    reported: set[Site] = set()
    for index, setter in enumerate(trace.setters):
        if working_setter(trace, index) is None or setter.cluster is None or setter.site in reported:
            continue
        spec = spec_of(setter.worker_device)
        if spec is None or spec.job is None or spec.task is not None:
            continue
        tasks = setter.cluster.get(spec.job)
        if tasks is None or tasks < 2:
            continue
        reported.add(setter.site)
        given = (f"worker_device '{setter.worker_device}' names" if setter.worker_device_given
                 else f"worker_device is left at its default '{setter.worker_device}', which names")
        yield diagnostic(
            RULE, setter.site,
            f"{given} no task, and the cluster's '{spec.job}' job has {tasks} tasks: the ops are not pinned "
            "to the worker that builds them, so they run wherever the session's master is. "
            f"Pass worker_device='/job:{spec.job}/task:%d' % task_index",
            setter.chain,
        )
