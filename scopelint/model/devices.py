"""Device placement: device strings, `replica_device_setter`, and the per-graph device stack.

This is a pure model of TensorFlow's own code (TF 2.21 `framework/device_spec.py`,
`training/device_setter.py`, `Graph._apply_device_functions`), specified in tf1-semantics sections
4, 5 and 6.5 and checked against real TensorFlow by `tests/test_devices_tf.py`.  It imports
neither LibCST nor TensorFlow.

Unknown values.  The analysis passes `UNKNOWN` for a value it could not compute at all, and strings
containing `UNKNOWN_PART` ("?") for partly known ones such as `'/job:worker/task:?'`.  A "?" inside a
field's value makes only that field unknown (the field is known to be *set*); a "?" where an
attribute name is expected (`'/?:0'`, or the whole string `'?'`) makes the whole spec unknown.
Results follow the same convention: a device string with "?" is partly known, None is unknown.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from scopelint.model.cluster import ClusterValue
from scopelint.model.unknown import UNKNOWN, UnknownType
from scopelint.trace import UNKNOWN_PART

__all__ = [
    "UNKNOWN",
    "UNKNOWN_PART",
    "STANDARD_PS_OPS",
    "VARIABLE_OP_TYPES",
    "ClusterValue",
    "DeviceFunction",
    "DeviceSpec",
    "DeviceSpecError",
    "DeviceSpecUnknown",
    "DeviceStack",
    "ReplicaDeviceSetter",
    "replica_device_setter",
]



# TF 2.21 `device_spec._VALID_DEVICE_TYPES`; TensorFlow adds the types of pluggable devices found
# at run time, which a static model cannot see.
_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})

# TF 2.21 `device_setter.STANDARD_PS_OPS` (TF 1.15 lacks DecisionTreeResource), tf1-semantics 4.2.
STANDARD_PS_OPS: frozenset[str] = frozenset({
    "Variable", "VariableV2", "AutoReloadVariable",
    "MutableHashTable", "MutableHashTableV2",
    "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable", "MutableDenseHashTableV2",
    "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
    "DecisionTreeResource",
})

# Op types that variables create inside `init_scope`.  Under `colocate_with(v)` TensorFlow swaps in
# an empty device stack, but `init_scope` falls back to the graph's full stack, so for these op types
# the device functions still run (and counters advance) before colocation overrides the result
# (tf1-semantics 4.4, 6.5; TF 2.21 `ops.init_scope`).  Other ops under `colocate_with` see no
# device functions at all.
VARIABLE_OP_TYPES: frozenset[str] = frozenset({"VariableV2", "VarHandleOp"})


class DeviceSpecError(ValueError):
    """A device string TensorFlow rejects; the message is TF 2.21's."""


class DeviceSpecUnknown(Exception):
    """A device string whose structure depends on unknown parts, so it cannot be parsed."""


# --- three-valued helpers (True, False, None = unknown) ---------------------------------------------

def _has_unknown(value: object) -> bool:
    return isinstance(value, str) and UNKNOWN_PART in value


def _truthy(text: str | None) -> bool | None:
    """Python truthiness of a possibly partial string: a string of only "?" may be empty."""
    if not text:
        return False
    if text.replace(UNKNOWN_PART, "") == "":
        return None
    return True


def _equal(left: str | None, right: str | None) -> bool | None:
    if _has_unknown(left) or _has_unknown(right):
        return None
    return left == right


def _not3(value: bool | None) -> bool | None:
    return None if value is None else not value


def _and3(*values: bool | None) -> bool | None:
    if any(value is False for value in values):
        return False
    if all(value is True for value in values):
        return True
    return None


def _or3(*values: bool | None) -> bool | None:
    if any(value is True for value in values):
        return True
    if all(value is False for value in values):
        return False
    return None


def _parse_index(text: str) -> int | str:
    if UNKNOWN_PART in text:
        return UNKNOWN_PART
    try:
        return int(text)  # TensorFlow calls int() too, so " 1", "+1" and "01" behave the same
    except ValueError as error:
        raise DeviceSpecError(str(error)) from None


