"""The pre-commit hook, run by pre-commit itself from a consumer repository.

pre-commit clones this project (a local clone of HEAD here, as `repo:` would be a URL in real use),
installs it into a virtualenv of its own (from PyPI: libcst, rich) and runs the `scopelint` hook of
`.pre-commit-hooks.yaml` on the consumer's files.  It is one slow test (a virtualenv and a pip
install), skipped when git or pre-commit is not installed.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

BAD = (
    "import tensorflow.compat.v1 as tf\n"
    "\n"
    "with tf.variable_scope('dense'):\n"
    "    w = tf.get_variable('w', [4, 4])\n"
    "    w2 = tf.get_variable('w', [4, 4])\n"
)
GOOD = BAD.replace("variable_scope('dense')", "variable_scope('dense', reuse=tf.AUTO_REUSE)")


def _pre_commit() -> list[str] | None:
    if shutil.which("pre-commit"):
        return ["pre-commit"]
    probe = subprocess.run([sys.executable, "-m", "pre_commit", "--version"], capture_output=True)
    return [sys.executable, "-m", "pre_commit"] if probe.returncode == 0 else None


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_hook_fails_on_a_bad_file_and_passes_on_a_good_one(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (it is in the `test` extra)")
    if not (REPO / ".git").exists():
        pytest.skip("the project is not a git checkout: pre-commit needs a repository to clone")
    clone = tmp_path / "scopelint-clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True, capture_output=True)
    if not (clone / ".pre-commit-hooks.yaml").is_file():
        pytest.fail(".pre-commit-hooks.yaml is not committed at HEAD")
    revision = _git("rev-parse", "HEAD", cwd=clone)

    consumer = tmp_path / "consumer"
    consumer.mkdir()
    _git("init", "--quiet", cwd=consumer)
    (consumer / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {clone}\n"
        f"    rev: {revision}\n"
        "    hooks:\n"
        "      - id: scopelint\n"
    )
    (consumer / "bad.py").write_text(BAD)
    (consumer / "good.py").write_text(GOOD)
    (consumer / "notes.txt").write_text("not python\n")
    # Excluded by the consumer's configuration: pre-commit names it, the hook must still skip it.
    (consumer / "third_party").mkdir()
    (consumer / "third_party" / "vendored.py").write_text(BAD)
    (consumer / "pyproject.toml").write_text('[tool.scopelint]\nextend-exclude = ["third_party/*"]\n')
    _git("add", ".", cwd=consumer)

    environment = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1"}
    environment.pop("PYTHONPATH", None)  # the hook must run the installed clone, not this checkout

    def run_hook(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*pre_commit, "run", "--color", "never", "--files", *files], cwd=consumer,
                              env=environment, capture_output=True, text=True, timeout=540)

    failing = run_hook("bad.py")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "scopelint" in failing.stdout and "Failed" in failing.stdout
    assert "bad.py:5:10: TFS101" in failing.stdout

    passing = run_hook("good.py", "notes.txt", "third_party/vendored.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout and "TFS" not in passing.stdout


def test_readme_hook_revision_is_a_real_tag_or_a_commit() -> None:
    """The README's `rev:` once named v0.1.0, a tag that does not exist."""
    import re

    readme = (REPO / "README.md").read_text()
    (line,) = [line for line in readme.splitlines() if re.match(r"\s*rev:", line)]
    value = line.split(":", 1)[1].split("#")[0].strip()
    tags = _git("tag", "--list", cwd=REPO).split() if shutil.which("git") and (REPO / ".git").exists() else []
    assert value in tags or "commit" in line.lower(), line


def test_hook_manifest_passes_force_exclude() -> None:
    manifest = (REPO / ".pre-commit-hooks.yaml").read_text()
    (entry,) = [line for line in manifest.splitlines() if line.strip().startswith("entry:")]
    assert entry.split(":", 1)[1].split() == ["scopelint", "check", "--force-exclude"]
