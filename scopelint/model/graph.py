"""One TensorFlow graph as the analysis sees it: scopes, the variable store, names and devices.

Every operation mirrors what `tf.compat.v1` does in graph mode (tf1-semantics.md) and writes
VariableRecords and Events.  Nothing here knows about syntax or imports TensorFlow.

Continuing past an error (the one policy; issue 9 item 5).  Where TensorFlow raises, the event is
recorded and the operation then goes on as if the author had fixed that line, in the way the
author most plausibly meant, so that the next bug is already visible and one suppression hides
only its own finding.  Each raising site says its recovery in a `# Recovery:` comment:
- a duplicate get_variable (already exists) returns the variable that exists;
- a lookup of a missing variable (does not exist) creates it, as the first call would have;
- a shape, dtype or partitioning mismatch returns the variable that exists;
- a rejected argument is dropped (a constant initializer's `shape=`, a reuse value TensorFlow
  rejects) or replaced by what the fix most likely gives (a default-named scope with reuse takes
  its default name; a name the fix must supply is unknown, `?`).
The graph's state after the operation is TensorFlow's state after that fix.  A reuse error is
one mistake for the whole user call it happens in (the author fixes the reuse of that call, not
each variable of it): the other variables of the same call that fail the same way are recorded as
consequences (uncertain, `same_mistake`), and a variable created by the recovery from a lookup may
be created once more without a duplicate (the fix may as well be moving that creation first).
Records and events after the first error carry `after_error` (TensorFlow itself stops there, so
a real run observes only what comes before).  Only where the program
itself catches errors (inside a `try` with handlers, `catching` > 0) is `ModelRaise` raised, so that
the program's own handler runs as it would for real.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scopelint.model.layers import LayerNameUids
from scopelint.model.names import Namer
from scopelint.model.partitions import part_shapes
from scopelint.model.scopes import UNKNOWN_SETTING, Reuse, ScopeCounts, VarScope, effective_reuse
from scopelint.trace import UNKNOWN_PART, Event, Related, Shape, Site, VariableRecord

FLOAT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64", "half", "double"})
DEFAULT_INIT_DTYPES = FLOAT_DTYPES | frozenset(
    {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "string"}
)

# get_variable with an initializer that needs the shape (an Initializer) and no fully defined shape.
INVALID_INITIALIZER = (
    "The initializer passed is not valid. It should be a callable with no arguments and the shape should "
    "not be provided or an instance of `tf.keras.initializers.*' and `shape` should be fully defined."
)
ALREADY_EXISTS = (
    "Variable {key} already exists, disallowed. "
    "Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
)
DOES_NOT_EXIST = (
    "Variable {key} does not exist, or was not created with tf.get_variable(). "
    "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
)


class ModelRaise(Exception):
    """TensorFlow raises here and the program catches it (see the module docstring); the event says what."""

    def __init__(self, event: Event) -> None:
        super().__init__(event.message)
        self.event = event


@dataclass(frozen=True)
class Where:
    """Where an operation happens: the site and the user call stack that reached it."""

    site: Site
    chain: tuple[Related, ...] = ()


@dataclass(frozen=True)
class Initializer:
    """What the analysis knows about an `initializer=` argument."""

    is_callable: bool | None  # None: unknown
    value_shape: Shape = None  # for constants and tensors
    dtype: str | None = None
    # For a callable: whether it must be given the shape (a TF initializer object or class, a
    # function with required parameters) rather than called with no arguments (a lambda).
    # Without a fully defined `shape=`, TensorFlow rejects one that needs arguments.  None: unknown.
    needs_arguments: bool | None = None


@dataclass
class StoreEntry:
    key: str
    record: VariableRecord
    maybe: bool  # created on a path that may not run
    local: bool = False
    # Created by the recovery from a "does not exist" (module docstring): the first later creation
    # of it is the real one, moved before the lookup by the fix, not a duplicate.
    recovered: bool = False


@dataclass
class PartitionedEntry:
    key: str
    shape: tuple[int, ...]
    partitions: list[int]
    parts: list[VariableRecord]
    maybe: bool


@dataclass
class VarScopeFrame:
    """One `with variable_scope(...)` entry, with what its exit must restore."""

    scope: VarScope
    kind: str  # string | object | default
    previous_scope: VarScope
    previous_name_stack: str
    saved_counts: dict[str, int] | None = None
    site: Site | None = None


@dataclass
class NameScopeFrame:
    name: str  # the scope string returned by `with name_scope(...) as s` ("a/", "a_1/", "")
    previous_name_stack: str
    site: Site | None = None


# eq=False: a graph is an identity (`graph in interp.graphs` must not compare every variable
# record of every graph field by field, which made programs with many graphs quadratic).
@dataclass(eq=False)
class GraphModel:
    path: str
    namer: Namer = field(default_factory=Namer)
    counts: ScopeCounts = field(default_factory=ScopeCounts)
    root: VarScope = field(default_factory=lambda: VarScope("", Reuse.FALSE, "", is_root=True))
    var_scope: VarScope = None  # type: ignore[assignment]  # set in __post_init__
    name_stack: str = ""
    store: dict[str, StoreEntry] = field(default_factory=dict)
    # The store's keys with an unknown part: a name absent from the store is proven absent only when
    # none of these may spell it (kept apart so that proof does not scan the whole store).
    unknown_keys: list[str] = field(default_factory=list)
    partitioned: dict[str, PartitionedEntry] = field(default_factory=dict)
    records: list[VariableRecord] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # >0 while interpreting code that may not run (unknown branch, loop of unknown length).
    speculative: int = 0
    # False once something unmodelled may have created variables in this graph.
    complete: bool = True
    # Innermost-last stack of scope constructs: ("var", VarScopeFrame) or ("name", NameScopeFrame).
    constructs: list[tuple[str, Any]] = field(default_factory=list)
    devices: Any = None  # a DeviceStack (scopelint.model.devices), set by the interpreter
    # Sites where tf.Variable / Keras layers / templates were created, to recognise a second run.
    seen_sites: dict[tuple[str, Site], int] = field(default_factory=dict)
    # The per-graph layer-name counter shared by Keras and tf.layers objects.
    layer_uids: LayerNameUids = field(default_factory=LayerNameUids)
    # (site, parent var scope) of an unnamed tf.layers call -> the layer scopes it got (TFS202).
    auto_layer_scopes: dict[tuple[Site, str], list[str]] = field(default_factory=dict)
    # >0 while the program itself catches errors (the body of a `try` with handlers): TensorFlow's
    # errors are then raised (ModelRaise) instead of recovered from (the module docstring).
    catching: int = 0
    # The reuse error being recovered from: (kind, user call chain of its call); see the docstring.
    recovering: tuple[str, tuple[Site | None, ...]] | None = None
    # Set at the first certain error TensorFlow raises uncaught in this graph.
    after_error: bool = False

    def __post_init__(self) -> None:
        if self.var_scope is None:
            self.var_scope = self.root

    # ------------------------------------------------------------------ helpers
    @property
    def certain_now(self) -> bool:
        return self.speculative == 0

    def _event(self, kind: str, message: str, where: Where, certain: bool = True,
               related: tuple[Related, ...] = (), raises: bool = False,
               first_chain: tuple[Related, ...] | None = None, **data: Any) -> bool:
        """Record an event; returns whether it is certain.

        `raises=True`: TensorFlow raises here.  The caller goes on with its documented recovery
        (module docstring), except where the program catches errors: there ModelRaise is raised.
        """
        certain = certain and self.certain_now
        reported = certain
        if self.after_error:
            data["after_error"] = True
        if raises and certain and kind in _REUSE_ERRORS and self.catching == 0:
            # Only an error the run recovers from starts a mistake: one the program catches (a
            # try, a test's assertRaises) is not repeated by the next error, which is reported.
            mistake = _mistake(kind, where, data.get("reuse_origin"), first_chain)
            if self.recovering == mistake:
                reported = False  # the same mistake as the error before, in the same call
                data["same_mistake"] = True
            self.recovering = mistake
        event = Event(kind, where.site, message, reported, tuple(where.chain) + tuple(related), data)
        self.events.append(event)
        if raises and certain:
            if self.catching > 0:
                raise ModelRaise(event)
            self.after_error = True
        return certain

    def note_unmodelled_creation(self) -> None:
        """Something the analysis does not model may have created variables (an unmodelled TF
        call, an unknown function handed tensors, a cut-off run): "does not exist" is no longer
        proven, and setters in force may have advanced their round-robin counters."""
        self.complete = False
        if self.devices is not None and hasattr(self.devices, "forget_counters"):
            self.devices.forget_counters()

    def note_site(self, what: str, site: Site) -> int:
        """How many times this site certainly did `what` before in this graph (then counts this
        time).  Runs that may not happen are not counted: they prove no repetition."""
        if not self.certain_now:
            return 0
        count = self.seen_sites.get((what, site), 0)
        self.seen_sites[(what, site)] = count + 1
        return count

    def note_created_under_reuse(self, kind: str, message: str, where: Where) -> None:
        """TFS201/TFS204: something that never shares (tf.Variable, a Keras layer) is created while
        the var scope reuses.  Under reuse=True the author meant to share; under AUTO_REUSE that is
        proven only when the same site runs again, since its first run rightly creates."""
        scope = self.var_scope
        if scope.reuse not in (Reuse.TRUE, Reuse.AUTO):
            return
        repeated = self.note_site(kind, where.site)
        if scope.reuse is Reuse.TRUE or repeated:
            self._event(kind, message.format(scope=scope.name, reuse=scope.reuse.value), where,
                        certain=scope.certain)

    def device_for(self, op_type: str = "VariableV2", colocate_with: str | None = None) -> str | None:
        if self.devices is None:
            return colocate_with if colocate_with is not None else ""
        return self.devices.device_for(op_type, colocate_with)

    def _name_scope_in_graph(self, name: str) -> str:
        """`Graph.name_scope(name)` for a non-empty name not ending in "/": the new stack."""
        full = f"{self.name_stack}/{name}" if self.name_stack else name
        return self.namer.unique_name(full, speculative=not self.certain_now).name

    def record_op_name(self, name: str) -> str:
        """An op created with an explicit name: it takes a name in the graph's table."""
        full = f"{self.name_stack}/{name}" if self.name_stack else name
        return self.namer.unique_name(full, speculative=not self.certain_now).name

    # ------------------------------------------------------------------ name scopes
    def enter_name_scope(self, name: str | None, where: Where, user: bool = True) -> NameScopeFrame:
        """`tf.name_scope(name)`: None/"" reset to the root, "x/" re-enters absolutely."""
        previous = self.name_stack
        if not name:
            self.name_stack = ""
            returned = ""
        elif name.endswith("/"):
            self.name_stack = name[:-1]
            returned = name
        else:
            self.name_stack = self._name_scope_in_graph(name)
            returned = self.name_stack + "/"
        frame = NameScopeFrame(returned, previous, where.site)
        if user:
            self.constructs.append(("name", frame))
        return frame

    def exit_name_scope(self, frame: NameScopeFrame, user: bool = True) -> None:
        self.name_stack = frame.previous_name_stack
        if user and self.constructs and self.constructs[-1][1] is frame:
            self.constructs.pop()

    # ------------------------------------------------------------------ variable scopes
    def enter_variable_scope(
        self,
        name_or_scope: str | VarScope | None,
        where: Where,
        default_name: str | None = None,
        reuse: Reuse = Reuse.FALSE,
        reuse_explicit_false: bool = False,
        auxiliary_name_scope: bool = True,
        partitioner: Any = None,
        dtype: str | None = None,
        custom_getter: bool = False,
    ) -> VarScopeFrame:
        parent = self.var_scope
        previous_stack = self.name_stack
        if name_or_scope is None and default_name is None:
            self._event("invalid_arguments", "If default_name is None then name_or_scope is required",
                        where, raises=True, error="TypeError")
            name_or_scope = UNKNOWN_PART  # Recovery: the name the fix supplies, unknown here.
        if name_or_scope is None and reuse in (Reuse.TRUE, Reuse.AUTO):
            self._event("invalid_arguments", "reuse=True cannot be used without a name_or_scope",
                        where, raises=True, error="ValueError")
            name_or_scope = default_name  # Recovery: the default name, fixed, so that reuse works.

        # The name scope is opened first, as variable_scope.__enter__ does.
        if not auxiliary_name_scope:
            opened = self.name_stack + "/" if self.name_stack else ""
        else:
            if isinstance(name_or_scope, VarScope):
                ns_name = name_or_scope.name.split("/")[-1]
            elif isinstance(name_or_scope, str):
                ns_name = name_or_scope
            else:
                ns_name = default_name or ""
            if ns_name:
                opened = self.enter_name_scope(ns_name, where, user=False).name
            else:
                opened = self.name_stack + "/" if self.name_stack else ""

        saved_counts = None
        if isinstance(name_or_scope, VarScope):
            captured = name_or_scope
            new_name = captured.name
            self.counts.open(new_name, not self.certain_now)
            saved_counts = self.counts.snapshot()
            new_reuse = reuse if reuse in (Reuse.TRUE, Reuse.AUTO) else captured.reuse
            if reuse is Reuse.UNKNOWN:
                new_reuse = Reuse.UNKNOWN
            origin = self._origin_of(new_reuse, reuse, captured, new_name, where)
            scope = VarScope(
                new_name,
                new_reuse,
                captured.original_name_scope,
                partitioner=partitioner if partitioner is not None else captured.partitioner,
                dtype=dtype or captured.dtype,
                custom_getter=custom_getter or captured.custom_getter,
                reuse_origin=origin,
            )
            kind = "object"
        else:
            if name_or_scope is None:
                assert default_name is not None
                relative, names_certain = self.counts.unique_default(parent.name, default_name)
                kind = "default"
            else:
                relative, names_certain = name_or_scope, True
                kind = "string"
            new_name = f"{parent.name}/{relative}" if parent.name else relative
            if not names_certain:
                new_name = _mark_unknown_suffix(new_name)
            self.counts.open(new_name, not self.certain_now)
            new_reuse = effective_reuse(parent.reuse, reuse)
            origin = self._origin_of(new_reuse, reuse, parent, new_name, where)
            if reuse_explicit_false and parent.reuse in (Reuse.TRUE, Reuse.AUTO) and kind == "string":
                self._event(
                    "reuse_false_ignored",
                    f"reuse=False in variable_scope('{relative}') has no effect: the enclosing scope "
                    f"'{parent.name}' has reuse={parent.reuse.value}, so '{new_name}' reuses too",
                    where,
                    certain=parent.certain,
                )
            if kind == "string" and parent.name and isinstance(relative, str):
                first = relative.split("/")[0]
                if first and first == parent.name.split("/")[-1] and UNKNOWN_PART not in new_name:
                    self._event(
                        "scope_prefix_repeated",
                        f"variable_scope('{relative}') inside '{parent.name}' gives '{new_name}': "
                        "the scope name is repeated",
                        where,
                    )
            scope = VarScope(
                new_name,
                new_reuse,
                opened,
                partitioner=partitioner if partitioner is not None else parent.partitioner,
                dtype=dtype or parent.dtype,
                custom_getter=custom_getter or parent.custom_getter,
                reuse_origin=origin,
            )
        frame = VarScopeFrame(scope, kind, parent, previous_stack, saved_counts, where.site)
        self.var_scope = scope
        self.constructs.append(("var", frame))
        return frame

    @staticmethod
    def _origin_of(new_reuse: Reuse, requested: Reuse, inherited_from: VarScope, name: str,
                   where: Where) -> Related | None:
        """Where a new scope's reuse=True comes from: its own reuse=True, or the scope it inherits
        reuse from (which may have it from a `reuse_variables()` call)."""
        if new_reuse is not Reuse.TRUE:
            return None
        if requested is Reuse.TRUE:
            return Related(where.site, f"reuse=True comes from the scope '{name}' entered here")
        return inherited_from.reuse_origin

    def exit_variable_scope(self, frame: VarScopeFrame) -> None:
        if frame.kind == "object":
            assert frame.saved_counts is not None
            self.counts.restore(frame.saved_counts)
        else:
            self.counts.close_subscopes(frame.scope.name)
        self.var_scope = frame.previous_scope
        self.name_stack = frame.previous_name_stack
        if self.constructs and self.constructs[-1][1] is frame:
            self.constructs.pop()

    def active_scopes(self) -> list[VarScope]:
        return [self.root] + [frame.scope for kind, frame in self.constructs if kind == "var"]

    def reuse_variables(self, scope: VarScope, where: Where) -> None:
        # A captured scope object set to reuse outside its block is a deliberate idiom (later
        # re-entries by object reuse); only the root scope is sticky for the rest of the graph.
        # Whether that leak matters is TFS105's judgement: it looks for later creations that fail
        # with this call as their reuse origin.
        if scope.is_root and scope.name != UNKNOWN_PART:
            self._event(
                "sticky_reuse",
                "reuse_variables() on the root variable scope: the rest of the graph stays in reuse mode",
                where,
            )
        was_reusing = scope.reuse is Reuse.TRUE
        scope.reuse = Reuse.TRUE if self.certain_now or was_reusing else Reuse.UNKNOWN
        if scope.reuse is Reuse.TRUE and not was_reusing:
            what = "the root variable scope" if scope.is_root else f"the scope '{scope.name}'"
            scope.reuse_origin = Related(where.site, f"reuse_variables() on {what} turns reuse on here")

    # ------------------------------------------------------------------ get_variable
    def store_key(self, name: str) -> str:
        scope_name = self.var_scope.name
        return f"{scope_name}/{name}" if scope_name else name

    def _existing(self, key: str) -> tuple[StoreEntry | None, bool]:
        """The entry for key and whether its absence/presence is proven."""
        entry = self.store.get(key)
        if entry is not None:
            return entry, not entry.maybe
        if UNKNOWN_PART in key or not self.complete:
            return None, False
        for other in self.unknown_keys:
            if _may_match(other, key):
                return None, False
        return None, True

    def get_variable(
        self,
        name: str,
        where: Where,
        shape: Shape | None = None,
        shape_given: bool = False,
        dtype: str | None = None,
        initializer: Initializer | None = None,
        partitioner: Any = None,
        trainable: bool | None = True,
        collections: tuple[str, ...] | None = None,
        local: bool = False,
        kind: str = "get_variable",
        colocate_with: str | None = None,
    ) -> VariableRecord | PartitionedEntry | None:
        """`tf.compat.v1.get_variable` (or `get_local_variable` with local=True).

        `shape_given` distinguishes `shape=None` (not given) from a shape the analysis could not
        compute (shape_given=True, shape=None).  Returns the record (created or reused), the
        partitioned entry, or None when the outcome is unknown.
        """
        scope = self.var_scope
        key = self.store_key(name)
        reuse = scope.reuse
        first = name.split("/")[0]
        if "/" in name and scope.name and first == scope.name.split("/")[-1] and scope.certain:
            self._event(
                "scope_prefix_repeated",
                f"get_variable('{name}') inside scope '{scope.name}' gives '{key}': the scope name is repeated",
                where,
            )
        dtype = dtype or (initializer.dtype if initializer and initializer.is_callable is False else None) \
            or scope.dtype or "float32"
        if collections is None:
            collections = ("local_variables",) if local else ("variables",)
        if trainable is None:
            trainable = not local
        certain_scope = scope.certain
        if partitioner is None:
            partitioner = scope.partitioner
        is_scalar = shape_given and shape == ()
        if partitioner is not None and not is_scalar:
            return self._get_partitioned(key, where, shape, shape_given, dtype, partitioner, reuse,
                                         trainable, collections, kind, certain_scope)
        if reuse is Reuse.TRUE and key in self.partitioned:
            return self.partitioned[key]
        if f"{key}/part_0" in self.store:
            part0 = self.store[f"{key}/part_0"]
            self._event(
                "shared_mismatch",
                f"No partitioner was provided, but a partitioned version of the variable was found: "
                f"{key}/part_0. Perhaps a variable of the same name was already created with partitioning?",
                where, certain=not part0.maybe and certain_scope, raises=True, key=key,
            )
            return self.partitioned.get(key)  # Recovery: the partitioned variable that exists.
        return self._get_single(key, where, shape, shape_given, dtype, initializer, reuse, trainable,
                                collections, local, kind, certain_scope, colocate_with)

    def _get_single(self, key: str, where: Where, shape: Shape | None, shape_given: bool, dtype: str,
                    initializer: Initializer | None, reuse: Reuse, trainable: bool,
                    collections: tuple[str, ...], local: bool, kind: str, certain_scope: bool,
                    colocate_with: str | None = None, partition_of: str | None = None
                    ) -> VariableRecord | None:
        if initializer is not None and initializer.is_callable is False and shape_given:
            self._event("invalid_arguments", "If initializer is a constant, do not specify shape.",
                        where, raises=True, error="ValueError", key=key)
            shape, shape_given = None, False  # Recovery: the constant's own shape (drop `shape=`).
        entry, proven = self._existing(key)
        certain = proven and certain_scope
        if entry is not None:
            if reuse is Reuse.FALSE and entry.recovered:
                entry.recovered = False  # the real creation of what a recovery created (docstring)
                return entry.record
            if reuse is Reuse.FALSE:
                if self._event(
                    "already_exists", ALREADY_EXISTS.format(key=key), where, certain=certain,
                    related=(Related(entry.record.site, "first created here"),) + entry.record.chain,
                    raises=True, first_chain=entry.record.chain, key=key,
                ):
                    return entry.record  # Recovery: the variable that exists, as reuse would give.
                return None
            if reuse is Reuse.UNKNOWN:
                return entry.record
            # Recovery from a mismatch: the variable that exists.
            self._check_compatible(entry.record, key, shape if shape_given else None, dtype, where, certain)
            return entry.record
        recovered = False
        if reuse is Reuse.TRUE:
            # Recovery: the variable is created below, as the call that should have come first
            # would have created it.  Creation arguments are not checked: under reuse=True
            # TensorFlow never reaches its creation checks.
            recovered = self._event(
                "does_not_exist", DOES_NOT_EXIST.format(key=key), where, certain=certain,
                related=self._reuse_origin(), raises=True, key=key,
                reuse_origin=self.var_scope.reuse_origin, creation=kind,
            )
        # Creation.  Its argument checks hold only when this certainly is a creation: not a
        # lookup (reuse=True), not an AUTO_REUSE call that may find the variable, no unknown name.
        creation_certain = certain and reuse is not Reuse.TRUE
        if initializer is not None and initializer.is_callable is False and not shape_given:
            shape = initializer.value_shape
        elif initializer is None or initializer.is_callable:
            if initializer is None and dtype not in DEFAULT_INIT_DTYPES and dtype is not None:
                # Recovery: created with the initializer the fix supplies.
                self._event("invalid_arguments",
                            f"An initializer for variable {key} of <dtype: '{dtype}'> is required",
                            where, certain=creation_certain, raises=True, error="ValueError", key=key)
            partial = shape_given and shape is not None and any(dim is None for dim in shape)
            if initializer is not None and initializer.needs_arguments and (not shape_given or partial):
                # TensorFlow calls the initializer with the shape only when it is fully defined;
                # otherwise it must take no arguments.  A None dimension may be one the analysis
                # did not compute (`param.shape.as_list()`), not the program's: not certain.
                # Recovery: created with the shape the fix supplies, unknown here.
                self._event("invalid_arguments", INVALID_INITIALIZER, where,
                            certain=creation_certain and not partial, raises=True, error="ValueError", key=key)
                shape = None
            elif not shape_given:
                if initializer is None:
                    # Recovery: created with the shape the fix supplies, unknown here.
                    self._event(
                        "invalid_arguments",
                        f"Variable {key} did not get an initializer, so its `shape` argument must be specified.",
                        where, certain=creation_certain, raises=True, error="ValueError", key=key,
                    )
                shape = None
            elif shape is not None and any(dim is None for dim in shape) and initializer is None:
                # A partially known literal shape: TensorFlow cannot build the default initializer.
                self._event("invalid_arguments", INVALID_INITIALIZER, where, certain=False, error="ValueError", key=key)
        speculative = not self.certain_now
        if key.endswith("/"):
            graph_name, name_certain, clash = key[:-1], True, None
        else:
            unique = self.namer.unique_name(key, speculative=speculative)
            graph_name, name_certain, clash = unique.name, unique.certain, unique.case_clash_with
        if clash is not None and name_certain:
            self._event(
                "case_only_clash",
                f"'{key}' differs only by case from '{clash}' already in the graph: "
                f"TensorFlow renames this variable to '{graph_name}'",
                where,
            )
        if "//" in key or key.startswith("/"):
            self._event(
                "empty_name_segment",
                f"variable '{key}' has an empty name segment: a scope name ending in '/' or an empty "
                "variable_scope('') inside a scope",
                where, certain=certain_scope,
            )
        self.note_name_scope_ignored(key, where)
        record = VariableRecord(
            name=graph_name,
            store_key=key,
            shape=shape,
            dtype=dtype,
            kind=kind,
            site=where.site,
            certain=name_certain and certain_scope and not speculative and UNKNOWN_PART not in key,
            device=self.device_for("VariableV2", colocate_with),
            trainable=trainable,
            collections=_with_trainable(collections, trainable),
            partition_of=partition_of,
            scopes=self._scope_chain(),
            chain=where.chain,
            after_error=self.after_error,
        )
        self.records.append(record)
        # Present for sure once a creation on the certain path, with a known name and reuse=False,
        # went through, even in an incomplete graph: had an unseen creation made it before, this
        # line raised (and the store holds it either way).
        present = not speculative and certain_scope and UNKNOWN_PART not in key and (proven or reuse is Reuse.FALSE)
        self._put(StoreEntry(key, record, maybe=not present, local=local, recovered=recovered))
        return record

    def _put(self, entry: StoreEntry) -> None:
        if entry.key not in self.store and UNKNOWN_PART in entry.key:
            self.unknown_keys.append(entry.key)
        self.store[entry.key] = entry

    def _check_compatible(self, found: VariableRecord, key: str, shape: Shape | None, dtype: str,
                          where: Where, certain: bool) -> None:
        if shape is not None and found.shape is not None and not _compatible(shape, found.shape):
            self._event(
                "shared_mismatch",
                f"Trying to share variable {key}, but specified shape {_shape_text(shape)} "
                f"and found shape {_shape_text(found.shape)}.",
                where, certain=certain, related=(Related(found.site, "first created here"),),
                raises=True, key=key,
            )
        if found.dtype and dtype and _base_dtype(dtype) != _base_dtype(found.dtype):
            self._event(
                "shared_mismatch",
                f"Trying to share variable {key}, but specified dtype {dtype} and found dtype {found.dtype}.",
                where, certain=certain, related=(Related(found.site, "first created here"),),
                raises=True, key=key,
            )

    def _get_partitioned(self, key: str, where: Where, shape: Shape | None, shape_given: bool, dtype: str,
                         partitioner: Any, reuse: Reuse, trainable: bool, collections: tuple[str, ...],
                         kind: str, certain_scope: bool) -> PartitionedEntry | None:
        existing = self.partitioned.get(key)
        full_shape = shape if shape_given else (existing.shape if existing else None)
        partitions = None
        if partitioner is not UNKNOWN_SETTING and full_shape is not None and None not in full_shape:
            partitions = partitioner.partitions(full_shape)
        if existing is not None:
            proven = not existing.maybe and certain_scope
            if reuse is Reuse.FALSE:
                self._event(
                    "already_exists",
                    f"Partitioned variable with name {key} already exists. Did you mean to set reuse=True "
                    "or reuse=tf.AUTO_REUSE in VarScope?",
                    where, certain=proven, related=(Related(existing.parts[0].site, "first created here"),),
                    raises=True, key=key,
                )
                return existing if proven else None  # Recovery: the variable that exists.
            if partitions is not None and partitions != existing.partitions:
                self._event(
                    "shared_mismatch",
                    f"Trying to reuse partitioned variable {key}, but specified partitions {partitions} "
                    f"and found partitions {existing.partitions}.",
                    where, certain=proven, raises=True, key=key,
                )
            return existing
        if key in self.store and not self.store[key].maybe:
            self._event(
                "shared_mismatch",
                f"A partitioner was provided, but an unpartitioned version of the variable was found: {key}.  "
                "Perhaps a variable of the same name was already created without partitioning?",
                where, certain=certain_scope, raises=True, key=key,
            )
            return None  # Recovery: the unpartitioned variable that exists (no partitioned entry).
        if reuse is Reuse.TRUE:
            proven = self.complete and certain_scope and UNKNOWN_PART not in key
            self._event(
                "does_not_exist",
                f"PartitionedVariable {key} does not exist, or was not created with tf.get_variable(). "
                "Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in VarScope?",
                where, certain=proven, related=self._reuse_origin(), raises=True, key=key,
                reuse_origin=self.var_scope.reuse_origin, creation=kind,
            )
            reuse = Reuse.FALSE  # Recovery: the parts are created, as the first call would have.
        if full_shape is None or None in full_shape or partitions is None:
            # Parts unknown: the store may now hold anything under this key.
            self._put(StoreEntry(
                f"{key}/{UNKNOWN_PART}",
                VariableRecord(f"{key}/part_{UNKNOWN_PART}", None, None, dtype, kind, where.site, False),
                maybe=True,
            ))
            return None
        parts = []
        for index, part_shape in enumerate(part_shapes(tuple(full_shape), partitions)):  # type: ignore[arg-type]
            record = self._get_single(f"{key}/part_{index}", where, part_shape, True, dtype, None, reuse,
                                      trainable, collections, False, kind, certain_scope, partition_of=key)
            if record is not None:
                parts.append(record)
        entry = PartitionedEntry(key, tuple(full_shape), partitions, parts,  # type: ignore[arg-type]
                                 maybe=not self.certain_now)
        self.partitioned[key] = entry
        return entry

    # ------------------------------------------------------------------ tf.Variable and friends
    def create_variable(
        self,
        name: str | None,
        where: Where,
        shape: Shape | None = None,
        dtype: str | None = "float32",
        trainable: bool = True,
        collections: tuple[str, ...] = ("variables",),
        kind: str = "tf_variable",
        colocate_with: str | None = None,
    ) -> VariableRecord:
        """`tf.Variable(...)`: named by the name scope, uniquified, outside the store."""
        unique = self.namer.unique_name(
            f"{self.name_stack}/{name or 'Variable'}" if self.name_stack else (name or "Variable"),
            speculative=not self.certain_now,
        )
        if unique.case_clash_with is not None and unique.certain:
            self._event(
                "case_only_clash",
                f"'{name}' differs only by case from '{unique.case_clash_with}': TensorFlow renames it "
                f"to '{unique.name}'",
                where,
            )
        record = VariableRecord(
            name=unique.name,
            store_key=None,
            shape=shape,
            dtype=dtype,
            kind=kind,
            site=where.site,
            certain=unique.certain and self.certain_now,
            device=self.device_for("VariableV2", colocate_with),
            trainable=trainable,
            collections=_with_trainable(collections, trainable),
            scopes=self._scope_chain(),
            chain=where.chain,
            after_error=self.after_error,
        )
        self.records.append(record)
        return record

    # ------------------------------------------------------------------ context for rules
    def _scope_chain(self) -> tuple[str, ...]:
        chain = []
        for kind, frame in self.constructs:
            if kind == "var":
                chain.append(f"{frame.scope.name or '<root>'} (reuse={frame.scope.reuse.value})")
            else:
                chain.append(f"name_scope {frame.name or '<root>'}")
        return tuple(chain)

    def _reuse_origin(self) -> tuple[Related, ...]:
        """Which scope (or reuse_variables() call) turned reuse on, to explain a "does not exist"."""
        if self.var_scope.reuse_origin is not None:
            return (self.var_scope.reuse_origin,)
        for kind, frame in reversed(self.constructs):
            if kind == "var" and frame.scope.reuse is Reuse.TRUE and frame.site is not None:
                return (Related(frame.site, f"reuse=True comes from the scope '{frame.scope.name}' entered here"),)
        return ()

    def note_name_scope_ignored(self, key: str, where: Where, what: str = "get_variable") -> None:
        """get_variable (or a tf.layers call) directly inside a user name_scope at the root var scope."""
        if not self.constructs or self.constructs[-1][0] != "name":
            return
        frame = self.constructs[-1][1]
        if self.var_scope.name or not frame.name or self.speculative:
            return
        if self.name_stack + "/" != frame.name:
            return  # TensorFlow itself cleared the name scope (create_global_step does)
        if UNKNOWN_PART in frame.name or UNKNOWN_PART in key:
            return  # an unknown name scope may be None or "" (no prefix at all): nothing is proven
        self._event(
            "name_scope_ignored",
            f"{what} ignores name_scope '{frame.name.rstrip('/')}': the variables are '{key}', "
            f"not '{frame.name}{key}'. Use variable_scope to prefix them",
            where,
            related=(Related(frame.site, "name_scope opened here"),),
        )


