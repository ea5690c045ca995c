"""The table of variable-free TF calls (scopelint/analysis/tf_variable_free.py) is derived from
TensorFlow's own API, and what it lists really creates no variables.

The table is generated, not written by hand: every public symbol of the `tf.compat.v1` namespaces
whose unmodelled calls the analysis otherwise treats as possible variable creators (`tf.train`)
and of tf_slim (standing in for `tf.contrib.slim` / `tf.contrib.layers` / `tf.contrib.framework`)
is classified by the module that defines it (`inspect.getmodule`): a module listed in
`PURE_MODULES` builds protocol buffers, reads checkpoints, computes schedules from tensors or
runs sessions, and never calls get_variable or tf.Variable.  Regenerate with
`python3 tests/test_variable_free_tf.py --write` after changing PURE_MODULES.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TABLE = ROOT / "scopelint" / "analysis" / "tf_variable_free.py"

# Defining module -> what a call returns: "tensor" (a graph tensor computed from the arguments)
# or "value" (a Python object: a protobuf, a path, a hook, a reader).  Read each module's source
# before adding it: none of these create variables.
PURE_MODULES: dict[str, str] = {
    "tensorflow.core.example.example_pb2": "value",
    "tensorflow.core.example.feature_pb2": "value",
    "tensorflow.core.protobuf.cluster_pb2": "value",
    "tensorflow.core.protobuf.saver_pb2": "value",
    "tensorflow.core.protobuf.tensorflow_server_pb2": "value",
    "tensorflow.python.checkpoint.checkpoint_management": "value",
    "tensorflow.python.checkpoint.checkpoint_options": "value",
    "tensorflow.python.framework.graph_io": "value",
    "tensorflow.python.keras.optimizer_v2.legacy_learning_rate_decay": "tensor",
    "tensorflow.python.summary.summary_iterator": "value",
    "tensorflow.python.training.basic_session_run_hooks": "value",
    "tensorflow.python.training.session_run_hook": "value",
    "tensorflow.python.training.coordinator": "value",
    "tensorflow.python.training.checkpoint_utils": "value",
    "tensorflow.python.training.py_checkpoint_reader": "value",
    "tensorflow.python.training.queue_runner_impl": "value",
    # tf_slim (tf.contrib.*): regularizers and initializers are factories of functions, losses
    # and summaries are graph ops, the variable getters read collections.
    "tf_slim.layers.regularizers": "value",
    "tf_slim.layers.initializers": "value",
    "tf_slim.layers.summaries": "tensor",
    "tf_slim.losses.loss_ops": "tensor",
    "tf_slim.summaries": "tensor",
}
# Symbols of an otherwise creating module that only read: (module, name).
PURE_SYMBOLS: dict[tuple[str, str], str] = {
    ("tensorflow.python.training.training_util", "get_global_step"): "value",
    ("tensorflow.python.training.training_util", "global_step"): "value",
    ("tensorflow.python.training.training_util", "assert_global_step"): "value",
    **{("tf_slim.ops.variables", name): "value" for name in (
        "get_variables", "get_model_variables", "get_trainable_variables", "get_local_variables",
        "get_variables_by_name", "get_variables_by_suffix", "get_unique_variable", "get_variables_to_restore",
        "get_variable_full_name", "assign_from_checkpoint", "assign_from_checkpoint_fn",
        "assign_from_values", "assign_from_values_fn", "filter_variables", "add_model_variable",
        "get_global_step")},
}


def _probe() -> dict[str, Any]:
    """The TensorFlow side: the generated table and a run of sample calls (subprocess only)."""
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import inspect
    import warnings

    warnings.filterwarnings("ignore")
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    table: dict[str, str] = {}

    def classify(prefixes: tuple[str, ...], namespace: Any) -> None:
        for name in dir(namespace):
            if name.startswith("_"):
                continue
            value = getattr(namespace, name)
            if inspect.ismodule(value):
                continue
            module = getattr(inspect.getmodule(value), "__name__", "")
            kind = PURE_SYMBOLS.get((module, name), PURE_MODULES.get(module))
            if kind is not None:
                for prefix in prefixes:
                    table[f"{prefix}.{name}"] = kind

    classify(("tf.train",), tf.train)
    try:
        import tf_slim
    except ImportError:
        tf_slim = None
    if tf_slim is not None:
        classify(("tf.contrib.slim",), tf_slim)
        import importlib

        classify(("tf.contrib.layers", "tf.contrib.slim.layers"), importlib.import_module("tf_slim.layers"))
        classify(("tf.contrib.framework",), importlib.import_module("tf_slim.ops.variables"))
        classify(("tf.contrib.losses", "tf.contrib.slim.losses"), importlib.import_module("tf_slim.losses"))

    # Sample calls: none may add a variable to the graph.
    samples: dict[str, int] = {}
    graph = tf.Graph()
    with graph.as_default():
        step = tf.train.get_or_create_global_step()
        before = len(tf.global_variables())
        tf.train.latest_checkpoint("/nonexistent")
        feature = tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))
        tf.train.Example(features=tf.train.Features(feature={"a": feature})).SerializeToString()
        tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
        tf.train.piecewise_constant(step, [10], [0.1, 0.01])
        tf.train.polynomial_decay(0.1, step, 10)
        tf.train.cosine_decay(0.1, step, 10)
        tf.train.get_global_step()
        tf.train.Coordinator()
        tf.train.StopAtStepHook(last_step=1)
        if tf_slim is not None:
            tf_slim.l2_regularizer(0.1)
            tf_slim.losses.softmax_cross_entropy(tf.zeros([2, 3]), tf.zeros([2, 3]))
            tf_slim.get_model_variables()
        samples["added"] = len(tf.global_variables()) - before
        samples["local"] = len(tf.local_variables())
    return {"table": dict(sorted(table.items())), "samples": samples}


def _render(table: dict[str, str]) -> str:
    lines = [
        '"""TF calls that create no variables, with what they return ("tensor" or "value").',
        "",
        "GENERATED by `python3 tests/test_variable_free_tf.py --write` from TensorFlow's API (each",
        "symbol classified by its defining module); tests/test_variable_free_tf.py checks it.",
        '"""',
        "VARIABLE_FREE: dict[str, str] = {",
    ]
    lines += [f"    {path!r}: {kind!r}," for path, kind in table.items()]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _run_probe() -> dict[str, Any]:
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, __file__, "--probe"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def probed() -> dict[str, Any]:
    pytest.importorskip("tensorflow")
    return _run_probe()


