"""Pure tests of the device model (no TensorFlow): tf1-semantics 4, 6.5, and unknown values."""
from __future__ import annotations

import pytest

from scopelint.model.cluster import ClusterValue
from scopelint.model.devices import (
    STANDARD_PS_OPS,
    UNKNOWN,
    UNKNOWN_PART,
    DeviceSpec,
    DeviceSpecError,
    DeviceSpecUnknown,
    DeviceStack,
    ReplicaDeviceSetter,
    replica_device_setter,
)
from scopelint.model.sizes import bytes_of

VAR = "VariableV2"
RES = "VarHandleOp"


def setter(**kwargs: object) -> ReplicaDeviceSetter:
    result = replica_device_setter(**kwargs)  # type: ignore[arg-type]
    assert result is not None
    return result


def stack_of(*entries: object) -> DeviceStack:
    stack = DeviceStack()
    for entry in entries:
        stack.push(entry)
    return stack


# --- DeviceSpec -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "canonical"), [
    ("/gpu:0", "/device:GPU:0"),
    ("gpu:0", "/device:GPU:0"),
    ("/GPU:0", "/device:GPU:0"),
    ("/job:ps/task:0/cpu:0", "/job:ps/task:0/device:CPU:0"),
    ("/cpu:*", "/device:CPU:*"),
    ("/device:GPU:1", "/device:GPU:1"),
    ("/replica:2", "/replica:2"),
    ("/job:ps/replica:2/task:0/device:CPU:0", "/job:ps/replica:2/task:0/device:CPU:0"),
    ("", ""),
    ("/", ""),
    ("/device:gpu:1", "/device:GPU:1"),
    ("/device:XLA_CPU:0", "/device:XLA_CPU:0"),
    ("/task:01", "/task:1"),
])
def test_parse_gives_canonical_strings(text: str, canonical: str) -> None:
    assert DeviceSpec.parse(text).to_string() == canonical


def test_parse_fields() -> None:
    assert DeviceSpec.parse("/job:ps/replica:2/task:0/cpu:1") == DeviceSpec("ps", 2, 0, "CPU", 1)
    assert DeviceSpec.parse("/cpu:*") == DeviceSpec(device_type="CPU", device_index="*")
    assert DeviceSpec(device_type="CPU", device_index="*").device_index is None


@pytest.mark.parametrize(("text", "message"), [
    ("ps:0", "Unknown attribute 'ps' is encountered while parsing the device spec: 'ps:0'."),
    ("/cpu:0/gpu:0", "Multiple device types are not allowed while parsing the device spec: /cpu:0/gpu:0."),
    ("/task:x", "invalid literal for int() with base 10: 'x'"),
])
def test_parse_errors_carry_tensorflow_messages(text: str, message: str) -> None:
    with pytest.raises(DeviceSpecError) as error:
        DeviceSpec.parse(text)
    assert str(error.value) == message
    assert isinstance(error.value, ValueError)


def test_partly_unknown_strings() -> None:
    spec = DeviceSpec.parse("/job:worker/task:?/gpu:0")
    assert spec == DeviceSpec("worker", None, UNKNOWN_PART, "GPU", 0)
    assert spec.to_string() == "/job:worker/task:?/device:GPU:0"
    with pytest.raises(DeviceSpecUnknown):
        DeviceSpec.parse("?")
    with pytest.raises(DeviceSpecUnknown):
        DeviceSpec.parse("/job:ps/?:0")
    assert DeviceSpec.parse_or_none("?") is None
    with pytest.raises(DeviceSpecError):  # a certain error stays an error
        DeviceSpec.parse("ps:0/?")


def test_merged_over_inner_wins_outer_fills() -> None:
    outer = DeviceSpec.parse("/job:worker/task:1")
    assert DeviceSpec.parse("/job:ps").merged_over(outer).to_string() == "/job:ps/task:1"
    # '*' is unset for merging: the outer index fills it, as in TensorFlow.
    assert DeviceSpec.parse("/cpu:*").merged_over(DeviceSpec.parse("/gpu:1")).to_string() == "/device:CPU:1"


# --- plain string stacks (4.7, 6.5) ---------------------------------------------------------------