# --- DeviceSpec ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class DeviceSpec:
    """One (possibly partial) device specification, as TensorFlow's `DeviceSpecV2`.

    `replica`, `task` and `device_index` are ints, None (unset), or UNKNOWN_PART (set, value unknown).
    `device_index="*"` is accepted and stored as None, exactly as TensorFlow does: '*' and an unset
    index print alike (`/device:CPU:*`) and merge alike (an outer index fills it in).
    """

    job: str | None = None
    replica: int | str | None = None
    task: int | str | None = None
    device_type: str | None = None
    device_index: int | str | None = None

    def __post_init__(self) -> None:
        # TF's `_as_device_str_or_none` upper-cases exactly "cpu" and "gpu".
        if self.device_type in ("cpu", "gpu"):
            object.__setattr__(self, "device_type", self.device_type.upper())
        if self.device_index == "*":
            object.__setattr__(self, "device_index", None)

    @staticmethod
    def parse(text: str) -> "DeviceSpec":
        """TensorFlow's `DeviceSpec.from_string`.

        Raises DeviceSpecError (TF's ValueError and message) for strings TensorFlow rejects, and
        DeviceSpecUnknown when an attribute name itself is unknown.
        """
        job: str | None = None
        replica: int | str | None = None
        task: int | str | None = None
        device_type: str | None = None
        device_index: int | str | None = None
        structure_unknown = False
        for part in text.split("/"):
            fields = part.split(":")
            count, head = len(fields), fields[0]
            if UNKNOWN_PART in head:
                structure_unknown = True
            elif count == 2 and head == "job":
                job = fields[1]
            elif count == 2 and head == "replica":
                replica = _parse_index(fields[1])
            elif count == 2 and head == "task":
                task = _parse_index(fields[1])
            elif count in (1, 2) and head.upper() in _VALID_DEVICE_TYPES:
                if device_type is not None:
                    raise DeviceSpecError(
                        f"Multiple device types are not allowed while parsing the device spec: {text}.")
                device_type = head.upper()
                if count == 2 and fields[1] != "*":
                    device_index = _parse_index(fields[1])
            elif count == 3 and head == "device":
                if device_type is not None:
                    raise DeviceSpecError(
                        f"Multiple device types are not allowed while parsing the device spec: {text}.")
                device_type = fields[1]
                if fields[2] != "*":
                    device_index = _parse_index(fields[2])
            elif head != "":
                raise DeviceSpecError(
                    f"Unknown attribute '{head}' is encountered while parsing the device spec: '{text}'.")
        if structure_unknown:
            raise DeviceSpecUnknown(text)
        return DeviceSpec(job, replica, task, device_type, device_index)

    @staticmethod
    def parse_or_none(text: str) -> "DeviceSpec | None":
        """`parse`, with None for a string whose structure is unknown (errors still raise)."""
        try:
            return DeviceSpec.parse(text)
        except DeviceSpecUnknown:
            return None

    def to_string(self) -> str:
        """TensorFlow's canonical form, '/job:ps/replica:2/task:0/device:CPU:0'; '' when empty."""
        parts: list[str] = []
        if self.job is not None:
            parts.append("/job:" + self.job)
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else str(self.device_index)
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def is_empty(self) -> bool:
        return self.to_string() == ""

    def merged_over(self, base: "DeviceSpec") -> "DeviceSpec":
        """`base.make_merged_spec(self)`: self's set fields win, base fills the gaps."""
        return DeviceSpec(
            self.job if self.job is not None else base.job,
            self.replica if self.replica is not None else base.replica,
            self.task if self.task is not None else base.task,
            self.device_type if self.device_type is not None else base.device_type,
            self.device_index if self.device_index is not None else base.device_index,
        )


# --- replica_device_setter ----------------------------------------------------------------------

