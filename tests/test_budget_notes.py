"""A file whose analysis ran out of its work budget is never passed as clean in silence: `check`
says on stderr where the runs stopped and in which configurations (scopelint/budget_notes.py).

The budget is lowered here so that each program reaches it in a few thousand steps instead of
60,000; a program that ends within it gets no note.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from scopelint import cli
from scopelint.analysis import analyze_source, interpreter
from scopelint.budget_notes import BudgetNote, describe, note_of
from scopelint.cache import _budget_note_from_json, _budget_note_to_json
from scopelint.trace import BudgetStop, Site

H = "import tensorflow.compat.v1 as tf\n"
# Each call builds the same layer again under reuse: a few steps, many times.
BUILDER = H + """
def build(x):
    with tf.variable_scope('net', reuse=tf.AUTO_REUSE):
        w = tf.get_variable('w', [4, 4])
        return tf.matmul(x, w)

x = tf.placeholder(tf.float32, [2, 4])
"""
# 40,000 calls of `build` (a loop longer than MAX_LOOP_ITERATIONS would run once, as unknown).
LONG_LOOP = "for step in range(200):\n    for layer in range(200):\n        y = build(x)\n"


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interpreter, "MAX_STEPS", 3_000)


def test_a_run_stopped_inside_a_call_names_the_call() -> None:
    source = BUILDER + LONG_LOOP
    trace = analyze_source(source, "model.py")
    call_line = source.splitlines().index("        y = build(x)") + 1
    assert [(stop.entry, stop.function, stop.call_site.line if stop.call_site else None)
            for stop in trace.budget_stops] == [("", "build", call_line)]
    assert describe(note_of(trace)) == (
        f"the analysis stopped at its work budget inside `build`, called at line {call_line}; what "
        "the program does after that point is not checked")


def test_a_run_stopped_in_top_level_statements_has_no_call() -> None:
    trace = analyze_source(H + "total = 0\nfor step in range(200):\n    for inner in range(200):\n        total = total + inner\n", "loop.py")
    assert trace.budget_stops == [BudgetStop("", None, None)]
    assert describe(note_of(trace)).startswith("the analysis stopped at its work budget; what the program")


def test_a_program_within_the_budget_gets_no_note() -> None:
    trace = analyze_source(BUILDER + "for step in range(3):\n    y = build(x)\n", "model.py")
    assert trace.budget_stops == [] and note_of(trace) is None


def test_the_note_says_in_which_configurations_the_runs_stopped() -> None:
    source = BUILDER + """import argparse
parser = argparse.ArgumentParser()
parser.add_argument('--towers', type=int, default=1)
args = parser.parse_args()
for tower in range(200 if args.towers != 1 else 1):
    for layer in range(200):
        y = build(x)
"""
    note = note_of(analyze_source(source, "towers.py"))
    assert note is not None and note.runs == 3 and note.stopped_runs == 2 and not note.default_stopped
    assert "in 2 of the 3 configurations explored (not the default flags)" in describe(note)


def test_test_methods_the_budget_ended_are_named() -> None:
    source = BUILDER + """
class ModelTest(tf.test.TestCase):
    def testShort(self):
        build(x)

    def testLong(self):
        for step in range(200):
            for layer in range(200):
                build(x)
"""
    note = note_of(analyze_source(source, "model_test.py"))
    assert note is not None and note.stopped_runs == 0 and note.test_methods == ("testLong",)
    assert describe(note) == ("the analysis stopped at its work budget in 1 test method (testLong); the "
                              "rest of it is not checked")


def test_the_note_survives_the_results_cache() -> None:
    note = BudgetNote(11, 8, True, Site("train.py", 119, 15, 119, 60), "model_spec", ("testA",))
    assert _budget_note_from_json(json.loads(json.dumps(_budget_note_to_json(note)))) == note
    in_a_notebook = BudgetNote(2, 2, True, Site("train.ipynb", 4, 9, 4, 17, cell=2), "build")
    assert _budget_note_from_json(json.loads(json.dumps(_budget_note_to_json(in_a_notebook)))) == in_a_notebook


def test_check_prints_the_note_on_stderr_and_keeps_the_exit_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "train.py"
    program.write_text(BUILDER + LONG_LOOP)
    monkeypatch.chdir(tmp_path)
    for attempt in ("cold", "from the cache"):
        assert cli.main(["check", "--jobs", "1", "--isolated", str(program)]) == 0, attempt
        captured = capsys.readouterr()
        assert "All checks passed!" in captured.out
        assert captured.err.count("scopelint: note: ") == 1, attempt
        assert "train.py: the analysis stopped at its work budget inside `build`" in captured.err
    assert cli.main(["check", "--jobs", "1", "--isolated", "-q", str(program)]) == 0
    assert "note:" not in capsys.readouterr().err


def test_sarif_carries_the_note_as_a_notification_of_a_successful_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "train.py"
    program.write_text(BUILDER + LONG_LOOP)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--jobs", "1", "--isolated", "--no-cache", "--output-format", "sarif", "train.py"]) == 0
    invocation = json.loads(capsys.readouterr().out)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is True
    [notification] = invocation["toolExecutionNotifications"]
    assert notification["level"] == "note"
    assert notification["message"]["text"].startswith("train.py: the analysis stopped at its work budget inside `build`")
    location = notification["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "train.py"
    assert location["region"]["startLine"] == BUILDER.count("\n") + 3


def test_in_a_notebook_the_call_is_placed_at_its_cell_and_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def cell(source: str) -> dict:
        return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                "source": source.splitlines(keepends=True)}

    notebook = {"cells": [cell(BUILDER), cell("# the training loop\n" + LONG_LOOP)], "nbformat": 4,
                "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "k", "language": "python", "display_name": "K"},
                                                  "language_info": {"name": "python"}}}
    (tmp_path / "train.ipynb").write_text(json.dumps(notebook))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--jobs", "1", "--isolated", "--no-cache", "train.ipynb"]) == 0
    assert "train.ipynb: the analysis stopped at its work budget inside `build`, called at cell 2, line 4;" \
        in capsys.readouterr().err


def test_the_call_named_is_the_innermost_one_made_from_the_file() -> None:
    # tf.app.run(main): every run is inside `main`; the note names the call within it that ran out.
    source = BUILDER + """
def train():
    for step in range(200):
        for layer in range(200):
            y = build(x)

def main(_):
    train()

tf.app.run(main)
"""
    trace = analyze_source(source, "train.py")
    line = source.splitlines().index("            y = build(x)") + 1
    assert [(stop.function, stop.call_site.line) for stop in trace.budget_stops] == [("build", line)]


def test_a_stop_in_every_configuration_says_all() -> None:
    note = BudgetNote(8, 8, True, Site("query.py", 83, 5, 83, 20), "problem")
    assert describe(note) == ("the analysis stopped at its work budget inside `problem`, called at line 83, in all 8 "
                              "configurations explored; what the program does after that point is not checked")


def test_a_stop_in_an_imported_module_names_no_line_of_the_file(tmp_path: Path) -> None:
    # The budget runs out while `helpers` is imported: no call made from train.py is running, and
    # a line of helpers.py must not be given as one of train.py.
    (tmp_path / "helpers.py").write_text(BUILDER + LONG_LOOP)
    program = tmp_path / "train.py"
    program.write_text(H + "import helpers\n")
    trace = analyze_source(program.read_text(), str(program))
    assert trace.budget_stops == [BudgetStop("", None, None)]
