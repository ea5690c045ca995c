"""The migration report as values: collected facts judged, grouped and priced.  No output here."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from scopelint.migrate.checkpoint import CheckpointComparison, CheckpointKey, compare
from scopelint.migrate.collect import ANALYZER_FAILED, NOT_PARSED, UNREADABLE, ModuleFacts
from scopelint.migrate.constructs import ConstructSite
from scopelint.migrate.effort import ModuleEffort, estimate, size_of
from scopelint.migrate.inventory import InventoryRow, SharedVariable, build_inventory, build_reuse_map
from scopelint.migrate.recipes import (
    NO_TENSORFLOW,
    NOT_ANALYSED,
    READINESS_ORDER,
    RECIPES,
    RENAME_ONLY,
    Recipe,
    readiness_rank,
)
from scopelint.trace import RAISING_KINDS, Site

SCHEMA = "scopelint-migrate"
SCHEMA_VERSION = 1

# Trace events that matter for the migration, and the recipe that explains each.
EVENT_RECIPES: dict[str, str] = {
    "variable_ignores_reuse": "tf_variable",
    "unnamed_layer_duplicated": "v1_layers",
    "template_per_call": "make_template",
    "keras_ignores_reuse": "keras_layers",
    "rnn_cell_reused": "rnn",
    "unintended_sharing": "reuse",
    "reuse_false_ignored": "reuse",
    "sticky_reuse": "reuse",
    "reuse_param_ignored": "reuse",
    "name_scope_ignored": "variable_scope",
    "device_setter_unused": "device_setter",
    "device_setter_returns_none": "device_setter",
    "device_function_in_tf2_device": "device_setter",
    "local_session_for_cluster_graph": "session",
}
# Construct sites that are blockers or silent failures by themselves (tf2-migration.md 4.2.8).
SITE_HAZARDS: dict[str, str] = {
    "sync_replicas": "TF2 parameter-server training is asynchronous only: SyncReplicasOptimizer has no PS successor",
    "contrib": "tf.contrib is gone in TF2 and scopelint knows no successor for this symbol; tf_upgrade_v2 renames "
               "a few (tf.contrib.tpu.CrossShardOptimizer -> tf.compat.v1.tpu.CrossShardOptimizer): check its log",
    "partitioner": "partitioners do not work under track_tf1_style_variables, even with the shim",
    "custom_getter": "custom_getter has no TF2 equivalent",
    "collections": "under eager, collections raise or silently return empty lists",
}
# TF1 partitioner -> TF2 partitioner class (MW).
TF2_PARTITIONERS = {
    "tf.fixed_size_partitioner": "tf.distribute.experimental.partitioners.FixedShardsPartitioner",
    "tf.variable_axis_size_partitioner": "tf.distribute.experimental.partitioners.MaxSizePartitioner",
    "tf.min_max_variable_partitioner": "tf.distribute.experimental.partitioners.MinSizePartitioner",
}
DISTRIBUTED_CONSTRUCTS = ("cluster", "server", "device_setter", "partitioner", "sync_replicas")


@dataclass(frozen=True)
class Hazard:
    """One kind of break, with every site where it happens (deduplicated)."""

    kind: str
    recipe: str | None  # construct id of the recipe that fixes it
    message: str  # one representative message
    sites: tuple[Site, ...]
    certain: bool
    fails_in_tf1: bool = False  # TensorFlow 1 raises here already: fix it before migrating


@dataclass(frozen=True)
class ModuleReport:
    path: str
    status: str
    problem: str | None
    verdict: str
    constructs: dict[str, int]  # certain sites per construct
    unresolved: int
    effort: ModuleEffort
    variables: int  # inventory rows created in this module


@dataclass(frozen=True)
class PartitionerUse:
    site: ConstructSite
    tf2_class: str | None


@dataclass
class DistributedInventory:
    clusters: list[ConstructSite] = field(default_factory=list)
    servers: list[ConstructSite] = field(default_factory=list)
    setters: list[ConstructSite] = field(default_factory=list)
    partitioners: list[PartitionerUse] = field(default_factory=list)
    blockers: list[ConstructSite] = field(default_factory=list)  # SyncReplicasOptimizer
    ps_variables: dict[str, int] = field(default_factory=dict)  # device -> saved variables predicted on it

    @property
    def empty(self) -> bool:
        return not (self.clusters or self.servers or self.setters or self.partitioners or self.blockers)


@dataclass
class MigrationReport:
    paths: tuple[str, ...]
    modules: list[ModuleReport]
    import_styles: list[tuple[str, bool, int]]  # (style, seen by tf_upgrade_v2, statements)
    construct_totals: dict[str, int]
    inventory: list[InventoryRow]
    shared: list[SharedVariable]
    uncertain_sharing: int
    hazards: list[Hazard]
    recipes: list[Recipe]  # the recipes the project needs, in READINESS order
    distributed: DistributedInventory
    checkpoint: CheckpointComparison | None = None
    checkpoint_graph: str | None = None  # the module whose variables the checkpoint was held against

    @property
    def files_scanned(self) -> int:
        return len(self.modules)

    @property
    def files_using_tensorflow(self) -> int:
        return sum(1 for module in self.modules if module.verdict not in (NO_TENSORFLOW,))

    @property
    def files_not_analysed(self) -> list[ModuleReport]:
        return [module for module in self.modules if module.verdict == NOT_ANALYSED]

    @property
    def effort_points(self) -> int:
        return sum(module.effort.points for module in self.modules)

    @property
    def effort_size(self) -> str:
        return size_of(self.effort_points)

    @property
    def unresolved(self) -> int:
        return sum(module.unresolved for module in self.modules)

    @property
    def verdict_counts(self) -> dict[str, int]:
        counts = Counter(module.verdict for module in self.modules)
        order = (*READINESS_ORDER, NOT_ANALYSED, NO_TENSORFLOW)
        return {verdict: counts[verdict] for verdict in order if counts[verdict]}


def _verdict(facts: ModuleFacts) -> str:
    if facts.status in (NOT_PARSED, UNREADABLE):
        return NOT_ANALYSED
    if not facts.uses_tensorflow:
        return NO_TENSORFLOW
    levels = [RECIPES[site.construct].readiness for site in facts.constructs.sites]
    if facts.status == ANALYZER_FAILED:
        return NOT_ANALYSED
    return max(levels, key=readiness_rank) if levels else RENAME_ONLY


def _resolved(site: ConstructSite, proven_sharing: set[str]) -> bool:
    """A `reuse=<expression>` site counts as a reuse site once the trace proved that a get_variable
    in the same module shared a variable."""
    return site.certain or (site.construct == "reuse" and site.site.path in proven_sharing)


def _module_report(facts: ModuleFacts, inventory: Sequence[InventoryRow], proven_sharing: set[str]) -> ModuleReport:
    certain = Counter(site.construct for site in facts.constructs.sites if _resolved(site, proven_sharing))
    unresolved = sum(1 for site in facts.constructs.sites if not _resolved(site, proven_sharing))
    rows_here = [row for row in inventory if row.module == facts.path]
    unresolved += sum(1 for row in rows_here if not row.certain)
    if facts.trace is not None:
        unresolved += sum(1 for event in facts.trace.events
                          if not event.certain and event.site.path == facts.path and event.kind in EVENT_RECIPES)
        if not facts.trace.complete:
            unresolved += 1  # something unmodelled may create variables: the inventory may be short
    return ModuleReport(
        path=facts.path, status=facts.status, problem=facts.problem, verdict=_verdict(facts),
        constructs=dict(sorted(certain.items())), unresolved=unresolved,
        effort=estimate(facts.path, certain, unresolved), variables=len(rows_here),
    )


def _hazards(facts: Sequence[ModuleFacts], shared: Sequence[SharedVariable]) -> list[Hazard]:
    grouped: dict[tuple[str, str], dict[Site, bool]] = {}
    messages: dict[tuple[str, str], str] = {}
    recipes: dict[tuple[str, str], str | None] = {}

    def add(kind: str, group: str, message: str, site: Site, certain: bool, recipe: str | None) -> None:
        key = (kind, group)
        grouped.setdefault(key, {})
        grouped[key][site] = grouped[key].get(site, False) or certain
        messages.setdefault(key, message)
        recipes.setdefault(key, recipe)

    for variable in shared:
        for sharing in variable.sharing:
            add("reuse_ignored_in_eager", "",
                "get_variable shares an existing variable here; under TF2 eager without "
                "track_tf1_style_variables it creates a new one on every call, silently",
                sharing.site, True, "reuse")
        if variable.cross_site:
            add("cross_site_sharing", "", "a variable created at one site is fetched by name at another: the shim "
                "shares only within one layer or module instance; pass the object instead",
                variable.created_at, True, "reuse")
    for module in facts:
        if module.trace is not None:
            for event in module.trace.events:
                if event.kind in EVENT_RECIPES or event.kind in RAISING_KINDS:
                    add(event.kind, "", event.message, event.site, event.certain, EVENT_RECIPES.get(event.kind))
        for site in module.constructs.sites:
            if site.construct in SITE_HAZARDS:
                add(site.construct, "", SITE_HAZARDS[site.construct], site.site, site.certain, site.construct)
    hazards = []
    for key, sites in grouped.items():
        kind = key[0]
        ordered = tuple(sorted(sites, key=lambda site: (site.path, site.line, site.column)))
        hazards.append(Hazard(kind, recipes[key], messages[key], ordered, any(sites.values()),
                              fails_in_tf1=kind in RAISING_KINDS))
    hazards.sort(key=lambda hazard: (not hazard.fails_in_tf1, hazard.kind))
    return hazards


def _distributed(facts: Sequence[ModuleFacts], inventory: Sequence[InventoryRow]) -> DistributedInventory:
    result = DistributedInventory()
    for module in facts:
        for site in module.constructs.sites:
            if site.construct == "cluster":
                result.clusters.append(site)
            elif site.construct == "server":
                result.servers.append(site)
            elif site.construct == "device_setter":
                result.setters.append(site)
            elif site.construct == "partitioner":
                result.partitioners.append(PartitionerUse(site, TF2_PARTITIONERS.get(site.api)))
            elif site.construct == "sync_replicas":
                result.blockers.append(site)
    placed: Counter[str] = Counter()
    for row in inventory:
        for device in row.devices:
            if device and device.startswith("/job:ps"):
                placed[device] += 1
    result.ps_variables = dict(sorted(placed.items()))
    return result


def build_report(facts: Sequence[ModuleFacts], paths: Sequence[str] = (),
                 checkpoint: tuple[str, Sequence[CheckpointKey]] | None = None) -> MigrationReport:
    inventory = build_inventory(facts)
    shared, uncertain_sharing = build_reuse_map(facts)
    proven_sharing = {entry.site.path for variable in shared for entry in variable.sharing}
    modules = [_module_report(module, inventory, proven_sharing) for module in facts]
    styles: Counter[tuple[str, bool]] = Counter(
        (style.style, style.seen_by_upgrade_script) for module in facts for style in module.constructs.imports
    )
    totals: Counter[str] = Counter(site.construct for module in facts for site in module.constructs.sites)
    used = sorted(set(totals) | ({"reuse"} if shared else set()),
                  key=lambda construct: (-readiness_rank(RECIPES[construct].readiness), construct))
    report = MigrationReport(
        paths=tuple(paths), modules=modules,
        import_styles=[(style, seen, count) for (style, seen), count in sorted(styles.items(), key=lambda item: (-item[1], item[0]))],
        construct_totals=dict(sorted(totals.items(), key=lambda item: (-item[1], item[0]))),
        inventory=inventory, shared=shared, uncertain_sharing=uncertain_sharing,
        hazards=_hazards(facts, shared), recipes=[RECIPES[construct] for construct in used],
        distributed=_distributed(facts, inventory),
    )
    if checkpoint is not None:
        report.checkpoint_graph, report.checkpoint = best_comparison(checkpoint[0], inventory, checkpoint[1])
    return report


def best_comparison(path: str, inventory: Sequence[InventoryRow], keys: Sequence[CheckpointKey]
                    ) -> tuple[str | None, CheckpointComparison]:
    """A checkpoint is written by one program: compare it with the variables each analysed module
    built and keep the module whose graph matches the most keys (ties: the fewest missing).  With no
    module matching anything, the whole inventory is used."""
    builders = sorted({module for row in inventory for module in row.built_by})
    best: tuple[tuple[int, int], str, CheckpointComparison] | None = None
    for builder in builders:
        rows = [row for row in inventory if builder in row.built_by]
        comparison = compare(path, rows, keys)
        matched = len(comparison.model.matched) + len(comparison.optimizer.matched)
        missing = len(comparison.model.missing) + len(comparison.optimizer.missing)
        score = (matched, -missing)
        if matched and (best is None or score > best[0]):
            best = (score, builder, comparison)
    if best is None:
        return None, compare(path, inventory, keys)
    return best[1], best[2]
