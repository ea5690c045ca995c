"""[tool.scopelint] discovery and loading, and rule selection layering."""
from __future__ import annotations

from pathlib import Path

import pytest

from scopelint.config import Config, ConfigError, discover_config, find_config_file, load_config
from scopelint.diagnostics import RuleInfo
from scopelint.selection import SelectionLayer, SelectorError, parse_selector, resolve_codes, resolve_enabled


def _rule(code: str, name: str) -> RuleInfo:
    return RuleInfo(code, name, "error", "", "", "", "")


RULES = [
    _rule("TFS000", "parse-error"),
    _rule("TFS101", "variable-already-exists"),
    _rule("TFS102", "variable-does-not-exist"),
    _rule("TFS201", "variable-ignores-reuse"),
    _rule("TFS900", "unused-noqa"),
]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_nearest_pyproject_with_a_scopelint_table_wins(tmp_path: Path) -> None:
    outer = write(tmp_path / "pyproject.toml", '[tool.scopelint]\nselect = ["TFS1"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "x"\n')  # no table: skipped, as ruff does
    inner = write(tmp_path / "pkg" / "sub" / "pyproject.toml", '[tool.scopelint]\nignore = ["TFS101"]\n')
    (tmp_path / "pkg" / "sub" / "deep").mkdir()
    assert find_config_file(tmp_path / "pkg" / "sub" / "deep") == inner
    assert find_config_file(tmp_path / "pkg" / "module.py") == outer  # a file path: start at its directory
    assert find_config_file(tmp_path / "pkg" / "missing.py") == outer


def test_load_all_keys(tmp_path: Path) -> None:
    pyproject = write(
        tmp_path / "pyproject.toml",
        """
[tool.scopelint]
select = ["TFS1", "variable-ignores-reuse"]
extend-select = ["TFS900"]
ignore = ["TFS102"]
exclude = ["legacy"]
extend-exclude = ["gen_*.py"]

[tool.scopelint.per-file-ignores]
"tests/*" = ["TFS101"]
"__init__.py" = ["TFS2"]
""",
    )
    config = load_config(pyproject)
    assert config == Config(
        root=tmp_path.resolve(),
        path=pyproject,
        select=("TFS1", "variable-ignores-reuse"),
        extend_select=("TFS900",),
        ignore=("TFS102",),
        exclude=("legacy",),
        extend_exclude=("gen_*.py",),
        per_file_ignores={"tests/*": ("TFS101",), "__init__.py": ("TFS2",)},
    )


def test_absent_keys_mean_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / "pyproject.toml", "[tool.scopelint]\n"))
    assert config.select is None and config.exclude is None and config.ignore == () and config.per_file_ignores == {}


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[tool.scopelint]\nselects = ["TFS1"]\n', "unknown key(s) in [tool.scopelint]: selects"),
        ('[tool.scopelint]\nselect = "TFS1"\n', "select must be a list of strings"),
        ('[tool.scopelint]\nper-file-ignores = ["x"]\n', "per-file-ignores must be a table"),
        ('[tool.scopelint.per-file-ignores]\n"a.py" = "TFS1"\n', "per-file-ignores 'a.py' must be a list"),
        ("[tool.scopelint\n", "invalid TOML"),
    ],
)
def test_invalid_config_is_an_error(tmp_path: Path, text: str, complaint: str) -> None:
    pyproject = write(tmp_path / "pyproject.toml", text)
    with pytest.raises(ConfigError) as raised:
        load_config(pyproject)
    assert complaint in str(raised.value)
    assert str(pyproject) in str(raised.value)


def test_no_config_file_gives_an_empty_config_rooted_at_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = discover_config(tmp_path)
    assert config.path is None and config.root == tmp_path.resolve() and config.select is None


# --- selection -------------------------------------------------------------------------------------


def test_selectors_by_code_prefix_name_and_all() -> None:
    assert parse_selector("TFS101", RULES).codes == {"TFS101"}
    assert parse_selector("tfs1", RULES).codes == {"TFS101", "TFS102"}
    assert parse_selector("TFS", RULES).codes == {r.code for r in RULES}
    assert parse_selector("variable-does-not-exist", RULES).codes == {"TFS102"}
    assert parse_selector("ALL", RULES).codes == {r.code for r in RULES}
    assert parse_selector("TFS4", RULES).codes == frozenset()  # a valid prefix with no rule yet
    for bad in ("TFS999", "TFS1011", "no-such-rule", "E501"):
        with pytest.raises(SelectorError):
            parse_selector(bad, RULES)


def test_default_enables_everything_but_unused_noqa() -> None:
    assert resolve_enabled([], RULES) == {"TFS000", "TFS101", "TFS102", "TFS201"}


def test_layers_config_then_command_line() -> None:
    config = SelectionLayer(select=("TFS1",), ignore=("TFS102",))
    assert resolve_enabled([config], RULES) == {"TFS101"}
    # A command-line ignore keeps the configured selection and removes from it.
    assert resolve_enabled([config, SelectionLayer(ignore=("TFS101",))], RULES) == frozenset()
    # A command-line select replaces the configured one, its ignores included.
    assert resolve_enabled([config, SelectionLayer(select=("TFS102", "TFS201"))], RULES) == {"TFS102", "TFS201"}
    # extend-select adds on top of whatever is selected.
    assert resolve_enabled([config, SelectionLayer(extend_select=("unused-noqa",))], RULES) == {"TFS101", "TFS900"}


def test_more_specific_selector_wins_within_a_layer() -> None:
    assert resolve_enabled([SelectionLayer(select=("TFS101",), ignore=("TFS1",))], RULES) == {"TFS101"}
    assert resolve_enabled([SelectionLayer(select=("TFS1",), ignore=("TFS101",))], RULES) == {"TFS102"}
    # Equal specificity: ignore wins.
    assert resolve_enabled([SelectionLayer(select=("TFS101",), ignore=("variable-already-exists",))], RULES) == frozenset()


def test_resolve_codes_for_per_file_ignores() -> None:
    assert resolve_codes(["TFS1", "variable-ignores-reuse"], RULES) == {"TFS101", "TFS102", "TFS201"}


def test_configuration_is_read_without_tomllib(tmp_path: Path) -> None:
    """Python 3.10 has no tomllib: the conditional dependency tomli reads the configuration there.

    Simulated on a newer Python by a module on PYTHONPATH that makes `import tomllib` fail."""
    import os
    import subprocess
    import sys

    pytest.importorskip("tomli", reason="tomli is in the test extra")
    repo = Path(__file__).resolve().parents[1]
    shim = write(tmp_path / "shim" / "tomllib.py", "raise ModuleNotFoundError(\"No module named 'tomllib'\")\n")
    project = tmp_path / "project"
    write(project / "pyproject.toml", '[tool.scopelint]\nselect = ["TFS1"]\nignore = ["TFS101"]\n')
    probe = (
        "import sys; from pathlib import Path; from scopelint.config import discover_config\n"
        "config = discover_config(Path('.'))\n"
        "print(config.select, config.ignore)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim.parent), str(repo)])}
    result = subprocess.run([sys.executable, "-c", probe], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "('TFS1',) ('TFS101',)\n"
