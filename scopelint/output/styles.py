"""Shared pieces of the human formats."""
from __future__ import annotations

from rich.text import Text

from scopelint.diagnostics import Diagnostic

SEVERITY_STYLES = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}


def location_text(diagnostic: Diagnostic) -> Text:
    """`path:line:col:` with the path in bold, as ruff shows it."""
    site = diagnostic.site
    text = Text()
    text.append(site.path, style="bold")
    text.append(":")
    text.append(f"{site.position()}:", style="cyan")  # `cell 3:2:5:` in a notebook, as ruff
    return text


def code_text(diagnostic: Diagnostic) -> Text:
    return Text(diagnostic.code, style=SEVERITY_STYLES.get(diagnostic.severity, "bold"))
