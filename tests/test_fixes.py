"""`check --fix`: each fixable rule's before/after fixtures, the fix engine, --diff, the formats.

tests/fixtures/fixes/<case>.before.py is fixed into <case>.after.py.  Without TensorFlow: the fix
gives exactly the after-text, a second --fix changes nothing, the rule reports nothing on the
result, and --diff is a patch `git apply` takes.  Under TensorFlow (the oracle): the before-program
raises where the rule says; the after-program does not, and every variable keeps its name, shape
and device (safe fixes) or changes exactly as the fix's message says (unsafe fixes).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from oracle import Observation, ObservedVariable, observe
from scopelint import analysis, cli, fixes
from scopelint.diagnostics import Edit, Fix
from scopelint.layout import build_layout

FIXES_DIR = Path(__file__).resolve().parent / "fixtures" / "fixes"


@dataclass(frozen=True)
class Case:
    name: str
    code: str
    applicability: str  # safe | unsafe
    before_error: str | None  # what TensorFlow raises before the fix (None: the rule is about silent behaviour)
    # Unsafe fixes: what changes, each of which the fix's message must say.
    added: str | None = None  # a part of every new variable's name
    removed: tuple[str, ...] = ()  # variables no longer created
    # Safe fixes: the fixed program creates what scopelint predicted for the broken one (it goes on
    # past TensorFlow's errors). Not for a misspelt keyword: scopelint cannot know what it meant, so
    # the setter's placement starts with the fix; `placed_on` is then where the variables must go.
    placed_on: str | None = None
    moved_to: str | None = None  # where the moved variables go (a device prefix): the message says each one's device

    @property
    def before(self) -> Path:
        return FIXES_DIR / f"{self.name}.before.py"

    @property
    def after(self) -> Path:
        return FIXES_DIR / f"{self.name}.after.py"


CASES = [
    Case("tfs105_tower_loop", "TFS105", "safe", "Variable w/Adam/ does not exist"),
    Case("tfs402_task_index", "TFS402", "safe", "unexpected keyword argument 'task_index'"),
    Case("tfs402_named_worker_device", "TFS402", "safe", "unexpected keyword argument 'task_index'"),
    Case("tfs402_cluster_spec", "TFS402", "safe", "unexpected keyword argument 'cluster_spec'", placed_on="/job:ps/task:0"),
    Case("tfs205_cell_times_layers", "TFS205", "unsafe", None, added="cell_1/"),
    Case("tfs205_cell_shared_by_directions", "TFS205", "unsafe", None, added="bidirectional_rnn/bw/"),
    Case("tfs205_cell_in_two_rnns", "TFS205", "unsafe", None, added="decoder/"),
    Case("tfs101_shared_encoder", "TFS101", "safe", "Variable encoder/w already exists"),
    Case("tfs101_reuse_false_argument", "TFS101", "safe", "Variable discriminator/w already exists"),
    Case("tfs101_reuse_none_scope", "TFS101", "safe", "Variable Model/w already exists"),
    Case("tfs101_loop_reuse_flag", "TFS101", "safe", "Variable model/w already exists"),
    Case("tfs201_variable_under_reuse", "TFS201", "unsafe", None, removed=("shared_1/w",)),
    Case("tfs401_unused_setter", "TFS401", "unsafe", None, moved_to="/job:ps/"),
]


def _case(name: str) -> Case:
    return next(case for case in CASES if case.name == name)


def _fix_args(case: Case, path: Path, *extra: str) -> list[str]:
    unsafe = ["--unsafe-fixes"] if case.applicability == "unsafe" else []
    return ["check", str(path), "--select", case.code, "--no-cache", "-q", *unsafe, *extra]


def _message(case: Case) -> str:
    """The fix's message, from the JSON output of the before-file."""
    found = [item for item in _json_findings(case.before, case.code) if item["fix"] is not None]
    assert len(found) == 1, found
    assert found[0]["fix"]["applicability"] == case.applicability
    return found[0]["fix"]["message"]


