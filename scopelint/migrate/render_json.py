"""The report as schema-versioned JSON (`"schema": "scopelint-migrate", "schema_version": 1`).

Shapes are lists with null for unknown dimensions (null for an unknown rank); sites are
{"path", "line", "column"}.  A field is added only with a new schema_version.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from scopelint.migrate.checkpoint import CheckpointComparison, KeyComparison
from scopelint.migrate.constructs import ConstructSite
from scopelint.migrate.effort import WEIGHTS
from scopelint.migrate import SHIM_ATTRIBUTE_PLACEHOLDER
from scopelint.migrate.report import SCHEMA, SCHEMA_VERSION, MigrationReport
from scopelint.trace import Shape, Site


def _site(site: Site) -> dict[str, Any]:
    return {"path": site.path, "line": site.line, "column": site.column}


def _shape(shape: Shape) -> list[int | None] | None:
    return None if shape is None else list(shape)


def _construct_site(site: ConstructSite) -> dict[str, Any]:
    return {"api": site.api, "site": _site(site.site), "certain": site.certain,
            "detail": json.loads(json.dumps(site.detail_dict()))}


def _comparison(side: KeyComparison) -> dict[str, Any]:
    return {
        "matched": [{"key": match.key, "predicted_key": match.predicted_key, "predicted_shape": _shape(match.predicted_shape),
                     "shape": list(match.actual_shape), "site": _site(match.site)} for match in side.matched],
        "missing": [{"key": row.key, "shape": _shape(row.shape), "site": _site(row.site)} for row in side.missing],
        "unexpected": [{"key": entry.key, "shape": list(entry.shape)} for entry in side.unexpected],
        "shape_mismatches": [{"key": match.key, "predicted_shape": _shape(match.predicted_shape),
                              "shape": list(match.actual_shape), "site": _site(match.site)} for match in side.shape_mismatches],
    }


def _checkpoint(comparison: CheckpointComparison | None, graph: str | None) -> dict[str, Any] | None:
    if comparison is None:
        return None
    return {"path": comparison.path, "compared_with": graph, "full_agreement": comparison.full_agreement,
            "variables": _comparison(comparison.model), "optimizer_state": _comparison(comparison.optimizer)}


def report_data(report: MigrationReport, shim_attribute: str = SHIM_ATTRIBUTE_PLACEHOLDER) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "paths": list(report.paths),
        "summary": {
            "files_scanned": report.files_scanned,
            "files_using_tensorflow": report.files_using_tensorflow,
            "files_not_analysed": [{"path": module.path, "reason": (module.problem or "").splitlines()[0]}
                                   for module in report.files_not_analysed],
            "import_styles": [{"style": style, "statements": count, "seen_by_tf_upgrade_v2": seen}
                              for style, seen, count in report.import_styles],
            "constructs": report.construct_totals,
            "verdicts": report.verdict_counts,
            "variables": len(report.inventory),
            "effort_points": report.effort_points,
            "effort_size": report.effort_size,
            "unresolved": report.unresolved,
        },
        "modules": [
            {"path": module.path, "status": module.status, "verdict": module.verdict, "constructs": module.constructs,
             "variables": module.variables, "effort_points": module.effort.points, "effort_size": module.effort.size,
             "unresolved": module.unresolved,
             "problem": (module.problem or "").splitlines()[0] if module.problem else None}
            for module in report.modules
        ],
        "effort": {
            "weights": WEIGHTS,
            "modules": [{"path": module.path, "points": module.effort.points, "size": module.effort.size,
                         "unresolved": module.effort.unresolved,
                         "lines": [asdict(line) for line in module.effort.lines]} for module in report.modules],
            "total_points": report.effort_points,
            "total_size": report.effort_size,
            "unresolved": report.unresolved,
        },
        "variables": [
            {"key": row.key, "shape": _shape(row.shape), "dtype": row.dtype, "kind": row.kind, "trainable": row.trainable,
             "collections": list(row.collections), "saved": row.saved, "parts": list(row.parts),
             "partitions": list(row.partitions) if row.partitions is not None else None,
             "devices": list(row.devices), "site": _site(row.site), "scopes": list(row.scopes), "certain": row.certain,
             "built_by": list(row.built_by), "shim_key": row.shim_key(shim_attribute)}
            for row in report.inventory
        ],
        "reuse": {
            "shared": [{"key": shared.key, "created_at": _site(shared.created_at), "cross_site": shared.cross_site,
                        "sharing": [{"site": _site(entry.site), "via": entry.via, "scope": entry.scope, "reuse": entry.reuse}
                                    for entry in shared.sharing]} for shared in report.shared],
            "uncertain": report.uncertain_sharing,
        },
        "hazards": [{"kind": hazard.kind, "recipe": hazard.recipe, "message": hazard.message, "certain": hazard.certain,
                     "fails_in_tf1": hazard.fails_in_tf1, "sites": [_site(site) for site in hazard.sites]}
                    for hazard in report.hazards],
        "distributed": {
            "clusters": [_construct_site(site) for site in report.distributed.clusters],
            "servers": [_construct_site(site) for site in report.distributed.servers],
            "device_setters": [_construct_site(site) for site in report.distributed.setters],
            "partitioners": [{**_construct_site(use.site), "tf2": use.tf2_class} for use in report.distributed.partitioners],
            "blockers": [_construct_site(site) for site in report.distributed.blockers],
            "ps_variables": report.distributed.ps_variables,
        },
        "recipes": [asdict(recipe) for recipe in report.recipes],
        "checkpoint": _checkpoint(report.checkpoint, report.checkpoint_graph),
    }


def render_json(report: MigrationReport, shim_attribute: str = SHIM_ATTRIBUTE_PLACEHOLDER) -> str:
    return json.dumps(report_data(report, shim_attribute), indent=2) + "\n"
