"""Writing rendered output: rich styling on a terminal, plain text when piped or with --no-color."""
from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.text import Text


def make_console(stream: TextIO, no_color: bool) -> Console:
    # soft_wrap: never re-wrap long diagnostic lines; rich honours NO_COLOR and FORCE_COLOR itself.
    return Console(file=stream, no_color=no_color, highlight=False, soft_wrap=True, emoji=False, markup=False)


def use_styles(console: Console, no_color: bool) -> bool:
    return console.is_terminal and not no_color


def emit(rendered: Text | str, stream: TextIO, no_color: bool) -> None:
    """Write a formatter's result followed by a newline (nothing for an empty result)."""
    if isinstance(rendered, str):
        stream.write(rendered)
        return
    if not rendered.plain:
        return
    console = make_console(stream, no_color)
    if use_styles(console, no_color):
        console.print(rendered)
    else:
        stream.write(rendered.plain + "\n")
