"""The pure model of TF1 scopes and the variable store, tested directly (no LibCST, no TensorFlow).

Expected values are TensorFlow's, as recorded in ../shared/tf1-semantics.md; the differential
tests re-check them against a real run.
"""
from __future__ import annotations

import pytest

from scopelint.model.graph import GraphModel, Initializer, ModelRaise, Where
from scopelint.model.names import Namer
from scopelint.model.partitions import FixedSizePartitioner, part_shapes
from scopelint.model.scopes import Reuse, effective_reuse
from scopelint.trace import Related, Site

HERE = Where(Site("m.py", 1, 1, 1, 2))


def create(graph: GraphModel, name: str, shape: tuple = (2,)):
    return graph.get_variable(name, HERE, shape=shape, shape_given=True)


def test_unique_name_is_case_insensitive_and_reports_the_clash() -> None:
    namer = Namer()
    assert namer.unique_name("V").name == "V"
    clash = namer.unique_name("v")
    assert clash.name == "v_1" and clash.case_clash_with == "V"
    namer.unique_name("a_1")
    assert namer.unique_name("a").name == "a"
    assert namer.unique_name("a").name == "a_2"  # a_1 is taken by an explicit name


@pytest.mark.parametrize(
    ("parent", "requested", "expected"),
    [
        (Reuse.FALSE, Reuse.FALSE, Reuse.FALSE),
        (Reuse.TRUE, Reuse.FALSE, Reuse.TRUE),  # reuse=False cannot undo an outer True
        (Reuse.TRUE, Reuse.AUTO, Reuse.AUTO),
        (Reuse.AUTO, Reuse.TRUE, Reuse.TRUE),
        (Reuse.AUTO, Reuse.FALSE, Reuse.AUTO),
        (Reuse.TRUE, Reuse.UNKNOWN, Reuse.UNKNOWN),
    ],
)
def test_effective_reuse_follows_table_2_2(parent: Reuse, requested: Reuse, expected: Reuse) -> None:
    assert effective_reuse(parent, requested) is expected


def test_get_variable_ignores_name_scope_and_raises_already_exists() -> None:
    graph = GraphModel("m.py")
    ns = graph.enter_name_scope("ns", HERE)
    frame = graph.enter_variable_scope("vs", HERE)
    record = create(graph, "w")
    assert record.name == "vs/w" and record.store_key == "vs/w" and record.certain
    # Where the program catches errors, TensorFlow's error is raised.
    graph.catching += 1
    with pytest.raises(ModelRaise) as raised:
        create(graph, "w")
    graph.catching -= 1
    assert raised.value.event.kind == "already_exists"
    assert raised.value.event.message.startswith("Variable vs/w already exists, disallowed.")
    graph.exit_variable_scope(frame)
    graph.exit_name_scope(ns)


