"""Library-code fixtures (`tests/fixtures/patterns/lib_*.py`): the analysis sees the whole graph.

Each of these fixtures builds its graph only with library code scopelint models (tf_slim /
tf.contrib.layers, variable-free TF calls, user RNN cells, templates, Keras layers, project code
shapes).  So the trace must be complete and every variable certain, and then the names, order and
fully known shapes must be TensorFlow's (the oracle runs each fixture under TF; see also
test_differential.py, which checks the findings).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from fixture_corpus import FIXTURES_DIR, fixture_id
from oracle import Observation
from scopelint.analysis import analyze_source

pytestmark = pytest.mark.tf

LIBRARY_FIXTURES = sorted((FIXTURES_DIR / "patterns").glob("lib_*.py"))


def _ordered(records: list) -> list:
    return sorted(records, key=lambda r: 0 if "variables" in r.collections else
                  1 if "local_variables" in r.collections else 2)


@pytest.mark.parametrize("path", LIBRARY_FIXTURES, ids=fixture_id)
def test_library_fixture_is_complete_certain_and_tensorflows(
        path: Path, oracle_observations: dict[Path, Observation]) -> None:
    trace = analyze_source(path.read_text(), str(path))
    # TensorFlow stops at the first error; the analysis goes on as after its fix (after_error).
    predicted = _ordered([record for record in trace.final_variables() if not record.after_error])
    uncertain = [r.name for r in predicted if not r.certain]
    assert trace.complete, f"{path.name}: the trace is incomplete"
    assert not uncertain, f"{path.name}: uncertain variables {uncertain}"
    observed = oracle_observations[path].variables
    assert [r.name for r in predicted] == [v.name for v in observed]
    for record, real in zip(predicted, observed):
        assert record.shape is not None and None not in record.shape, f"{record.name}: shape {record.shape}"
        assert tuple(record.shape) == real.shape, f"{record.name}: {record.shape} != {real.shape}"
        assert record.trainable == real.trainable, f"{record.name}: trainable {record.trainable}"


def test_there_are_library_fixtures() -> None:
    assert len(LIBRARY_FIXTURES) >= 1
