"""`scopelint migrate`: constructs, inventory, reuse map, renderers, name map, and the checkpoint
cross-check against a checkpoint TensorFlow really writes from tests/fixtures/migrate/project."""
from __future__ import annotations

import csv
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scopelint.cli import main
from scopelint.migrate.checkpoint import CheckpointKey, compare
from scopelint.migrate.collect import NOT_PARSED, collect, collect_source
from scopelint.migrate.constructs import construct_of, scan_constructs
from scopelint.migrate.effort import WEIGHTS, size_of
from scopelint.migrate.inventory import build_inventory, build_reuse_map, shim_checkpoint_key
from scopelint.migrate.recipes import RECIPES
from scopelint.migrate.render_html import render_html
from scopelint.migrate.render_json import report_data
from scopelint.migrate.render_markdown import render_markdown
from scopelint.migrate.report import build_report

PROJECT = Path(__file__).resolve().parent / "fixtures" / "migrate" / "project"
REPO = PROJECT.parents[3]

# What train.py builds, as TensorFlow writes it to a name-based checkpoint (measured below).
MODEL_KEYS = {
    "embedding/table": [10, 4], "global_step": [], "head/dense/bias": [2], "head/dense/kernel": [12, 2],
    "tower/fc1/b": [8], "tower/fc1/w": [6, 8], "tower/fc2/b": [4], "tower/fc2/w": [8, 4],
}
OPTIMIZER_KEYS = {"beta1_power", "beta2_power"} | {
    f"{key}/{slot}" for key in MODEL_KEYS if key != "global_step" for slot in ("Adam", "Adam_1")
}


@pytest.fixture(scope="module")
def project_report():
    return build_report(collect([str(PROJECT)]), [str(PROJECT)])


# --------------------------------------------------------------------------------------- constructs


def test_construct_paths_have_recipes_and_weights():
    for construct in {construct_of(path) for path in ("tf.get_variable", "tf.train.AdamOptimizer", "tf.train.LoggingTensorHook")} | set(RECIPES):
        assert construct in RECIPES and construct in WEIGHTS
    assert construct_of("tf.train.SyncReplicasOptimizer") == "sync_replicas"
    assert construct_of("tf.train.AdamOptimizer") == "v1_optimizer"
    assert construct_of("tf.contrib.slim.conv2d") == "slim"
    assert construct_of("tf.contrib.tpu.TPUEstimator") == "estimator"
    assert construct_of("tf.contrib.tpu.CrossShardOptimizer") == "contrib"
    assert construct_of("tf.matmul") == "ops"


def test_import_styles_and_aliases():
    source = (
        "import tensorflow as tf1\n"
        "from tensorflow.contrib import slim\n"
        "from tensorflow.compat import v1 as tf\n"
        "vs = tf.variable_scope\n"
        "FLAGS = tf.flags.FLAGS\n"
        "with vs('a', reuse=True):\n"
        "    w = tf1.get_variable('w', [1], custom_getter=g)\n"
        "    slim.conv2d(x, 3, [3, 3])\n"
        "    tf.get_variable_scope().reuse_variables()\n"
        "print(FLAGS.data_dir)\n"
    )
    found = scan_constructs(source, "m.py")
    styles = {style.style: style.seen_by_upgrade_script for style in found.imports}
    assert styles == {
        "import tensorflow as tf1": False,
        "from tensorflow.contrib import slim": False,
        "from tensorflow.compat import v1 as tf": True,
        "vs = tf.variable_scope (rebinding)": False,
    }
    sites = [(site.construct, site.api, site.site.line) for site in found.sites]
    assert ("variable_scope", "tf.variable_scope", 6) in sites
    assert ("reuse", "variable_scope(reuse=True)", 6) in sites
    assert ("custom_getter", "tf.get_variable(custom_getter=...)", 7) in sites
    assert ("slim", "tf.contrib.slim.conv2d", 8) in sites
    assert ("reuse", "reuse_variables()", 9) in sites
    # FLAGS counts once where it is bound; reading a flag is not a TF API use.
    assert [site.line for construct, api, site in [(s.construct, s.api, s.site) for s in found.sites]
            if construct == "flags_logging"] == [5]


def test_unresolved_reuse_argument_is_not_certain():
    found = scan_constructs("import tensorflow as tf\ndef f(r):\n    with tf.variable_scope('a', reuse=r):\n        pass\n", "m.py")
    reuse = [site for site in found.sites if site.construct == "reuse"]
    assert len(reuse) == 1 and not reuse[0].certain and reuse[0].api == "variable_scope(reuse=r)"


# --------------------------------------------------------------------------------------- collection


