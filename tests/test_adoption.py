"""Adopting scopelint on existing code: --write-baseline/--baseline and --add-noqa (fake analyzer)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from scopelint import cli
from scopelint_fakes import TF_HEADER, fake_analyzer  # noqa: F401  (fixture)

ALREADY = "w = 1  # event: already_exists\n"
IGNORES = "v = 2  # event: variable_ignores_reuse\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "model.py").write_text(TF_HEADER + ALREADY + IGNORES + IGNORES)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "layers.py").write_text(TF_HEADER + IGNORES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--jobs", "1", "--no-cache", "--output-format", "concise", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- baseline -----------------------------------------------------------------------------------


def test_baseline_hides_known_findings_and_survives_line_moves(project: Path, fake_analyzer, capsys) -> None:
    code, out, err = check(capsys, "--write-baseline", "baseline.json")
    assert (code, out) == (0, "") and "wrote 4 findings to baseline.json" in err
    document = json.loads((project / "baseline.json").read_text())
    assert document["scopelint_baseline"] == 1
    assert {(f["path"], f["code"], f["line"], f["count"]) for f in document["findings"]} == {
        ("model.py", "TFS101", ALREADY.strip(), 1),
        ("model.py", "TFS201", IGNORES.strip(), 2),
        ("pkg/layers.py", "TFS201", IGNORES.strip(), 1),
    }
    assert check(capsys, "--baseline", "baseline.json")[:2] == (0, "All checks passed!\n")
    # Lines move: still known.
    (project / "model.py").write_text(TF_HEADER + "\n\n" + IGNORES + ALREADY + "\n" + IGNORES)
    assert check(capsys, "--baseline", "baseline.json")[:2] == (0, "All checks passed!\n")
    # A third copy of a known line is one more than the baseline knows: the last one is new.
    (project / "model.py").write_text(TF_HEADER + ALREADY + IGNORES + IGNORES + IGNORES)
    code, out, _ = check(capsys, "--baseline", "baseline.json")
    assert (code, out.splitlines()[0]) == (1, "model.py:5:1: TFS201 variable_ignores_reuse here")
    # An edited line is a new finding.
    (project / "model.py").write_text(TF_HEADER + ALREADY.replace("w = 1", "w = 10") + IGNORES + IGNORES)
    code, out, _ = check(capsys, "--baseline", "baseline.json")
    assert code == 1 and out.splitlines() == ["model.py:2:1: TFS101 already_exists here", "Found 1 error."]


def test_baseline_paths_are_relative_to_the_baseline_file(project: Path, fake_analyzer, capsys, monkeypatch) -> None:
    (project / "ci").mkdir()
    check(capsys, "--write-baseline", "ci/known.json", ".")
    assert {f["path"] for f in json.loads((project / "ci" / "known.json").read_text())["findings"]} == {"../model.py", "../pkg/layers.py"}
    monkeypatch.chdir(project / "pkg")
    assert check(capsys, "--baseline", "../ci/known.json", ".")[:2] == (0, "All checks passed!\n")


def test_write_baseline_creates_its_folder_or_says_why_not(project: Path, fake_analyzer, capsys) -> None:
    # Into a missing folder: an internal error with a traceback before.
    code, _, err = check(capsys, "--write-baseline", "sub/deeper/b.json")
    assert code == 0 and "wrote 4 findings to sub/deeper/b.json" in err
    assert sum(f["count"] for f in json.loads((project / "sub" / "deeper" / "b.json").read_text())["findings"]) == 4
    (project / "taken").write_text("a file where a folder should be")
    code, out, err = check(capsys, "--write-baseline", "taken/b.json")
    assert (code, out) == (2, "") and "cannot write baseline taken/b.json" in err and "Traceback" not in err


@pytest.mark.parametrize("content, message", [
    (None, "cannot read baseline"),
    ("{not json", "is not JSON"),
    ('{"findings": []}', "is not a scopelint baseline"),
    ('{"scopelint_baseline": 1, "findings": [{"path": "a.py"}]}', "malformed entry"),
])
def test_bad_baselines_are_usage_errors(project: Path, fake_analyzer, capsys, content: str | None, message: str) -> None:
    if content is not None:
        (project / "bad.json").write_text(content)
    code, out, err = check(capsys, "--baseline", "bad.json")
    assert code == 2 and out == "" and message in err


# --- add-noqa ------------------------------------------------------------------------------------


def test_add_noqa_adds_merges_and_changes_nothing_else(project: Path, fake_analyzer, capsys) -> None:
    source = (
        "# -*- coding: utf-8 -*-\r\n"
        + TF_HEADER.replace("\n", "\r\n")
        + "w = 1  # event: already_exists\r\n"
        + "v = 2  # event: variable_ignores_reuse  # noqa: TFS101\r\n"
        + "u = 'é'  # event: already_exists   # noqa\r\n"
        + "x = 3  # event: variable_ignores_reuse"  # no newline at the end
    )
    (project / "model.py").write_bytes(source.encode("utf-8"))
    code, out, err = check(capsys, "--add-noqa", "model.py")
    assert code == 0 and out == "" and err == "Added 3 noqa directives.\n"
    assert (project / "model.py").read_bytes().decode("utf-8") == (
        "# -*- coding: utf-8 -*-\r\n"
        + TF_HEADER.replace("\n", "\r\n")
        + "w = 1  # event: already_exists  # noqa: TFS101\r\n"
        + "v = 2  # event: variable_ignores_reuse  # noqa: TFS101, TFS201\r\n"
        + "u = 'é'  # event: already_exists   # noqa\r\n"
        + "x = 3  # event: variable_ignores_reuse  # noqa: TFS201"
    )
    code, out, _ = check(capsys, "--show-unused-noqa", "model.py")
    assert code == 1 and "TFS900" in out and "unused: TFS101" in out  # the pre-existing useless TFS101 only
    assert check(capsys, "model.py")[:2] == (0, "All checks passed!\n")


def test_add_noqa_two_codes_on_one_line(project: Path, fake_analyzer, capsys) -> None:
    (project / "model.py").write_text(TF_HEADER + "w = 1  # event: already_exists\n")
    (project / "other.py").write_text(TF_HEADER + "w = 1  # event: variable_ignores_reuse\n")
    check(capsys, "--add-noqa", "model.py", "other.py")
    assert (project / "model.py").read_text().endswith("# event: already_exists  # noqa: TFS101\n")
    assert (project / "other.py").read_text().endswith("# event: variable_ignores_reuse  # noqa: TFS201\n")


def test_add_noqa_never_touches_unparsable_files_or_string_continuations(project: Path, fake_analyzer, capsys) -> None:
    broken = TF_HEADER + "w = 1  # event: already_exists\nz = 1  # parse-failure\n"
    (project / "broken.py").write_text(broken)
    inside_string = TF_HEADER + 'w = """  # event: already_exists\n"""\ny = 1 + \\\n  2  # event: already_exists\n'
    (project / "strings.py").write_text(inside_string)
    code, out, err = check(capsys, "--add-noqa", "broken.py", "strings.py")
    assert code == 0 and (project / "broken.py").read_text() == broken
    assert (project / "strings.py").read_text() == inside_string.replace("2  # event: already_exists\n", "2  # event: already_exists  # noqa: TFS101\n")
    assert "strings.py:2: no noqa added: the line ends inside a string" in err
    assert err.endswith("Added 1 noqa directive.\n")


def test_add_noqa_refuses_stdin(project: Path, fake_analyzer, capsys) -> None:
    code, _, err = check(capsys, "--add-noqa", "-")
    assert code == 2 and "stdin" in err


def test_add_noqa_and_write_baseline_exclude_each_other(project: Path, fake_analyzer, capsys) -> None:
    code, _, err = check(capsys, "--add-noqa", "--write-baseline", "b.json")
    assert code == 2 and "not allowed with" in err