def test_after_an_error_the_graph_goes_on_as_after_the_fix() -> None:
    """Continuing past an error: a duplicate returns the existing variable, a missing one is
    created, a mismatch returns what exists; each error is one event, and the next one is seen."""
    graph = GraphModel("m.py")

    def at(line: int, name: str, shape: tuple = (2,), call: int | None = None):
        chain = (Related(Site("m.py", call, 1, call, 2), "call"),) if call else ()
        return graph.get_variable(name, Where(Site("m.py", line, 1, line, 2), chain), shape=shape, shape_given=True)

    first = at(1, "w")
    assert not first.after_error
    assert at(2, "w") is first  # already exists: the variable that exists
    assert at(3, "w", (3,)) is first  # a second duplicate, reported too
    frame = graph.enter_variable_scope("", HERE, reuse=Reuse.TRUE)
    missing = at(4, "m")  # does not exist: created, as the first call would have
    assert missing is not None and missing.name == "m" and missing.certain and missing.after_error
    assert at(5, "m") is missing  # now it exists: no second error
    assert at(6, "w", (5,)) is first  # shape mismatch: the variable that exists
    graph.exit_variable_scope(frame)
    frame = graph.enter_variable_scope("", Where(Site("m.py", 19, 1, 19, 2)), reuse=Reuse.TRUE)
    at(7, "a", call=20)
    at(8, "b", call=20)  # the same call fails the same way: the same mistake, not reported again
    graph.exit_variable_scope(frame)
    frame = graph.enter_variable_scope("", Where(Site("m.py", 19, 3, 19, 4)), reuse=Reuse.TRUE)
    at(9, "c", call=21)  # another reuse setting: another mistake
    at(12, "d", call=22)  # another call failed by the same reuse setting: the same mistake
    graph.exit_variable_scope(frame)
    assert at(10, "a") is graph.records[2]  # created by a recovery: this is its real creation
    at(11, "a")  # ... and this one a duplicate
    assert [(e.kind, e.site.line, e.certain) for e in graph.events] == [
        ("already_exists", 2, True), ("already_exists", 3, True), ("does_not_exist", 4, True),
        ("shared_mismatch", 6, True), ("does_not_exist", 7, True), ("does_not_exist", 8, False),
        ("does_not_exist", 9, True), ("does_not_exist", 12, False), ("already_exists", 11, True)]
    assert graph.events[5].data["same_mistake"] and graph.events[7].data["same_mistake"]
    assert graph.events[1].data["after_error"]
    assert [r.name for r in graph.records] == ["w", "m", "a", "b", "c", "d"]


def test_reentered_string_scope_shares_var_scope_but_not_name_scope() -> None:
    graph = GraphModel("m.py")
    first = graph.enter_variable_scope("s", HERE)
    graph.exit_variable_scope(first)
    second = graph.enter_variable_scope("s", HERE, reuse=Reuse.TRUE)
    assert second.scope.name == "s" and second.scope.original_name_scope == "s_1/"
    graph.exit_variable_scope(second)


def test_default_names_reset_when_the_parent_string_scope_exits() -> None:
    graph = GraphModel("m.py")
    names = []
    for _ in range(2):
        outer = graph.enter_variable_scope("outer", HERE)
        for _ in range(2):
            inner = graph.enter_variable_scope(None, HERE, default_name="dense")
            names.append(inner.scope.name)
            graph.exit_variable_scope(inner)
        graph.exit_variable_scope(outer)
    assert names == ["outer/dense", "outer/dense_1", "outer/dense", "outer/dense_1"]
    top = [graph.enter_variable_scope(None, HERE, default_name="blk") for _ in range(1)][0]
    graph.exit_variable_scope(top)
    again = graph.enter_variable_scope(None, HERE, default_name="blk")
    assert again.scope.name == "blk_1"  # top-level default names are never reset


def test_object_reentry_is_absolute_and_keeps_the_captured_reuse() -> None:
    graph = GraphModel("m.py")
    captured = graph.enter_variable_scope("outer", HERE)
    create(graph, "v")
    graph.exit_variable_scope(captured)
    graph.reuse_variables(captured.scope, HERE)  # a captured object, outside its block: no TFS105
    elsewhere = graph.enter_variable_scope("x", HERE)
    again = graph.enter_variable_scope(captured.scope, HERE)
    assert again.scope.name == "outer" and again.scope.reuse is Reuse.TRUE
    assert create(graph, "v").name == "outer/v"  # reused, not created
    graph.exit_variable_scope(again)
    graph.exit_variable_scope(elsewhere)
    assert not graph.events


def test_root_reuse_variables_is_sticky_reuse() -> None:
    graph = GraphModel("m.py")
    graph.reuse_variables(graph.root, HERE)
    assert [event.kind for event in graph.events] == ["sticky_reuse"]
    frame = graph.enter_variable_scope("later", HERE)
    create(graph, "new")
    graph.exit_variable_scope(frame)
    failure = graph.events[-1]
    assert failure.kind == "does_not_exist" and failure.certain
    # The failure names where its reuse came from: the reuse_variables() call (TFS105 reads it).
    assert failure.data["reuse_origin"].site == graph.events[0].site
    assert failure.data["creation"] == "get_variable"


