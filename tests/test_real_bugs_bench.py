"""benchmarks/real_bugs: the TSV is well formed and the runner applies edits exactly (no network)."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("real_bugs", ROOT / "benchmarks" / "real_bugs.py")
assert _spec is not None and _spec.loader is not None
real_bugs = importlib.util.module_from_spec(_spec)
sys.modules["real_bugs"] = real_bugs
_spec.loader.exec_module(real_bugs)

KNOWN_CODES = {m.group(1).upper() for p in (ROOT / "rules").glob("tfs*.py")
               if (m := re.match(r"(tfs\d{3})_", p.name))}


def test_tsv_rows_are_well_formed() -> None:
    mutants = real_bugs.load()
    assert mutants
    assert len({m.id for m in mutants}) == len(mutants)
    for m in mutants:
        assert re.fullmatch(r"[0-9a-f]{40}", m.commit), m.id
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", m.repo), m.id
        assert m.line >= 1 and m.old and m.old != m.new, m.id
        assert m.expected_codes and set(m.expected_codes) <= KNOWN_CODES, (m.id, m.expected_codes)
        assert m.path.startswith("python") and m.tf_effect, m.id


def test_tsv_has_the_size_the_issue_asks_for() -> None:
    mutants = real_bugs.load()
    assert len(mutants) >= 40 and len({m.repo for m in mutants}) >= 6


def _mutant(line: int, old: str, new: str) -> object:
    return real_bugs.Mutant("t-1", "o/r", "0" * 40, "pkg/m.py", line, old, new, "second-call-without-reuse",
                            ("TFS101",), "python m.py", "ValueError: x")


def test_apply_edit_replaces_first_occurrence_on_that_line_only(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    target = tmp_path / "pkg" / "m.py"
    target.write_text("f(reuse=True)\ng(reuse=True, reuse2=True)\n", encoding="utf-8")
    real_bugs.apply_edit(tmp_path, _mutant(2, "reuse=True", "reuse=False"))
    assert target.read_text(encoding="utf-8") == "f(reuse=True)\ng(reuse=False, reuse2=True)\n"


def test_apply_edit_fails_loudly_when_old_is_not_on_the_line(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("f(reuse=True)\ng()\n", encoding="utf-8")
    with pytest.raises(real_bugs.EditError, match="not on pkg/m.py:2"):
        real_bugs.apply_edit(tmp_path, _mutant(2, "reuse=True", "reuse=False"))
    with pytest.raises(real_bugs.EditError):
        real_bugs.apply_edit(tmp_path, _mutant(9, "x", "y"))


def test_missing_checkout_is_named_and_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tsv = tmp_path / "b.tsv"
    tsv.write_text("\t".join(real_bugs.COLUMNS) + "\n" + "\t".join(
        ["t-1", "o/r", "a" * 40, "m.py", "1", "x", "y", "k", "TFS101", "python m.py", "e"]) + "\n", encoding="utf-8")
    assert real_bugs.main(["--scratch", str(tmp_path / "none"), "--tsv", str(tsv)]) == 0
    out = capsys.readouterr().out
    assert "MISSING o/r" in out and "git clone https://github.com/o/r" in out and "caught: 0/0" in out


def test_runner_counts_a_new_expected_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess
    repo = tmp_path / "scratch" / "o__r"
    repo.mkdir(parents=True)
    (repo / "m.py").write_text(
        'import tensorflow.compat.v1 as tf\n'
        'with tf.variable_scope("a"):\n    tf.get_variable("w", [1])\n'
        'with tf.variable_scope("a", reuse=True):\n    tf.get_variable("w", [1])\n', encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    head = subprocess.run(git[:3] + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    tsv = tmp_path / "b.tsv"
    tsv.write_text("\t".join(real_bugs.COLUMNS) + "\n" + "\t".join(
        ["t-1", "o/r", head, "m.py", "4", "reuse=True", "reuse=False", "second-call-without-reuse", "TFS101",
         "python m.py", "ValueError: Variable a/w already exists"]) + "\n", encoding="utf-8")
    assert real_bugs.main(["--scratch", str(tmp_path / "scratch"), "--tsv", str(tsv)]) == 0
    out = capsys.readouterr().out
    assert "t-1\tsecond-call-without-reuse\tcaught=yes" in out and "caught: 1/1" in out
    assert "o/r unmutated: 0 findings" in out
