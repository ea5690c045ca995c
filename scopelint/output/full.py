"""The default format: header, source line with an underline, related notes.

    model.py:12:9: TFS101 [variable-already-exists] Variable layer/w already exists, ...
       |
    12 |     w = tf.get_variable("w", [3])
       |         ^^^^^^^^^^^^^^^^^^^^^^^^^
       = note: first created here (line 9)
"""
from __future__ import annotations

from rich.text import Text

from scopelint.diagnostics import Diagnostic
from scopelint.engine import RunResult
from scopelint.output.options import FormatOptions
from scopelint.output.styles import SEVERITY_STYLES, code_text, location_text
from scopelint.trace import Related


def _header(diagnostic: Diagnostic, options: FormatOptions) -> Text:
    return Text.assemble(
        location_text(diagnostic),
        " ",
        code_text(diagnostic),
        " ",
        ("[*] " if diagnostic.fixable(options.unsafe_fixes) else "", "cyan"),
        (f"[{diagnostic.name}]", "dim"),
        f" {diagnostic.message}",
    )


def _snippet(diagnostic: Diagnostic, lines: tuple[str, ...]) -> list[Text]:
    site = diagnostic.site
    if not 1 <= site.line <= len(lines):
        return []
    source = lines[site.line - 1]
    start = min(max(site.column - 1, 0), len(source))
    # A multi-line span is underlined to the end of its first line.
    end = site.end_column - 1 if site.end_line == site.line else len(source)
    width = max(1, min(end, len(source)) - start)
    gutter = " " * len(str(site.line))
    # Keep tabs in the padding so the underline lines up however the terminal expands them.
    padding = "".join("\t" if char == "\t" else " " for char in source[:start])
    style = SEVERITY_STYLES.get(diagnostic.severity, "bold")
    return [
        Text(f"{gutter} |", style="blue"),
        Text.assemble((f"{site.line} |", "blue"), f" {source}"),
        Text.assemble((f"{gutter} |", "blue"), f" {padding}", ("^" * width, style)),
    ]


def related_note(related: Related, diagnostic_path: str) -> str:
    """`first created here (line 9)`, or `... (other.py:9:5)` for another file: the place goes in
    parentheses so that any wording of the note ("here", "entered here", "second call") reads well."""
    if related.site is None:
        return related.note
    if related.site.path == diagnostic_path:
        return f"{related.note} ({related.site.short()})"
    return f"{related.note} ({related.site.path}:{related.site.position()})"


def format_full(run: RunResult, options: FormatOptions) -> Text:
    blocks: list[Text] = []
    for diagnostic in run.diagnostics:
        lines = [_header(diagnostic, options)]
        if options.show_source:
            lines.extend(_snippet(diagnostic, run.lines_at(diagnostic.site)))
        gutter = " " * (len(str(diagnostic.site.line)) + 1)
        if diagnostic.condition is not None:
            lines.append(Text.assemble(f"{gutter}", ("= note:", "bold"), f" happens {diagnostic.condition}"))
        for related in diagnostic.related:
            lines.append(Text.assemble(f"{gutter}", ("= note:", "bold"), f" {related_note(related, diagnostic.path)}"))
        if not diagnostic.certain:
            lines.append(Text.assemble(f"{gutter}", ("= note:", "bold"), " depends on values scopelint could not compute"))
        if diagnostic.fix is not None:
            lines.append(Text.assemble(f"{gutter}", ("= help:", "bold"), f" {diagnostic.fix.message}",
                                       "" if diagnostic.fixable(options.unsafe_fixes) else " (unsafe: --unsafe-fixes)"))
        blocks.append(Text("\n").join(lines))
    # A blank line between findings once they span several lines, as ruff does.
    separator = "\n\n" if options.show_source else "\n"
    return Text(separator).join(blocks)
