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


def test_layout_reads_files_as_check_does(tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    # A FIFO is refused (not waited on for a writer); a file over the size limit is not analysed.
    import os

    from scopelint import engine

    os.mkfifo(tmp_path / "pipe.py")
    code, _, err = run_cli(capsys, str(tmp_path / "pipe.py"))
    assert code == 2 and "not a regular file (a FIFO)" in err
    monkeypatch.setattr(engine, "MAX_SOURCE_BYTES", 10)
    (tmp_path / "big.py").write_text(PROGRAM)
    code, _, err = run_cli(capsys, str(tmp_path / "big.py"))
    assert code == 2 and "file too large to analyse" in err


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


# --- paths, encodings, formats and widths (issue 12) --------------------------------------------------


def test_layout_of_a_folder_and_of_stdin(tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(PROGRAM)
    (tmp_path / "pkg" / "b.py").write_text("import tensorflow.compat.v1 as tf\nv = tf.get_variable('v', [3])\n")
    (tmp_path / "pkg" / "notes.txt").write_text("not python")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "pkg", "--output-format", "json")
    assert code == 0 and err == ""
    documents = json.loads(out)  # several files: a list of the one-file documents
    assert [(d["path"], [v["name"] for v in d["variables"]]) for d in documents] == [
        (str(Path("pkg/a.py")), ["emb", "w", "b"]), (str(Path("pkg/b.py")), ["v"]),
    ]
    code, out, _ = run_cli(capsys, "pkg", "--output-format", "csv")
    assert code == 0 and [line.split(",")[0] for line in out.splitlines()] == ["name", "emb", "w", "b", "v"]
    code, out, _ = run_cli(capsys, "pkg", "--no-color")
    assert code == 0 and "Variables of pkg/a.py" in out and "Variables of pkg/b.py" in out
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PROGRAM.encode())))
    code, out, _ = run_cli(capsys, "-", "--stdin-filename", "model.py", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["path"] == "model.py" and [v["name"] for v in data["variables"]] == ["emb", "w", "b"]


def test_layout_reads_a_coding_line_as_check_does(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(("# -*- coding: latin-1 -*-\n# Größe\n" + PROGRAM).encode("latin-1"))
    code, out, err = run_cli(capsys, str(path), "--output-format", "json")
    assert code == 0 and err == "" and [v["name"] for v in json.loads(out)["variables"]] == ["emb", "w", "b"]
    assert cli.main(["check", "--no-cache", "-q", str(path)]) == 0  # check reads it too


def test_an_80_column_terminal_keeps_the_device_whole() -> None:
    from rich.console import Console

    from scopelint.analysis import analyze_source
    from scopelint.layout import layout_table

    source = (
        "import tensorflow.compat.v1 as tf\n"
        "with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device='/job:ps/replica:0')):\n"
        "    with tf.variable_scope('generator/encoder/block_1/attention'):\n"
        "        q = tf.get_variable('query_projection_kernel', [512, 512])\n"
        "        k = tf.get_variable('key_projection_kernel', [512, 512])\n"
    )
    result = build_layout(analyze_source(source, "a_rather_long_folder_name/model_with_long_name.py"))
    devices = [row.device for row in result.rows]
    assert devices == ["/job:ps/replica:0/task:0", "/job:ps/replica:0/task:1"]
    console = Console(width=80, record=True, color_system=None)
    console.print(layout_table(result, width=80))
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines())
    for device in devices:
        assert device in text  # was cut to `/job:ps/t…`
    assert "Columns left out to fit 80 columns" in text


def test_a_program_tensorflow_crashes_on_is_not_complete(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "crash.py"
    path.write_text(
        "import tensorflow.compat.v1 as tf\n"
        "with tf.variable_scope('s'):\n"
        "    a = tf.get_variable('w', [2])\n"
        "    b = tf.get_variable('w', [2])\n"  # ValueError: Variable s/w already exists
    )
    code, out, _ = run_cli(capsys, str(path), "--output-format", "json")
    data = json.loads(out)
    assert code == 0 and data["complete"] is False  # was true
    assert data["raises"] == [{"location": f"{path}:4:9", "message": data["raises"][0]["message"]}]
    assert "already exists" in data["raises"][0]["message"]
    clean = tmp_path / "clean.py"
    clean.write_text(PROGRAM)
    code, out, _ = run_cli(capsys, str(clean), "--output-format", "json")
    assert json.loads(out)["complete"] is True and json.loads(out)["raises"] == []
