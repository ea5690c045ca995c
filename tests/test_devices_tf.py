"""Differential test: the pure device model against real TensorFlow (tf.compat.v1 graph mode).

Each case is a small program in a step language that both sides run: `run_tf` builds the real
graph, `run_model` drives DeviceStack / replica_device_setter the way the static interpreter will.
Every case runs twice, with ref variables (VariableV2) and resource variables (VarHandleOp), and
every variable's `v.device` (plus some non-variable ops' `op.device`) must agree.  One TensorFlow
import for the whole module; graphs are private (`tf.Graph().as_default()`), so no global TF mode
is changed.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1

from scopelint.model.devices import (  # noqa: E402
    UNKNOWN_PART,
    ClusterValue,
    DeviceSpec,
    DeviceSpecError,
    DeviceStack,
    ReplicaDeviceSetter,
    replica_device_setter,
)
from scopelint.model.sizes import DTYPE_BYTES, bytes_of  # noqa: E402

# --- the step language ----------------------------------------------------------------------------
# ("setter", key, kwargs)        create a device function (kwargs of replica_device_setter; a
#                                "cluster" is a plain dict; "ps_strategy": "custom" = a user callable)
# ("push", entry)                enter device(entry): a string, None, or ("s", key) for a setter
# ("pop",)                       leave the innermost device scope
# ("var", name)                  get_variable(name, [2])            -> records the variable
# ("tfvar", name)                Variable(0.0, name=name)           -> records the variable and the
#                                Const it converts its initial value into ("name/initial_value")
# ("part", name, n)              get_variable(name, [6, 2], partitioner=fixed_size_partitioner(n))
# ("const", name)                tf.constant(1.0, name=name)        -> records the Const op
# ("noop", name)                 tf.no_op(name=name)                -> records the NoOp
# ("coloc_var", name, of)        get_variable under colocate_with(of)
# ("coloc_const", name, of)      tf.constant under colocate_with(of)
# ("coloc_push", of)             enter colocate_with(of) as a scope (left by "pop")
# ("adam", [names])              AdamOptimizer(0.1).minimize(sum of the variables) -> records slots

Step = tuple[Any, ...]


@dataclass(frozen=True)
class Case:
    name: str
    steps: tuple[Step, ...]


def setter_case(name: str, setter_kwargs: dict[str, Any], body: tuple[Step, ...]) -> Case:
    return Case(name, (("setter", "s", setter_kwargs), ("push", ("s", "s")), *body, ("pop",)))


BASIC = (("var", "a"), ("var", "b"), ("const", "c"), ("noop", "n"), ("var", "d"))


def nested(inner: Any) -> tuple[Step, ...]:
    return (("var", "a0"), ("push", inner), ("var", "a"), ("const", "c"), ("var", "b"), ("pop",), ("var", "z"))


def outside(outer: str) -> Case:
    return Case(f"outer {outer!r} around setter", (
        ("push", outer), ("setter", "s", {"ps_tasks": 2}), ("push", ("s", "s")),
        ("var", "a"), ("const", "c"), ("var", "b"), ("pop",), ("var", "z"), ("pop",)))


CLUSTER_2PS = {"ps": ["127.0.0.1:2222", "127.0.0.1:2223"], "worker": ["127.0.0.1:2224"]}

CASES: list[Case] = [
    # tf1-semantics 4.5, first table (ps_tasks=2)
    setter_case("default", {"ps_tasks": 2}, BASIC),
    setter_case("worker task", {"ps_tasks": 2, "worker_device": "/job:worker/task:1"}, BASIC),
    setter_case("worker task gpu", {"ps_tasks": 2, "worker_device": "/job:worker/task:1/gpu:0"}, BASIC),
    setter_case("worker ''", {"ps_tasks": 2, "worker_device": ""}, BASIC),
    setter_case("worker None", {"ps_tasks": 2, "worker_device": None}, BASIC),
    setter_case("ps_device cpu", {"ps_tasks": 2, "ps_device": "/job:ps/device:CPU:0"}, BASIC),
    setter_case("ps_device no job", {"ps_tasks": 2, "ps_device": "/device:CPU:0"}, BASIC),
    setter_case("ps_device ''", {"ps_tasks": 2, "ps_device": ""}, BASIC),
    setter_case("ps_device param", {"ps_tasks": 2, "ps_device": "/job:param"}, BASIC),
    setter_case("ps_device with task", {"ps_tasks": 2, "ps_device": "/job:ps/task:1"}, BASIC),
    # 4.5, nested inside the setter
    setter_case("inner /cpu:0", {"ps_tasks": 2}, nested("/cpu:0")),
    setter_case("inner /gpu:1", {"ps_tasks": 2}, nested("/gpu:1")),
    setter_case("inner /job:ps/task:2", {"ps_tasks": 2}, nested("/job:ps/task:2")),
    setter_case("inner /job:ps", {"ps_tasks": 2}, nested("/job:ps")),
    setter_case("inner /job:worker/task:1", {"ps_tasks": 2}, nested("/job:worker/task:1")),
    setter_case("inner /task:5", {"ps_tasks": 2}, nested("/task:5")),
    setter_case("inner None", {"ps_tasks": 2}, nested(None)),
    setter_case("inner ''", {"ps_tasks": 2}, nested("")),
    Case("setter inside setter", (
        ("setter", "outer", {"ps_tasks": 2, "worker_device": "/job:worker/task:0"}),
        ("setter", "inner", {"ps_tasks": 3, "ps_device": "/job:ps2", "worker_device": "/job:w2"}),
        ("push", ("s", "outer")), ("var", "a0"), ("push", ("s", "inner")),
        ("var", "a"), ("const", "c"), ("var", "b"), ("var", "b2"), ("pop",), ("var", "z"), ("pop",))),
    # 4.5, device string outside the setter
    outside("/job:worker/task:3/device:GPU:1"),
    outside("/job:ps/task:1"),
    outside("/device:CPU:0"),
    # merge_devices=False
    setter_case("merge_devices=False", {"ps_tasks": 2, "merge_devices": False}, (
        ("var", "a"), ("push", "/cpu:0"), ("var", "b"), ("const", "c"), ("pop",), ("var", "d"),
        ("push", "/job:ps"), ("var", "e"), ("pop",), ("var", "f"))),
    # 4.7 plain string merging
    Case("worker task + inner ps", (
        ("push", "/job:worker/task:1"), ("push", "/job:ps"), ("var", "a"), ("const", "c"), ("pop",), ("pop",))),
    Case("three strings", (
        ("push", "/job:worker/task:1"), ("push", "/cpu:0"), ("push", "/device:GPU:1"),
        ("var", "a"), ("pop",), ("var", "b"), ("pop",), ("pop",))),
    Case("replica", (("push", "/job:worker/task:1"), ("push", "/replica:2"), ("var", "a"), ("pop",), ("pop",))),
    Case("canonical spellings", tuple(
        step for index, text in enumerate(["/gpu:0", "gpu:0", "/GPU:0", "/job:ps/task:0/cpu:0", "/cpu:*",
                                           "/device:gpu:3", "job:w/replica:1", "/task:01", "/"])
        for step in (("push", text), ("var", f"v{index}"), ("pop",)))),
    Case("star index takes outer index", (
        ("push", "/gpu:1"), ("push", "/cpu:*"), ("var", "a"), ("const", "c"), ("pop",), ("pop",))),
    Case("device(None) wipes outer", (
        ("push", "/job:worker/task:7"), ("push", None), ("var", "a"), ("const", "c"), ("pop",), ("pop",))),
    Case("setter under device(None) under gpu", (
        ("push", "/gpu:0"), ("push", None), ("setter", "s", {"ps_tasks": 2}), ("push", ("s", "s")),
        ("var", "a"), ("const", "c"), ("pop",), ("pop",), ("pop",))),
    # counters
    Case("new setter per block", (
        ("setter", "s1", {"ps_tasks": 2}), ("push", ("s", "s1")), ("var", "a"), ("pop",),
        ("setter", "s2", {"ps_tasks": 2}), ("push", ("s", "s2")), ("var", "b"), ("var", "c"), ("pop",))),
    Case("one setter in two blocks", (
        ("setter", "s", {"ps_tasks": 2}), ("push", ("s", "s")), ("var", "a"), ("pop",),
        ("var", "outside"), ("push", ("s", "s")), ("var", "b"), ("var", "c"), ("pop",))),
    setter_case("ps_tasks=3 get_variable/Variable mix", {"ps_tasks": 3}, (
        ("var", "a"), ("var", "b"), ("tfvar", "c"), ("var", "d"), ("tfvar", "e"), ("const", "k"))),
    # clusters
    setter_case("cluster with 2 ps", {"cluster": CLUSTER_2PS, "ps_tasks": 5}, BASIC),
    Case("cluster without ps is None", (
        ("push", "/job:worker/task:7"),
        ("setter", "s", {"cluster": {"worker": ["127.0.0.1:2224"]}}), ("push", ("s", "s")),
        ("var", "a"), ("const", "c"), ("pop",), ("pop",))),
    Case("cluster without the ps_device job is None", (
        ("push", "/gpu:0"),
        ("setter", "s", {"cluster": CLUSTER_2PS, "ps_device": "/job:foo"}), ("push", ("s", "s")),
        ("var", "a"), ("pop",), ("pop",))),
    # custom ps_ops and strategy
    setter_case("ps_ops=['Const']", {"ps_tasks": 3, "ps_ops": ["Const"]}, (
        ("var", "a"), ("const", "c1"), ("const", "c2"), ("tfvar", "t"), ("const", "c3"), ("noop", "n"))),
    setter_case("custom strategy", {"ps_tasks": 2, "ps_strategy": "custom"}, BASIC),
    # partitions, colocation, optimizer slots
    setter_case("partitioned under setter", {"ps_tasks": 2}, (
        ("var", "a"), ("part", "emb", 3), ("var", "b"), ("part", "emb2", 2), ("var", "c"))),
    setter_case("colocate_with", {"ps_tasks": 3}, (
        ("var", "a"), ("coloc_var", "b", "a"), ("var", "c"), ("coloc_const", "k", "c"))),
    Case("colocate_with a variable without device", (
        ("var", "free"), ("setter", "s", {"ps_tasks": 2}), ("push", ("s", "s")),
        ("coloc_const", "k", "free"), ("coloc_var", "b", "free"), ("var", "c"), ("pop",))),
    setter_case("device scope inside colocate_with", {"ps_tasks": 3}, (
        ("var", "a"), ("coloc_push", "a"), ("push", "/cpu:0"), ("var", "b"), ("const", "k"), ("pop",),
        ("var", "b2"), ("const", "k2"), ("push", ""), ("var", "b3"), ("pop",), ("pop",), ("var", "c"))),
    Case("device scope inside colocate_with a deviceless variable", (
        ("var", "free"), ("setter", "s", {"ps_tasks": 2}), ("push", ("s", "s")), ("coloc_push", "free"),
        ("var", "b"), ("const", "k"), ("push", "/gpu:0"), ("var", "b2"), ("const", "k2"), ("pop",), ("pop",),
        ("var", "c"), ("pop",))),
    setter_case("Adam slots", {"ps_tasks": 4}, (
        ("var", "w"), ("var", "b"), ("adam", ["w", "b"]), ("var", "z"))),
    Case("Adam slots under gpu outside setter", (
        ("push", "/gpu:0"), ("setter", "s", {"ps_tasks": 3}), ("push", ("s", "s")),
        ("var", "w"), ("tfvar", "b"), ("adam", ["w", "b"]), ("var", "z"), ("pop",), ("pop",))),
]


def test_case_table_is_large_enough() -> None:
    assert len(CASES) >= 30
    assert len({case.name for case in CASES}) == len(CASES)  # names key the TensorFlow cache


# --- TensorFlow side ------------------------------------------------------------------------------

def _custom_strategy(op: Any) -> int:
    return 7


def _tf_setter(kwargs: dict[str, Any]) -> Any:
    kwargs = dict(kwargs)
    if kwargs.get("ps_strategy") == "custom":
        kwargs["ps_strategy"] = _custom_strategy
    return v1.train.replica_device_setter(**kwargs)


def run_tf(case: Case, resource: bool) -> list[tuple[str, str, str]]:
    """(label, op type, device) for everything the case records, from a real graph."""
    records: list[tuple[str, str, str]] = []
    graph = tf.Graph()
    with graph.as_default():
        setters: dict[str, Any] = {}
        variables: dict[str, Any] = {}
        open_scopes: list[Any] = []

        def record_variable(v: Any) -> None:
            records.append((v.op.name, v.op.type, v.device))

        def get_variable(name: str) -> Any:
            v = v1.get_variable(name, [2], use_resource=resource)
            variables[name] = v
            record_variable(v)
            return v

        for step in case.steps:
            kind = step[0]
            if kind == "setter":
                setters[step[1]] = _tf_setter(step[2])
            elif kind == "push":
                entry = step[1]
                if isinstance(entry, tuple):
                    entry = setters[entry[1]]
                scope = v1.device(entry)
                scope.__enter__()
                open_scopes.append(scope)
            elif kind == "pop":
                open_scopes.pop().__exit__(None, None, None)
            elif kind == "var":
                get_variable(step[1])
            elif kind == "tfvar":
                v = v1.Variable(0.0, name=step[1], use_resource=resource)
                variables[step[1]] = v
                records.append((f"{step[1]}/initial_value", v.initial_value.op.type, v.initial_value.op.device))
                record_variable(v)
            elif kind == "part":
                parts = v1.get_variable(step[1], [6, 2], partitioner=v1.fixed_size_partitioner(step[2]),
                                        use_resource=resource)
                for part in parts:
                    record_variable(part)
            elif kind == "const":
                records.append((step[1], "Const", tf.constant(1.0, name=step[1]).op.device))
            elif kind == "noop":
                records.append((step[1], "NoOp", tf.no_op(name=step[1]).device))
            elif kind == "coloc_var":
                with v1.colocate_with(variables[step[2]]):
                    get_variable(step[1])
            elif kind == "coloc_const":
                with v1.colocate_with(variables[step[2]]):
                    records.append((step[1], "Const", tf.constant(1.0, name=step[1]).op.device))
            elif kind == "coloc_push":
                scope = v1.colocate_with(variables[step[1]])
                scope.__enter__()
                open_scopes.append(scope)
            elif kind == "adam":
                before = {v.op.name for v in v1.global_variables()}
                loss = tf.add_n([tf.reduce_sum(variables[name]) for name in step[1]])
                v1.train.AdamOptimizer(0.1).minimize(loss)
                for v in v1.global_variables():
                    if v.op.name not in before:
                        record_variable(v)
            else:
                raise AssertionError(f"unknown step {step!r}")
        assert not open_scopes, "case leaves device scopes open"
    return records


_TF_RECORDS: dict[tuple[str, bool], list[tuple[str, str, str]]] = {}


def tf_records(case: Case, resource: bool) -> list[tuple[str, str, str]]:
    """`run_tf`, once per case and variable kind (graph building is the slow part)."""
    key = (case.name, resource)
    if key not in _TF_RECORDS:
        _TF_RECORDS[key] = run_tf(case, resource)
    return _TF_RECORDS[key]


# --- model side (what the static interpreter does) ---------------------------------------------------

def _model_setter(kwargs: dict[str, Any]) -> ReplicaDeviceSetter | None:
    kwargs = dict(kwargs)
    if "cluster" in kwargs:
        kwargs["cluster"] = ClusterValue.from_literal(kwargs["cluster"])
    return replica_device_setter(**kwargs)


def run_model(case: Case, resource: bool) -> list[tuple[str, str, str | None]]:
    var_type = "VarHandleOp" if resource else "VariableV2"
    stack = DeviceStack()
    setters: dict[str, ReplicaDeviceSetter | None] = {}
    devices: dict[str, str | None] = {}  # variable name -> device
    order: list[str] = []  # variables in creation order (global_variables order)
    records: list[tuple[str, str, str | None]] = []

    def create(name: str, colocate_with: str | None = None) -> None:
        devices[name] = stack.device_for(var_type, colocate_with=colocate_with)
        order.append(name)
        records.append((name, var_type, devices[name]))

    for step in case.steps:
        kind = step[0]
        if kind == "setter":
            setters[step[1]] = _model_setter(step[2])
        elif kind == "push":
            entry = step[1]
            stack.push(setters[entry[1]] if isinstance(entry, tuple) else entry)
        elif kind == "pop":
            stack.pop()
        elif kind == "var":
            create(step[1])
        elif kind == "tfvar":
            # tf.Variable(0.0) converts its initial value to a Const first: a ref variable under the
            # device stack, a resource variable under an internal device(None) (TF 2.21
            # ResourceVariable._init_from_args).  get_variable's callable initializer always runs
            # under device(None).
            if resource:
                stack.push(None)
            records.append((f"{step[1]}/initial_value", "Const", stack.device_for("Const")))
            if resource:
                stack.pop()
            create(step[1])
        elif kind == "part":
            for index in range(step[2]):
                create(f"{step[1]}/part_{index}")
        elif kind == "const":
            records.append((step[1], "Const", stack.device_for("Const")))
        elif kind == "noop":
            records.append((step[1], "NoOp", stack.device_for("NoOp")))
        elif kind == "coloc_var":
            create(step[1], colocate_with=devices[step[2]])
        elif kind == "coloc_const":
            records.append((step[1], "Const", stack.device_for("Const", colocate_with=devices[step[2]])))
        elif kind == "coloc_push":
            stack.push_colocation(devices[step[1]])
        elif kind == "adam":
            # Optimizer._create_slots: beta powers colocated with the first variable by name, then
            # m and v slots per variable in var_list (creation) order, each colocated with its variable.
            names = [name for name in order if name in step[1]]
            first = min(names)
            for power in ("beta1_power", "beta2_power"):
                create(power, colocate_with=devices[first])
            for name in names:
                create(f"{name}/Adam", colocate_with=devices[name])
                create(f"{name}/Adam_1", colocate_with=devices[name])
        else:
            raise AssertionError(f"unknown step {step!r}")
    return records


def _matches(predicted: str | None, observed: str) -> bool:
    """A partly known prediction matches when each "?" stands for one field value."""
    if predicted is None:
        return False
    if UNKNOWN_PART not in predicted:
        return predicted == observed
    pattern = "".join("[^/:]+" if char == UNKNOWN_PART else re.escape(char) for char in predicted)
    return re.fullmatch(pattern, observed) is not None


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_device_model_matches_tensorflow(case: Case, resource: bool) -> None:
    observed = tf_records(case, resource)
    predicted = run_model(case, resource)
    assert [(label, op_type) for label, op_type, _ in predicted] == [
        (label, op_type) for label, op_type, _ in observed]
    mismatches = [(label, want, got) for (label, _, want), (_, _, got) in zip(predicted, observed)
                  if not _matches(want, got)]
    assert not mismatches, f"(label, model, tensorflow): {mismatches}"


def test_ref_and_resource_variables_get_the_same_devices() -> None:
    # Variables only: non-variable ops may differ (a resource variable converts a literal initial
    # value under device(None), a ref variable under the device stack).
    variable_types = {"VariableV2", "VarHandleOp"}
    for case in CASES:
        ref = [(label, device) for label, op_type, device in tf_records(case, False) if op_type in variable_types]
        resource = [(label, device) for label, op_type, device in tf_records(case, True)
                    if op_type in variable_types]
        assert ref == resource, case.name
        assert ref, case.name


# --- device strings, setter None-ness, dtype sizes ------------------------------------------------

DEVICE_STRINGS = [
    "", "/", "/gpu:0", "gpu:0", "/GPU:0", "/Gpu:2", "/cpu:*", "/cpu", "/job:ps/task:0/cpu:0",
    "/device:GPU:1", "/device:gpu:1", "/device:XLA_CPU:0", "/device:Gpu:0", "/replica:2",
    "/job:ps/replica:2/task:0/device:CPU:0", "job:ps", "/job:", "/task:01", "/task:+3",
    "/job:a/job:b", "/task:1/task:2", "/tpu:0", "//job:w//cpu:0", ":0", "/job:w/:x",
]
BAD_DEVICE_STRINGS = [
    "ps:0", "/job:ps:0", "/cpu:0/gpu:0", "/task:x", "/device:GPU", "/device:GPU:one",
    "/xla_cpu:0", "/job", "/CPU:0:1", "/gpu:0/device:CPU:0", "/replica:",
]


@pytest.mark.parametrize("text", DEVICE_STRINGS)
def test_parse_and_to_string_match_tensorflow(text: str) -> None:
    assert DeviceSpec.parse(text).to_string() == tf.DeviceSpec.from_string(text).to_string()


@pytest.mark.parametrize("text", BAD_DEVICE_STRINGS)
def test_parse_errors_match_tensorflow(text: str) -> None:
    with pytest.raises(ValueError) as tf_error:
        tf.DeviceSpec.from_string(text)
    with pytest.raises(DeviceSpecError) as model_error:
        DeviceSpec.parse(text)
    assert str(model_error.value) == str(tf_error.value)


def test_merging_matches_tensorflow() -> None:
    for inner in DEVICE_STRINGS:
        for outer in ("/job:worker/task:1/device:GPU:0", "/cpu:*", "/job:ps", ""):
            want = tf.DeviceSpec.from_string(outer).make_merged_spec(tf.DeviceSpec.from_string(inner))
            got = DeviceSpec.parse(inner).merged_over(DeviceSpec.parse(outer))
            assert got.to_string() == want.to_string(), (inner, outer)


SETTER_ARGUMENTS: list[dict[str, Any]] = [
    {}, {"ps_tasks": 0}, {"ps_tasks": 1}, {"ps_tasks": 0, "worker_device": "/job:w"},
    {"cluster": CLUSTER_2PS}, {"cluster": {"worker": ["a:1"]}}, {"cluster": {"ps": [], "worker": ["a:1"]}},
    {"cluster": CLUSTER_2PS, "ps_device": "/job:foo"}, {"cluster": CLUSTER_2PS, "ps_device": ""},
    {"cluster": CLUSTER_2PS, "ps_device": None}, {"cluster": {"ps": {1: "a:1", 5: "b:2"}}},
    {"cluster": {"ps2": ["a:1"]}, "ps_device": "/job:ps2/task:3"}, {"ps_tasks": 2, "ps_device": ""},
]


@pytest.mark.parametrize("kwargs", SETTER_ARGUMENTS, ids=[repr(k) for k in SETTER_ARGUMENTS])
def test_setter_is_none_exactly_when_tensorflow_returns_none(kwargs: dict[str, Any]) -> None:
    assert (_model_setter(kwargs) is None) == (v1.train.replica_device_setter(**kwargs) is None)


def test_dtype_sizes_match_tensorflow() -> None:
    for name, size in DTYPE_BYTES.items():
        assert tf.as_dtype(name).size == size, name
    for name in ("string", "resource", "variant"):
        assert bytes_of((2,), name) is None
    assert bytes_of((3, 4), "float32") == 4 * 3 * 4
