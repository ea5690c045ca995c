"""`check --show-files` and `check --show-settings`: what a run would check, and with which settings
(ruff's flags of the same names), printed instead of checking.

Both answer "why is this file (not) checked, why is this rule (not) reported" without reading a
line of analysis output: the files come from the same discovery as a run, the settings from the
same resolver (the file's nearest configuration with the command line on top).
"""
from __future__ import annotations

import os
from collections.abc import Sequence

from scopelint import engine
from scopelint.project_settings import SettingsResolver


def files_to_check(paths: Sequence[str], resolver: SettingsResolver) -> tuple[list[str], list[str]]:
    """Every file a run of `check PATHS` would read, in the run's order (`-` for stdin), and the
    paths named that do not exist."""
    tasks = engine.discover(paths, resolver("."), resolver)
    return ([task.display_path for task in tasks if not task.missing],
            [task.display_path for task in tasks if task.missing])


def settings_text(path: str, resolver: SettingsResolver) -> str:
    """The resolved settings for `path`, one `key = value` per line (TOML-like, for reading)."""
    config = resolver.config_for(path)
    settings = resolver(path)
    rules = {info.code: info for info in engine.known_rules()}
    enabled = sorted(settings.enabled)
    disabled = sorted(set(rules) - settings.enabled)

    def listed(values: Sequence[str]) -> str:
        return "[" + ", ".join(f'"{value}"' for value in values) + "]"

    lines = [
        f"Resolved settings for: {os.path.normpath(path)}",
        f"Settings path: {config.path.resolve() if config.path is not None else '(none: the defaults)'}",
        "",
        f"root = \"{settings.root}\"",
        f"enabled = {listed(enabled)}  # {len(enabled)} of {len(rules)} rules",
        f"disabled = {listed(disabled)}",
        f"include = {listed(settings.include)}",
        f"exclude = {listed(settings.exclude)}",
        f"respect-gitignore = {str(settings.respect_gitignore).lower()}",
        f"force-exclude = {str(settings.force_exclude).lower()}",
    ]
    if settings.per_file_ignores:
        lines.append("[per-file-ignores]")
        lines += [f'"{pattern}" = {listed(sorted(codes))}' for pattern, codes in settings.per_file_ignores]
    else:
        lines.append("per-file-ignores = {}")
    return "\n".join(lines) + "\n"