def test_string_stack_merging() -> None:
    assert stack_of("/job:worker/task:1", "/job:ps").device_for(VAR) == "/job:ps/task:1"
    assert stack_of("/job:worker/task:1", "/cpu:0", "/device:GPU:1").device_for("Add") == \
        "/job:worker/task:1/device:GPU:1"
    assert stack_of("/job:worker/task:1", "/replica:2").device_for(VAR) == "/job:worker/replica:2/task:1"
    assert stack_of().device_for(VAR) == ""
    assert stack_of("/job:worker/task:7", None).device_for(VAR) == ""
    assert stack_of("/gpu:0", "").device_for(VAR) == "/device:GPU:0"


def test_push_of_a_bad_string_raises_and_pushes_nothing() -> None:
    stack = DeviceStack()
    with pytest.raises(DeviceSpecError):
        stack.push("ps:0")
    assert stack.entries == ()


def test_pop_restores() -> None:
    stack = stack_of("/job:worker")
    stack.push("/gpu:0")
    stack.pop()
    assert stack.device_for("Const") == "/job:worker"


# --- replica_device_setter (4.1 - 4.5) ------------------------------------------------------------

def test_returns_none_like_tensorflow() -> None:
    assert replica_device_setter() is None
    assert replica_device_setter(ps_tasks=0) is None
    assert replica_device_setter(cluster=ClusterValue({"worker": 1})) is None
    assert replica_device_setter(cluster=ClusterValue({"ps": 0, "worker": 1})) is None
    assert replica_device_setter(cluster=ClusterValue({"ps": 2}), ps_device="/job:foo") is None
    assert replica_device_setter(cluster=ClusterValue({"ps": 2}), ps_device="") is None
    with_cluster = replica_device_setter(ps_tasks=5, cluster=ClusterValue({"ps": 2, "worker": 3}))
    assert with_cluster is not None and with_cluster.ps_tasks == 2


def test_cluster_from_literal() -> None:
    cluster = ClusterValue.from_literal({"ps": ["a:1", "b:2"], "worker": {0: "c:3"}, "chief": object()})
    assert cluster.jobs == {"ps": 2, "worker": 1, "chief": None}
    assert cluster.num_tasks("ps") == 2 and cluster.num_tasks("evaluator") == 0


def test_default_round_robin_and_worker() -> None:
    stack = stack_of(setter(ps_tasks=2))
    assert [stack.device_for(VAR) for _ in range(3)] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
    assert stack.device_for("Add") == "/job:worker"
    assert stack.device_for(RES) == "/job:ps/task:1"


@pytest.mark.parametrize(("kwargs", "variable", "other"), [
    ({"worker_device": "/job:worker/task:1"}, "/job:ps/task:0", "/job:worker/task:1"),
    ({"worker_device": "/job:worker/task:1/gpu:0"}, "/job:ps/task:0", "/job:worker/task:1/device:GPU:0"),
    ({"worker_device": ""}, "/job:ps/task:0", ""),
    ({"worker_device": None}, "/job:ps/task:0", ""),
    ({"ps_device": "/job:ps/device:CPU:0"}, "/job:ps/task:0/device:CPU:0", "/job:worker"),
    ({"ps_device": "/device:CPU:0"}, "/device:CPU:0", "/job:worker"),
    ({"ps_device": ""}, "/job:worker", "/job:worker"),
    ({"ps_device": "/job:param"}, "/job:param/task:0", "/job:worker"),
])
def test_setter_arguments(kwargs: dict[str, object], variable: str, other: str) -> None:
    stack = stack_of(setter(ps_tasks=2, **kwargs))
    assert stack.device_for(VAR) == variable
    assert stack.device_for("Const") == other


def test_ps_device_task_is_overwritten_by_the_strategy() -> None:
    stack = stack_of(setter(ps_tasks=2, ps_device="/job:ps/task:1"))
    assert [stack.device_for(VAR) for _ in range(2)] == ["/job:ps/task:0", "/job:ps/task:1"]


