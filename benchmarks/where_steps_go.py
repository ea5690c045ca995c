"""Where the interpretation's work goes on a corpus: steps of the default runs against the other
command-line paths, the runs as long as a run may be, and the files that cost most.

    python3 benchmarks/where_steps_go.py PATH [--top N]

A step is one statement or call interpreted (the unit of the budgets in analysis/interpreter.py).
Files are analysed one after another in this process, as one worker of `scopelint check` would
(project modules shared between them); the parse is done first and not timed, so the seconds are
the analysis alone.  The figures say which lever is worth pulling next (issue 10): fewer or cheaper
paths, per-call summaries for long runs, or sharing of imported modules.

`--repeats` also counts the steps spent in user-function calls that repeat an earlier call of the
same run: the same function, arguments alike in type and shape, in the same variable scope with
the same reuse.  It is an upper bound on what per-call summaries could skip, since the key leaves
out the heap, the name scope and the device a call sees.

`--effect-free` counts the steps a summary could skip exactly, as far as a check after the fact can
tell: calls that repeat an earlier call of the run by value (the arguments, the function's defaults
and the arguments an arg_scope adds, walked deeply; the name scope, variable scope, device stack and
error state it starts in) where the earlier call changed nothing but op names and name-scope counts
(the graph's other counters unchanged, the state its arguments reach unchanged) and returned plain
values (numbers, strings, tuples, tensors).  A repeat whose result differs from the recorded one is
counted apart: the key or the effect check missed some state the call depends on.
"""
from __future__ import annotations

import argparse
import time
import weakref
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scopelint import engine
from scopelint.analysis import analyze_source, interpreter, project, replay
from scopelint.analysis.values import UNKNOWN, Tensor


@dataclass
class FileCost:
    path: Path
    seconds: float
    run_steps: list[int]  # the default run first
    paths_merged: bool  # the path budget stopped the exploration


@dataclass
class RepeatCount:
    """User calls that repeat an earlier one (outermost only, so nested steps count once)."""

    calls: int = 0
    steps: int = 0


def _abstract(value: Any) -> str:
    """What a summary could key an argument by: a literal, or a type with its shape."""
    if isinstance(value, (int, float, str, bool, type(None))):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}({','.join(_abstract(item) for item in value)})"
    shape = getattr(value, "shape", None)
    return type(value).__name__ + ("" if shape is None else repr(shape))


def count_repeats(repeats: RepeatCount) -> None:
    """Wrap the interpreter's user calls to count the repeated ones (this process only)."""
    # Per run (one interpreter each), dropped with it: an id reused by a later run must not match.
    seen: weakref.WeakKeyDictionary[interpreter.Interpreter, set[tuple[Any, ...]]] = weakref.WeakKeyDictionary()
    inside_repeat = [False]
    call_user = interpreter.Interpreter.call_user

    def counting(self: interpreter.Interpreter, function: Any, args: list[Any], kwargs: dict[str, Any],
                 *rest: Any, **options: Any) -> Any:
        scope = self.graph.var_scope
        key = (id(function.node), tuple(map(_abstract, args)),
               tuple(sorted((name, _abstract(value)) for name, value in kwargs.items())),
               getattr(scope, "name", None), str(getattr(scope, "reuse", None)))
        calls = seen.setdefault(self, set())
        outermost = key in calls and not inside_repeat[0]
        calls.add(key)
        if outermost:
            inside_repeat[0] = True
        start = self.total_steps
        try:
            return call_user(self, function, args, kwargs, *rest, **options)
        finally:
            if outermost:
                inside_repeat[0] = False
                repeats.calls += 1
                repeats.steps += self.total_steps - start

    interpreter.Interpreter.call_user = counting  # type: ignore[method-assign]


@dataclass
class EffectFreeCount:
    hits: int = 0
    mismatches: int = 0
    intervals: list[tuple[int, int, int]] = field(default_factory=list)  # (run, first step, last step)
    mismatched: Counter[str] = field(default_factory=Counter)

    def steps(self) -> int:
        """Steps inside the repeats, nested repeats counted once."""
        covered, reached = 0, {}
        for run, first, last in sorted(self.intervals):
            start = max(first, reached.get(run, first))
            covered += max(last - start, 0)
            reached[run] = max(reached.get(run, first), last)
        return covered


