"""Path exploration: run the program once per configuration a user can choose.

The first run uses every default (`python main.py`).  Each run records which configuration values
the program tested and which other values would have decided differently (config_values.py); the
next runs change one, then two of them, breadth first, up to MAX_PATHS runs per module.  Every run
starts from nothing (a new interpreter, graph, variable store and heap), so the whole state is
forked and decisions on the same value agree within a run.  What a run cannot decide (a value the
analysis does not know) is still run speculatively inside that run and reports nothing.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from scopelint.analysis import config_values as cfg
from scopelint import conditions
from scopelint.analysis import interpreter, loop_counts, module_files, project, replay
from scopelint.trace import PathCondition, Trace

MAX_PATHS = 16  # runs per analysed module, the default run included
MAX_DEVIATIONS = 2  # configuration values changed from their default in one run
# All runs of a module together: at most this many times the default run's work, and at least
# MIN_PATH_STEPS: a cheap default run (a `--model` choice whose default builds a small model) must
# not keep the other choices, each a real command line, from being run at all.
MAX_PATH_WORK_FACTOR = 8
MIN_PATH_STEPS = 40_000
MAX_PATH_STEPS = 1_200_000

DEFAULT_LABEL = "with the default flags"
ARGV_FILLER = "0"


def analyze(source: str, path: str) -> Trace:
    """The default run's trace, with the other runs in `other_paths`."""
    parsed = interpreter.parse_module(source, path)
    return explore(parsed, path)


def explore(parsed: project.Parsed, path: str) -> Trace:
    with module_files.lookups_memoized():  # the runs import the same modules: look each up once
        return _explore(parsed, path)


def _explore(parsed: project.Parsed, path: str) -> Trace:
    default_config = cfg.ConfigState()
    memo = replay.PhaseMemo()  # the runs' unreached-functions phase, recorded once, reused when it can be
    first = interpreter.interpret_parsed(parsed, path, default_config, memo)
    # Every run has a condition, even a program that reads no configuration: its one run is every path.
    first.condition = replace(describe(default_config), stopped=first.stopped_by_program)
    if not default_config.candidates:
        return first  # the program never tested its configuration: one path is all there is
    budget = work_budget(first.steps)
    spent = first.steps
    queue = [dict(child) for child in _children({}, default_config)]
    # Runs where one loop of unknown length runs twice (loop_counts.py) come after every
    # command-line choice: a user can run those; the loops stand for what some input does.
    loop_queue = _loop_children({}, default_config)
    seen = {_frozen({})} | {_frozen(child) for child in queue + loop_queue}
    while queue or loop_queue:
        if len(first.other_paths) + 1 >= MAX_PATHS or spent >= budget:
            first.paths_merged = True
            break
        assignment = queue.pop(0) if queue else loop_queue.pop(0)
        config = cfg.ConfigState(assignment=assignment)
        trace = interpreter.interpret_parsed(parsed, path, config, memo)
        spent += trace.steps
        trace.condition = replace(describe(config), stopped=trace.stopped_by_program)
        first.other_paths.append(trace)
        for target, children in ((queue, _children(assignment, config)), (loop_queue, _loop_children(assignment, config))):
            for child in children:
                key = _frozen(child)
                if key not in seen:
                    seen.add(key)
                    target.append(child)
    return first


def work_budget(default_run_steps: int) -> int:
    """The steps all runs of a module may take together (the default run's included)."""
    return min(MAX_PATH_STEPS, max(default_run_steps * MAX_PATH_WORK_FACTOR, MIN_PATH_STEPS))


def _children(assignment: dict[str, Any], config: cfg.ConfigState) -> list[dict[str, Any]]:
    """Assignments one deviation away from this run's, for every value it tested."""
    if len(assignment) >= MAX_DEVIATIONS:
        return []
    if _changes_a_loop(assignment):
        return []  # a run that changes a loop changes nothing else
    children = []
    for key, values in config.candidates.items():
        if key in assignment or key not in config.declared or conditions.is_loop(key):
            continue
        var = config.declared[key]
        current = config.current(var)
        for value in values:
            if _equal(value, current):
                continue
            if isinstance(value, cfg.Other):
                value = cfg.Other(tuple(config.compared.get(key, ())))
            children.append({**assignment, key: value})
    return children


