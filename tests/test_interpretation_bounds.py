"""Interpretation is bounded: pathological programs end quickly, in little memory, with unknown
values instead of a hang or an exhausted machine.

Each case runs the real analyzer under tracemalloc (peak of Python allocations) and a clock.  The
bounds are generous for a loaded 2-core CI machine; measured on one (idle), every case takes under
0.3 s and 2 MB except the exponential call tree (about 3.5 s: it runs until the step budget,
MAX_STEPS, is spent).  Before the value bounds (MAX_VALUE_LENGTH, MAX_INT_BITS) `s = s + s` in a
loop was killed by the OOM killer, `'ab' * 10**9` peaked at 2 GB, `l.extend(l)` in a loop and
`''.join([s, s])` on partly known strings raised MemoryError, and `pow(10, 10**8)` did not finish.
"""
from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from scopelint.analysis import analyze_source
from scopelint.analysis.interpreter import MAX_VALUE_LENGTH
from scopelint.trace import Trace

SECONDS = 10.0
PEAK_BYTES = 100_000_000
H = "import sys\nimport tensorflow.compat.v1 as tf\n"


def bounded_analysis(source: str, path: str = "pathological.py", trace_memory: bool = True,
                     seconds: float = SECONDS) -> tuple[Trace, float]:
    """The trace and the seconds it took, asserting both bounds (tracemalloc slows allocation-heavy
    runs about 2.5 times: the slowest case measures its time without it)."""
    if trace_memory:
        tracemalloc.start()
    started = time.monotonic()
    try:
        trace = analyze_source(source, path)
        elapsed = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1] if trace_memory else 0
    finally:
        if trace_memory:
            tracemalloc.stop()
    assert elapsed < seconds, f"{elapsed:.1f} s"
    assert peak < PEAK_BYTES, f"peak {peak / 1e6:.0f} MB"
    return trace, elapsed


def names(trace: Trace) -> list[str]:
    return [record.name for record in trace.variables]


def test_unbounded_recursion_stops_at_the_call_depth() -> None:
    trace, _ = bounded_analysis(H + "def f(n):\n    tf.get_variable('w_%d' % n, [1])\n    return f(n + 1)\nf(0)\n")
    from scopelint.analysis.interpreter import MAX_CALL_DEPTH

    assert names(trace)[:3] == ["w_0", "w_1", "w_2"] and len(trace.variables) <= MAX_CALL_DEPTH
    assert not trace.complete  # what the cut-off calls would have created is not claimed


@pytest.mark.parametrize("loop", [
    "for i in range(10**9):\n    tf.get_variable('w_%d' % i, [1])\n",
    "i = 0\nwhile True:\n    i += 1\ntf.get_variable('w_%d' % i, [1])\n",
    "i = 0\nwhile i < 10**9:\n    i += 1\ntf.get_variable('w_%d' % i, [1])\n",
])
def test_huge_loop_bounds_make_values_unknown(loop: str) -> None:
    trace, _ = bounded_analysis(H + loop)
    assert names(trace) == ["w_?"] and not trace.variables[0].certain


def test_exponential_branching_on_unknown_conditions() -> None:
    branches = "".join(
        "    " * depth + f"if len(sys.argv) > {depth}:\n"
        + "    " * (depth + 1) + f"a{depth} = tf.get_variable('a{depth}', [1])\n"
        + "    " * depth + "else:\n"
        + "    " * (depth + 1) + f"b{depth} = tf.get_variable('b{depth}', [1])\n"
        for depth in range(40)
    )
    trace, _ = bounded_analysis(H + branches)
    # Both sides of each branch run once, speculatively: 80 uncertain variables, not 2**40 paths.
    assert len(trace.variables) == 80 and not any(record.certain for record in trace.variables)


