"""Partitioners (tf1-semantics 3.1): how many parts, and each part's shape."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FixedSizePartitioner:
    num_shards: int
    axis: int = 0

    def partitions(self, shape: tuple[int | None, ...]) -> list[int] | None:
        if not shape or self.axis >= len(shape) or shape[self.axis] is None:
            return None
        result = [1] * len(shape)
        result[self.axis] = max(1, min(self.num_shards, shape[self.axis]))
        return result


@dataclass(frozen=True)
class OpaquePartitioner:
    """A partitioner whose partition count the analysis does not compute (min_max, axis_size, user code)."""

    description: str

    def partitions(self, shape: tuple[int | None, ...]) -> list[int] | None:
        return None


def part_shapes(shape: tuple[int, ...], partitions: list[int]) -> list[tuple[int, ...]]:
    """Shapes of the parts, in order; earlier parts get the extra rows (`part_0` [4,4], then [3,4])."""
    axis = next((i for i, count in enumerate(partitions) if count > 1), 0)
    count = partitions[axis]
    size, extra = divmod(shape[axis], count)
    shapes = []
    for index in range(count):
        part = list(shape)
        part[axis] = size + (1 if index < extra else 0)
        shapes.append(tuple(part))
    return shapes
