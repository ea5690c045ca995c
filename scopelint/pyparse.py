"""Python's own parser, one caller at a time.

CPython 3.11 keeps the recursion depth of its AST constructor in state shared by every thread
(python/cpython#106905): two threads that build AST objects at once, such as two `verify()` calls
in a thread pool, corrupt it, and `ast.parse` fails with "SystemError: AST constructor recursion
depth mismatch" on perfectly valid source.  Every parse to an AST in scopelint goes through here,
under one lock; an uncontended lock costs nothing next to a parse.  Formatting a traceback is a
parse too on 3.11 (`traceback` parses each line's segment to place its carets).
"""
from __future__ import annotations

import ast
import threading
import traceback
from typing import Any

_AST_CONSTRUCTOR = threading.Lock()


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> Any:
    """`ast.parse`, serialised; raises what it raises (SyntaxError, ValueError, RecursionError)."""
    with _AST_CONSTRUCTOR:
        return ast.parse(source, filename=filename, mode=mode)


def parse_without_inheriting(source: str, filename: str) -> ast.Module:
    """`compile(..., PyCF_ONLY_AST, dont_inherit=True)`: the tree without this module's
    `from __future__` flags leaking into the user's file."""
    with _AST_CONSTRUCTOR:
        tree: ast.Module = compile(source, filename, "exec", dont_inherit=True, flags=ast.PyCF_ONLY_AST)
        return tree


def literal_eval(text: str) -> Any:
    """`ast.literal_eval` of source text (it parses the text first, which is what needs the lock)."""
    return ast.literal_eval(parse(text.lstrip(" \t"), mode="eval"))


def format_exception(error: BaseException) -> str:
    """`traceback.format_exception` joined, serialised (on 3.11 it calls `ast.parse`)."""
    with _AST_CONSTRUCTOR:
        return "".join(traceback.format_exception(error))