@dataclass
class ReplicaDeviceSetter:
    """The device function `replica_device_setter` returns (`_ReplicaDeviceChooser`).

    Mutable: the round-robin counter lives here, so one object pushed in two `with` blocks keeps
    counting while a new object restarts at 0 (tf1-semantics 4.4).

    Unknown fields: `ps_tasks` None means the count is unknown (and TensorFlow may have returned
    None instead of a setter, see `may_be_none`); `ps_device`/`worker_device` may be partial strings
    ("?" alone = wholly unknown); `merge_devices` None = unknown; `ps_ops` holding UNKNOWN_PART means
    the list has elements the analysis could not read.
    """

    ps_tasks: int | None
    ps_device: str | None
    worker_device: str | None
    merge_devices: bool | None = True
    ps_ops: frozenset[str] | None = None  # None = STANDARD_PS_OPS
    strategy: str = "round_robin"  # "round_robin" | "custom_unknown"
    next_task: int = 0
    certain: bool = True  # False once the counter (or a custom strategy) makes ps tasks unknown

    @property
    def may_be_none(self) -> bool:
        """True when TensorFlow may have returned None (ps task count unknown, possibly 0)."""
        return self.ps_tasks is None

    def _is_ps_op(self, op_type: str) -> bool | None:
        ops = STANDARD_PS_OPS if self.ps_ops is None else self.ps_ops
        if op_type in ops:
            return True
        return None if UNKNOWN_PART in ops else False

    def _next_strategy_task(self) -> int | str:
        """Call the strategy once: the task for this op, advancing the counter."""
        if self.strategy != "round_robin" or not self.certain:
            self.certain = False
            return UNKNOWN_PART
        task = self.next_task
        if self.ps_tasks is None:
            # The first task is 0 whatever the count; after that the modulus decides.
            self.certain = False
        else:
            self.next_task = (self.next_task + 1) % self.ps_tasks  # Python %, as TensorFlow
        return task

    def _note_possible_call(self, op_type: str) -> None:
        """The strategy may or may not have been called: the counter is no longer known."""
        if self._is_ps_op(op_type) is not False and _truthy(self.ps_device) is not False:
            self.certain = False

    def place(self, op_type: str, current: str | None) -> str | None:
        """TensorFlow's `device_function(op)` for an op of `op_type` whose device so far is `current`
        (None when unknown).  Returns the device string, or None when unknown."""
        current_spec = None if current is None else DeviceSpec.parse_or_none(current)
        current_set = None if current_spec is None else not current_spec.is_empty()

        # 1. merge_devices=False keeps a device set by inner scopes untouched.
        returns_early = _and3(_not3(self.merge_devices), current_set)
        if returns_early is True:
            return current
        if returns_early is None or current_spec is None:
            self._note_possible_call(op_type)
            return None

        # 2. ps ops: ps_device, with a strategy task when the jobs agree; the op's fields win.
        ps_branch = _and3(_truthy(self.ps_device), self._is_ps_op(op_type))
        if ps_branch is None:
            self._note_possible_call(op_type)
            return None
        if ps_branch:
            assert self.ps_device is not None
            ps_spec = DeviceSpec.parse_or_none(self.ps_device)
            if ps_spec is None:
                self._note_possible_call(op_type)
                return None
            calls_strategy = _and3(
                _truthy(ps_spec.job),
                _or3(_not3(_truthy(current_spec.job)), _equal(current_spec.job, ps_spec.job)),
            )
            if calls_strategy is True:
                ps_spec = replace(ps_spec, task=self._next_strategy_task())
            elif calls_strategy is None:
                self.certain = False
                ps_spec = replace(ps_spec, task=UNKNOWN_PART)
            return current_spec.merged_over(ps_spec).to_string()

        # 3. everything else: worker_device, the op's fields win.
        worker_spec = DeviceSpec.parse_or_none(self.worker_device or "")
        if worker_spec is None:
            return None
        return current_spec.merged_over(worker_spec).to_string()


def _known_string(value: object) -> str | None:
    """A string argument as the setter stores it: UNKNOWN becomes the wholly unknown "?"."""
    if value is UNKNOWN:
        return UNKNOWN_PART
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"expected a device string, None or UNKNOWN, got {value!r}")


def _ps_ops_value(ps_ops: object) -> frozenset[str] | None:
    if ps_ops is None:
        return None
    if ps_ops is UNKNOWN or not isinstance(ps_ops, Iterable) or isinstance(ps_ops, str):
        # A bare string would be matched by substring in TensorFlow (`op in "VariableV2"`); the
        # analysis should not rely on that, so treat it as unknown.
        return frozenset({UNKNOWN_PART})
    return frozenset(
        item if isinstance(item, str) and UNKNOWN_PART not in item else UNKNOWN_PART for item in ps_ops
    )


