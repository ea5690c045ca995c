"""The effort estimate: points per construct site, from one table of weights.

The weights follow shared/tf2-migration.md 4.2.9 (pure rename 0, shim-able scope block 1, reuse
site 2, make_template 2, Session 5, replica_device_setter 8, SyncReplicas 13, unmapped contrib 5,
custom_getter 8); the others are set on the same scale.  Sites whose deciding value is not a literal,
variables the analysis could not name for certain, uncertain findings and modules where something
unmodelled may create variables are *unresolved*: counted apart, never priced.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

# Points per site of each construct (a `variable_scope` site is one shim-able block; the
# get_variable calls inside it are priced with the block).
WEIGHTS: dict[str, int] = {
    "ops": 0, "flags_logging": 0, "initializers": 0, "keras_layers": 0, "get_variable": 0,
    "variable_scope": 1, "v1_layers": 1, "slim": 1, "tf_variable": 1, "placeholder": 1, "collections": 1,
    "global_step": 1, "summary": 1,
    "reuse": 2, "make_template": 2, "rnn": 2, "v1_optimizer": 2, "ema": 2,
    "partitioner": 3, "saver": 3, "cluster": 3, "server": 3,
    "session": 5, "contrib": 5, "monitored_session": 5, "queue_runners": 5,
    "device_setter": 8, "custom_getter": 8, "estimator": 8,
    "sync_replicas": 13,
}

# T-shirt sizes: the largest size whose lower bound the points reach.
SIZES: tuple[tuple[int, str], ...] = ((0, "XS"), (1, "S"), (10, "M"), (40, "L"), (120, "XL"))


def size_of(points: int) -> str:
    size = SIZES[0][1]
    for bound, name in SIZES:
        if points >= bound:
            size = name
    return size


@dataclass(frozen=True)
class EffortLine:
    construct: str
    sites: int
    weight: int
    points: int


@dataclass(frozen=True)
class ModuleEffort:
    path: str
    lines: tuple[EffortLine, ...]
    points: int
    size: str
    unresolved: int


def estimate(path: str, certain_sites: Counter[str], unresolved: int) -> ModuleEffort:
    """Price the certain construct sites of one module; `unresolved` is carried along unpriced."""
    lines = tuple(
        EffortLine(construct, count, WEIGHTS[construct], WEIGHTS[construct] * count)
        for construct, count in sorted(certain_sites.items())
    )
    points = sum(line.points for line in lines)
    return ModuleEffort(path, lines, points, size_of(points), unresolved)
