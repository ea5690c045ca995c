"""Reusing the isolated runs of unreached functions from an earlier run of the same module.

Path exploration (paths.py) runs a module once per configuration.  At the end of every run, the
functions no entry point reached run alone with unknown arguments (Interpreter.
run_unreached_functions), and in most runs they are the same functions in the same state: the
configuration changed a branch in `main`, not the module's globals.  That phase cost a quarter of
all the runs' work on real projects.

The interpreter is deterministic: given the same state and the same answers to its configuration
reads, a phase does the same thing.  So the first run records, at the start of its phase, a
fingerprint of everything the phase can read (the interpreter's fields and every object they reach,
by value; the configuration's declarations), and what the phase produced: the events it added,
its configuration operations (reads, values learned, literals compared: replayed, so that the
exploration learns the same alternatives) and its steps.  A later run whose state at that point has
the same fingerprint, and whose configuration gives the same values to every key the recorded phase
read, gets the recorded output instead of running the phase.

Exactness rests on the fingerprint seeing all the phase can read:
- Objects are compared by value, recursively, with shared structure (cycles, aliases) spelt as
  back-references; LibCST nodes, positions, Python functions, classes and modules, which runs share
  and never change, by identity; any object the walk cannot see into, by identity too (a run's own
  object then differs from another run's, so the phase just runs: never a wrong reuse).
- A container whose contents the run forgot is marked as such.
- The main graphs are not read by the phase (it runs in graphs of its own) and are left out: the
  recorded phase must leave them, the device facts and the imported modules unchanged, or it is
  not reused.  Objects reached from the module's values (a global tensor's variable) are walked.
- The step budget: the phase is reused only when neither run could have reached the module's total.
- The imported modules' namespaces are walked apart, one by one, and the recording keeps only
  those the phase read (Env.lookup reaching them, a module's attribute, an import from it: noted
  while it runs, values.MODULE_READS), with which objects they share.  A configuration value that
  changes a module nothing unreached looks at (tensor2tensor's mlperf_log adds a log handler when
  $COMPLIANCE_FILE is set, and nearly every module imports it) no longer makes the phase run again.
  By induction the later phase reads what the recorded one read: it runs the same until it reads
  something different, and everything it can read first is in the compared part.
"""
from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from scopelint.analysis import config_values as cfg
from scopelint.analysis.positions import Positions
from scopelint.analysis import values
from scopelint.analysis.values import Env, ModuleContext

# Interpreter fields the fingerprint leaves out: outputs (extra_events, budget_stops), counters handled apart
# (steps, total_steps), the configuration (compared by its declarations and by the values read),
# the main graphs (see the module docstring), the forgotten-containers table (marked on the
# containers themselves) and the table of sites already made (a cache: Interpreter.site).
_LEFT_OUT = frozenset({"steps", "total_steps", "extra_events", "config", "graph", "graphs", "graph_stack",
                       "forgotten", "tfapi", "phase_memo", "final_graph", "call_counts", "budget_stops",
                       "_sites"})
_BY_IDENTITY = (cst.CSTNode, Positions, type, types.FunctionType, types.BuiltinFunctionType,
                types.ModuleType, types.CodeType)
_PLAIN = (str, int, float, bool, type(None), bytes, complex)


def fingerprint(interp: Any, keep: list[Any] | None = None) -> "Fingerprint":
    """The phase's inputs, spelt as flat token lists (equal lists: equal states); every object
    walked is appended to `keep`.  The namespaces of the imported modules are left to
    Fingerprint.namespace: a phase is compared on those it read."""
    from scopelint.analysis.tfapi_devices import known_facts

    roots: list[Any] = [(name, value) for name, value in interp.__dict__.items() if name not in _LEFT_OUT]
    # Which functions the phase runs: that is all it reads of the executed-functions sets (left
    # out below: the phase only adds to them, and nothing reads them after it).
    roots.append(("targets", [interp.unreached_of(value) for value in interp.module.env.vars.values()]))
    roots.append(("config", interp.config.declared, interp.config.flags, interp.config.overrides))  # FLAGS.x = v included
    roots.append(("facts", known_facts(interp)))
    namespaces = {key: module.env for key, module in interp.loaded_modules.items()
                  if module is not None and module.env is not interp.module.env}
    walker = _Walker(interp, {id(env): key for key, env in namespaces.items()}, keep if keep is not None else [])
    main_seen: dict[int, int] = {}
    tokens = walker.walk(roots, main_seen, _NOTHING_SEEN)
    return Fingerprint(tokens, namespaces, walker, main_seen)


