"""The command line, end to end.

With the fake analyzer, `check` runs in-process through `cli.main([...])`; the subprocess tests
(`python -m scopelint`) cover what does not depend on the analyzer.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from scopelint import cli
from scopelint_fakes import TF_HEADER, fake_analyzer  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[1]
ALREADY = "w = 1  # event: already_exists related=2\n"
IGNORES = "v = 2  # event: variable_ignores_reuse\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with two files with findings and one clean file; cwd is set to it."""
    (tmp_path / "model.py").write_text(TF_HEADER + ALREADY + IGNORES)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "layers.py").write_text(TF_HEADER + IGNORES)
    (tmp_path / "clean.py").write_text(TF_HEADER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


def check(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--jobs", "1", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- check, in-process with the fake analyzer -------------------------------------------------------


def test_findings_exit_1_in_full_format(project: Path, fake_analyzer, capsys) -> None:
    code, out, err = check(capsys)
    assert code == 1 and err == ""
    assert out.splitlines()[0] == "model.py:2:1: TFS101 [variable-already-exists] already_exists here"
    assert "2 | w = 1  # event: already_exists related=2" in out
    assert "  = note: first created (line 2)" in out
    assert out.endswith("\n\nFound 1 error and 2 warnings.\n")


def test_concise_format_and_order(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "concise")
    assert code == 1
    assert out == (
        "model.py:2:1: TFS101 already_exists here\n"
        "model.py:3:1: TFS201 variable_ignores_reuse here\n"
        f"{os.path.join('pkg', 'layers.py')}:2:1: TFS201 variable_ignores_reuse here\n"
        "Found 1 error and 2 warnings.\n"
    )


def test_clean_run_exits_0(project: Path, fake_analyzer, capsys) -> None:
    assert check(capsys, "clean.py") == (0, "All checks passed!\n", "")
    assert check(capsys, "--quiet", "clean.py") == (0, "", "")


def test_silent_prints_nothing_and_quiet_only_the_findings(project: Path, fake_analyzer, capsys) -> None:
    assert check(capsys, "--silent") == (1, "", "")
    assert check(capsys, "-s", "clean.py") == (0, "", "")
    assert check(capsys, "-s", "--write-baseline", "b.json") == (0, "", "") and (project / "b.json").is_file()
    code, out, err = check(capsys, "-s", "missing.py")
    assert code == 2 and out == "" and "missing.py: No such file or directory" in err  # errors still say why
    code, out, err = check(capsys, "-q", "--output-format", "concise", "model.py")
    assert (code, err) == (1, "") and out.splitlines() == [
        "model.py:2:1: TFS101 already_exists here", "model.py:3:1: TFS201 variable_ignores_reuse here"]


def test_a_warning_when_no_python_file_is_found(project: Path, fake_analyzer, capsys) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "notes.txt").write_text("no python here")
    code, out, err = check(capsys, "docs")
    assert (code, out) == (0, "All checks passed!\n") and err == "scopelint: warning: no Python files found under docs\n"
    assert check(capsys, "-q", "docs") == (0, "", "")
    assert check(capsys, "model.py")[2] == ""  # never when a file was checked


def test_json_format_has_nothing_else_on_stdout(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "json")
    findings = json.loads(out)
    assert code == 1
    assert [(Path(f["filename"]).name, f["code"]) for f in findings] == [("model.py", "TFS101"), ("model.py", "TFS201"), ("layers.py", "TFS201")]
    assert findings[0]["filename"] == str(project / "model.py")


def test_exit_zero(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--exit-zero", "--output-format", "concise")
    assert code == 0 and out.endswith("Found 1 error and 2 warnings.\n")


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--select", "TFS101"], {"TFS101"}),
        (["--select", "TFS2"], {"TFS201"}),
        (["--select", "variable-ignores-reuse"], {"TFS201"}),
        (["--ignore", "TFS1"], {"TFS201"}),
        (["--ignore", "variable-already-exists,TFS201"], set()),
        (["--select", "TFS101", "--extend-select", "TFS201"], {"TFS101", "TFS201"}),
        (["--select", "ALL", "--ignore", "TFS201", "--ignore", "TFS900"], {"TFS101"}),
    ],
)
def test_rule_selection_flags(project: Path, fake_analyzer, capsys, flags: list[str], expected: set[str]) -> None:
    code, out, _ = check(capsys, "--output-format", "json", "model.py", *flags)
    assert {f["code"] for f in json.loads(out)} == expected
    assert code == (1 if expected else 0)


