"""Each file's settings: its nearest configuration with the command line on top (ruff's layering).

`check src sub` and `check sub src` gave different findings when `sub/pyproject.toml` ignored a
rule, because only the first path's configuration was read.  Now every file (and every folder the
walk decides on) gets the CheckSettings of its own nearest configuration file; `--config FILE` and
`--isolated` give every file the same one, as in ruff.  Lookups are cached per folder and per
configuration file, so a tree of 10,000 files reads each configuration once.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scopelint import engine
from scopelint.config import Config, config_file_in, load_config, with_overrides
from scopelint.selection import SelectionLayer, resolve_codes, resolve_enabled


@dataclass(frozen=True)
class CommandLineSettings:
    """What the command line says about selection and files (applied over every configuration)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None


def settings_from(config: Config, cli: CommandLineSettings) -> engine.CheckSettings:
    """One configuration with the command line on top; raises SelectorError for a bad selector."""
    rules = engine.known_rules()
    layers = [
        SelectionLayer(select=config.select, extend_select=config.extend_select, ignore=config.ignore),
        SelectionLayer(select=cli.select, extend_select=cli.extend_select, ignore=cli.ignore),
    ]
    enabled = resolve_enabled(layers, rules)
    per_file_ignores = tuple(
        (pattern, resolve_codes(codes, rules)) for pattern, codes in config.per_file_ignores.items()
    )
    if cli.exclude is not None:
        exclude = cli.exclude
    elif config.exclude is not None:
        exclude = config.exclude
    else:
        exclude = engine.DEFAULT_EXCLUDE
    exclude += config.extend_exclude + cli.extend_exclude
    # ruff's `include` / `extend-include`: which files a folder walk checks (named files always are).
    include = (config.include if config.include is not None else engine.DEFAULT_INCLUDE) + config.extend_include
    respect_gitignore = next(v for v in (cli.respect_gitignore, config.respect_gitignore, True) if v is not None)
    force_exclude = next(v for v in (cli.force_exclude, config.force_exclude, False) if v is not None)
    fixable = None
    if config.fixable is not None or config.unfixable:
        allowed = resolve_codes(config.fixable, rules) if config.fixable is not None else frozenset(info.code for info in rules)
        fixable = allowed - resolve_codes(config.unfixable, rules)
    return engine.CheckSettings(
        fixable=fixable,
        enabled=enabled,
        root=str(config.root),
        exclude=exclude,
        include=include,
        per_file_ignores=per_file_ignores,
        respect_gitignore=respect_gitignore,
        force_exclude=force_exclude,
    )


class SettingsResolver:
    """`resolver(path)`: the CheckSettings for a file or folder (engine.run's `settings_for`).

    With `fixed` (from --config or --isolated) every path gets that configuration."""

    def __init__(self, cli: CommandLineSettings, fixed: Config | None = None, overrides: dict[str, Any] | None = None) -> None:
        self.cli = cli
        # --config KEY=VALUE goes on top of every configuration, applied once where each is loaded.
        self.overrides = overrides or {}
        self.fixed = with_overrides(fixed, self.overrides) if fixed is not None else None
        self._config_by_dir: dict[str, Config] = {}
        self._settings_by_config: dict[str | None, engine.CheckSettings] = {}
        self._default_root = Path.cwd().resolve()

    def config_for(self, path: str | os.PathLike[str]) -> Config:
        if self.fixed is not None:
            return self.fixed
        directory = os.path.abspath(path)
        if not os.path.isdir(directory):
            directory = os.path.dirname(directory)
        return self._config_of_dir(directory)

    def _config_of_dir(self, directory: str) -> Config:
        known = self._config_by_dir.get(directory)
        if known is not None:
            return known
        found = config_file_in(Path(directory))
        if found is not None:
            config = with_overrides(load_config(found), self.overrides)
        else:
            parent = os.path.dirname(directory)
            # A folder without a file has its parent's configuration, overrides already on it.
            config = with_overrides(Config(root=self._default_root), self.overrides) if parent == directory \
                else self._config_of_dir(parent)
        self._config_by_dir[directory] = config
        return config

    def __call__(self, path: str) -> engine.CheckSettings:
        config = self.config_for(path)
        key = str(config.path) if config.path is not None else None
        settings = self._settings_by_config.get(key)
        if settings is None:
            settings = settings_from(config, self.cli)
            self._settings_by_config[key] = settings
        return settings
