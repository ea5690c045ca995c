"""JUnit XML, as CI systems (GitLab, Jenkins, Azure) display test reports; ruff's layout.

One `<testsuite>` per file with findings, one failing `<testcase>` per finding; a file that could not
be read or that scopelint failed on is a testcase with an `<error>`.  A run with nothing to report
has one passing testcase, so that the report is never empty.
"""
from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections import defaultdict

from scopelint.diagnostics import Diagnostic
from scopelint.engine import RunResult
from scopelint.output.options import FormatOptions
from scopelint.output.paths import file_lines

PACKAGE = "org.scopelint"


def _suite(name: str, cases: list[ElementTree.Element], failures: int, errors: int) -> ElementTree.Element:
    suite = ElementTree.Element(
        "testsuite",
        name=name,
        tests=str(len(cases)),
        disabled="0",
        errors=str(errors),
        failures=str(failures),
        package=PACKAGE,
    )
    suite.extend(cases)
    return suite


def _finding_case(diagnostic: Diagnostic) -> ElementTree.Element:
    site = diagnostic.site
    case = ElementTree.Element(
        "testcase",
        name=f"{PACKAGE}.{diagnostic.code}",
        classname=site.path,
        file=site.path,
        line=str(file_lines(site)[0]),
        column=str(file_lines(site)[1]),
    )
    failure = ElementTree.SubElement(case, "failure", message=diagnostic.message, type=f"{diagnostic.code} {diagnostic.name}")
    place = f"line {site.line}, col {site.column}" if site.cell is None else f"cell {site.cell}, line {site.line}, col {site.column}"
    failure.text = f"{place}, {diagnostic.code} [{diagnostic.name}] {diagnostic.message}"
    return case


def _error_case(path: str, message: str) -> ElementTree.Element:
    case = ElementTree.Element("testcase", name=f"{PACKAGE}.check", classname=path, file=path)
    error = ElementTree.SubElement(case, "error", message=message)
    error.text = message
    return case


def format_junit(run: RunResult, options: FormatOptions) -> str:
    by_file: dict[str, list[Diagnostic]] = defaultdict(list)
    for diagnostic in run.diagnostics:
        by_file[diagnostic.site.path].append(diagnostic)
    errors_by_file: dict[str, list[str]] = defaultdict(list)
    for unreadable in run.read_errors:
        errors_by_file[unreadable.path].append(f"cannot read: {unreadable.error}")
    for internal in run.internal_errors:
        where = f"rule {internal.rule}" if internal.rule else "the analyzer"
        errors_by_file[internal.path].append(f"internal error in {where}: {internal.message}")

    root = ElementTree.Element("testsuites", name="scopelint")
    total_tests = total_failures = total_errors = 0
    for path in sorted(set(by_file) | set(errors_by_file)):
        cases = [_finding_case(diagnostic) for diagnostic in by_file.get(path, [])]
        errors = [_error_case(path, message) for message in errors_by_file.get(path, [])]
        root.append(_suite(path, cases + errors, failures=len(cases), errors=len(errors)))
        total_tests += len(cases) + len(errors)
        total_failures += len(cases)
        total_errors += len(errors)
    if total_tests == 0:
        passed = ElementTree.Element("testcase", name="No errors found", classname="scopelint")
        root.append(_suite("scopelint", [passed], failures=0, errors=0))
        total_tests = 1
    root.set("tests", str(total_tests))
    root.set("failures", str(total_failures))
    root.set("errors", str(total_errors))
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"
