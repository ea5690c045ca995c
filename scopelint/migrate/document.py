"""The report laid out for people: titled sections of paragraphs and tables, in reading order.

Markdown and HTML render this same layout, so both say the same thing; JSON is built from the
report values instead (render_json).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from scopelint.migrate.effort import SIZES, WEIGHTS
from scopelint.migrate.inventory import location, shape_text
from scopelint.migrate.recipes import RECIPES
from scopelint.migrate.report import MigrationReport
from scopelint.trace import Site

# Long tables are cut in the human formats; JSON and the name map keep every row.
MAX_ROWS = 500


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    omitted: int = 0  # rows left out (see MAX_ROWS)


@dataclass
class Section:
    title: str
    anchor: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    subsections: list["Section"] = field(default_factory=list)
    collapsed: bool = False  # HTML: a closed <details>


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    return Table(headers, tuple(rows[:MAX_ROWS]), max(0, len(rows) - MAX_ROWS))


def _sites(sites: tuple[Site, ...] | list[Site], limit: int = 8) -> str:
    shown = ", ".join(location(site) for site in sites[:limit])
    return shown + (f" (+{len(sites) - limit} more)" if len(sites) > limit else "")


def _yes(flag: bool | None) -> str:
    return "?" if flag is None else ("yes" if flag else "no")


def summary_section(report: MigrationReport) -> Section:
    section = Section("Summary", "summary")
    not_analysed = report.files_not_analysed
    section.paragraphs.append(
        f"Files scanned: {report.files_scanned}. Files using TensorFlow: {report.files_using_tensorflow}. "
        f"Files not analysed: {len(not_analysed)} (never counted as fine). "
        f"Variables predicted: {len(report.inventory)}. "
        f"Effort: {report.effort_points} points ({report.effort_size}), {report.unresolved} unresolved items counted apart."
    )
    if not_analysed:
        section.tables.append(_table(("file not analysed", "reason"), [
            (module.path, (module.problem or "").splitlines()[0]) for module in not_analysed]))
    section.tables.append(_table(("import style", "statements", "seen by tf_upgrade_v2"), [
        (style, str(count), "yes" if seen else "no (it reads only names written tf.X)")
        for style, seen, count in report.import_styles]))
    section.tables.append(_table(("construct", "sites", "readiness", "recipe"), [
        (construct, str(count), RECIPES[construct].readiness, f"#recipe-{construct}")
        for construct, count in report.construct_totals.items()]))
    section.tables.append(_table(("verdict", "modules"), [(verdict, str(count)) for verdict, count in report.verdict_counts.items()]))
    section.tables.append(_table(("module", "verdict", "variables", "points", "size", "unresolved"), [
        (module.path, module.verdict, str(module.variables), str(module.effort.points), module.effort.size,
         str(module.unresolved)) for module in report.modules]))
    return section


def effort_section(report: MigrationReport) -> Section:
    section = Section("Effort estimate", "effort")
    section.paragraphs.append(
        "Points per construct site from one table of weights (scopelint/migrate/effort.py). Sites whose "
        "deciding value is not a literal, variables not named for certain, uncertain findings and modules "
        "where unmodelled code may create variables are counted as unresolved, not priced. Sizes: "
        + ", ".join(f"{name} from {bound}" for bound, name in SIZES) + "."
    )
    totals: dict[str, list[int]] = {}
    for module in report.modules:
        for line in module.effort.lines:
            entry = totals.setdefault(line.construct, [0, 0])
            entry[0] += line.sites
            entry[1] += line.points
    section.tables.append(_table(("construct", "weight", "sites", "points"), [
        (construct, str(WEIGHTS[construct]), str(totals.get(construct, [0, 0])[0]), str(totals.get(construct, [0, 0])[1]))
        for construct in sorted(WEIGHTS, key=lambda name: (-WEIGHTS[name], name))]
        + [("total", "", "", str(report.effort_points))]))
    section.tables.append(_table(("module", "points", "size", "unresolved", "largest items"), [
        (module.path, str(module.effort.points), module.effort.size, str(module.effort.unresolved),
         ", ".join(f"{line.construct} {line.sites}x{line.weight}" for line in
                   sorted(module.effort.lines, key=lambda line: -line.points)[:3] if line.points))
        for module in report.modules if module.effort.points or module.effort.unresolved]))
    return section


def inventory_section(report: MigrationReport) -> Section:
    section = Section("Variable inventory", "inventory", collapsed=len(report.inventory) > 40)
    section.paragraphs.append(
        "One row per checkpoint key (a partitioned variable is one key with its full shape; its parts "
        "are listed). Names are TensorFlow's, from every graph the program builds (an Estimator's "
        "model_fn included), auto-name counters included; '?' marks what the analysis could not "
        "compute. Scopes are the enclosing variable scopes with their reuse mode."
    )
    section.tables.append(_table(
        ("checkpoint key", "shape", "dtype", "kind", "parts", "site", "scopes", "device", "certain"),
        [(row.key, shape_text(row.shape), row.dtype or "?", row.kind + ("" if row.saved else " (local, not saved)"),
          " + ".join(row.parts), location(row.site), " > ".join(row.scopes),
          ", ".join(sorted({"?" if device is None else (device or "-") for device in row.devices})),
          "yes" if row.certain else "no")
         for row in report.inventory]))
    return section


def reuse_section(report: MigrationReport) -> Section:
    section = Section("Reuse map", "reuse")
    section.paragraphs.append(
        "Every get_variable call that received an existing variable. Under TF2 eager without "
        "tf.compat.v1.keras.utils.track_tf1_style_variables, reuse is ignored: each of these sites creates "
        "a new variable silently (measured). Recipe: #recipe-reuse."
        + (f" {report.uncertain_sharing} sharings on paths that may not run are counted apart." if report.uncertain_sharing else "")
    )
    section.tables.append(_table(("variable", "created at", "shared at", "scope (reuse)", "via"), [
        (shared.key, location(shared.created_at), location(entry.site), f"{entry.scope or '<root>'} ({entry.reuse})", entry.via)
        for shared in report.shared for entry in shared.sharing]))
    return section


def hazards_section(report: MigrationReport) -> Section:
    section = Section("Blockers and silent failures", "hazards")
    section.paragraphs.append("One line per kind, with every site. 'fails in TF1' lines are errors TensorFlow 1 "
                              "raises already: fix them first (scopelint check).")
    section.tables.append(_table(("kind", "sites", "what happens", "recipe", "certain"), [
        (hazard.kind + (" (fails in TF1)" if hazard.fails_in_tf1 else ""), _sites(hazard.sites), hazard.message,
         f"#recipe-{hazard.recipe}" if hazard.recipe else "", _yes(hazard.certain))
        for hazard in report.hazards]))
    return section


def distributed_section(report: MigrationReport) -> Section:
    distributed = report.distributed
    section = Section("Distributed inventory", "distributed")
    if distributed.empty:
        section.paragraphs.append("No cluster, server, device setter, partitioner or SyncReplicasOptimizer found.")
        return section
    section.paragraphs.append(
        "TF2 target: one coordinator program with tf.distribute.ParameterServerStrategy "
        "(variable_partitioner=...) and tf.distribute.coordinator.ClusterCoordinator dispatching "
        "tf.functions to workers; tf.distribute.Server on every worker and ps task. Recipes: "
        "#recipe-device_setter, #recipe-cluster, #recipe-server, #recipe-partitioner, #recipe-sync_replicas."
    )
    rows = []
    for site in distributed.clusters:
        jobs = site.detail_dict().get("jobs")
        rows.append(("cluster", location(site.site), ", ".join(f"{job}: {count} tasks" for job, count in jobs) if jobs else "jobs not literal",
                     "TFConfigClusterResolver / ClusterSpec"))
    for site in distributed.servers:
        rows.append(("server", location(site.site), site.api, "tf.distribute.Server"))
    for site in distributed.setters:
        detail = site.detail_dict()
        rows.append(("device setter", location(site.site), "arguments: " + ", ".join(detail.get("arguments", ())),
                     "ParameterServerStrategy places variables"))
    for use in distributed.partitioners:
        arguments = ", ".join(f"{name}={value}" for name, value in use.site.detail_dict().get("arguments", ()))
        rows.append(("partitioner", location(use.site.site), f"{use.site.api}({arguments})", use.tf2_class or "no known TF2 class"))
    for site in distributed.blockers:
        rows.append(("BLOCKER", location(site.site), site.api,
                     "none for PS (async only); MultiWorkerMirroredStrategy for synchronous training"))
    section.tables.append(_table(("what", "site", "detail", "TF2"), rows))
    if distributed.ps_variables:
        section.tables.append(_table(("ps device", "variables predicted"),
                                     [(device, str(count)) for device, count in distributed.ps_variables.items()]))
    return section


def checkpoint_section(report: MigrationReport) -> Section | None:
    comparison = report.checkpoint
    if comparison is None:
        return None
    section = Section("Checkpoint cross-check", "checkpoint")
    verdict = "full agreement" if comparison.full_agreement else "DIFFERENCES"
    section.paragraphs.append(
        f"{comparison.path}: {verdict}. Compared with the variables built by "
        f"{report.checkpoint_graph or 'all analysed modules'}. Variables: {len(comparison.model.matched)} matched, "
        f"{len(comparison.model.missing)} missing, {len(comparison.model.unexpected)} unexpected, "
        f"{len(comparison.model.shape_mismatches)} shape mismatches. Optimizer state (listed apart; it changes with "
        f"Keras optimizers anyway): {len(comparison.optimizer.matched)} matched, {len(comparison.optimizer.missing)} "
        f"missing, {len(comparison.optimizer.unexpected)} unexpected."
    )
    for title, side in (("variables", comparison.model), ("optimizer state", comparison.optimizer)):
        rows = [("missing (predicted, not in checkpoint)", row.key, shape_text(row.shape), location(row.site)) for row in side.missing]
        rows += [("unexpected (in checkpoint, not predicted)", entry.key, shape_text(entry.shape), "") for entry in side.unexpected]
        rows += [("shape mismatch", match.key, f"predicted {shape_text(match.predicted_shape)}, checkpoint {shape_text(match.actual_shape)}",
                  location(match.site)) for match in side.shape_mismatches]
        if rows:
            section.tables.append(_table((f"{title}: difference", "key", "shape", "site"), rows))
    matched = [(match.key, shape_text(match.actual_shape), "yes" if match.shape_fully_predicted else "partly")
               for side in (comparison.model, comparison.optimizer) for match in side.matched]
    section.tables.append(_table(("matched key", "checkpoint shape", "shape predicted"), matched))
    return section


def recipes_section(report: MigrationReport) -> Section:
    section = Section("Recipes", "recipes")
    section.paragraphs.append("One card per construct the project uses, the hardest first.")
    for recipe in report.recipes:
        card = Section(f"{recipe.title} ({recipe.readiness})", f"recipe-{recipe.construct}")
        rows = [("Stage A (runs in TF2)", recipe.stage_a)]
        if recipe.prerequisites:
            rows.append(("Prerequisites", "; ".join(recipe.prerequisites)))
        rows += [("Stage B (idiomatic TF2)", recipe.stage_b), ("Checkpoint impact", recipe.checkpoint_impact),
                 ("Validation", recipe.validation),
                 ("Documentation", "; ".join(f"{label}: {url}" for label, url in recipe.docs))]
        card.tables.append(Table(("", ""), tuple(rows)))
        section.subsections.append(card)
    return section


def build_document(report: MigrationReport) -> list[Section]:
    sections = [summary_section(report), effort_section(report), inventory_section(report), reuse_section(report),
                hazards_section(report), distributed_section(report)]
    checkpoint = checkpoint_section(report)
    if checkpoint is not None:
        sections.append(checkpoint)
    sections.append(recipes_section(report))
    return sections
