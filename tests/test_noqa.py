"""Suppression comments: parsing, applying, and reporting unused ones."""
from __future__ import annotations

from scopelint.diagnostics import Diagnostic
from scopelint.noqa import apply_noqa, parse_noqa, unused_directives
from scopelint.trace import Site

CODES = {"TFS101": "variable-already-exists", "TFS102": "variable-does-not-exist", "TFS201": "variable-ignores-reuse"}


def resolve(written: str) -> str | None:
    for code, name in CODES.items():
        if written.upper() == code or written.lower() == name:
            return code
    return None


def finding(code: str, line: int) -> Diagnostic:
    return Diagnostic(code=code, name=CODES[code], severity="error", message="m", site=Site("f.py", line, 1, line, 2))


def test_line_directives_with_codes_names_and_separators() -> None:
    source = (
        "a = 1  # noqa\n"
        "b = 2  # noqa: TFS101\n"
        "c = 3  # NOQA:TFS101,TFS102\n"
        "d = 4  # noqa: tfs101 variable-does-not-exist because it is intended\n"
        "e = 5  # type: ignore  # noqa: TFS201\n"
    )
    directives = parse_noqa(source)
    assert {line: d.codes for line, d in directives.by_line.items()} == {
        1: None,
        2: ("TFS101",),
        3: ("TFS101", "TFS102"),
        4: ("tfs101", "variable-does-not-exist"),
        5: ("TFS201",),
    }
    assert directives.file_level == []
    assert directives.by_line[2].column == 8  # 1-based column of the `#`


def test_noqa_inside_a_string_is_not_a_directive() -> None:
    directives = parse_noqa('s = "# noqa: TFS101"\nt = """\n# noqa\n"""\n')
    assert directives.by_line == {}


def test_file_level_directives() -> None:
    directives = parse_noqa("# scopelint: noqa\nx = 1\n# scopelint: noqa: TFS102, variable-ignores-reuse\n")
    assert [(d.line, d.codes) for d in directives.file_level] == [(1, None), (3, ("TFS102", "variable-ignores-reuse"))]
    assert directives.by_line == {}


def test_unparsable_source_still_yields_directives() -> None:
    directives = parse_noqa('print "hi"  # noqa: TFS101\ndef (:\n  x = """\n')
    assert directives.by_line[1].codes == ("TFS101",)


def test_apply_suppresses_matching_codes_only() -> None:
    directives = parse_noqa("a\nb  # noqa: TFS101\nc  # noqa\nd  # noqa: variable-does-not-exist\n")
    kept = apply_noqa(
        [finding("TFS101", 1), finding("TFS101", 2), finding("TFS102", 2), finding("TFS201", 3), finding("TFS102", 4)],
        directives,
        resolve,
    )
    assert [(d.code, d.site.line) for d in kept] == [("TFS101", 1), ("TFS102", 2)]
    assert directives.by_line[2].used == {"TFS101"}
    assert directives.by_line[3].used == {"TFS201"}
    assert directives.by_line[4].used == {"TFS102"}


def test_file_level_suppression() -> None:
    directives = parse_noqa("x = 1\n# scopelint: noqa: TFS101\n")
    kept = apply_noqa([finding("TFS101", 1), finding("TFS102", 1), finding("TFS101", 9)], directives, resolve)
    assert [d.code for d in kept] == ["TFS102"]
    everything = parse_noqa("# scopelint: noqa\n")
    assert apply_noqa([finding("TFS101", 1), finding("TFS201", 5)], everything, resolve) == []


def test_unused_directives_are_reported_by_reason() -> None:
    source = (
        "a  # noqa\n"  # unused bare
        "b  # noqa\n"  # used bare
        "c  # noqa: TFS101, TFS102\n"  # TFS101 used, TFS102 unused
        "d  # noqa: TFS201, NOPE-RULE, TFS999\n"  # TFS201 disabled, the others unknown
        "# scopelint: noqa: TFS101\n"  # file-level, unused (line 3 used its own directive)
    )
    directives = parse_noqa(source)
    apply_noqa([finding("TFS101", 2), finding("TFS101", 3)], directives, resolve)
    reports = unused_directives(directives, resolve, enabled=lambda code: code != "TFS201")
    assert [(r.directive.line, r.message()) for r in reports] == [
        (1, "Unused `noqa` directive"),
        (3, "Unused `noqa` directive (unused: TFS102)"),
        (4, "Unused `noqa` directive (non-enabled: TFS201; unknown: NOPE-RULE, TFS999)"),
        (5, "Unused `scopelint: noqa` directive (unused: TFS101)"),
    ]


def test_other_tools_codes_are_left_alone() -> None:
    # `# noqa: E501, TFS101` serves flake8 and scopelint at once: E501 is no "unknown" code of ours
    # (ruff's `external`), and a directive with only foreign codes is never reported as unused.
    source = "a  # noqa: E501, TFS101\nb  # noqa: W0611,RUF100\nc  # noqa: e501 TFS102\n"
    directives = parse_noqa(source)
    apply_noqa([finding("TFS101", 1)], directives, resolve)
    reports = unused_directives(directives, resolve, enabled=lambda code: True)
    assert [(r.directive.line, r.message()) for r in reports] == [(3, "Unused `noqa` directive (unused: TFS102)")]


def test_a_misspelt_code_of_ours_is_unknown_not_foreign() -> None:
    directives = parse_noqa("a  # noqa: TF101\n")
    reports = unused_directives(directives, resolve, enabled=lambda code: True)
    assert [r.message() for r in reports] == ["Unused `noqa` directive (unknown: TF101)"]
