"""The program's own device functions (analysis/device_functions.py): interpreted with an abstract
op whose type is the variable op TensorFlow would make.  TF 2.21 places the fixtures
tests/fixtures/devices/device_function_* exactly as predicted (the differential test runs them)."""
from __future__ import annotations

import textwrap

from scopelint.analysis import analyze_source
from scopelint.model import devices as devmodel

ASSIGN_TO_DEVICE = """\
PS_OPS = ["Variable", "VariableV2", "AutoReloadVariable"]
def assign_to_device(device, ps_device="/cpu:0"):
    def _assign(op):
        node_def = op if isinstance(op, tf.NodeDef) else op.node_def
        if node_def.op in PS_OPS:
            return ps_device
        return device
    return _assign
with tf.device(assign_to_device("/gpu:1")):
    tf.get_variable("w", [2])
"""


def devices(header: str, body: str = ASSIGN_TO_DEVICE) -> list[tuple[str, str | None]]:
    trace = analyze_source(header + textwrap.dedent(body), "m.py")
    return [(record.name, record.device) for record in trace.variables]


def test_a_tf1_program_makes_ref_variables() -> None:
    assert devices("import tensorflow as tf\n") == [("w", "/cpu:0")]


def test_disable_v2_behavior_makes_ref_variables_and_enable_resource_variables_resource_ones() -> None:
    v1 = "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n"
    resource = "import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()\ntf.enable_resource_variables()\n"
    assert devices(v1) == [("w", "/cpu:0")]
    assert devices(resource) == [("w", "/gpu:1")]


def test_a_compat_v1_program_that_does_not_say_may_make_either_and_the_device_stays_unknown() -> None:
    # TF 1.15 makes VariableV2 (the CPU), TF 2.21 VarHandleOp (the GPU).
    assert devices("import tensorflow.compat.v1 as tf\ntf.disable_eager_execution()\n") == [("w", None)]
    # A function that treats both alike is known either way.
    assert devices("import tensorflow.compat.v1 as tf\n", """\
        with tf.device(lambda op: "/job:ps/task:0" if op.type in ("VariableV2", "VarHandleOp") else "/job:worker"):
            tf.get_variable("w", [2])
        """) == [("w", "/job:ps/task:0")]


def test_the_function_sees_what_inner_scopes_set_and_outer_strings_merge_over_its_result() -> None:
    assert devices("import tensorflow as tf\n", """\
        with tf.device("/job:worker"):
            with tf.device(lambda op: op.device + "/task:3"):
                with tf.device("/cpu:0"):
                    tf.get_variable("w", [2])
        """) == [("w", "/job:worker/task:3/device:CPU:0")]


def test_a_function_the_analysis_cannot_answer_leaves_the_device_unknown() -> None:
    assert devices("import tensorflow as tf\n", """\
        with tf.device(lambda op: op.name.split("/")[0]):
            tf.get_variable("w", [2])
        """) == [("w", None)]


def test_the_model_keeps_a_returned_string_as_tensorflow_does_until_a_scope_merges_over_it() -> None:
    stack = devmodel.DeviceStack()
    stack.push(devmodel.DeviceFunction(lambda op_type, current: "/gpu:0"))
    assert stack.device_for("VariableV2") == "/gpu:0"
    stack.pop()
    stack.push("/job:worker")
    stack.push(devmodel.DeviceFunction(lambda op_type, current: "/gpu:0"))
    assert stack.device_for("VariableV2") == "/job:worker/device:GPU:0"
    assert stack.dropped_by_barrier() == (["'/job:worker'", "a device function"], False)
