"""`scopelint verify` against hostile programs: unbounded allocation, fork, os._exit, a taken port.
(Infinite loops with helper processes, crashes and SIGKILL are in test_verify.py.)  Each is stopped
or reported cleanly and leaves no process behind.  The runs start in parallel once per module.
"""
from __future__ import annotations

import importlib.util
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from scopelint.verify import COMPARED, CRASHED, VerifyOptions, VerifyReport, verify
from scopelint.verify.child import MEMORY_LIMIT_ENV
from scopelint.verify.compare import UNPREDICTED
from scopelint.verify.report import format_text

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "verify"
# The address-space cap for these runs: TensorFlow with two servers maps about 4.1 GB, so the
# allocating program gets MemoryError after about 2 GB instead of half the machine.
TEST_MEMORY_CAP = 6 * 1024**3
RUN_TIMEOUT_SECONDS = 60.0

pytestmark = [
    pytest.mark.tf,
    pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed"),
]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyReport]:
    heartbeat = tmp_path_factory.mktemp("fork") / "heartbeat"
    runs = {
        "allocates": ("allocates_forever.py", []),
        "forks": ("forks_and_lingers.py", [str(heartbeat)]),
        "os_exit": ("exits_with_os_exit.py", []),
        "port_once": ("holds_the_wanted_port.py", ["once"]),
        "port_always": ("holds_the_wanted_port.py", ["always"]),
    }
    previous = os.environ.get(MEMORY_LIMIT_ENV)
    os.environ[MEMORY_LIMIT_ENV] = str(TEST_MEMORY_CAP)  # read by each child at its start
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = {
                name: pool.submit(verify, VerifyOptions(path=str(FIXTURES / file), args=args, timeout=RUN_TIMEOUT_SECONDS))
                for name, (file, args) in runs.items()
            }
            found = {name: future.result() for name, future in futures.items()}
    finally:
        if previous is None:
            os.environ.pop(MEMORY_LIMIT_ENV, None)
        else:
            os.environ[MEMORY_LIMIT_ENV] = previous
    found["heartbeat"] = heartbeat  # type: ignore[assignment]
    return found


def assert_nothing_survives(report: VerifyReport) -> None:
    assert not Path(f"/proc/{report.child.child_pid}").exists()


def test_unbounded_allocation_hits_the_memory_cap(reports: dict[str, VerifyReport]) -> None:
    report = reports["allocates"]
    text = format_text(report)
    assert not report.child.timed_out and report.child.seconds < RUN_TIMEOUT_SECONDS, text
    # Python raises MemoryError in the program: an observation, compared like any exception.
    assert report.outcome == COMPARED and report.exit_code == 1, text
    assert report.comparison is not None
    [exception] = report.comparison.exceptions
    assert (exception.status, exception.error_type, exception.line) == (UNPREDICTED, "MemoryError", 8), text
    assert [row.name for row in report.comparison.rows] == ["w"]
    assert_nothing_survives(report)


def test_a_forked_copy_of_the_program_does_not_survive(reports: dict[str, VerifyReport]) -> None:
    report = reports["forks"]
    assert report.outcome == COMPARED and report.agree, format_text(report)
    heartbeat: Path = reports["heartbeat"]  # type: ignore[assignment]
    assert heartbeat.exists() and heartbeat.stat().st_size > 0  # the fork really ran
    size = heartbeat.stat().st_size
    time.sleep(0.5)
    assert heartbeat.stat().st_size == size, "the forked process is still writing"
    assert_nothing_survives(report)


def test_os_exit_is_reported_as_a_crash_with_its_status(reports: dict[str, VerifyReport]) -> None:
    report = reports["os_exit"]
    text = format_text(report)
    assert report.outcome == CRASHED and report.exit_code == 1, text
    assert report.child.exit_status == 3 and "ended with status 3 without a report" in text
    assert_nothing_survives(report)


def test_a_taken_port_is_retried(reports: dict[str, VerifyReport]) -> None:
    report = reports["port_once"]
    assert report.outcome == COMPARED and report.agree, format_text(report)
    assert report.result is not None and len(report.result["cluster"]["ps"]) == 2


def test_a_cluster_that_cannot_start_is_reported(reports: dict[str, VerifyReport]) -> None:
    report = reports["port_always"]
    text = format_text(report)
    assert report.exit_code == 1 and not report.child.timed_out, text
    assert "could not start the in-process cluster" in text
    assert_nothing_survives(report)


def test_the_programs_writes_and_deletions_never_reach_the_users_files(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "old_events").write_text("the user's earlier run\n")
    (tmp_path / "keep.txt").write_text("keep me\n")
    (tmp_path / "history.txt").write_text("first run\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.csv").write_text("1,2\n")
    before = sorted((str(p.relative_to(tmp_path)), p.read_bytes() if p.is_file() else b"")
                    for p in tmp_path.rglob("*"))
    report = verify(VerifyOptions(path=str(FIXTURES / "writes_and_deletes.py"), args=[str(tmp_path)],
                                  timeout=RUN_TIMEOUT_SECONDS))
    after = sorted((str(p.relative_to(tmp_path)), p.read_bytes() if p.is_file() else b"")
                   for p in tmp_path.rglob("*"))
    assert after == before
    text = format_text(report)
    assert report.outcome == COMPARED, text
    assert report.child.result["program"]["how"] == "finished", text
    writes = "\n".join(report.child.result["writes"])
    assert "went to verify's scratch folder" in writes and str(tmp_path / "ckpt") in writes
    assert "not deleted" in writes and str(tmp_path / "keep.txt") in writes and str(tmp_path / "data") in writes
    assert "writes:" in text
