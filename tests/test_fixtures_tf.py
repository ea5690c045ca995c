"""The fixture corpus agrees with TensorFlow: every raising annotation is what TensorFlow raises.

This validates the fixtures themselves (and the oracle), independently of scopelint.
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import TF_SUITE_BUDGET_SECONDS, OracleRun
from fixture_corpus import (
    RAISING_CODES,
    expectations,
    allows_session,
    fixture_id,
    fixture_paths,
    quoted_store_key,
    raising_family,
)
from oracle import Observation, OracleFailure, observe

pytestmark = pytest.mark.tf

FIXTURES = fixture_paths()
CATALOGUE_CODES = (
    "TFS101 TFS102 TFS103 TFS104 TFS105 TFS106 TFS107 "
    "TFS201 TFS202 TFS203 TFS204 TFS205 TFS206 TFS301 TFS302 TFS303 TFS304"
).split()
KNOWN_CODES = set(CATALOGUE_CODES) | {f"TFS4{n:02d}" for n in range(1, 12)}


def _source_line(path: Path, line: int) -> str:
    lines = path.read_text().splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else "<no such line>"


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_tensorflow_raises_exactly_where_annotated(path: Path, oracle_observations: dict[Path, Observation]) -> None:
    observation = oracle_observations[path]
    raising = [e for e in expectations(path) if e.code in RAISING_CODES]
    assert len(raising) <= 1, f"{path.name}: at most one raising annotation per fixture, found {raising}"
    error = observation.error
    if error is None:
        assert not raising, (
            f"{path.name}:{raising[0].line}: annotated {raising[0].code} but TensorFlow raised nothing\n"
            f"    {_source_line(path, raising[0].line)}"
        )
        return
    where = f"{path.name}:{error.line}: TensorFlow raised {error.type}: {error.message.splitlines()[0]}"
    assert raising, f"{where}\n    {_source_line(path, error.line)}\nbut the fixture annotates no raising code there"
    expected = raising[0]
    assert expected.line == error.line, f"{where}\nbut {expected.code} is annotated on line {expected.line}"
    assert raising_family(expected.code, error.type, error.message), f"{where}\nwhich is not a {expected.code} error"
    later = [e for e in expectations(path) if e.line > error.line]
    assert not later, f"{where}\nbut annotations follow the raising line (TF never gets there): {later}"


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_id)
def test_fixture_is_well_formed(path: Path) -> None:
    source = path.read_text()
    module = ast.parse(source)
    assert ast.get_docstring(module), f"{path.name}: start with a docstring saying what the fixture covers"
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module
        for node in ast.walk(module)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert any(name and name.startswith("tensorflow") for name in imported), f"{path.name} never imports tensorflow"
    for expectation in expectations(path):
        assert expectation.code in KNOWN_CODES, f"{path.name}:{expectation.line}: unknown code {expectation.code}"
    if "Session(" in source or "MonitoredTrainingSession" in source:
        assert allows_session(path), f"{path.name} opens a Session without '# oracle: session'"
    group = path.parent.name
    if group == "rules":
        code, kind = path.stem.split("_")[:2]
        assert code.upper() in CATALOGUE_CODES and kind in ("bad", "good"), f"rule fixture name {path.stem}"
        codes = {e.code for e in expectations(path)}
        if kind == "bad":
            assert code.upper() in codes, f"{path.name} is a bad case of {code.upper()} but does not expect it"
        else:
            assert code.upper() not in codes, f"{path.name} is a good case of {code.upper()} but expects it"


def test_corpus_covers_every_rule_and_is_large_enough() -> None:
    assert len(FIXTURES) >= 50, f"only {len(FIXTURES)} fixtures"
    stems = [path.stem for path in FIXTURES if path.parent.name == "rules"]
    for code in CATALOGUE_CODES:
        for kind in ("bad", "good"):
            assert any(stem.startswith(f"{code.lower()}_{kind}_") for stem in stems), f"no {kind} fixture for {code}"
    patterns = [path for path in FIXTURES if path.parent.name == "patterns"]
    assert sum(1 for path in patterns if path.stem.startswith("ok_")) >= 5
    assert sum(1 for path in patterns if not expectations(path)) >= 25


def test_raising_fixtures_quote_a_store_key(oracle_observations: dict[Path, Observation]) -> None:
    """The differential test matches findings on TF's quoted store key; every 101-103 error has one."""
    for path, observation in oracle_observations.items():
        error = observation.error
        if error is None or not any(e.code in ("TFS101", "TFS102", "TFS103") for e in expectations(path)):
            continue
        assert quoted_store_key(error.message), f"{path.name}: no store key found in {error.message!r}"


def test_tensorflow_suite_is_within_budget(oracle_run: OracleRun) -> None:
    assert oracle_run.seconds < TF_SUITE_BUDGET_SECONDS, f"the oracle took {oracle_run.seconds:.1f} s"


def _write(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(body).lstrip())
    return path


def test_oracle_isolates_fixtures_and_reports_innermost_line(tmp_path: Path) -> None:
    keras = """
        import tensorflow as tf
        v1 = tf.compat.v1
        assert not v1.global_variables(), "the graph was not fresh"
        assert v1.resource_variables_enabled(), "a previous fixture's disable_v2_behavior leaked"
        assert __name__ == "__main__" and __file__.endswith(".py")
        out = tf.keras.layers.Dense(2)(v1.placeholder(tf.float32, [1, 3]))
        """
    first = _write(tmp_path, "keras_first.py", keras)
    ref = _write(
        tmp_path,
        "ref_variables.py",
        """
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        with tf.variable_scope("s"):
            v = tf.get_variable("v", [1])
            v = tf.get_variable("v", [1])
        """,
    )
    second = _write(tmp_path, "keras_second.py", keras)
    nested = _write(
        tmp_path,
        "nested_error.py",
        """
        import tensorflow.compat.v1 as tf

        def make(name):
            return tf.get_variable(name)

        def build():
            return make("w")

        build()
        """,
    )
    syntax = _write(tmp_path, "syntax_error.py", "import tensorflow\nx = (\n")
    observed = observe([first, ref, second, nested, syntax], cache_dir=tmp_path / "cache")

    for path in (first, second):
        assert observed[path].error is None, observed[path].error
        assert observed[path].variable_names == ["dense/kernel", "dense/bias"], "Keras uids were not reset"
    ref_error = observed[ref].error
    assert ref_error is not None and ref_error.line == 5 and "Variable s/v already exists" in ref_error.message
    assert [(v.name, v.dtype) for v in observed[ref].variables] == [("s/v", "float32")]  # no "_ref" suffix
    assert observed[nested].error is not None and observed[nested].error.line == 4
    assert observed[nested].error.type == "ValueError"
    assert observed[syntax].error is not None and observed[syntax].error.type == "SyntaxError"

    # A second call is answered from the disk cache: same observations, no TensorFlow run.
    again = observe([first, ref], cache_dir=tmp_path / "cache")
    assert again[first] == observed[first] and again[ref] == observed[ref]


def test_oracle_kills_a_hanging_child(tmp_path: Path) -> None:
    hanging = _write(tmp_path, "hangs.py", "import time\nimport tensorflow\ntime.sleep(120)\n")
    with pytest.raises(OracleFailure, match="timed out"):
        observe([hanging], cache_dir=tmp_path / "cache", timeout=5)
