"""`--checkpoint PATH`: the keys of a real TF1 checkpoint held against the inventory.

Only `read_checkpoint` imports TensorFlow (lazily; `migrate` without --checkpoint never does).  The
comparison itself is pure.  A name-based checkpoint (tf.train.Saver) has one key per global
variable, the graph name without ":0", and one key with the full shape per partitioned variable
[measured].  Optimizer state (slots such as w/Adam, and Adam's beta1_power/beta2_power) is listed
apart: converting to Keras optimizers changes it anyway.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from scopelint.migrate.inventory import InventoryRow
from scopelint.trace import UNKNOWN_PART, Shape, Site

# Keys TensorFlow adds that are not variables.
_BOOKKEEPING_KEYS = ("_CHECKPOINTABLE_OBJECT_GRAPH",)
# Adam's non-slot variables (tf.compat.v1.train.AdamOptimizer), uniquified by the graph (_1, _2...).
_NON_SLOT_NAME = re.compile(r"(^|/)beta[12]_power(_\d+)?$")


@dataclass(frozen=True)
class CheckpointKey:
    key: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class KeyMatch:
    key: str  # the checkpoint key
    predicted_key: str  # the inventory key (with "?" where the name was partly unknown)
    predicted_shape: Shape
    actual_shape: tuple[int, ...]
    site: Site

    @property
    def shape_agrees(self) -> bool:
        return _shape_compatible(self.predicted_shape, self.actual_shape)

    @property
    def shape_fully_predicted(self) -> bool:
        return self.predicted_shape is not None and None not in self.predicted_shape

    @property
    def by_pattern(self) -> bool:
        return UNKNOWN_PART in self.predicted_key


@dataclass
class KeyComparison:
    matched: list[KeyMatch] = field(default_factory=list)
    missing: list[InventoryRow] = field(default_factory=list)  # predicted, not in the checkpoint
    unexpected: list[CheckpointKey] = field(default_factory=list)  # in the checkpoint, not predicted

    @property
    def shape_mismatches(self) -> list[KeyMatch]:
        return [match for match in self.matched if not match.shape_agrees]

    @property
    def agrees(self) -> bool:
        return not self.missing and not self.unexpected and not self.shape_mismatches


@dataclass
class CheckpointComparison:
    path: str
    model: KeyComparison
    optimizer: KeyComparison

    @property
    def full_agreement(self) -> bool:
        return self.model.agrees and self.optimizer.agrees


def _shape_compatible(predicted: Shape, actual: tuple[int, ...]) -> bool:
    if predicted is None:
        return True  # nothing was predicted: nothing to contradict
    return len(predicted) == len(actual) and all(p is None or p == a for p, a in zip(predicted, actual))


def _pattern(key: str) -> re.Pattern[str]:
    # An unknown name part may stand for any text, slashes included (an unknown scope path).
    return re.compile(".+".join(re.escape(piece) for piece in key.split(UNKNOWN_PART)) + r"\Z")


def is_optimizer_key(key: str, known_keys: set[str]) -> bool:
    """A slot is named <primary>/<slot name>: a key under another variable's key is optimizer
    state (or a moving average); so are Adam's beta1_power/beta2_power."""
    parent = key.rsplit("/", 1)[0] if "/" in key else None
    if parent is not None and parent in known_keys:
        return True
    parent_of_part = re.sub(r"/part_\d+$", "", parent) if parent else None
    return (parent_of_part is not None and parent_of_part in known_keys) or bool(_NON_SLOT_NAME.search(key))


def compare(path: str, inventory: Sequence[InventoryRow], keys: Sequence[CheckpointKey]) -> CheckpointComparison:
    saved = [row for row in inventory if row.saved]
    by_key = {entry.key: entry for entry in keys if entry.key not in _BOOKKEEPING_KEYS}
    claimed: set[str] = set()
    model, optimizer = KeyComparison(), KeyComparison()
    # Exact names first, so that a pattern never takes a key an exact name predicts.
    ordered = sorted(saved, key=lambda row: UNKNOWN_PART in row.key)
    for row in ordered:
        side = optimizer if row.is_optimizer_state else model
        if UNKNOWN_PART in row.key:
            pattern = _pattern(row.key)
            found = sorted(key for key in by_key if key not in claimed and pattern.match(key))
        else:
            found = [row.key] if row.key in by_key and row.key not in claimed else []
        if not found:
            side.missing.append(row)
            continue
        for key in found:
            claimed.add(key)
            side.matched.append(KeyMatch(key, row.key, row.shape, by_key[key].shape, row.site))
    all_keys = set(by_key) | {row.key for row in saved}
    for key, entry in sorted(by_key.items()):
        if key in claimed:
            continue
        (optimizer if is_optimizer_key(key, all_keys) else model).unexpected.append(entry)
    return CheckpointComparison(path, model, optimizer)


def read_checkpoint(path: str) -> list[CheckpointKey]:
    """Keys and shapes of a checkpoint (a prefix, or a directory: its latest checkpoint).
    Raises ImportError without TensorFlow, ValueError when nothing is found there."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf  # lazily: only --checkpoint needs TensorFlow

    if os.path.isdir(path):
        latest = tf.train.latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"no checkpoint found in directory {path}")
        path = latest
    try:
        listed = tf.train.list_variables(path)
    except Exception as error:  # NotFoundError, DataLossError, ...: say what TensorFlow said
        raise ValueError(f"cannot read checkpoint {path}: {type(error).__name__}: {error}") from None
    return [CheckpointKey(name, tuple(int(dim) for dim in shape)) for name, shape in listed]