_NOTHING_SEEN: dict[int, int] = {}


@dataclass
class Fingerprint:
    tokens: list[Any]  # everything the phase can read but the imported modules' namespaces
    namespaces: dict[str, Any]  # loaded module -> its namespace (Env)
    walker: "_Walker"
    main_seen: dict[int, int]  # objects walked for `tokens` -> their number
    walked: dict[str, tuple[list[Any], list[int]]] = field(default_factory=dict)

    def namespace(self, key: str) -> tuple[list[Any], list[int]] | None:
        """One module's namespace by value: its tokens (objects walked for `tokens` are references
        to them, other modules' namespaces are their names) and the ids of the objects walked
        first here, in order; None when no such module is loaded."""
        if key not in self.walked:
            env = self.namespaces.get(key)
            if env is None:
                return None
            local: dict[int, int] = {}
            tokens = self.walker.walk([("namespace", env.vars, env.globals_declared)], local, self.main_seen)
            self.walked[key] = (tokens, list(local))
        return self.walked[key]

    def read(self, keys: list[str]) -> tuple[list[list[Any]], list[tuple[int, int, int, int]]] | None:
        """The namespaces `keys` by value, and which objects they share with one another (walked
        apart, two namespaces holding one list and two holding equal lists spell the same)."""
        walked = [self.namespace(key) for key in keys]
        if any(w is None for w in walked):
            return None
        first: dict[int, tuple[int, int]] = {}
        shared: list[tuple[int, int, int, int]] = []
        for i, (_, ids) in enumerate(walked):  # type: ignore[misc]
            for j, obj in enumerate(ids):
                if obj in first:
                    shared.append((*first[obj], i, j))
                else:
                    first[obj] = (i, j)
        return [tokens for tokens, _ in walked], shared  # type: ignore[misc]


class _Walker:
    """Spells objects as tokens, by value (see the module docstring)."""

    def __init__(self, interp: Any, namespace_keys: dict[int, str], keep: list[Any]) -> None:
        self.interp = interp
        self.namespace_keys = namespace_keys
        self.keep = keep  # every object walked stays alive, so that ids are not reused meanwhile

    def walk(self, roots: Any, seen: dict[int, int], base: dict[int, int]) -> list[Any]:
        """Tokens of everything reachable from `roots`; `seen` numbers the objects walked here
        (after those of `base`, which are spelt as references)."""
        from scopelint.model.graph import GraphModel

        interp = self.interp
        forgotten = interp.forgotten
        config = interp.config
        namespace_keys = self.namespace_keys
        keep = self.keep
        offset = len(base)
        tokens: list[Any] = []
        stack: list[Any] = [roots]
        while stack:
            x = stack.pop()
            t = type(x)
            if t is str:
                tokens.append(x)  # every other token is a tuple (or None): a bare string is a string
                continue
            if isinstance(x, _PLAIN):
                var = getattr(x, "var", None) if isinstance(x, cfg.Tagged) else None
                tokens.append((t, x) if var is None else (t, x, var))
                continue
            if x is interp:
                tokens.append(("interp",))
                continue
            if x is config:
                tokens.append(("config",))
                continue
            key = id(x)
            if t is Env and key in namespace_keys:
                tokens.append(("namespace", namespace_keys[key]))  # compared apart, when read
                continue
            if key in base:
                tokens.append(("ref", base[key]))
                continue
            if key in seen:
                tokens.append(("ref", seen[key]))
                continue
            seen[key] = offset + len(seen)
            keep.append(x)
            if isinstance(x, _BY_IDENTITY):
                tokens.append(("id", key))
            elif t is tuple or t is list:
                tokens.append((t, len(x), key in forgotten))
                stack.extend(reversed(x))
            elif t is dict:
                keys = tuple(x)
                if all(type(k) is str for k in keys):  # a namespace or attributes: keys in one token
                    tokens.append((dict, keys, key in forgotten))
                    stack.extend(reversed(list(x.values())))
                else:
                    tokens.append((dict, len(x), key in forgotten))
                    for k, v in reversed(list(x.items())):
                        stack.append(v)
                        stack.append(k)
            elif t is set or t is frozenset:
                items = list(x)
                if all(isinstance(i, (str, int)) for i in items):
                    items.sort(key=lambda i: (type(i).__name__, i))
                tokens.append((t, len(items), key in forgotten))
                stack.extend(reversed(items))
            elif t is ModuleContext:
                tokens.append(("module", x.path))
                stack.append((x.positions, x.env))
            elif t is GraphModel:
                # A graph reached from a value (tf.Graph() at module level): the phase asks whether it
                # is one of the program's graphs.
                tokens.append(("graph", any(g is x for g in interp.graphs), key in forgotten))
                stack.append(dict(x.__dict__))
            elif isinstance(x, types.MethodType):
                tokens.append(("method", id(x.__func__)))
                stack.append(x.__self__)
            elif hasattr(x, "__dict__") or hasattr(type(x), "__slots__"):
                state = dict(getattr(x, "__dict__", {}))
                for slot in getattr(type(x), "__slots__", ()):
                    if hasattr(x, slot):
                        state[slot] = getattr(x, slot)
                if isinstance(x, (list, dict, set, tuple, str, int, float)):  # a subclass of a container
                    state["__contents__"] = list(x.items()) if isinstance(x, dict) else list(x)
                tokens.append(("obj", id(t), key in forgotten))
                stack.append(state)
            else:
                tokens.append(("id", key))
        return tokens


