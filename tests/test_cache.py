"""The results cache (scopelint/cache.py via engine.run) and the terminal progress bar."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

import scopelint.analysis
from scopelint import cli, engine
from scopelint.cache import CACHE_DIR_NAME, ResultCache
from scopelint.output.progress import ProgressBar, progress_bar
from scopelint_fakes import TF_HEADER, fake_analyze_source, fake_analyzer  # noqa: F401  (fixture)

ALREADY = "w = 1  # event: already_exists related=2\n"
IGNORES = "v = 2  # event: variable_ignores_reuse\n"


@pytest.fixture
def analyses(fake_analyzer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fake analyzer, recording the path of every file it analyses."""
    seen: list[str] = []

    def counting_analyze_source(source: str, path: str):
        seen.append(path)
        return fake_analyze_source(source, path)

    monkeypatch.setattr(scopelint.analysis, "analyze_source", counting_analyze_source)
    return seen


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "model.py").write_text(TF_HEADER + ALREADY + IGNORES)
    (tmp_path / "clean.py").write_text(TF_HEADER)
    (tmp_path / "plain.py").write_text("print('no tf here')\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    code = cli.main(["check", "--output-format", "json", *argv])
    return code, capsys.readouterr().out


def cache_entries(root: Path) -> list[Path]:
    return sorted((root / CACHE_DIR_NAME).rglob("*.json"))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_warm_run_analyses_nothing_and_reports_the_same(project: Path, analyses: list[str], capsys, jobs: str) -> None:
    cold = check(capsys, "--jobs", jobs)
    if jobs == "1":  # workers are other processes: their calls are not seen here
        assert sorted(analyses) == ["clean.py", "model.py"]
    assert len(cache_entries(project)) == 2  # the pre-filtered plain.py is not stored
    assert (project / CACHE_DIR_NAME / ".gitignore").read_text().endswith("*\n")
    analyses.clear()
    warm = check(capsys, "--jobs", jobs)
    assert analyses == [] and warm == cold and cold[0] == 1
    assert [finding["code"] for finding in json.loads(warm[1])] == ["TFS101", "TFS201"]


def test_changed_file_or_settings_miss_the_cache(project: Path, analyses: list[str], capsys) -> None:
    check(capsys, "--jobs", "1")
    analyses.clear()
    (project / "model.py").write_text(TF_HEADER + IGNORES)
    code, out = check(capsys, "--jobs", "1")
    assert analyses == ["model.py"] and [f["code"] for f in json.loads(out)] == ["TFS201"]
    analyses.clear()
    code, out = check(capsys, "--jobs", "1", "--ignore", "TFS201")
    assert sorted(analyses) == ["clean.py", "model.py"] and (code, json.loads(out)) == (0, [])
    analyses.clear()
    check(capsys, "--jobs", "1", "--show-unused-noqa")
    assert sorted(analyses) == ["clean.py", "model.py"]


def test_no_cache_neither_reads_nor_writes(project: Path, analyses: list[str], capsys) -> None:
    check(capsys, "--jobs", "1", "--no-cache")
    assert not (project / CACHE_DIR_NAME).exists()
    check(capsys, "--jobs", "1")
    analyses.clear()
    check(capsys, "--jobs", "1", "--no-cache")
    assert sorted(analyses) == ["clean.py", "model.py"]


@pytest.mark.parametrize("garbage", [b"", b"{not json", b'{"key": "x"}', b"\xff\xfe", b'{"key": null, "lookups": 3}'])
def test_corrupt_entries_are_discarded(project: Path, analyses: list[str], capsys, garbage: bytes) -> None:
    cold = check(capsys, "--jobs", "1")
    for entry in cache_entries(project):
        entry.write_bytes(garbage)
    analyses.clear()
    assert check(capsys, "--jobs", "1") == cold
    assert sorted(analyses) == ["clean.py", "model.py"]
    analyses.clear()
    assert check(capsys, "--jobs", "1") == cold and analyses == []  # rewritten whole


def test_cache_lives_under_the_project_root(tmp_path: Path, analyses: list[str], capsys, monkeypatch) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.scopelint]\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(TF_HEADER + ALREADY)
    monkeypatch.chdir(tmp_path / "src")
    check(capsys, "--jobs", "1", "model.py")
    assert len(cache_entries(tmp_path)) == 1 and not (tmp_path / "src" / CACHE_DIR_NAME).exists()


def test_key_depends_on_salt_path_rules_and_bytes(tmp_path: Path) -> None:
    cache = ResultCache(directory=tmp_path, salt="a")
    base = cache.key("m.py", frozenset({"TFS101"}), b"x")
    assert base == cache.key("m.py", frozenset({"TFS101"}), b"x")
    assert len({base, cache.key("n.py", frozenset({"TFS101"}), b"x"), cache.key("m.py", frozenset(), b"x"),
                cache.key("m.py", frozenset({"TFS101"}), b"y"), ResultCache(tmp_path, "b").key("m.py", frozenset({"TFS101"}), b"x")}) == 5


def test_an_edited_imported_module_invalidates_its_importers(tmp_path: Path, capsys, monkeypatch) -> None:
    """The real analyzer follows `from helper import block`: helper.py's bytes are part of the entry."""
    pytest.importorskip("scopelint.analysis.project")
    helper = tmp_path / "helper.py"
    helper.write_text(
        "import tensorflow.compat.v1 as tf\n\n"
        "def block():\n"
        "    with tf.variable_scope('block'):\n"
        "        return tf.get_variable('w', [1])\n"
    )
    (tmp_path / "model.py").write_text("import tensorflow.compat.v1 as tf\nfrom helper import block\n\nblock()\nblock()\n")
    monkeypatch.chdir(tmp_path)
    code, out = check(capsys, "--jobs", "1", "--isolated", "model.py")
    assert code == 1 and [(Path(f["filename"]).name, f["code"]) for f in json.loads(out)] == [("helper.py", "TFS101")]
    helper.write_text(helper.read_text().replace("variable_scope('block')", "variable_scope('block', reuse=tf.AUTO_REUSE)"))
    assert check(capsys, "--jobs", "1", "--isolated", "model.py") == (0, "[]\n")


