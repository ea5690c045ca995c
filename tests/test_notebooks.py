"""Jupyter notebooks: code cells checked as one program, findings at cell:line in every format."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from scopelint import notebooks
from scopelint.cli import main

REPO = Path(__file__).resolve().parents[1]


def _cell(kind: str, *lines: str) -> dict:
    cell = {"cell_type": kind, "metadata": {}, "source": list(lines)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _notebook(*cells: dict, language: str = "python") -> str:
    return json.dumps({"cells": list(cells), "nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"kernelspec": {"name": "k", "language": language, "display_name": "K"},
                                    "language_info": {"name": language}}}, indent=1)


# Cell 3, line 4 creates tower/w; cell 5 calls it twice: TFS101 at cell 3:4:16.
SHARED_TWICE = (
    _cell("markdown", "# A model\n"),
    _cell("code", "%matplotlib inline\n", "import tensorflow.compat.v1 as tf\n", "tf.disable_eager_execution()\n"),
    _cell("code", "!pip list\n", "def tower(x):\n", '    with tf.variable_scope("tower"):\n',
          '        return tf.get_variable("w", [3, 4])\n'),
    _cell("code", "%%bash\n", "echo tensorflow\n"),
    _cell("code", "a = tower(1)\n", "b = tower(2)"),
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "model.ipynb").write_text(_notebook(*SHARED_TWICE))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check", "--no-cache", "--no-color", *args])
    return code, capsys.readouterr().out


def test_concatenation_keeps_lines_and_skips_magics() -> None:
    document = json.loads(_notebook(*SHARED_TWICE))
    concatenated = notebooks.concatenate(document)
    assert concatenated.cells == (2, 3, 5)  # markdown and %%bash cells left out
    lines = concatenated.source.splitlines()
    assert lines[0] == "pass" and lines[3] == "pass"  # %matplotlib, !pip
    assert concatenated.cell_of(7) == (3, 4) and concatenated.cell_of(8) == (5, 1)
    compile(concatenated.source, "model.ipynb", "exec")


@pytest.mark.parametrize(("line", "python"), [
    ("files = !ls", "files = None"),
    ("    %time train()", "    pass"),
    ("tf.get_variable?", "pass"),
    ("x = 1  # what?", "x = 1  # what?"),
    ('print("ok?")', 'print("ok?")'),
])
def test_ipython_escapes(line: str, python: str) -> None:
    assert notebooks._python_lines(line) == [python]


def test_python_cell_magic_keeps_its_body() -> None:
    assert notebooks._python_lines("%%time\nx = 1\n") == ["", "x = 1"]
    assert notebooks._python_lines("%%writefile a.py\nx = 1\n") is None


def test_a_folder_walk_checks_notebooks(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _check(capsys, ".", "--output-format", "concise")
    assert code == 1
    assert out.startswith("model.ipynb:cell 3:4:16: TFS101 ")


def test_exclude_leaves_notebooks_out(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _check(capsys, ".", "--extend-exclude", "*.ipynb")
    assert code == 0


@pytest.mark.parametrize("output_format", ["full", "concise", "grouped", "pylint", "github", "azure",
                                           "gitlab", "rdjson", "sarif", "junit"])
def test_every_format_says_cell_and_line(project: Path, capsys: pytest.CaptureFixture[str], output_format: str) -> None:
    code, out = _check(capsys, "model.ipynb", "--output-format", output_format)
    assert code == 1
    assert "cell 3:4:16" in out or "cell 3, line 4, col 16" in out, out


def test_full_format_shows_the_cell_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _check(capsys, "model.ipynb")
    assert "4 |         return tf.get_variable(\"w\", [3, 4])" in out
    assert "second call of `tower` (cell 5, line 2)" in out


def test_json_has_ruffs_cell_field(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for output_format in ("json", "json-lines"):
        _, out = _check(capsys, "model.ipynb", "--output-format", output_format)
        first = json.loads(out) if output_format == "json" else [json.loads(line) for line in out.splitlines()]
        (finding,) = first
        assert (finding["cell"], finding["location"], finding["noqa_row"]) == (3, {"row": 4, "column": 16}, 4)
        assert [(r["cell"], r["location"]["row"]) for r in finding["related"]] == [(5, 2), (3, 4), (5, 1)]


def test_sarif_and_line_formats_fall_back_to_line_one(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ruff's choice: the file's lines are JSON, so the structured formats point at 1:1 and the
    message carries the cell's place."""
    _, out = _check(capsys, "model.ipynb", "--output-format", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert result["properties"]["cell"] == 3 and result["properties"]["cellLocation"] == {"row": 4, "column": 16}
    _, out = _check(capsys, "model.ipynb", "--output-format", "junit")
    case = ElementTree.fromstring(out).find(".//testcase")
    assert case is not None and case.get("line") == "1"


def test_noqa_in_a_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cells = list(SHARED_TWICE)
    cells[2] = _cell("code", "!pip list\n", "def tower(x):\n", '    with tf.variable_scope("tower"):\n',
                     '        return tf.get_variable("w", [3, 4])  # noqa: TFS101\n')
    (tmp_path / "quiet.ipynb").write_text(_notebook(*cells))
    monkeypatch.chdir(tmp_path)
    assert _check(capsys, "quiet.ipynb", "--show-unused-noqa")[0] == 0


def test_file_level_noqa_in_any_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cells = [*SHARED_TWICE, _cell("code", "# scopelint: noqa: TFS101\n")]
    (tmp_path / "quiet.ipynb").write_text(_notebook(*cells))
    monkeypatch.chdir(tmp_path)
    assert _check(capsys, "quiet.ipynb")[0] == 0


def test_not_a_notebook_is_a_parse_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    monkeypatch.chdir(tmp_path)
    code, out = _check(capsys, "broken.ipynb", "--output-format", "concise")
    assert code == 1 and out.startswith("broken.ipynb:1:1: TFS000 not a valid Jupyter notebook")


def test_a_notebook_of_another_language_is_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r.ipynb").write_text(_notebook(*SHARED_TWICE, language="R"))
    monkeypatch.chdir(tmp_path)
    assert _check(capsys, "r.ipynb")[0] == 0


def test_stdin_filename_ipynb_is_a_notebook(project: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "scopelint", "check", "-", "--stdin-filename", "nb.ipynb",
                           "--output-format", "concise"], input=(project / "model.ipynb").read_bytes(),
                          capture_output=True, cwd=project, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert done.stdout.decode().startswith("nb.ipynb:cell 3:4:16: TFS101"), done.stderr.decode()


def test_tensorflow_raises_where_the_finding_is(tmp_path: Path) -> None:
    """The oracle runs the notebook's cells in order as one program: TensorFlow's error is at the
    concatenated line that maps to cell 3, line 4, where scopelint reports it."""
    import oracle

    document = json.loads(_notebook(*SHARED_TWICE))
    concatenated = notebooks.concatenate(document)
    program = tmp_path / "cells.py"
    program.write_text(concatenated.source)
    observation = oracle.observe([program], cache_dir=tmp_path / "cache")[program]
    assert observation.error is not None and observation.error.type == "ValueError"
    assert "Variable tower/w already exists" in observation.error.message
    # The innermost frame in the program is the get_variable line.
    assert concatenated.cell_of(observation.error.line) == (3, 4)
    from scopelint import engine

    (finding,) = engine.check_source(_notebook(*SHARED_TWICE).encode(), "nb.ipynb", _settings()).diagnostics
    assert (finding.site.cell, finding.site.line) == (3, 4)


def _settings():
    from scopelint.project_settings import CommandLineSettings, SettingsResolver

    return SettingsResolver(CommandLineSettings())(".")


def test_include_and_extend_include(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """ruff's `include` (the files a walk checks) and `extend-include` (more of them)."""
    (tmp_path / "model.ipynb").write_text(_notebook(*SHARED_TWICE))
    program = 'import tensorflow.compat.v1 as tf\nw = tf.get_variable("w", [2])\nv = tf.get_variable("w", [2])\n'
    (tmp_path / "script.pyw").write_text(program)
    (tmp_path / "plain.py").write_text(program)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--show-files", "."]) == 0
    assert capsys.readouterr().out.split() == ["model.ipynb", "plain.py"]
    (tmp_path / "pyproject.toml").write_text('[tool.scopelint]\nextend-include = ["*.pyw"]\n')
    assert main(["check", "--show-files", "."]) == 0
    assert capsys.readouterr().out.split() == ["model.ipynb", "plain.py", "script.pyw"]
    (tmp_path / "pyproject.toml").write_text('[tool.scopelint]\ninclude = ["*.py"]\n')
    assert main(["check", "--show-files", "."]) == 0
    assert capsys.readouterr().out.split() == ["plain.py"]
    assert main(["check", "--show-settings", "."]) == 0
    assert 'include = ["*.py"]' in capsys.readouterr().out


def test_layout_of_a_notebook(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layout", "model.ipynb", "--output-format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(v["name"], v["shape"], v["location"]) for v in data["variables"]] == [("tower/w", [3, 4], "model.ipynb:cell 3:4:16")]
    assert data["raises"][0]["location"] == "model.ipynb:cell 3:4:16"
    (project / "broken.ipynb").write_text('{"cells": ["import tensorflow')
    assert main(["layout", ".", "--output-format", "json"]) == 2  # the broken one is named on stderr
    captured = capsys.readouterr()
    assert "broken.ipynb: not a valid Jupyter notebook" in captured.err
    assert [document["path"] for document in json.loads(captured.out)] == ["model.ipynb"]


def test_add_noqa_comments_the_line_in_its_cell_and_keeps_the_rest_of_the_notebook(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = json.loads((project / "model.ipynb").read_text())
    code = main(["check", "--no-cache", "--no-color", "--add-noqa", "model.ipynb"])
    assert code == 0
    assert "Added 1 noqa directive" in capsys.readouterr().err
    text = (project / "model.ipynb").read_text()
    after = json.loads(text)
    assert after["cells"][2]["source"][3] == '        return tf.get_variable("w", [3, 4])  # noqa: TFS101\n'
    after["cells"][2]["source"][3] = before["cells"][2]["source"][3]
    assert after == before  # the magics, the other cells and the metadata are as they were
    assert text == _notebook(*SHARED_TWICE).replace('[3, 4])\\n"', '[3, 4])  # noqa: TFS101\\n"')
    assert _check(capsys, "model.ipynb")[0] == 0
    main(["check", "--no-cache", "--add-noqa", "model.ipynb"])  # nothing left to add
    assert (project / "model.ipynb").read_text() == text


def test_add_noqa_leaves_a_notebook_it_cannot_write_back_unchanged(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = json.dumps(json.loads(_notebook(*SHARED_TWICE)), indent=3)
    (project / "model.ipynb").write_text(odd)
    main(["check", "--no-cache", "--no-color", "--add-noqa", "model.ipynb"])
    assert "JSON layout cannot be written back unchanged" in capsys.readouterr().err
    assert (project / "model.ipynb").read_text() == odd