def replica_device_setter(
    ps_tasks: int | object = 0,
    ps_device: str | None | object = "/job:ps",
    worker_device: str | None | object = "/job:worker",
    merge_devices: bool | object = True,
    cluster: ClusterValue | None | object = None,
    ps_ops: Iterable[str] | None | object = None,
    ps_strategy: object = None,
) -> ReplicaDeviceSetter | None:
    """`tf.compat.v1.train.replica_device_setter`: None exactly when TensorFlow returns None.

    Any argument may be UNKNOWN.  `ps_strategy` other than None is a user callable the model cannot
    run ("custom_unknown").  Raises DeviceSpecError when TensorFlow would fail to parse `ps_device`
    while looking up the cluster.
    """
    ps_device_value = _known_string(ps_device)
    worker_device_value = _known_string(worker_device)
    tasks: int | None
    if cluster is not None:
        # TensorFlow takes the count from the cluster and ignores ps_tasks (tf1-semantics 4.1).
        # TensorFlow looks the ps job up with `DeviceSpec.from_string(ps_device).job`.
        ps_job: str | None | object
        if ps_device_value is not None and UNKNOWN_PART in ps_device_value:
            partial = DeviceSpec.parse_or_none(ps_device_value)
            ps_job = UNKNOWN if partial is None or _has_unknown(partial.job) else partial.job
        else:
            ps_job = DeviceSpec.parse(ps_device_value or "").job
        if cluster is UNKNOWN or ps_job is UNKNOWN:
            tasks = None
        else:
            assert isinstance(cluster, ClusterValue)
            if ps_job is None:  # `None not in cluster_spec`
                return None
            assert isinstance(ps_job, str)
            present = cluster.has_job(ps_job)
            if present is False:
                return None
            tasks = cluster.num_tasks(ps_job) if present else None
            if tasks == 0:
                return None
    else:
        if ps_tasks is UNKNOWN:
            tasks = None
        else:
            assert isinstance(ps_tasks, int)
            if ps_tasks == 0:
                return None
            tasks = ps_tasks
    strategy = "round_robin" if ps_strategy is None else "custom_unknown"
    return ReplicaDeviceSetter(
        ps_tasks=tasks,
        ps_device=ps_device_value,
        worker_device=worker_device_value,
        merge_devices=None if merge_devices is UNKNOWN else bool(merge_devices),
        ps_ops=_ps_ops_value(ps_ops),
        strategy=strategy,
        certain=strategy == "round_robin",
    )


# --- the device stack ---------------------------------------------------------------------------

class _Barrier:
    """`device(None)`: the outer entries are not applied."""

    def __repr__(self) -> str:
        return "device(None)"


_BARRIER = _Barrier()


@dataclass(frozen=True)
class _Colocation:
    """`colocate_with(op)`: TensorFlow swaps in a fresh, empty device stack until the block ends and
    places new ops on `device` (the colocated op's device) when that is non-empty."""

    device: str | None | object  # a device string, or UNKNOWN


@dataclass(eq=False)
class DeviceFunction:
    """`device(f)` with the program's own function: TensorFlow calls `f(op)` and sets the op's
    device to what it returns, replacing what inner entries set (`Graph._apply_device_functions`).
    `place(op_type, current)` is that call as the analysis interprets it: `current` is the device
    inner entries gave the op (None when unknown); it returns a device string or UNKNOWN (a function
    that returns None makes TF 2.21 raise a TypeError when it places a variable)."""

    place: Callable[[str, str | None], "str | None | UnknownType"]


StackEntry = DeviceSpec | ReplicaDeviceSetter | DeviceFunction | _Barrier | UnknownType | _Colocation


def _apply(entries: list[StackEntry], op_type: str) -> str | None:
    """TF 2.21 `Graph._apply_device_functions` over `entries` (outermost first)."""
    current: DeviceSpec | None = DeviceSpec()
    # What a device function returned, as TensorFlow keeps it (`/gpu:0`, not canonical) until an
    # outer entry merges over it.
    raw: str | None = None
    for entry in reversed(entries):
        if entry is _BARRIER:
            break  # whether or not we know how we got here, nothing outer applies
        if entry is UNKNOWN:
            current, raw = None, None  # it may be a function, a string or None: the rest is unknown
        elif isinstance(entry, DeviceSpec):
            if not entry.is_empty() and current is not None:  # device('') is skipped by TF
                current, raw = current.merged_over(entry), None
        elif isinstance(entry, ReplicaDeviceSetter):
            placed = entry.place(op_type, None if current is None else current.to_string())
            current, raw = None if placed is None else DeviceSpec.parse_or_none(placed), None
            if entry.may_be_none:
                current = None  # TensorFlow may hold device(None) here instead
        elif isinstance(entry, DeviceFunction):
            returned = entry.place(op_type, raw if raw is not None else None if current is None else current.to_string())
            current, raw = None, None
            if isinstance(returned, str):
                try:
                    current = DeviceSpec.parse_or_none(returned)
                except DeviceSpecError:
                    current = None  # TensorFlow raises here; not a placement the model predicts
                raw = returned if current is not None else None
    if current is None:
        return None
    return raw if raw is not None else current.to_string()


