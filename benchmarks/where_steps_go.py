"""Where the interpretation's work goes on a corpus: steps of the default runs against the other
command-line paths, the runs as long as a run may be, and the files that cost most.

    python3 benchmarks/where_steps_go.py PATH [--top N]

A step is one statement or call interpreted (the unit of the budgets in analysis/interpreter.py).
Files are analysed one after another in this process, as one worker of `scopelint check` would
(project modules shared between them); the parse is done first and not timed, so the seconds are
the analysis alone.  The figures say which lever is worth pulling next (issue 10): fewer or cheaper
paths, per-call summaries for long runs, or sharing of imported modules.
"""
from __future__ import annotations

import argparse
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

from scopelint.analysis import analyze_source, interpreter, project
from scopelint.engine import PREFILTER_MARKER


@dataclass
class FileCost:
    path: Path
    seconds: float
    run_steps: list[int]  # the default run first
    paths_merged: bool  # the path budget stopped the exploration


def measure(root: Path) -> list[FileCost]:
    sources = []
    for path in sorted(root.rglob("*.py")):
        if PREFILTER_MARKER not in path.read_bytes():
            continue  # the engine's pre-filter: never parsed
        try:
            with tokenize.open(path) as handle:
                sources.append((path, handle.read()))
        except (SyntaxError, UnicodeDecodeError):
            continue
    for _, source in sources:
        try:
            project.parse_text(source)  # parsed once, as the engine does; the analysis below reuses it
        except Exception:  # noqa: BLE001 - an unparsable file is reported by check, not measured here
            pass
    costs = []
    for path, source in sources:
        start = time.perf_counter()
        try:
            trace = analyze_source(source, str(path))
        except Exception:  # noqa: BLE001
            continue
        runs = [trace, *trace.other_paths]
        costs.append(FileCost(path, time.perf_counter() - start, [run.steps for run in runs], trace.paths_merged))
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    costs = measure(args.path)
    total = sum(sum(cost.run_steps) for cost in costs)
    default = sum(cost.run_steps[0] for cost in costs)
    runs = [steps for cost in costs for steps in cost.run_steps]
    long_runs = [steps for steps in runs if steps >= interpreter.MAX_STEPS]
    seconds = sum(cost.seconds for cost in costs)
    print(f"files analysed: {len(costs)}, analysis {seconds:.2f} s, {total:,} steps "
          f"({seconds / max(total, 1) * 1e6:.1f} us per step)")
    print(f"default runs: {default:,} steps ({default / max(total, 1):.0%}); other paths: {total - default:,} "
          f"steps in {len(runs) - len(costs)} runs over {sum(len(c.run_steps) > 1 for c in costs)} files "
          f"({sum(c.paths_merged for c in costs)} stopped by the path budget)")
    print(f"runs of {interpreter.MAX_STEPS:,} steps or more (a run's budget, or test methods each with "
          f"their own): {len(long_runs)}, {sum(long_runs):,} steps ({sum(long_runs) / max(total, 1):.0%})")
    print(f"\n{'seconds':>8} {'runs':>5} {'steps':>10}  file (steps of the first runs)")
    for cost in sorted(costs, key=lambda c: c.seconds, reverse=True)[:args.top]:
        print(f"{cost.seconds:8.2f} {len(cost.run_steps):5} {sum(cost.run_steps):10,}  "
              f"{cost.path.relative_to(args.path)} {cost.run_steps[:5]}")


if __name__ == "__main__":
    main()