@pytest.mark.parametrize(("inner", "variable", "other", "advances"), [
    ("/cpu:0", "/job:ps/task:0/device:CPU:0", "/job:worker/device:CPU:0", True),
    ("/gpu:1", "/job:ps/task:0/device:GPU:1", "/job:worker/device:GPU:1", True),
    ("/job:ps/task:2", "/job:ps/task:2", "/job:ps/task:2", True),
    ("/job:ps", "/job:ps/task:0", "/job:ps", True),
    ("/job:worker/task:1", "/job:worker/task:1", "/job:worker/task:1", False),
    ("/task:5", "/job:ps/task:5", "/job:worker/task:5", True),
    (None, "", "", False),
    ("", "/job:ps/task:0", "/job:worker", True),
])
def test_device_nested_inside_setter(inner: str | None, variable: str, other: str, advances: bool) -> None:
    the_setter = setter(ps_tasks=2)
    stack = stack_of(the_setter, inner)
    assert stack.device_for(VAR) == variable
    assert stack.device_for("Const") == other
    assert the_setter.next_task == (1 if advances else 0)


def test_setter_inside_setter() -> None:
    outer = setter(ps_tasks=2, worker_device="/job:worker/task:0")
    inner = setter(ps_tasks=2, ps_device="/job:ps2", worker_device="/job:w2")
    stack = stack_of(outer, inner)
    assert stack.device_for(VAR) == "/job:ps2/task:0"
    assert stack.device_for("Add") == "/job:w2/task:0"  # the outer task leaks in
    assert (outer.next_task, inner.next_task) == (0, 1)


@pytest.mark.parametrize(("outer", "variable", "other"), [
    ("/job:worker/task:3/device:GPU:1", "/job:ps/task:0/device:GPU:1", "/job:worker/task:3/device:GPU:1"),
    ("/job:ps/task:1", "/job:ps/task:0", "/job:worker/task:1"),
    ("/device:CPU:0", "/job:ps/task:0/device:CPU:0", "/job:worker/device:CPU:0"),
])
def test_device_string_outside_setter(outer: str, variable: str, other: str) -> None:
    stack = stack_of(outer, setter(ps_tasks=2))
    assert stack.device_for(VAR) == variable
    assert stack.device_for("Add") == other


def test_merge_devices_false() -> None:
    the_setter = setter(ps_tasks=2, merge_devices=False)
    stack = stack_of(the_setter, "/cpu:0")
    assert stack.device_for(VAR) == "/device:CPU:0"
    assert the_setter.next_task == 0
    stack.pop()
    assert stack.device_for(VAR) == "/job:ps/task:0"


def test_counter_lives_in_the_setter_object() -> None:
    shared = setter(ps_tasks=2)
    assert stack_of(shared).device_for(VAR) == "/job:ps/task:0"
    assert stack_of(shared).device_for(VAR) == "/job:ps/task:1"
    assert stack_of(setter(ps_tasks=2)).device_for(VAR) == "/job:ps/task:0"  # a new setter restarts


def test_custom_ps_ops() -> None:
    stack = stack_of(setter(ps_tasks=3, ps_ops=["Const"]))
    assert stack.device_for("Const") == "/job:ps/task:0"
    assert stack.device_for(VAR) == "/job:worker"
    assert stack.device_for("Const") == "/job:ps/task:1"
    assert STANDARD_PS_OPS >= {"VariableV2", "VarHandleOp", "DecisionTreeResource"}


def test_colocation_overrides_after_counters_advance() -> None:
    the_setter = setter(ps_tasks=3)
    stack = stack_of(the_setter)
    first = stack.device_for(VAR)
    assert stack.device_for(VAR, colocate_with=first) == "/job:ps/task:0"
    assert stack.device_for(VAR) == "/job:ps/task:2"  # the colocated variable used task 1
    # A colocated op whose target has no device keeps its own placement...
    assert stack.device_for(VAR, colocate_with="") == "/job:ps/task:0"
    # ...and a non-variable op under colocate_with sees no device function at all.
    assert stack.device_for("Const", colocate_with="") == ""
    assert stack.device_for("Const", colocate_with="/job:ps/task:2") == "/job:ps/task:2"


def test_device_scope_inside_colocation_block() -> None:
    the_setter = setter(ps_tasks=3)
    stack = stack_of(the_setter)
    stack.push_colocation("/job:ps/task:0")
    stack.push("/cpu:0")
    assert stack.device_for(VAR) == "/job:ps/task:0"
    assert the_setter.next_task == 0  # only the scopes inside colocate_with ran
    stack.pop()
    stack.pop()
    stack.push_colocation("")
    stack.push("/gpu:0")
    assert stack.device_for(VAR) == "/device:GPU:0"
    assert stack.device_for("Const") == "/device:GPU:0"