def test_parse_failure_is_not_analysed_and_never_fine(project_report):
    broken = next(module for module in project_report.modules if module.path.endswith("broken.py"))
    assert broken.verdict == "not analysed" and broken.status == NOT_PARSED
    assert "SyntaxError" in (broken.problem or "")
    assert [module.path for module in project_report.files_not_analysed] == [broken.path]
    data = report_data(project_report)["summary"]
    assert data["files_scanned"] == 6
    assert data["files_using_tensorflow"] == 5  # helpers.py never mentions tensorflow
    assert [entry["path"] for entry in data["files_not_analysed"]] == [broken.path]


def test_undecodable_file_is_not_analysed():
    facts = collect_source(b"import tensorflow as tf\nx = '\xff'\n", "bad.py")
    assert facts.status == NOT_PARSED and "utf-8" in (facts.problem or "")


def test_verdicts_per_module(project_report):
    verdicts = {Path(module.path).name: module.verdict for module in project_report.modules}
    assert verdicts == {
        "broken.py": "not analysed", "helpers.py": "no TensorFlow", "layers_lib.py": "shim-able",
        "model.py": "needs redesign",  # the partitioner
        "train.py": "needs redesign",  # Session, placeholders, optimizer
        "distributed.py": "blocked",  # SyncReplicasOptimizer
    }


# --------------------------------------------------------------------------------------- inventory


def test_inventory_rows_partitions_and_slots(project_report):
    rows = {row.key: row for row in project_report.inventory if "train.py" in row.built_by[0]}
    assert set(rows) == set(MODEL_KEYS) | OPTIMIZER_KEYS
    table = rows["embedding/table"]
    assert table.shape == (10, 4) and table.parts == ("embedding/table/part_0", "embedding/table/part_1")
    assert table.partitions == (2, 1) and table.shim_key() is None  # partitioners do not work under the shim
    slot = rows["embedding/table/Adam"]  # slots of a partitioned primary are saved as one key too
    assert slot.shape == (10, 4) and slot.is_optimizer_state
    assert rows["head/dense/kernel"].shape == (None, 2)  # the concat width is not computed
    assert rows["tower/fc1/w"].scopes == ("tower (reuse=False)", "tower/fc1 (reuse=False)")
    assert rows["tower/fc1/w"].site.path.endswith("layers_lib.py") and rows["tower/fc1/w"].site.line == 7


def test_shim_key_escapes_like_tensorflow():
    # Measured with tf.train.Checkpoint(layer=...) on TF 2.21: "/" -> ".S", "." -> "..".
    assert shim_checkpoint_key("tower/fc/dense/kernel", "layer") == \
        "layer/_tf1_style_var_store/_vars/tower.Sfc.Sdense.Skernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert shim_checkpoint_key("tower/w.x", "layer") == "layer/_tf1_style_var_store/_vars/tower.Sw..x/.ATTRIBUTES/VARIABLE_VALUE"


def test_reuse_map_names_the_second_tower(project_report):
    shared = {variable.key: variable for variable in project_report.shared}
    assert set(shared) == {"tower/fc1/w", "tower/fc1/b", "tower/fc2/w", "tower/fc2/b"}
    entry = shared["tower/fc1/w"].sharing[0]
    assert entry.reuse == "True" and entry.scope == "tower/fc1"
    assert "second call of `tower`" in entry.via and "model.py:12" in entry.via
    hazard = next(hazard for hazard in project_report.hazards if hazard.kind == "reuse_ignored_in_eager")
    assert hazard.recipe == "reuse" and {site.line for site in hazard.sites} == {7, 8}


def test_distributed_inventory(project_report):
    distributed = project_report.distributed
    assert distributed.clusters[0].detail_dict()["jobs"] == (("ps", 2), ("worker", 1))
    assert [site.api for site in distributed.servers] == ["tf.train.Server"]
    assert [site.api for site in distributed.blockers] == ["tf.train.SyncReplicasOptimizer"]
    assert {use.site.api: use.tf2_class for use in distributed.partitioners} == {
        "tf.min_max_variable_partitioner": "tf.distribute.experimental.partitioners.MinSizePartitioner",
        "tf.fixed_size_partitioner": "tf.distribute.experimental.partitioners.FixedShardsPartitioner",
    }


def test_effort_uses_the_weight_table(project_report):
    train = next(module for module in project_report.modules if module.path.endswith("train.py"))
    expected = sum(WEIGHTS[construct] * count for construct, count in train.constructs.items())
    assert train.effort.points == expected and train.effort.size == size_of(expected)
    distributed = next(module for module in project_report.modules if module.path.endswith("distributed.py"))
    assert {line.construct: line.points for line in distributed.effort.lines}["sync_replicas"] == 13
    # The proven sharing in layers_lib.py resolves its reuse=<parameter> site: priced, not unresolved.
    layers = next(module for module in project_report.modules if module.path.endswith("layers_lib.py"))
    assert layers.constructs.get("reuse") == 1
    assert project_report.effort_points == sum(module.effort.points for module in project_report.modules)


