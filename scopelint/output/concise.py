"""`path:line:col: CODE message`, one line per finding."""
from __future__ import annotations

from rich.text import Text

from scopelint.engine import RunResult
from scopelint.output.options import FormatOptions
from scopelint.output.styles import code_text, location_text


def format_concise(run: RunResult, options: FormatOptions) -> Text:
    lines = []
    for diagnostic in run.diagnostics:
        mark = "[*] " if diagnostic.fixable(options.unsafe_fixes) else ""
        lines.append(Text.assemble(location_text(diagnostic), " ", code_text(diagnostic), " ", (mark, "cyan"),
                                   f"{diagnostic.message_with_condition}"))
    return Text("\n").join(lines)
