"""Loops whose length the analysis does not know, as a choice of the path explorer.

A `for` over a value the analysis cannot list (`range(config.num_hidden_layers)` read from a JSON
file, `for shape in self.shapes`), or a `while` whose condition it cannot decide, runs its body once, speculatively: nothing it creates is
certain.  Reuse bugs live in the *second* iteration ("Variable layer/w already exists" when the
body builds under one scope name each time), so a loop whose body created variables or events is
also a path of its own: a later run of the program runs that body exactly twice, for certain, and
its findings say so ("when the loop at modeling.py:826 runs twice").  One loop is changed per run
(paths.py), so the number of runs grows with the loops, not with their combinations.

A loop is a configuration value (config_values.ConfigVar of kind "loop", default once) so that the
explorer, the conditions and replay treat it like a flag; it never appears on a command line.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from scopelint.analysis import config_values as cfg
from scopelint.conditions import LOOP_KEY_PREFIX
from scopelint.model.unknown import UNKNOWN

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter

KIND = "loop"
ONCE = 1  # the default: the body runs once, speculatively
TWICE = 2  # the run where it runs twice, for certain


def key_of(interp: "Interpreter", node: cst.For | cst.While) -> str:
    """Unique within the runs of one module: every run interprets the same parsed nodes."""
    assert interp.module is not None
    return f"{LOOP_KEY_PREFIX}{interp.module.path}:{id(node)}"


def runs_twice(interp: "Interpreter", node: cst.For | cst.While) -> bool:
    """Whether this run chose to run the body of this loop twice, for certain."""
    if not interp.config.assignment or interp.graph.speculative:
        return False
    key = key_of(interp, node)
    if interp.config.assignment.get(key) != TWICE:
        return False
    # Learned in this run too: the run's condition is described from what it learned.
    interp.config.learn(_declare(interp, node, key), [TWICE])
    return True


def learn(interp: "Interpreter", node: cst.For | cst.While, created: bool) -> None:
    """After the speculative run of a loop's body: worth a run of its own when the body created
    something in a context that is itself certain."""
    if not created or interp.graph.speculative or not interp.explores_loops:
        return
    key = key_of(interp, node)
    if key in interp.config.assignment:
        return
    var = _declare(interp, node, key)
    interp.config.learn(var, [TWICE])


def _declare(interp: "Interpreter", node: cst.For | cst.While, key: str) -> cfg.ConfigVar:
    declared = interp.config.declared.get(key)
    if declared is not None:
        return declared
    site = interp.site(node)
    return interp.config.declare(cfg.ConfigVar(key, f"the loop at {site.path}:{site.line}", KIND, ONCE, "int"))


def two_items(iterable: cst.BaseExpression, evaluate: Callable[[cst.BaseExpression], Any]) -> list[Any]:
    """What the loop variable is in the first two iterations, as far as the loop's spelling says:
    `range(n)` gives 0 and 1, `range(a, n, s)` a and a + s, `enumerate(xs)` (0, ?) and (1, ?);
    anything else is unknown in both."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) \
            and all(arg.keyword is None and not arg.star for arg in iterable.args):
        name = iterable.func.value
        if name == "range" and 1 <= len(iterable.args) <= 3:
            def bound(index: int, default: int) -> Any:
                # The iterable was evaluated already: evaluating a bound again may only read it,
                # so a call there leaves the items unknown.
                if index >= len(iterable.args) or len(iterable.args) == 1:
                    return default
                expression = iterable.args[index].value
                return cfg.plain(evaluate(expression)) if _reads_only(expression) else UNKNOWN

            start, step = bound(0, 0), bound(2, 1)
            if type(start) is int and type(step) is int and step != 0:
                return [start, start + step]
        elif name == "enumerate" and len(iterable.args) == 1:
            return [(0, UNKNOWN), (1, UNKNOWN)]
    return [UNKNOWN, UNKNOWN]


def _reads_only(expression: cst.BaseExpression) -> bool:
    """A literal, a name or an attribute (`1`, `start`, `self.first`, `-1`): no call runs again."""
    if isinstance(expression, cst.UnaryOperation):
        return _reads_only(expression.expression)
    if isinstance(expression, cst.Attribute):
        return _reads_only(expression.value)
    return isinstance(expression, (cst.Integer, cst.Name))
