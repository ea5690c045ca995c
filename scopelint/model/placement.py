"""Why each variable got its device: a device stack that keeps, per variable op, which
`replica_device_setter` ran for it and what that setter alone would have given.

The distributed rules need more than the final device string: "created outside any setter"
(TFS403), "the round robin restarted" (TFS408), "an outer scope changed the ps device" (TFS410),
"a local variable sent to ps" (TFS411).  `RecordingDeviceStack` is a `DeviceStack` that computes
the same devices and, for each variable op, appends a `PlacementNote`.

It also keeps the round-robin counters honest under speculation: a variable created on a path that
may not run (an unknown branch, a loop of unknown length) may or may not have advanced a setter's
counter, so that setter's later tasks are unknown (tf1-semantics 4.4).

Pure: no LibCST, no TensorFlow.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from scopelint.model.devices import VARIABLE_OP_TYPES, DeviceSpec, DeviceStack, ReplicaDeviceSetter
from scopelint.model.unknown import UNKNOWN

if TYPE_CHECKING:
    from scopelint.model.graph import GraphModel

# What each stack entry is, kept alongside DeviceStack's own entries (which hold `device(None)` and
# colocations as private markers).
_BARRIER, _COLOCATION, _SETTER, _SPEC, _UNKNOWN = "barrier", "colocation", "setter", "spec", "unknown"


@dataclass(frozen=True)
class PlacementNote:
    """One variable op's placement, as the stack decided it."""

    record_index: int  # the index its VariableRecord gets in the graph's `records`
    device: str | None  # the device the stack gave (None: unknown)
    setter: ReplicaDeviceSetter | None  # the innermost setter that ran for the op; None when none did
    setter_device: str | None  # that setter with the scopes inside it, before outer scopes; None: unknown
    round_robin_task: int | None  # the task its strategy returned; None when not called or unknown
    next_task: int | None  # its counter afterwards; None when unknown
    known: bool  # every entry that applied is known, and no applied setter may be None
    cleared: bool  # a `device(None)` kept the entries around it from applying
    colocated: bool  # under colocate_with: the device is the colocated op's


class RecordingDeviceStack(DeviceStack):
    """A `DeviceStack` for one graph that notes how every variable op was placed."""

    def __init__(self, graph: "GraphModel") -> None:
        super().__init__()
        self._graph = graph
        self._kinds: list[str] = []
        self.notes: list[PlacementNote] = []

    def push(self, entry: object) -> None:
        super().push(entry)  # raises before pushing for a device string TensorFlow rejects
        pushed = self.entries[-1]
        if entry is None:
            kind = _BARRIER
        elif isinstance(pushed, ReplicaDeviceSetter):
            kind = _SETTER
        elif isinstance(pushed, DeviceSpec):
            kind = _SPEC
        else:
            kind = _UNKNOWN
        self._kinds.append(kind)

    def push_colocation(self, device: str | object) -> None:
        super().push_colocation(device)
        self._kinds.append(_COLOCATION)

    def pop(self) -> None:
        super().pop()
        self._kinds.pop()

    def device_for(self, op_type: str, colocate_with: str | None | object = None) -> str | None:
        if op_type not in VARIABLE_OP_TYPES:
            return super().device_for(op_type, colocate_with)
        applied, colocated, cleared = self._applied(colocate_with)
        setters = [entry for entry, kind in applied if kind == _SETTER]
        assert all(isinstance(setter, ReplicaDeviceSetter) for setter in setters)
        innermost: ReplicaDeviceSetter | None = setters[-1] if setters else None  # type: ignore[assignment]
        setter_device = self._setter_alone(applied, op_type) if innermost is not None else None
        before = {id(setter): (setter.next_task, setter.certain) for setter in setters}  # type: ignore[union-attr]

        device = super().device_for(op_type, colocate_with)

        round_robin_task: int | None = None
        next_task: int | None = None
        if innermost is not None:
            old_task, old_certain = before[id(innermost)]
            if innermost.certain:
                next_task = innermost.next_task
                if old_certain and innermost.next_task != old_task:
                    round_robin_task = old_task
        if not self._graph.certain_now:
            # This op may not exist: a counter it advanced may not have advanced.
            for setter in setters:
                if (setter.next_task, setter.certain) != before[id(setter)]:  # type: ignore[union-attr]
                    setter.certain = False  # type: ignore[union-attr]
        known = all(kind != _UNKNOWN for _, kind in applied) and not any(
            setter.may_be_none for setter in setters)  # type: ignore[union-attr]
        self.notes.append(PlacementNote(
            record_index=len(self._graph.records),
            device=device,
            setter=innermost,
            setter_device=setter_device,
            round_robin_task=round_robin_task,
            next_task=next_task,
            known=known,
            cleared=cleared,
            colocated=colocated,
        ))
        return device

    def _applied(self, colocate_with: str | None | object) -> tuple[list[tuple[object, str]], bool, bool]:
        """The entries TensorFlow applies to a variable op, outermost first, mirroring
        `DeviceStack.device_for`: the innermost colocation block's entries (or, when it holds none, the
        outermost ones), cut at the innermost `device(None)`; whether a colocation is in force; and
        whether a `device(None)` cut the list."""
        segments: list[list[tuple[object, str]]] = [[]]
        for entry, kind in zip(self.entries, self._kinds):
            if kind == _COLOCATION:
                segments.append([])
            else:
                segments[-1].append((entry, kind))
        colocated = colocate_with is not None or len(segments) > 1
        active = [] if colocate_with is not None else segments[-1]
        if not active:
            active = segments[0]
        barriers = [index for index, (_, kind) in enumerate(active) if kind == _BARRIER]
        if barriers:
            active = active[barriers[-1] + 1:]
        return active, colocated, bool(barriers)

    @staticmethod
    def _setter_alone(applied: list[tuple[object, str]], op_type: str) -> str | None:
        """The device the innermost setter and the scopes inside it give, computed on a copy so the
        real counter does not move."""
        position = max(index for index, (_, kind) in enumerate(applied) if kind == _SETTER)
        setter = applied[position][0]
        assert isinstance(setter, ReplicaDeviceSetter)
        if setter.may_be_none:
            return None
        alone = DeviceStack()
        alone.push(replace(setter))
        for entry, kind in applied[position + 1:]:
            alone.push(UNKNOWN if kind == _UNKNOWN else entry)
        return alone.device_for(op_type)
