"""The cache never serves a stale result: the cases test_cache.py does not cover (configuration
file edits, a new scopelint version, entries that decode but do not fit, an unwritable cache)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import scopelint.analysis
from scopelint import cache as cache_module
from scopelint import cli
from scopelint import version as version_module
from scopelint.cache import CACHE_DIR_NAME
from scopelint_fakes import TF_HEADER, fake_analyze_source, fake_analyzer  # noqa: F401  (fixture)

ALREADY = "w = 1  # event: already_exists\n"
IGNORES = "v = 2  # event: variable_ignores_reuse\n"


@pytest.fixture
def analyses(fake_analyzer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []

    def counting(source: str, path: str):
        seen.append(path)
        return fake_analyze_source(source, path)

    monkeypatch.setattr(scopelint.analysis, "analyze_source", counting)
    return seen


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.scopelint]\n")
    (tmp_path / "model.py").write_text(TF_HEADER + ALREADY + IGNORES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(capsys: pytest.CaptureFixture[str]) -> list[str]:
    cli.main(["check", "--jobs", "1", "--output-format", "json"])
    return [finding["code"] for finding in json.loads(capsys.readouterr().out)]


def test_editing_the_configuration_file_changes_the_results(project: Path, analyses: list[str], capsys) -> None:
    assert codes(capsys) == ["TFS101", "TFS201"]
    (project / "pyproject.toml").write_text('[tool.scopelint]\nignore = ["TFS201"]\n')
    assert codes(capsys) == ["TFS101"]
    (project / "pyproject.toml").write_text('[tool.scopelint]\nper-file-ignores = { "model.py" = ["TFS101"] }\n')
    assert codes(capsys) == ["TFS201"]
    (project / "pyproject.toml").write_text("[tool.scopelint]\n")
    analyses.clear()
    assert codes(capsys) == ["TFS101", "TFS201"] and analyses == []  # the first entry again, still valid


def test_a_new_scopelint_version_misses_the_cache(project: Path, analyses: list[str], capsys, monkeypatch) -> None:
    assert codes(capsys) == ["TFS101", "TFS201"]
    analyses.clear()
    assert codes(capsys) == ["TFS101", "TFS201"] and analyses == []
    monkeypatch.setattr(version_module, "VERSION", "999.0.0")  # read when the signature is computed
    cache_module.code_signature.cache_clear()
    try:
        assert codes(capsys) == ["TFS101", "TFS201"] and analyses == ["model.py"]
    finally:
        monkeypatch.undo()
        cache_module.code_signature.cache_clear()


def test_an_edited_scopelint_source_misses_the_cache(project: Path, analyses: list[str], capsys, monkeypatch, tmp_path: Path) -> None:
    """The signature covers the size and mtime of scopelint's own files (an edited checkout)."""
    before = cache_module.code_signature()
    import scopelint.rules

    copy = tmp_path / "fake_pkg"
    copy.mkdir()
    (copy / "__init__.py").write_text("")
    (copy / "rule.py").write_text("x = 1\n")
    monkeypatch.setattr(scopelint.rules, "__file__", str(copy / "__init__.py"))
    cache_module.code_signature.cache_clear()
    try:
        first = cache_module.code_signature()
        assert first != before
        (copy / "rule.py").write_text("x = 22\n")  # another size
        cache_module.code_signature.cache_clear()
        assert cache_module.code_signature() != first
    finally:
        monkeypatch.undo()
        cache_module.code_signature.cache_clear()


@pytest.mark.parametrize("mutate", [
    lambda entry: {**entry, "diagnostics": [{"code": "TFS101"}]},  # valid JSON, missing fields
    lambda entry: {**entry, "diagnostics": [{**entry["diagnostics"][0], "site": ["model.py", "x", 1, 1, 2]}]},
    lambda entry: {**entry, "lookups": [{"importer": "model.py"}]},
    lambda entry: {**entry, "source_lines": None},
    lambda entry: [entry],
    lambda entry: {**entry, "key": "0" * 64},  # another file's entry copied over this one
])
def test_entries_that_decode_but_do_not_fit_are_discarded(project: Path, analyses: list[str], capsys, mutate) -> None:
    assert codes(capsys) == ["TFS101", "TFS201"]
    [entry_file] = sorted((project / CACHE_DIR_NAME).rglob("*.json"))
    entry_file.write_text(json.dumps(mutate(json.loads(entry_file.read_text()))))
    analyses.clear()
    assert codes(capsys) == ["TFS101", "TFS201"] and analyses == ["model.py"]
    analyses.clear()
    assert codes(capsys) == ["TFS101", "TFS201"] and analyses == []  # rewritten whole


def test_an_unwritable_cache_folder_only_costs_speed(project: Path, analyses: list[str], capsys) -> None:
    (project / CACHE_DIR_NAME).write_text("a file where the cache folder should be\n")
    assert codes(capsys) == ["TFS101", "TFS201"]
    assert codes(capsys) == ["TFS101", "TFS201"] and analyses == ["model.py", "model.py"]