def _json_findings(path: Path, code: str) -> list[dict]:
    from io import StringIO
    import contextlib

    out = StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["check", str(path), "--select", code, "--no-cache", "--output-format", "json"])
    return json.loads(out.getvalue())


def test_every_fixture_has_a_case() -> None:
    names = {path.name.removesuffix(".before.py") for path in FIXES_DIR.glob("*.before.py")}
    assert names == {case.name for case in CASES}
    assert all(case.after.exists() for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_fix_gives_the_after_text_once(case: Case, tmp_path: Path) -> None:
    target = tmp_path / "program.py"
    shutil.copy(case.before, target)
    if case.applicability == "unsafe":
        cli.main(["check", str(target), "--select", case.code, "--no-cache", "-q", "--fix"])
        assert target.read_text() == case.before.read_text(), "an unsafe fix applied without --unsafe-fixes"
    assert cli.main(_fix_args(case, target, "--fix")) == cli.EXIT_CLEAN
    assert target.read_text() == case.after.read_text()
    # A second --fix changes nothing, and the rule has nothing left to say.
    assert cli.main(_fix_args(case, target, "--fix")) == cli.EXIT_CLEAN
    assert target.read_text() == case.after.read_text()
    assert cli.main(["check", str(target), "--select", case.code, "--no-cache", "-q"]) == cli.EXIT_CLEAN


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_diff_applies_with_git_apply(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    target = tmp_path / "program.py"
    shutil.copy(case.before, target)
    monkeypatch.chdir(tmp_path)
    assert cli.main(_fix_args(case, Path("program.py"), "--diff")) == cli.EXIT_FINDINGS
    patch = capsys.readouterr().out
    assert target.read_text() == case.before.read_text(), "--diff changed the file"
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True, capture_output=True)
    assert target.read_text() == case.after.read_text()
    # Nothing left to fix: --diff prints nothing and exits 0.
    assert cli.main(_fix_args(case, Path("program.py"), "--diff")) == cli.EXIT_CLEAN
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("case", [case for case in CASES if case.applicability == "unsafe"], ids=lambda case: case.name)
def test_diff_without_unsafe_fixes_says_what_it_leaves_out(case: Case, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """As ruff: nothing to patch, exit 0, and the closing line counts the unsafe fixes left out."""
    target = tmp_path / "program.py"
    shutil.copy(case.before, target)
    assert cli.main(["check", str(target), "--select", case.code, "--no-cache", "--diff"]) == cli.EXIT_CLEAN
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == "No findings would be fixed (1 fix available with `--unsafe-fixes`)."


def test_diff_counts_the_fixes_it_applies_and_those_it_leaves_out(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "demo_gan.py"
    shutil.copy(FIXES_DIR.parent / "patterns" / "demo_gan.py", target)
    assert cli.main(["check", str(target), "--isolated", "--no-cache", "--diff"]) == cli.EXIT_FINDINGS
    assert capsys.readouterr().err.strip() == "Would fix 1 finding (1 additional fix available with `--unsafe-fixes`)."
    assert cli.main(["check", str(target), "--isolated", "--no-cache", "--diff", "--unsafe-fixes"]) == cli.EXIT_FINDINGS
    assert capsys.readouterr().err.strip() == "Would fix 2 findings."


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_json_edits_turn_before_into_after(case: Case) -> None:
    [finding] = [item for item in _json_findings(case.before, case.code) if item["fix"] is not None]
    edits = tuple(Edit(edit["content"], (edit["location"]["row"], edit["location"]["column"]),
                       (edit["end_location"]["row"], edit["end_location"]["column"]))
                  for edit in finding["fix"]["edits"])
    fixed, applied = fixes.apply_fixes(case.before.read_text(), [Fix(case.applicability, "", edits)])
    assert applied == [0]
    assert fixed == case.after.read_text()


def test_sarif_carries_the_fix(capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES[0]
    cli.main(["check", str(case.before), "--select", case.code, "--no-cache", "--output-format", "sarif"])
    [result] = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    [fix] = result["fixes"]
    [change] = fix["artifactChanges"]
    assert change["replacements"] and "insertedContent" in change["replacements"][0]
    assert fix["properties"]["applicability"] == "safe"


def test_terminal_marks_fixable_findings(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["check", str(CASES[0].before), "--select", "TFS105", "--no-cache", "--output-format", "concise", "--no-color"])
    out = capsys.readouterr().out
    assert "TFS105 [*] " in out
    assert "[*] 1 fixable with the `--fix` option." in out
    cli.main(["check", str(_case("tfs205_cell_times_layers").before), "--select", "TFS205", "--no-cache", "--output-format", "concise", "--no-color"])
    out = capsys.readouterr().out
    assert "[*]" not in out.splitlines()[0]
    assert "1 hidden fix can be enabled with the `--unsafe-fixes` option" in out


def test_unfixable_in_configuration(tmp_path: Path) -> None:
    shutil.copy(CASES[0].before, tmp_path / "program.py")
    (tmp_path / "pyproject.toml").write_text('[tool.scopelint]\nunfixable = ["TFS105"]\n')
    cli.main(["check", str(tmp_path / "program.py"), "--select", "TFS105", "--no-cache", "-q", "--fix"])
    assert (tmp_path / "program.py").read_text() == CASES[0].before.read_text()
    (tmp_path / "pyproject.toml").write_text('[tool.scopelint]\nfixable = ["TFS4"]\n')
    cli.main(["check", str(tmp_path / "program.py"), "--select", "TFS105", "--no-cache", "-q", "--fix"])
    assert (tmp_path / "program.py").read_text() == CASES[0].before.read_text()
    (tmp_path / "pyproject.toml").write_text('[tool.scopelint]\nfixable = ["TFS1"]\n')
    cli.main(["check", str(tmp_path / "program.py"), "--select", "TFS105", "--no-cache", "-q", "--fix"])
    assert (tmp_path / "program.py").read_text() == CASES[0].after.read_text()


def test_rule_command_says_how_it_fixes(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["rule", "TFS105", "--no-color"])
    assert "Fix (safe):" in capsys.readouterr().out
    cli.main(["rule", "TFS303", "--no-color"])
    assert "Fix:" in capsys.readouterr().out  # says there is none


def test_a_fix_that_would_not_parse_leaves_the_file_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "program.py"
    shutil.copy(CASES[0].before, target)
    broken = Fix("safe", "breaks the file", (Edit("with (:\n", (12, 1), (12, 1)),))
    monkeypatch.setattr(fixes, "compute_fix", lambda diagnostic, source: broken)
    cli.main(["check", str(target), "--select", "TFS105", "--no-cache", "-q", "--fix"])
    assert target.read_text() == CASES[0].before.read_text()
    assert "would not parse: file left untouched" in capsys.readouterr().err


def test_a_file_that_does_not_parse_is_not_fixed(tmp_path: Path) -> None:
    text = CASES[0].before.read_text() + "def (:\n"
    outcome = fixes.fix_file("program.py", text, lambda _: [], lambda d, f: True)
    assert outcome.fixed == text and outcome.problem == "does not parse: not fixed"


def test_edits_keep_line_endings() -> None:
    old = "a = 1\r\nb = 2\r\n"
    new = "a = 1\r\nwith x:\r\n    b = 2\r\n"
    [edit] = fixes.text_edits(old, new)
    assert fixes.apply_fixes(old, [Fix("safe", "", (edit,))])[0] == new
    assert fixes.split_lines(fixes.unified_diff("p.py", old, new))[-1].endswith("\r\n")


def test_overlapping_fixes_wait_for_the_next_pass() -> None:
    one = Fix("safe", "", (Edit("X", (1, 1), (1, 3)),))
    two = Fix("safe", "", (Edit("Y", (1, 2), (1, 4)),))
    three = Fix("safe", "", (Edit("Z", (2, 1), (2, 2)),))
    assert fixes.apply_fixes("abcd\nef\n", [two, one, three]) == ("Xcd\nZf\n", [1, 2])


# ---------------------------------------------------------------------------------------------------
# Under TensorFlow


def _device(text: str | None) -> str:
    """Devices as TensorFlow canonicalises them ('/cpu:0' and '/device:CPU:0' are one)."""
    return (text or "").lower().replace("/device:", "/")


def _key(variable: ObservedVariable) -> tuple:
    return variable.name, variable.shape, _device(variable.device)


def _predicted(path: Path) -> list[tuple]:
    """What scopelint says the program means to create (it goes on past TensorFlow's errors)."""
    layout = build_layout(analysis.analyze_source(path.read_text(), str(path)))
    return [(row.name, tuple(row.shape) if row.shape is not None else None, _device(row.device))
            for row in layout.rows if row.certain]


@pytest.fixture(scope="module")
def observed() -> dict[Path, Observation]:
    return observe([path for case in CASES for path in (case.before, case.after)])


@pytest.mark.tf
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_tensorflow_agrees_with_the_fix(case: Case, observed: dict[Path, Observation]) -> None:
    before, after = observed[case.before], observed[case.after]
    message = _message(case)
    if case.before_error is not None:
        assert before.error is not None and case.before_error in before.error.message, before.error
    assert after.error is None, after.error
    after_keys = {_key(variable) for variable in after.variables}
    before_keys = {_key(variable) for variable in before.variables}
    removed = set(case.removed)
    if case.moved_to is None:
        # Every variable the program had, it keeps, with its shape and device.
        kept = {key for key in before_keys if key[0] not in removed}
        assert kept <= after_keys, kept - after_keys
    if case.applicability == "safe":
        # ...and the fixed program creates exactly what scopelint predicted the broken one meant.
        if case.placed_on is None:
            assert set(_predicted(case.before)) == after_keys
        else:
            assert after_keys and all(key[2] == case.placed_on for key in after_keys), after_keys
        assert {key[0] for key in before_keys} <= {key[0] for key in after_keys}
        return
    after_names = {key[0] for key in after_keys}
    new = after_names - {key[0] for key in before_keys}
    if case.added is not None:
        assert new and all(case.added in name for name in new), new
        assert case.added.rstrip("/") in message
    else:
        assert not new, new
    for name in removed:
        assert name not in after_names and name in message
    if case.moved_to is not None:
        device_after = {key[0]: key[2] for key in after_keys}
        assert {key[0] for key in before_keys} == set(device_after), "a moved variable keeps its name"
        for key in before_keys:
            device = device_after[key[0]]
            assert device != key[2] and device.startswith(case.moved_to), (key, device)
            assert f"`{key[0]}` to {device}" in message


def test_a_failing_fix_is_reported_and_the_check_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import scopelint.rules.tfs105_sticky_reuse as tfs105

    def broken(diagnostic, source):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    monkeypatch.setattr(tfs105, "fix", broken)
    assert cli.main(["check", str(CASES[0].before), "--select", "TFS105", "--no-cache", "--output-format", "concise"]) \
        == cli.EXIT_FINDINGS
    captured = capsys.readouterr()
    assert "TFS105 reuse_variables()" in captured.out  # shown, without the [*] mark
    assert "internal error in a fix" in captured.err and "RuntimeError: boom" in captured.err


def test_a_loop_that_builds_one_name_twice_gets_no_fix(tmp_path: Path) -> None:
    # bert-1 of the real-bug benchmark: `variable_scope("layer_%d" % 0)` in the layer loop. Giving the
    # inner scope reuse=tf.AUTO_REUSE would silence TensorFlow by sharing every layer's weights.
    program = tmp_path / "layers.py"
    program.write_text(
        "import tensorflow.compat.v1 as tf\n\n\n"
        "def stack(x, layers):\n"
        "    for index in range(layers):\n"
        "        with tf.variable_scope(\"layer_%d\" % 0):\n"
        "            with tf.variable_scope(\"output\"):\n"
        "                x = tf.layers.dense(x, 3)\n"
        "    return x\n\n\n"
        "stack(tf.ones([2, 3]), 2)\n")
    found = _json_findings(program, "TFS101")
    assert [item["code"] for item in found] == ["TFS101"]
    assert found[0]["fix"] is None