def test_does_not_exist_is_unproven_when_the_graph_is_incomplete() -> None:
    graph = GraphModel("m.py")
    graph.complete = False
    frame = graph.enter_variable_scope("s", HERE, reuse=Reuse.TRUE)
    assert graph.get_variable("w", HERE, shape=(2,), shape_given=True) is not None
    assert [(e.kind, e.certain) for e in graph.events] == [("does_not_exist", False)]
    graph.exit_variable_scope(frame)


def test_speculative_creation_is_uncertain_and_proves_no_error() -> None:
    graph = GraphModel("m.py")
    graph.speculative += 1
    maybe = create(graph, "w")
    graph.speculative -= 1
    assert not maybe.certain
    create(graph, "w")  # may or may not exist: no certain error, no raise
    assert all(not event.certain for event in graph.events)


def test_shape_and_dtype_mismatch_on_reuse() -> None:
    graph = GraphModel("m.py")
    create(graph, "w", (1,))
    frame = graph.enter_variable_scope("", HERE, reuse=Reuse.TRUE)
    create(graph, "w", (2,))
    assert graph.events[-1].message == "Trying to share variable w, but specified shape (2,) and found shape (1,)."
    graph.exit_variable_scope(frame)


def test_shape_and_dtype_mismatch_on_reuse_raises_where_caught() -> None:
    graph = GraphModel("m.py")
    create(graph, "w", (1,))
    frame = graph.enter_variable_scope("", HERE, reuse=Reuse.TRUE)
    graph.catching += 1
    with pytest.raises(ModelRaise) as raised:
        create(graph, "w", (2,))
    assert raised.value.event.kind == "shared_mismatch"
    graph.exit_variable_scope(frame)


def test_invalid_arguments() -> None:
    graph = GraphModel("m.py")
    frame = graph.enter_variable_scope(None, HERE)
    assert graph.events[-1].message == "If default_name is None then name_or_scope is required"
    assert frame.scope.name == "?"  # the name the fix supplies is unknown
    graph.exit_variable_scope(frame)
    record = graph.get_variable("c", HERE, shape=(2,), shape_given=True, initializer=Initializer(False, (3,)))
    assert graph.events[-1].message == "If initializer is a constant, do not specify shape."
    assert record.shape == (3,)  # the constant's own shape
    record = graph.get_variable("n", HERE)
    assert "did not get an initializer" in graph.events[-1].message and graph.events[-1].certain
    assert record.name == "n" and record.shape is None
    frame = graph.enter_variable_scope(None, HERE, default_name="blk", reuse=Reuse.AUTO)
    assert graph.events[-1].message == "reuse=True cannot be used without a name_or_scope"
    assert frame.scope.name == "blk" and frame.scope.reuse is Reuse.AUTO
    graph.exit_variable_scope(frame)


@pytest.mark.parametrize("needs_arguments, shape, shape_given, reported", [
    (True, None, False, [True]),  # get_variable("b", initializer=tf.zeros_initializer())
    (True, (None, 2), True, [False]),  # not fully defined, or a dimension the analysis did not compute
    (True, (2,), True, []),
    (True, None, True, []),  # a shape the analysis does not know: TensorFlow may accept it
    (False, None, False, []),  # a no-argument lambda
    (None, None, False, []),  # a callable the analysis does not know
])
def test_initializer_that_needs_the_shape(needs_arguments: bool | None, shape: tuple | None, shape_given: bool,
                                          reported: list[bool]) -> None:
    graph = GraphModel("m.py")
    record = graph.get_variable("b", HERE, shape=shape, shape_given=shape_given,
                                initializer=Initializer(True, needs_arguments=needs_arguments))
    invalid = [e for e in graph.events if e.message.startswith("The initializer passed is not valid")]
    assert [e.certain for e in invalid] == reported
    assert record is not None and record.name == "b"


