"""TFS409 ps-load-imbalance: the rule's documentation and its check."""
from __future__ import annotations

from collections.abc import Iterable

from scopelint.diagnostics import Diagnostic, RuleInfo
from scopelint.model.sizes import bytes_of
from scopelint.trace import Related, Trace, VariableRecord

from ._devices import diagnostic, job_of, size_text, spec_of, working_setter

# The threshold: the heaviest ps task holds more than RATIO times the lightest AND more than
# MIN_DIFFERENCE bytes more.  The ratio ignores small models, whose round robin is rarely even;
# the difference keeps a few kilobytes of biases from counting as an imbalance.
RATIO = 2
MIN_DIFFERENCE = 1024 * 1024  # 1 MiB

RULE = RuleInfo(
    code="TFS409",
    name="ps-load-imbalance",
    severity="info",
    summary="Predicted bytes per ps task are badly uneven (heaviest > 2x lightest and > 1 MiB more).",
    rationale=(
        'The default round robin counts variables, not bytes: one large embedding lands whole on one ps\n'
        'task while the others hold a few biases. That task does most of the network and update work\n'
        'and bounds the training speed. Reported when every variable on the ps job is known: the heaviest\n'
        'task holds more than twice the lightest and over 1 MiB more.\n'
        'Fix: partition large variables (partitioner=tf.fixed_size_partitioner(num_ps)).'
    ),
    bad="""\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):  # error: TFS409
    embedding = tf.get_variable("embedding", [100000, 64])
    bias = tf.get_variable("bias", [64])
print(embedding.device, bias.device)  # prints: /job:ps/task:0 /job:ps/task:1
""",
    good="""\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    embedding = tf.get_variable("embedding", [100000, 64], partitioner=tf.fixed_size_partitioner(2))
    bias = tf.get_variable("bias", [64])
print([part.device for part in embedding], bias.device)  # prints: ['/job:ps/task:0', '/job:ps/task:1'] /job:ps/task:0
""",
)


def check(trace: Trace) -> Iterable[Diagnostic]:
    """Per ps job of the working setters with one known task count: silent unless the trace is
    complete and every variable of the final graph has a known device, and every one on that job
    is certain, on a known task, with a known size."""
    if not trace.complete:
        return
    final = trace.final_variables()
    if any(spec_of(record.device) is None for record in final):
        return
    setters = [setter for index, setter in enumerate(trace.setters) if working_setter(trace, index) is not None]
    for ps_job in sorted({job for setter in setters if (job := job_of(setter.ps_device)) is not None}):
        of_job = [setter for setter in setters if job_of(setter.ps_device) == ps_job]
        counts = {setter.ps_tasks for setter in of_job}
        if len(counts) != 1 or None in counts:
            continue
        [count] = counts
        assert count is not None
        loads = _loads(final, ps_job, count)
        if loads is None or count < 2:
            continue
        totals = [sum(size for _, size in loads[task]) for task in range(count)]
        heavy, light = max(range(count), key=totals.__getitem__), min(range(count), key=totals.__getitem__)
        if not (totals[heavy] > RATIO * totals[light] and totals[heavy] - totals[light] > MIN_DIFFERENCE):
            continue
        largest, largest_size = max(loads[heavy], key=lambda item: item[1])
        per_task = ", ".join(f"task {task}: {size_text(total)} in {_count(len(loads[task]))}"
                             for task, total in enumerate(totals))
        yield diagnostic(
            RULE, of_job[0].site,
            f"the predicted load on /job:{ps_job} is uneven ({per_task}): '{largest.name}' alone puts "
            f"{size_text(largest_size)} on task {heavy}. Round robin counts variables, not bytes; partition "
            "the large variables across the ps tasks",
            (*of_job[0].chain, Related(largest.site, f"'{largest.name}' ({size_text(largest_size)}) is created here")),
        )


def _loads(final: list[VariableRecord], ps_job: str, count: int) -> dict[int, list[tuple[VariableRecord, int]]] | None:
    """Task -> (variable, bytes) for the variables on `ps_job`; None when any of them is uncertain,
    on an unknown or out-of-range task, or of unknown size."""
    loads: dict[int, list[tuple[VariableRecord, int]]] = {task: [] for task in range(count)}
    for record in final:
        spec = spec_of(record.device)
        if spec is None or spec.job != ps_job:
            continue
        size = bytes_of(record.shape, record.dtype)
        if not record.certain or size is None or not isinstance(spec.task, int) or spec.task not in loads:
            return None
        loads[spec.task].append((record, size))
    return loads


def _count(number: int) -> str:
    return f"{number} variable" if number == 1 else f"{number} variables"