def test_progress_bar_on_a_terminal_counts_files_and_findings(project: Path, fake_analyzer) -> None:
    stream = io.StringIO()
    bar = ProgressBar(Console(file=stream, force_terminal=True, width=100))
    settings = engine.CheckSettings(enabled=frozenset({"TFS101", "TFS201"}))
    engine.run(["."], settings, jobs=1, progress=bar)
    assert bar.progress is not None and bar.findings == 2
    task = bar.progress.tasks[0]
    assert (task.total, task.completed) == (3, 3)
    bar.close()
    assert "findings" in stream.getvalue()


def test_no_progress_bar_when_piped_or_for_one_file(fake_analyzer) -> None:
    assert progress_bar(io.StringIO()) is None
    bar = ProgressBar(Console(file=io.StringIO(), force_terminal=True))
    bar.started(1)
    assert bar.progress is None


FIX_BEFORE = Path(__file__).parent / "fixtures" / "fixes" / "tfs101_reuse_false_argument.before.py"


def test_a_warm_run_takes_fixes_from_the_cache(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix is computed where the file is analysed and stored with its findings: a warm run
    neither computes it again nor parses the file for it, and the settings still decide."""
    from scopelint import fixes

    (tmp_path / "program.py").write_text(FIX_BEFORE.read_text())
    monkeypatch.chdir(tmp_path)
    cold = check(capsys, "--jobs", "1", "--select", "TFS101", "program.py")
    assert [finding["fix"]["applicability"] for finding in json.loads(cold[1])] == ["safe"]

    def no_fix_computed(diagnostic, source):
        raise AssertionError("a warm run computed a fix")

    monkeypatch.setattr(fixes, "compute_fix", no_fix_computed)
    assert check(capsys, "--jobs", "1", "--select", "TFS101", "program.py") == cold
    (tmp_path / "pyproject.toml").write_text('[tool.scopelint]\nunfixable = ["TFS101"]\n')
    code, out = check(capsys, "--jobs", "1", "--select", "TFS101", "program.py")
    assert [finding["fix"] for finding in json.loads(out)] == [None]


def test_a_fix_that_fails_where_the_file_is_analysed_is_left_to_the_output(tmp_path: Path, capsys,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Not stored as "no fix": the run that prints the findings computes it and reports the bug."""
    from scopelint import fixes

    (tmp_path / "program.py").write_text(FIX_BEFORE.read_text())
    monkeypatch.chdir(tmp_path)
    real = fixes.compute_fix
    monkeypatch.setattr(fixes, "compute_fix", lambda diagnostic, source: source.errors.append("boom"))
    check(capsys, "--jobs", "1", "--select", "TFS101", "program.py")
    monkeypatch.setattr(fixes, "compute_fix", real)
    code, out = check(capsys, "--jobs", "1", "--select", "TFS101", "program.py")
    assert [finding["fix"]["applicability"] for finding in json.loads(out)] == ["safe"]


def test_a_notebook_is_cached_with_its_cells(tmp_path: Path, analyses: list[str], capsys, monkeypatch) -> None:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# model\n"]},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": [TF_HEADER, ALREADY]}]
    (tmp_path / "model.ipynb").write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5,
                                                      "metadata": {"language_info": {"name": "python"}}}))
    monkeypatch.chdir(tmp_path)
    cold = cli.main(["check", "--jobs", "1", "--no-color", "model.ipynb"]), capsys.readouterr().out
    assert analyses == ["model.ipynb"] and "model.ipynb:cell 2:2:" in cold[1]
    analyses.clear()
    warm = cli.main(["check", "--jobs", "1", "--no-color", "model.ipynb"]), capsys.readouterr().out
    assert analyses == [] and warm == cold


def test_a_module_reached_through_a_shared_import_still_invalidates(tmp_path: Path, capsys, monkeypatch) -> None:
    """first.py's analysis runs shim.py (which imports helper.py) and keeps it for the files checked
    after it in the process; second.py gets shim from there, and helper.py's bytes must still be
    part of second.py's entry."""
    from scopelint.analysis import shared_modules

    monkeypatch.setattr(shared_modules, "SHARED", {})
    helper = tmp_path / "helper.py"
    helper.write_text("import tensorflow.compat.v1 as tf\n\ndef block():\n"
                      "    with tf.variable_scope('block'):\n        return tf.get_variable('w', [1])\n")
    (tmp_path / "shim.py").write_text("from helper import block\n")
    (tmp_path / "first.py").write_text("import tensorflow.compat.v1 as tf\nimport shim\n")
    (tmp_path / "second.py").write_text("import tensorflow.compat.v1 as tf\nfrom shim import block\n\nblock()\nblock()\n")
    monkeypatch.chdir(tmp_path)
    code, out = check(capsys, "--jobs", "1", "--isolated", "first.py", "second.py")
    assert [(Path(f["filename"]).name, f["code"]) for f in json.loads(out)] == [("helper.py", "TFS101")]
    helper.write_text(helper.read_text().replace("variable_scope('block')", "variable_scope('block', reuse=tf.AUTO_REUSE)"))
    assert check(capsys, "--jobs", "1", "--isolated", "first.py", "second.py") == (0, "[]\n")