# --------------------------------------------------------------------------------------- renderers


def test_markdown_content(project_report):
    text = render_markdown(project_report)
    for key in MODEL_KEYS:
        assert f"| {key} |" in text, key
    assert "| embedding/table | [10, 4] | float32 | get_variable | embedding/table/part_0 + embedding/table/part_1 |" in text
    for recipe in project_report.recipes:
        assert f'<a id="recipe-{recipe.construct}"></a>' in text
        for _, url in recipe.docs:
            assert url in text
    assert "| sync_replicas | 13 | 1 | 13 |" in text  # the effort table: weight, sites, points
    assert f"| total |   |   | {project_report.effort_points} |" in text
    assert "| import tensorflow.compat.v1 as tf | 3 | yes |" in text
    assert "TF_USE_LEGACY_KERAS=1" in text  # the shim's prerequisites


def test_html_is_self_contained_with_chart(project_report):
    text = render_html(project_report)
    assert text.startswith("<!DOCTYPE html>")
    for forbidden in ("<script", "<link", "src=", "@import"):
        assert forbidden not in text
    assert "<svg" in text and text.count("<rect") == sum(1 for module in project_report.modules if module.effort.points)
    assert "<details" in text and "<summary>" in text
    for key in MODEL_KEYS:
        assert f"<td>{key}</td>" in text, key
    assert '<section id="recipe-partitioner">' in text and 'href="#recipe-partitioner"' in text
    assert "<td>sync_replicas</td><td>13</td><td>1</td><td>13</td>" in text


def test_json_schema_and_content(project_report):
    data = json.loads(json.dumps(report_data(project_report)))
    assert data["schema"] == "scopelint-migrate" and data["schema_version"] == 1
    keys = {(row["key"], row["site"]["path"].split("/")[-1]) for row in data["variables"]}
    assert ("embedding/table", "model.py") in keys and ("tower/fc2/w", "layers_lib.py") in keys
    table = next(row for row in data["variables"] if row["key"] == "embedding/table")
    assert table["shape"] == [10, 4] and table["parts"] == ["embedding/table/part_0", "embedding/table/part_1"]
    assert {recipe["construct"] for recipe in data["recipes"]} >= {"reuse", "partitioner", "sync_replicas", "session"}
    assert data["effort"]["weights"] == WEIGHTS
    assert data["summary"]["effort_points"] == data["effort"]["total_points"] == project_report.effort_points
    assert data["checkpoint"] is None


def test_name_map_json_and_csv(tmp_path):
    json_map, csv_map, report = tmp_path / "names.json", tmp_path / "names.csv", tmp_path / "r.md"
    assert main(["migrate", str(PROJECT), "-o", str(report), "--name-map", str(json_map), "--shim-attr", "model", "-j", "1"]) == 0
    assert main(["migrate", str(PROJECT), "-o", str(report), "--name-map", str(csv_map), "-j", "1"]) == 0
    data = json.loads(json_map.read_text())
    assert data["columns"] == ["tf1_key", "shape", "dtype", "site", "shim_key", "new_name"]
    fc1 = next(row for row in data["rows"] if row["tf1_key"] == "tower/fc1/w")
    assert fc1["shape"] == "[6, 8]" and fc1["dtype"] == "float32" and fc1["new_name"] == ""
    assert fc1["shim_key"] == "model/_tf1_style_var_store/_vars/tower.Sfc1.Sw/.ATTRIBUTES/VARIABLE_VALUE"
    assert fc1["site"].endswith("layers_lib.py:7:13")
    rows = list(csv.DictReader(csv_map.open()))
    assert {row["tf1_key"] for row in rows} == {row["tf1_key"] for row in data["rows"]}
    assert next(row for row in rows if row["tf1_key"] == "embedding/table")["shim_key"] == ""


def test_a_missing_path_is_a_usage_error_not_a_scanned_file(tmp_path, capsys):
    report = tmp_path / "r.json"
    code = main(["migrate", str(tmp_path / "missing.py"), str(PROJECT), "--format", "json", "-o", str(report), "-j", "1"])
    # It exited 0 and counted missing.py among the files scanned.
    assert code == 2 and "missing.py: No such file or directory" in capsys.readouterr().err
    assert not report.exists()


def test_stdin_is_read_for_a_dash(tmp_path, capsys, monkeypatch):
    import io

    source = (PROJECT / "layers_lib.py").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source)))
    code = main(["migrate", "-", "--stdin-filename", "from_stdin.py", "--format", "json", "-j", "1"])
    data = json.loads(capsys.readouterr().out)
    expected = report_data(build_report(collect([str(PROJECT / "layers_lib.py")]), ["x"]))
    assert code == 0 and data["summary"]["files_scanned"] == 1  # `-` was ignored: 0 files
    assert data["summary"]["constructs"] == expected["summary"]["constructs"] and data["summary"]["constructs"]
    assert [module["path"] for module in data["modules"]] == ["from_stdin.py"]