def test_config_applies_and_flags_override_it(project: Path, fake_analyzer, capsys) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.scopelint]\nselect = ["TFS1", "TFS2"]\nignore = ["TFS201"]\n'
        '[tool.scopelint.per-file-ignores]\n"pkg/*" = ["TFS101"]\n'
    )
    codes = lambda out: sorted((Path(f["filename"]).name, f["code"]) for f in json.loads(out))  # noqa: E731
    assert codes(check(capsys, "--output-format", "json")[1]) == [("model.py", "TFS101")]
    # A command-line --select replaces the configured selection and its ignores.
    assert codes(check(capsys, "--output-format", "json", "--select", "TFS201")[1]) == [("layers.py", "TFS201"), ("model.py", "TFS201")]
    # --isolated ignores the file.
    assert len(codes(check(capsys, "--output-format", "json", "--isolated")[1])) == 3
    # The configuration found from a nested path is the same file.
    assert codes(check(capsys, "--output-format", "json", "pkg")[1]) == []


def test_config_excludes(project: Path, fake_analyzer, capsys) -> None:
    (project / "pyproject.toml").write_text('[tool.scopelint]\nextend-exclude = ["pkg"]\n')
    _, out, _ = check(capsys, "--output-format", "concise")
    assert "layers.py" not in out and "model.py" in out
    # An explicit file is checked even though its directory is excluded.
    _, out, _ = check(capsys, "--output-format", "concise", "pkg/layers.py")
    assert "layers.py" in out
    _, out, _ = check(capsys, "--output-format", "concise", "--extend-exclude", "model.py")
    assert out == "All checks passed!\n"


def test_usage_errors_exit_2(project: Path, fake_analyzer, capsys) -> None:
    code, out, err = check(capsys, "--select", "TFS999")
    assert (code, out) == (2, "") and "unknown rule code 'TFS999'" in err
    (project / "pyproject.toml").write_text("[tool.scopelint]\nselct = []\n")
    code, _, err = check(capsys)
    assert code == 2 and "unknown key(s) in [tool.scopelint]: selct" in err
    assert cli.main(["check", "--jobs", "0"]) == 2
    assert cli.main(["check", "--output-format", "yaml"]) == 2


@pytest.mark.parametrize("empty", ["", ",", " "])
def test_empty_select_is_a_usage_error(project: Path, fake_analyzer, capsys, empty: str) -> None:
    # It turned every rule off and passed, as if the code were clean.
    code, out, err = check(capsys, "--select", empty)
    assert (code, out) == (2, "") and "--select needs at least one rule selector" in err


def test_missing_path_exits_2_even_with_exit_zero(project: Path, fake_analyzer, capsys) -> None:
    code, out, err = check(capsys, "--exit-zero", "--output-format", "concise", "nope.py", "model.py")
    assert code == 2
    assert err == "scopelint: nope.py: No such file or directory\n"
    assert "model.py:2:1: TFS101" in out  # the run went on
    assert out.endswith("Found 1 error and 1 warning; 1 file could not be checked.\n")


def test_internal_errors_name_file_and_rule_and_exit_2(project: Path, fake_analyzer, capsys) -> None:
    (project / "boom.py").write_text(TF_HEADER + "x  # event: boom\n")
    (project / "crash.py").write_text(TF_HEADER + "x  # analyzer-crash\n")
    code, out, err = check(capsys, "--exit-zero", "--output-format", "concise")
    assert code == 2
    assert "scopelint: internal error in rule TFS102 (variable-does-not-exist) on boom.py: ValueError: TFS102 exploded" in err
    assert "scopelint: internal error in the analyzer on crash.py: RuntimeError: the fake analyzer crashed" in err
    assert "Traceback" not in err and "--verbose" in err
    assert "model.py:2:1: TFS101" in out
    assert out.endswith("Found 1 error and 2 warnings; 2 files could not be checked.\n")
    _, _, verbose_err = check(capsys, "--verbose", "boom.py")
    assert "Traceback (most recent call last)" in verbose_err


