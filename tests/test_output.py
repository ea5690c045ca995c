"""Output formats: full, concise, json, statistics, and terminal styling."""
from __future__ import annotations

import io
import json
import os

import jsonschema
import pytest
from rich.text import Text

from scopelint.diagnostics import Diagnostic
from scopelint.engine import FileResult, RunResult
from scopelint.output import FORMATTERS, STATISTICS_FORMATTERS, FormatOptions, summary_line
from scopelint.output.terminal import emit
from scopelint.trace import Related, Site

SOURCE = ("import tensorflow as tf", "def f():", "\tw = tf.get_variable('w', [1])", "    v = tf.Variable(1,", "        name='v')")


def diagnostic(code: str, line: int, column: int, end_line: int, end_column: int, *, path: str = "pkg/m.py",
               severity: str = "error", related: tuple[Related, ...] = (), certain: bool = True) -> Diagnostic:
    names = {"TFS101": "variable-already-exists", "TFS201": "variable-ignores-reuse", "TFS000": "parse-error"}
    return Diagnostic(code=code, name=names[code], severity=severity, message=f"{code} message",
                      site=Site(path, line, column, end_line, end_column), related=related, certain=certain)


def make_run() -> RunResult:
    first = diagnostic("TFS101", 3, 6, 3, 30, related=(
        Related(Site("pkg/m.py", 1, 1, 1, 2), "first created"),
        Related(Site("pkg/other.py", 7, 5, 7, 6), "also used"),
        Related(None, "the scope is re-entered"),
    ))
    second = diagnostic("TFS201", 4, 9, 5, 17, severity="warning", certain=False)
    other = diagnostic("TFS000", 1, 1, 1, 2, path="a.py")
    # Deliberately out of order: the run sorts.
    return RunResult(files=[
        FileResult(path="pkg/m.py", diagnostics=[second, first], source_lines=SOURCE),
        FileResult(path="a.py", diagnostics=[other], source_lines=("print 'x'",)),
        FileResult(path="clean.py"),
    ])


def plain(rendered: Text | str) -> str:
    return rendered.plain if isinstance(rendered, Text) else rendered


def test_full_format() -> None:
    assert plain(FORMATTERS["full"](make_run(), FormatOptions())) == "\n".join([
        "a.py:1:1: TFS000 [parse-error] TFS000 message",
        "  |",
        "1 | print 'x'",
        "  | ^",
        "",
        "pkg/m.py:3:6: TFS101 [variable-already-exists] TFS101 message",
        "  |",
        "3 | \tw = tf.get_variable('w', [1])",
        "  | \t    ^^^^^^^^^^^^^^^^^^^^^^^^",  # the tab is kept so the carets line up
        "  = note: first created (line 1)",
        "  = note: also used (pkg/other.py:7:5)",
        "  = note: the scope is re-entered",
        "",
        "pkg/m.py:4:9: TFS201 [variable-ignores-reuse] TFS201 message",
        "  |",
        "4 |     v = tf.Variable(1,",
        "  |         ^^^^^^^^^^^^^^",  # a multi-line span: underlined to the end of its first line
        "  = note: depends on values scopelint could not compute",
    ])


def test_full_format_without_source() -> None:
    text = plain(FORMATTERS["full"](make_run(), FormatOptions(show_source=False)))
    assert text.splitlines()[:3] == [
        "a.py:1:1: TFS000 [parse-error] TFS000 message",
        "pkg/m.py:3:6: TFS101 [variable-already-exists] TFS101 message",
        "  = note: first created (line 1)",
    ]
    assert "|" not in text


def test_full_format_survives_a_site_outside_the_source() -> None:
    run = RunResult(files=[FileResult(path="m.py", diagnostics=[diagnostic("TFS101", 40, 1, 40, 2, path="m.py")], source_lines=("x",))])
    assert plain(FORMATTERS["full"](run, FormatOptions())) == "m.py:40:1: TFS101 [variable-already-exists] TFS101 message"


def test_concise_format() -> None:
    assert plain(FORMATTERS["concise"](make_run(), FormatOptions())) == (
        "a.py:1:1: TFS000 TFS000 message\n"
        "pkg/m.py:3:6: TFS101 TFS101 message\n"
        "pkg/m.py:4:9: TFS201 TFS201 message"
    )


FINDING_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["code", "name", "severity", "message", "filename", "location", "end_location", "fix",
                     "noqa_row", "url", "related"],
        "properties": {
            "code": {"type": "string", "pattern": "^TFS[0-9]{3}$"},
            "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
            "severity": {"enum": ["error", "warning", "info"]},
            "message": {"type": "string"},
            "filename": {"type": "string"},
            "location": {"$ref": "#/$defs/location"},
            "end_location": {"$ref": "#/$defs/location"},
            "fix": {"type": "null"},
            "noqa_row": {"type": "integer", "minimum": 1},
            "url": {"type": "string", "format": "uri"},
            "related": {"type": "array", "items": {
                "type": "object",
                "required": ["message", "filename", "location"],
                "properties": {"message": {"type": "string"},
                               "filename": {"type": ["string", "null"]},
                               "location": {"oneOf": [{"$ref": "#/$defs/location"}, {"type": "null"}]}},
            }},
        },
    },
    "$defs": {"location": {"type": "object", "required": ["row", "column"], "additionalProperties": False,
                           "properties": {"row": {"type": "integer", "minimum": 1}, "column": {"type": "integer", "minimum": 1}}}},
}


