"""The fast call positions agree with LibCST's PositionProvider, node for node."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from scopelint.analysis.positions import Positions, walk

TRICKY = '''\
import tensorflow.compat.v1 as tf


@tf.function(autograph=make(1))
@decorate
def f(x=g(h()), *args: ann(), **kwargs):
    return a(b(c), d=e()) if check(x) else other(x)(y)


class K(base(1), metaclass=meta()):
    y = [z(i) for i in range(3) if keep(i)]
    w = {k(): v() for k in ks()}


s = f"{fmt(1)} and {fmt(2)!r:>{width()}}"
t = lambda q=dflt(): body(q)
nom = "é" + name("ü")
u = x[idx()](call())[sl(1):sl(2)]
async def co():
    await aw(1)
    async with cm() as c:
        pass
    async for item in stream():
        while keep(item):
            item = step(item)
for row in rows():  # a loop's site is a path decision's name (loop_counts.py)
    while row:
        row = row[1:]
'''


def assert_same_positions(source: str) -> None:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return  # fixtures of unparsable code have no positions to compare
    reference = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    fast = Positions(module, source)
    fast._full = {}  # forbid the fallback: every call must be matched by the fast path
    checked = 0
    for node in walk(module, skip=(cst.Import, cst.ImportFrom)):
        if isinstance(node, (cst.Call, cst.FunctionDef, cst.Attribute, cst.Param, cst.For, cst.While)):
            got = fast[node]
            want = reference[node]
            if isinstance(node, (cst.For, cst.While)):
                assert got.start == want.start, cst.Module([]).code_for_node(node)
                continue
            if isinstance(node, cst.FunctionDef):
                assert got.start.line >= want.start.line  # the def line, after any decorators
                for decorator in node.decorators:  # the call site of a user decorator, a Name too
                    mark, want_mark = fast[decorator.decorator], reference[decorator.decorator]
                    assert (mark.start, mark.end) == (want_mark.start, want_mark.end)
                continue
            if isinstance(node, cst.Param):
                # ast's span starts after a `*` and stops before a default value
                assert got.start.line == want.start.line and got.start.column - want.start.column in (0, 1, 2)
                continue
            assert (got.start, got.end) == (want.start, want.end), cst.Module([]).code_for_node(node)
            checked += 1
    expected = sum(1 for node in walk(module, skip=(cst.Import, cst.ImportFrom))
                   if isinstance(node, (cst.Call, cst.Attribute)))
    assert checked == expected


def test_tricky_source_order() -> None:
    assert_same_positions(TRICKY)


FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.py"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixture_positions(path: Path) -> None:
    assert_same_positions(path.read_text())


def test_walk_visits_what_a_visitor_visits_in_the_same_order() -> None:
    module = cst.parse_module(TRICKY)

    class Everything(cst.CSTVisitor):
        def __init__(self) -> None:
            self.seen: list[int] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.seen.append(id(node))
            return True

    everything = Everything()
    module.visit(everything)
    walked = [id(node) for node in walk(module)]
    # walk skips whitespace and punctuation; what it visits comes in the visitor's (source) order
    assert set(walked) <= set(everything.seen)
    order = {node_id: index for index, node_id in enumerate(everything.seen)}
    assert [order[node_id] for node_id in walked] == sorted(order[node_id] for node_id in walked)
    names = [node for node in walk(module) if isinstance(node, cst.Name)]
    assert len(names) == sum(1 for node_id in everything.seen if isinstance(_node(module, node_id), cst.Name))


def _node(module: cst.Module, node_id: int) -> cst.CSTNode | None:
    for node in walk(module):
        if id(node) == node_id:
            return node
    return None
