"""Which variables `tf.compat.v1.train` optimizers and ExponentialMovingAverage create.

Pure tables: no LibCST, no TensorFlow.  Measured on TensorFlow 2.21 `tf.compat.v1` graph mode
(ref variables after disable_v2_behavior) and re-checked by tests/test_library_tf.py.

Slot variables (`opt.minimize(loss)` = compute_gradients + apply_gradients):
- Primaries: the variables in `var_list` (default: TRAINABLE_VARIABLES, in collection order) whose
  gradient is not None.  Measured: a trainable `u` not connected to the loss gets no slot, nor does a
  non-trainable variable.  Slots are created per primary in that order, all slots of one primary
  before the next: with `var_list=[mm, zz, aa]` -> mm/Adam, mm/Adam_1, zz/Adam, zz/Adam_1, aa/Adam...
- Each slot is created by slot_creator.create_slot: `variable_scope(None, default_name=<primary
  graph name> + "/" + <slot scope name>)` opened in the var scope CURRENT at minimize(), then
  `get_variable("")`.  So: default-name uniquified (Adam's two slots both ask for "w/Adam" and get
  `w/Adam`, `w/Adam_1`; a second Adam on `w` gets `w/Adam_2`, `w/Adam_3`); store key = slot scope
  + "/" (`w/Adam/`, with the slash: the errors quote it); graph name = slot scope (`w/Adam:0`);
  trainable=False; collection "variables"; shape and dtype of the primary (float64 w -> float64
  slots).  The primary's graph name is used, so a partitioned part gets `w/part_0/Adam`, a
  `tf.Variable` under name scope `ns` gets `ns/tv2/Adam`, and a primary `m/w` gets `m/w/Adam`.
- Measured consequences of "current var scope":
  - minimize() in `variable_scope('train')`: `train/w/Adam`, `train/w/Adam_1`.
  - w = `m/w`, minimize() in `variable_scope('m')`: `m/m/w/Adam` (the prefix repeats).
  - minimize() in `name_scope('train')`: slots unaffected (`w/Adam`).
  - minimize() in `variable_scope('x', reuse=True)` (or after the root's reuse_variables()):
    `ValueError: Variable x/w/Adam/ does not exist, or was not created with tf.get_variable(). Did
    you mean to set reuse=tf.AUTO_REUSE in VarScope?` (store key with the trailing slash; at the
    root: `Variable w/Adam/ does not exist`).  beta1_power/beta2_power were already created
    (`x_1/beta1_power`) when it raises.
  - minimize() twice in a re-entered `variable_scope('train')` (counter reset on exit):
    `Variable train/w/Adam/ already exists, disallowed. ...`.
  - A second Adam under `variable_scope('train', reuse=True)` after a first one in `train`: the slots
    are SHARED (no new slot variables), only `train_1/beta1_power`, `train_1/beta2_power` are new.
  - Under AUTO_REUSE: `x/w/Adam`, `x/w/Adam_1` are created normally.
- Calling minimize() again on the SAME optimizer object creates no new slot for a primary it
  already has (slots are cached per optimizer object).

Non-slot variables (Adam's beta1_power, beta2_power; no other v1 optimizer has any):
- Created once per optimizer object per graph, at its first minimize(), BEFORE the slots, in
  GLOBAL_VARIABLES order: beta1_power, beta2_power, w/Adam, w/Adam_1, b/Adam, b/Adam_1.
- They are `tf.Variable`s (not the store): name = current NAME scope + "beta1_power", graph
  uniquified.  Measured: in `variable_scope('train')` -> `train/beta1_power`; in
  `name_scope('train')` -> `train/beta1_power`; a second AdamOptimizer in the same graph ->
  `beta1_power_1`, `beta2_power_1`.  Shape (), float32 even for float64 primaries, trainable False,
  colocated with the primary whose name sorts first.
- `AdamOptimizer(use_own_namescope_for_non_slot_vars=True)`: at CONSTRUCTION it opens
  `variable_scope(None, default_name=<name>)` (e.g. `c/Adam` when constructed in `c`); the non-slot
  variables are then get_variable(...) in that scope (store keys `c/Adam/beta1_power`).
  `OptimizerSlots.non_slot_scope` says which rule applies.

ExponentialMovingAverage(decay, name="ExponentialMovingAverage").apply(var_list):
- One slot per variable through the same slot_creator: `w/ExponentialMovingAverage` (store key
  `w/ExponentialMovingAverage/`), in the current var scope (`q/w/ExponentialMovingAverage` in
  `variable_scope('q')`; under reuse=True: "Variable q/w/ExponentialMovingAverage/ does not
  exist"); a second EMA on `w` -> `w/ExponentialMovingAverage_1` (also within one AUTO_REUSE scope:
  not shared).  The average is trainable False, in "variables" only; the MOVING_AVERAGE_VARIABLES
  collection receives the *primary* (`w:0`), not the average.  apply() with no argument averages
  all TRAINABLE_VARIABLES (no gradient condition).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from scopelint.model.varspec import VarSpec, get_arg, known_bool

EMA_CLASS = "ExponentialMovingAverage"

# Default `name` and positional constructor parameters (a prefix of the real signature).
OPTIMIZER_POSITIONAL: dict[str, tuple[str, ...]] = {
    "GradientDescentOptimizer": ("learning_rate", "use_locking", "name"),
    "MomentumOptimizer": ("learning_rate", "momentum", "use_locking", "name", "use_nesterov"),
    "AdamOptimizer": ("learning_rate", "beta1", "beta2", "epsilon", "use_locking", "name",
                      "use_own_namescope_for_non_slot_vars"),
    "AdagradOptimizer": ("learning_rate", "initial_accumulator_value", "use_locking", "name"),
    "RMSPropOptimizer": ("learning_rate", "decay", "momentum", "epsilon", "use_locking", "centered", "name"),
    "AdadeltaOptimizer": ("learning_rate", "rho", "epsilon", "use_locking", "name"),
    "FtrlOptimizer": ("learning_rate", "learning_rate_power", "initial_accumulator_value",
                      "l1_regularization_strength", "l2_regularization_strength", "use_locking",
                      "name", "accum_name", "linear_name"),
    "ProximalAdagradOptimizer": ("learning_rate", "initial_accumulator_value",
                                 "l1_regularization_strength", "l2_regularization_strength",
                                 "use_locking", "name"),
    "ProximalGradientDescentOptimizer": ("learning_rate", "l1_regularization_strength",
                                         "l2_regularization_strength", "use_locking", "name"),
    "AdagradDAOptimizer": ("learning_rate", "global_step", "initial_gradient_squared_accumulator_value",
                           "l1_regularization_strength", "l2_regularization_strength",
                           "use_locking", "name"),
    EMA_CLASS: ("decay", "num_updates", "zero_debias", "name"),
}

_DEFAULT_NAMES = {
    "GradientDescentOptimizer": "GradientDescent",
    "MomentumOptimizer": "Momentum",
    "AdamOptimizer": "Adam",
    "AdagradOptimizer": "Adagrad",
    "RMSPropOptimizer": "RMSProp",
    "AdadeltaOptimizer": "Adadelta",
    "FtrlOptimizer": "Ftrl",
    "ProximalAdagradOptimizer": "ProximalAdagrad",
    "ProximalGradientDescentOptimizer": "ProximalGradientDescent",
    "AdagradDAOptimizer": "AdagradDA",
    EMA_CLASS: "ExponentialMovingAverage",
}

# How many slots, each asking for the optimizer's name as default-name scope (source order of
# _create_slots; measured names).  RMSProp: rms, [mg if centered], momentum - momentum even when
# momentum=0.0.  Ftrl: accum (accum_name or name), linear (linear_name or name).
_SLOT_COUNT = {
    "GradientDescentOptimizer": 0,
    "ProximalGradientDescentOptimizer": 0,
    "MomentumOptimizer": 1,
    "AdagradOptimizer": 1,
    "ProximalAdagradOptimizer": 1,
    "AdamOptimizer": 2,
    "AdadeltaOptimizer": 2,
    "AdagradDAOptimizer": 2,
    EMA_CLASS: 1,
}


@dataclass(frozen=True)
class OptimizerSlots:
    """What one optimizer (or EMA) object adds at its first minimize()/apply().

    `slot_scope_names`: per primary, in creation order, the slot scope names BEFORE default-name
    uniquification: open `variable_scope(None, default_name=<primary graph name>/<n>)` in the
    current var scope and `get_variable("")` in it (store key `<scope>/`).  Adam -> ("Adam",
    "Adam"), which uniquify to `w/Adam`, `w/Adam_1`.  Slots: trainable False, "variables", the
    primary's shape and dtype.
    `non_slot`: created once per optimizer object per graph, before the first slot.
    `non_slot_scope`: None = they are tf.Variables named `<current name scope>/<spec.name>` (graph
    uniquified: `beta1_power_1` for a second Adam); a string = get_variable in the scope opened at
    construction with `variable_scope(None, default_name=non_slot_scope)`.
    `needs_gradient`: primaries are only variables that receive a gradient (optimizers), or all
    given / all trainable variables (EMA).
    """

    slot_scope_names: tuple[str, ...]
    non_slot: tuple[VarSpec, ...]
    non_slot_scope: str | None = None
    needs_gradient: bool = True


def _name(config: Mapping[str, Any], key: str, default: str) -> str | None:
    value = get_arg(config, key, default)
    if value is None:
        return default
    # An empty optimizer name raises "Must specify the optimizer name": not modelled.
    return value if isinstance(value, str) and value else None


def optimizer_slots(optimizer_class: str, config: Mapping[str, Any]) -> OptimizerSlots | None:
    """The slot/non-slot table for a tf.compat.v1.train optimizer class or ExponentialMovingAverage;
    None if not modelled or if an UNKNOWN argument decides names or counts."""
    default = _DEFAULT_NAMES.get(optimizer_class)
    if default is None:
        return None
    name = _name(config, "name", default)
    if name is None:
        return None
    if optimizer_class == "RMSPropOptimizer":
        centered = known_bool(config, "centered", False)
        if centered is None:
            return None
        return OptimizerSlots((name,) * (3 if centered else 2), ())
    if optimizer_class == "FtrlOptimizer":
        accum = _name(config, "accum_name", name)
        linear = _name(config, "linear_name", name)
        if accum is None or linear is None:
            return None
        return OptimizerSlots((accum, linear), ())
    slots = (name,) * _SLOT_COUNT[optimizer_class]
    if optimizer_class == EMA_CLASS:
        return OptimizerSlots(slots, (), needs_gradient=False)
    if optimizer_class == "AdamOptimizer":
        own = known_bool(config, "use_own_namescope_for_non_slot_vars", False)
        if own is None:
            return None
        powers = tuple(
            VarSpec(n, (), trainable=False, dtype="float32") for n in ("beta1_power", "beta2_power")
        )
        return OptimizerSlots(slots, powers, non_slot_scope=name if own else None)
    return OptimizerSlots(slots, ())


def slot_store_key(slot_scope: str) -> str:
    """Store key of the slot variable created in the (resolved) slot scope: `w/Adam` -> `w/Adam/`."""
    return slot_scope + "/"


def slot_graph_name(slot_scope: str) -> str:
    """Graph name (v.name without ":0") of that slot variable: the scope itself, `w/Adam`."""
    return slot_scope