def _outside_state(interp: Any) -> tuple[Any, ...]:
    """What the phase must leave as it found it for its output to be all it did."""
    from scopelint.analysis.tfapi_devices import _FACTS

    graphs = tuple((id(g), len(g.records), len(g.events), g.complete,
                    tuple((id(r), r.collections, r.trainable) for r in g.records))
                   for g in interp.graphs)
    facts = _FACTS.get(interp)
    return (graphs, len(interp.graph_stack), id(interp.graph), tuple(interp.loaded_modules),
            interp.imported_lines, fingerprint_of_facts(facts))


def fingerprint_of_facts(facts: Any) -> Any:
    if facts is None:
        return None
    return (len(facts.setters), len(facts.pushed), tuple(id(s) for s in facts.setters),
            tuple(id(p) for p in facts.pushed))


class _CountsRead(dict):  # type: ignore[type-arg]
    """The interpreter's call counts while a phase is recorded: remembers the count of each function
    the phase asked about, as it was before the phase called it (the ordinal in its notes)."""

    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__(counts)
        self.first: dict[str, int] = {}

    def get(self, key: str, default: Any = None) -> Any:
        self.first.setdefault(key, dict.get(self, key, 0))
        return dict.get(self, key, default)

    def __getitem__(self, key: str) -> int:
        self.first.setdefault(key, dict.get(self, key, 0))
        return dict.__getitem__(self, key)


@dataclass
class _Recorded:
    fingerprint: list[Any]  # Fingerprint.tokens before the phase
    # The imported modules' namespaces the phase read, by value before it ran, and the objects
    # they share (Fingerprint.read); the others do not matter to it.
    namespaces_read: list[str]
    namespaces: tuple[list[list[Any]], list[tuple[int, int, int, int]]]
    counts: dict[str, int]  # call counts the phase read, before it ran
    events: list[Any]
    config_log: list[tuple[Any, ...]]
    steps: int
    tensorflow_seen: bool
    # The recording run's objects, kept alive: an identity in the fingerprint can then never be
    # the address of a later run's different object.
    alive: list[Any]

    def matches(self, current: Fingerprint) -> bool:
        return current.tokens == self.fingerprint and current.read(self.namespaces_read) == self.namespaces


# A phase of fewer steps than this costs less than its fingerprint (a few thousand objects): it
# just runs.  A run whose state matches no recording records its own, up to MAX_RECORDINGS.
MIN_REUSED_STEPS = 200
MAX_RECORDINGS = 4


@dataclass
class PhaseMemo:
    """One per explored module: the phases recorded so far, the steps of the first run's phase,
    and how often a recording was reused (for the tests and the benchmark)."""

    recordings: list[_Recorded] = field(default_factory=list)
    first_steps: int | None = None
    reused: int = 0


