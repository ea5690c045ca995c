"""The variable inventory, the reuse map and the checkpoint name map, built from the traces.

One row per checkpoint key: a partitioned variable is one row (its logical key, full shape and
parts), as a name-based TF1 checkpoint stores it.  Rows are taken from each analysed module's final
default graph and merged across modules by (name, creation site): an entry point that imports the
model module and the model module itself describe the same variables.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from scopelint.migrate.collect import ModuleFacts
from scopelint.migrate import SHIM_ATTRIBUTE_PLACEHOLDER
from scopelint.migrate.observe import ReuseObservation
from scopelint.trace import Shape, Site, VariableRecord

# Kinds the shim keeps in its variable store (tf.compat.v1.keras.utils.track_tf1_style_variables):
# get_variable and tf.compat.v1.layers variables [measured: tower.Sw, tower.Sdense.Skernel].
SHIM_STORE_KINDS = frozenset({"get_variable", "local_variable", "layer"})
OPTIMIZER_KINDS = frozenset({"slot", "optimizer"})


def shim_checkpoint_key(name: str, attribute: str = SHIM_ATTRIBUTE_PLACEHOLDER) -> str:
    """The object-based key tf.train.Checkpoint(<attribute>=layer) writes for a shim variable:
    TensorFlow escapes "." as ".." and "/" as ".S" in object names [measured, TF 2.21]."""
    escaped = name.replace(".", "..").replace("/", ".S")
    return f"{attribute}/_tf1_style_var_store/_vars/{escaped}/.ATTRIBUTES/VARIABLE_VALUE"


def location(site: Site) -> str:
    return f"{site.path}:{site.line}:{site.column}"


@dataclass(frozen=True)
class InventoryRow:
    key: str  # the checkpoint key: graph name, or the logical name of a partitioned variable
    shape: Shape  # full shape (None: unknown; a None dimension is unknown)
    dtype: str | None
    kind: str
    trainable: bool | None
    collections: tuple[str, ...]
    devices: tuple[str | None, ...]  # one per part ("" none, None unknown)
    parts: tuple[str, ...]  # graph names of the parts; () when not partitioned
    partitions: tuple[int, ...] | None  # per-axis part counts when partitioned and known
    site: Site
    scopes: tuple[str, ...]
    certain: bool
    built_by: tuple[str, ...]  # the analysed modules whose run created it

    @property
    def saved(self) -> bool:
        """A default tf.train.Saver() saves the global variables, not the local ones."""
        return "variables" in self.collections

    @property
    def is_optimizer_state(self) -> bool:
        return self.kind in OPTIMIZER_KINDS

    @property
    def module(self) -> str:
        return self.site.path

    def shim_key(self, attribute: str = SHIM_ATTRIBUTE_PLACEHOLDER) -> str | None:
        """None when the shim does not hold it by this name: partitioned variables (partitioners do
        not work under the shim), optimizer state, tf.Variable and Keras objects (tracked by object)."""
        if self.parts or self.kind not in SHIM_STORE_KINDS:
            return None
        return shim_checkpoint_key(self.key, attribute)


def build_inventory(facts: Sequence[ModuleFacts]) -> list[InventoryRow]:
    rows: dict[tuple[str, Site], InventoryRow] = {}
    for module in facts:
        if module.trace is None:
            continue
        records = module.trace.inventory()
        partitioned: dict[str, list[VariableRecord]] = {}
        for record in records:
            logical = record.partition_of or _sliced_slot_key(record, module)
            if logical is not None:
                partitioned.setdefault(logical, []).append(record)
                continue
            _merge(rows, _row(record, record.name, record.shape, (), None, (record,), module.path))
        for key, parts in partitioned.items():
            observed = module.store.partitioned.get(parts[0].partition_of or _primary_of(parts[0].name))
            shape = observed.shape if observed is not None else None
            partitions = observed.partitions if observed is not None else None
            _merge(rows, _row(parts[0], key, shape, tuple(part.name for part in parts), partitions, tuple(parts), module.path))
    return sorted(rows.values(), key=lambda row: (row.site.path, row.site.line, row.site.column, row.key))


_PART_SLOT = re.compile(r"^(?P<primary>.+)/part_\d+/(?P<slot>[^/]+)$")


def _primary_of(part_slot_name: str) -> str:
    match = _PART_SLOT.match(part_slot_name)
    return match.group("primary") if match else part_slot_name


def _sliced_slot_key(record: VariableRecord, module: ModuleFacts) -> str | None:
    """Optimizer slots of a partitioned primary (emb/table/part_0/Adam) are saved as one key with the
    full shape, emb/table/Adam, like their primary [measured]."""
    if record.kind not in OPTIMIZER_KINDS:
        return None
    match = _PART_SLOT.match(record.name)
    if match is None or match.group("primary") not in module.store.partitioned:
        return None
    return f"{match.group('primary')}/{match.group('slot')}"


def _row(first: VariableRecord, key: str, shape: Shape, parts: tuple[str, ...], partitions: tuple[int, ...] | None,
         records: tuple[VariableRecord, ...], built_by: str) -> InventoryRow:
    return InventoryRow(
        key=key, shape=shape, dtype=first.dtype, kind=first.kind, trainable=first.trainable,
        collections=first.collections, devices=tuple(record.device for record in records), parts=parts,
        partitions=partitions, site=first.site, scopes=first.scopes,
        certain=all(record.certain for record in records), built_by=(built_by,),
    )


def _merge(rows: dict[tuple[str, Site], InventoryRow], row: InventoryRow) -> None:
    identity = (row.key, row.site)
    known = rows.get(identity)
    if known is None:
        rows[identity] = row
    elif row.built_by[0] not in known.built_by:
        rows[identity] = replace(known, built_by=known.built_by + row.built_by)


# --------------------------------------------------------------------------------------- reuse map


@dataclass(frozen=True)
class SharingSite:
    site: Site
    via: str  # the user call stack that reached it ("second call of `tower` (model.py:12)")
    scope: str
    reuse: str


@dataclass(frozen=True)
class SharedVariable:
    """A variable that get_variable handed out again: under TF2 eager without the shim each of the
    sharing sites creates a new variable instead (reuse is ignored) [measured]."""

    key: str
    created_at: Site
    sharing: tuple[SharingSite, ...]
    cross_site: bool  # shared from another code site: the shim shares only within one layer instance


def _via(observation: ReuseObservation) -> str:
    return " > ".join(
        f"{related.note} ({location(related.site)})" if related.site else related.note for related in observation.chain
    )


def build_reuse_map(facts: Sequence[ModuleFacts]) -> tuple[list[SharedVariable], int]:
    """Certain sharings grouped by variable, and the number of uncertain ones (counted apart)."""
    sharing: dict[tuple[str, Site], dict[tuple, SharingSite]] = {}
    uncertain = 0
    for module in facts:
        for observation in module.store.reuses:
            if not observation.certain:
                uncertain += 1
                continue
            via = _via(observation)
            entry = SharingSite(observation.site, via, observation.scope, observation.reuse)
            sharing.setdefault((observation.name, observation.created_at), {})[(observation.site, via)] = entry
    shared = [
        SharedVariable(key, created_at, tuple(sites.values()),
                       any(site.site != created_at for site in sites.values()))
        for (key, created_at), sites in sharing.items()
    ]
    shared.sort(key=lambda item: (item.created_at.path, item.created_at.line, item.key))
    return shared, uncertain


# --------------------------------------------------------------------------------------- name map

NAME_MAP_COLUMNS = ("tf1_key", "shape", "dtype", "site", "shim_key", "new_name")


def shape_text(shape: Shape) -> str:
    if shape is None:
        return "?"
    return "[" + ", ".join("?" if dim is None else str(dim) for dim in shape) + "]"


def name_map_rows(rows: Sequence[InventoryRow], attribute: str = SHIM_ATTRIBUTE_PLACEHOLDER) -> list[dict[str, str]]:
    """One row per saved checkpoint key; new_name is left empty for the user to fill in (it feeds an
    assignment_map or Saver({old: variable}))."""
    return [
        {
            "tf1_key": row.key,
            "shape": shape_text(row.shape),
            "dtype": row.dtype or "?",
            "site": location(row.site),
            "shim_key": row.shim_key(attribute) or "",
            "new_name": "",
        }
        for row in rows
        if row.saved
    ]


def name_map_text(rows: Sequence[InventoryRow], file_name: str, attribute: str = SHIM_ATTRIBUTE_PLACEHOLDER) -> str:
    """The name map as CSV when `file_name` ends in .csv, else JSON."""
    table = name_map_rows(rows, attribute)
    if file_name.lower().endswith(".csv"):
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=NAME_MAP_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(table)
        return buffer.getvalue()
    return json.dumps({"columns": list(NAME_MAP_COLUMNS), "rows": table}, indent=2) + "\n"