def _key(interp: interpreter.Interpreter, value: Any, keep: list[Any]) -> tuple[Any, ...]:
    """`value` spelt by value, as replay.py compares the state of a phase (module namespaces by
    name: what a call reads of them is not in the key, so a repeat that depends on it shows up as
    another result)."""
    namespaces = {id(module.env): key for key, module in interp.loaded_modules.items() if module is not None}
    if interp.module is not None:
        namespaces[id(interp.module.env)] = interp.module.path
    return tuple(replay._Walker(interp, namespaces, keep).walk(value, {}, {}))


def _plain(value: Any) -> bool:
    kind = type(value)
    if kind is tuple:
        return all(_plain(item) for item in value)
    return kind in (int, float, str, bool, type(None), Tensor) or value is UNKNOWN


def count_effect_free(count: EffectFreeCount) -> None:
    """Wrap the interpreter's user calls to count the effect-free repeats (this process only)."""
    recorded: weakref.WeakKeyDictionary[interpreter.Interpreter, dict[Any, Any]] = weakref.WeakKeyDictionary()
    call_user = interpreter.Interpreter.call_user

    def footprint(interp: interpreter.Interpreter) -> tuple[int, ...]:
        whole = interp._graph_footprint()
        return whole[:3] + whole[5:]  # without op names and scope counts, which a summary replays

    def counting(self: interpreter.Interpreter, function: Any, args: list[Any], kwargs: dict[str, Any],
                 *rest: Any, **options: Any) -> Any:
        if self.graph.speculative:
            return call_user(self, function, args, kwargs, *rest, **options)
        receiver = rest[1] if len(rest) > 1 else options.get("receiver")
        inputs = (receiver, args, kwargs, function.defaults, self.tfapi.tfapi_slim.user_function_defaults(self, function))
        keep: list[Any] = []  # what the keys spell by id stays alive, so ids are not reused
        try:
            before = _key(self, inputs, keep)
            hash(before)
        except TypeError:  # a token that cannot be hashed: this call is not counted
            return call_user(self, function, args, kwargs, *rest, **options)
        graph = self.graph
        key = (id(function.node), id(function.closure), before, id(graph), graph.name_stack, id(graph.var_scope),
               tuple(map(id, graph.devices.entries)) if graph.devices is not None else None, graph.catching,
               graph.after_error)
        start, effects = self.total_steps, footprint(self)
        result = call_user(self, function, args, kwargs, *rest, **options)
        if _key(self, inputs, keep) == before and footprint(self) == effects and _plain(result):
            calls = recorded.setdefault(self, {})
            if key in calls:
                count.hits += 1
                count.intervals.append((id(self), start, self.total_steps))
                if _key(self, calls[key][0], keep) != _key(self, result, keep):
                    count.mismatches += 1
                    count.mismatched[function.name] += 1
            else:
                calls[key] = (result, keep)
        return result

    interpreter.Interpreter.call_user = counting  # type: ignore[method-assign]


def measure(root: Path) -> list[FileCost]:
    sources = []
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        if engine.PREFILTER_MARKER not in data or engine.too_large(data) is not None:
            continue  # what check never analyses
        source, _ = engine.decode_source(data, str(path))  # as check reads it; None when it cannot
        if source is not None:
            sources.append((path, source))
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
    parser.add_argument("--repeats", action="store_true", help="count steps in repeated user calls")
    parser.add_argument("--effect-free", action="store_true",
                        help="count steps in repeats of effect-free calls, by value (slow)")
    args = parser.parse_args()
    repeats = RepeatCount()
    if args.repeats:
        count_repeats(repeats)
    effect_free = EffectFreeCount()
    if args.effect_free:
        count_effect_free(effect_free)
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
    if args.repeats:
        print(f"repeated user calls: {repeats.calls:,}, {repeats.steps:,} steps "
              f"({repeats.steps / max(total, 1):.0%}; an upper bound on what summaries could skip)")
    if args.effect_free:
        skipped = effect_free.steps()
        print(f"effect-free repeats: {effect_free.hits:,} calls, {skipped:,} steps ({skipped / max(total, 1):.0%}); "
              f"{effect_free.mismatches} with another result than the recorded one "
              f"{dict(effect_free.mismatched.most_common(5))}")
    print(f"\n{'seconds':>8} {'runs':>5} {'steps':>10}  file (steps of the first runs)")
    for cost in sorted(costs, key=lambda c: c.seconds, reverse=True)[:args.top]:
        print(f"{cost.seconds:8.2f} {len(cost.run_steps):5} {sum(cost.run_steps):10,}  "
              f"{cost.path.relative_to(args.path)} {cost.run_steps[:5]}")


if __name__ == "__main__":
    main()