def run_unreached(interp: Any, module: cst.Module, env: Any, memo: PhaseMemo | None) -> None:
    """Interpreter.run_unreached_functions, or its recorded output when the state is the same."""
    from scopelint.analysis.interpreter import MAX_TOTAL_STEPS

    if memo is None:
        _run(interp, module, env, None, None, [])
        return
    if memo.first_steps is None:
        # The first run: recorded only when the module tested its configuration (paths.py runs it
        # again only then).
        before = interp.total_steps
        alive: list[Any] = []
        _run(interp, module, env, memo, fingerprint(interp, alive) if interp.config.candidates else None, alive)
        memo.first_steps = interp.total_steps - before
        return
    if memo.first_steps < MIN_REUSED_STEPS:
        _run(interp, module, env, None, None, [])
        return
    current: Fingerprint | None = None
    alive = []
    for recorded in memo.recordings:
        if interp.total_steps + recorded.steps > MAX_TOTAL_STEPS or not _same_reads(interp.config, recorded) \
                or not all(interp.call_counts.get(k, 0) == v for k, v in recorded.counts.items()):
            continue
        if current is None:
            current = fingerprint(interp, alive)
        if recorded.matches(current):
            interp.extra_events.extend(recorded.events)
            _replay(interp.config, recorded.config_log)
            interp.total_steps += recorded.steps
            interp.tensorflow_seen = recorded.tensorflow_seen
            memo.reused += 1
            return
    if len(memo.recordings) >= MAX_RECORDINGS:
        _run(interp, module, env, None, None, [])
        return
    _run(interp, module, env, memo, current if current is not None else fingerprint(interp, alive), alive)


def _run(interp: Any, module: cst.Module, env: Any, memo: PhaseMemo | None, before: Fingerprint | None,
         alive: list[Any]) -> None:
    """Run the phase, recording it into `memo` when `before` (its fingerprint) is given.  Every
    run of the phase goes through here, so that it starts at the same depth of Python's stack
    whether recorded or not (a recursion limit met inside it is met at the same point)."""
    from scopelint.analysis.interpreter import MAX_TOTAL_STEPS

    if memo is None or before is None:
        interp.run_unreached_functions(module, env)
        return
    for key in before.namespaces:
        before.namespace(key)  # as they are before the phase: which ones it reads is known after
    outside = _outside_state(interp)
    events_before = len(interp.extra_events)
    steps_before = interp.total_steps
    config = interp.config
    config.log = []
    counts = interp.call_counts = _CountsRead(interp.call_counts)
    reads_before = values.MODULE_READS
    values.MODULE_READS = read = set()
    try:
        interp.run_unreached_functions(module, env)
    finally:
        values.MODULE_READS = reads_before
        log, config.log = config.log, None
        interp.call_counts = dict(counts)
    steps = interp.total_steps - steps_before
    if _outside_state(interp) != outside or steps_before + steps > MAX_TOTAL_STEPS \
            or any(op[0] == "declare" for op in log):
        return  # it changed what comes after, or may have met the budget: not reusable
    keys = before.walker.namespace_keys
    namespaces_read = sorted(keys[i] for i in read if i in keys)
    namespaces = before.read(namespaces_read)
    assert namespaces is not None
    memo.recordings.append(_Recorded(before.tokens, namespaces_read, namespaces, counts.first,
                                     interp.extra_events[events_before:], log, steps, interp.tensorflow_seen, alive))


def _same_reads(config: cfg.ConfigState, recorded: _Recorded) -> bool:
    """Every configuration value the recorded phase read has the same value in this run."""
    for op in recorded.config_log:
        if op[0] == "value" and not _equal(config.current(op[1]), op[2]):
            return False
    return True


def _equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _replay(config: cfg.ConfigState, log: list[tuple[Any, ...]]) -> None:
    for op in log:
        if op[0] == "value":
            config.value(op[1])
        elif op[0] == "learn":
            config.learn(op[1], op[2])
        elif op[0] == "saw":
            config._saw(op[1], op[2])
        elif op[0] == "set_flag":
            config.overrides[op[1]] = op[2]
