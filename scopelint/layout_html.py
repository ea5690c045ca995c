"""`scopelint layout --output-format html`: one self-contained page (no script, no external file).

Per program: the notes (`complete`, the condition of the run shown, where TensorFlow raises), the
variable table (the JSON's fields, bytes exact and readable), and per parameter server task two
bars, bytes and variable count, each scaled to the largest task.  Every number on the page is the
JSON document's (layout.layout_data), read from it, so the two cannot disagree; rows and bars also
carry them as data- attributes for tools.
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from scopelint.layout import Layout, human_bytes, layout_data, shape_text

_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1f2328; max-width: 1360px; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 32px; word-break: break-all; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name, td.location { word-break: break-all; }
td.device { white-space: nowrap; font-family: ui-monospace, monospace; }
tr.uncertain td { color: #6e7781; font-style: italic; }
.track { width: 320px; background: #eaeef2; height: 14px; }
.bar { height: 14px; }
.bar.bytes { background: #0969da; } .bar.count { background: #8250df; }
.note { background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; margin: 6px 0; }
.legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
"""


def _percent(value: int, largest: int) -> str:
    return f"{100 * value / largest:.1f}%" if largest > 0 else "0%"


def _notes(data: dict[str, Any], layout: Layout) -> list[str]:
    notes = []
    if data["condition"] is not None:
        notes.append(f"These are the variables of the run {escape(data['condition'])}; the program has other configurations.")
    for raised in data["raises"][:1]:
        notes.append(f"TensorFlow raises at <code>{escape(raised['location'])}</code>: {escape(raised['message'])} "
                     "A real run stops there; the variables after it are predicted for the program as fixed there.")
    if layout.unmodelled:
        notes.append("The program calls code scopelint does not model: it may create more variables.")
    if layout.uncertain:
        notes.append(f"{layout.uncertain} variable(s) are uncertain (shown in grey) and not counted per task.")
    if not data["variables"]:
        notes.append("No variables predicted.")
    return [f'<p class="note">{note}</p>' for note in notes]


def _variables_table(data: dict[str, Any]) -> str:
    rows = []
    for variable in data["variables"]:
        shape = shape_text(None if variable["shape"] is None else tuple(variable["shape"]))
        device = "?" if variable["device"] is None else (variable["device"] or "(none)")
        size = "?" if variable["bytes"] is None else f"{variable['bytes']:,}"
        rows.append(
            f'<tr class="{"certain" if variable["certain"] else "uncertain"}" data-name="{escape(variable["name"])}"'
            f' data-bytes="{"" if variable["bytes"] is None else variable["bytes"]}" data-device="{escape(variable["device"] or "")}">'
            f'<td class="name">{escape(variable["name"])}</td><td>{escape(shape)}</td><td>{escape(variable["dtype"] or "?")}</td>'
            f'<td class="number">{size}</td><td class="number">{escape(human_bytes(variable["bytes"]))}</td>'
            f'<td class="device">{escape(device)}</td><td>{escape(variable["kind"])}</td>'
            f'<td>{"yes" if variable["certain"] else "no"}</td><td class="location">{escape(variable["location"])}</td></tr>'
        )
    header = ("<tr><th>name</th><th>shape</th><th>dtype</th><th>bytes</th><th>size</th><th>device</th>"
              "<th>kind</th><th>certain</th><th>location</th></tr>")
    return f'<table class="variables"><thead>{header}</thead><tbody>{"".join(rows)}</tbody></table>'


def _tasks_table(data: dict[str, Any]) -> str:
    tasks = data["ps_tasks"]
    if not tasks:
        return "<p>No variable is placed on a parameter server task.</p>"
    most_bytes = max(task["bytes"] for task in tasks)
    most_variables = max(task["variables"] for task in tasks)
    rows = []
    for task in tasks:
        unsized = f" + {task['unsized']} unsized" if task["unsized"] else ""
        rows.append(
            f'<tr data-device="{escape(task["device"])}" data-bytes="{task["bytes"]}" data-variables="{task["variables"]}">'
            f'<td class="device">{escape(task["device"])}</td>'
            f'<td class="number">{task["bytes"]:,}{unsized}</td><td class="number">{escape(human_bytes(task["bytes"]))}</td>'
            f'<td><div class="track"><div class="bar bytes" style="width: {_percent(task["bytes"], most_bytes)}"></div></div></td>'
            f'<td class="number">{task["variables"]}</td>'
            f'<td><div class="track"><div class="bar count" style="width: {_percent(task["variables"], most_variables)}"></div></div></td>'
            "</tr>"
        )
    header = ("<tr><th>task</th><th>bytes</th><th>size</th><th>bytes, against the largest task</th>"
              "<th>variables</th><th>variables, against the largest task</th></tr>")
    return (f'<table class="tasks"><thead>{header}</thead><tbody>{"".join(rows)}</tbody></table>'
            '<p class="legend">Bars: <span class="bar bytes"></span>bytes <span class="bar count"></span>variables '
            "(certain variables only, each bar scaled to the largest task).</p>")


def _section(layout: Layout) -> str:
    data = layout_data(layout)
    complete = "complete" if data["complete"] else "not complete"
    return (
        f'<section data-path="{escape(data["path"])}" data-complete="{str(data["complete"]).lower()}">'
        f'<h2>{escape(data["path"])}</h2><p>{len(data["variables"])} variable(s); the layout is {complete}.</p>'
        + "".join(_notes(data, layout))
        + "<h3>Variables</h3>" + _variables_table(data)
        + "<h3>Load per parameter server task</h3>" + _tasks_table(data)
        + "</section>"
    )


def layout_html(layouts: Sequence[Layout]) -> str:
    title = "scopelint layout" + (f": {layouts[0].path}" if len(layouts) == 1 else "")
    body = "".join(_section(layout) for layout in layouts) or "<p>No program.</p>"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style></head>'
        f"<body><h1>{escape(title)}</h1>"
        "<p>Predicted by scopelint without running the program: each variable's full name, shape, size and "
        "device, and the load of each parameter server task.</p>"
        f"{body}</body></html>\n"
    )
