"""`with` over a @contextlib.contextmanager generator, in a direct-style interpreter.

Python runs the generator up to its `yield`, runs the with body, then resumes the generator after
the yield (through its `finally` blocks).  The interpreter cannot suspend a call, so the body is
run *at* the yield instead: the generator's env carries a hook that `yield` calls, and the hook
runs the rest of the `with` statement in the caller's env, module and call stack.  A `return`,
`break` or `continue` in the body leaves the generator as `generator.close()` would (its finally
blocks run, its except handlers do not) and goes on in the caller.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from scopelint.analysis.values import GeneratorContext

if TYPE_CHECKING:
    from scopelint.analysis.interpreter import Interpreter
    from scopelint.analysis.values import Env

# The name under which a generator's local env holds its yield hook (not a Python identifier).
YIELD_HOOK = " yield"


class LeaveWith(Exception):
    """A `return`/`break`/`continue` of the with body, carried out of the generator."""

    def __init__(self, control: BaseException) -> None:
        self.control = control


def exec_generator_with(interp: "Interpreter", manager: GeneratorContext, node: cst.With,
                        item: cst.WithItem, rest: list[cst.WithItem], env: "Env") -> None:
    from scopelint.analysis.interpreter import _Break, _Continue, _Return, _UserRaise

    caller_module = interp.module
    caller_frames = list(interp.frames)
    caller_returns = list(interp.maybe_returned)  # the with-body returns from the caller, not the generator
    state = {"entered": False, "certain": False}

    def at_yield(value: Any) -> None:
        if state["certain"]:
            return  # a second yield: Python raises RuntimeError("generator didn't stop"); the body ran once
        state["entered"] = True
        state["certain"] = interp.graph.certain_now
        inner_module, inner_frames, inner_returns = interp.module, interp.frames, interp.maybe_returned
        interp.module, interp.frames, interp.maybe_returned = caller_module, list(caller_frames), list(caller_returns)
        try:
            if item.asname is not None:
                interp.assign(item.asname.name, value, env)
            interp.exec_with(node, rest, env)
        except (_Return, _Break, _Continue) as control:
            raise LeaveWith(control) from None
        finally:
            interp.module, interp.frames, interp.maybe_returned = inner_module, inner_frames, inner_returns

    hook: Callable[[Any], None] = at_yield
    interp.pending_yield_hook = hook
    try:
        interp.call_user(manager.function, list(manager.args), dict(manager.kwargs), manager.node,
                         receiver=manager.receiver)
    except LeaveWith as leaving:
        raise leaving.control from None
    finally:
        interp.pending_yield_hook = None
    if not state["entered"]:
        raise _UserRaise()  # RuntimeError: generator didn't yield
