"""Every parse to a Python AST goes through scopelint.pyparse, under its lock.

CPython 3.11's AST constructor keeps its recursion depth in state shared by all threads
(python/cpython#106905): `verify()` calls in a thread pool (tests/test_verify.py's fixture does
this) failed in CI with "SystemError: AST constructor recursion depth mismatch" on valid fixtures.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scopelint import pyparse

PACKAGE = Path(pyparse.__file__).parent
RULES = Path(__file__).resolve().parents[1] / "rules"


def _direct_parse(node: ast.AST) -> bool:
    """ast.parse(...), ast.literal_eval(...), compile(..., flags=...PyCF_ONLY_AST...), or LibCST's
    `.evaluated_value` (a literal_eval)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "evaluated_value"
    if not isinstance(node, ast.Call):
        return False
    call = node
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "ast":
        return function.attr in ("parse", "literal_eval")
    if isinstance(function, ast.Name) and function.id == "compile":
        return any("PyCF_ONLY_AST" in ast.dump(argument) for argument in [*call.args, *call.keywords])
    return False


def test_no_module_parses_to_an_ast_around_the_lock() -> None:
    offenders = []
    for path in sorted([*PACKAGE.rglob("*.py"), *RULES.rglob("*.py")]):
        if path.name != "pyparse.py":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            offenders += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}" for node in ast.walk(tree)
                          if _direct_parse(node)]
    assert offenders == []


@pytest.mark.parametrize("call", [
    lambda: pyparse.parse("x = 1"),
    lambda: pyparse.literal_eval("'a' 'b'"),
])
def test_the_parse_runs_under_the_lock(monkeypatch: pytest.MonkeyPatch, call) -> None:
    held = []
    real_parse = ast.parse

    def recording_parse(*args, **kwargs):
        held.append(pyparse._AST_CONSTRUCTOR.locked())
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", recording_parse)
    call()
    assert held == [True]


def test_results_and_errors_are_ast_s_own() -> None:
    assert ast.dump(pyparse.parse("f(x)")) == ast.dump(ast.parse("f(x)"))
    assert pyparse.literal_eval("  ('a', 1)") == ("a", 1)
    assert isinstance(pyparse.parse_without_inheriting("y = 2", "m.py"), ast.Module)
    with pytest.raises(SyntaxError):
        pyparse.parse("def (")
    with pytest.raises(ValueError):
        pyparse.literal_eval("f(x)")
    assert not pyparse._AST_CONSTRUCTOR.locked()


def test_a_traceback_is_formatted_under_the_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    held = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *args, **kwargs: held.append(pyparse._AST_CONSTRUCTOR.locked()) or real_parse(*args, **kwargs))
    try:
        {"a": 1}["b"]  # a subscript: 3.11 parses this line's segment to place the carets
    except KeyError as error:
        text = pyparse.format_exception(error)
    assert "KeyError: 'b'" in text
    assert set(held) <= {True}
