"""The recipe table: for each TF1 construct, what it becomes in TF2 and how to get there.

One table (RECIPES), keyed by the construct ids of `constructs.CONSTRUCT_PATHS`.  Facts come from the
official migration guides, as collected in shared/tf2-migration.md section 3; `[measured]` marks what
was run on TensorFlow 2.21 with tf-keras.  Each recipe states the readiness it gives a module:
rename-only < shim-able < needs redesign < blocked (a module takes its worst construct's level).
"""
from __future__ import annotations

from dataclasses import dataclass

RENAME_ONLY = "rename-only"
SHIMABLE = "shim-able"
NEEDS_REDESIGN = "needs redesign"
BLOCKED = "blocked"
READINESS_ORDER = (RENAME_ONLY, SHIMABLE, NEEDS_REDESIGN, BLOCKED)
# Verdicts for modules that have no construct to judge.
NO_TENSORFLOW = "no TensorFlow"
NOT_ANALYSED = "not analysed"

MM = "https://www.tensorflow.org/guide/migrate/model_mapping"
MC = "https://www.tensorflow.org/guide/migrate/migrating_checkpoints"
MW = "https://www.tensorflow.org/guide/migrate/multi_worker_cpu_gpu_training"
PST = "https://www.tensorflow.org/tutorials/distribute/parameter_server_training"
VC = "https://www.tensorflow.org/guide/migrate/validate_correctness"
T12 = "https://www.tensorflow.org/guide/migrate/tf1_vs_tf2"
OV = "https://www.tensorflow.org/guide/migrate/migrate_tf2"
UPGRADE = "https://www.tensorflow.org/guide/migrate/upgrade"
ESTIMATOR = "https://www.tensorflow.org/guide/migrate/migrating_estimator"

# Keras 3 is the default from TF 2.16: the shim and tf.compat.v1.layers exist only with tf-keras
# [measured on 2.21].
# The short names the recipe cards use for their sources (tf2-migration.md's), explained in the
# report: (what it stands for, where it is; "" when it names no one page).
ABBREVIATIONS: dict[str, tuple[str, str]] = {
    "MM": ("TensorFlow's migration guide: model mapping (track_tf1_style_variables)", MM),
    "MC": ("TensorFlow's migration guide: migrating checkpoints", MC),
    "MW": ("TensorFlow's migration guide: multi-worker CPU and GPU training", MW),
    "PST": ("TensorFlow's parameter server training tutorial", PST),
    "VC": ("TensorFlow's migration guide: validating correctness and numerical equivalence (steps 1-4)", VC),
    "T12": ("TensorFlow's migration guide: TF1 vs TF2 behaviour", T12),
    "OV": ("TensorFlow's migration guide: overview (migrate to TF2)", OV),
    "DS": ("the TF2 compatibility note in the docstring of tf.compat.v1.<name>, as DS(name)", ""),
}

SHIM_PREREQUISITES = ("pip install tf-keras", "TF_USE_LEGACY_KERAS=1 set before TensorFlow is imported")
VALIDATE_VARIABLES = ("VC step 1: variables created once (assert no creations on the second call); "
                      "VC step 2: variable count, names and shapes match the inventory below")


@dataclass(frozen=True)
class Recipe:
    construct: str
    title: str
    readiness: str
    stage_a: str  # runs in TF2 with minimal change
    prerequisites: tuple[str, ...]
    stage_b: str  # idiomatic TF2
    checkpoint_impact: str
    validation: str
    docs: tuple[tuple[str, str], ...]  # (what to read, url)


def _recipe(construct: str, title: str, readiness: str, stage_a: str, stage_b: str, checkpoint: str,
            validation: str, docs: tuple[tuple[str, str], ...], prerequisites: tuple[str, ...] = ()) -> Recipe:
    return Recipe(construct, title, readiness, stage_a, prerequisites, stage_b, checkpoint, validation, docs)


