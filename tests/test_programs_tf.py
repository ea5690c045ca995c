"""Fixtures shaped like real programs (tests/fixtures/programs/<name>/): flags, argparse, sys.argv,
environment variables, classes built in main(), registries, test cases.

Each `# expect: CODE (condition)` annotation is a finding scopelint must report with that
condition.  Then TensorFlow judges: the program is run once per path a raising finding names, with
that path's command line and environment, and must raise there, with that kind of error; and the
run with the default configuration must raise exactly where the default path predicts (or not at
all).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fixture_corpus import RAISING_CODES, raising_family
from scopelint.engine import CheckSettings, known_rules, run

PROGRAMS = Path(__file__).parent / "fixtures" / "programs"
_EXPECT = re.compile(r"#\s*expect:\s*(?P<code>TFS\d{3})\s*\((?P<condition>.*)\)\s*$")
_ERROR_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _programs() -> list[Path]:
    return sorted(path for path in PROGRAMS.iterdir() if path.is_dir())


def _entry(program: Path) -> Path:
    mains = sorted(program.glob("main.py")) or sorted(program.glob("*_test.py"))
    return mains[0]


def _expected(program: Path) -> set[tuple[str, int, str, str]]:
    found = set()
    for path in sorted(program.glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = _EXPECT.search(line)
            if match:
                found.add((path.name, number, match.group("code"), match.group("condition")))
    return found


def _findings(program: Path):
    settings = CheckSettings(enabled=frozenset(info.code for info in known_rules()), root=str(program))
    result = run([str(program)], settings, jobs=1)
    return result.diagnostics


def _run_under_tensorflow(entry: Path, argv: list[str], environment: dict[str, str]) -> str:
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.update(environment)
    env.pop("PYTHONPATH", None)
    completed = subprocess.run([sys.executable, entry.name, *argv], cwd=entry.parent, env=env,
                               capture_output=True, text=True, timeout=300)
    return completed.stderr if completed.returncode != 0 else ""


def _raised_at(stderr: str, program: Path) -> tuple[str, int] | None:
    """The innermost frame of the program's own files in the traceback."""
    where = None
    for match in _ERROR_LINE.finditer(stderr):
        path = Path(match.group("file"))
        if path.parent.resolve() == program.resolve():
            where = (path.name, int(match.group("line")))
    return where


@pytest.mark.parametrize("program", _programs(), ids=lambda p: p.name)
def test_findings_are_the_annotated_ones_with_their_conditions(program: Path) -> None:
    expected = _expected(program)
    assert expected, f"{program.name}: a program fixture annotates at least one finding"
    # A loop's place is spelled with the path the run was given: the fixture names the file alone.
    reported = {(Path(d.site.path).name, d.site.line, d.code,
                 (d.condition or "").replace(f"the loop at {program}/", "the loop at "))
                for d in _findings(program)}
    missing = expected - reported
    assert not missing, f"not reported: {sorted(missing)}\nreported: {sorted(reported)}"


@pytest.mark.tf
@pytest.mark.parametrize("program", _programs(), ids=lambda p: p.name)
def test_tensorflow_raises_on_each_path_a_finding_names(program: Path) -> None:
    entry = _entry(program)
    if entry.name.endswith("_test.py"):
        pytest.skip("a test module: see test_test_methods_fail_as_predicted")
    expected = {(name, line, code) for name, line, code, _ in _expected(program)}
    diagnostics = [d for d in _findings(program)
                   if d.code in RAISING_CODES and (Path(d.site.path).name, d.site.line, d.code) in expected]
    every_raising = [d for d in _findings(program) if d.code in RAISING_CODES]
    checked = 0
    for diagnostic in diagnostics:
        for path in diagnostic.extra.get("paths", []):
            stderr = _run_under_tensorflow(entry, path["argv"], path["environment"])
            assert stderr, f"{diagnostic.code} predicted {path['condition']}, but TensorFlow raised nothing"
            last = stderr.strip().splitlines()[-1]
            error_type, _, message = last.partition(": ")
            # TensorFlow stops at the first error of the run; scopelint goes on past it, so the
            # error TensorFlow raises is this finding or one reported earlier on the same path.
            same_path = [d for d in every_raising
                         if any(p["argv"] == path["argv"] and p["environment"] == path["environment"]
                                for p in d.extra.get("paths", []))]
            raised_at = _raised_at(stderr, program)
            assert any(raising_family(d.code, error_type.split(".")[-1], message)
                       and raised_at == (Path(d.site.path).name, d.site.line) for d in same_path), \
                f"{path['condition']}: TensorFlow raised {last} at {raised_at}, which no finding on that path predicts"
            checked += 1
    assert checked, "no raising finding to run"
    # The default configuration: TensorFlow raises where the default path predicts, or nowhere
    # (a program that needs positional arguments has no run without them).
    if any("sys.argv[" in (d.condition or "") for d in _findings(program)):
        return
    stderr = _run_under_tensorflow(entry, [], {})
    # The default run is the path with no argument and no environment, whatever the label says
    # ("when --output_height=8 (the default)" names the default value that separates the runs).
    default_raising = [d for d in _findings(program) if d.code in RAISING_CODES and any(
        not path["argv"] and not path["environment"] for path in d.extra.get("paths", []))]
    if not default_raising:
        assert not stderr, f"no finding on the default path, but TensorFlow raised:\n{stderr[-2000:]}"
    else:
        assert stderr and _raised_at(stderr, program) in {
            (Path(d.site.path).name, d.site.line) for d in default_raising}


@pytest.mark.tf
def test_test_methods_fail_as_predicted() -> None:
    """Each test method runs in its own graph: only the one predicted fails, with that error."""
    program = PROGRAMS / "net_tests"
    stderr = _run_under_tensorflow(program / "net_test.py", [], {})
    failing = re.findall(r"^ERROR: (\w+) ", stderr, re.M)
    assert failing == ["testTwice"], stderr[-3000:]
    assert "Variable net/fc/kernel already exists" in stderr
    [finding] = [d for d in _findings(program) if d.code == "TFS101"]
    assert any("testTwice" in related.note for related in finding.related)


@pytest.mark.tf
def test_an_expected_error_does_not_hide_the_next_one() -> None:
    program = PROGRAMS / "expected_then_unexpected"
    stderr = _run_under_tensorflow(program / "later_test.py", [], {})
    assert re.findall(r"^ERROR: (\w+) ", stderr, re.M) == ["testExpectedThenUnexpected"], stderr[-3000:]
    assert _raised_at(stderr, program) == ("later_test.py", 14)
    assert [(d.code, d.site.line) for d in _findings(program)] == [("TFS101", 14)]


@pytest.mark.tf
def test_errors_a_test_expects_are_no_findings() -> None:
    """`with self.assertRaises(ValueError):` around a duplicate: TensorFlow raises there and the
    test passes; only the method where the duplicate is unexpected fails, and only it is reported."""
    program = PROGRAMS / "expected_errors"
    stderr = _run_under_tensorflow(program / "duplicate_test.py", [], {})
    failing = re.findall(r"^ERROR: (\w+) ", stderr, re.M)
    assert failing == ["testUnexpected"], stderr[-3000:]
    assert "Variable v already exists" in stderr
    assert [(d.code, d.site.line) for d in _findings(program)] == [("TFS101", 19)]
