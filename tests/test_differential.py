"""scopelint's prediction against TensorFlow's behaviour, fixture by fixture.

For every corpus fixture:
(a) each raising finding (TFS101/102/103/107) is TensorFlow's exception, at the same line, and
    quotes the store key TensorFlow quotes;
(b) when TensorFlow raises nothing, there is no raising finding;
(c) the variables the trace marks certain are TensorFlow's variables, in TensorFlow's order (all
    of them, when everything is certain and the trace complete), with TensorFlow's shapes where
    the predicted shape is fully known;
(d) the fixture's `# expect:` annotations are exactly the (code, line) pairs scopelint reports;
(e) the predicted device of every certain variable is TensorFlow's `v.device`.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

pytest.importorskip("scopelint.analysis.interpreter")

from fixture_corpus import RAISING_CODES, expectations, fixture_id, fixture_paths, quoted_store_key, raising_family  # noqa: E402
from oracle import Observation, ObservedVariable  # noqa: E402
from scopelint.analysis import analyze_source  # noqa: E402
from scopelint.diagnostics import Diagnostic  # noqa: E402
from scopelint.trace import Trace, VariableRecord  # noqa: E402

pytestmark = pytest.mark.tf

FIXTURES = fixture_paths()


@lru_cache(maxsize=None)
def predicted_trace(path: Path) -> Trace:
    return analyze_source(path.read_text(), str(path))


@lru_cache(maxsize=None)
def _findings(path: Path) -> tuple[Diagnostic, ...]:
    rules = pytest.importorskip("scopelint.rules")
    trace = predicted_trace(path)
    found: list[Diagnostic] = []
    for rule in rules.all_rules():
        found.extend(rule.check(trace))
    return tuple(found)


def findings(path: Path) -> list[Diagnostic]:
    return list(_findings(path))


def _line(path: Path, line: int) -> str:
    lines = path.read_text().splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _describe_error(observation: Observation) -> str:
    error = observation.error
    if error is None:
        return "TensorFlow raised nothing"
    return f"TensorFlow raised {error.type} at line {error.line}: {error.message.splitlines()[0]}"


def _mentions(message: str, key: str) -> bool:
    """`key` appears as a whole name, not as part of a longer one (enc/w is not in enc/w2)."""
    return re.search(rf"(?<![\w/]){re.escape(key)}(?![\w/])", message) is not None


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_raising_findings_are_tensorflow_errors(path: Path, oracle_observations: dict[Path, Observation]) -> None:
    """(a) and (b)."""
    observation = oracle_observations[path]
    error = observation.error
    for finding in findings(path):
        if finding.code not in RAISING_CODES:
            continue
        where = f"{path.name}:{finding.site.line}: scopelint reports {finding.code}: {finding.message}"
        if error is None or finding.site.line != error.line:
            pytest.fail(f"{where}\nbut {_describe_error(observation)}")
        if not raising_family(finding.code, error.type, error.message):
            pytest.fail(f"{where}\nbut {_describe_error(observation)}, which is not a {finding.code} error")
        key = quoted_store_key(error.message)
        if key is not None and not _mentions(finding.message, key):
            pytest.fail(f"{where}\nbut TensorFlow's message names {key!r}")


def _table(rows: list[tuple[str, str]], left: str, right: str) -> str:
    width = max([len(left)] + [len(a) for a, _ in rows])
    lines = [f"    {left:<{width}}  {right}"]
    lines += [f"    {a:<{width}}  {b}" for a, b in rows]
    return "\n".join(lines)


def _variables_report(predicted: list[VariableRecord], observed: list[ObservedVariable]) -> str:
    size = max(len(predicted), len(observed))
    rows = []
    for index in range(size):
        mine = predicted[index] if index < len(predicted) else None
        real = observed[index] if index < len(observed) else None
        rows.append(
            (
                "" if mine is None else f"{mine.name} {mine.shape}{'' if mine.certain else ' (uncertain)'}",
                "" if real is None else f"{real.name} {real.shape}",
            )
        )
    return _table(rows, "predicted", "TensorFlow")


def _in_observed_order(records: list[VariableRecord]) -> list[VariableRecord]:
    """The oracle lists global variables, then local ones, then any others (each group in creation
    order, see oracle._variables_of): sort the prediction alike."""

    def group(record: VariableRecord) -> int:
        if "variables" in record.collections:
            return 0
        return 1 if "local_variables" in record.collections else 2

    return sorted(records, key=group)  # stable: creation order within each group


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_certain_variables_are_tensorflow_variables(path: Path, oracle_observations: dict[Path, Observation]) -> None:
    """(c)."""
    trace = predicted_trace(path)
    observed = oracle_observations[path].variables
    predicted = _in_observed_order(trace.final_variables())
    # Records after TensorFlow's error are predicted for the program as fixed there (the analysis
    # goes on past errors): the unfixed run never creates them.
    certain = [record for record in predicted if record.certain and not record.after_error]
    report = f"{path.name}:\n{_variables_report(predicted, observed)}"

    position = 0
    matched: list[tuple[VariableRecord, ObservedVariable]] = []
    for record in certain:
        while position < len(observed) and observed[position].name != record.name:
            position += 1
        if position >= len(observed):
            pytest.fail(
                f"certain variable {record.name!r} (line {record.site.line}) is not in TensorFlow's list, "
                f"or not in the same order\n{report}"
            )
        matched.append((record, observed[position]))
        position += 1

    if trace.complete and len(certain) == len(predicted):
        if [r.name for r in predicted] != [v.name for v in observed]:
            pytest.fail(f"the trace is complete and certain, but the names differ\n{report}")

    for record, real in matched:
        if record.shape is not None and all(dim is not None for dim in record.shape):
            if tuple(record.shape) != real.shape:
                pytest.fail(f"{record.name}: predicted shape {record.shape}, TensorFlow {real.shape}\n{report}")


def _device_matches(predicted: str, observed: str) -> bool:
    """A partly known device (`/job:ps/task:?`) matches when its known parts do."""
    pattern = ".*".join(re.escape(part) for part in predicted.split("?"))
    return re.fullmatch(pattern, observed) is not None


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_certain_devices_are_tensorflow_devices(path: Path, oracle_observations: dict[Path, Observation]) -> None:
    """(e) every certain variable of the final graph whose device is predicted (not None) has
    TensorFlow's `v.device`, "" included.  Variables missing from TensorFlow's list are (c)'s concern."""
    observed = {variable.name: variable.device for variable in oracle_observations[path].variables}
    wrong = [
        f"    {record.name} (line {record.site.line}): predicted {record.device!r}, TensorFlow {observed[record.name]!r}"
        for record in predicted_trace(path).final_variables()
        if record.certain and not record.after_error and record.device is not None and record.name in observed
        and not _device_matches(record.device, observed[record.name])
    ]
    if wrong:
        pytest.fail(f"{path.name}: devices differ\n" + "\n".join(wrong))


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_annotations_equal_findings(path: Path) -> None:
    """(d)."""
    expected = {(e.code, e.line) for e in expectations(path)}
    reported = {(finding.code, finding.site.line) for finding in findings(path)}
    if expected == reported:
        return
    messages = {(f.code, f.site.line): f.message for f in findings(path)}
    lines = [f"{path.name}: annotations and findings differ"]
    for code, line in sorted(expected - reported, key=lambda item: item[1]):
        lines.append(f"  missing  {code} line {line}: {_line(path, line)}")
    for code, line in sorted(reported - expected, key=lambda item: item[1]):
        lines.append(f"  extra    {code} line {line}: {_line(path, line)}\n           {messages[(code, line)]}")
    pytest.fail("\n".join(lines))
