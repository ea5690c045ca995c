"""The trace: what a program does to TensorFlow's variable machinery.

Both the static interpreter (predicted) and `verify` (observed) produce this record, so rules,
`layout`, `verify` and `migrate` all read one schema.  Values only: no LibCST, no TensorFlow.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A name part the analysis could not compute.  `?` is not a legal character in TensorFlow names
# (tf1-semantics 1.13), so a name containing it is unambiguously partial.
UNKNOWN_PART = "?"

Shape = tuple[int | None, ...] | None
"""A static shape: None when even the rank is unknown; a None dimension is unknown."""


@dataclass(frozen=True)
class Site:
    """A place in a source file; line and column are 1-based, end is exclusive.

    In a Jupyter notebook, `cell` is the cell's 1-based position among all the notebook's cells and
    the lines count from that cell's first line (scopelint/notebooks.py), as ruff reports them."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    cell: int | None = None

    def short(self) -> str:
        return f"line {self.line}" if self.cell is None else f"cell {self.cell}, line {self.line}"

    def position(self) -> str:
        """`line:col`, or `cell N:line:col` in a notebook."""
        place = f"{self.line}:{self.column}"
        return place if self.cell is None else f"cell {self.cell}:{place}"


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding ("first created at line 9")."""

    site: Site | None
    note: str


@dataclass
class VariableRecord:
    """One variable the program creates (a partition part is one record)."""

    name: str  # graph name without ":0"; may contain UNKNOWN_PART
    store_key: str | None  # variable-store key (get_variable family), None for tf.Variable/Keras
    shape: Shape
    dtype: str | None  # "float32", ... ; None when unknown
    kind: str  # get_variable | local_variable | tf_variable | layer | keras | rnn | slot | optimizer | ema
    site: Site
    certain: bool = True  # name and existence are proven by the trace
    device: str | None = ""  # TensorFlow's canonical string, "" for none, None for unknown
    trainable: bool | None = True
    collections: tuple[str, ...] = ("variables",)
    partition_of: str | None = None  # logical (checkpoint) name when this is a part of a partitioned variable
    scopes: tuple[str, ...] = ()  # enclosing var-scope chain with reuse modes, outermost first
    chain: tuple[Related, ...] = ()  # user call stack that led to the creation, outermost first
    graph: int = 0  # which tf.Graph of the program (0 = the first default graph)
    # Created after TensorFlow raised in this graph: predicted for the program as fixed there (the
    # analysis goes on past errors); a real run of the unfixed program never gets here.
    after_error: bool = False

    @property
    def is_local(self) -> bool:
        return "local_variables" in self.collections


@dataclass
class Event:
    """Something the program does that a rule may report.

    `kind` names the fact (see `EVENT_KINDS`); `message` is TensorFlow's own wording where TensorFlow
    raises; `certain` is False when the fact depends on values the analysis could not compute.
    """

    kind: str
    site: Site
    message: str
    certain: bool = True
    related: tuple[Related, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


# Event kinds and what they mean.  Errors (raises=True) are what TensorFlow raises at graph build;
# the interpreter stops the program's main flow at a certain one, as Python would.
EVENT_KINDS: dict[str, str] = {
    "parse_error": "the file could not be parsed",
    "already_exists": "get_variable created a store key that exists while reuse is off",
    "does_not_exist": "get_variable under reuse=True asked for a store key never created",
    "shared_mismatch": "reuse with an incompatible shape or dtype, or a partitioning mismatch",
    "reuse_false_ignored": "reuse=False/None requested inside a reuse=True/AUTO_REUSE scope",
    "sticky_reuse": "reuse_variables() on the root scope or a scope object outside its own with block",
    "reuse_param_ignored": "a function parameter named reuse that is never used",
    "invalid_arguments": "arguments TensorFlow rejects (TypeError/ValueError) in scope or variable calls",
    "variable_ignores_reuse": "tf.Variable created in a scope whose reuse is True/AUTO_REUSE",
    "unnamed_layer_duplicated": "an auto-named layer or default-named scope created again under reuse",
    "template_per_call": "make_template called on each call of a function called more than once",
    "keras_ignores_reuse": "a Keras layer object built in a reused variable scope",
    "rnn_cell_reused": "one RNN cell object used for several layers or scopes",
    "unintended_sharing": "two different layers given the same explicit name under reuse",
    "name_scope_ignored": "get_variable or tf.layers inside a name_scope (it does not prefix them)",
    "scope_prefix_repeated": "a variable or scope name that repeats the enclosing scope path",
    "empty_name_segment": "a name with an empty segment, giving a//w",
    "case_only_clash": "names differing only by case; the graph renames one",
    "device_setter_unused": "a replica_device_setter whose result never reaches device(...)",
    "device_setter_bad_argument": "an argument replica_device_setter does not take (TypeError)",
    "device_setter_returns_none": "a replica_device_setter that returns None, so device(None) clears outer devices",
    "local_session_for_cluster_graph": "a Session without target for a graph with variables on a /job:",
    "device_function_in_tf2_device": "a device function given to TensorFlow 2's tf.device (RuntimeError)",
    "session_without_device_filters": "a worker's session on its own server in a multi-worker cluster, without device_filters",
}

RAISING_KINDS = frozenset({"already_exists", "does_not_exist", "shared_mismatch", "invalid_arguments",
                           "device_setter_bad_argument", "device_function_in_tf2_device"})


@dataclass
class SetterRecord:
    """One execution of a `replica_device_setter(...)` call (predicted traces only).

    Unknown values are None (or strings with UNKNOWN_PART), never guessed.
    """

    site: Site
    certain: bool  # the call certainly ran
    returns_none: bool | None  # True: TensorFlow returned None; False: a device function; None: unknown
    ps_tasks: int | None  # the ps task count the setter cycles over; None when unknown
    ps_device: str | None  # as given ("/job:ps" by default); None for none or unknown
    worker_device: str | None  # as given ("/job:worker" by default); None for none or unknown
    worker_device_given: bool  # False: the argument was left out, so TensorFlow's default applies
    cluster: dict[str, int | None] | None  # a literal, complete cluster: job -> task count (None: unknown count)
    pushed: bool  # the device function reached `device(...)` (False when it is None or unknown)
    chain: tuple[Related, ...] = ()


@dataclass
class Placement:
    """How one variable op got its device (predicted traces only): which setter ran for it and what
    that setter, with the device scopes opened inside it, gave before the scopes around it applied."""

    variable: int  # index into Trace.variables
    setter: int | None  # index into Trace.setters of the innermost setter that ran; None when none ran
    setter_device: str | None  # the device from that setter and the scopes inside it; None when unknown
    round_robin_task: int | None  # the ps task the round robin chose; None when not called or unknown
    next_task: int | None  # that setter's round-robin counter afterwards; None when unknown
    known: bool  # every device scope that applied is known (so "no setter ran" is proven)
    cleared: bool  # a `device(None)` kept the scopes around it from applying
    colocated: bool  # created under colocate_with: the device is the colocated op's


@dataclass(frozen=True)
class PathCondition:
    """Which configuration one run of the program had (analysis/paths.py).

    `label` is how a finding states it ("with the default flags", "when --dataset=celebA");
    `argv` and `environment` are how to run the program that way (the TensorFlow oracle does)."""

    label: str
    is_default: bool
    argv: tuple[str, ...] = ()
    environment: tuple[tuple[str, str], ...] = ()
    # Every configuration value the run tested: (key, its value in this run spelled, "any other
    # value" spelled or None): ("flag:dataset", "--dataset=mnist", "FLAGS.dataset != 'mnist'").
    # Findings on several runs are described by the one value that separates them from the others.
    decisions: tuple[tuple[str, str, str | None], ...] = ()
    # The program itself raised and ended this run (argument checks, a missing data file): a
    # finding it lacks may lie past that point, so the run tells no condition apart.
    stopped: bool = False


@dataclass(frozen=True)
class BudgetStop:
    """An entry point whose run the analysis's step budget ended: what it would have found past
    that point is missing."""

    entry: str  # "" for the module's top level, else the test method's name
    call_site: Site | None  # the innermost user call from the analysed file it was running (None: none)
    function: str | None  # the function that call runs


@dataclass
class Trace:
    """Everything one analysed module (or one real run) produced."""

    path: str
    variables: list[VariableRecord] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    uses_tensorflow: bool = True
    # False once something unmodelled may have created variables: "does not exist" is then unproven.
    complete: bool = True
    # The graph that is the default one when the program ends (what a real run's
    # `global_variables()` lists at the end).
    final_graph: int = 0
    # Device-setter facts for the distributed rules (TFS4xx); empty for observed traces.
    setters: list[SetterRecord] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    # Path exploration: the configuration of this run (None when the program reads none), and on
    # the default run's trace, the program's other runs, one per explored configuration.
    condition: PathCondition | None = None
    other_paths: list["Trace"] = field(default_factory=list)
    paths_merged: bool = False  # more configurations were seen than the bound lets run
    steps: int = 0  # interpretation work of this run (bounds the work of all runs)
    stopped_by_program: bool = False  # the program's own raise ended the run at its top level
    budget_stops: list[BudgetStop] = field(default_factory=list)

    def final_variables(self) -> list[VariableRecord]:
        return [record for record in self.variables if record.graph == self.final_graph]

    def inventory(self) -> list[VariableRecord]:
        """The variables of every graph the program builds, once each: an Estimator's model_fn
        builds one graph per train/evaluate call (the final default graph may hold none), so a
        variable created at the same site under the same name in several graphs is listed once."""
        seen: set[tuple[str, Site]] = set()
        result = []
        for record in self.variables:
            if (record.name, record.site) not in seen:
                seen.add((record.name, record.site))
                result.append(record)
        return result

    def events_of(self, kind: str) -> list[Event]:
        return [event for event in self.events if event.kind == kind]

    def raising_events(self) -> list[Event]:
        """Where TensorFlow certainly raises while this run builds its graph."""
        return [event for event in self.events if event.kind in RAISING_KINDS and event.certain]
