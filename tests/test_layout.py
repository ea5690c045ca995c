"""`scopelint layout`: the inventory of the final graph, per-task load, and the three formats."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from scopelint import cli
from scopelint.layout import build_layout, layout_csv, layout_data, ps_task_of, shape_text
from scopelint.trace import Site, Trace, VariableRecord


def record(name: str, shape: tuple | None, device: str | None, *, dtype: str | None = "float32", line: int = 3,
           certain: bool = True, graph: int = 0, kind: str = "get_variable") -> VariableRecord:
    return VariableRecord(name=name, store_key=name, shape=shape, dtype=dtype, kind=kind,
                          site=Site("model.py", line, 5, line, 20), certain=certain, device=device, graph=graph)


def test_ps_task_of() -> None:
    assert ps_task_of("/job:ps/task:1/device:CPU:0") == "/job:ps/task:1"
    assert ps_task_of("/job:ps/replica:0/task:2") == "/job:ps/replica:0/task:2"
    assert ps_task_of("/job:worker/task:0") is None
    assert ps_task_of("/job:ps") is None  # no task: not one task's load
    assert ps_task_of("/job:ps/task:?") is None
    assert ps_task_of("") is None and ps_task_of(None) is None


def test_only_the_final_graph_and_per_task_sums() -> None:
    trace = Trace("model.py", final_graph=1, variables=[
        record("old", (2,), "/job:ps/task:0", graph=0),
        record("emb", (100, 8), "/job:ps/task:1", graph=1, line=4),
        record("w", (8, 8), "/job:ps/task:0", graph=1, line=5),
        record("b", (8,), "/job:ps/task:1/device:CPU:0", graph=1, line=6),
        record("step", (), "/job:ps/task:0", dtype="int64", graph=1, line=7),
        record("dyn", (None, 8), "/job:ps/task:0", graph=1, line=8),
        record("maybe", (8,), "/job:ps/task:1", graph=1, certain=False, line=9),
        record("local", (3,), "", graph=1, line=10),
        record("unknown", (3,), None, graph=1, line=11),
    ])
    layout = build_layout(trace)
    assert [row.name for row in layout.rows] == ["emb", "w", "b", "step", "dyn", "maybe", "local", "unknown"]
    assert [row.bytes for row in layout.rows][:5] == [3200, 256, 32, 8, None]
    loads = {load.device: load for load in layout.ps_tasks}
    assert list(loads) == ["/job:ps/task:0", "/job:ps/task:1"]
    assert (loads["/job:ps/task:0"].variables, loads["/job:ps/task:0"].bytes, loads["/job:ps/task:0"].unsized) == (3, 264, 1)
    # The uncertain variable is listed but not counted.
    assert (loads["/job:ps/task:1"].variables, loads["/job:ps/task:1"].bytes) == (2, 3232)
    assert layout.uncertain == 1


def test_json_schema_and_csv() -> None:
    trace = Trace("model.py", variables=[record("w", (2, 3), "/job:ps/task:0"), record("v", None, None, dtype=None)])
    data = layout_data(build_layout(trace))
    assert data["variables"][0] == {
        "name": "w", "shape": [2, 3], "dtype": "float32", "bytes": 24, "device": "/job:ps/task:0",
        "kind": "get_variable", "certain": True, "location": "model.py:3:5",
    }
    assert data["variables"][1]["shape"] is None and data["variables"][1]["device"] is None
    assert data["ps_tasks"] == [{"device": "/job:ps/task:0", "variables": 1, "bytes": 24, "unsized": 0}]
    json.dumps(data)
    rows = list(csv.reader(io.StringIO(layout_csv(build_layout(trace)))))
    assert rows[0] == ["name", "shape", "dtype", "bytes", "device", "kind", "certain", "location"]
    assert rows[1] == ["w", "[2, 3]", "float32", "24", "/job:ps/task:0", "get_variable", "true", "model.py:3:5"]
    assert rows[2] == ["v", "?", "", "", "?", "get_variable", "true", "model.py:3:5"]
    assert shape_text(()) == "[]" and shape_text((None, 4)) == "[None, 4]"


PROGRAM = """\
import tensorflow.compat.v1 as tf

with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
    emb = tf.get_variable("emb", [1000, 16])
    w = tf.get_variable("w", [16, 4])
    b = tf.get_variable("b", [4])
"""


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["layout", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_json_from_the_real_analyzer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "model.py"
    path.write_text(PROGRAM)
    code, out, err = run_cli(capsys, str(path), "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert [(v["name"], v["device"], v["bytes"]) for v in data["variables"]] == [
        ("emb", "/job:ps/task:0", 64000), ("w", "/job:ps/task:1", 256), ("b", "/job:ps/task:0", 16),
    ]
    assert data["variables"][0]["location"] == f"{path}:4:11"
    assert [(t["device"], t["variables"], t["bytes"]) for t in data["ps_tasks"]] == [
        ("/job:ps/task:0", 2, 64016), ("/job:ps/task:1", 1, 256),
    ]


def test_cli_table_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "model.py"
    path.write_text(PROGRAM)
    code, out, _ = run_cli(capsys, str(path), "--no-color")
    assert code == 0
    assert "/job:ps/task:1" in out and "62.5 KiB" in out and "█" * 30 in out
    assert "emb" in out and f"{path}:4:11" in out  # piped: nothing is cut short
    code, out, _ = run_cli(capsys, str(path), "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("emb,\"[1000, 16]\",float32,64000,/job:ps/task:0,")


def test_cli_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, _, err = run_cli(capsys, str(tmp_path / "missing.py"))
    assert code == 2 and "missing.py" in err
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow\nx = (\n")
    code, _, err = run_cli(capsys, str(broken))
    assert code == 2 and "broken.py" in err


def test_an_estimator_program_shows_the_model_fn_graph() -> None:
    from scopelint.analysis import analyze_source
    from scopelint.layout import build_layout

    source = (
        "import tensorflow.compat.v1 as tf\n"
        "def model_fn(features, labels, mode):\n"
        "    return tf.get_variable('w', [2, 3])\n"
        "estimator = tf.estimator.Estimator(model_fn)\n"
        "estimator.train(input_fn=None)\n"
        "estimator.evaluate(input_fn=None)\n"
    )
    layout = build_layout(analyze_source(source, "est.py"))
    assert [(row.name, row.shape) for row in layout.rows] == [("w", (2, 3))]
