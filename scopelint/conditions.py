"""One finding per place and message, across the runs of a program with different configurations.

The rules run on each run's trace (analysis/paths.py); the same finding on several runs is one
finding whose condition joins theirs: "on every path" when every run has it, else the runs'
conditions ("with the default flags or when --dataset=celebA").
"""
from __future__ import annotations

from scopelint.diagnostics import Diagnostic
from scopelint.trace import PathCondition

EVERY_PATH = "on every path"
# Every run but those where the program stopped itself earlier (its argument checks raised).
PAST_CHECKS = "on every path past the program's own checks"
MAX_LISTED = 3  # conditions spelled out; more are counted
# Loops of unknown length are path choices too (analysis/loop_counts.py): their decisions are
# keyed "loop:..." and spelled "the loop at f.py:12 runs once" / "... runs twice".  That a loop ran
# once (speculatively: it may run any number of times) never tells runs apart.
LOOP_KEY_PREFIX = "loop:"
LOOP_ONCE = " runs once"
LOOP_TWICE = " runs twice"


def is_loop(key: str) -> bool:
    """A decision on a loop's count, not on the command line."""
    return key.startswith(LOOP_KEY_PREFIX)


def _ran_once(key: str, spelled: str | None) -> bool:
    return is_loop(key) and spelled is not None and spelled.endswith(LOOP_ONCE)


def merge(runs: list[tuple[PathCondition | None, list[Diagnostic]]], merged_beyond_bound: bool = False) -> list[Diagnostic]:
    if len(runs) == 1:
        condition, found = runs[0]
        if condition is not None:
            for diagnostic in found:
                _attach(diagnostic, [condition], every=True, bounded=merged_beyond_bound)
        return found
    order: list[tuple] = []
    by_key: dict[tuple, tuple[Diagnostic, list[PathCondition]]] = {}
    for condition, found in runs:
        for diagnostic in found:
            key = (diagnostic.code, diagnostic.site, diagnostic.message)
            if key not in by_key:
                by_key[key] = (diagnostic, [])
                order.append(key)
            conditions = by_key[key][1]
            if condition is not None and condition not in conditions:
                conditions.append(condition)
    every_run = [condition for condition, _ in runs if condition is not None]
    # Runs the program itself stopped early (condition.stopped) say nothing about what happens
    # later: a finding they lack is not told apart by their values.
    result = []
    for key in order:
        diagnostic, conditions = by_key[key]
        telling = [c for c in every_run if not c.stopped or c in conditions]
        separating = _separating_value(conditions, telling)
        if separating is None and len(conditions) == len(telling) < len(runs):
            separating = PAST_CHECKS
        _attach(diagnostic, conditions, every=len(conditions) == len(runs), bounded=merged_beyond_bound,
                separating=separating)
        result.append(diagnostic)
    return result


def _separating_value(having: list[PathCondition], every_run: list[PathCondition]) -> str | None:
    """"when sys.argv[1] != 'ps'": the one tested value whose choice alone tells the runs with
    the finding from the runs without it, if there is one."""
    if not having or len(having) == len(every_run):
        return None
    keys = [decision[0] for decision in having[0].decisions]
    for key in keys:
        spelled = [_decision(condition, key) for condition in every_run]
        if any(_ran_once(key, value) for value, c in zip(spelled, every_run) if c in having):
            continue
        if any(value is None and condition in having for value, condition in zip(spelled, every_run)):
            continue  # the finding happens on a run that never tested it
        chosen = {_decision(condition, key) for condition in having}
        # Runs that ended before testing it (the program raised earlier) say nothing either way.
        # ...and a value that no run without the finding ever tested tells nothing apart.
        if all(value is None or (value in chosen) == (condition in having)
               for value, condition in zip(spelled, every_run)) and any(
                   value is not None and condition not in having for value, condition in zip(spelled, every_run)):
            ordered = [value for value in dict.fromkeys(spelled) if value in chosen]
            excluded = {value for value in spelled if value is not None and value not in chosen}
            if len(ordered) > 1 and len(excluded) == 1:
                # Every value but one: "sys.argv[1] != 'ps'".
                negation = _negation(every_run, key, excluded.pop())
                if negation is not None:
                    return when_all([negation])
            return when_any([v for v in ordered if v is not None])
    return _separating_pair(having, every_run)


def when_all(parts: list[str]) -> str:
    """"when --model=mlp and --ema"; a part that says an option is not given reads without "when"
    and comes last: "without --test", "when --model=mlp, without --ema"."""
    given = [part for part in parts if not part.startswith("without ")]
    not_given = [part for part in parts if part.startswith("without ")]
    if not given:
        return " and ".join(not_given)
    return "when " + " and ".join(given) + (", " + " and ".join(not_given) if not_given else "")


def when_any(parts: list[str]) -> str:
    """"when --model=b or --model=c" ("without --test" when that is the only one)."""
    return parts[0] if len(parts) == 1 and parts[0].startswith("without ") else "when " + " or ".join(parts)


def _without_when(label: str) -> str:
    return label[len("when "):] if label.startswith("when ") else label


def _separating_pair(having: list[PathCondition], every_run: list[PathCondition]) -> str | None:
    """"when --ema and --model=mlp": two tested values that together tell the runs apart."""
    keys = [decision[0] for decision in having[0].decisions]
    for first in keys:
        for second in keys:
            if second <= first:
                continue
            pairs = [(_decision(c, first), _decision(c, second)) for c in every_run]
            if any(None in pair and c in having for pair, c in zip(pairs, every_run)):
                continue
            chosen = {(_decision(c, first), _decision(c, second)) for c in having}
            if len(chosen) != 1 or any(_ran_once(key, value) for key, value in zip((first, second), next(iter(chosen)))):
                continue
            if all(None in pair or (pair in chosen) == (c in having) for pair, c in zip(pairs, every_run)):
                a, b = next(iter(chosen))
                return when_all([a, b])
    return None


def _decision(condition: PathCondition, key: str) -> str | None:
    for decision in condition.decisions:
        if decision[0] == key:
            return decision[1]
    return None


def _negation(runs: list[PathCondition], key: str, spelled: str) -> str | None:
    for condition in runs:
        for decision in condition.decisions:
            if decision[0] == key and decision[1] == spelled:
                return decision[2]
    return None


def _attach(diagnostic: Diagnostic, conditions: list[PathCondition], every: bool, bounded: bool,
            separating: str | None = None) -> None:
    if every:
        label = EVERY_PATH
    elif separating is not None:
        label = separating
    else:
        # The default run first: "with the default flags or when ...".
        labels = [c.label for c in sorted(conditions, key=lambda c: not c.is_default)]
        label = "when " + " or ".join(_without_when(label) for label in labels[:MAX_LISTED]) \
            if all(label.startswith("when ") for label in labels[:MAX_LISTED]) else " or ".join(labels[:MAX_LISTED])
        if len(labels) > MAX_LISTED:
            label += f" or {len(labels) - MAX_LISTED} other configurations"
    diagnostic.extra["condition"] = label
    diagnostic.extra["paths"] = [
        {"condition": condition.label, "argv": list(condition.argv), "environment": dict(condition.environment)}
        for condition in conditions
    ]
    if bounded:
        diagnostic.extra["paths_bounded"] = True