def test_json_format() -> None:
    findings = json.loads(FORMATTERS["json"](make_run(), FormatOptions()))
    jsonschema.validate(findings, FINDING_SCHEMA)
    assert [(f["filename"], f["location"]["row"], f["code"]) for f in findings] == [
        (os.path.abspath("a.py"), 1, "TFS000"),
        (os.path.abspath("pkg/m.py"), 3, "TFS101"),
        (os.path.abspath("pkg/m.py"), 4, "TFS201"),
    ]
    tfs101 = findings[1]
    assert tfs101["location"] == {"row": 3, "column": 6} and tfs101["end_location"] == {"row": 3, "column": 30}
    assert (tfs101["name"], tfs101["severity"], tfs101["noqa_row"], tfs101["fix"]) == ("variable-already-exists", "error", 3, None)
    assert tfs101["url"].endswith("/docs/rules/TFS101.md")
    assert tfs101["related"] == [
        {"message": "first created", "filename": os.path.abspath("pkg/m.py"), "cell": None, "location": {"row": 1, "column": 1}},
        {"message": "also used", "filename": os.path.abspath("pkg/other.py"), "cell": None, "location": {"row": 7, "column": 5}},
        {"message": "the scope is re-entered", "filename": None, "cell": None, "location": None},
    ]
    assert tfs101["cell"] is None  # ruff's field, set in notebooks only
    assert findings[2]["certain"] is False
    assert json.loads(FORMATTERS["json"](RunResult(files=[]), FormatOptions())) == []


def test_statistics() -> None:
    run = make_run()
    run.files.append(FileResult(path="z.py", diagnostics=[diagnostic("TFS201", 1, 1, 1, 2, path="z.py", severity="warning")]))
    assert plain(STATISTICS_FORMATTERS["full"](run)) == "2\tTFS201\tvariable-ignores-reuse\n1\tTFS000\tparse-error\n1\tTFS101\tvariable-already-exists"
    assert json.loads(STATISTICS_FORMATTERS["json"](run)) == [
        {"code": "TFS201", "name": "variable-ignores-reuse", "count": 2, "fixable": False},
        {"code": "TFS000", "name": "parse-error", "count": 1, "fixable": False},
        {"code": "TFS101", "name": "variable-already-exists", "count": 1, "fixable": False},
    ]


def test_summary_line() -> None:
    def findings(*severities: str) -> list[Diagnostic]:
        return [Diagnostic("TFS101", "n", severity, "m", Site("a.py", 1, 1, 1, 2)) for severity in severities]

    assert [summary_line(findings(*["error"] * n)) for n in (0, 1, 2)] == ["All checks passed!", "Found 1 error.", "Found 2 errors."]
    # Warnings are not called errors ("Found 3 errors." when two were warnings).
    assert summary_line(findings("error", "warning", "error")) == "Found 2 errors and 1 warning."
    assert summary_line(findings("warning")) == "Found 1 warning."
    assert summary_line(findings("info", "warning", "error", "warning")) == "Found 1 error, 2 warnings and 1 info."
    assert summary_line([], 1) == "Found 0 errors; 1 file could not be checked."
    assert summary_line(findings("error", "warning"), 3) == "Found 1 error and 1 warning; 3 files could not be checked."


def test_every_format_is_a_function_of_the_results() -> None:
    assert {"full", "concise", "json"} <= set(FORMATTERS)
    for name, formatter in FORMATTERS.items():
        assert formatter(make_run(), FormatOptions()) == formatter(make_run(), FormatOptions()), name


def test_plain_when_piped_and_styled_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered = FORMATTERS["full"](make_run(), FormatOptions())
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    piped = io.StringIO()
    emit(rendered, piped, no_color=False)
    assert piped.getvalue() == rendered.plain + "\n"
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats the stream as a terminal
    terminal = io.StringIO()
    emit(rendered, terminal, no_color=False)
    assert "\x1b[" in terminal.getvalue()
    long_line = max(rendered.plain.splitlines(), key=len)
    assert long_line in Text.from_ansi(terminal.getvalue()).plain  # never re-wrapped
    no_color = io.StringIO()
    emit(rendered, no_color, no_color=True)
    assert no_color.getvalue() == rendered.plain + "\n"


def test_machine_formats_are_written_verbatim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    stream = io.StringIO()
    text = FORMATTERS["json"](make_run(), FormatOptions())
    emit(text, stream, no_color=False)
    assert stream.getvalue() == text


def test_grouped_format() -> None:
    # ruff's grouped format: a file's name, then its findings `line:col CODE message`, aligned.
    assert plain(FORMATTERS["grouped"](make_run(), FormatOptions())) == "\n".join([
        "a.py:",
        "  1:1 TFS000 TFS000 message",
        "",
        "pkg/m.py:",
        "  3:6 TFS101 TFS101 message",
        "  4:9 TFS201 TFS201 message",
    ])
    wide = RunResult(files=[FileResult(path="b.py", diagnostics=[
        diagnostic("TFS101", 9, 5, 9, 6, path="b.py"), diagnostic("TFS101", 12, 17, 12, 20, path="b.py")])])
    assert plain(FORMATTERS["grouped"](wide, FormatOptions())).splitlines()[1:] == [
        "  9:5   TFS101 TFS101 message", "  12:17 TFS101 TFS101 message"]
    assert plain(FORMATTERS["grouped"](RunResult(files=[FileResult(path="clean.py")]), FormatOptions())) == ""


def test_json_lines_format_is_one_json_object_per_finding() -> None:
    lines = FORMATTERS["json-lines"](make_run(), FormatOptions()).splitlines()
    assert [json.loads(line) for line in lines] == json.loads(FORMATTERS["json"](make_run(), FormatOptions()))
    assert len(lines) == 3


def test_pylint_format() -> None:
    assert FORMATTERS["pylint"](make_run(), FormatOptions()).splitlines() == [
        "a.py:1: [TFS000] TFS000 message",
        "pkg/m.py:3: [TFS101] TFS101 message",
        "pkg/m.py:4: [TFS201] TFS201 message",
    ]