def test_stdin_with_a_filename(project: Path, fake_analyzer, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    source = TF_HEADER + ALREADY
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
    code, out, _ = check(capsys, "--output-format", "concise", "-", "--stdin-filename", "pkg/from_stdin.py")
    assert (code, out) == (1, "pkg/from_stdin.py:2:1: TFS101 already_exists here\nFound 1 error.\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
    assert check(capsys, "--output-format", "concise", "-")[1].startswith("-:2:1: TFS101")


def test_statistics(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--statistics")
    assert (code, out) == (1, "2\tTFS201\tvariable-ignores-reuse\n1\tTFS101\tvariable-already-exists\n")
    _, out, _ = check(capsys, "--statistics", "--output-format", "json")
    assert [row["code"] for row in json.loads(out)] == ["TFS201", "TFS101"]


def test_noqa_and_show_unused_noqa(project: Path, fake_analyzer, capsys) -> None:
    (project / "model.py").write_text(TF_HEADER + ALREADY.rstrip("\n") + "  # noqa: TFS101\n" + "x = 1  # noqa: TFS201\n")
    assert check(capsys, "--output-format", "concise", "model.py")[1] == "All checks passed!\n"
    code, out, _ = check(capsys, "--output-format", "concise", "--show-unused-noqa", "model.py")
    assert (code, out) == (1, "model.py:3:8: TFS900 Unused `noqa` directive (unused: TFS201)\nFound 1 warning.\n")


def test_no_show_source(project: Path, fake_analyzer, capsys) -> None:
    _, out, _ = check(capsys, "--no-show-source", "model.py")
    assert out == (
        "model.py:2:1: TFS101 [variable-already-exists] already_exists here\n"
        "  = note: first created (line 2)\n"
        "model.py:3:1: TFS201 [variable-ignores-reuse] variable_ignores_reuse here\n"
        "Found 1 error and 1 warning.\n"
    )


def test_parallel_jobs_give_the_same_output(project: Path, fake_analyzer, capsys) -> None:
    for index in range(6):
        (project / f"extra{index}.py").write_text(TF_HEADER + ALREADY * index)
    serial = check(capsys, "--output-format", "json")
    parallel = cli.main(["check", "--jobs", "3", "--output-format", "json"]), capsys.readouterr()
    assert (parallel[0], parallel[1].out) == serial[:2]


def test_colour_on_a_terminal_and_none_with_no_color(project: Path, fake_analyzer, capsys, monkeypatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = check(capsys, "model.py")
    assert "\x1b[" in out
    _, out, _ = check(capsys, "--no-color", "model.py")
    assert "\x1b[" not in out


# --- rules, rule ------------------------------------------------------------------------------------


def test_rules_and_rule_in_process(capsys) -> None:
    assert cli.main(["rules", "--output-format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {"TFS000", "TFS900"} <= {row["code"] for row in listed}
    assert [row["code"] for row in listed] == sorted(row["code"] for row in listed)
    assert cli.main(["rule", "unused-noqa", "--output-format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["code"] == "TFS900" and "# noqa: TFS101" in info["bad"] and info["url"].endswith("/docs/rules/TFS900.md")


def test_rule_with_syntax_highlighting_on_a_terminal(capsys, monkeypatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert cli.main(["rule", "TFS900"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" in out and "TFS900 unused-noqa" in out


# --- subprocess: what does not depend on the analyzer ------------------------------------------------


def run_module(*argv: str, cwd: Path = REPO, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("FORCE_COLOR", "NO_COLOR")}
    return subprocess.run([sys.executable, "-m", "scopelint", *argv], cwd=cwd, input=stdin, capture_output=True, text=True, env=env, timeout=120)


def test_module_help_version_and_no_command() -> None:
    helped = run_module("--help")
    assert helped.returncode == 0 and "check" in helped.stdout and "rules" in helped.stdout
    assert run_module("--version").stdout == "scopelint 0.1.0\n"
    bare = run_module()
    assert bare.returncode == 2 and "usage:" in bare.stderr
    check_help = run_module("check", "--help").stdout
    for flag in ("--select", "--ignore", "--extend-select", "--exclude", "--extend-exclude", "--output-format",
                 "--statistics", "--exit-zero", "--no-color", "--show-source", "--no-show-source", "--jobs",
                 "--stdin-filename", "--show-unused-noqa"):
        assert flag in check_help


def test_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`scopelint check . | head -1`: the reader leaving early is no internal error and no traceback."""
    # ~4x the 64 KB a pipe buffers: the reader closes before the child has written everything, so
    # the pipe really breaks (with 300 scopes the output fitted and the child sometimes exited 1 first).
    body = "".join(f'with tf.variable_scope("s{i}"):\n    tf.get_variable("w", [1])\n    tf.get_variable("w", [1])\n' for i in range(1500))
    (tmp_path / "many.py").write_text(TF_HEADER + body)
    env = {key: value for key, value in os.environ.items() if key not in ("FORCE_COLOR", "NO_COLOR")}
    child = subprocess.Popen([sys.executable, "-m", "scopelint", "check", "--no-cache", "--output-format", "concise", "many.py"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.readline()  # `head -1`: one line, then the pipe closes
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "internal error" not in err and "Broken pipe" not in err


SLOW_CHECK = """
import signal, sys, time
from pathlib import Path
from scopelint import cli, engine

# As a terminal starts it: a shell's background job (CI runners, `cmd &`) inherits SIGINT ignored,
# and a Python started so never raises KeyboardInterrupt.
signal.signal(signal.SIGINT, signal.default_int_handler)

def slow_check(task, settings, stdin_data=None, cache=None):  # every file takes 4 s
    Path(task.path + ".started").touch()
    time.sleep(4)
    return engine.FileResult(path=task.display_path)

engine.check_task = slow_check  # forked workers inherit it
sys.exit(cli.main(["check", "--no-cache", "--jobs", "2", "src"]))
"""


def test_ctrl_c_cancels_pending_work_at_once(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) ends the run now with 130:
    the pool's queued files are dropped and its workers ended, instead of every file running first."""
    import signal
    import time

    (tmp_path / "src").mkdir()
    for index in range(12):  # 12 files x 4 s on 2 workers: 24 s if the queue is drained
        (tmp_path / "src" / f"m{index}.py").write_text(TF_HEADER)
    (tmp_path / "slow.py").write_text(SLOW_CHECK)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen([sys.executable, "slow.py"], cwd=tmp_path, env=env, start_new_session=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list((tmp_path / "src").glob("*.started")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list((tmp_path / "src").glob("*.started")), "no file started within 60 s"
    interrupted = time.monotonic()
    os.killpg(child.pid, signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert time.monotonic() - interrupted < 8  # one file's 4 s would be the most a drained queue saves
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert len(list((tmp_path / "src").glob("*.started"))) <= 4  # nothing queued started afterwards


def test_module_usage_errors() -> None:
    bad_format = run_module("check", "--output-format", "yaml")
    assert bad_format.returncode == 2 and "invalid choice: 'yaml'" in bad_format.stderr
    assert run_module("lint").returncode == 2
    bad_rule = run_module("check", "--select", "no-such-rule", "tests")
    assert bad_rule.returncode == 2 and "unknown rule selector 'no-such-rule'" in bad_rule.stderr


def test_module_rules_listing_is_plain_when_piped() -> None:
    listed = run_module("rules")
    assert listed.returncode == 0 and "\x1b[" not in listed.stdout
    rows = listed.stdout.splitlines()
    assert rows[0].startswith("TFS000  parse-error")
    assert any(row.startswith("TFS900  unused-noqa") and "warning" in row for row in rows)


def test_module_rule_explains_by_code_and_by_name() -> None:
    by_code = run_module("rule", "TFS900")
    by_name = run_module("rule", "unused-noqa")
    assert by_code.returncode == 0 and by_code.stdout == by_name.stdout
    assert by_code.stdout.startswith("TFS900 unused-noqa (warning)\n")
    for part in ("Why:", "Bad:", "Good:", "    with tf.variable_scope(\"layer\"):", "Documentation: "):
        assert part in by_code.stdout
    unknown = run_module("rule", "TFS999")
    assert unknown.returncode == 2 and "unknown rule 'TFS999'" in unknown.stderr


def test_module_missing_path(tmp_path: Path) -> None:
    missing = run_module("check", "--isolated", "does-not-exist.py", cwd=tmp_path)
    assert missing.returncode == 2
    assert "scopelint: does-not-exist.py: No such file or directory" in missing.stderr
    # Files that never mention tensorflow are skipped by the pre-filter: no analyzer involved.
    (tmp_path / "plain.py").write_text("print('hello')\n")
    clean = run_module("check", "--isolated", "plain.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, "All checks passed!\n")


def test_normal_install_provides_scopelint_rules(tmp_path: Path) -> None:
    """`pip install .` (not editable) puts rules/ at scopelint/rules and installs the console script."""
    environment = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(environment)
    python = environment / "bin" / "python"
    build_copy = tmp_path / "src"
    # Build from a copy so no build/ or egg-info is left in the repository.
    shutil.copytree(REPO, build_copy, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info", "build", ".pytest_cache"))
    # Built in pip's isolated build environment from the project's own [build-system] requires, so
    # that the result does not depend on the setuptools or wheel this machine happens to have.
    # PYTHONPATH (set when running the suite from a checkout) would shadow the installed copy.
    clean_env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "-q", str(build_copy)],
        capture_output=True, text=True, timeout=300, env=clean_env,
    )
    assert installed.returncode == 0, installed.stderr
    probe = subprocess.run(
        [str(python), "-c", "import scopelint, scopelint.rules as r; print(scopelint.__file__); print(r.__file__); print(r.rule_by_code_or_name('TFS900').RULE.name)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=clean_env,
    )
    lines = probe.stdout.splitlines()
    assert probe.returncode == 0, probe.stderr
    assert str(environment) in lines[0] and lines[1].endswith(os.path.join("scopelint", "rules", "__init__.py"))
    assert lines[2] == "unused-noqa"
    script = subprocess.run([str(environment / "bin" / "scopelint"), "rules"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=clean_env)
    assert script.returncode == 0 and "TFS900  unused-noqa" in script.stdout


def test_module_end_to_end_with_the_real_analyzer(tmp_path: Path) -> None:
    pytest.importorskip("scopelint.analysis.interpreter")
    (tmp_path / "model.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        "def encoder(x):\n"
        "    with tf.variable_scope('enc'):\n"
        "        return tf.get_variable('w', shape=[4, 4])\n"
        "\n"
        "encoder(1)\n"
        "encoder(2)  # noqa: TFS201\n"
    )
    (tmp_path / "shared.py").write_text(
        "import tensorflow.compat.v1 as tf\n"
        "\n"
        "with tf.variable_scope('enc', reuse=tf.AUTO_REUSE):\n"
        "    w = tf.get_variable('w', shape=[4, 4])\n"
    )
    found = run_module("check", "--isolated", "--output-format", "json", "--show-unused-noqa", ".", cwd=tmp_path)
    assert found.returncode == 1, found.stderr
    assert [(Path(f["filename"]).name, f["code"], f["location"]["row"]) for f in json.loads(found.stdout)] == [
        ("model.py", "TFS101", 5),
        ("model.py", "TFS900", 8),
    ]
    clean = run_module("check", "--isolated", "shared.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "All checks passed!\n", "")


def test_verify_extra_installs_one_tensorflow() -> None:
    """The `verify` extra names tf-keras only, whose own requirement brings the one TensorFlow
    (naming tensorflow-cpu as well installed two TensorFlows side by side)."""
    import importlib.metadata
    import re

    from scopelint.config import tomllib

    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["verify"]
    names = {re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("_", "-") for requirement in extra}
    assert "tf-keras" in names
    assert not {name for name in names if name.startswith("tensorflow")}, extra
    brought = [r for r in importlib.metadata.requires("tf_keras") or [] if re.match(r"tensorflow\b(?!-)", r)]
    assert brought, "tf-keras no longer requires tensorflow: the verify extra must name one itself"


# --- file selection: .gitignore, ruff's globs, --force-exclude, each file's nearest configuration ----


def _concise_files(capsys, *argv: str) -> set[str]:
    _, out, _ = check(capsys, "--no-cache", "--output-format", "concise", *argv)
    return {line.split(":", 1)[0].replace(os.sep, "/") for line in out.splitlines() if ": TFS" in line}


def test_gitignore_is_respected_inside_a_git_work_tree(project: Path, fake_analyzer, capsys) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("junk/\nlogs/\n*_gen.py\n!keep_gen.py\n")
    for name in ("junk/a.py", "logs/b.py", "pkg/x_gen.py", "pkg/keep_gen.py", "pkg/sub/deep.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(TF_HEADER + IGNORES)
    (project / "pkg" / ".gitignore").write_text("sub/\n")  # a nested .gitignore speaks for its folder
    found = _concise_files(capsys)
    assert found == {"model.py", "pkg/layers.py", "pkg/keep_gen.py"}
    # --no-respect-gitignore walks everything; a named file is always checked.
    assert {"junk/a.py", "logs/b.py", "pkg/x_gen.py", "pkg/sub/deep.py"} <= _concise_files(capsys, "--no-respect-gitignore")
    assert _concise_files(capsys, "junk/a.py") == {"junk/a.py"}
    # The key in the configuration.
    (project / "pyproject.toml").write_text("[tool.scopelint]\nrespect-gitignore = false\n")
    assert "junk/a.py" in _concise_files(capsys)


def test_gitignore_is_not_read_outside_a_git_work_tree(project: Path, fake_analyzer, capsys) -> None:
    (project / ".gitignore").write_text("pkg/\n")
    assert "pkg/layers.py" in _concise_files(capsys)


@pytest.mark.parametrize(
    ("pattern", "excluded"),
    [
        ("tests/**/*.py", {"tests/test_y.py", "tests/unit/test_z.py"}),
        ("**/{tests,gen}/*", {"tests/test_y.py", "tests/unit/test_z.py", "pkg/gen/g.py"}),
        ("./pkg/gen", {"pkg/gen/g.py"}),
        ("pkg/gen/", {"pkg/gen/g.py"}),
        ("gen", {"pkg/gen/g.py"}),
        ("/tests", {"tests/test_y.py", "tests/unit/test_z.py"}),
        ("unit", {"tests/unit/test_z.py"}),
    ],
)
def test_exclude_globs_as_ruff(project: Path, fake_analyzer, capsys, pattern: str, excluded: set[str]) -> None:
    for name in ("tests/test_y.py", "tests/unit/test_z.py", "pkg/gen/g.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(TF_HEADER + IGNORES)
    everything = _concise_files(capsys)
    (project / "pyproject.toml").write_text(f'[tool.scopelint]\nextend-exclude = ["{pattern}"]\n')
    assert everything - _concise_files(capsys) == excluded


def test_per_file_ignores_globs_as_ruff(project: Path, fake_analyzer, capsys) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "test_y.py").write_text(TF_HEADER + IGNORES)
    (project / "pyproject.toml").write_text('[tool.scopelint.per-file-ignores]\n"tests/**/*.py" = ["TFS201"]\n"./pkg/*" = ["TFS201"]\n')
    assert _concise_files(capsys) == {"model.py"}


def test_force_exclude_applies_exclude_to_named_files(project: Path, fake_analyzer, capsys) -> None:
    (project / "third_party").mkdir()
    (project / "third_party" / "vendored.py").write_text(TF_HEADER + ALREADY)
    (project / "pyproject.toml").write_text('[tool.scopelint]\nextend-exclude = ["third_party/*"]\n')
    assert "third_party/vendored.py" in _concise_files(capsys, "third_party/vendored.py")
    assert check(capsys, "--no-cache", "--force-exclude", "third_party/vendored.py", "clean.py") == (0, "All checks passed!\n", "")
    assert check(capsys, "--no-cache", "--force-exclude", "third_party") == (0, "All checks passed!\n", "")
    (project / "pyproject.toml").write_text('[tool.scopelint]\nextend-exclude = ["third_party/*"]\nforce-exclude = true\n')
    assert check(capsys, "--no-cache", "third_party/vendored.py")[0] == 0
    assert "third_party/vendored.py" in _concise_files(capsys, "--no-force-exclude", "third_party/vendored.py")


def test_each_file_gets_its_nearest_configuration(project: Path, fake_analyzer, capsys) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text(TF_HEADER + ALREADY + IGNORES)
    (project / "sub").mkdir()
    (project / "sub" / "b.py").write_text(TF_HEADER + ALREADY + IGNORES)
    (project / "sub" / "pyproject.toml").write_text('[tool.scopelint]\nignore = ["TFS201"]\n')

    def codes(*paths: str) -> list[tuple[str, str]]:
        _, out, _ = check(capsys, "--no-cache", "--output-format", "json", *paths)
        return sorted((Path(f["filename"]).name, f["code"]) for f in json.loads(out))

    expected = [("a.py", "TFS101"), ("a.py", "TFS201"), ("b.py", "TFS101")]
    assert codes("src", "sub") == expected
    assert codes("sub", "src") == expected
    assert codes("sub/b.py", "src/a.py") == expected
    # A scopelint.toml (top-level keys, as ruff.toml) in a deeper folder wins over the pyproject above.
    (project / "sub" / "inner").mkdir()
    (project / "sub" / "inner" / "c.py").write_text(TF_HEADER + ALREADY + IGNORES)
    (project / "sub" / "inner" / "scopelint.toml").write_text('ignore = ["TFS101"]\n')
    assert codes("sub") == [("b.py", "TFS101"), ("c.py", "TFS201")]
    # Excludes of a nested configuration apply to its own folder.
    (project / "sub" / "pyproject.toml").write_text('[tool.scopelint]\nextend-exclude = ["inner"]\n')
    assert codes(".") == [("a.py", "TFS101"), ("a.py", "TFS201"), ("b.py", "TFS101"), ("b.py", "TFS201"),
                          ("layers.py", "TFS201"), ("model.py", "TFS101"), ("model.py", "TFS201")]
    # --config gives every file the same configuration.
    (project / "strict.toml").write_text('[tool.scopelint]\nselect = ["TFS101"]\n')
    assert {code for _, code in codes("--config", "strict.toml", "sub", "src")} == {"TFS101"}


def test_config_key_value_overrides_every_configuration(project: Path, fake_analyzer, capsys) -> None:
    """`--config 'KEY = VALUE'` (TOML, as ruff's): one setting on top of each file's own configuration."""
    (project / "sub").mkdir()
    (project / "sub" / "b.py").write_text(TF_HEADER + ALREADY + IGNORES)
    (project / "sub" / "pyproject.toml").write_text('[tool.scopelint]\nignore = ["TFS201"]\n')

    def codes(*argv: str) -> list[tuple[str, str]]:
        code, out, _ = check(capsys, "--no-cache", "--output-format", "json", *argv)
        assert code in (0, 1)
        return sorted((Path(f["filename"]).name, f["code"]) for f in json.loads(out))

    assert codes("sub", "model.py") == [("b.py", "TFS101"), ("model.py", "TFS101"), ("model.py", "TFS201")]
    # ignore replaced in both the nested and the default configuration; sub's own ignore is gone.
    assert codes("--config", 'ignore = ["TFS101"]', "sub", "model.py") == [("b.py", "TFS201"), ("model.py", "TFS201")]
    assert codes("--config", 'select=["TFS2"]', "--config", "extend-exclude = ['sub']", ".") == [
        ("layers.py", "TFS201"), ("model.py", "TFS201")]
    # With a file: the file for every path, the setting on top.
    (project / "strict.toml").write_text('select = ["TFS101"]\n')
    assert codes("--config", "strict.toml", "--config", 'extend-select = ["TFS201"]', "sub") == [("b.py", "TFS101"), ("b.py", "TFS201")]
    for bad, message in (('ignor = ["TFS1"]', "unknown key(s): ignor"), ("ignore = TFS1", "not a file, nor a KEY = VALUE"),
                         ('ignore = "TFS1"', "ignore must be a list of strings")):
        code, out, err = check(capsys, "--config", bad)
        assert (code, out) == (2, "") and message in err, err
    code, _, err = check(capsys, "--config", "strict.toml", "--config", "strict.toml")
    assert code == 2 and "--config names one file" in err


def test_a_broken_nested_configuration_is_a_usage_error(project: Path, fake_analyzer, capsys) -> None:
    (project / "pkg" / "pyproject.toml").write_text('[tool.scopelint]\nselect = ["NOPE1"]\n')
    code, out, err = check(capsys, "--no-cache", ".")
    assert code == 2 and "unknown rule selector 'NOPE1'" in err and "Traceback" not in err


def test_abbreviated_options_are_refused(project: Path, fake_analyzer, capsys) -> None:
    """argparse took `--exit` for `--exit-zero` (and `--out` for `--output-format`)."""
    assert cli.main(["check", "--exit"]) == 2
    assert "unrecognized arguments: --exit" in capsys.readouterr().err
    assert cli.main(["check", "--out", "json"]) == 2
    assert cli.main(["rules", "--output", "json"]) == 2
    assert check(capsys, "--no-cache", "--exit-zero")[0] == 0  # the full spelling still works


@pytest.mark.parametrize("command, value", [("layout", "json"), ("verify", "json"), ("migrate", "json")])
def test_every_command_spells_output_format_as_check_does(command: str, value: str) -> None:
    parser = cli.build_parser()
    for spelling in ("--output-format", "--format"):  # --format: the first spelling, kept
        args = parser.parse_args([command, "x.py", spelling, value])
        assert (getattr(args, "output_format", None) or getattr(args, "format", None)) == value


def test_show_files_lists_what_a_run_would_check(project: Path, fake_analyzer, capsys) -> None:
    (project / "pyproject.toml").write_text('[tool.scopelint]\nextend-exclude = ["pkg"]\n')
    code, out, err = check(capsys, "--show-files")
    assert (code, err) == (0, "") and out.splitlines() == ["clean.py", "model.py"]  # nothing checked: no findings
    code, out, err = check(capsys, "--show-files", "pkg/layers.py", "nope.py")
    assert code == 2 and out == f"{os.path.join('pkg', 'layers.py')}\n" and "nope.py: No such file or directory" in err


def test_show_settings_names_the_configuration_and_the_rules(project: Path, fake_analyzer, capsys) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text('[tool.scopelint]\nignore = ["TFS201"]\nper-file-ignores = { "gen/*" = ["TFS1"] }\n')
    code, out, _ = check(capsys, "--show-settings", "--extend-select", "TFS900", "sub")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Resolved settings for: sub"
    assert lines[1] == f"Settings path: {(project / 'sub' / 'pyproject.toml').resolve()}"
    assert 'enabled = ["TFS000", "TFS101", "TFS102", "TFS900"]  # 4 of 5 rules' in lines
    assert 'disabled = ["TFS201"]' in lines and '"gen/*" = ["TFS101", "TFS102"]' in lines
    code, out, _ = check(capsys, "--show-settings", "model.py")
    assert "Settings path: (none: the defaults)" in out and 'disabled = ["TFS900"]' in out