def _loop_children(assignment: dict[str, Any], config: cfg.ConfigState) -> list[dict[str, Any]]:
    """This run's assignment with one of the loops it learned running twice (one loop per run)."""
    if _changes_a_loop(assignment):
        return []
    return [{**assignment, key: value} for key, values in config.candidates.items()
            if conditions.is_loop(key) and key in config.declared for value in values]


def _changes_a_loop(assignment: dict[str, Any]) -> bool:
    return any(conditions.is_loop(key) for key in assignment)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, cfg.Other) or isinstance(b, cfg.Other):
        return isinstance(a, cfg.Other) and isinstance(b, cfg.Other)
    return type(a) is type(b) and a == b


def _frozen(assignment: dict[str, Any]) -> frozenset[tuple[str, Any]]:
    return frozenset((key, repr(value)) for key, value in assignment.items())


# ---------------------------------------------------------------------------------------------
# Describing a run


def describe(config: cfg.ConfigState) -> PathCondition:
    """The condition of a run: the tested values that differ from their defaults."""
    parts: list[str] = []
    argv: list[str] = []
    positional: dict[int, str] = {}
    environment: list[tuple[str, str]] = []
    decisions: list[tuple[str, str]] = []
    for key in config.candidates:
        var = config.declared.get(key)
        if var is None:
            continue
        value = config.current(var)
        if var.kind == loop_counts.KIND:
            twice = value == loop_counts.TWICE
            spelled = var.spelling + (conditions.LOOP_TWICE if twice else conditions.LOOP_ONCE)
            decisions.append((key, spelled, None))
            if twice:
                parts.append(spelled)
            continue  # no command line chooses it
        spelled = _spell(var, value, config.compared.get(key, []))
        at_default = var.default is not cfg.MISSING and _equal(value, var.default)
        # A finding told apart by a value the user did not choose: say that it is the default.
        decisions.append((key, f"{spelled} (the default)" if at_default else spelled,
                          _negation(var, value, config.compared.get(key, []))))
        if at_default:
            continue
        parts.append(spelled)
        if var.kind == "argv":
            positional[int(key.split(":")[1])] = _command_value(value)
        elif var.kind == "env":
            environment.append((key.split(":", 1)[1], _command_value(value)))
        else:
            argv.extend(_command_line(var, value))
    # Positional arguments before options; the ones read but never tested get a filler that
    # parses as a number and a string alike, so that sys.argv[2] is there when the run reads it.
    read = [int(key.split(":")[1]) for key in config.declared if key.startswith("argv:")]
    if read:
        argv = [positional.get(i, ARGV_FILLER) for i in range(1, max(read) + 1)] + argv
    label = DEFAULT_LABEL if not parts else conditions.when_all(parts)
    return PathCondition(label, not parts, tuple(argv), tuple(environment), tuple(decisions))


def _stands_for_others(var: cfg.ConfigVar, value: Any, compared: list[Any]) -> list[str]:
    """The string literals the program compared a flag with, when this run's value is none of
    them (nor a choice): the run then stands for every value but those; else []."""
    literals = [v for v in compared if v is not None and not isinstance(v, bool)]
    if var.kind in ("flag", "arg") and isinstance(value, str) and not var.choices \
            and literals and all(isinstance(v, str) and v != value for v in literals):
        return literals
    return []


