"""Shared test fixtures: the TensorFlow oracle's observations of the fixture corpus."""
from __future__ import annotations

import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:  # so that test modules can import oracle and fixture_corpus
    sys.path.insert(0, str(TESTS_DIR))

from fixture_corpus import fixture_paths  # noqa: E402
from oracle import Observation, default_cache_dir, observe  # noqa: E402

# The whole TensorFlow-backed suite must stay fast on a 2-core machine.
TF_SUITE_BUDGET_SECONDS = 60.0


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "tf: runs fixtures under real TensorFlow (deselect with -m 'not tf'); budget 60 s in total"
    )


@dataclass
class OracleRun:
    observations: dict[Path, Observation]
    seconds: float  # wall time of observe(), including any real TensorFlow run


@pytest.fixture(scope="session")
def oracle_run(request: pytest.FixtureRequest) -> OracleRun:
    """Every corpus fixture observed under TensorFlow once per session (and cached on disk)."""
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed: the oracle cannot run")
    cache = getattr(request.config, "cache", None)
    cache_dir = cache.mkdir("scopelint-oracle") if cache is not None else default_cache_dir()
    started = time.monotonic()
    observations = observe(fixture_paths(), cache_dir=Path(cache_dir))
    return OracleRun(observations=observations, seconds=time.monotonic() - started)


@pytest.fixture(scope="session")
def oracle_observations(oracle_run: OracleRun) -> dict[Path, Observation]:
    return oracle_run.observations


# Fixture programs include a tf.test.TestCase module: test_programs_tf analyses and runs it; it is
# not one of the suite's own tests.
collect_ignore_glob = ["fixtures/*"]