class DeviceStack:
    """The `with tf.compat.v1.device(...)` (and `colocate_with(...)`) entries of one graph."""

    def __init__(self) -> None:
        self._entries: list[StackEntry] = []

    @property
    def entries(self) -> tuple[StackEntry, ...]:
        """Outermost first; strings are held parsed, `device(None)` as a barrier."""
        return tuple(self._entries)

    def forget_counters(self) -> None:
        """Code the analysis does not model may have created variable ops here: every setter on
        the stack may have advanced its round-robin counter, so its later tasks are unknown."""
        for entry in self._entries:
            if isinstance(entry, ReplicaDeviceSetter):
                entry.certain = False

    def push(self, entry: str | DeviceSpec | ReplicaDeviceSetter | DeviceFunction | None | object) -> None:
        """Enter `device(entry)`.  A string TensorFlow rejects raises DeviceSpecError before anything
        is pushed (TensorFlow raises in `device()` itself), so the caller must not pop it."""
        if entry is None:
            self._entries.append(_BARRIER)
        elif entry is UNKNOWN:
            self._entries.append(UNKNOWN)  # type: ignore[arg-type]
        elif isinstance(entry, (DeviceSpec, ReplicaDeviceSetter, DeviceFunction)):
            self._entries.append(entry)
        elif isinstance(entry, str):
            spec = DeviceSpec.parse_or_none(entry)
            self._entries.append(UNKNOWN if spec is None else spec)  # type: ignore[arg-type]
        else:
            raise TypeError(f"not a device stack entry: {entry!r}")

    def dropped_by_barrier(self) -> tuple[list[str], bool]:
        """What a `device(None)` entered now keeps from applying (tf1-semantics 6.5): the known
        entries in force that place ops (non-empty device strings, device functions), and whether
        an unknown entry is in force too.  Entries in force are those of the innermost colocation
        block after its innermost barrier; `device('')` places nothing and so is never dropped."""
        active: list[StackEntry] = []
        for entry in self._entries:
            if isinstance(entry, (_Colocation, _Barrier)):
                active = []
            else:
                active.append(entry)
        dropped: list[str] = []
        unknown = False
        for entry in active:
            if isinstance(entry, DeviceSpec):
                if not entry.is_empty():
                    dropped.append(f"'{entry.to_string()}'")
            elif isinstance(entry, ReplicaDeviceSetter):
                if entry.may_be_none:
                    unknown = True
                else:
                    dropped.append("a replica_device_setter")
            elif isinstance(entry, DeviceFunction):
                dropped.append("a device function")
            else:
                unknown = True
        return dropped, unknown

    def push_colocation(self, device: str | object) -> None:
        """Enter `colocate_with(x)` where x's device is `device` (a string, or UNKNOWN)."""
        self._entries.append(_Colocation(device))

    def pop(self) -> None:
        """Leave the innermost `device(...)` or `colocate_with(...)` block."""
        self._entries.pop()

    def device_for(self, op_type: str, colocate_with: str | None | object = None) -> str | None:
        """The device TensorFlow gives a new op of `op_type` (tf1-semantics 6.5).

        `colocate_with` is a shortcut for an op created directly inside `colocate_with(x)` (an
        optimizer slot, a beta power): x's device, UNKNOWN if unknown, None when not colocated.
        Returns the canonical string, "" for none, None when unknown; setters' counters advance as
        TensorFlow's would.

        Inside `colocate_with`, TensorFlow runs only the device scopes entered inside the colocation
        block; but a variable (created in `init_scope`) whose block holds none falls back to the
        graph's outermost stack, so its functions run and counters advance before colocation
        overrides the result (tf1-semantics 4.4).
        """
        segments: list[list[StackEntry]] = [[]]
        colocations: list[object] = []
        for entry in self._entries:
            if isinstance(entry, _Colocation):
                segments.append([])
                colocations.append(entry.device)
            else:
                segments[-1].append(entry)
        if colocate_with is not None:
            segments.append([])
            colocations.append(colocate_with)
        active = segments[-1]
        if not active and op_type in VARIABLE_OP_TYPES:
            active = segments[0]
        placed = _apply(active, op_type)
        # The innermost colocated op with a non-empty device decides.
        for device in reversed(colocations):
            if device is UNKNOWN or _truthy(device) is None:  # type: ignore[arg-type]
                return None
            if device:
                return device  # type: ignore[return-value]
        return placed
