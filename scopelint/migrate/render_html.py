"""The report as one self-contained HTML file: inline CSS and an inline SVG chart, no scripts, no
external resources, so it reads the same offline and from an attachment.

It fits a 1400 px window (measured in headless Chromium: long paths, call chains and URLs wrap in
their cells instead of widening the page, which was 1645 px wide); recipe cards, whose tables have
no column headings, are written without an empty header row; `#recipe-x` references and the
documentation URLs are links; the sources' short names (MM, VC step 1, DS(x), ...) carry their
meaning as a tooltip and are listed, with the effort sizes and notations, under "Abbreviations"."""
from __future__ import annotations

import html
import re

from scopelint.migrate.document import Section, Table, build_document
from scopelint.migrate.effort import SIZES
from scopelint.migrate.recipes import ABBREVIATIONS, VC
from scopelint.migrate.render_markdown import TITLE
from scopelint.migrate.report import MigrationReport

_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:84rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;margin:.6rem 0 1.2rem;font-size:.86rem;max-width:100%}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
tbody th{background:#f6f8fa;white-space:nowrap}
abbr[title]{text-decoration:underline dotted;cursor:help}
svg{max-width:100%;height:auto}
th{background:#f6f8fa}
code,td{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
details>summary{cursor:pointer;font-weight:600;margin:.4rem 0}
.bar{fill:#0969da}.blocked{fill:#cf222e}.label{font-size:12px;font-family:ui-monospace,monospace}
"""
# `#recipe-x` references, documentation URLs, and the sources' short names (DS(x) and VC step 1 too).
_LINK = re.compile(r"#recipe-[a-z0-9_]+|https?://[^\s;,<>\"')]+")
_ABBREVIATION = re.compile(r"\b(" + "|".join(sorted(map(re.escape, ABBREVIATIONS), key=len, reverse=True)) + r")\b(?=[\s:(),;]|$)")
BAR_HEIGHT = 18
CHART_LABEL_WIDTH = 360
CHART_BAR_WIDTH = 420


def _abbreviations(escaped: str) -> str:
    return _ABBREVIATION.sub(lambda match: f'<abbr title="{html.escape(ABBREVIATIONS[match.group(1)][0])}">{match.group(1)}</abbr>', escaped)


def _text(text: str) -> str:
    """Escaped, with '#recipe-x' references linked to the recipe cards, URLs linked, and the
    sources' short names explained in a tooltip."""
    parts = []
    last = 0
    for match in _LINK.finditer(text):
        parts.append(_abbreviations(html.escape(text[last:match.start()])))
        target = match.group(0)
        shown = target[1:] if target.startswith("#") else target
        parts.append(f'<a href="{html.escape(target)}">{html.escape(shown)}</a>')
        last = match.end()
    parts.append(_abbreviations(html.escape(text[last:])))
    return "".join(parts)


def _table(table: Table) -> str:
    if not table.rows:
        return "<p>(none)</p>"
    more = f"<p>({table.omitted} more rows in the JSON report)</p>" if table.omitted else ""
    if not any(header.strip() for header in table.headers):
        # A card (a recipe: "Stage A" | text): no column headings, so no empty header row; each
        # row's first cell heads its row.
        body = "".join(f'<tr><th scope="row">{_text(row[0])}</th>' + "".join(f"<td>{_text(cell)}</td>" for cell in row[1:])
                       + "</tr>" for row in table.rows)
        return f"<table><tbody>{body}</tbody></table>{more}"
    head = "".join(f"<th>{html.escape(header)}</th>" for header in table.headers)
    body = "".join("<tr>" + "".join(f"<td>{_text(cell)}</td>" for cell in row) + "</tr>" for row in table.rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def abbreviations_section() -> str:
    """What the short names and notations of the report mean."""
    items = [(name, meaning, url) for name, (meaning, url) in ABBREVIATIONS.items()]
    items += [
        ("VC step N", "step N of the validating-correctness guide (VC)", VC),
        ("XS, S, M, L, XL", "effort sizes: " + ", ".join(f"{name} from {bound} points" for bound, name in SIZES), ""),
        ("construct NxW", "in 'largest items': N sites of the construct, W points each", ""),
        ("ps", "parameter server: the job replica_device_setter places variables on", ""),
        ("[measured]", "checked by running TensorFlow 2, not only read in its documentation", ""),
        ("Stage A / Stage B", "A: the smallest change that runs in TF2; B: idiomatic TF2", ""),
        ("?", "a value the analysis could not compute", ""),
    ]
    rows = "".join(
        f'<tr><th scope="row">{html.escape(name)}</th><td>{html.escape(meaning)}'
        + (f' (<a href="{html.escape(url)}">{html.escape(url)}</a>)' if url else "") + "</td></tr>"
        for name, meaning, url in items)
    return (f'<section id="abbreviations"><details open><summary><h2 style="display:inline">Abbreviations</h2></summary>'
            f"<table><tbody>{rows}</tbody></table></details></section>")


def _section(section: Section, level: int) -> str:
    inner = "".join(f"<p>{_text(paragraph)}</p>" for paragraph in section.paragraphs)
    inner += "".join(_table(table) for table in section.tables)
    inner += "".join(_section(subsection, min(level + 1, 6)) for subsection in section.subsections)
    opened = "" if section.collapsed else " open"
    return (f'<section id="{html.escape(section.anchor)}"><details{opened}><summary>'
            f"<h{level} style=\"display:inline\">{html.escape(section.title)}</h{level}></summary>{inner}</details></section>")


def effort_chart(report: MigrationReport) -> str:
    """Horizontal bars: effort points per module (modules with points only), blocked modules in red."""
    modules = [module for module in report.modules if module.effort.points]
    if not modules:
        return "<p>No priced effort.</p>"
    top = max(module.effort.points for module in modules)
    height = BAR_HEIGHT * len(modules) + 4
    width = CHART_LABEL_WIDTH + CHART_BAR_WIDTH + 80
    bars = []
    for index, module in enumerate(modules):
        y = index * BAR_HEIGHT + 2
        length = max(1, round(CHART_BAR_WIDTH * module.effort.points / top))
        css = "bar blocked" if module.verdict == "blocked" else "bar"
        label = module.path if len(module.path) <= 52 else "..." + module.path[-49:]
        bars.append(
            f'<text class="label" x="{CHART_LABEL_WIDTH - 6}" y="{y + 13}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect class="{css}" x="{CHART_LABEL_WIDTH}" y="{y}" width="{length}" height="{BAR_HEIGHT - 4}">'
            f"<title>{html.escape(module.path)}: {module.effort.points} points ({module.effort.size})</title></rect>"
            f'<text class="label" x="{CHART_LABEL_WIDTH + length + 6}" y="{y + 13}">{module.effort.points} {module.effort.size}</text>'
        )
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="effort per module" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">{"".join(bars)}</svg>')


def render_html(report: MigrationReport) -> str:
    sections = build_document(report)
    body = []
    for section in sections:
        rendered = _section(section, 2)
        if section.anchor == "effort":
            # The chart goes first in the effort section, right under its heading.
            rendered = rendered.replace("</summary>", "</summary>" + effort_chart(report), 1)
        body.append(rendered)
    paths = html.escape(", ".join(report.paths or ("(none)",)))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(TITLE)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{html.escape(TITLE)}</h1><p>Paths: {paths}</p>"
            + "\n".join(body) + abbreviations_section() + "</body></html>\n")
