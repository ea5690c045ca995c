"""Whether a `try` statement really handles the errors TensorFlow raises at graph build.

Inside a `try` that catches them, the model raises TensorFlow's error so that the program's own
handler runs (model/graph.py, "Continuing past an error").  Two common shapes do not handle it:
- a handler for another error (`except AttributeError:` around `tf.nn.conv2d_transpose`, for old
  TensorFlow versions): TensorFlow's ValueError goes through it;
- a handler that adds a hint and raises again (`except ValueError as err: err.args += (msg,);
  raise`, DCGAN's `linear`): the error still stops the program.
In both the error is the program's uncaught error: the analysis records it and goes on past it, as
it does everywhere else, instead of guessing what the handler leaves behind.
"""
from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

# Builtin errors TensorFlow's graph-building errors are not.  What it raises (ValueError;
# TypeError for rejected arguments), the classes above them and any class not listed here may
# catch it.
_OTHER_ERRORS = frozenset({
    "AttributeError", "ImportError", "ModuleNotFoundError", "KeyError", "IndexError", "LookupError",
    "NameError", "OSError", "IOError", "EnvironmentError", "FileNotFoundError", "StopIteration",
    "ZeroDivisionError", "ArithmeticError", "KeyboardInterrupt", "NotImplementedError", "UnicodeError",
    "AssertionError", "RuntimeError", "RecursionError", "SystemExit",
})


def handles_tf_errors(handlers: Sequence[cst.ExceptHandler]) -> bool:
    """False when no handler of the `try` can catch TensorFlow's error and keep it from stopping
    the program; True when one may (an unknown class counts as one that may)."""
    return any(_may_catch(handler.type) and not _reraises(handler) for handler in handlers)


def _may_catch(kind: cst.BaseExpression | None) -> bool:
    if kind is None:
        return True  # bare `except:`
    if isinstance(kind, (cst.Tuple, cst.List)):
        return any(_may_catch(element.value) for element in kind.elements)
    if isinstance(kind, cst.Name):
        return kind.value not in _OTHER_ERRORS
    if isinstance(kind, cst.Attribute):
        # tf.errors.NotFoundError and friends are run-time errors, never graph-building ones.
        return not (isinstance(kind.value, cst.Attribute) and kind.value.attr.value == "errors")
    return True


def _reraises(handler: cst.ExceptHandler) -> bool:
    """The handler's last statement raises the caught error again (`raise`, `raise err`)."""
    body = handler.body.body
    if not body or not isinstance(body[-1], cst.SimpleStatementLine):
        return False
    last = body[-1].body[-1] if body[-1].body else None
    if not isinstance(last, cst.Raise) or last.cause is not None:
        return False
    if last.exc is None:
        return True
    bound = handler.name.name if handler.name is not None else None
    return isinstance(last.exc, cst.Name) and isinstance(bound, cst.Name) and last.exc.value == bound.value


# unittest / tf.test.TestCase context managers that expect the body to raise.
_EXPECTING = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertRaisesOpError",
                        "assertRaisesWithPredicateMatch"})


def expects_error(item: cst.BaseExpression) -> bool:
    """`with self.assertRaises(ValueError):` (and friends): the test expects TensorFlow's error
    there; the body catches it as a handler would, and the test goes on after the block."""
    return isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) \
        and item.func.attr.value in _EXPECTING