RECIPES: dict[str, Recipe] = {recipe.construct: recipe for recipe in (
    _recipe("variable_scope", "tf.variable_scope blocks", SHIMABLE,
            "Keep the code; move it into the call of a tf.keras.layers.Layer (or a tf.Module method) "
            "decorated with tf.compat.v1.keras.utils.track_tf1_style_variables. Variables are created "
            "once, reused afterwards and keep their TF1 names.",
            "tf.Variable / self.add_weight created once in __init__ or build and stored as attributes; "
            "tf.name_scope only to prefix names.",
            "None under the shim with a name-based Saver (TF1 keys kept); tf.train.Checkpoint writes "
            "object keys <attr>/_tf1_style_var_store/_vars/<name, / as .S>/.ATTRIBUTES/VARIABLE_VALUE. "
            "Stage B renames every variable: use the name map.",
            VALIDATE_VARIABLES,
            (("MM: The track_tf1_style_variables decorator", MM), ("MC: Checkpoint keys", MC)),
            SHIM_PREREQUISITES),
    _recipe("get_variable", "tf.get_variable", SHIMABLE,
            "Keep it inside a track_tf1_style_variables method: it behaves as if AUTO_REUSE were on, "
            "per layer or module instance. Regularizer losses go to layer.losses (Layer only).",
            "tf.Variable created once and kept as an attribute, or self.add_weight in a Keras layer.",
            "Names kept under the shim; new names in stage B (see the name map).",
            VALIDATE_VARIABLES, (("MM: Incremental migration to native TF2", MM),), SHIM_PREREQUISITES),
    _recipe("reuse", "Reuse (reuse=True, AUTO_REUSE, reuse_variables())", SHIMABLE,
            "Without the shim, under eager, reuse is ignored and every call creates new variables with "
            "duplicate names and no error [measured]. Under the shim get_variable shares within one "
            "layer or module instance; cross-layer sharing by name is not supported: pass Python "
            "references instead.",
            "Object reuse: build the layer or module once and call the same Python object twice.",
            "Shared variables stay one checkpoint key only if sharing is kept; a silent duplicate "
            "adds keys (name_1) and leaves the copies untrained.",
            "VC step 1 on the second tower/call: assert it creates no variable; compare the variable "
            "count with the inventory.",
            (("MM: Variable-scope based variable reuse", MM), ("DS(variable_scope), DS(AUTO_REUSE)", MM)),
            SHIM_PREREQUISITES),
    _recipe("make_template", "tf.make_template", SHIMABLE,
            "Call make_template once (for example in __init__) and reuse the template inside a "
            "track_tf1_style_variables method; never share one template across layer instances.",
            "A tf.Module or Keras layer whose variables are attributes.",
            "Names kept if the template is created once under the same scope; a template made per "
            "call gets template_1, template_2 names.",
            VALIDATE_VARIABLES, (("MM: Using make_template in the decorated method", MM),), SHIM_PREREQUISITES),
    _recipe("tf_variable", "tf.Variable in model code", SHIMABLE,
            "Not tracked by the shim: assign it as an attribute, created once (check then create).",
            "Same: an attribute created in __init__ or build.",
            "The key becomes an object path (attribute name) under tf.train.Checkpoint.",
            "VC step 1 troubleshooting: an unstored tf.Variable is recreated on every call.",
            (("MM", MM), ("VC step 1", VC))),
    _recipe("v1_layers", "tf.layers / tf.compat.v1.layers", SHIMABLE,
            "Works under the shim only inside a non-empty named variable_scope; otherwise auto-names "
            "(dense, dense_1, ...) increment on every call and new weights are created.",
            "The same-named tf.keras.layers object built in the constructor.",
            "Keras layer names differ (model prefix, counters); when replacing layers one at a time, "
            "record the removed layers' scope names so the rest keep names like conv2d_2.",
            VALIDATE_VARIABLES, (("MM: Model built with tf.compat.v1.layers", MM), ("MC", MC)), SHIM_PREREQUISITES),
    _recipe("slim", "Slim / tf.contrib.layers", SHIMABLE,
            "Switch imports to the tf-slim pip package; it works under the shim.",
            "Convert to v1.layers, then to Keras; remove arg_scope; split normalizer_fn/activation_fn "
            "into layers; check argument names, defaults and scales.",
            "Kept under the shim; stage B renames variables.",
            VALIDATE_VARIABLES + "; VC step 3: numerical equivalence with fixed weights",
            (("MM: A note on Slim and contrib.layers", MM), ("OV", OV)), ("pip install tf-slim",) + SHIM_PREREQUISITES),
    _recipe("keras_layers", "Keras layers and models", RENAME_ONLY,
            "Layers built in the forward pass: tf.compat.v1.keras.utils.get_or_create_layer inside a "
            "decorated method (migration aid only).",
            "Assign layers as attributes in __init__.",
            "Keras object paths; names are prefixed by the model name.",
            "VC step 1: a layer built in the forward pass creates new weights on every call.",
            (("MM: Nesting Keras layers", MM),), SHIM_PREREQUISITES),
    _recipe("rnn", "tf.nn.rnn_cell cells and dynamic_rnn/static_rnn", SHIMABLE,
            "tf.compat.v1 cells run under the shim inside a named scope.",
            "tf.keras.layers.RNN / LSTM / GRU layers built once.",
            "Cell weight names change (kernel/bias layout differs for fused Keras LSTM/GRU).",
            VALIDATE_VARIABLES + "; VC step 3 with fixed weights", (("MM", MM), ("OV", OV)), SHIM_PREREQUISITES),
    _recipe("partitioner", "Variable partitioners", NEEDS_REDESIGN,
            "Not compatible with TF2 behaviour, even under the shim.",
            "ParameterServerStrategy(variable_partitioner=...): fixed_size_partitioner -> "
            "FixedShardsPartitioner, variable_axis_size_partitioner -> MaxSizePartitioner, "
            "min_max_variable_partitioner -> MinSizePartitioner.",
            "A TF1 checkpoint holds one key with the full shape per partitioned variable "
            "(emb/table [10,4], not part_0/part_1) [measured].",
            "Compare the logical key and full shape (inventory) with the checkpoint.",
            (("DS(fixed_size_partitioner)", MW), ("MW", MW), ("PST: Variable sharding", PST))),
    _recipe("custom_getter", "custom_getter on variable_scope/get_variable", NEEDS_REDESIGN,
            "No TF2 equivalent (tensorflow/tensorflow#47713).",
            "Wrap variables in objects; for EMA-style getters keep explicit shadow variables.",
            "Names produced by the getter must be mapped by hand.",
            "VC step 2: compare names and shapes.", (("MM", MM),)),
    _recipe("collections", "Graph collections (get_collection, GraphKeys, trainable_variables)", NEEDS_REDESIGN,
            "Under eager some raise and some silently return empty lists.",
            "module.trainable_variables, layer.losses, model.losses; global step: optimizer.iterations; "
            "update ops run automatically; summaries: the TF2 summary API.",
            "None.", "Check regularization losses and the trained variable list are not empty.",
            (("T12: Collections removal", T12),)),
    _recipe("session", "tf.Session / sess.run", NEEDS_REDESIGN,
            "Keep with tf.compat.v1 and disable_v2_behavior() (graph mode) until the model is migrated.",
            "Remove the Session: each sess.run becomes a Python or tf.function call with inputs as "
            "arguments and outputs as return values (mind T12 patterns 1-4).",
            "None by itself.", "VC steps 3-4: compare outputs with randomness removed.",
            (("T12: Functions, not sessions", T12), ("DS(Session)", T12))),
    _recipe("initializers", "Variable initializers", RENAME_ONLY,
            "Keep under compat.v1.", "Delete: variables are initialized when created.", "None.",
            "None needed.", (("T12", T12),)),
    _recipe("placeholder", "tf.placeholder", NEEDS_REDESIGN,
            "Keep under compat.v1 graph mode.", "Function arguments.", "None.",
            "VC step 3: same inputs, same outputs.", (("T12", T12),)),
    _recipe("global_step", "Global step", RENAME_ONLY,
            "Keep under compat.v1.", "optimizer.iterations or your own tf.Variable.",
            "The global_step key disappears or becomes an object path.", "None needed.", (("OV", OV),)),
    _recipe("v1_optimizer", "tf.train optimizers", NEEDS_REDESIGN,
            "Keep tf.compat.v1.train optimizers with the shim-decorated model.",
            "tf.keras.optimizers.* (Momentum -> SGD(momentum=); Adam beta1 -> beta_1; RMSProp decay -> "
            "rho; epsilon default 1e-7).",
            "Changes slot names and structure: old optimizer state does not load (listed apart below).",
            "Restore model weights only; compare the first training steps (VC step 4).",
            (("OV: Convert TF1.x optimizers", OV),)),
    _recipe("ema", "ExponentialMovingAverage", NEEDS_REDESIGN,
            "Keep under compat.v1 graph mode.", "Maintain explicit shadow variables (or the Keras EMA option).",
            "Shadow keys <var>/ExponentialMovingAverage change.", "VC step 2.", (("OV", OV),)),
    _recipe("saver", "tf.train.Saver / init_from_checkpoint", RENAME_ONLY,
            "Saver(var_list=layer.variables) in eager still writes the TF1 keys [measured].",
            "tf.train.Checkpoint / CheckpointManager; load TF1 checkpoints by name with an assignment map.",
            "Key format changes from names to object paths.", "Round-trip: save, restore, compare values.",
            (("MC", MC),)),
    _recipe("monitored_session", "MonitoredTrainingSession, Supervisor, hooks", NEEDS_REDESIGN,
            "Keep under compat.v1 graph mode.", "Keras fit with callbacks, or a custom loop with tf.GradientTape.",
            "Checkpoint writing moves to callbacks / CheckpointManager.", "VC step 4: compare training steps.",
            (("OV", OV), ("DS(MonitoredTrainingSession)", OV))),
    _recipe("queue_runners", "Queue runners and input queues", NEEDS_REDESIGN,
            "Keep under compat.v1 graph mode.", "tf.data pipelines.", "None.",
            "Compare a batch of inputs.", (("T12", T12),)),
    _recipe("estimator", "tf.estimator / TPUEstimator", NEEDS_REDESIGN,
            "Estimators still run graphs and sessions under the hood ('false friends').",
            "Keras Model.fit or a custom training step.",
            "A Scaffold can hold a tf.train.Checkpoint to switch checkpoint style before leaving Estimator.",
            "VC steps 3-4.", (("Migrating Estimator", ESTIMATOR), ("T12: False friend APIs", T12), ("MC", MC))),
    _recipe("summary", "tf.summary (v1)", RENAME_ONLY,
            "tf.compat.v1.summary under graph mode.", "The TF2 summary API with a default writer.",
            "None.", "Compare logged scalars.", (("OV", OV),)),
    _recipe("flags_logging", "tf.app, tf.flags, tf.logging, tf.gfile", RENAME_ONLY,
            "tf.compat.v1 names (tf_upgrade_v2 renames them).", "absl.app, absl.flags, absl.logging, tf.io.gfile.",
            "None.", "None needed.", (("Upgrade script", UPGRADE),)),
    _recipe("contrib", "tf.contrib (other modules)", BLOCKED,
            "tf.contrib is removed in TF2 and scopelint knows no successor for these symbols. tf_upgrade_v2 "
            "renames a few (its table all_renames_v2 maps for example tf.contrib.tpu.CrossShardOptimizer to "
            "tf.compat.v1.tpu.CrossShardOptimizer); the rest have no compat.v1 name.",
            "Find the successor package (tf-slim, tensorflow-addons, core TF) symbol by symbol.",
            "Unknown until the successor is chosen.", "VC steps 2-3 after replacement.",
            (("OV", OV), ("Upgrade script", UPGRADE))),
    _recipe("cluster", "tf.train.ClusterSpec / TF_CONFIG", NEEDS_REDESIGN,
            "Keep under compat.v1 graph mode.",
            "TF_CONFIG read by tf.distribute.cluster_resolver.TFConfigClusterResolver(); ClusterSpec "
            "still builds resolvers and servers.", "None.", "Start the cluster on 127.0.0.1 in a test.",
            (("MW", MW), ("PST: Clusters in the real world", PST))),
    _recipe("server", "tf.train.Server", NEEDS_REDESIGN,
            "Keep under compat.v1 graph mode (tf.train.Server is gone from the TF2 namespace [measured]).",
            "tf.distribute.Server on every worker and ps task; the coordinator uses job name 'chief'.",
            "None.", "Run one worker and one ps task on 127.0.0.1.", (("MW", MW), ("PST", PST))),
    _recipe("device_setter", "replica_device_setter (between-graph replication)", NEEDS_REDESIGN,
            "Keep under compat.v1 graph mode.",
            "tf.distribute.ParameterServerStrategy(cluster_resolver, variable_partitioner=...); build "
            "model, optimizer and metrics under strategy.scope(); train with model.fit or a "
            "ClusterCoordinator custom loop. One coordinator program dispatches functions to workers.",
            "Variables keep their names; partitioned ones become ShardedVariables.",
            "Compare per-task placement (scopelint layout) and a short training run.",
            (("MW", MW), ("PST", PST))),
    _recipe("sync_replicas", "tf.train.SyncReplicasOptimizer", BLOCKED,
            "Keep under compat.v1 graph mode (deprecated).",
            "No TF2 parameter-server equivalent: TF2 PS training is asynchronous only. For synchronous "
            "data parallelism use tf.distribute.MultiWorkerMirroredStrategy (all-reduce, no ps).",
            "Accumulator and token-queue state is not carried over.", "Compare convergence after the switch.",
            (("PST: Known limitations", PST), ("MW", MW))),
    _recipe("ops", "Other TF1 API (ops, dtypes, initializers, nn)", RENAME_ONLY,
            "tf_upgrade_v2 renames symbols to tf.compat.v1 where needed.", "The TF2 names.",
            "None.", "Unit tests on TF2.", (("Upgrade script", UPGRADE),)),
)}


def readiness_rank(readiness: str) -> int:
    return READINESS_ORDER.index(readiness)
