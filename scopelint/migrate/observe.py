"""What the trace does not keep: which get_variable calls shared an existing variable, and the full
shape of each partitioned variable.

The trace records a variable where it is created; a `get_variable` that returns an existing variable
(reuse=True, AUTO_REUSE, a template's second call) leaves no record, and a partitioned variable is
recorded only as its parts.  The migration report needs both (the reuse map, the checkpoint key with
its full shape), so while one module is analysed this module listens to the model's one entry point
for store variables, `GraphModel.get_variable`, and notes what it returned.

The listener is installed for the duration of one `analyze_source` call and removed afterwards; it
changes nothing the analysis computes.  It is process-global, so analyses must not run in threads
at the same time (scopelint runs files in processes).  Proposed trace addition that would replace
it: a `variable_reused` event and a `partitioned` table (logical key -> full shape, partitions).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from scopelint.model.graph import GraphModel, PartitionedEntry
from scopelint.trace import Related, Shape, Site, VariableRecord


@dataclass(frozen=True)
class ReuseObservation:
    """A get_variable call that returned a variable created earlier."""

    name: str  # graph name of the shared variable (the logical key for a partitioned one)
    created_at: Site
    site: Site  # the get_variable (or layer, template) call that shared it
    chain: tuple[Related, ...]  # the user call stack of the sharing call, outermost first
    scope: str  # the variable scope at the sharing call
    reuse: str  # its reuse mode: "True", "AUTO_REUSE", "?"
    certain: bool


@dataclass(frozen=True)
class PartitionedVariable:
    """A partitioned variable: one checkpoint key with the full shape, several graph parts."""

    key: str
    shape: Shape
    partitions: tuple[int, ...]
    parts: tuple[str, ...]


@dataclass
class StoreObservations:
    reuses: list[ReuseObservation] = field(default_factory=list)
    partitioned: dict[str, PartitionedVariable] = field(default_factory=dict)


@contextmanager
def observing_store() -> Iterator[StoreObservations]:
    """Listen to GraphModel.get_variable while the block runs."""
    observations = StoreObservations()
    original = GraphModel.get_variable

    def listening(graph: GraphModel, name: str, where, *args, **kwargs):  # type: ignore[no-untyped-def]
        created_before = len(graph.records)
        scope = graph.var_scope
        result = original(graph, name, where, *args, **kwargs)
        created = len(graph.records) > created_before
        if isinstance(result, VariableRecord) and not created:
            observations.reuses.append(ReuseObservation(
                name=result.name, created_at=result.site, site=where.site, chain=tuple(where.chain),
                scope=scope.name, reuse=scope.reuse.value,
                certain=graph.certain_now and result.certain and scope.certain,
            ))
        elif isinstance(result, PartitionedEntry):
            if created:
                observations.partitioned[result.key] = PartitionedVariable(
                    key=result.key, shape=tuple(result.shape), partitions=tuple(result.partitions),
                    parts=tuple(part.name for part in result.parts),
                )
            elif result.parts:
                observations.reuses.append(ReuseObservation(
                    name=result.key, created_at=result.parts[0].site, site=where.site,
                    chain=tuple(where.chain), scope=scope.name, reuse=scope.reuse.value,
                    certain=graph.certain_now and not result.maybe and scope.certain,
                ))
        return result

    GraphModel.get_variable = listening  # type: ignore[method-assign]
    try:
        yield observations
    finally:
        GraphModel.get_variable = original  # type: ignore[method-assign]