# --- unknown values -------------------------------------------------------------------------------

def test_unknown_entry_makes_results_unknown_and_outer_counters_uncertain() -> None:
    outer = setter(ps_tasks=2)
    stack = stack_of(outer, UNKNOWN)
    assert stack.device_for(VAR) is None
    assert outer.certain is False
    assert stack.device_for("Add") is None
    # A barrier inside the unknown entry decides regardless of it.
    stack.push(None)
    assert stack.device_for(VAR) == ""
    # Colocation with a known device decides too.
    stack.pop()
    assert stack.device_for(VAR, colocate_with="/job:ps/task:1") == "/job:ps/task:1"
    assert stack.device_for(VAR, colocate_with=UNKNOWN) is None


def test_non_ps_ops_leave_an_outer_counter_certain() -> None:
    outer = setter(ps_tasks=2)
    stack = stack_of(outer, UNKNOWN)
    assert stack.device_for("Add") is None
    assert outer.certain is True


def test_unknown_ps_tasks_may_be_none() -> None:
    maybe = setter(ps_tasks=UNKNOWN)
    assert maybe.ps_tasks is None and maybe.may_be_none
    assert stack_of("/gpu:0", maybe).device_for(VAR) is None  # TF may have returned None
    direct = setter(ps_tasks=UNKNOWN)
    assert direct.place(VAR, "") == "/job:ps/task:0"  # the first task is 0 whatever the count
    assert direct.place(VAR, "") == "/job:ps/task:?"
    assert setter(cluster=ClusterValue({"ps": None})).may_be_none
    assert setter(cluster=ClusterValue({"worker": 1}, complete=False)).may_be_none
    assert setter(cluster=UNKNOWN).may_be_none


def test_partly_known_arguments() -> None:
    stack = stack_of(setter(ps_tasks=2, worker_device="/job:worker/task:?"))
    assert stack.device_for("Add") == "/job:worker/task:?"
    assert stack.device_for(VAR) == "/job:ps/task:0"
    assert stack_of(setter(ps_tasks=2, worker_device=UNKNOWN)).device_for("Add") is None
    assert stack_of(setter(ps_tasks=2, ps_device=UNKNOWN)).device_for(VAR) is None
    custom = setter(ps_tasks=2, ps_strategy=UNKNOWN)
    assert stack_of(custom).device_for(VAR) == "/job:ps/task:?"
    assert custom.certain is False


def test_unknown_inner_job_makes_the_counter_uncertain() -> None:
    the_setter = setter(ps_tasks=2)
    stack = stack_of(the_setter, "/job:?/task:3")
    assert stack.device_for(VAR) == "/job:?/task:3"
    assert the_setter.certain is False
    stack.pop()
    assert stack.device_for(VAR) == "/job:ps/task:?"


def test_unknown_ps_ops_and_merge_devices() -> None:
    partial = setter(ps_tasks=2, ps_ops=["Const", UNKNOWN])
    assert stack_of(partial).device_for("Const") == "/job:ps/task:0"
    assert stack_of(partial).device_for(VAR) is None
    merge = setter(ps_tasks=2, merge_devices=UNKNOWN)
    assert stack_of(merge).device_for(VAR) == "/job:ps/task:0"  # nothing inner: merging is moot
    assert stack_of(merge, "/cpu:0").device_for(VAR) is None
    assert merge.certain is False


# --- sizes ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("shape", "dtype", "size"), [
    ((1000, 100), "float32", 400_000),
    ((3,), "float16", 6),
    ((2, 2), "int64", 32),
    ((), "float64", 8),
    ((4,), "float32_ref", 16),
    ((5,), "bool", 5),
    ((0, 7), "float32", 0),
    (None, "float32", None),
    ((None, 3), "float32", None),
    ((3,), None, None),
    ((3,), "string", None),
    ((3,), "resource", None),
])
def test_bytes_of(shape: tuple[int | None, ...] | None, dtype: str | None, size: int | None) -> None:
    assert bytes_of(shape, dtype) == size
