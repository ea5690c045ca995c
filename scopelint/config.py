"""`[tool.scopelint]` in the nearest pyproject.toml, or the nearest scopelint.toml.

As in ruff, each checked file gets its nearest configuration: searched from the file's folder
upward, the first folder with a `scopelint.toml` (its keys at the top level, as in ruff.toml) or a
pyproject.toml with a `[tool.scopelint]` table wins (scopelint.toml first, within one folder).
Patterns in it are relative to its folder.  Command-line flags are applied on top of it by the CLI
(project_settings.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10, which requires-python allows: tomli is tomllib's origin
    import tomli as tomllib  # type: ignore[no-redef]

CONFIG_FILE_NAME = "pyproject.toml"
STANDALONE_CONFIG_FILE_NAME = "scopelint.toml"

_LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", "include", "extend-include",
              "fixable", "unfixable")
_BOOL_KEYS = ("respect-gitignore", "force-exclude")
KNOWN_KEYS = frozenset({*_LIST_KEYS, *_BOOL_KEYS, "per-file-ignores"})


class ConfigError(Exception):
    """An unreadable or invalid configuration file."""


@dataclass(frozen=True)
class Config:
    root: Path  # the directory relative patterns are resolved against
    path: Path | None = None  # the pyproject.toml it came from; None when there is none
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None  # replaces the default excludes when set
    extend_exclude: tuple[str, ...] = ()
    include: tuple[str, ...] | None = None  # the files a folder walk checks (default: *.py, *.ipynb)
    extend_include: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    respect_gitignore: bool | None = None  # None: the default (True)
    force_exclude: bool | None = None  # None: the default (False)
    fixable: tuple[str, ...] | None = None  # rules --fix may repair; None: every rule
    unfixable: tuple[str, ...] = ()  # rules --fix leaves alone (over fixable)


def _has_scopelint_table(pyproject: Path) -> bool:
    return "scopelint" in _read_toml(pyproject).get("tool", {})


def _read_toml(pyproject: Path) -> dict[str, Any]:
    try:
        with pyproject.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{pyproject}: {error.strerror or error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{pyproject}: invalid TOML: {error}") from error


def config_file_in(directory: Path) -> Path | None:
    """The configuration file of `directory` itself, if it has one."""
    standalone = directory / STANDALONE_CONFIG_FILE_NAME
    if standalone.is_file():
        return standalone
    candidate = directory / CONFIG_FILE_NAME
    if candidate.is_file() and _has_scopelint_table(candidate):
        return candidate
    return None


def find_config_file(start: Path) -> Path | None:
    """The nearest scopelint.toml, or pyproject.toml with a `[tool.scopelint]` table, from `start` upward."""
    directory = start.resolve()
    if not directory.is_dir():
        directory = directory.parent
    for candidate_dir in (directory, *directory.parents):
        found = config_file_in(candidate_dir)
        if found is not None:
            return found
    return None


def _string_list(value: Any, key: str, pyproject: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{pyproject}: [tool.scopelint] {key} must be a list of strings")
    return tuple(value)


def load_config(pyproject: Path) -> Config:
    """Read `[tool.scopelint]` from one pyproject.toml (an empty Config when the table is absent),
    or the whole of a scopelint.toml."""
    document = _read_toml(pyproject)
    standalone = pyproject.name == STANDALONE_CONFIG_FILE_NAME
    table = document if standalone else document.get("tool", {}).get("scopelint", {})
    where = "" if standalone else " in [tool.scopelint]"
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.scopelint] must be a table")
    return _config_from_table(table, pyproject, where, pyproject.resolve().parent, pyproject)


def parse_override(text: str) -> dict[str, Any]:
    """`--config KEY=VALUE`: one setting in TOML syntax (`select = ["TFS1"]`, `force-exclude = true`),
    as ruff's `--config` takes it; validated like a configuration file's keys."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"--config {text!r}: not a file, nor a KEY = VALUE setting in TOML ({error})") from error
    table = table.get("tool", {}).get("scopelint", table) if "tool" in table else table
    _config_from_table(table, Path(f"--config {text!r}"), "", Path.cwd(), None)  # validates
    return table


def with_overrides(config: Config, overrides: dict[str, Any]) -> Config:
    """`config` with the `--config KEY=VALUE` settings on top (patterns stay relative to its root)."""
    if not overrides:
        return config
    given = _config_from_table(overrides, Path("--config"), "", config.root, config.path)
    changed = {
        name: getattr(given, name)
        for key, name in _FIELD_OF_KEY.items()
        if key in overrides
    }
    return replace(config, **changed)


_FIELD_OF_KEY = {
    "select": "select", "extend-select": "extend_select", "ignore": "ignore", "exclude": "exclude",
    "extend-exclude": "extend_exclude", "per-file-ignores": "per_file_ignores",
    "include": "include", "extend-include": "extend_include",
    "respect-gitignore": "respect_gitignore", "force-exclude": "force_exclude",
    "fixable": "fixable", "unfixable": "unfixable",
}


def _config_from_table(table: dict[str, Any], pyproject: Path, where: str, root: Path, path: Path | None) -> Config:
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(
            f"{pyproject}: unknown key(s){where}: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(KNOWN_KEYS))})"
        )
    lists = {key: _string_list(table[key], key, pyproject) for key in _LIST_KEYS if key in table}
    flags: dict[str, bool] = {}
    for key in _BOOL_KEYS:
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{pyproject}: [tool.scopelint] {key} must be true or false")
            flags[key] = table[key]
    per_file_ignores: dict[str, tuple[str, ...]] = {}
    raw_ignores = table.get("per-file-ignores", {})
    if not isinstance(raw_ignores, dict):
        raise ConfigError(f"{pyproject}: [tool.scopelint] per-file-ignores must be a table of glob = [codes]")
    for pattern, codes in raw_ignores.items():
        per_file_ignores[pattern] = _string_list(codes, f"per-file-ignores {pattern!r}", pyproject)
    return Config(
        root=root,
        path=path,
        select=lists.get("select"),
        extend_select=lists.get("extend-select", ()),
        ignore=lists.get("ignore", ()),
        exclude=lists.get("exclude"),
        extend_exclude=lists.get("extend-exclude", ()),
        include=lists.get("include"),
        extend_include=lists.get("extend-include", ()),
        per_file_ignores=per_file_ignores,
        respect_gitignore=flags.get("respect-gitignore"),
        force_exclude=flags.get("force-exclude"),
        fixable=lists.get("fixable"),
        unfixable=lists.get("unfixable", ()),
    )


def discover_config(start: Path) -> Config:
    """The configuration that applies to a run started at `start` (a path being checked, or cwd)."""
    pyproject = find_config_file(start)
    if pyproject is None:
        return Config(root=Path.cwd().resolve())
    return load_config(pyproject)
