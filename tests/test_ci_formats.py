"""CI output formats: sarif (validated against the official SARIF 2.1.0 schema), github, junit,
gitlab, pylint, json-lines."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import jsonschema
import pytest

from scopelint import cli
from scopelint.output.github import annotation
from scopelint.output import FORMATTERS, STATISTICS_FORMATTERS
from scopelint_fakes import TF_HEADER, fake_analyzer  # noqa: F401  (fixture)
from scopelint.diagnostics import Diagnostic
from scopelint.trace import Site

REPO = Path(__file__).resolve().parents[1]
# The official OASIS schema, shipped as test data (licence note in tests/data/README.md) so that a
# fresh clone validates against it and never skips.
SARIF_SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"

ALREADY = "w = 1  # event: already_exists related=2\n"
IGNORES = "v = 2  # event: variable_ignores_reuse\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "model.py").write_text(TF_HEADER + ALREADY + IGNORES)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "layers.py").write_text(TF_HEADER + IGNORES)
    (tmp_path / "clean.py").write_text(TF_HEADER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--jobs", "1", "--no-cache", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def sarif_schema() -> dict:
    schema = json.loads(SARIF_SCHEMA.read_text())
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return schema


def test_sarif_validates_and_has_what_github_reads(project: Path, fake_analyzer, capsys) -> None:
    code, out, err = check(capsys, "--output-format", "sarif")
    assert code == 1 and err == ""
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert {"TFS000", "TFS101", "TFS201"} <= set(rules)
    tfs201 = rules["TFS201"]
    assert tfs201["name"] == "variable-ignores-reuse"
    assert tfs201["shortDescription"]["text"] == "summary of variable-ignores-reuse"
    assert tfs201["fullDescription"]["text"] == "why variable-ignores-reuse"
    assert "```python\nimport tensorflow as tf\nbad()\n```" in tfs201["help"]["markdown"]
    assert tfs201["helpUri"].startswith("https://") and tfs201["defaultConfiguration"] == {"level": "warning"}
    results = run["results"]
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results] == [
        ("TFS101", "error", "model.py"),
        ("TFS201", "warning", "model.py"),
        ("TFS201", "warning", "pkg/layers.py"),
    ]
    first = results[0]
    assert driver["rules"][first["ruleIndex"]]["id"] == "TFS101"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert location["region"] == {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 7}
    assert first["message"]["text"] == "already_exists here"
    assert first["relatedLocations"][0]["message"]["text"] == "first created"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.as_uri() + "/"
    assert run["invocations"][0]["executionSuccessful"] is True


def _fingerprints(capsys) -> dict[tuple[str, str], str]:
    code, out, _ = check(capsys, "--output-format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    return {
        (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"]):
            r["partialFingerprints"]["scopelint/v1"]
        for r in results
    }


def test_sarif_fingerprints_survive_line_moves_but_not_edits(project: Path, fake_analyzer, capsys) -> None:
    before = _fingerprints(capsys)
    assert len(set(before.values())) == 3
    (project / "model.py").write_text(TF_HEADER + "\n\n# a comment\n" + ALREADY + IGNORES)
    moved = _fingerprints(capsys)
    assert moved == before
    (project / "model.py").write_text(TF_HEADER + ALREADY + IGNORES.replace("v = 2", "v = 3"))
    edited = _fingerprints(capsys)
    assert edited[("model.py", "TFS101")] == before[("model.py", "TFS101")]
    assert edited[("model.py", "TFS201")] != before[("model.py", "TFS201")]


def test_sarif_of_a_clean_run_validates(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "sarif", "clean.py")
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    assert code == 0 and log["runs"][0]["results"] == []


def test_sarif_of_the_real_analyzer_validates(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, _ = check(capsys, "--isolated", "--output-format", "sarif", "tests/fixtures/patterns/demo_gan.py")
    log = json.loads(out)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    assert code == 1
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in log["runs"][0]["results"]] == [
        ("TFS201", 7), ("TFS301", 15), ("TFS101", 20),
    ]


def test_github_annotations(project: Path, fake_analyzer, capsys) -> None:
    code, out, err = check(capsys, "--output-format", "github")
    assert code == 1 and err == ""
    assert out.splitlines() == [
        "::error file=model.py,line=2,col=1,endLine=2,endColumn=7,title=TFS101 (variable-already-exists)::TFS101 already_exists here",
        "::warning file=model.py,line=3,col=1,endLine=3,endColumn=7,title=TFS201 (variable-ignores-reuse)::TFS201 variable_ignores_reuse here",
        "::warning file=pkg/layers.py,line=2,col=1,endLine=2,endColumn=7,title=TFS201 (variable-ignores-reuse)::TFS201 variable_ignores_reuse here",
    ]


def test_github_escapes_as_the_runner_unescapes() -> None:
    finding = Diagnostic(code="TFS101", name="variable-already-exists", severity="info",
                         message="50% done\nnext: a, b", site=Site("dir,x/a:b.py", 1, 2, 1, 3))
    assert annotation(finding) == (
        "::notice file=dir%2Cx/a%3Ab.py,line=1,col=2,endLine=1,endColumn=3,"
        "title=TFS101 (variable-already-exists)::TFS101 50%25 done%0Anext: a, b"
    )


def test_junit(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "junit")
    assert code == 1
    root = ElementTree.fromstring(out)
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "3", "3", "0")
    suites = {suite.get("name"): suite for suite in root}
    assert set(suites) == {"model.py", "pkg/layers.py"}
    cases = suites["model.py"].findall("testcase")
    assert [(c.get("name"), c.get("line"), c.get("column")) for c in cases] == [
        ("org.scopelint.TFS101", "2", "1"), ("org.scopelint.TFS201", "3", "1"),
    ]
    assert cases[0].find("failure").get("message") == "already_exists here"


def test_junit_clean_run_and_unreadable_file(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "junit", "clean.py")
    root = ElementTree.fromstring(out)
    assert code == 0 and (root.get("tests"), root.get("failures")) == ("1", "0")
    assert root.find("testsuite/testcase").get("name") == "No errors found"
    code, out, _ = check(capsys, "--output-format", "junit", "clean.py", "missing.py")
    root = ElementTree.fromstring(out)
    assert code == 2 and root.get("errors") == "1"
    assert root.find("testsuite").get("name") == "missing.py"


@pytest.mark.parametrize("output_format", sorted(set(FORMATTERS) - set(STATISTICS_FORMATTERS)))
def test_statistics_in_ci_formats_is_refused(project: Path, fake_analyzer, capsys, output_format: str) -> None:
    # A text table in the SARIF (or JUnit XML, or workflow-command) stream made it invalid.
    code, out, err = check(capsys, "--output-format", output_format, "--statistics")
    assert (code, out) == (2, "") and f"--statistics has no {output_format} form" in err


def test_github_paths_are_relative_to_the_workspace(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "github", str(project / "pkg" / "layers.py"))
    assert out.startswith("::warning file=pkg/layers.py,line=2,")


# --- gitlab ----------------------------------------------------------------------------------------


def test_gitlab_code_quality_report(project: Path, fake_analyzer, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitLab's Code Quality format: description, check_name, fingerprint, severity, location."""
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    code, out, _ = check(capsys, "--output-format", "gitlab")
    issues = json.loads(out)
    assert code == 1
    assert [(i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [
        ("TFS101", "critical", "model.py", 2), ("TFS201", "major", "model.py", 3), ("TFS201", "major", "pkg/layers.py", 2)]
    assert all(set(issue) == {"description", "check_name", "fingerprint", "severity", "location"} for issue in issues)
    assert issues[0]["description"] == "TFS101 already_exists here"
    assert len({issue["fingerprint"] for issue in issues}) == 3
    # Paths relative to the project in a GitLab job, and fingerprints that survive lines moving.
    monkeypatch.setenv("CI_PROJECT_DIR", str(project.parent))
    _, out, _ = check(capsys, "--output-format", "gitlab")
    before = json.loads(out)
    (project / "model.py").write_text(TF_HEADER + "\n\n" + ALREADY + IGNORES)  # two lines inserted above
    _, out, _ = check(capsys, "--output-format", "gitlab")
    moved = json.loads(out)
    assert moved[0]["location"] == {"path": f"{project.name}/model.py", "lines": {"begin": 4, "end": 4}}
    assert [issue["fingerprint"] for issue in moved] == [issue["fingerprint"] for issue in before]


def test_pylint_and_json_lines_from_the_command_line(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "pylint")
    assert code == 1 and out.splitlines() == [
        "model.py:2: [TFS101] already_exists here", "model.py:3: [TFS201] variable_ignores_reuse here",
        "pkg/layers.py:2: [TFS201] variable_ignores_reuse here"]
    code, out, _ = check(capsys, "--output-format", "json-lines")
    assert code == 1 and [json.loads(line)["code"] for line in out.splitlines()] == ["TFS101", "TFS201", "TFS201"]


def test_rdjson_for_reviewdog(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "rdjson")
    document = json.loads(out)
    assert code == 1 and document["source"]["name"] == "scopelint"
    first = document["diagnostics"][0]
    assert first["message"] == "already_exists here" and first["severity"] == "ERROR"
    assert first["location"] == {"path": "model.py", "range": {"start": {"line": 2, "column": 1}, "end": {"line": 2, "column": 7}}}
    assert first["code"]["value"] == "TFS101" and first["code"]["url"].endswith("/docs/rules/TFS101.md")
    assert first["related_locations"][0]["location"]["path"] == "model.py"
    assert [(d["code"]["value"], d["severity"]) for d in document["diagnostics"][1:]] == [("TFS201", "WARNING"), ("TFS201", "WARNING")]


def test_azure_logging_commands(project: Path, fake_analyzer, capsys) -> None:
    code, out, _ = check(capsys, "--output-format", "azure")
    assert code == 1 and out.splitlines()[0] == (
        "##vso[task.logissue type=error;sourcepath=model.py;linenumber=2;columnnumber=1;code=TFS101;]TFS101 already_exists here")
    assert out.splitlines()[1].startswith("##vso[task.logissue type=warning;sourcepath=model.py;linenumber=3;")


def test_azure_escapes_what_the_agent_unescapes() -> None:
    from scopelint.output.azure import logissue

    found = Diagnostic("TFS101", "n", "info", "100% sure;\nsecond line]", Site("dir;x]/m.py", 1, 2, 1, 3))
    assert logissue(found) == ("##vso[task.logissue type=warning;sourcepath=dir%3Bx%5D/m.py;linenumber=1;columnnumber=2;"
                               "code=TFS101;]TFS101 100%AZP25 sure;%0Asecond line]")