def test_migrate_never_imports_tensorflow_without_checkpoint(tmp_path):
    code = (
        "import sys\nfrom scopelint.cli import main\n"
        f"code = main(['migrate', {str(PROJECT)!r}, '--format', 'json', '-o', {str(tmp_path / 'r.json')!r}, '-j', '1'])\n"
        "assert code == 0, code\nassert 'tensorflow' not in sys.modules, 'tensorflow imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


# --------------------------------------------------------------------------------------- checkpoint


def test_compare_matches_unknown_name_parts_and_sorts_optimizer_keys(project_report):
    rows = [row for row in project_report.inventory if "train.py" in row.built_by[0]]
    keys = [CheckpointKey(key, tuple(shape)) for key, shape in MODEL_KEYS.items()]
    keys += [CheckpointKey("extra/Momentum", (3,)), CheckpointKey("extra", (3,))]
    result = compare("ck", rows, keys)
    assert [entry.key for entry in result.model.unexpected] == ["extra"]
    assert [entry.key for entry in result.optimizer.unexpected] == ["extra/Momentum"]
    assert {row.key for row in result.optimizer.missing} == OPTIMIZER_KEYS
    assert not result.model.missing and not result.model.shape_mismatches


def _save_checkpoint(project: Path, prefix: Path) -> None:
    """Run the fixture's own training step in graph mode, as a TF1 user would, and save."""
    code = (
        "import os, sys\n"
        "import tensorflow.compat.v1 as tf\n"
        "tf.disable_v2_behavior()\n"
        "sys.path.insert(0, os.getcwd())\n"
        "import train\n"
        f"train.main({str(prefix)!r})\n"
    )
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    subprocess.run([sys.executable, "-c", code], check=True, cwd=project, env=env, capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def saved_checkpoint(tmp_path_factory):
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed")
    prefix = tmp_path_factory.mktemp("checkpoint") / "model"
    _save_checkpoint(PROJECT, prefix)
    return prefix


@pytest.mark.tf
def test_checkpoint_full_agreement(saved_checkpoint, tmp_path):
    out = tmp_path / "report.json"
    code = main(["migrate", str(PROJECT), "--format", "json", "-o", str(out), "--checkpoint", str(saved_checkpoint.parent), "-j", "1"])
    data = json.loads(out.read_text())["checkpoint"]
    assert code == 0 and data["full_agreement"] is True
    assert data["compared_with"].endswith("train.py")
    assert {entry["key"]: entry["shape"] for entry in data["variables"]["matched"]} == MODEL_KEYS
    assert {entry["key"] for entry in data["optimizer_state"]["matched"]} == OPTIMIZER_KEYS
    for side in ("variables", "optimizer_state"):
        assert data[side]["missing"] == data[side]["unexpected"] == data[side]["shape_mismatches"] == []


@pytest.mark.tf
def test_checkpoint_after_renaming_a_scope(saved_checkpoint, tmp_path):
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    model = copy / "model.py"
    source = model.read_text()
    assert source.count('tf.variable_scope("head")') == 1
    model.write_text(source.replace('tf.variable_scope("head")', 'tf.variable_scope("classifier")'))
    out = tmp_path / "report.md"
    json_out = tmp_path / "report.json"
    assert main(["migrate", str(copy), "-o", str(out), "--checkpoint", str(saved_checkpoint), "-j", "1"]) == 1
    assert main(["migrate", str(copy), "--format", "json", "-o", str(json_out), "--checkpoint", str(saved_checkpoint), "-j", "1"]) == 1
    data = json.loads(json_out.read_text())["checkpoint"]
    assert data["full_agreement"] is False
    head = {"head/dense/kernel", "head/dense/bias"}
    assert {entry["key"] for entry in data["variables"]["missing"]} == {key.replace("head", "classifier") for key in head}
    assert {entry["key"] for entry in data["variables"]["unexpected"]} == head
    slots = {f"{key}/{slot}" for key in head for slot in ("Adam", "Adam_1")}
    assert {entry["key"] for entry in data["optimizer_state"]["missing"]} == {key.replace("head", "classifier") for key in slots}
    assert {entry["key"] for entry in data["optimizer_state"]["unexpected"]} == slots
    assert data["variables"]["shape_mismatches"] == []
    text = out.read_text()
    assert "DIFFERENCES" in text
    assert "| missing (predicted, not in checkpoint) | classifier/dense/kernel | [?, 2] |" in text
    assert "| unexpected (in checkpoint, not predicted) | head/dense/kernel | [12, 2] |" in text
