"""Parent side of `scopelint verify`: start the child, bound it in time, and end every process it made.

The child (`scopelint.verify.child`) runs in its own session, so it has its own process group and a
Ctrl-C on the terminal reaches only scopelint.  Where `unshare` allows it, the child also gets a
private user, network and PID namespace (`unshare -rnp --fork --kill-child`, with loopback brought
up): TensorFlow's servers bind every interface (tf1-semantics 5.2), and in a private network
namespace "every interface" is only the child's own loopback; and when the namespace's first process
dies the kernel kills everything left in it, even a process that left the process group.
On every path (normal end, timeout, crash, Ctrl-C) the parent kills the child's descendants it can
find and the whole process group by id, then reaps the child.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scopelint.verify.plan import ChildRequest

CHILD_ENV = {
    "TF_USE_LEGACY_KERAS": "1",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "CUDA_VISIBLE_DEVICES": "",
    "PYTHONUNBUFFERED": "1",
}
PROBE_TIMEOUT_SECONDS = 10.0
OUTPUT_TAIL_CHARS = 3000
# The directory that holds the `scopelint` package, so that the child imports this very copy.
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class Isolation:
    private_network: bool
    how: str  # the command prefix used, or "" when none
    reason: str  # why there is no private namespace ("" when there is)


@dataclass
class ChildRun:
    """What the parent saw of one child process."""

    result: dict[str, Any] | None  # the child's JSON result; None when it never wrote one
    status: list[dict[str, Any]]  # the child's progress lines, in order
    exit_status: int | None  # the child's return code (negative: killed by that signal)
    timed_out: bool
    interrupted: bool
    seconds: float
    stdout_tail: str
    stderr_tail: str
    isolation: Isolation
    child_pid: int

    @property
    def last_phase(self) -> str:
        return self.status[-1]["phase"] if self.status else "start"

    @property
    def session_runs(self) -> int:
        runs = [line["runs"] for line in self.status if line["phase"] == "run"]
        return runs[-1] if runs else 0


def _isolation_prefix(unshare: str, ip: str) -> list[str]:
    # sh brings loopback up inside the new namespace and stays as its first process (PID 1): the
    # kernel ignores signals a namespace's PID 1 sends itself, which would change the meaning of a
    # program that kills itself, so the program runs as PID 2 and sh passes its status on.
    return [unshare, "-r", "-n", "-p", "--fork", "--kill-child", "sh", "-c", f'"{ip}" link set lo up && "$0" "$@"']


def probe_isolation() -> tuple[Isolation, list[str]]:
    """Can this system give the child a private network namespace?  Returns the prefix to use."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    if unshare is None or ip is None:
        missing = "unshare" if unshare is None else "ip"
        return Isolation(False, "", f"`{missing}` is not installed"), []
    prefix = _isolation_prefix(unshare, ip)
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as problem:
        return Isolation(False, "", f"unshare could not run: {problem}"), []
    if probe.returncode != 0:
        detail = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
        return Isolation(False, "", f"unshare -rnp failed: {detail}"), []
    return Isolation(True, "unshare -rnp --fork --kill-child (loopback only)", ""), prefix


def _descendants(root: int) -> list[int]:
    """Every live descendant of `root`, from /proc (empty where /proc is not available)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    pending = [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def end_process_tree(process: subprocess.Popen[bytes]) -> None:
    """Kill the child's descendants, its process group, and the child; then reap it."""
    for pid in _descendants(process.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the child leads its own group (start_new_session)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.kill()
    except ProcessLookupError:
        pass
    process.wait()


def read_status_lines(path: Path) -> list[dict[str, Any]]:
    lines = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            break  # a line cut short by a kill
    return lines


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-OUTPUT_TAIL_CHARS:].decode("utf-8", errors="replace")


def run_child(request: ChildRequest, timeout: float, isolate: bool = True, cwd: str | None = None,
              no_isolation_reason: str = "disabled with --no-isolate") -> ChildRun:
    """Run the child for `request` (its status/result paths are filled in here) within `timeout` s."""
    isolation, prefix = probe_isolation() if isolate else (Isolation(False, "", no_isolation_reason), [])
    with tempfile.TemporaryDirectory(prefix="scopelint-verify-") as work:
        folder = Path(work)
        request.status_path = str(folder / "status.jsonl")
        request.result_path = str(folder / "result.json")
        request_file = folder / "request.json"
        request_file.write_text(json.dumps(asdict(request)), encoding="utf-8")
        env = dict(os.environ)
        env.update(CHILD_ENV)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [PACKAGE_ROOT, env.get("PYTHONPATH", "")]))
        command = [*prefix, sys.executable, "-m", "scopelint.verify.child", str(request_file)]
        started = time.monotonic()
        timed_out = interrupted = False
        with open(folder / "stdout", "wb") as stdout, open(folder / "stderr", "wb") as stderr:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env, cwd=cwd,
                start_new_session=True,
            )
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            except KeyboardInterrupt:
                interrupted = True
            finally:
                end_process_tree(process)
        seconds = time.monotonic() - started
        result_path = Path(request.result_path)
        result = None
        if result_path.exists() and not timed_out and not interrupted:
            try:
                result = json.loads(result_path.read_text(encoding="utf-8"))
            except ValueError:
                result = None
        return ChildRun(
            result=result,
            status=read_status_lines(Path(request.status_path)),
            exit_status=process.returncode,
            timed_out=timed_out,
            interrupted=interrupted,
            seconds=seconds,
            stdout_tail=_tail(folder / "stdout"),
            stderr_tail=_tail(folder / "stderr"),
            isolation=isolation,
            child_pid=process.pid,
        )