def _spell(var: cfg.ConfigVar, value: Any, compared: list[Any]) -> str:
    if isinstance(value, cfg.Other):
        others = [v for v in compared if v is not None] or list(value.excluded)
        subject = _subject(var) if var.kind != "env" else var.spelling
        if not others:
            return f"{subject} is set" if var.kind != "argv" else f"{subject} is given"
        return f"{subject} != {repr(others[0])}" if len(others) == 1 else \
            f"{subject} not in ({', '.join(map(repr, others))})"
    literals = _stands_for_others(var, value, compared)
    if literals:
        # A value the program never compared stands for every value but the compared ones:
        # "--job_name=''" is "FLAGS.job_name != 'ps'" to the program.
        return _spell(var, cfg.Other(tuple(literals)), literals)
    if var.kind == "argv":
        return f"{var.spelling} == {repr(value)}"
    if var.kind == "env":
        return f"${var.key.split(':', 1)[1]}={value}" if value is not None else f"${var.key.split(':', 1)[1]} unset"
    if var.value_type == "bool" and isinstance(value, bool):
        if var.kind == "arg":
            # store_true / store_false: differing from the default is giving the option
            return var.spelling if value != var.default else f"without {var.spelling}"
        if value:
            return var.spelling
        return f"--no{var.spelling[2:]}" if var.negatable else f"without {var.spelling}"
    if value is None and var.kind in ("flag", "arg"):
        return f"without {var.spelling}"  # a None default is the option not given
    return f"{var.spelling}={value}"


def _subject(var: cfg.ConfigVar) -> str:
    """How the program reads the value: FLAGS.x, args.x, $X; a click option has no namespace, so
    its command-line spelling ("--model != 'b'")."""
    source, name = var.key.split(":", 1)
    if source == "click":
        return var.spelling
    return {"flag": f"FLAGS.{name}", "arg": f"args.{name}", "env": f"${name}"}.get(var.kind, var.spelling)


def _negation(var: cfg.ConfigVar, value: Any, compared: list[Any]) -> str | None:
    """The condition "any value but this one" ("sys.argv[1] != 'ps'")."""
    if isinstance(value, cfg.Other) or _stands_for_others(var, value, compared):
        return None  # it stands for many values already: "any other" than those is not one value
    if var.value_type == "bool" and isinstance(value, bool):
        return _spell(var, not value, compared)
    return f"{_subject(var)} != {repr(value)}"


def _command_value(value: Any) -> str:
    if isinstance(value, cfg.Other):
        return cfg.OTHER_COMMAND_LINE
    return "" if value is None else str(value)


def _command_line(var: cfg.ConfigVar, value: Any) -> list[str]:
    if var.value_type == "bool" and isinstance(value, bool):
        if var.negatable:
            return [var.spelling if value else f"--no{var.spelling[2:]}"]
        return [var.spelling] if value != bool(var.default) else []
    if var.kind == "arg" and not var.spelling.startswith("-"):
        return [_command_value(value)]
    return [f"{var.spelling}={_command_value(value)}"]


def analyze_for_args(source: str, path: str, args: list[str], environment: dict[str, str] | None = None) -> Trace | None:
    """The run `python <path> <args>` makes (with `environment`), when the arguments set any of
    the program's configuration values; None when they set none (the default run is that run).
    The default run declares the values; a run with the values found so far may declare more
    (a flag defined in a module only one of its branches imports), so this repeats until stable."""
    parsed = interpreter.parse_module(source, path)
    memo = replay.PhaseMemo()
    with module_files.lookups_memoized():
        config = cfg.ConfigState()
        trace = interpreter.interpret_parsed(parsed, path, config, memo)
        assignment: dict[str, Any] = {}
        for _ in range(MAX_ARGUMENT_PASSES):
            found = cfg.assignment_from_args(config.declared.values(), args, environment)
            if found == assignment:
                break
            assignment = found
            config = cfg.ConfigState(assignment=dict(assignment))
            trace = interpreter.interpret_parsed(parsed, path, config, memo)
    if not assignment:
        return None
    trace.condition = replace(describe(config), stopped=trace.stopped_by_program)
    return trace


MAX_ARGUMENT_PASSES = 3
