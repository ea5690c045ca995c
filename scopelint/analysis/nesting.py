"""What LibCST is allowed to parse: Python's own parser first, and a bound on nesting.

LibCST's native parser recurses on the C stack: an expression nested several thousand levels deep
(`1 + 1 + ... + 1` about 8,000 long, `a and a and ...` about 7,000 long, measured with libcst 1.9
and an 8 MB stack) overflows it, and the process dies with SIGSEGV: no exception to catch, and
the whole run (or a worker of it) is gone.  On the way there it also slows down superlinearly (a
100,000-term sum took more than 5 minutes).  So every text is first parsed by Python's own
parser (`compile(..., PyCF_ONLY_AST)`, a fraction of LibCST's time), which

- gives Python's own syntax error messages ("Missing parentheses in call to 'print'");
- refuses itself to nest deeper than about 3,000 levels (RecursionError), 200 brackets and 100
  indentation levels;

and then the depth LibCST will build is estimated from Python's tree, where the one construct
LibCST nests and Python keeps flat is a chain of `and`/`or` (one BoolOp in Python, a left-leaning
chain of BooleanOperation nodes in LibCST).  Past MAX_NESTING the text is refused with
NestingTooDeep, well under the depths that crash.
"""
from __future__ import annotations

import ast
import re
import warnings

from scopelint import pyparse

# Python's own parser stops at about this depth; LibCST crashed only past twice as deep.
MAX_NESTING = 3_000
# With fewer `and`/`or` words than this in the whole text, LibCST nests at most this much deeper
# than Python's parser allowed (under 3,000 + 2,000, still far from a crash): the tree need not be
# walked (the walk costs about 40% of Python's parse).
_FEW_BOOLEAN_WORDS = 2_000
_BOOLEAN_WORD = re.compile(r"\b(?:and|or)\b")


class NestingTooDeep(RecursionError):
    """The text nests deeper than LibCST can safely parse (a RecursionError, so that callers that
    already treat RecursionError as "cannot parse" need no change)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def python_tree(source: str, path: str = "<unknown>") -> ast.Module:
    """Python's parse of `source`, after checking that LibCST may parse it too.

    Raises SyntaxError (Python's own, with its message and position) for text Python rejects, and
    NestingTooDeep for text nested too deeply for Python or for LibCST."""
    try:
        with warnings.catch_warnings():  # invalid escape sequences and the like: not ours to report
            warnings.simplefilter("ignore")
            tree = pyparse.parse_without_inheriting(source, path)
    except (RecursionError, MemoryError):
        raise NestingTooDeep("the file is nested too deeply for Python's own parser") from None
    if len(_BOOLEAN_WORD.findall(source)) < _FEW_BOOLEAN_WORDS:
        return tree
    depth, line = estimated_cst_depth(tree)
    if depth > MAX_NESTING:
        raise NestingTooDeep(
            f"an expression nests {depth} levels deep (line {line}); scopelint parses at most {MAX_NESTING}",
            line,
        )
    return tree


def estimated_cst_depth(tree: ast.AST) -> tuple[int, int]:
    """The deepest nesting LibCST would build for `tree`, and the line where it is reached."""
    deepest, deepest_line = 0, 0
    pending: list[tuple[ast.AST, int, int]] = [(tree, 0, 0)]
    while pending:  # iterative: the tree may be deeper than Python's recursion limit allows to walk
        node, depth, line = pending.pop()
        depth += len(node.values) - 1 if isinstance(node, ast.BoolOp) else 1
        line = getattr(node, "lineno", line)
        if depth > deepest:
            deepest, deepest_line = depth, line
        pending.extend((child, depth, line) for child in ast.iter_child_nodes(node))
    return deepest, deepest_line