@pytest.mark.tf
def test_table_is_generated_from_tensorflow(probed: dict[str, Any]) -> None:
    assert TABLE.read_text() == _render(probed["table"]), "regenerate: python3 tests/test_variable_free_tf.py --write"


@pytest.mark.tf
def test_sample_calls_create_no_variables(probed: dict[str, Any]) -> None:
    assert probed["samples"] == {"added": 0, "local": 0}


@pytest.mark.tf
def test_known_creators_are_not_in_the_table(probed: dict[str, Any]) -> None:
    table = probed["table"]
    for creator in ("tf.train.get_or_create_global_step", "tf.train.create_global_step", "tf.train.AdamOptimizer",
                    "tf.train.ExponentialMovingAverage", "tf.train.string_input_producer", "tf.train.batch",
                    "tf.contrib.slim.variable", "tf.contrib.slim.model_variable", "tf.contrib.layers.conv2d"):
        assert creator not in table
    for pure in ("tf.train.latest_checkpoint", "tf.train.exponential_decay", "tf.train.Int64List",
                 "tf.train.piecewise_constant", "tf.train.get_global_step"):
        assert pure in table


if __name__ == "__main__" and sys.argv[1:] == ["--probe"]:
    print(json.dumps(_probe()))
elif __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    TABLE.write_text(_render(_run_probe()["table"]))