def test_creation_checks_never_run_on_lookups() -> None:
    """TensorFlow checks shape/initializer only when it creates: never under reuse=True, never for
    an AUTO_REUSE call that may find the variable, never on a name with an unknown part."""
    graph = GraphModel("m.py")
    graph.complete = False  # something unmodelled may have created variables
    frame = graph.enter_variable_scope("s", HERE, reuse=Reuse.TRUE)
    graph.get_variable("kernel", HERE)
    graph.exit_variable_scope(frame)
    frame = graph.enter_variable_scope("a", HERE, reuse=Reuse.AUTO)
    graph.get_variable("kernel", HERE)
    graph.exit_variable_scope(frame)
    frame = graph.enter_variable_scope("?", HERE)
    graph.get_variable("kernel", HERE)
    graph.exit_variable_scope(frame)
    assert not [e for e in graph.events if e.certain], graph.events
    # Complete graph, AUTO_REUSE, proven absent: TensorFlow creates, and the check holds.
    graph = GraphModel("m.py")
    frame = graph.enter_variable_scope("a", HERE, reuse=Reuse.AUTO)
    graph.get_variable("kernel", HERE)
    graph.exit_variable_scope(frame)
    assert [(e.kind, e.certain) for e in graph.events] == [("invalid_arguments", True)]


def test_partitioned_parts_and_trailing_slash_keys() -> None:
    assert part_shapes((10, 4), [3, 1]) == [(4, 4), (3, 4), (3, 4)]
    graph = GraphModel("m.py")
    frame = graph.enter_variable_scope("emb", HERE)
    entry = graph.get_variable("table", HERE, shape=(10, 4), shape_given=True,
                               partitioner=FixedSizePartitioner(3))
    graph.exit_variable_scope(frame)
    assert [part.name for part in entry.parts] == ["emb/table/part_0", "emb/table/part_1", "emb/table/part_2"]
    slot = graph.enter_variable_scope(None, HERE, default_name="w/Adam")
    record = graph.get_variable("", HERE, initializer=Initializer(False, (2,)))
    graph.exit_variable_scope(slot)
    assert record.store_key == "w/Adam/" and record.name == "w/Adam" and record.shape == (2,)


def test_tf_variable_and_get_variable_names_collide_in_the_graph_only() -> None:
    graph = GraphModel("m.py")
    graph.create_variable("v", HERE, shape=())
    record = create(graph, "v")
    assert record.store_key == "v" and record.name == "v_1"


def test_name_scope_ignored_only_while_the_users_name_scope_is_current() -> None:
    graph = GraphModel("m.py")
    users = graph.enter_name_scope("ppo", HERE)
    internal = graph.enter_name_scope(None, HERE, user=False)  # as create_global_step does
    graph.get_variable("global_step", HERE, shape=(), shape_given=True, dtype="int64")
    graph.exit_name_scope(internal, user=False)
    assert [event.kind for event in graph.events] == []
    create(graph, "w")
    graph.exit_name_scope(users)
    assert [event.kind for event in graph.events] == ["name_scope_ignored"]


def test_a_name_with_an_unknown_part_makes_uncertain_only_the_names_it_may_spell() -> None:
    """bert's encoder builds `layer_%d` for an unknown layer count: `bert/encoder/layer_?/dense`
    cannot be `bert/pooler/dense`, so the pooler's layer name stays known (and a lookup of it
    under reuse=True is proven to fail); a name it may spell stays uncertain."""
    from scopelint.model.scopes import ScopeCounts

    namer = Namer()
    assert not namer.unique_name("bert/encoder/layer_?/dense").certain
    pooler = namer.unique_name("bert/pooler/dense")
    assert (pooler.name, pooler.certain) == ("bert/pooler/dense", True)
    assert not namer.unique_name("bert/encoder/layer_3/dense").certain
    again = namer.unique_name("bert/pooler/dense")
    assert (again.name, again.certain) == ("bert/pooler/dense_1", True)

    counts = ScopeCounts()
    counts.open("model/tower_?", speculative=False)
    assert counts.unique_default("model", "dense") == ("dense", True)
    assert counts.unique_default("model", "tower") == ("tower", True)  # "tower_?" is never "tower"
    assert counts.unique_default("model", "tower_1") == ("tower_1", False)
