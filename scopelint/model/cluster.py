"""A literal cluster description: `tf.train.ClusterSpec({...})` or the plain dict it wraps.

Only what `replica_device_setter` reads from it matters here: which jobs exist and how many tasks
each has (tf1-semantics 4.1).  Pure: no TensorFlow import.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ClusterValue:
    """Job name -> task count.

    A count is None when the job's task list is not a literal (for example `FLAGS.ps_hosts.split(",")`):
    the job exists but its size is unknown, possibly 0.  `complete` is False when the mapping may hold
    jobs the analysis could not see (a dict built in a loop, `**kwargs`), so a missing job is not proof
    that the job is absent.
    """

    jobs: dict[str, int | None] = field(default_factory=dict)
    complete: bool = True

    def num_tasks(self, job: str) -> int | None:
        """The task count of `job`; 0 when the job is certainly absent, None when unknown."""
        if job in self.jobs:
            return self.jobs[job]
        return 0 if self.complete else None

    def has_job(self, job: str) -> bool | None:
        """True/False when known; None when the mapping is incomplete and the job not seen."""
        if job in self.jobs:
            return True
        return False if self.complete else None

    @staticmethod
    def from_literal(mapping: dict[str, object]) -> "ClusterValue":
        """Build from a literal `{job: tasks}` where tasks is a list/tuple, a `{index: address}` dict, or
        anything else (unknown size).  TensorFlow counts a job's tasks with `len()` of either form."""
        jobs: dict[str, int | None] = {}
        for job, tasks in mapping.items():
            jobs[job] = len(tasks) if isinstance(tasks, (list, tuple, dict)) else None
        return ClusterValue(jobs=jobs)
