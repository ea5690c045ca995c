"""The report as Markdown (the default format)."""
from __future__ import annotations

from scopelint.migrate.document import Section, Table, build_document
from scopelint.migrate.report import MigrationReport

TITLE = "TF2 migration report (scopelint migrate)"


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ") or " "


def _table(table: Table) -> list[str]:
    if not table.rows:
        return ["(none)", ""]
    lines = ["| " + " | ".join(_cell(header) for header in table.headers) + " |",
             "|" + "|".join(" --- " for _ in table.headers) + "|"]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in table.rows]
    if table.omitted:
        lines.append(f"\n({table.omitted} more rows in the JSON report)")
    return lines + [""]


def _section(section: Section, level: int) -> list[str]:
    lines = [f"{'#' * level} {section.title}", f'<a id="{section.anchor}"></a>', ""]
    for paragraph in section.paragraphs:
        lines += [paragraph, ""]
    for table in section.tables:
        lines += _table(table)
    for subsection in section.subsections:
        lines += _section(subsection, level + 1)
    return lines


def render_markdown(report: MigrationReport) -> str:
    lines = [f"# {TITLE}", "", "Paths: " + ", ".join(report.paths or ("(none)",)), ""]
    for section in build_document(report):
        lines += _section(section, 2)
    return "\n".join(lines).rstrip() + "\n"