def test_exponential_call_tree_runs_into_the_step_budget() -> None:
    functions = "".join(
        f"def f{depth}():\n    if len(sys.argv) > 1:\n        f{depth + 1}()\n    else:\n        f{depth + 1}()\n"
        for depth in range(40)
    )
    source = H + functions + "def f40():\n    tf.get_variable('leaf', [1])\nf0()\n"
    trace, _ = bounded_analysis(source, trace_memory=False)
    assert not trace.complete
    bounded_analysis(source, seconds=60)  # memory: the same run under tracemalloc, slower


@pytest.mark.parametrize("build", [
    "s = 'ab'\nfor i in range(200):\n    s = s + s\n",
    "s = 'ab'\nfor i in range(200):\n    s += s\n",
    "s = 'ab' * 10**9\n",
    "s = 'ab'\nfor i in range(60):\n    s = f'{s}{s}'\n",
    "s = 'ab'\nfor i in range(60):\n    s = ''.join([s, s])\n",
    "s = 'ab'\nfor i in range(60):\n    s = '{0}{0}'.format(s)\n",
    "s = 'ab'\nfor i in range(60):\n    s = s.replace('', s)\n",
    "s = '%0999999999d' % 1\n",
    "s = '{:>999999999}'.format(1)\n",
    "s = f'{1:>999999999}'\n",
    "s = format(1, '>999999999')\n",
    "s = 'x'.zfill(10**9)\n",
    "l = ['ab'] * 10**8\ns = str(len(l))\n",
    "t = (1,)\nfor i in range(200):\n    t = t + t\ns = str(len(t))\n",
    "n = 10 ** 10 ** 8\ns = str(n)\n",
    "n = pow(10, 10**8)\ns = str(n)\n",
    "n = 1 << 10**10\ns = str(n)\n",
    "n = 3\nfor i in range(60):\n    n = n * n\ns = str(n)\n",
])
def test_huge_values_become_unknown(build: str) -> None:
    trace, _ = bounded_analysis(H + build + "w = tf.get_variable('w', [1])\nv = tf.get_variable(s[:2], [1])\n")
    # The program goes on after the huge value; the name built from it is unknown.
    assert names(trace)[0] == "w" and trace.variables[0].certain
    assert len(trace.variables) == 2 and not trace.variables[1].certain or "?" in names(trace)[1]


def test_a_list_extended_past_the_bound_ends_the_run_there() -> None:
    """`l.extend(l)` doubles a list in place, which cannot be made unknown: the run ends there, as
    at the step budget, and the trace says it is incomplete (no wrong length is ever certain)."""
    trace, _ = bounded_analysis(H + "w = tf.get_variable('w', [1])\nl = [1]\nfor i in range(200):\n    l.extend(l)\n"
                                "v = tf.get_variable('v_%d' % len(l), [1])\n")
    assert names(trace) == ["w"] and not trace.complete


def test_values_under_the_bound_stay_known() -> None:
    """The bound is not a precision loss for ordinary programs."""
    trace, _ = bounded_analysis(H + f"s = 'a' * {MAX_VALUE_LENGTH // 2}\nn = 2 ** 64\ntf.get_variable('w_%d_%d' % (len(s), n), [1])\n")
    assert names(trace) == [f"w_{MAX_VALUE_LENGTH // 2}_{2 ** 64}"] and trace.variables[0].certain


def test_mutual_recursion_across_two_project_modules(tmp_path: Path) -> None:
    (tmp_path / "ping.py").write_text(
        "import tensorflow.compat.v1 as tf\nimport pong\n\n"
        "def ping(n):\n    tf.get_variable('ping_%d' % n, [1])\n    return pong.pong(n + 1)\n"
    )
    (tmp_path / "pong.py").write_text(
        "import tensorflow.compat.v1 as tf\nimport ping\n\n"
        "def pong(n):\n    return ping.ping(n + 1)\n"
    )
    main = tmp_path / "main.py"
    main.write_text("import tensorflow.compat.v1 as tf\nimport ping\n\nping.ping(0)\n")
    trace, _ = bounded_analysis(main.read_text(), str(main))
    created = names(trace)
    assert created[:2] == ["ping_0", "ping_2"] and len(created) <= 24
    assert not trace.complete