# Errors of the variable store's reuse decision: one mistake per user call (module docstring).
_REUSE_ERRORS = frozenset({"already_exists", "does_not_exist"})


def _mistake(kind: str, where: Where, origin: Any, first_chain: tuple[Related, ...] | None) -> tuple[Any, ...]:
    """What the author fixes once: one user call, or one top-level statement (one site) when
    there is no user call.  Across helper calls (DCGAN's discriminator calls conv2d, linear and a
    batch_norm object, each a user call of its own):
    - every lookup that fails because of one reuse setting is that setting's mistake;
    - every duplicate made by one repeated call is that call's mistake: the chain up to the first
      call that differs from the first creation's chain (`discriminator(..., reuse=False)` at
      line 129 where the first creation came from line 128, or its second call in a loop)."""
    if kind == "does_not_exist" and isinstance(origin, Related):
        return (kind, (origin.site,))
    chain = tuple(where.chain)
    if kind == "already_exists" and first_chain is not None:
        for index, (now, before) in enumerate(zip(chain, first_chain)):
            if (now.site, now.note) != (before.site, before.note):
                return (kind, tuple(related.site for related in chain[:index + 1]))
    return (kind, tuple(related.site for related in chain) or (where.site,))


def _mark_unknown_suffix(name: str) -> str:
    return name + "_" + UNKNOWN_PART


def _may_match(pattern: str, key: str) -> bool:
    import re

    regex = "^" + ".*".join(re.escape(part) for part in pattern.split(UNKNOWN_PART)) + "$"
    return re.match(regex, key) is not None


def _compatible(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> bool:
    if len(a) != len(b):
        return False
    return all(x is None or y is None or x == y for x, y in zip(a, b))


def _shape_text(shape: tuple[int | None, ...]) -> str:
    dims = ["None" if d is None else str(d) for d in shape]
    if len(dims) == 1:
        return f"({dims[0]},)"
    return "(" + ", ".join(dims) + ")"


def _base_dtype(dtype: str) -> str:
    aliases = {"half": "float16", "double": "float64", "float": "float32"}
    dtype = dtype.removesuffix("_ref")
    return aliases.get(dtype, dtype)


def _with_trainable(collections: tuple[str, ...], trainable: bool) -> tuple[str, ...]:
    if trainable and "trainable_variables" not in collections:
        return tuple(collections) + ("trainable_variables",)
    return tuple(collections)
